//! docs/CONFIGURATION.md is exactly what the code's key table generates. Regenerate it with
//! `MM2_BLESS_CONFIG_DOC=1 cargo test --test config_doc`.

use mm2_checkpoint::mirror_checkpoint_config::configuration_markdown;

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
