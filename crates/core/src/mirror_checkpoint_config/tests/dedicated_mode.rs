//! The dedicated `mm2.properties` shape: flows, per-flow keys, MM2's precedence, and a whole file.

use super::*;

#[test]
fn dedicated_shape_resolves_the_enabled_flow() {
    let (c, w) = parse(DEDICATED, &[]).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        (
            c.source_cluster_alias.as_str(),
            c.target_cluster_alias.as_str()
        ),
        ("A", "B")
    );
    assert!(c.enabled);
    assert_eq!(c.source_admin_config()["bootstrap.servers"], "a:9092");
    assert_eq!(c.target_admin_config()["bootstrap.servers"], "b:9092");
    assert_eq!(c.checkpoints_topic(), "A.checkpoints.internal");
    assert_eq!(c.offset_syncs_topic(), "mm2-offset-syncs.B.internal");
}

#[test]
fn dedicated_per_flow_keys_win_over_global_keys() {
    let c = ok(
        DEDICATED,
        &[
            ("emit.checkpoints.interval.seconds", "10"),
            ("A->B.emit.checkpoints.interval.seconds", "20"),
            ("B->A.emit.checkpoints.interval.seconds", "30"),
            ("groups", "x"),
            ("A->B.groups", "y"),
            ("refresh.groups.interval.seconds", "50"),
            ("replication.policy.separator", "_"),
        ],
    );
    assert_eq!(c.emit_checkpoints_interval, Some(Duration::from_secs(20)));
    assert!(
        c.group_filter.should_replicate_group("y") && !c.group_filter.should_replicate_group("x")
    );
    assert_eq!(c.refresh_groups_interval, Some(Duration::from_secs(50)));
    assert_eq!(c.checkpoints_topic(), "A_checkpoints_internal");
}

#[test]
fn dedicated_errors_name_the_per_flow_key_written() {
    let cases: &[(&str, &str)] = &[
        ("A->B.emit.checkpoints.interval.seconds", "abc"),
        ("A->B.sync.group.offsets.enabled", "maybe"),
        ("A->B.topics", "("),
        ("A->B.offset-syncs.topic.location", "Target"),
    ];
    for (key, value) in cases {
        let e = err(DEDICATED, &[(key, value)]);
        assert_eq!(e.key, *key, "{e}");
    }
    let e = err(DEDICATED, &[("A->B.emit.checkpoints.enabled", "false")]);
    assert_eq!(e.key, "A->B.emit.checkpoints.enabled");
    let e = err(DEDICATED, &[("emit.offset-syncs.enabled", "false")]);
    assert_eq!(e.key, "emit.offset-syncs.enabled");
}

#[test]
fn dedicated_flow_selection() {
    let clusters3 = &[
        ("clusters", "A, B, C"),
        ("A.bootstrap.servers", "a"),
        ("B.bootstrap.servers", "b"),
        ("C.bootstrap.servers", "c"),
    ];
    // (extra, expected flow)
    let good: &[(Props, (&str, &str))] = &[
        (&[("B->C.enabled", "true")], ("B", "C")),
        (
            &[
                ("A->B.enabled", "true"),
                ("B->C.enabled", "true"),
                ("source.cluster.alias", "B"),
            ],
            ("B", "C"),
        ),
        (
            &[
                ("A->B.enabled", "true"),
                ("C->B.enabled", "TRUE"),
                ("source.cluster.alias", "C"),
            ],
            ("C", "B"),
        ),
        (
            &[
                ("A->B.enabled", "true"),
                ("A->C.enabled", "true"),
                ("target.cluster.alias", "C"),
            ],
            ("A", "C"),
        ),
        (
            &[("source.cluster.alias", "C"), ("target.cluster.alias", "A")],
            ("C", "A"),
        ),
        (
            &[
                ("enabled", "true"),
                ("A->C.enabled", "false"),
                ("B->A.enabled", "false"),
                ("B->C.enabled", "false"),
                ("C->A.enabled", "false"),
                ("C->B.enabled", "false"),
            ],
            ("A", "B"),
        ),
    ];
    for (extra, (source, target)) in good {
        let c = ok(clusters3, extra);
        assert_eq!(
            (
                c.source_cluster_alias.as_str(),
                c.target_cluster_alias.as_str()
            ),
            (*source, *target),
            "{extra:?}"
        );
    }
    // (extra, error key, reason)
    let bad: &[(Props, &str, &str)] = &[
        (&[], "clusters", "no replication flow is enabled"),
        (
            &[("A->B.enabled", "false")],
            "clusters",
            "no replication flow is enabled",
        ),
        (
            &[("A->B.enabled", "yes")],
            "clusters",
            "no replication flow is enabled",
        ),
        (
            &[("A->B.enabled", "true"), ("B->A.enabled", "true")],
            "clusters",
            "2 replication flows are enabled (A->B, B->A)",
        ),
        (&[("enabled", "true")], "clusters", "6 replication flows"),
        (
            &[("A->B.enabled", "true"), ("source.cluster.alias", "B")],
            "clusters",
            "no replication flow from `B`",
        ),
        (
            &[("source.cluster.alias", "D")],
            "source.cluster.alias",
            "not one of the clusters listed in `clusters` (A, B, C)",
        ),
        (
            &[("target.cluster.alias", "D")],
            "target.cluster.alias",
            "not one of the clusters",
        ),
        (
            &[("source.cluster.alias", "A"), ("target.cluster.alias", "A")],
            "target.cluster.alias",
            "two different clusters",
        ),
        (
            &[
                ("source.cluster.alias", "A"),
                ("target.cluster.alias", "B"),
                ("A->B.source.cluster.alias", "C"),
            ],
            "A->B.source.cluster.alias",
            "cannot rename",
        ),
    ];
    for (extra, key, reason) in bad {
        let e = err(clusters3, extra);
        assert_eq!(e.key, *key, "{extra:?}: {e}");
        assert!(e.reason.contains(reason), "{extra:?}: {e}");
    }
    for clusters in ["", " , "] {
        let e = err(&[("clusters", clusters)], &[]);
        assert_eq!(e.key, "clusters");
        assert!(e.reason.contains("no cluster aliases"), "{e}");
    }
}

#[test]
fn dedicated_flow_named_by_aliases_is_disabled_unless_enabled() {
    let base = &[
        ("clusters", "A, B"),
        ("A.bootstrap.servers", "a"),
        ("B.bootstrap.servers", "b"),
    ];
    let named = [("source.cluster.alias", "A"), ("target.cluster.alias", "B")];
    assert!(!ok(base, &named).enabled);
    let mut with_global = named.to_vec();
    with_global.push(("enabled", "true"));
    assert!(ok(base, &with_global).enabled);
    // A disabled flow needs no bootstrap servers.
    assert!(!ok(&[("clusters", "A, B")], &named).enabled);
}

#[test]
fn dedicated_client_settings_follow_mm2_precedence() {
    let c = ok(
        DEDICATED,
        &[
            ("security.protocol", "SSL"),
            ("ssl.ca.location", "/global.pem"),
            ("A.ssl.ca.location", "/a.pem"),
            ("A.consumer.ssl.ca.location", "/a-consumer.pem"),
            ("A.client.rack", "rack-a"),
            ("A.consumer.fetch.wait.max.ms", "7"),
            ("A->B.consumer.fetch.wait.max.ms", "8"),
            ("A->B.consumer.max.poll.records", "9"),
            ("A->B.consumer.security.protocol", "PLAINTEXT"),
            ("B.producer.linger.ms", "3"),
            ("B.admin.client.id", "b-admin"),
            ("C.bootstrap.servers", "c"),
        ],
    );
    let src = c.source_consumer_config();
    assert_eq!(src["bootstrap.servers"], "a:9092");
    assert_eq!(src["ssl.ca.location"], "/a-consumer.pem");
    assert_eq!(src["client.rack"], "rack-a");
    assert_eq!(
        src["fetch.wait.max.ms"], "7",
        "A.consumer.* beats A->B.consumer.*"
    );
    assert_eq!(src["max.poll.records"], "9");
    assert_eq!(
        src["security.protocol"], "SSL",
        "MM2 copies cluster connection keys into source.consumer.*"
    );
    assert_eq!(c.source_admin_config()["ssl.ca.location"], "/a.pem");
    let tgt = c.checkpoints_consumer_config();
    assert_eq!(tgt["ssl.ca.location"], "/global.pem");
    assert_eq!(tgt["max.poll.records"], "9");
    assert!(!tgt.contains_key("client.rack"));
    assert_eq!(c.target_producer_config()["linger.ms"], "3");
    assert_eq!(
        c.target_admin_config()["client.id"],
        "b-admin|A->B|mm2-checkpoint|checkpoint-target-admin"
    );
}

#[test]
fn dedicated_mode_warns_about_keys_mm2_would_drop() {
    let w = warnings(
        DEDICATED,
        &[
            ("consumer.max.poll.records", "5"),
            ("source.cluster.bootstrap.servers", "x"),
            ("A.emit.checkpoints.enabled", "false"),
            ("A->B.groups.blacklist", "g"),
            ("A->B.nonsense", "1"),
            ("bogus", "1"),
            ("B->A.bogus", "1"),
            ("C.bogus", "1"),
            ("tasks.max", "2"),
            ("offset.storage.replication.factor", "1"),
            ("config.providers", "file"),
            ("A.ssl.ca.location", "/a.pem"),
        ],
    );
    let mut got: Vec<(&str, &str)> = w
        .iter()
        .map(|w| (w.key.as_str(), w.message.as_str()))
        .collect();
    got.sort();
    let expect = [
        ("A->B.groups.blacklist", "use `groups.exclude`"),
        ("A->B.nonsense", "unknown key"),
        (
            "A.emit.checkpoints.enabled",
            "`A->B.emit.checkpoints.enabled`",
        ),
        // `C` is not in `clusters`, so this is no cluster setting.
        ("C.bogus", "unknown key"),
        ("bogus", "unknown key"),
        ("consumer.max.poll.records", "`A.consumer.max.poll.records`"),
        ("source.cluster.bootstrap.servers", "`A.bootstrap.servers`"),
    ];
    assert_eq!(got.len(), expect.len(), "{got:?}");
    for ((key, message), (want_key, want_message)) in got.iter().zip(expect) {
        assert_eq!(*key, want_key);
        assert!(message.contains(want_message), "{key}: {message}");
    }
}

#[test]
fn cluster_alias_may_contain_dots() {
    let c = ok(
        &[
            ("clusters", "us.east, us"),
            ("us.east.bootstrap.servers", "e"),
            ("us.bootstrap.servers", "u"),
            ("us.east->us.enabled", "true"),
        ],
        &[],
    );
    assert_eq!(c.source_cluster_alias, "us.east");
    assert_eq!(c.source_admin_config()["bootstrap.servers"], "e");
    assert_eq!(c.target_admin_config()["bootstrap.servers"], "u");
}

#[test]
fn mm2_properties_file_end_to_end() {
    let text = "\
# two clusters, one flow
clusters = primary, backup
primary.bootstrap.servers = p1:9092,\\
                        p2:9092
backup.bootstrap.servers : b1:9092
backup.security.protocol SASL_SSL
primary->backup.enabled = true
primary->backup.groups = app-.*
replication.policy.separator = __
sync.group.offsets.enabled = true
";
    let pairs = parse_properties(text).unwrap();
    let (c, w) = MirrorCheckpointConfig::from_properties(
        pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.source_cluster_alias, "primary");
    assert_eq!(
        c.source_admin_config()["bootstrap.servers"],
        "p1:9092,p2:9092"
    );
    assert_eq!(c.target_producer_config()["security.protocol"], "SASL_SSL");
    assert_eq!(c.checkpoints_topic(), "primary__checkpoints__internal");
    assert_eq!(c.offset_syncs_topic(), "mm2-offset-syncs__backup__internal");
    assert_eq!(c.sync_group_offsets_interval, Some(Duration::from_secs(60)));
    assert!(c.group_filter.should_replicate_group("app-7"));
}

#[test]
fn last_value_of_a_repeated_key_wins_and_keys_are_trimmed() {
    let c = ok(
        CONNECTOR,
        &[(" offset.lag.max ", "1"), ("offset.lag.max", "2")],
    );
    assert_eq!(c.offset_lag_max, 2);
}
