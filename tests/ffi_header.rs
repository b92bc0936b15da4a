//! The committed C header is exactly what cbindgen generates from the current sources.
//! Regenerate it with `MM2_BLESS_HEADER=1 cargo test --test ffi_header`.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    root().join("include/mm2_checkpoint.h")
}

fn generate() -> String {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml"))
        .expect("cbindgen.toml must parse");
    let bindings = cbindgen::Builder::new()
        .with_crate(root())
        .with_config(config)
        .generate()
        .expect("cbindgen must generate the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

// Links the library into this test so that its exported symbols resolve.
use mm2_checkpoint as _;

extern "C" {
    // Exported by the library (linked into this test through the rlib).
    fn mm_result_str(result: std::ffi::c_int) -> *const std::ffi::c_char;
}

#[test]
fn committed_header_matches_the_generated_one() {
    let generated = generate();
    let path = header_path();
    if std::env::var_os("MM2_BLESS_HEADER").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("writing the header");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "{} is stale (first difference at line {}): run `MM2_BLESS_HEADER=1 cargo test --test ffi_header` and commit it",
            path.display(),
            first + 1
        );
    }
}

#[test]
fn header_version_macros_match_the_crate_version() {
    let header = std::fs::read_to_string(header_path()).expect("the committed header");
    let expected = [
        format!(
            "#define MM2_CHECKPOINT_VERSION \"{}\"",
            env!("CARGO_PKG_VERSION")
        ),
        format!(
            "#define MM2_CHECKPOINT_VERSION_MAJOR {}",
            env!("CARGO_PKG_VERSION_MAJOR")
        ),
        format!(
            "#define MM2_CHECKPOINT_VERSION_MINOR {}",
            env!("CARGO_PKG_VERSION_MINOR")
        ),
        format!(
            "#define MM2_CHECKPOINT_VERSION_PATCH {}",
            env!("CARGO_PKG_VERSION_PATCH")
        ),
    ];
    for line in expected {
        assert!(
            header.lines().any(|l| l == line),
            "the header lacks `{line}`: update after_includes in cbindgen.toml"
        );
    }
}

/// Every `MM_RESULT_*` constant is named by `mm_result_str` with its own value, so the names in
/// messages and in the header cannot drift apart.
#[test]
fn result_names_match_the_header_constants() {
    let header = std::fs::read_to_string(header_path()).expect("the committed header");
    let constants: Vec<(String, i32)> = header
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_end_matches(',');
            let (name, value) = l.split_once(" = ")?;
            name.starts_with("MM_RESULT_")
                .then(|| (name.to_string(), value.parse().ok()))
                .and_then(|(n, v)| Some((n, v?)))
        })
        .collect();
    assert!(constants.len() >= 18, "found only {constants:?}");
    for (name, value) in constants {
        // SAFETY: mm_result_str accepts any int and returns static NUL-terminated text.
        let text = unsafe { std::ffi::CStr::from_ptr(mm_result_str(value)) }
            .to_str()
            .unwrap();
        assert!(
            text.starts_with(&format!("{name}:")),
            "{name} = {value} is named `{text}`"
        );
    }
}

/// Every exported function and type in the header carries documentation.
#[test]
fn every_declaration_is_documented() {
    let header = std::fs::read_to_string(header_path()).expect("the committed header");
    let lines: Vec<&str> = header.lines().collect();
    let mut undocumented = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let declares = (line.starts_with("mm_")
            || line.starts_with("const ")
            || line.starts_with("void ")
            || line.starts_with("size_t ")
            || line.starts_with("int32_t ")
            || line.starts_with("int64_t ")
            || line.starts_with("typedef "))
            && line.contains("mm_");
        if declares && i > 0 && !lines[i - 1].trim_end().ends_with("*/") {
            undocumented.push(*line);
        }
    }
    assert!(undocumented.is_empty(), "undocumented: {undocumented:#?}");
}
