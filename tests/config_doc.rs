//! docs/CONFIGURATION.md and the Connect connector's key list are exactly what the code's key
//! table generates. Regenerate both with `MM2_BLESS_CONFIG_DOC=1 cargo test --test config_doc`.

use mm2_checkpoint::mirror_checkpoint_config::{configuration_markdown, connector_keys_tsv};

#[test]
fn committed_configuration_doc_matches_the_key_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CONFIGURATION.md");
    let generated = configuration_markdown();
    if std::env::var_os("MM2_BLESS_CONFIG_DOC").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("writing docs/CONFIGURATION.md");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `MM2_BLESS_CONFIG_DOC=1 cargo test --test config_doc` and commit it",
        path.display()
    );
}

#[test]
fn committed_connector_key_list_matches_the_key_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("java/src/main/resources/io/mm2checkpoint/connector-keys.tsv");
    let generated = connector_keys_tsv();
    if std::env::var_os("MM2_BLESS_CONFIG_DOC").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).expect("the resource directory");
        std::fs::write(&path, &generated).expect("writing connector-keys.tsv");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `MM2_BLESS_CONFIG_DOC=1 cargo test --test config_doc` and commit it",
        path.display()
    );
}
