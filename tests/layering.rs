//! The four layers of `src/` point one way: `core` ← `kafka` ← `runtime` ← `ffi`. A module may
//! import its own layer and the layers before it, never a later one. Paths through the
//! top-level re-exports (`crate::Checkpoint`, `crate::checkpoint_task`) count as the layer they
//! re-export, which this test reads from `src/lib.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const LAYERS: [&str; 4] = ["core", "kafka", "runtime", "ffi"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Names re-exported at the top level (`pub use crate::LAYER::…`), mapped to their layer.
fn reexports(lib_rs: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let mut statement = String::new();
    for line in lib_rs.lines() {
        let line = line.trim();
        if statement.is_empty() && !line.starts_with("pub use crate::") {
            continue;
        }
        statement.push_str(line);
        statement.push(' ');
        if !line.ends_with(';') {
            continue;
        }
        let path = statement["pub use crate::".len()..]
            .trim()
            .trim_end_matches(';');
        let (layer, rest) = path.split_once("::").expect("a layer-qualified re-export");
        let rest = rest.trim_start_matches('{').trim_end_matches('}');
        for item in rest.split(',') {
            let name = item.trim().rsplit("::").next().unwrap().trim();
            let name = name.trim_start_matches('{').trim_end_matches('}');
            let name = name.rsplit(" as ").next().unwrap().trim();
            if !name.is_empty() && name != "self" {
                names.insert(name.to_string(), layer.to_string());
            }
        }
        statement.clear();
    }
    names
}

/// Every first path segment after `crate::` in `text`, including each member of a
/// `crate::{a::…, b}` group.
fn crate_paths(text: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            let mut depth = 0;
            let mut start = 0;
            let body = &group[..end];
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(ident(body[start..i].trim()));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            found.push(ident(body[start..].trim()));
        } else {
            found.push(ident(rest));
        }
    }
    found.into_iter().filter(|s| !s.is_empty()).collect()
}

#[test]
fn no_layer_imports_a_later_one() {
    let src = src_dir();
    let lib_rs = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexported = reexports(&lib_rs);
    assert!(reexported.contains_key("checkpoint_task"), "{reexported:?}");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let Some(own) = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .and_then(rank)
        else {
            continue; // lib.rs: the root declares the layers
        };
        checked += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            for name in crate_paths(code) {
                let layer = match rank(&name) {
                    Some(_) => name.clone(),
                    None => match reexported.get(&name) {
                        Some(layer) => layer.clone(),
                        None => {
                            violations.push(format!(
                                "{}:{}: `crate::{name}` is neither a layer nor a re-export",
                                relative.display(),
                                n + 1
                            ));
                            continue;
                        }
                    },
                };
                if rank(&layer).unwrap() > own {
                    violations.push(format!(
                        "{}:{}: layer `{}` imports the later layer `{layer}`: {}",
                        relative.display(),
                        n + 1,
                        LAYERS[own],
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} files were checked");
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_checker_sees_upward_imports() {
    assert_eq!(
        crate_paths("use crate::{core::wire, ffi::boundary::x, Checkpoint};"),
        ["core", "ffi", "Checkpoint"]
    );
    assert_eq!(crate_paths("let x = crate::runtime::a::b();"), ["runtime"]);
    let lib = "pub use crate::kafka::{diagnostics, embedded};\npub use crate::core::checkpoint::Checkpoint;\n";
    let map = reexports(lib);
    assert_eq!(map.get("embedded").map(String::as_str), Some("kafka"));
    assert_eq!(map.get("Checkpoint").map(String::as_str), Some("core"));
}
