//! `ReplicationPolicy`: how MM2 names remote topics and its own internal topics, and how it
//! reads a remote topic's source cluster back from the name.
//!
//! Only MM2's two stock policies exist here. Java lets users plug in any class, but a port
//! cannot load Java classes, so [`ReplicationPolicy::configure`] rejects every other name.

use std::collections::BTreeMap;

use crate::error::ConfigError;
use crate::topic_partition::TopicPartition;

/// Property naming the policy class.
pub const REPLICATION_POLICY_CLASS_CONFIG: &str = "replication.policy.class";
/// Property holding the remote-topic separator.
pub const SEPARATOR_CONFIG: &str = "replication.policy.separator";
/// Property saying whether internal topic names use the separator too.
pub const INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG: &str =
    "replication.policy.internal.topic.separator.enabled";
/// Property the identity policy reads its source alias from.
pub const SOURCE_CLUSTER_ALIAS_CONFIG: &str = "source.cluster.alias";
/// The separator when none is configured.
pub const DEFAULT_SEPARATOR: &str = ".";
/// The heartbeats topic name; no policy in this snapshot of MM2 changes it.
pub const HEARTBEATS_TOPIC: &str = "heartbeats";
/// Java class name of the default policy.
pub const DEFAULT_POLICY_CLASS: &str = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
/// Java class name of the identity policy.
pub const IDENTITY_POLICY_CLASS: &str = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";

/// `DefaultReplicationPolicy`: a remote topic is `<source alias><separator><topic>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultReplicationPolicy {
    separator: String,
    internal_topic_separator_enabled: bool,
}

impl DefaultReplicationPolicy {
    /// Makes a policy with `separator`; `internal_topic_separator_enabled` says whether the
    /// offset-syncs and checkpoints topic names use it (otherwise they use `.`).
    pub fn new(separator: &str, internal_topic_separator_enabled: bool) -> Self {
        DefaultReplicationPolicy {
            separator: separator.to_string(),
            internal_topic_separator_enabled,
        }
    }

    /// Reads the policy's properties as Java's `configure` does.
    ///
    /// The internal-separator flag is read only when the separator key itself is present (a
    /// quirk of MM2), and parsed like `Boolean.parseBoolean`: true only for `true` in any case.
    pub fn from_props(props: &BTreeMap<String, String>) -> Self {
        let Some(separator) = props.get(SEPARATOR_CONFIG) else {
            return Self::default();
        };
        log::info!("Using custom remote topic separator: '{separator}'");
        let enabled = props
            .get(INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG)
            .map_or(true, |value| value.eq_ignore_ascii_case("true"));
        if !enabled {
            log::warn!(
                "Disabling custom topic separator for internal topics; will use '.' instead of '{separator}'"
            );
        }
        Self::new(separator, enabled)
    }

    /// The remote-topic separator.
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// Whether internal topic names use the separator.
    pub fn internal_topic_separator_enabled(&self) -> bool {
        self.internal_topic_separator_enabled
    }

    fn internal_separator(&self) -> &str {
        if self.internal_topic_separator_enabled {
            &self.separator
        } else {
            DEFAULT_SEPARATOR
        }
    }

    fn internal_suffix(&self) -> String {
        format!("{}internal", self.internal_separator())
    }

    fn checkpoints_topic_suffix(&self) -> String {
        let sep = self.internal_separator();
        format!("{sep}checkpoints{sep}internal")
    }

    /// `alias + separator + topic`.
    pub fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String {
        format!("{source_alias}{}{topic}", self.separator)
    }

    /// The text before the first separator, if the name has a non-empty piece after it.
    ///
    /// Java splits with `Pattern.split` (limit 0), which drops trailing empty pieces and keeps
    /// leading ones: so `.a` has source `""`, while `a.` and `..` have none.
    pub fn topic_source(&self, topic: &str) -> Option<String> {
        if self.separator.is_empty() {
            // An empty pattern splits Java strings between UTF-16 units: a remote topic needs two.
            return if topic.encode_utf16().nth(1).is_some() {
                topic.chars().next().map(String::from)
            } else {
                None
            };
        }
        let mut pieces = topic.split(self.separator.as_str());
        let first = pieces.next()?;
        pieces
            .any(|piece| !piece.is_empty())
            .then(|| first.to_string())
    }

    /// The name after the source alias and one separator; `None` when not a remote topic.
    pub fn upstream_topic(&self, topic: &str) -> Option<String> {
        let source = self.topic_source(topic)?;
        topic
            .get(source.len() + self.separator.len()..)
            .map(str::to_string)
    }

    /// `mm2-offset-syncs<S><alias><S>internal`, S being the internal separator.
    pub fn offset_syncs_topic(&self, cluster_alias: &str) -> String {
        let sep = self.internal_separator();
        format!("mm2-offset-syncs{sep}{cluster_alias}{sep}internal")
    }

    /// `<alias><S>checkpoints<S>internal`, S being the internal separator.
    pub fn checkpoints_topic(&self, cluster_alias: &str) -> String {
        format!("{cluster_alias}{}", self.checkpoints_topic_suffix())
    }

    /// Ends with this policy's checkpoints suffix.
    pub fn is_checkpoints_topic(&self, topic: &str) -> bool {
        topic.ends_with(&self.checkpoints_topic_suffix())
    }

    /// Ends with this policy's internal suffix (`<S>internal`).
    pub fn is_mm2_internal_topic(&self, topic: &str) -> bool {
        topic.ends_with(&self.internal_suffix())
    }
}

impl Default for DefaultReplicationPolicy {
    /// Separator `.`, used for internal topics too.
    fn default() -> Self {
        Self::new(DEFAULT_SEPARATOR, true)
    }
}

/// `IdentityReplicationPolicy`: remote topics keep their names, except heartbeat topics, which
/// are renamed by the default policy so that MM2 can still count replication hops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityReplicationPolicy {
    default: DefaultReplicationPolicy,
    source_cluster_alias: Option<String>,
}

impl IdentityReplicationPolicy {
    /// Wraps `default` (used for heartbeat topics and internal topic names);
    /// `source_cluster_alias` is what [`Self::topic_source`] reports for every other topic.
    pub fn new(default: DefaultReplicationPolicy, source_cluster_alias: Option<String>) -> Self {
        IdentityReplicationPolicy {
            default,
            source_cluster_alias,
        }
    }

    /// The wrapped default policy.
    pub fn default_policy(&self) -> &DefaultReplicationPolicy {
        &self.default
    }

    /// The configured `source.cluster.alias`, if any.
    pub fn source_cluster_alias(&self) -> Option<&str> {
        self.source_cluster_alias.as_deref()
    }

    /// Java only checks the suffix, so `myheartbeats` counts as a heartbeat topic here.
    fn looks_like_heartbeat(topic: &str) -> bool {
        topic.ends_with(HEARTBEATS_TOPIC)
    }

    /// `topic` unchanged, except heartbeat-like topics.
    pub fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String {
        if Self::looks_like_heartbeat(topic) {
            self.default.format_remote_topic(source_alias, topic)
        } else {
            topic.to_string()
        }
    }

    /// The configured source alias, except for heartbeat-like topics: a name alone cannot
    /// tell where an identity-mirrored topic came from.
    pub fn topic_source(&self, topic: &str) -> Option<String> {
        if Self::looks_like_heartbeat(topic) {
            self.default.topic_source(topic)
        } else {
            self.source_cluster_alias.clone()
        }
    }

    /// `topic` itself, except for heartbeat-like topics.
    pub fn upstream_topic(&self, topic: &str) -> Option<String> {
        if Self::looks_like_heartbeat(topic) {
            self.default.upstream_topic(topic)
        } else {
            Some(topic.to_string())
        }
    }
}

/// One of MM2's stock replication policies, chosen by `replication.policy.class`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicationPolicy {
    /// `DefaultReplicationPolicy`.
    Default(DefaultReplicationPolicy),
    /// `IdentityReplicationPolicy`.
    Identity(IdentityReplicationPolicy),
}

impl Default for ReplicationPolicy {
    /// The default policy with separator `.`.
    fn default() -> Self {
        ReplicationPolicy::Default(DefaultReplicationPolicy::default())
    }
}

impl ReplicationPolicy {
    /// Builds the policy named by `class` (the Java class name or its simple name, surrounding
    /// whitespace ignored as Java's config parser does) from the connector's original `props`.
    pub fn configure(class: &str, props: &BTreeMap<String, String>) -> Result<Self, ConfigError> {
        let default = DefaultReplicationPolicy::from_props(props);
        match class.trim_matches(|c: char| c <= ' ') {
            DEFAULT_POLICY_CLASS | "DefaultReplicationPolicy" => {
                Ok(ReplicationPolicy::Default(default))
            }
            IDENTITY_POLICY_CLASS | "IdentityReplicationPolicy" => {
                let alias = props.get(SOURCE_CLUSTER_ALIAS_CONFIG).cloned();
                Ok(ReplicationPolicy::Identity(IdentityReplicationPolicy::new(
                    default, alias,
                )))
            }
            other => Err(ConfigError::new(
                REPLICATION_POLICY_CLASS_CONFIG,
                format!(
                    "class `{other}` is not available; only {DEFAULT_POLICY_CLASS} and \
                     {IDENTITY_POLICY_CLASS} are supported"
                ),
            )),
        }
    }

    fn default_policy(&self) -> &DefaultReplicationPolicy {
        match self {
            ReplicationPolicy::Default(policy) => policy,
            ReplicationPolicy::Identity(policy) => policy.default_policy(),
        }
    }

    /// The name `topic` from cluster `source_alias` gets on the target.
    pub fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String {
        match self {
            ReplicationPolicy::Default(policy) => policy.format_remote_topic(source_alias, topic),
            ReplicationPolicy::Identity(policy) => policy.format_remote_topic(source_alias, topic),
        }
    }

    /// The alias of the cluster `topic` was mirrored from, or `None` if it is not remote.
    pub fn topic_source(&self, topic: &str) -> Option<String> {
        match self {
            ReplicationPolicy::Default(policy) => policy.topic_source(topic),
            ReplicationPolicy::Identity(policy) => policy.topic_source(topic),
        }
    }

    /// The topic's name one hop upstream, or `None` if it is not remote.
    pub fn upstream_topic(&self, topic: &str) -> Option<String> {
        match self {
            ReplicationPolicy::Default(policy) => policy.upstream_topic(topic),
            ReplicationPolicy::Identity(policy) => policy.upstream_topic(topic),
        }
    }

    /// Follows [`Self::upstream_topic`] to the first hop. Stops when there is no upstream or it
    /// is the same name, which is what ends the walk under the identity policy.
    pub fn original_topic(&self, topic: &str) -> String {
        let mut current = topic.to_string();
        // Each default-policy hop is strictly shorter, so this ends after at most len+1 steps.
        while let Some(upstream) = self.upstream_topic(&current) {
            if upstream == current {
                break;
            }
            current = upstream;
        }
        current
    }

    /// The offset-syncs topic named after `cluster_alias`.
    pub fn offset_syncs_topic(&self, cluster_alias: &str) -> String {
        self.default_policy().offset_syncs_topic(cluster_alias)
    }

    /// The checkpoints topic for flows from `cluster_alias`.
    pub fn checkpoints_topic(&self, cluster_alias: &str) -> String {
        self.default_policy().checkpoints_topic(cluster_alias)
    }

    /// Always `heartbeats`.
    pub fn heartbeats_topic(&self) -> String {
        HEARTBEATS_TOPIC.to_string()
    }

    /// The original topic (all hops stripped) is `heartbeats`.
    pub fn is_heartbeats_topic(&self, topic: &str) -> bool {
        self.original_topic(topic) == HEARTBEATS_TOPIC
    }

    /// Ends with the separator-aware checkpoints suffix.
    pub fn is_checkpoints_topic(&self, topic: &str) -> bool {
        self.default_policy().is_checkpoints_topic(topic)
    }

    /// Ends with the separator-aware `internal` suffix.
    pub fn is_mm2_internal_topic(&self, topic: &str) -> bool {
        self.default_policy().is_mm2_internal_topic(topic)
    }

    /// An MM2 internal topic, a Kafka internal topic (`__…`, `.…`) or a Connect one
    /// (`…-internal`, `….internal`); such topics are never replicated.
    pub fn is_internal_topic(&self, topic: &str) -> bool {
        self.is_mm2_internal_topic(topic)
            || topic.starts_with("__")
            || topic.starts_with('.')
            || topic.ends_with("-internal")
            || topic.ends_with(".internal")
    }
}

/// The target partition a checkpoint for `upstream` names, as MirrorCheckpointTask renames it.
///
/// A topic that itself came from the target cluster maps back to its original name (all hops
/// stripped, not just one); every other topic gets the remote name for `source_alias`.
pub fn checkpoint_topic_partition(
    policy: &ReplicationPolicy,
    source_alias: &str,
    target_alias: &str,
    upstream: &TopicPartition,
) -> TopicPartition {
    let topic = if policy.topic_source(&upstream.topic).as_deref() == Some(target_alias) {
        policy.original_topic(&upstream.topic)
    } else {
        policy.format_remote_topic(source_alias, &upstream.topic)
    };
    TopicPartition::new(topic, upstream.partition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn default_with(separator: &str) -> ReplicationPolicy {
        ReplicationPolicy::Default(DefaultReplicationPolicy::new(separator, true))
    }

    fn identity(alias: Option<&str>) -> ReplicationPolicy {
        ReplicationPolicy::Identity(IdentityReplicationPolicy::new(
            DefaultReplicationPolicy::default(),
            alias.map(str::to_string),
        ))
    }

    /// How DefaultReplicationPolicy splits a topic name on its separator (`topicSource`,
    /// `upstreamTopic`), case by case, checked against the JDK's `Pattern.split`.
    #[test]
    fn topic_source_and_upstream_follow_java_split_rules() {
        let cases: &[(&str, &str, Option<&str>, Option<&str>)] = &[
            (".", "a.b", Some("a"), Some("b")),
            (".", "a.b.c", Some("a"), Some("b.c")),
            (".", ".a", Some(""), Some("a")),
            (".", "a.", None, None),
            (".", ".", None, None),
            (".", "..", None, None),
            (".", "a..b", Some("a"), Some(".b")),
            (".", "a.b.", Some("a"), Some("b.")),
            (".", "abc", None, None),
            (".", "", None, None),
            ("__", "a___b", Some("a"), Some("_b")),
            ("__", "a__b__c", Some("a"), Some("b__c")),
            ("__", "a.b", None, None),
            ("__", "a__", None, None),
            ("__", "____a", Some(""), Some("__a")),
            ("-->", "dc1-->t", Some("dc1"), Some("t")),
            ("", "abc", Some("a"), Some("bc")),
            ("", "a", None, None),
            ("", "", None, None),
            (".", "東京.주문", Some("東京"), Some("주문")),
        ];
        for (separator, topic, source, upstream) in cases {
            let policy = default_with(separator);
            let context = format!("separator {separator:?}, topic {topic:?}");
            assert_eq!(
                policy.topic_source(topic).as_deref(),
                *source,
                "source, {context}"
            );
            assert_eq!(
                policy.upstream_topic(topic).as_deref(),
                *upstream,
                "upstream, {context}"
            );
        }
    }

    #[test]
    fn separator_is_literal_not_a_regex() {
        let policy = default_with(".*");
        assert_eq!(policy.topic_source("abc"), None);
        assert_eq!(policy.topic_source("a.*b").as_deref(), Some("a"));
    }

    #[test]
    fn original_topic_strips_every_hop() {
        let policy = ReplicationPolicy::default();
        for (topic, original) in [
            ("a.b.c", "c"),
            ("a.", "a."),
            ("abc", "abc"),
            (".a", "a"),
            ("us.eu.heartbeats", "heartbeats"),
            ("", ""),
        ] {
            assert_eq!(policy.original_topic(topic), original, "topic {topic:?}");
        }
    }

    #[test]
    fn format_remote_topic_prepends_alias_and_separator() {
        assert_eq!(
            ReplicationPolicy::default().format_remote_topic("us-west", "t"),
            "us-west.t"
        );
        assert_eq!(default_with("__").format_remote_topic("us", "t"), "us__t");
    }

    #[test]
    fn identity_keeps_names_and_reports_configured_alias() {
        let policy = identity(Some("src"));
        assert_eq!(policy.format_remote_topic("src", "orders"), "orders");
        assert_eq!(policy.format_remote_topic("src", "a.b"), "a.b");
        assert_eq!(policy.topic_source("a.b").as_deref(), Some("src"));
        assert_eq!(policy.topic_source("orders").as_deref(), Some("src"));
        assert_eq!(policy.upstream_topic("a.b").as_deref(), Some("a.b"));
        assert_eq!(policy.original_topic("a.b.c"), "a.b.c");
        assert_eq!(identity(None).topic_source("orders"), None);
    }

    #[test]
    fn identity_defers_heartbeat_like_topics_to_default_policy() {
        let policy = identity(Some("src"));
        assert_eq!(
            policy.format_remote_topic("src", "heartbeats"),
            "src.heartbeats"
        );
        assert_eq!(
            policy.format_remote_topic("src", "myheartbeats"),
            "src.myheartbeats"
        );
        assert_eq!(policy.topic_source("us.heartbeats").as_deref(), Some("us"));
        assert_eq!(policy.topic_source("heartbeats"), None);
        assert_eq!(
            policy.upstream_topic("us.heartbeats").as_deref(),
            Some("heartbeats")
        );
        assert_eq!(policy.original_topic("a.b.heartbeats"), "heartbeats");
        assert!(policy.is_heartbeats_topic("a.b.heartbeats"));
        assert!(!policy.is_heartbeats_topic("myheartbeats"));
        assert!(!policy.is_heartbeats_topic("heartbeats-x"));
    }

    #[test]
    fn heartbeats_topic_detection_follows_original_topic() {
        let policy = ReplicationPolicy::default();
        for (topic, expected) in [
            ("heartbeats", true),
            ("us.heartbeats", true),
            ("eu.us.heartbeats", true),
            ("myheartbeats", false),
            ("heartbeats.x", false),
        ] {
            assert_eq!(policy.is_heartbeats_topic(topic), expected, "{topic}");
        }
    }

    #[test]
    fn internal_topic_detection() {
        for policy in [ReplicationPolicy::default(), identity(Some("src"))] {
            for (topic, expected) in [
                ("__consumer_offsets", true),
                ("__x", true),
                (".hidden", true),
                ("mm2-configs.internal", true),
                ("connect-offsets-internal", true),
                ("x_internal", false),
                ("_x", false),
                ("orders", false),
                ("internal", false),
            ] {
                assert_eq!(policy.is_internal_topic(topic), expected, "{topic}");
            }
        }
        let underscore = default_with("__");
        assert!(underscore.is_internal_topic("mm2-offset-syncs__C__internal"));
        assert!(underscore.is_mm2_internal_topic("x__internal"));
        assert!(!ReplicationPolicy::default().is_internal_topic("x__internal"));
    }

    #[test]
    fn internal_separator_flag_switches_internal_topic_names() {
        let on = ReplicationPolicy::Default(DefaultReplicationPolicy::new("__", true));
        let off = ReplicationPolicy::Default(DefaultReplicationPolicy::new("__", false));
        assert_eq!(on.offset_syncs_topic("C"), "mm2-offset-syncs__C__internal");
        assert_eq!(on.checkpoints_topic("C"), "C__checkpoints__internal");
        assert_eq!(off.offset_syncs_topic("C"), "mm2-offset-syncs.C.internal");
        assert_eq!(off.checkpoints_topic("C"), "C.checkpoints.internal");
        assert!(on.is_checkpoints_topic("C__checkpoints__internal"));
        assert!(!on.is_checkpoints_topic("C.checkpoints.internal"));
        assert!(off.is_checkpoints_topic("C.checkpoints.internal"));
        assert!(on.is_mm2_internal_topic("mm2-offset-syncs__C__internal"));
        assert!(!off.is_mm2_internal_topic("mm2-offset-syncs__C__internal"));
        for policy in [&on, &off, &ReplicationPolicy::default(), &identity(None)] {
            assert_eq!(policy.heartbeats_topic(), "heartbeats");
        }
        // The remote-topic separator itself is not affected by the flag.
        assert_eq!(off.format_remote_topic("C", "t"), "C__t");
    }

    #[test]
    fn default_internal_topic_names() {
        let policy = ReplicationPolicy::default();
        assert_eq!(
            policy.offset_syncs_topic("backup"),
            "mm2-offset-syncs.backup.internal"
        );
        assert_eq!(
            policy.checkpoints_topic("primary"),
            "primary.checkpoints.internal"
        );
        assert!(policy.is_checkpoints_topic("primary.checkpoints.internal"));
        assert!(!policy.is_checkpoints_topic("primary.checkpoints"));
    }

    #[test]
    fn configure_accepts_java_and_simple_class_names() {
        let empty = props(&[]);
        for class in [
            DEFAULT_POLICY_CLASS,
            "DefaultReplicationPolicy",
            "  org.apache.kafka.connect.mirror.DefaultReplicationPolicy\t",
        ] {
            assert_eq!(
                ReplicationPolicy::configure(class, &empty),
                Ok(ReplicationPolicy::default()),
                "{class:?}"
            );
        }
        for class in [IDENTITY_POLICY_CLASS, "IdentityReplicationPolicy"] {
            assert!(matches!(
                ReplicationPolicy::configure(class, &empty),
                Ok(ReplicationPolicy::Identity(_))
            ));
        }
    }

    #[test]
    fn configure_rejects_other_classes_naming_the_key() {
        for class in [
            "com.example.MyPolicy",
            "",
            "defaultreplicationpolicy",
            "org.apache.kafka.connect.mirror.ReplicationPolicy",
        ] {
            let error = ReplicationPolicy::configure(class, &props(&[])).unwrap_err();
            assert_eq!(error.key, REPLICATION_POLICY_CLASS_CONFIG);
            assert!(error.reason.contains(DEFAULT_POLICY_CLASS), "{error}");
            assert!(error.reason.contains(IDENTITY_POLICY_CLASS), "{error}");
        }
    }

    #[test]
    fn configure_reads_separator_and_flag_only_with_separator_present() {
        let flag = INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG;
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, bool);
        let cases: &[Case] = &[
            (&[], ".", true),
            (&[(flag, "false")], ".", true),
            (&[(SEPARATOR_CONFIG, "__")], "__", true),
            (&[(SEPARATOR_CONFIG, "__"), (flag, "false")], "__", false),
            (&[(SEPARATOR_CONFIG, "__"), (flag, "TRUE")], "__", true),
            (&[(SEPARATOR_CONFIG, "__"), (flag, "tRuE")], "__", true),
            (&[(SEPARATOR_CONFIG, "__"), (flag, "yes")], "__", false),
            (&[(SEPARATOR_CONFIG, "__"), (flag, " true")], "__", false),
            (&[(SEPARATOR_CONFIG, "__"), (flag, "")], "__", false),
            (&[(SEPARATOR_CONFIG, "")], "", true),
        ];
        for (pairs, separator, enabled) in cases {
            let policy = DefaultReplicationPolicy::from_props(&props(pairs));
            assert_eq!(policy.separator(), *separator, "{pairs:?}");
            assert_eq!(
                policy.internal_topic_separator_enabled(),
                *enabled,
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn configure_identity_reads_source_alias_and_separator() {
        let configured = ReplicationPolicy::configure(
            IDENTITY_POLICY_CLASS,
            &props(&[
                (SOURCE_CLUSTER_ALIAS_CONFIG, "src"),
                (SEPARATOR_CONFIG, "_"),
            ]),
        )
        .unwrap();
        assert_eq!(configured.topic_source("a_b").as_deref(), Some("src"));
        assert_eq!(
            configured.format_remote_topic("src", "heartbeats"),
            "src_heartbeats"
        );
        assert_eq!(
            configured.checkpoints_topic("src"),
            "src_checkpoints_internal"
        );
        let without_alias =
            ReplicationPolicy::configure("IdentityReplicationPolicy", &props(&[])).unwrap();
        assert_eq!(without_alias.topic_source("a.b"), None);
    }

    #[test]
    fn checkpoint_renaming_matches_downstream_topic_renaming_test() {
        let policy = ReplicationPolicy::default();
        for (upstream, expected) in [
            ("topic3", "source1.topic3"),
            ("target2.topic3", "topic3"),
            ("source6.topic7", "source1.source6.topic7"),
            ("target2.source1.topic3", "topic3"),
        ] {
            let renamed = checkpoint_topic_partition(
                &policy,
                "source1",
                "target2",
                &TopicPartition::new(upstream, 4),
            );
            assert_eq!(renamed, TopicPartition::new(expected, 4), "{upstream}");
        }
    }

    #[test]
    fn checkpoint_renaming_under_identity_keeps_names() {
        let policy = identity(Some("source1"));
        for (upstream, expected) in [
            ("topic3", "topic3"),
            ("target2.topic3", "target2.topic3"),
            ("heartbeats", "source1.heartbeats"),
            ("target2.heartbeats", "heartbeats"),
        ] {
            let renamed = checkpoint_topic_partition(
                &policy,
                "source1",
                "target2",
                &TopicPartition::new(upstream, i32::MAX),
            );
            assert_eq!(
                renamed,
                TopicPartition::new(expected, i32::MAX),
                "{upstream}"
            );
        }
    }

    proptest! {
        #[test]
        fn remote_topic_names_parse_back(
            alias in "[a-z0-9-]{1,10}",
            topic in "[a-zA-Z0-9._\\-é]{1,30}",
            separator in prop_oneof![Just("."), Just("__"), Just("-")],
        ) {
            prop_assume!(!alias.contains(separator));
            let policy = default_with(separator);
            let remote = policy.format_remote_topic(&alias, &topic);
            let has_content = topic.split(separator).any(|piece| !piece.is_empty());
            if has_content {
                prop_assert_eq!(policy.topic_source(&remote), Some(alias));
                prop_assert_eq!(policy.upstream_topic(&remote), Some(topic));
            }
        }

        #[test]
        fn policy_methods_never_panic(topic in "\\PC{0,40}", separator in "\\PC{0,3}") {
            let policy = default_with(&separator);
            let _ = policy.topic_source(&topic);
            let original = policy.original_topic(&topic);
            prop_assert!(original.len() <= topic.len());
            let _ = policy.is_internal_topic(&topic);
        }
    }
}
