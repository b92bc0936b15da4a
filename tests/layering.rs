//! The layers point one way: `core` ← `kafka` ← `runtime` ← `ffi`. Three of them are crates
//! (src/core is `mm2-checkpoint-core`, src/ffi is `mm2-checkpoint-ffi`, the rest of `src/` is
//! `mm2-checkpoint`), so the compiler refuses an import from a later one across a crate
//! boundary (the compile-fail doctests of src/core/mod.rs and capi/tests/upward_dependency.rs
//! show it). This test keeps the one boundary inside a crate: `kafka` ← `runtime` in
//! `mm2-checkpoint`. A module there may import its own layer and the layers before it, never a
//! later one; and inside each crate's layers the modules import each other without a cycle.
//! Paths through the top-level re-exports (`crate::Checkpoint`, `crate::checkpoint_task`) count
//! as the module they re-export, which this test reads from the crate root.
//!
//! The imports are read from the source text, not from the compiler, by a small parser with its
//! own tests below: comments and string literals are blanked first (so `"a//b"` does not hide
//! the code after it, and a doc link is no import), then every path that starts at `crate::`,
//! `super::`, `self::` or a child module the file declares is followed through `::` and `{…}`
//! groups, across lines (rustfmt's shape for long `use` lists).
//!
//! A module's ancestors are not counted as its dependencies in the cycle check: a child reaching
//! up (`super::Shared`) is how Rust gives a module's parts the parent's private state, while the
//! parent declaring and calling its children is the ordinary direction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 4] = ["core", "kafka", "runtime", "ffi"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The folders of `src/` that are crates of their own (their root file is `mod.rs`).
const CRATES_INSIDE_SRC: [&str; 2] = ["core", "ffi"];

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

/// The module a file under `src/` defines, as its path from the crate root (`lib.rs` is `[]`,
/// `kafka/mod.rs` is `[kafka]`, `kafka/librdkafka/batch.rs` is `[kafka, librdkafka, batch]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|c| c.to_str().unwrap().to_string())
        .collect();
    let file = parts.pop().unwrap();
    let stem = file.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// `text` with every comment, string literal and char literal replaced by spaces (newlines are
/// kept, so line numbers stay right). Lifetimes (`'a`) are code and stay.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"…" or r#"…"#: ends at a quote followed by as many hashes.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c); // r#ident
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &skipped in &chars[i..j.min(chars.len())] {
                out.push(blank(skipped));
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{1F600}'); a lifetime has no closing quote.
            let mut j = i + 1;
            if chars.get(j) == Some(&'\\') {
                j += 2;
            } else {
                j += 1;
            }
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            for _ in i..=j.min(chars.len() - 1) {
                out.push(' ');
            }
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Other(char),
}

/// Tokens of comment-free code, each with its 1-based line.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push((
                Token::Ident(word.trim_start_matches("r#").to_string()),
                line,
            ));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push((Token::PathSep, line));
            i += 2;
        } else {
            out.push((
                match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    ',' => Token::Comma,
                    other => Token::Other(other),
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// One path found in a file: where, inside which module (the file's plus any inline `mod x {`),
/// its segments as written, the name it is bound to by `as`, and whether it is a `use`.
#[derive(Clone, Debug, PartialEq)]
struct Import {
    line: usize,
    inline: Vec<String>,
    segments: Vec<String>,
    alias: Option<String>,
    is_use: bool,
}

impl Import {
    /// The path from the crate root, for a file defining `module`.
    fn absolute(&self, module: &[String]) -> Vec<String> {
        let mut here: Vec<String> = module.iter().chain(&self.inline).cloned().collect();
        let mut rest = self.segments.as_slice();
        match rest.first().map(String::as_str) {
            Some("crate") => {
                here.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    here.pop();
                    rest = &rest[1..];
                }
            }
            _ => {} // a child module of this file
        }
        here.extend(rest.iter().filter(|s| *s != "self").cloned());
        here
    }
}

/// Reads a path (tree) from `toks[*i]` on, appending each complete path to `out`.
fn path_tree(toks: &[(Token, usize)], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Import>) {
    let line = toks.get(*i).map_or(0, |t| t.1);
    let start = *i;
    let mut segments = prefix;
    loop {
        match toks.get(*i).map(|t| &t.0) {
            Some(Token::Ident(word)) if word != "as" => {
                segments.push(word.clone());
                *i += 1;
            }
            Some(Token::Open) => {
                *i += 1;
                loop {
                    match toks.get(*i).map(|t| &t.0) {
                        None => return,
                        Some(Token::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Token::Comma) => *i += 1,
                        Some(_) => {
                            let before = *i;
                            path_tree(toks, i, segments.clone(), out);
                            if *i == before {
                                *i += 1; // `*` or anything unexpected inside a group
                            }
                        }
                    }
                }
            }
            Some(Token::Other('*')) => {
                *i += 1; // a glob imports from the path so far
                break;
            }
            _ => break,
        }
        if toks.get(*i).map(|t| &t.0) == Some(&Token::PathSep) {
            *i += 1;
        } else {
            break;
        }
    }
    if *i == start {
        return;
    }
    let mut alias = None;
    if toks.get(*i).map(|t| &t.0) == Some(&Token::Ident("as".into())) {
        if let Some((Token::Ident(name), _)) = toks.get(*i + 1) {
            alias = Some(name.clone());
            *i += 2;
        }
    }
    out.push(Import {
        line,
        inline: Vec::new(),
        segments,
        alias,
        is_use: false,
    });
}

/// Every path in `text` that starts at `crate`, `super`, `self` or at one of the modules the
/// file declares with `mod name;`.
fn imports(text: &str) -> Vec<Import> {
    let toks = tokens(&code_only(text));
    let ident = |k: usize| match toks.get(k) {
        Some((Token::Ident(w), _)) => Some(w.as_str()),
        _ => None,
    };
    let children: BTreeSet<&str> = (0..toks.len())
        .filter(|&k| {
            ident(k) == Some("mod") && toks.get(k + 2).map(|t| &t.0) == Some(&Token::Other(';'))
        })
        .filter_map(|k| ident(k + 1))
        .collect();
    let mut found = Vec::new();
    // Inline modules (`mod tests {`), with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Token::Open => {
                depth += 1;
                if i >= 2 && ident(i - 2) == Some("mod") {
                    if let Some(name) = ident(i - 1) {
                        inline.push((name.to_string(), depth));
                    }
                }
                i += 1;
                continue;
            }
            Token::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
                continue;
            }
            _ => {}
        }
        let starts_path = match ident(i) {
            Some("crate" | "super" | "self") => true,
            Some(name) => inline.is_empty() && children.contains(name),
            None => false,
        } && toks.get(i + 1).map(|t| &t.0) == Some(&Token::PathSep)
            && (i == 0 || toks[i - 1].0 != Token::PathSep);
        if !starts_path {
            i += 1;
            continue;
        }
        let is_use = i >= 1 && ident(i - 1) == Some("use");
        let from = found.len();
        path_tree(&toks, &mut i, Vec::new(), &mut found);
        for import in &mut found[from..] {
            import.inline = inline.iter().map(|(n, _)| n.clone()).collect();
            import.is_use = is_use;
        }
    }
    found
}

/// Names re-exported at the crate root (`pub use crate::…` in lib.rs), mapped to the path they
/// stand for.
fn reexports(lib_rs: &str) -> BTreeMap<String, Vec<String>> {
    imports(lib_rs)
        .into_iter()
        .filter(|i| i.is_use && i.inline.is_empty())
        .filter_map(|i| {
            let path = i.absolute(&[]);
            let name = i.alias.clone().or_else(|| path.last().cloned())?;
            Some((name, path))
        })
        .collect()
}

/// `path` with a re-exported first segment replaced by what it re-exports.
fn through_reexports(path: Vec<String>, reexported: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    match path.first().and_then(|first| reexported.get(first)) {
        Some(target) if rank(&path[0]).is_none() => {
            target.iter().chain(&path[1..]).cloned().collect()
        }
        _ => path,
    }
}

/// The longest prefix of `path` that is one of `modules`.
fn owning_module(path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// A cycle in `graph`, as the modules along it (first repeated at the end), if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let at = stack.iter().position(|n| n == node).unwrap();
                let mut cycle = stack[at..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

/// Every file of the crate whose root file is in `dir`, but that root file and the crates
/// nested in `dir`: its path relative to `dir`, module and text.
fn crate_sources(dir: &Path) -> Vec<(PathBuf, Vec<String>, String)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let relative = f.strip_prefix(dir).unwrap().to_path_buf();
            let module = module_of(&relative);
            (relative, module, std::fs::read_to_string(&f).unwrap())
        })
        .filter(|(relative, module, _)| {
            !module.is_empty()
                && (dir != src_dir() || !CRATES_INSIDE_SRC.iter().any(|c| relative.starts_with(c)))
        })
        .collect()
}

/// Every file of the Rust API crate (`src/` without its nested crates) but lib.rs.
fn sources() -> Vec<(PathBuf, Vec<String>, String)> {
    crate_sources(&src_dir())
}

fn lib_reexports() -> BTreeMap<String, Vec<String>> {
    let lib_rs = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    let reexported = reexports(&lib_rs);
    assert!(reexported.contains_key("checkpoint_task"), "{reexported:?}");
    reexported
}

#[test]
fn no_layer_imports_a_later_one() {
    let reexported = lib_reexports();
    let mut violations = Vec::new();
    let mut checked = 0;
    for (relative, module, text) in sources() {
        let own = rank(&module[0]).expect("every folder of the crate is a layer");
        checked += 1;
        for import in imports(&text) {
            let path = through_reexports(import.absolute(&module), &reexported);
            let Some(layer) = path.first().and_then(|l| rank(l)) else {
                violations.push(format!(
                    "{}:{}: `{}` is neither in a layer nor a re-export",
                    relative.display(),
                    import.line,
                    import.segments.join("::")
                ));
                continue;
            };
            if layer > own {
                violations.push(format!(
                    "{}:{}: layer `{}` imports the later layer `{}`: `{}`",
                    relative.display(),
                    import.line,
                    LAYERS[own],
                    LAYERS[layer],
                    import.segments.join("::")
                ));
            }
        }
    }
    assert!(checked > 30, "only {checked} files were checked");
    // Only the layers still inside this crate are checked here; the others are crates.
    assert!(sources()
        .iter()
        .all(|(_, m, _)| m[0] == "kafka" || m[0] == "runtime"));
    assert!(violations.is_empty(), "{violations:#?}");
}

/// The modules of the crate rooted at `root_file` and which others each imports, ancestors
/// left out.
fn module_graph_of(root_file: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let root_text = std::fs::read_to_string(root_file).unwrap();
    let reexported = reexports(&root_text);
    let sources = crate_sources(root_file.parent().unwrap());
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|(_, m, _)| m.clone()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, module, text) in &sources {
        let edges = graph.entry(module.join("::")).or_default();
        for import in imports(text) {
            let path = through_reexports(import.absolute(module), &reexported);
            let Some(target) = owning_module(&path, &modules) else {
                continue;
            };
            if !module.starts_with(&target) {
                edges.insert(target.join("::"));
            }
        }
    }
    graph
}

/// The modules of the Rust API crate and which others each imports.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    assert!(lib_reexports().contains_key("checkpoint_task"));
    module_graph_of(&src_dir().join("lib.rs"))
}

#[test]
fn no_module_cycle_inside_a_layer() {
    let graph = module_graph();
    assert!(graph.len() > 30, "only {} modules", graph.len());
    // The graph is read right: these edges exist in the tree.
    assert!(graph["runtime::checkpoint_task::startup"]
        .contains("runtime::checkpoint_task::group_discovery"));
    assert!(graph["kafka::stop_signal"].contains("kafka::librdkafka"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle: {}", cycle.join(" → "));
    }
}

#[test]
fn no_module_cycle_inside_the_core_crate_or_the_c_abi_crate() {
    for (dir, edge) in [
        ("core", ("offset_sync_store", "offset_sync")),
        ("ffi", ("task", "boundary")),
    ] {
        let graph = module_graph_of(&src_dir().join(dir).join("mod.rs"));
        assert!(graph.len() > 8, "{dir}: only {} modules", graph.len());
        assert!(graph[edge.0].contains(edge.1), "{dir}: {graph:?}");
        if let Some(cycle) = find_cycle(&graph) {
            panic!("module cycle in src/{dir}: {}", cycle.join(" → "));
        }
    }
}

/// Where the Rust API crate lifts its `deny(unsafe_code)`: the librdkafka module, and
/// the one block that makes a `QueueGrant` (docs/TYPE_GUARANTEES.md: a queue is released before
/// its client because only `WakeableClient` can take one). A new exception is a decision to
/// make here, not in passing.
#[test]
fn unsafe_code_is_allowed_only_where_it_is_owned() {
    let mut allowed: Vec<String> = Vec::new();
    let mut files = vec![(
        PathBuf::from("lib.rs"),
        std::fs::read_to_string(src_dir().join("lib.rs")).unwrap(),
    )];
    files.extend(
        sources()
            .into_iter()
            .map(|(relative, _, text)| (relative, text)),
    );
    for (relative, text) in files {
        let code = code_only(&text);
        let toks = tokens(&code);
        for window in toks.windows(3) {
            if window[0].0 == Token::Ident("allow".into())
                && window[1].0 == Token::Other('(')
                && window[2].0 == Token::Ident("unsafe_code".into())
            {
                allowed.push(format!("{}:{}", relative.display(), window[0].1));
            }
        }
    }
    let files: BTreeSet<String> = allowed
        .iter()
        .map(|a| a.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        BTreeSet::from([
            "kafka/mod.rs".to_string(),
            "kafka/wakeable_client.rs".to_string(),
        ]),
        "{allowed:?}"
    );
    assert_eq!(allowed.len(), 2, "{allowed:?}");
    // The C ABI crate is the other place with `unsafe`; the core has none at all.
    let core_root = std::fs::read_to_string(src_dir().join("core/mod.rs")).unwrap();
    assert!(core_root.contains("#![forbid(unsafe_code)]"));
}

fn segments(imports: &[Import]) -> Vec<String> {
    imports.iter().map(|i| i.segments.join("::")).collect()
}

#[test]
fn the_parser_reads_one_line_groups_and_expressions() {
    assert_eq!(
        segments(&imports(
            "use crate::{core::wire, ffi::boundary::x, Checkpoint};"
        )),
        [
            "crate::core::wire",
            "crate::ffi::boundary::x",
            "crate::Checkpoint"
        ]
    );
    assert_eq!(
        segments(&imports("let x = crate::runtime::a::b();")),
        ["crate::runtime::a::b"]
    );
}

#[test]
fn the_parser_reads_rustfmt_multi_line_groups() {
    let text = "use crate::{\n    core::wire,\n    kafka::{admin::Admin, stop_signal::{lock, StopSignal}},\n    runtime::scheduler::*,\n};\n";
    let found = imports(text);
    assert_eq!(
        segments(&found),
        [
            "crate::core::wire",
            "crate::kafka::admin::Admin",
            "crate::kafka::stop_signal::lock",
            "crate::kafka::stop_signal::StopSignal",
            "crate::runtime::scheduler",
        ]
    );
    assert!(found.iter().all(|i| i.is_use));
}

#[test]
fn the_parser_resolves_super_self_and_child_modules() {
    let module = ["kafka".to_string(), "librdkafka".to_string()];
    let text = "mod batch;\nuse super::client_log;\nfn f() { super::super::ffi::x(); self::g(); batch::h(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n";
    let found: Vec<String> = imports(text)
        .iter()
        .map(|i| i.absolute(&module).join("::"))
        .collect();
    assert_eq!(
        found,
        [
            "kafka::client_log",
            "ffi::x",
            "kafka::librdkafka::g",
            "kafka::librdkafka::batch::h",
            // `super` inside `mod tests` is the file's own module.
            "kafka::librdkafka",
        ]
    );
}

#[test]
fn the_parser_sees_code_after_a_string_with_slashes_and_skips_comments() {
    let text = "let u = \"http://host\"; let x = crate::ffi::a(); // crate::runtime::b\n/* crate::runtime::c */ let c = '\"'; let r = r#\"crate::runtime::d\"#; fn f<'a>(x: &'a str) { crate::kafka::e(x) }\n/// [`crate::runtime::doc`]\nfn g() {}";
    assert_eq!(
        segments(&imports(text)),
        ["crate::ffi::a", "crate::kafka::e"]
    );
}

#[test]
fn the_parser_maps_reexports_to_their_modules() {
    let lib = "pub use crate::kafka::{diagnostics, embedded};\npub use crate::core::checkpoint::Checkpoint;\npub use crate::core::error::Error as Failure;\n";
    let map = reexports(lib);
    assert_eq!(map["embedded"], ["kafka", "embedded"]);
    assert_eq!(map["Checkpoint"], ["core", "checkpoint", "Checkpoint"]);
    assert_eq!(map["Failure"], ["core", "error", "Error"]);
    let path = through_reexports(vec!["Checkpoint".into(), "new".into()], &map);
    assert_eq!(path, ["core", "checkpoint", "Checkpoint", "new"]);
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        find_cycle(&graph(&[("x", "a"), ("a", "b"), ("b", "a")])),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    // A diamond is no cycle.
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])),
        None
    );
    let modules: BTreeSet<Vec<String>> = [
        vec!["kafka".to_string()],
        vec!["kafka".into(), "admin".into()],
    ]
    .into_iter()
    .collect();
    assert_eq!(
        owning_module(&["kafka".into(), "admin".into(), "Admin".into()], &modules),
        Some(vec!["kafka".to_string(), "admin".into()])
    );
}
