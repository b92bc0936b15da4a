//! Tests of the whole configuration: both input shapes, every key, errors and warnings.

use super::keys::CHECKPOINT_KEYS;
use super::*;
use proptest::prelude::*;

mod client_settings;
mod dedicated_mode;
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

#[test]
fn reverse_checkpoints_are_off_by_default_and_read_the_reverse_flows_syncs_where_it_keeps_them() {
    let off = ok(CONNECTOR, &[]);
    assert!(!off.emit_reverse_checkpoints_enabled);
    assert_eq!(off.reverse_offset_syncs_topic_location, Cluster::Source);
    // The task of A->B; its reverse flow is B->A. Kept on B->A's source (B, our target):
    // `mm2-offset-syncs.A.internal`, named after B->A's target.
    let on = ok(CONNECTOR, &[("emit.reverse.checkpoints.enabled", "true")]);
    assert!(on.emit_reverse_checkpoints_enabled);
    assert_eq!(
        on.reverse_offset_syncs_topic(),
        "mm2-offset-syncs.A.internal"
    );
    assert_eq!(on.reverse_offset_syncs_cluster(), Cluster::Target);
    assert_eq!(
        on.reverse_offset_syncs_consumer_config()["bootstrap.servers"],
        "b:9092"
    );
    // Kept on B->A's target (A, our source): named after B->A's source.
    let on_target = ok(
        CONNECTOR,
        &[
            ("emit.reverse.checkpoints.enabled", "true"),
            ("reverse.offset-syncs.topic.location", "target"),
            ("replication.policy.separator", "_"),
        ],
    );
    assert_eq!(
        on_target.reverse_offset_syncs_topic(),
        "mm2-offset-syncs_B_internal"
    );
    assert_eq!(on_target.reverse_offset_syncs_cluster(), Cluster::Source);
    assert_eq!(
        on_target.reverse_offset_syncs_consumer_config()["bootstrap.servers"],
        "a:9092"
    );
    let described = on_target.describe();
    for line in [
        "emit.reverse.checkpoints.enabled = true",
        "reverse.offset-syncs.topic.location = target",
        "reverse.offset-syncs.topic = mm2-offset-syncs_B_internal",
    ] {
        assert!(
            described.lines().any(|l| l == line),
            "{line} in\n{described}"
        );
    }

    let identity = err(
        CONNECTOR,
        &[
            ("emit.reverse.checkpoints.enabled", "true"),
            ("replication.policy.class", "IdentityReplicationPolicy"),
        ],
    );
    assert_eq!(identity.key, "emit.reverse.checkpoints.enabled");
    assert!(
        identity.reason.contains("DefaultReplicationPolicy"),
        "{identity}"
    );
    let location = err(
        CONNECTOR,
        &[("reverse.offset-syncs.topic.location", "Source")],
    );
    assert_eq!(location.key, "reverse.offset-syncs.topic.location");
    let flag = err(CONNECTOR, &[("emit.reverse.checkpoints.enabled", "yes")]);
    assert_eq!(flag.key, "emit.reverse.checkpoints.enabled");
    // Per flow in dedicated mode.
    let dedicated = ok(
        DEDICATED,
        &[("A->B.emit.reverse.checkpoints.enabled", "true")],
    );
    assert!(dedicated.emit_reverse_checkpoints_enabled);
}

#[test]
fn every_enabled_flow_of_a_dedicated_file_is_read_with_its_own_overrides() {
    let text = "clusters = A, B, C\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\n\
                C.bootstrap.servers = c:9092\nA->B.enabled = true\nB->A.enabled = true\n\
                B->A.emit.reverse.checkpoints.enabled = true\nA->C.enabled = false\n";
    let flows = MirrorCheckpointConfig::flows_from_properties_text(text).unwrap();
    let names: Vec<(String, String, bool)> = flows
        .iter()
        .map(|(c, _)| {
            (
                c.source_cluster_alias.clone(),
                c.target_cluster_alias.clone(),
                c.emit_reverse_checkpoints_enabled,
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("A".to_string(), "B".to_string(), false),
            ("B".to_string(), "A".to_string(), true)
        ]
    );
    // Naming a flow, or a file of one flow, reads that flow alone.
    let chosen = format!("{text}source.cluster.alias = B\ntarget.cluster.alias = A\n");
    let one = MirrorCheckpointConfig::flows_from_properties_text(&chosen).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].0.source_cluster_alias, "B");
    let single = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n";
    assert_eq!(
        MirrorCheckpointConfig::flows_from_properties_text(single)
            .unwrap()
            .len(),
        1
    );
    // One flow's error names the flow.
    let bad = format!("{text}B->A.offset-syncs.topic.location = nowhere\n");
    let e = MirrorCheckpointConfig::flows_from_properties_text(&bad).unwrap_err();
    assert!(e.reason.starts_with("(flow B->A)"), "{e}");
}
