//! The Kafka clients' settings: layering, what never reaches a client, client ids, Java's
//! security settings, and the conflicts librdkafka would refuse.

use super::*;

#[test]
fn client_settings_layer_from_cluster_to_specific() {
    let c = ok(
        CONNECTOR,
        &[
            ("source.cluster.security.protocol", "SSL"),
            ("source.cluster.client.rack", "r1"),
            ("source.cluster.fetch.wait.max.ms", "1"),
            ("consumer.fetch.wait.max.ms", "2"),
            ("source.consumer.fetch.wait.max.ms", "3"),
            ("consumer.max.poll.interval.ms", "400000"),
            ("target.consumer.max.poll.interval.ms", "500000"),
            ("admin.request.timeout.ms", "9"),
            ("source.admin.request.timeout.ms", "10"),
            ("target.producer.linger.ms", " 5 "),
            ("producer.acks", "all"),
        ],
    );
    let src = c.source_consumer_config();
    assert_eq!(src["bootstrap.servers"], "a:9092");
    assert_eq!(src["security.protocol"], "SSL");
    assert_eq!(src["client.rack"], "r1");
    assert_eq!(src["fetch.wait.max.ms"], "3");
    assert_eq!(src["max.poll.interval.ms"], "400000");
    let tgt = c.checkpoints_consumer_config();
    assert_eq!(tgt["bootstrap.servers"], "b:9092");
    assert_eq!(tgt["max.poll.interval.ms"], "500000");
    assert_eq!(tgt["fetch.wait.max.ms"], "2");
    assert!(!tgt.contains_key("security.protocol"));
    assert_eq!(c.source_admin_config()["request.timeout.ms"], "10");
    assert_eq!(c.target_admin_config()["request.timeout.ms"], "9");
    let producer = c.target_producer_config();
    assert_eq!(producer["linger.ms"], "5");
    assert_eq!(producer["acks"], "all");
    assert!(!producer.contains_key("enable.auto.commit"));
}

#[test]
fn flow_keys_never_reach_a_client() {
    let c = ok(
        CONNECTOR,
        &[
            ("consumer.poll.timeout.ms", "500"),
            ("admin.timeout.ms", "3000"),
            ("source.cluster.groups", "x"),
        ],
    );
    for props in [
        c.source_consumer_config(),
        c.source_admin_config(),
        c.checkpoints_consumer_config(),
    ] {
        for key in ["poll.timeout.ms", "timeout.ms", "alias", "groups"] {
            assert!(!props.contains_key(key), "{key} in {props:?}");
        }
    }
}

#[test]
fn consumers_never_auto_commit_and_default_to_earliest() {
    let c = ok(CONNECTOR, &[]);
    for props in [
        c.offset_syncs_consumer_config(),
        c.checkpoints_consumer_config(),
        c.source_consumer_config(),
    ] {
        assert_eq!(props["enable.auto.commit"], "false");
        assert_eq!(props["auto.offset.reset"], "earliest");
    }
    let c = ok(
        CONNECTOR,
        &[
            ("consumer.enable.auto.commit", "true"),
            ("target.consumer.auto.offset.reset", "latest"),
        ],
    );
    let props = c.checkpoints_consumer_config();
    assert_eq!(props["enable.auto.commit"], "false");
    assert_eq!(props["auto.offset.reset"], "latest");
    assert!(!c.target_admin_config().contains_key("enable.auto.commit"));
}

#[test]
fn client_ids_name_flow_task_and_role() {
    let c = ok(CONNECTOR, &[]);
    let cases = [
        (
            c.source_admin_config(),
            "A->B|mm2-checkpoint|checkpoint-source-admin",
        ),
        (
            c.target_admin_config(),
            "A->B|mm2-checkpoint|checkpoint-target-admin",
        ),
        (
            c.target_producer_config(),
            "A->B|mm2-checkpoint|checkpoint-target-producer",
        ),
        (
            c.offset_syncs_consumer_config(),
            "A->B|mm2-checkpoint|offset-syncs-source-consumer",
        ),
        (
            c.offset_syncs_admin_config(),
            "A->B|mm2-checkpoint|offset-syncs-source-admin",
        ),
        (
            c.checkpoints_consumer_config(),
            "A->B|mm2-checkpoint|checkpoints-target-consumer",
        ),
        (
            c.source_consumer_config(),
            "A->B|mm2-checkpoint|checkpoint-source-consumer",
        ),
    ];
    for (props, id) in cases {
        assert_eq!(props["client.id"], id);
    }
    let c = ok(
        CONNECTOR,
        &[
            ("task.index", "3"),
            ("offset-syncs.topic.location", "target"),
            ("consumer.client.id", "me"),
            ("target.admin.client.id", "adm"),
        ],
    );
    assert_eq!(c.entity_label(), "A->B|mm2-checkpoint-3");
    let syncs = c.offset_syncs_consumer_config();
    assert_eq!(
        syncs["client.id"],
        "me|A->B|mm2-checkpoint-3|offset-syncs-target-consumer"
    );
    assert_eq!(syncs["bootstrap.servers"], "b:9092");
    assert_eq!(
        c.offset_syncs_admin_config()["client.id"],
        "adm|A->B|mm2-checkpoint-3|offset-syncs-target-admin"
    );
    assert_eq!(
        c.source_admin_config()["client.id"],
        "A->B|mm2-checkpoint-3|checkpoint-source-admin"
    );
}

#[test]
fn missing_bootstrap_servers_names_the_key_to_set() {
    let cases: &[(Props, &[&str], &str)] = &[
        (
            CONNECTOR,
            &["source.cluster.bootstrap.servers"],
            "source.cluster.bootstrap.servers",
        ),
        (
            CONNECTOR,
            &["target.cluster.bootstrap.servers"],
            "target.cluster.bootstrap.servers",
        ),
        (DEDICATED, &["A.bootstrap.servers"], "A.bootstrap.servers"),
        (DEDICATED, &["B.bootstrap.servers"], "B.bootstrap.servers"),
    ];
    for (base, drop, key) in cases {
        let kept: Vec<(&str, &str)> = base
            .iter()
            .copied()
            .filter(|(k, _)| !drop.contains(k))
            .collect();
        let e = err(&kept, &[]);
        assert_eq!(e.key, *key);
        assert!(e.reason.contains("required"), "{e}");
    }
    // Per-client settings can supply it instead of the cluster.
    let kept: Vec<(&str, &str)> = CONNECTOR
        .iter()
        .copied()
        .filter(|(k, _)| !k.starts_with("target.cluster.b"))
        .collect();
    ok(
        &kept,
        &[
            ("target.consumer.bootstrap.servers", "b:1"),
            ("target.admin.bootstrap.servers", "b:1"),
            ("target.producer.bootstrap.servers", "b:1"),
        ],
    );
}

#[test]
fn java_sasl_jaas_config_reaches_every_client_as_librdkafka_settings() {
    let config = ok(
        DEDICATED,
        &[
            ("A.security.protocol", "SASL_SSL"),
            ("A.sasl.mechanism", "SCRAM-SHA-512"),
            (
                "A.sasl.jaas.config",
                r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="pw-A";"#,
            ),
        ],
    );
    for client in [
        config.source_admin_config(),
        config.source_consumer_config(),
    ] {
        assert_eq!(client["sasl.username"], "mm2");
        assert_eq!(client["sasl.password"], "pw-A");
        assert!(!client.contains_key("sasl.jaas.config"));
    }
    assert!(!config.target_admin_config().contains_key("sasl.username"));
    let shown = config.describe();
    assert!(!shown.contains("pw-A"), "{shown}");
    assert!(shown.contains("sasl.password = [hidden]"), "{shown}");
    assert!(!format!("{config:?}").contains("pw-A"));
}

#[test]
fn java_keystores_and_truststores_are_translated_or_refused_under_the_users_key() {
    let config = ok(
        DEDICATED,
        &[
            ("A.ssl.keystore.type", "PKCS12"),
            ("A.ssl.keystore.location", "/k/client.p12"),
            ("A.ssl.keystore.password", "ks-pw"),
        ],
    );
    let admin = config.source_admin_config();
    assert_eq!(admin["ssl.keystore.location"], "/k/client.p12");
    assert_eq!(admin["ssl.keystore.password"], "ks-pw");
    assert!(!admin.contains_key("ssl.keystore.type"));

    let e = parse(DEDICATED, &[("B.ssl.keystore.location", "/k/client.jks")]).unwrap_err();
    assert_eq!(e.key, "B.ssl.keystore.location");
    assert!(e.reason.contains("ssl.certificate.location"), "{e}");
    let e = parse(DEDICATED, &[("A.ssl.truststore.location", "/k/ca.p12")]).unwrap_err();
    assert_eq!(e.key, "A.ssl.truststore.location");
    assert!(e.reason.contains("ssl.ca.location"), "{e}");
    let (_, warnings) = parse(DEDICATED, &[("A.ssl.truststore.password", "ts-pw")]).unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.key == "A.ssl.truststore.password"),
        "{warnings:?}"
    );
}

#[test]
fn statistics_interval_is_off_by_default_and_read_in_ms_up_to_a_day() {
    assert_eq!(ok(CONNECTOR, &[]).statistics_interval, None);
    let off = ok(CONNECTOR, &[("statistics.interval.ms", "0")]);
    assert_eq!(off.statistics_interval, None);
    for (text, ms) in [("1", 1), ("5000", 5000), ("86400000", 86_400_000)] {
        let c = ok(CONNECTOR, &[("statistics.interval.ms", text)]);
        assert_eq!(
            c.statistics_interval,
            Some(Duration::from_millis(ms)),
            "{text}"
        );
    }
    // A flow key, not a librdkafka setting: no client receives it.
    let c = ok(CONNECTOR, &[("statistics.interval.ms", "5000")]);
    assert!(!c
        .target_admin_config()
        .contains_key("statistics.interval.ms"));
}

#[test]
fn client_setting_conflicts_librdkafka_refuses_at_creation() {
    let settings = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let written = |k: &str| Some(format!("source.cluster.{k}"));
    let conflict = |pairs: &[(&str, &str)]| client_setting_conflict(&settings(pairs), &written);
    let (key, reason) = conflict(&[
        ("security.protocol", "SASL_SSL"),
        ("sasl.mechanism", "PLAIN"),
    ])
    .unwrap();
    assert_eq!(key, "sasl.mechanism");
    assert!(
        reason.contains("`source.cluster.sasl.username` and `source.cluster.sasl.password`"),
        "{reason}"
    );
    let (key, reason) = conflict(&[
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "SCRAM-SHA-512"),
        ("sasl.username", "u"),
    ])
    .unwrap();
    assert_eq!(key, "sasl.mechanisms");
    assert!(
        reason.contains("sasl.password") && !reason.contains("sasl.username"),
        "{reason}"
    );
    // Complete, mechanisms with other requirements, or no SASL at all: accepted.
    let accepted: &[&[(&str, &str)]] = &[
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "PLAIN"),
            ("sasl.username", "u"),
            ("sasl.password", "p"),
        ],
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
        ],
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "GSSAPI"),
        ],
        &[("security.protocol", "SASL_SSL")],
        &[("security.protocol", "SSL"), ("sasl.mechanism", "PLAIN")],
        &[("enable.idempotence", "true"), ("acks", "all")],
        &[("enable.idempotence", "true"), ("acks", "-1")],
        &[("enable.idempotence", "true")],
        &[("enable.idempotence", "false"), ("acks", "1")],
    ];
    for ok in accepted {
        assert_eq!(conflict(ok), None, "{ok:?}");
    }
    let (key, reason) = conflict(&[("enable.idempotence", "true"), ("acks", "1")]).unwrap();
    assert_eq!(key, "acks");
    assert!(
        reason.contains("`source.cluster.enable.idempotence` = true"),
        "{reason}"
    );
    let (key, _) = conflict(&[
        ("enable.idempotence", "TRUE"),
        ("request.required.acks", "0"),
    ])
    .unwrap();
    assert_eq!(key, "request.required.acks");
}
