//! The configuration keys MM2 knows: the checkpoint connector's own, the other MM2 keys that
//! are accepted and ignored here, keys MM2 removed, and the dedicated driver's prefixes.

use super::keys;

// Property names, as MM2 spells them.
pub(super) const CLUSTERS: &str = "clusters";
pub(super) const ENABLED: &str = "enabled";
pub(super) const SOURCE_CLUSTER_ALIAS: &str = "source.cluster.alias";
pub(super) const TARGET_CLUSTER_ALIAS: &str = "target.cluster.alias";
pub(super) const EMIT_CHECKPOINTS_ENABLED: &str = "emit.checkpoints.enabled";
pub(super) const EMIT_CHECKPOINTS_INTERVAL: &str = "emit.checkpoints.interval.seconds";
pub(super) const SYNC_GROUP_OFFSETS_ENABLED: &str = "sync.group.offsets.enabled";
pub(super) const SYNC_GROUP_OFFSETS_INTERVAL: &str = "sync.group.offsets.interval.seconds";
pub(super) const REFRESH_GROUPS_ENABLED: &str = "refresh.groups.enabled";
pub(super) const REFRESH_GROUPS_INTERVAL: &str = "refresh.groups.interval.seconds";
pub(super) const GROUPS: &str = "groups";
pub(super) const GROUPS_EXCLUDE: &str = "groups.exclude";
pub(super) const GROUP_FILTER_CLASS: &str = "group.filter.class";
pub(super) const TOPICS: &str = "topics";
pub(super) const TOPICS_EXCLUDE: &str = "topics.exclude";
pub(super) const TOPIC_FILTER_CLASS: &str = "topic.filter.class";
pub(super) const OFFSET_SYNCS_TOPIC_LOCATION: &str = "offset-syncs.topic.location";
pub(super) const EMIT_OFFSET_SYNCS_ENABLED: &str = "emit.offset-syncs.enabled";
pub(super) const CHECKPOINTS_TOPIC_REPLICATION_FACTOR: &str =
    "checkpoints.topic.replication.factor";
pub(super) const OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR: &str =
    "offset-syncs.topic.replication.factor";
pub(super) const CONSUMER_POLL_TIMEOUT_MS: &str = "consumer.poll.timeout.ms";
pub(super) const ADMIN_TIMEOUT_MS: &str = "admin.timeout.ms";
pub(super) const REPLICATION_POLICY_CLASS: &str = "replication.policy.class";
pub(super) const REPLICATION_POLICY_SEPARATOR: &str = "replication.policy.separator";
pub(super) const INTERNAL_TOPIC_SEPARATOR_ENABLED: &str =
    "replication.policy.internal.topic.separator.enabled";
pub(super) const FORWARDING_ADMIN_CLASS: &str = "forwarding.admin.class";
pub(super) const TASK_ASSIGNED_GROUPS: &str = "task.assigned.groups";
pub(super) const TASK_INDEX: &str = "task.index";
pub(super) const TASK_COUNT: &str = "task.count";
pub(super) const TASK_ASSIGNMENT: &str = "task.assignment";
pub(super) const TASK_COORDINATION_GROUP_ID: &str = "task.coordination.group.id";
pub(super) const TASK_COORDINATION_TOPIC: &str = "task.coordination.topic";
pub(super) const TASK_COORDINATION_PARTITIONS: &str = "task.coordination.partitions";
pub(super) const OFFSET_LAG_MAX: &str = "offset.lag.max";
pub(super) const GROUP_OFFSETS_SOURCE: &str = "group.offsets.source";
pub(super) const STATISTICS_INTERVAL_MS: &str = "statistics.interval.ms";
pub(super) const EMIT_REVERSE_CHECKPOINTS_ENABLED: &str = "emit.reverse.checkpoints.enabled";
pub(super) const REVERSE_OFFSET_SYNCS_TOPIC_LOCATION: &str = "reverse.offset-syncs.topic.location";
pub(super) const BOOTSTRAP_SERVERS: &str = "bootstrap.servers";
pub(super) const CLIENT_ID: &str = "client.id";

/// Flow keys this crate reads.
pub(super) const CHECKPOINT_KEYS: &[&str] = &[
    keys::ENABLED,
    keys::SOURCE_CLUSTER_ALIAS,
    keys::TARGET_CLUSTER_ALIAS,
    keys::EMIT_CHECKPOINTS_ENABLED,
    keys::EMIT_CHECKPOINTS_INTERVAL,
    keys::SYNC_GROUP_OFFSETS_ENABLED,
    keys::SYNC_GROUP_OFFSETS_INTERVAL,
    keys::REFRESH_GROUPS_ENABLED,
    keys::REFRESH_GROUPS_INTERVAL,
    keys::GROUPS,
    keys::GROUPS_EXCLUDE,
    keys::GROUP_FILTER_CLASS,
    keys::TOPICS,
    keys::TOPICS_EXCLUDE,
    keys::TOPIC_FILTER_CLASS,
    keys::OFFSET_SYNCS_TOPIC_LOCATION,
    keys::EMIT_OFFSET_SYNCS_ENABLED,
    keys::CHECKPOINTS_TOPIC_REPLICATION_FACTOR,
    keys::OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR,
    keys::CONSUMER_POLL_TIMEOUT_MS,
    keys::ADMIN_TIMEOUT_MS,
    keys::REPLICATION_POLICY_CLASS,
    keys::REPLICATION_POLICY_SEPARATOR,
    keys::INTERNAL_TOPIC_SEPARATOR_ENABLED,
    keys::FORWARDING_ADMIN_CLASS,
    keys::TASK_ASSIGNED_GROUPS,
    keys::TASK_INDEX,
    keys::TASK_COUNT,
    keys::TASK_ASSIGNMENT,
    keys::TASK_COORDINATION_GROUP_ID,
    keys::TASK_COORDINATION_TOPIC,
    keys::TASK_COORDINATION_PARTITIONS,
    keys::OFFSET_LAG_MAX,
    keys::GROUP_OFFSETS_SOURCE,
    keys::STATISTICS_INTERVAL_MS,
    keys::EMIT_REVERSE_CHECKPOINTS_ENABLED,
    keys::REVERSE_OFFSET_SYNCS_TOPIC_LOCATION,
];

/// Keys of the other MM2 connectors and of Connect's connector config. A shared `mm2.properties`
/// is full of them, so they are accepted without a warning even though checkpointing ignores them.
pub(super) const OTHER_MM2_KEYS: &[&str] = &[
    "name",
    "connector.class",
    "tasks.max",
    "tasks.max.enforce",
    "key.converter",
    "value.converter",
    "header.converter",
    "config.action.reload",
    "transforms",
    "predicates",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offsets.storage.topic",
    "metric.reporters",
    "emit.heartbeats.enabled",
    "emit.heartbeats.interval.seconds",
    "heartbeats.topic.replication.factor",
    "heartbeats.replication.enabled",
    "refresh.topics.enabled",
    "refresh.topics.interval.seconds",
    "sync.topic.configs.enabled",
    "sync.topic.configs.interval.seconds",
    "sync.topic.acls.enabled",
    "sync.topic.acls.interval.seconds",
    "replication.factor",
    "config.property.filter.class",
    "config.properties.exclude",
    "use.defaults.from",
    "task.assigned.partitions",
];

/// Prefixes of Connect connector settings (transformations, converters, topic creation).
pub(super) const OTHER_MM2_PREFIXES: &[&str] = &[
    "transforms.",
    "predicates.",
    "topic.creation.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
];

/// Aliases MM2 removed in Kafka 4.0 (KAFKA-17529); Java now ignores them, and so do we.
pub(super) const REMOVED_KEYS: &[(&str, &str)] = &[
    ("topics.blacklist", keys::TOPICS_EXCLUDE),
    ("groups.blacklist", keys::GROUPS_EXCLUDE),
    ("config.properties.blacklist", "config.properties.exclude"),
];

/// Top-level prefixes that dedicated mode hands to the Connect worker or the MM2 driver itself
/// (`MirrorMakerConfig.workerConfig` matches them with a plain `startsWith`).
pub(super) const DEDICATED_DRIVER_PREFIXES: &[&str] = &[
    "config.providers",
    "dedicated.mode.",
    "offset.storage",
    "config.storage",
    "status.storage",
    "key.converter",
    "value.converter",
    "header.converter",
    "task",
    "worker",
    "listeners",
    "rest.",
    "admin.listeners",
];

pub(super) fn is_checkpoint_key(key: &str) -> bool {
    CHECKPOINT_KEYS.contains(&key)
}

pub(super) fn removed_key_replacement(key: &str) -> Option<&'static str> {
    REMOVED_KEYS
        .iter()
        .find(|(old, _)| *old == key)
        .map(|(_, new)| *new)
}

/// Any key MM2's connectors define: a flow setting, never a client setting.
pub(super) fn is_mm2_key(key: &str) -> bool {
    is_checkpoint_key(key)
        || OTHER_MM2_KEYS.contains(&key)
        || OTHER_MM2_PREFIXES.iter().any(|p| key.starts_with(p))
        || removed_key_replacement(key).is_some()
}

/// The keys MM2 keeps from a cluster's settings (`MirrorClientConfig.CLIENT_CONFIG_DEF`). Java
/// lists its own SSL/SASL names; librdkafka spells some differently, so any `ssl.`/`sasl.` key
/// counts.
pub(super) fn is_connection_key(key: &str) -> bool {
    key == keys::BOOTSTRAP_SERVERS
        || key == "security.protocol"
        || key.starts_with("ssl.")
        || key.starts_with("sasl.")
}

/// The warning for a key nothing reads, suggesting the closest known MM2 key when the key looks
/// like a misspelling of one (`emit.checkpoint.interval.seconds`).
pub(super) fn unknown_key_message(key: &str) -> String {
    match closest_known_key(key) {
        Some(known) => format!("unknown key, ignored; did you mean `{known}`?"),
        None => "unknown key, ignored".to_string(),
    }
}

/// The known MM2 key nearest to `key` by edit distance, if it is near enough to be a typo: at
/// most 3 edits and under a third of the key's length, so short unrelated keys match nothing.
pub(super) fn closest_known_key(key: &str) -> Option<&'static str> {
    let limit = typo_limit(key);
    comparable_keys(key)
        .map(|known| (edit_distance(key, known), known))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, known)| known)
}

/// How many edits still count as a typo of `key`.
fn typo_limit(key: &str) -> usize {
    // Cheap for any length: a key longer than this has a limit of 3 anyway.
    let chars = key.chars().take(16).count();
    3.min(chars.saturating_sub(1) / 3)
}

/// The known keys worth an edit distance with `key`: the distance is at least the difference
/// in length, so keys whose length differs by more than the typo limit are skipped unseen. A
/// key far longer than every known key (a 1 MB key) is compared with none, which keeps the
/// search linear in the key's length.
fn comparable_keys(key: &str) -> impl Iterator<Item = &'static str> + '_ {
    let limit = typo_limit(key);
    let longest = CHECKPOINT_KEYS
        .iter()
        .chain(OTHER_MM2_KEYS)
        .map(|k| k.len())
        .max()
        .unwrap_or(0);
    // Known keys are ASCII, so their byte length is their length in characters; a key with
    // more bytes than `longest + limit` may still have few characters, hence the char count,
    // bounded so that it never walks a long key.
    let length = key.chars().take(longest + limit + 1).count();
    CHECKPOINT_KEYS
        .iter()
        .chain(OTHER_MM2_KEYS)
        .copied()
        .filter(move |known| length.abs_diff(known.len()) <= limit)
}

/// Levenshtein distance (insertions, deletions, substitutions), over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest_known_key, comparable_keys, edit_distance};

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        let table = [
            ("", "", 0),
            ("abc", "", 3),
            ("", "abc", 3),
            ("groups", "groups", 0),
            ("biling", "billing", 1),
            ("kitten", "sitting", 3),
            ("topics", "tpoics", 2),
        ];
        for (a, b, d) in table {
            assert_eq!(edit_distance(a, b), d, "{a} / {b}");
            assert_eq!(edit_distance(b, a), d, "{b} / {a}");
        }
    }

    #[test]
    fn a_misspelt_key_suggests_the_closest_known_key_and_an_unrelated_one_none() {
        let table = [
            (
                "emit.checkpoint.interval.seconds",
                Some("emit.checkpoints.interval.seconds"),
            ),
            ("group.exclude", Some("groups.exclude")),
            ("topics.exlude", Some("topics.exclude")),
            (
                "sync.group.offset.enabled",
                Some("sync.group.offsets.enabled"),
            ),
            ("task.max", Some("tasks.max")),
            ("bogus", None),
            ("nonsense", None),
            ("xy", None),
            ("emit", None),
        ];
        for (key, want) in table {
            assert_eq!(closest_known_key(key), want, "{key}");
        }
    }

    #[test]
    fn a_huge_unknown_key_is_compared_with_no_known_key_and_ordinary_ones_still_are() {
        let huge = "x".repeat(1 << 20);
        assert_eq!(comparable_keys(&huge).count(), 0);
        assert_eq!(closest_known_key(&huge), None);
        let near_longest = format!("{}y", "replication.policy.internal.topic.separator.enabled");
        assert_eq!(
            closest_known_key(&near_longest),
            Some("replication.policy.internal.topic.separator.enabled")
        );
        let typo = "emit.checkpoint.interval.seconds";
        let compared: Vec<_> = comparable_keys(typo).collect();
        assert!(compared.contains(&"emit.checkpoints.interval.seconds"));
        // Only keys of a near length: far fewer than all of them.
        let all = super::CHECKPOINT_KEYS.len() + super::OTHER_MM2_KEYS.len();
        assert!(compared.len() * 4 < all, "{} of {all}", compared.len());
    }
}
