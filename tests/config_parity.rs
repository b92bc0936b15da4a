//! One text, one meaning: every shipped `.properties` file resolves to the same configuration
//! through the Rust API and through the C API (`mm_conf_load_properties`, then what
//! `mm_task_new` reads, described by `mm_conf_describe`). The Java bindings call the same C
//! functions with the same text. Rejected texts fail with the same message in both.
//!
//! The Rust results are also committed under `tests/config_parity/` (`<example>.describe.txt`
//! for each shipped file; `rejected/<case>.properties` with its `.error`) and checked for drift
//! here, so the Java suite (`ConfigParityTest`) compares its own results with Rust's without a
//! second mechanism. After a deliberate change: `MM2_BLESS=1 cargo test
//! --all-features --test config_parity`, then commit the files.

use std::path::{Path, PathBuf};

use mm2_checkpoint::MirrorCheckpointConfig;
use support::c_conf::CConf;

/// The C API's description of `text`, or its error message.
fn through_c(text: &str) -> Result<String, String> {
    CConf::load(text)?.describe()
}

/// The Rust API's description of `text`, or its error as C would print it.
fn through_rust(text: &str) -> Result<String, String> {
    MirrorCheckpointConfig::from_properties_text(text)
        .map(|(config, _)| config.describe())
        .map_err(|e| match e.key.as_str() {
            "" => e.reason,
            key => format!("{key}: {}", e.reason),
        })
}

/// The files directly in `dir` whose name ends with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|p| p.ends_with(suffix)))
        .collect();
    files.sort();
    files
}

fn shipped_properties() -> Vec<PathBuf> {
    files_ending(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        ".properties",
    )
}

/// Where the Rust results are committed for the other languages' suites.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/config_parity")
}

fn blessing() -> bool {
    std::env::var_os("MM2_BLESS").is_some_and(|v| v == "1")
}

/// Checks that `path` holds `expected` (writes it first when blessing).
fn check_committed(path: &Path, expected: &str) {
    if blessing() {
        std::fs::write(path, expected).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == expected,
        "{} is stale or missing (rerun with MM2_BLESS=1 and commit it)\n\
         committed:\n{committed}\nnow:\n{expected}",
        path.display()
    );
}

/// The committed rejected texts: `rejected/<case>.properties`, each with its `<case>.error`.
fn rejected_cases() -> Vec<(PathBuf, String)> {
    files_ending(&golden_dir().join("rejected"), ".properties")
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

#[test]
fn every_shipped_properties_file_resolves_identically_through_rust_and_c() {
    let files = shipped_properties();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rust = through_rust(&text).unwrap_or_else(|e| panic!("{}: Rust: {e}", file.display()));
        let c = through_c(&text).unwrap_or_else(|e| panic!("{}: C: {e}", file.display()));
        assert_eq!(rust, c, "{}", file.display());
        assert!(rust.contains("bootstrap.servers"), "{rust}");
    }
}

#[test]
fn the_committed_description_of_every_shipped_properties_file_is_the_rust_one() {
    let files = shipped_properties();
    let mut expected_golden = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let rust = through_rust(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file.file_stem().unwrap().to_str().unwrap();
        let golden = golden_dir().join(format!("{name}.describe.txt"));
        check_committed(&golden, &rust);
        expected_golden.push(golden);
    }
    // No description is left behind for a file that is no longer shipped.
    assert_eq!(
        files_ending(&golden_dir(), ".describe.txt"),
        expected_golden
    );
}

#[test]
fn the_demo_file_with_aliases_source_and_target_loads_through_c() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mm2.properties"),
    )
    .unwrap();
    let described = through_c(&text).unwrap();
    assert!(
        described
            .lines()
            .any(|l| l == "source.cluster.alias = source"),
        "{described}"
    );
}

#[test]
fn a_rejected_text_fails_with_the_same_message_through_rust_and_c() {
    let cases = rejected_cases();
    assert!(cases.len() >= 7, "{cases:?}");
    for (file, text) in cases {
        let rust = through_rust(&text).expect_err(&text);
        let c = through_c(&text).expect_err(&text);
        assert_eq!(rust, c, "{}", file.display());
        check_committed(&file.with_extension("error"), &rust);
    }
}

#[test]
fn a_missing_ca_file_is_named_with_its_key_when_the_task_is_created() {
    use mm2_checkpoint::checkpoint_task::CheckpointTask;
    let text = "clusters = A, B\nA->B.enabled = true\nA.bootstrap.servers = 127.0.0.1:1\n\
                B.bootstrap.servers = 127.0.0.1:1\nB.security.protocol = SSL\n\
                B.ssl.ca.location = /nowhere/backup-ca.pem\n";
    let (config, _) = MirrorCheckpointConfig::from_properties_text(text).unwrap();
    let Err(e) = CheckpointTask::new(config) else {
        panic!("a missing CA file was accepted");
    };
    assert_eq!(
        e.to_string(),
        "invalid value for configuration `B.ssl.ca.location`: the file `/nowhere/backup-ca.pem` does not exist"
    );
}
