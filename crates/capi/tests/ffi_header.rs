//! The committed C header is exactly what cbindgen generates from the current sources, and the
//! files generated from the header (the layout file, test_abi.c's layout table, the list-row
//! parts of the JNI bridge and of the Java bindings: tests/bindings/generate.rs) are exactly what
//! the generator makes of it. Regenerate all of them with
//! `MM2_BLESS=1 cargo test --test ffi_header` (a test of the crate mm2-checkpoint-capi).

use std::path::{Path, PathBuf};

// The generator stays beside the Rust API crate's tests, whose path the generated files name.
#[path = "../../../tests/bindings/generate.rs"]
mod bindings;

/// The repository's top folder (this crate is crates/capi/).
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn header_path() -> PathBuf {
    root().join("include/mm2_checkpoint.h")
}

fn generate() -> String {
    let config = cbindgen::Config::from_file(root().join("crates/capi/cbindgen.toml"))
        .expect("crates/capi/cbindgen.toml must parse");
    let bindings = cbindgen::Builder::new()
        .with_crate(root().join("crates/ffi"))
        .with_config(config)
        .generate()
        .expect("cbindgen must generate the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

// Links the C ABI into this test so that its exported symbols resolve.
use mm2_checkpoint_ffi as _;

extern "C" {
    // Exported by the library (linked into this test through the rlib).
    fn mm_result_str(result: std::ffi::c_int) -> *const std::ffi::c_char;
}

fn blessing() -> bool {
    std::env::var_os("MM2_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn committed_header_matches_the_generated_one() {
    let generated = generate();
    check_or_bless(&header_path(), &generated);
}

/// Every file generated from the header matches what the generator makes of the header
/// cbindgen generates now (not of the committed one, so one bless run updates everything).
#[test]
fn committed_binding_files_match_the_generated_ones() {
    let files = bindings::generate(&generate());
    for (path, generated) in &files {
        check_or_bless(&root().join(path), generated);
    }
}

/// Under `MM2_BLESS=1` writes `generated` to `path`; otherwise fails when they differ.
fn check_or_bless(path: &Path, generated: &str) {
    if blessing() {
        std::fs::write(path, generated).expect("writing a generated file");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "{} is stale (first difference at line {}): run `MM2_BLESS=1 cargo test --test ffi_header` and commit it",
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
    assert!(constants.len() >= 19, "found only {constants:?}");
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
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        // Any top-level line naming one of ours: a prototype whatever it returns (`mm_result`,
        // `struct …`, `enum …`, `const char *`, `uint64_t`, …), a typedef, struct, enum or
        // constant. Continuation lines of a prototype are indented and so not counted.
        let top_level = !line.is_empty()
            && !line.starts_with([' ', '\t', '*', '/', '#', '}', '{'])
            && !line.starts_with("extern \"C\"");
        let declares = top_level && (line.contains("mm_") || line.contains("MM_"));
        checked += usize::from(declares);
        if declares && i > 0 && !lines[i - 1].trim_end().ends_with("*/") {
            undocumented.push(*line);
        }
    }
    assert!(undocumented.is_empty(), "undocumented: {undocumented:#?}");
    let functions = declared_functions(&header).len();
    assert!(
        checked > functions,
        "saw {checked} declarations for {functions} functions"
    );
}

/// The committed header; under `MM2_BLESS=1` the generated one, which that run commits (so the
/// checks below judge what the run writes, not the file another test is rewriting).
fn header() -> String {
    if blessing() {
        return generate();
    }
    std::fs::read_to_string(header_path()).expect("the committed header")
}

/// The functions the header declares, sorted.
fn declared_functions(header: &str) -> Vec<String> {
    let mut names: Vec<String> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('*') && !l.starts_with('/'))
        .filter_map(|l| {
            let open = l.find('(')?;
            let name = l[..open].rsplit([' ', '*']).next()?;
            name.starts_with("mm_").then(|| name.to_string())
        })
        .filter(|n| n != "mm_log_cb")
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The functions of a symbol list (`include/NAME`), in its order.
fn listed_symbols(name: &str) -> Vec<String> {
    std::fs::read_to_string(root().join("include").join(name))
        .unwrap_or_else(|e| panic!("include/{name}: {e}"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The header's text inside `#if defined(MM2_CHECKPOINT_EMBEDDED)` blocks (with the
/// conditionals nested in them), and the text outside them.
fn split_embedded(header: &str) -> (String, String) {
    let (mut inside, mut outside) = (String::new(), String::new());
    // How many conditionals are open since the outermost embedded block began (0: outside).
    let mut depth = 0;
    for line in header.lines() {
        if depth == 0 && line == "#if defined(MM2_CHECKPOINT_EMBEDDED)" {
            depth = 1;
            continue;
        }
        if depth > 0 {
            if line.starts_with("#if") {
                depth += 1;
            } else if line.starts_with("#endif") {
                depth -= 1;
            }
            inside.push_str(line);
            inside.push('\n');
        } else {
            outside.push_str(line);
            outside.push('\n');
        }
    }
    assert_eq!(depth, 0, "an MM2_CHECKPOINT_EMBEDDED block is not closed");
    (inside, outside)
}

/// A function may be added to the C ABI (with include/mm2_checkpoint.symbols updated), but none
/// may disappear or appear unnoticed while the SONAME stays the same. (ffi-tests/run.sh checks
/// the built library's dynamic symbols against the same list.)
#[test]
fn the_header_declares_exactly_the_listed_symbols() {
    let (_, outside) = split_embedded(&header());
    let listed = listed_symbols("mm2_checkpoint.symbols");
    let declared = declared_functions(&outside);
    assert!(declared.len() > 50, "parsed only {declared:?}");
    let missing: Vec<_> = listed.iter().filter(|s| !declared.contains(s)).collect();
    let unlisted: Vec<_> = declared.iter().filter(|s| !listed.contains(s)).collect();
    assert!(
        missing.is_empty() && unlisted.is_empty(),
        "removed from the ABI: {missing:?}; not in include/mm2_checkpoint.symbols: {unlisted:?}"
    );
}

/// The mock clusters are declared only under MM2_CHECKPOINT_EMBEDDED, and listed apart from the
/// library users get: nothing `mm_embedded_*` outside that block and its list, nothing else in
/// them. (ffi-tests/run.sh checks that a default build exports none of them.)
#[test]
fn the_mock_cluster_functions_are_declared_and_listed_only_for_the_embedded_build() {
    let (inside, outside) = split_embedded(&header());
    let embedded = listed_symbols("mm2_checkpoint_embedded.symbols");
    assert_eq!(declared_functions(&inside), embedded);
    assert!(embedded.len() >= 8, "{embedded:?}");
    assert!(embedded.iter().all(|s| s.starts_with("mm_embedded_")));
    let outside = declared_functions(&outside);
    assert!(
        !outside.iter().any(|s| s.starts_with("mm_embedded_")),
        "{outside:?}"
    );
    let default = listed_symbols("mm2_checkpoint.symbols");
    assert!(!default.iter().any(|s| s.starts_with("mm_embedded_")));
}

/// Every field of every public struct and every enum constant of the header has its line in
/// include/mm2_checkpoint.layout (which ffi-tests/test_abi.c checks against the compiler and
/// the Java bindings read), and the file names nothing else.
#[test]
fn the_layout_file_covers_every_struct_field_and_enum_constant() {
    let header = header();
    let mut expected = Vec::new();
    let mut current: Option<String> = None;
    for line in header.lines() {
        if let Some(rest) = line
            .strip_prefix("typedef struct ")
            .or_else(|| line.strip_prefix("typedef enum "))
        {
            if let Some(name) = rest.strip_suffix(" {") {
                expected.push(format!("{name}.size"));
                current = Some(name.to_string());
            }
        } else if line.starts_with('}') {
            current = None;
        } else if let Some(owner) = &current {
            let l = line.trim();
            if l.starts_with('*') || l.starts_with('/') {
                continue;
            }
            if l.starts_with("MM_") {
                expected.push(l.split(" = ").next().unwrap().to_string());
            } else if let Some(field) = l.strip_suffix(';') {
                let name = field.rsplit([' ', '*']).next().unwrap();
                expected.push(format!("{owner}.{name}"));
            }
        }
    }
    let file = std::fs::read_to_string(root().join("include/mm2_checkpoint.layout"))
        .expect("include/mm2_checkpoint.layout");
    let keys: Vec<String> = file
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('=').next().unwrap().to_string())
        .collect();
    expected.sort();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        sorted, expected,
        "include/mm2_checkpoint.layout is stale: run `MM2_BLESS=1 cargo test --test ffi_header`"
    );
}

/// The ABI macro, the SONAME build.rs sets and the version number agree.
#[test]
fn abi_and_version_number_macros_match_the_build() {
    let header = header();
    let abi = format!(
        "#define MM2_CHECKPOINT_ABI_VERSION {}",
        env!("MM2_CHECKPOINT_ABI_VERSION")
    );
    assert!(header.lines().any(|l| l == abi), "the header lacks `{abi}`");
    let num = |s: &str| s.parse::<u32>().unwrap();
    let packed = (num(env!("CARGO_PKG_VERSION_MAJOR")) << 16)
        | (num(env!("CARGO_PKG_VERSION_MINOR")) << 8)
        | num(env!("CARGO_PKG_VERSION_PATCH"));
    let line = format!("#define MM2_CHECKPOINT_VERSION_NUM 0x{packed:06x}");
    assert!(
        header.lines().any(|l| l == line),
        "the header lacks `{line}`"
    );
}

/// A field added to a list row in the header reaches the layout file, test_abi's table, the JNI
/// bridge and the Java row record through the generator alone: nothing hand-written follows it.
#[test]
fn a_field_added_to_a_row_reaches_every_generated_binding() {
    let header = header();
    let last = "  uint64_t metadata_len;\n} mm_checkpoint_row;";
    assert!(
        header.contains(last),
        "mm_checkpoint_row ends with metadata_len"
    );
    let grown = header.replacen(
        last,
        "  uint64_t metadata_len;\n  /**\n   * A field added later.\n   */\n  int64_t added_later;\n} mm_checkpoint_row;",
        1,
    );
    let before = bindings::generate(&header);
    let after = bindings::generate(&grown);
    let file = |files: &[(&str, String)], path: &str| {
        files.iter().find(|(p, _)| *p == path).unwrap().1.clone()
    };
    let layout = file(&after, "include/mm2_checkpoint.layout");
    assert!(layout.contains("mm_checkpoint_row.size=88\n"));
    assert!(layout.contains("mm_checkpoint_row.added_later=80\n"));
    assert!(
        file(&after, "ffi-tests/layout_table.h").contains("FIELD(mm_checkpoint_row, added_later),")
    );
    assert!(
        file(&after, "java/src/main/c/mm2_checkpoint_rows.h").contains("(jlong)row.added_later")
    );
    let java = file(
        &after,
        "java/src/main/java/io/mm2checkpoint/NativeRows.java",
    );
    assert!(java.contains("long addedLater) {}"), "{java}");
    assert!(java.contains("@param addedLater A field added later."));
    assert!(java.contains("\"downstream_offset\", \"added_later\""));
    // The Panama part binds functions, not fields: unchanged.
    let panama = "java/src/main/java22/io/mm2checkpoint/PanamaRows.java";
    assert_eq!(file(&before, panama), file(&after, panama));
}
