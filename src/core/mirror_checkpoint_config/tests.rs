//! Tests of the whole configuration: both input shapes, every key, errors and warnings.

use super::keys::CHECKPOINT_KEYS;
use super::*;
use proptest::prelude::*;

mod offsets_source;

type Parsed = Result<(MirrorCheckpointConfig, Vec<ConfigWarning>), ConfigError>;
/// A literal list of properties.
type Props = &'static [(&'static str, &'static str)];
/// An optional literal.
type Maybe = Option<&'static str>;
/// Expected seconds of an interval, `None` when off.
type Secs = Option<u64>;

const CONNECTOR: &[(&str, &str)] = &[
    ("source.cluster.alias", "A"),
    ("target.cluster.alias", "B"),
    ("source.cluster.bootstrap.servers", "a:9092"),
    ("target.cluster.bootstrap.servers", "b:9092"),
];

const DEDICATED: &[(&str, &str)] = &[
    ("clusters", "A, B"),
    ("A.bootstrap.servers", "a:9092"),
    ("B.bootstrap.servers", "b:9092"),
    ("A->B.enabled", "true"),
];

/// Parses `base` with `extra` applied on top (a later key replaces an earlier one).
fn parse(base: &[(&str, &str)], extra: &[(&str, &str)]) -> Parsed {
    MirrorCheckpointConfig::from_properties(base.iter().chain(extra).copied())
}

fn ok(base: &[(&str, &str)], extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
    match parse(base, extra) {
        Ok((config, _)) => config,
        Err(e) => panic!("{extra:?}: {e}"),
    }
}

fn warnings(base: &[(&str, &str)], extra: &[(&str, &str)]) -> Vec<ConfigWarning> {
    match parse(base, extra) {
        Ok((_, warnings)) => warnings,
        Err(e) => panic!("{extra:?}: {e}"),
    }
}

fn err(base: &[(&str, &str)], extra: &[(&str, &str)]) -> ConfigError {
    match parse(base, extra) {
        Ok(_) => panic!("{extra:?} was accepted"),
        Err(e) => e,
    }
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_key_has_mm2_default() {
    let (c, w) = parse(&CONNECTOR[..1], &CONNECTOR[2..]).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.source_cluster_alias, "A");
    assert_eq!(c.target_cluster_alias, "target");
    assert!(c.enabled);
    assert!(c.emit_checkpoints_enabled);
    assert_eq!(c.emit_checkpoints_interval, Some(Duration::from_secs(60)));
    assert!(!c.sync_group_offsets_enabled);
    assert_eq!(c.sync_group_offsets_interval, None);
    assert!(c.refresh_groups_enabled);
    assert_eq!(c.refresh_groups_interval, Some(Duration::from_secs(600)));
    assert_eq!(c.offset_syncs_topic_location, Cluster::Source);
    assert!(c.emit_offset_syncs_enabled);
    assert_eq!(c.checkpoints_topic_replication_factor, 3);
    assert_eq!(c.offset_syncs_topic_replication_factor, 3);
    assert_eq!(c.consumer_poll_timeout, Duration::from_millis(1000));
    assert_eq!(c.admin_timeout, Duration::from_millis(60_000));
    assert_eq!(c.replication_policy_class, DEFAULT_REPLICATION_POLICY_CLASS);
    assert_eq!(c.replication_policy_separator, None);
    assert!(c.internal_topic_separator_enabled);
    assert_eq!(c.assigned_groups, None);
    assert_eq!(c.task_index, None);
    assert_eq!(c.task_count, None);
    assert_eq!(c.offset_lag_max, 100);
    assert_eq!(c.checkpoints_topic(), "A.checkpoints.internal");
    assert_eq!(c.offset_syncs_topic(), "mm2-offset-syncs.target.internal");
    assert!(c.group_filter.should_replicate_group("payments"));
    assert!(!c.group_filter.should_replicate_group("connect-x"));
    assert!(c.topic_filter.should_replicate_topic("orders"));
    assert!(!c.topic_filter.should_replicate_topic("x.internal"));
}

#[test]
fn sync_interval_defaults_to_60_seconds_once_enabled() {
    let c = ok(CONNECTOR, &[("sync.group.offsets.enabled", "true")]);
    assert_eq!(c.sync_group_offsets_interval, Some(Duration::from_secs(60)));
}

#[test]
fn every_key_is_read_when_set() {
    let c = ok(
        CONNECTOR,
        &[
            ("emit.checkpoints.interval.seconds", "5"),
            ("sync.group.offsets.enabled", "TRUE"),
            ("sync.group.offsets.interval.seconds", " 7 "),
            ("refresh.groups.interval.seconds", "+9"),
            ("offset-syncs.topic.location", " target "),
            ("checkpoints.topic.replication.factor", "1"),
            ("offset-syncs.topic.replication.factor", "-1"),
            ("consumer.poll.timeout.ms", "250"),
            ("admin.timeout.ms", "5000"),
            ("replication.policy.class", "IdentityReplicationPolicy"),
            ("replication.policy.separator", "_"),
            (
                "replication.policy.internal.topic.separator.enabled",
                "False",
            ),
            ("task.assigned.groups", "g1, g2 ,g3"),
            ("task.index", "1"),
            ("task.count", "2"),
            ("offset.lag.max", "-5"),
            (
                "topic.filter.class",
                "org.apache.kafka.connect.mirror.DefaultTopicFilter",
            ),
            ("group.filter.class", "DefaultGroupFilter"),
            (
                "forwarding.admin.class",
                "org.apache.kafka.clients.admin.ForwardingAdmin",
            ),
        ],
    );
    assert_eq!(c.emit_checkpoints_interval, Some(Duration::from_secs(5)));
    assert!(c.sync_group_offsets_enabled);
    assert_eq!(c.sync_group_offsets_interval, Some(Duration::from_secs(7)));
    assert_eq!(c.refresh_groups_interval, Some(Duration::from_secs(9)));
    assert_eq!(c.offset_syncs_topic_location, Cluster::Target);
    assert_eq!(c.checkpoints_topic_replication_factor, 1);
    assert_eq!(c.offset_syncs_topic_replication_factor, -1);
    assert_eq!(c.consumer_poll_timeout, Duration::from_millis(250));
    assert_eq!(c.admin_timeout, Duration::from_secs(5));
    assert_eq!(
        c.replication_policy_class,
        IDENTITY_REPLICATION_POLICY_CLASS
    );
    assert_eq!(c.replication_policy_separator.as_deref(), Some("_"));
    assert!(!c.internal_topic_separator_enabled);
    assert_eq!(
        c.assigned_groups,
        Some(vec!["g1".to_string(), "g2".to_string(), "g3".to_string()])
    );
    assert_eq!((c.task_index, c.task_count), (Some(1), Some(2)));
    assert_eq!(c.offset_lag_max, -5);
}

#[test]
fn empty_assigned_groups_is_an_empty_list() {
    let c = ok(CONNECTOR, &[("task.assigned.groups", "")]);
    assert_eq!(c.assigned_groups, Some(vec![]));
}

#[test]
fn intervals_negative_or_switched_off_are_none_and_zero_emit_is_allowed() {
    let cases: &[(Props, Secs, Secs, Secs)] = &[
        (
            &[("emit.checkpoints.interval.seconds", "0")],
            Some(0),
            None,
            Some(600),
        ),
        (
            &[
                ("emit.checkpoints.interval.seconds", "-1"),
                ("sync.group.offsets.enabled", "true"),
            ],
            None,
            Some(60),
            Some(600),
        ),
        (
            &[
                ("emit.checkpoints.enabled", "false"),
                ("sync.group.offsets.enabled", "true"),
            ],
            None,
            Some(60),
            Some(600),
        ),
        (
            &[
                ("sync.group.offsets.enabled", "true"),
                ("sync.group.offsets.interval.seconds", "-3"),
            ],
            Some(60),
            None,
            Some(600),
        ),
        (
            &[("sync.group.offsets.interval.seconds", "0")],
            Some(60),
            None,
            Some(600),
        ),
        (
            &[
                ("refresh.groups.enabled", "false"),
                ("refresh.groups.interval.seconds", "0"),
            ],
            Some(60),
            None,
            None,
        ),
        (
            &[("refresh.groups.interval.seconds", "-1")],
            Some(60),
            None,
            None,
        ),
    ];
    for (extra, emit, sync, refresh) in cases {
        let c = ok(CONNECTOR, extra);
        let secs = |d: Option<u64>| d.map(Duration::from_secs);
        assert_eq!(c.emit_checkpoints_interval, secs(*emit), "{extra:?}");
        assert_eq!(c.sync_group_offsets_interval, secs(*sync), "{extra:?}");
        assert_eq!(c.refresh_groups_interval, secs(*refresh), "{extra:?}");
    }
}

#[test]
fn negative_interval_warns_that_it_disables_the_job() {
    let w = warnings(CONNECTOR, &[("refresh.groups.interval.seconds", "-1")]);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].key, "refresh.groups.interval.seconds");
    assert!(w[0].message.contains("disables"), "{}", w[0].message);
}

#[test]
fn booleans_accept_any_case_and_surrounding_blanks() {
    for (value, want) in [
        ("true", true),
        ("TRUE", true),
        (" True ", true),
        ("false", false),
        ("FaLsE", false),
    ] {
        let c = ok(CONNECTOR, &[("sync.group.offsets.enabled", value)]);
        assert_eq!(c.sync_group_offsets_enabled, want, "{value:?}");
    }
}

#[test]
fn each_bad_value_is_rejected_with_its_key_and_reason() {
    let long_alias = "a".repeat(229);
    let cases: &[(&str, &str, &str)] = &[
        ("enabled", "yes", "expected `true` or `false`"),
        (
            "emit.checkpoints.enabled",
            "1",
            "expected `true` or `false`",
        ),
        (
            "sync.group.offsets.enabled",
            "",
            "expected `true` or `false`",
        ),
        ("refresh.groups.enabled", "on", "expected `true` or `false`"),
        (
            "emit.offset-syncs.enabled",
            "nope",
            "expected `true` or `false`",
        ),
        (
            "emit.offset-syncs.enabled",
            "false",
            "can't run without offset syncs",
        ),
        (
            "emit.checkpoints.interval.seconds",
            "1.5",
            "not a valid long",
        ),
        (
            "emit.checkpoints.interval.seconds",
            "9223372036854775808",
            "not a valid long",
        ),
        (
            "emit.checkpoints.interval.seconds",
            "9223372036854776",
            "too large",
        ),
        (
            "sync.group.offsets.interval.seconds",
            "abc",
            "not a valid long",
        ),
        ("refresh.groups.interval.seconds", "0", "fail to start"),
        ("refresh.groups.interval.seconds", "", "not a valid long"),
        (
            "offset-syncs.topic.location",
            "SOURCE",
            "must be `source` or `target`",
        ),
        (
            "offset-syncs.topic.location",
            "elsewhere",
            "must be `source` or `target`",
        ),
        (
            "checkpoints.topic.replication.factor",
            "0",
            "not a replication factor",
        ),
        (
            "checkpoints.topic.replication.factor",
            "40000",
            "not a valid short",
        ),
        (
            "offset-syncs.topic.replication.factor",
            "-2",
            "not a replication factor",
        ),
        ("consumer.poll.timeout.ms", "0", "must be positive"),
        ("consumer.poll.timeout.ms", "-1", "must be positive"),
        ("admin.timeout.ms", "0", "must be positive"),
        ("admin.timeout.ms", "1e3", "not a valid long"),
        (
            "statistics.interval.ms",
            "-1",
            "between 0 (off) and 86400000",
        ),
        (
            "statistics.interval.ms",
            "86400001",
            "between 0 (off) and 86400000",
        ),
        ("statistics.interval.ms", "5s", "not a valid int"),
        (
            "replication.policy.class",
            "com.example.MyPolicy",
            "not supported",
        ),
        ("replication.policy.separator", "", "must not be empty"),
        (
            "replication.policy.internal.topic.separator.enabled",
            "maybe",
            "expected `true` or `false`",
        ),
        (
            "topic.filter.class",
            "com.example.TopicFilter",
            "DefaultTopicFilter",
        ),
        (
            "group.filter.class",
            "DefaultTopicFilter",
            "DefaultGroupFilter",
        ),
        (
            "forwarding.admin.class",
            "com.example.Admin",
            "ForwardingAdmin",
        ),
        ("task.index", "-1", "must be 0 or more"),
        ("task.index", "x", "not a valid int"),
        ("task.count", "0", "must be 1 or more"),
        ("offset.lag.max", "lots", "not a valid long"),
        ("groups", "(?<=x)y", "invalid regex"),
        ("groups.exclude", "(a)\\1", "invalid regex"),
        ("topics", "[", "invalid regex"),
        ("topics.exclude", "(", "invalid regex"),
        ("source.cluster.alias", " ", "must not be empty"),
        ("target.cluster.alias", "", "must not be empty"),
        // Aliases name the internal topics, which must be legal topic names.
        ("source.cluster.alias", "s x", "`s x.checkpoints.internal`"),
        ("source.cluster.alias", "a/b", "not allowed in a topic name"),
        (
            "target.cluster.alias",
            "t:x",
            "`mm2-offset-syncs.t:x.internal`",
        ),
        (
            "source.cluster.alias",
            &long_alias,
            "at most 249 characters",
        ),
    ];
    for (key, value, reason) in cases {
        let e = err(CONNECTOR, &[(key, value)]);
        assert_eq!(e.key, *key, "{key}={value:?}: {e}");
        assert!(e.reason.contains(reason), "{key}={value:?}: {e}");
    }
}

#[test]
fn zero_sync_interval_is_rejected_only_while_sync_is_enabled() {
    let e = err(
        CONNECTOR,
        &[
            ("sync.group.offsets.enabled", "true"),
            ("sync.group.offsets.interval.seconds", "0"),
        ],
    );
    assert_eq!(e.key, "sync.group.offsets.interval.seconds");
    assert!(e.reason.contains("silently never sync"), "{e}");
}

#[test]
fn emit_and_sync_both_off_is_rejected() {
    let e = err(CONNECTOR, &[("emit.checkpoints.enabled", "false")]);
    assert_eq!(e.key, "emit.checkpoints.enabled");
    assert!(e.reason.contains("both"), "{e}");
}

#[test]
fn disabled_flow_skips_cross_setting_checks_but_not_type_checks() {
    let c = ok(
        &[("source.cluster.alias", "A")],
        &[("enabled", "false"), ("emit.offset-syncs.enabled", "false")],
    );
    assert!(!c.enabled);
    let e = err(
        &[("source.cluster.alias", "A")],
        &[("enabled", "false"), ("admin.timeout.ms", "x")],
    );
    assert_eq!(e.key, "admin.timeout.ms");
}

#[test]
fn source_alias_is_required() {
    let e = err(&CONNECTOR[1..], &[]);
    assert_eq!(e.key, "source.cluster.alias");
    assert!(e.reason.contains("required"), "{e}");
}

#[test]
fn task_split_must_be_consistent() {
    let cases: &[(Props, &str, &str)] = &[
        (
            &[("task.index", "2"), ("task.count", "2")],
            "task.index",
            "less than task.count (2)",
        ),
        (
            &[("task.count", "3")],
            "task.index",
            "required when task.count",
        ),
        (
            &[("task.index", "0"), ("task.count", "-1")],
            "task.count",
            "must be 1 or more",
        ),
    ];
    for (extra, key, reason) in cases {
        let e = err(CONNECTOR, extra);
        assert_eq!(e.key, *key, "{extra:?}");
        assert!(e.reason.contains(reason), "{extra:?}: {e}");
    }
    let c = ok(CONNECTOR, &[("task.index", "0")]);
    assert_eq!((c.task_index, c.task_count), (Some(0), None));
}

#[test]
fn class_settings_accept_full_and_simple_default_names() {
    for (key, value) in [
        ("topic.filter.class", "DefaultTopicFilter"),
        (
            "group.filter.class",
            "org.apache.kafka.connect.mirror.DefaultGroupFilter",
        ),
        ("forwarding.admin.class", " ForwardingAdmin "),
        ("replication.policy.class", DEFAULT_REPLICATION_POLICY_CLASS),
        ("replication.policy.class", "DefaultReplicationPolicy"),
    ] {
        ok(CONNECTOR, &[(key, value)]);
    }
    let c = ok(
        CONNECTOR,
        &[("replication.policy.class", "DefaultReplicationPolicy")],
    );
    assert_eq!(c.replication_policy_class, DEFAULT_REPLICATION_POLICY_CLASS);
}

#[test]
fn filters_use_the_configured_lists() {
    let c = ok(
        CONNECTOR,
        &[
            ("topics", "orders.*, payments"),
            ("topics.exclude", "orders-dlq"),
            ("groups", "app-.*"),
            ("groups.exclude", ""),
        ],
    );
    assert!(c.topic_filter.should_replicate_topic("orders-eu"));
    assert!(c.topic_filter.should_replicate_topic("payments"));
    assert!(!c.topic_filter.should_replicate_topic("orders-dlq"));
    assert!(!c.topic_filter.should_replicate_topic("audit"));
    assert!(c.group_filter.should_replicate_group("app-1"));
    assert!(!c.group_filter.should_replicate_group("other"));
    // The default exclude list is replaced, not merged: an empty exclude excludes nothing.
    assert!(
        c.group_filter.should_replicate_group("app-__x")
            && ok(CONNECTOR, &[("groups.exclude", "")])
                .group_filter
                .should_replicate_group("connect-x")
    );
    let none = ok(CONNECTOR, &[("groups", "")]);
    assert!(!none.group_filter.should_replicate_group("anything"));
}

#[test]
fn topic_names_follow_the_separator_flag_and_location() {
    // (separator, internal flag, location, checkpoints topic, offset-syncs topic)
    let cases: &[(Maybe, Maybe, &str, &str, &str)] = &[
        (
            None,
            None,
            "source",
            "A.checkpoints.internal",
            "mm2-offset-syncs.B.internal",
        ),
        (
            None,
            None,
            "target",
            "A.checkpoints.internal",
            "mm2-offset-syncs.A.internal",
        ),
        (
            Some("__"),
            None,
            "source",
            "A__checkpoints__internal",
            "mm2-offset-syncs__B__internal",
        ),
        (
            Some("__"),
            Some("true"),
            "target",
            "A__checkpoints__internal",
            "mm2-offset-syncs__A__internal",
        ),
        (
            Some("__"),
            Some("false"),
            "source",
            "A.checkpoints.internal",
            "mm2-offset-syncs.B.internal",
        ),
        (
            Some("__"),
            Some("FALSE"),
            "target",
            "A.checkpoints.internal",
            "mm2-offset-syncs.A.internal",
        ),
        // MM2's policy reads the flag only when the separator key is present.
        (
            None,
            Some("false"),
            "source",
            "A.checkpoints.internal",
            "mm2-offset-syncs.B.internal",
        ),
        // ... and with Boolean.parseBoolean, which does not trim.
        (
            Some("__"),
            Some("true "),
            "source",
            "A.checkpoints.internal",
            "mm2-offset-syncs.B.internal",
        ),
    ];
    for (sep, flag, location, checkpoints, syncs) in cases {
        for policy in ["DefaultReplicationPolicy", "IdentityReplicationPolicy"] {
            let mut extra = vec![
                ("offset-syncs.topic.location", *location),
                ("replication.policy.class", policy),
            ];
            if let Some(sep) = sep {
                extra.push(("replication.policy.separator", sep));
            }
            if let Some(flag) = flag {
                extra.push(("replication.policy.internal.topic.separator.enabled", flag));
            }
            let c = ok(CONNECTOR, &extra);
            assert_eq!(c.checkpoints_topic(), *checkpoints, "{extra:?}");
            assert_eq!(c.offset_syncs_topic(), *syncs, "{extra:?}");
        }
    }
}

#[test]
fn separator_quirks_are_reported() {
    let cases: &[(Props, &str, &str)] = &[
        (
            &[(
                "replication.policy.internal.topic.separator.enabled",
                "false",
            )],
            "replication.policy.internal.topic.separator.enabled",
            "only when",
        ),
        (
            &[
                ("replication.policy.separator", "_"),
                (
                    "replication.policy.internal.topic.separator.enabled",
                    "true ",
                ),
            ],
            "replication.policy.internal.topic.separator.enabled",
            "reads it as false",
        ),
        (
            &[("replication.policy.separator", "__ ")],
            "replication.policy.separator",
            "whitespace",
        ),
    ];
    for (extra, key, message) in cases {
        let w = warnings(CONNECTOR, extra);
        assert_eq!(w.len(), 1, "{extra:?}: {w:?}");
        assert_eq!(w[0].key, *key);
        assert!(w[0].message.contains(message), "{:?}", w[0]);
    }
    let c = ok(CONNECTOR, &[("replication.policy.separator", "__ ")]);
    assert_eq!(c.checkpoints_topic(), "A__ checkpoints__ internal");
}

#[test]
fn policy_properties_carry_what_the_policy_reads() {
    let c = ok(CONNECTOR, &[]);
    assert_eq!(c.policy_properties(), map(&[("source.cluster.alias", "A")]));
    let c = ok(
        CONNECTOR,
        &[
            ("replication.policy.separator", "__"),
            (
                "replication.policy.internal.topic.separator.enabled",
                "FALSE",
            ),
        ],
    );
    assert_eq!(
        c.policy_properties(),
        map(&[
            ("source.cluster.alias", "A"),
            ("replication.policy.separator", "__"),
            (
                "replication.policy.internal.topic.separator.enabled",
                "false"
            ),
        ])
    );
    let c = ok(CONNECTOR, &[("replication.policy.separator", "-")]);
    assert_eq!(
        c.policy_properties()
            .get("replication.policy.internal.topic.separator.enabled")
            .map(String::as_str),
        Some("true")
    );
}

#[test]
fn unknown_removed_and_misplaced_keys_warn_but_known_mm2_keys_do_not() {
    let w = warnings(
        CONNECTOR,
        &[
            ("tasks.max", "4"),
            ("sync.topic.acls.enabled", "false"),
            ("transforms.x.type", "y"),
            ("emit.checkpoint.interval.seconds", "5"),
            ("groups.blacklist", "g"),
            ("ssl.ca.location", "/ca.pem"),
            ("source.cluster.emit.checkpoints.enabled", "false"),
            ("source.cluster.client.rack", "r1"),
            ("consumer.fetch.min.bytes", "1"),
        ],
    );
    let got: Vec<(&str, &str)> = w
        .iter()
        .map(|w| (w.key.as_str(), w.message.as_str()))
        .collect();
    let expect = [
        (
            "emit.checkpoint.interval.seconds",
            "unknown key, ignored; did you mean `emit.checkpoints.interval.seconds`?",
        ),
        ("groups.blacklist", "use `groups.exclude`"),
        (
            "source.cluster.emit.checkpoints.enabled",
            "not a client setting",
        ),
        ("ssl.ca.location", "source.cluster.ssl.ca.location"),
    ];
    assert_eq!(got.len(), expect.len(), "{got:?}");
    for ((key, message), (want_key, want_message)) in got.iter().zip(expect) {
        assert_eq!(*key, want_key);
        assert!(message.contains(want_message), "{key}: {message}");
    }
}

#[test]
fn removed_blacklist_alias_is_not_applied() {
    let c = ok(CONNECTOR, &[("groups.blacklist", "app-.*")]);
    assert!(c.group_filter.should_replicate_group("app-1"));
}

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

proptest::proptest! {
    #[test]
    fn never_panics_on_arbitrary_properties(
        pairs in proptest::collection::vec(
            (
                proptest::prop_oneof![
                    proptest::sample::select(CHECKPOINT_KEYS.to_vec()).prop_map(String::from),
                    proptest::sample::select(vec!["clusters", "A->B.enabled", "A.bootstrap.servers", "B->A.groups", "source.consumer.x", "A.consumer.y"]).prop_map(String::from),
                    "\\PC{0,12}",
                ],
                proptest::prop_oneof!["\\PC{0,8}", proptest::sample::select(vec!["A", "B", "A, B", "true", "-1", "0", "source"]).prop_map(String::from)],
            ),
            0..12,
        )
    ) {
        let _ = MirrorCheckpointConfig::from_properties(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
}

#[test]
fn task_assignment_defaults_to_static() {
    assert_eq!(ok(CONNECTOR, &[]).task_assignment, TaskAssignment::Static);
    assert_eq!(
        ok(CONNECTOR, &[("task.assignment", "static")]).task_assignment,
        TaskAssignment::Static
    );
}

#[test]
fn group_assignment_has_flow_derived_defaults() {
    use crate::group_coordination::CoordinationSettings;
    let c = ok(CONNECTOR, &[("task.assignment", "group")]);
    assert_eq!(
        c.task_assignment,
        TaskAssignment::Group(CoordinationSettings {
            group_id: "mm2-checkpoint-A-B".into(),
            topic: "mm2-checkpoint-coordination.A.internal".into(),
            partitions: 64,
        })
    );
    // Dedicated mode, per-flow keys, and the internal separator as for the other internal topics.
    let c = ok(
        DEDICATED,
        &[
            ("A->B.task.assignment", "group"),
            ("A->B.task.coordination.partitions", "12"),
            ("replication.policy.separator", "_"),
        ],
    );
    let TaskAssignment::Group(g) = c.task_assignment else {
        panic!("group mode expected")
    };
    assert_eq!(g.topic, "mm2-checkpoint-coordination_A_internal");
    assert_eq!(g.partitions, 12);
    let c = ok(
        CONNECTOR,
        &[
            ("task.assignment", "group"),
            ("task.coordination.group.id", "my-group"),
            ("task.coordination.topic", "my-topic"),
        ],
    );
    let TaskAssignment::Group(g) = c.task_assignment else {
        panic!("group mode expected")
    };
    assert_eq!(
        (g.group_id.as_str(), g.topic.as_str()),
        ("my-group", "my-topic")
    );
}

#[test]
fn group_assignment_rejects_the_static_split_and_bad_values() {
    let cases: &[(Props, &str, &str)] = &[
        (
            &[("task.assignment", "dynamic")],
            "task.assignment",
            "`static` or `group`",
        ),
        (
            &[
                ("task.assignment", "group"),
                ("task.index", "0"),
                ("task.count", "2"),
            ],
            "task.count",
            "cannot be combined",
        ),
        (
            &[("task.assignment", "group"), ("task.assigned.groups", "g")],
            "task.assigned.groups",
            "cannot be combined",
        ),
        (
            &[
                ("task.assignment", "group"),
                ("task.coordination.partitions", "0"),
            ],
            "task.coordination.partitions",
            "between 1 and",
        ),
        (
            &[
                ("task.assignment", "group"),
                ("task.coordination.group.id", " "),
            ],
            "task.coordination.group.id",
            "must not be empty",
        ),
    ];
    for (extra, key, reason) in cases {
        let e = err(CONNECTOR, extra);
        assert_eq!(e.key, *key, "{extra:?}");
        assert!(e.reason.contains(reason), "{extra:?}: {e}");
    }
    // task.index alone only names the process in client ids: allowed.
    ok(
        CONNECTOR,
        &[("task.assignment", "group"), ("task.index", "4")],
    );
}

#[test]
fn coordination_keys_are_not_unknown() {
    let (_, warnings) = parse(
        CONNECTOR,
        &[
            ("task.assignment", "group"),
            ("task.coordination.group.id", "g"),
            ("task.coordination.topic", "t"),
            ("task.coordination.partitions", "8"),
        ],
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn clusters_is_checked_alone_without_assuming_a_flow() {
    // `source.cluster.alias = source` must not be imagined beside `clusters` when it is set
    // alone: `clusters = source, target` is valid before its flow key is set.
    for value in ["source, target", "A, B", "primary"] {
        assert_eq!(
            MirrorCheckpointConfig::check_setting("clusters", value),
            Ok(())
        );
    }
    let e = MirrorCheckpointConfig::check_setting("clusters", " , ").unwrap_err();
    assert_eq!(e.key, "clusters");
}

#[test]
fn a_nul_in_a_value_is_rejected_where_it_is_set_naming_the_key() {
    let text = "clusters = so\\u0000urce, target\nsource->target.enabled = true\n";
    let e = MirrorCheckpointConfig::from_properties_text(text).unwrap_err();
    assert_eq!(e.key, "clusters");
    assert!(e.reason.contains("NUL"), "{e}");
    let e = MirrorCheckpointConfig::check_setting("A.sasl.username", "u\0x").unwrap_err();
    assert_eq!(e.key, "A.sasl.username");
    let e = parse(CONNECTOR, &[("consumer.client.id", "a\0b")]).unwrap_err();
    assert_eq!(e.key, "consumer.client.id");
    let e = parse(CONNECTOR, &[("consumer.x\0y", "1")]).unwrap_err();
    assert_eq!(e.key, "consumer.x\\0y");
    assert!(!e.to_string().contains('\0'), "{e}");
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

#[test]
fn describe_is_one_sorted_key_equals_value_line_per_setting_then_the_clients_settings() {
    let config = ok(
        DEDICATED,
        &[
            ("emit.checkpoints.interval.seconds", "30"),
            ("A.sasl.password", "described-secret"),
            ("A.security.protocol", "SASL_PLAINTEXT"),
            ("A.sasl.mechanism", "PLAIN"),
            ("A.sasl.username", "u"),
        ],
    );
    let text = config.describe();
    assert!(!text.contains("described-secret"), "{text}");
    let (typed, clients): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| !l.contains(": "));
    let keys: Vec<&str> = typed
        .iter()
        .map(|l| {
            l.split_once(" = ")
                .unwrap_or_else(|| panic!("not `key = value`: {l}"))
                .0
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "{text}");
    for (key, value) in [
        ("source.cluster.alias", "A"),
        ("target.cluster.alias", "B"),
        ("emit.checkpoints.interval.seconds", "30"),
        ("sync.group.offsets.enabled", "false"),
        ("groups", ".*"),
        ("offset-syncs.topic.location", "source"),
        ("group.offsets.source", "poll"),
        ("checkpoints.topic", "A.checkpoints.internal"),
    ] {
        let line = format!("{key} = {value}");
        assert!(typed.contains(&line.as_str()), "`{line}` missing:\n{text}");
    }
    assert!(
        clients.contains(&"source-admin: sasl.password = [hidden]"),
        "{text}"
    );
    assert!(
        !text.contains('{') && !text.contains('"'),
        "no Rust Debug text: {text}"
    );
}
