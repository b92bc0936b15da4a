//! The example configuration files (examples/mm2*.properties) load without errors or warnings
//! and hand their client settings to every client they are meant for.

use mm2_checkpoint::parse_properties;
use mm2_checkpoint::MirrorCheckpointConfig;

fn load(file: &str) -> MirrorCheckpointConfig {
    let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let props = parse_properties(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (config, warnings) = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(warnings.is_empty(), "{path}: {warnings:?}");
    config
}

#[test]
fn the_demo_properties_point_at_the_demo_clusters_with_single_replica_internal_topics() {
    let c = load("mm2.properties");
    assert_eq!(c.source_cluster_alias, "source");
    assert_eq!(
        c.source_admin_config()["bootstrap.servers"],
        "127.0.0.1:19092"
    );
    assert_eq!(
        c.target_admin_config()["bootstrap.servers"],
        "127.0.0.1:29092"
    );
    assert_eq!(c.checkpoints_topic(), "source.checkpoints.internal");
    assert_eq!(c.offset_syncs_topic(), "mm2-offset-syncs.target.internal");
    assert_eq!(c.checkpoints_topic_replication_factor, 1);
}

#[test]
fn the_tls_sasl_properties_reach_every_client_of_both_demo_clusters_in_librdkafka_names() {
    let c = load("mm2-tls-sasl.properties");
    assert_eq!(c.source_cluster_alias, "source");
    // scripts/demo-clusters.sh up --secure: SASL_SSL ports, and the CA each broker's handle holds.
    let clients = [
        ("source", "127.0.0.1:19094", c.source_admin_config()),
        ("target", "127.0.0.1:29094", c.target_admin_config()),
        ("target", "127.0.0.1:29094", c.target_producer_config()),
    ];
    for (side, bootstrap, client) in clients {
        assert_eq!(client["bootstrap.servers"], bootstrap, "{side}");
        assert_eq!(client["security.protocol"], "SASL_SSL", "{side}");
        assert_eq!(client["sasl.mechanism"], "SCRAM-SHA-512", "{side}");
        assert_eq!(client["sasl.username"], "mm2-checkpoint", "{side}");
        assert_eq!(
            client["ssl.ca.location"],
            format!(".tools/demo/{side}/tls/ca.pem"),
            "{side}"
        );
    }
    assert_eq!(c.checkpoints_topic_replication_factor, 1);
}

#[test]
fn the_elastic_properties_join_a_coordination_group_with_a_short_session_timeout() {
    use mm2_checkpoint::TaskAssignment;
    let c = load("mm2-elastic.properties");
    let TaskAssignment::Group(g) = &c.task_assignment else {
        panic!(
            "task.assignment=group expected, got {:?}",
            c.task_assignment
        )
    };
    assert_eq!(g.group_id, "mm2-checkpoint-source-target");
    assert_eq!(g.topic, "mm2-checkpoint-coordination.source.internal");
    assert_eq!(g.partitions, 16);
    let consumer = c.coordination_consumer_config();
    assert_eq!(consumer["bootstrap.servers"], "127.0.0.1:29092");
    assert_eq!(consumer["session.timeout.ms"], "6000");
}
