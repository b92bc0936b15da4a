//! docs/CONFIGURATION.md and the Connect connector's key list are exactly what the code's key
//! table generates. Regenerate both with `MM2_BLESS=1 cargo test --test config_doc`.

use mm2_checkpoint_core::mirror_checkpoint_config::{configuration_markdown, connector_keys_tsv};

/// Fails unless the committed file at `relative` (from the repository root) is `generated`;
/// with `MM2_BLESS=1`, writes it instead.
fn committed_equals_generated(relative: &str, generated: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if std::env::var_os("MM2_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).expect("the file's directory");
        std::fs::write(&path, generated).unwrap_or_else(|e| panic!("writing {relative}: {e}"));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `MM2_BLESS=1 cargo test --test config_doc` and commit it",
        path.display()
    );
}

#[test]
fn committed_configuration_doc_matches_the_key_table() {
    committed_equals_generated("docs/CONFIGURATION.md", &configuration_markdown());
}

#[test]
fn committed_connector_key_list_matches_the_key_table() {
    committed_equals_generated(
        "java/src/main/resources/io/mm2checkpoint/connector-keys.tsv",
        &connector_keys_tsv(),
    );
}
