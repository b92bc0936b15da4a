//! MM2's `MirrorCheckpointConfig`: every setting the checkpoint task reads, parsed from MM2
//! properties (strings) and validated up front, plus the librdkafka client configs built from
//! them.
//!
//! Two input shapes are accepted:
//! - connector style, as a Connect worker would hand them to `MirrorCheckpointConnector`:
//!   `source.cluster.alias`, `source.cluster.bootstrap.servers`, `consumer.*`, flow keys…;
//! - a dedicated-mode `mm2.properties` (recognised by its `clusters` key): `A.bootstrap.servers`,
//!   `A->B.enabled`, `A->B.<key>` overriding `<key>`… It is first flattened into connector style
//!   exactly as `MirrorMakerConfig.connectorBaseConfig` does, remembering for every value the key
//!   the user wrote, so errors name that key.
//!
//! Where the replication policy matters (topic names), the inputs are kept as data; see
//! [`MirrorCheckpointConfig::policy_properties`].

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::error::ConfigError;
use crate::filters::{GroupFilter, TopicFilter};
use crate::group_coordination::TaskAssignment;
pub use crate::properties::parse_properties;

/// Connector name used in client ids and entity labels (MM2 uses the connector's `name`).
pub const CONNECTOR_NAME: &str = "mm2-checkpoint";
/// Java name of MM2's default replication policy, the default of `replication.policy.class`.
pub const DEFAULT_REPLICATION_POLICY_CLASS: &str =
    "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
/// Java name of MM2's identity replication policy.
pub const IDENTITY_REPLICATION_POLICY_CLASS: &str =
    "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";

const TOPIC_FILTER_CLASS_DEFAULT: &str = "org.apache.kafka.connect.mirror.DefaultTopicFilter";
const GROUP_FILTER_CLASS_DEFAULT: &str = "org.apache.kafka.connect.mirror.DefaultGroupFilter";
const FORWARDING_ADMIN_CLASS_DEFAULT: &str = "org.apache.kafka.clients.admin.ForwardingAdmin";

mod client_settings;
mod java_client;
mod key_table;
mod keys;
mod mirror_client_config;
mod mirror_maker_config;
mod reader;

pub use crate::secrets::{is_sensitive_key, shown_value, Password, HIDDEN};
pub use client_settings::*;
pub use key_table::{
    apply_client_defaults, configuration_markdown, connector_keys_tsv, ClientDefault, ClientUse,
    KeyDoc, Parity, CLIENT_DEFAULTS, KEY_TABLE,
};
pub use mirror_client_config::MirrorClientConfig;
use mirror_maker_config::{cluster_aliases, flat_key_warning, flatten_dedicated, flow_enabled};
use reader::Reader;

/// A problem in the configuration that does not stop the task: an unknown key, a removed alias,
/// or a setting MM2 would silently ignore where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The key as the user wrote it (e.g. `A->B.groups.blacklist`).
    pub key: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl ConfigWarning {
    fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigWarning {
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "configuration `{}`: {}", self.key, self.message)
    }
}

/// MM2's checkpoint configuration for one replication flow (`source -> target`).
///
/// Build it with [`MirrorCheckpointConfig::from_properties`]. Durations that MM2 disables with a
/// negative value (or with their `*.enabled = false` switch) are `None` here.
#[derive(Debug, Clone)]
pub struct MirrorCheckpointConfig {
    /// `source.cluster.alias` (required): names the checkpoints topic, prefixes remote topics.
    pub source_cluster_alias: String,
    /// `target.cluster.alias` (default `target`): used by the rename rule and the offset-syncs
    /// topic name.
    pub target_cluster_alias: String,
    /// `enabled` (default `true`; `false` in dedicated mode unless `A->B.enabled` or `enabled`
    /// says otherwise, as in MM2). When false MM2's connector does nothing, and the
    /// cross-setting checks (offset syncs, bootstrap servers) are skipped.
    pub enabled: bool,
    /// `emit.checkpoints.enabled` (default `true`).
    pub emit_checkpoints_enabled: bool,
    /// `emit.checkpoints.interval.seconds` (default 60 s). `None` when emission is disabled or the
    /// interval is negative: MM2 then starts no checkpoint task at all, so group offset sync stops
    /// too. `Some(ZERO)` is accepted (MM2 emits back to back); the task must still pace its rounds
    /// by [`Self::consumer_poll_timeout`], which is why that one must be positive.
    pub emit_checkpoints_interval: Option<Duration>,
    /// `sync.group.offsets.enabled` (default `false`).
    pub sync_group_offsets_enabled: bool,
    /// `sync.group.offsets.interval.seconds` (default 60 s): period of the idle-group refresh and
    /// the offset sync. `None` when disabled or negative. Zero is rejected while enabled.
    pub sync_group_offsets_interval: Option<Duration>,
    /// `refresh.groups.enabled` (default `true`).
    pub refresh_groups_enabled: bool,
    /// `refresh.groups.interval.seconds` (default 600 s): period of group rediscovery. `None` when
    /// disabled or negative. Zero is rejected while enabled.
    pub refresh_groups_interval: Option<Duration>,
    /// `groups` / `groups.exclude` (defaults `.*` / `console-consumer-.*, connect-.*, __.*`).
    pub group_filter: GroupFilter,
    /// `topics` / `topics.exclude` (defaults `.*` / `.*[\-\.]internal, .*\.replica, __.*`),
    /// applied to upstream topic names.
    pub topic_filter: TopicFilter,
    /// `offset-syncs.topic.location` (default `source`).
    pub offset_syncs_topic_location: Cluster,
    /// `emit.offset-syncs.enabled` (default `true`); `false` is rejected while enabled.
    pub emit_offset_syncs_enabled: bool,
    /// `emit.reverse.checkpoints.enabled` (our extension, default `false`): checkpoints on the
    /// target for commits on the source's replicas of target topics, translated back with the
    /// reverse flow's offset syncs.
    pub emit_reverse_checkpoints_enabled: bool,
    /// `reverse.offset-syncs.topic.location` (our extension, default `source`): the reverse
    /// flow's own `offset-syncs.topic.location`. `Source` is the reverse flow's source, which
    /// is this flow's **target**.
    pub reverse_offset_syncs_topic_location: Cluster,
    /// `checkpoints.topic.replication.factor` (default 3; -1 = broker default).
    pub checkpoints_topic_replication_factor: i16,
    /// `offset-syncs.topic.replication.factor` (default 3; -1 = broker default).
    pub offset_syncs_topic_replication_factor: i16,
    /// `consumer.poll.timeout.ms` (default 1000 ms, must be positive): sleep granularity of a
    /// poll round.
    pub consumer_poll_timeout: Duration,
    /// `admin.timeout.ms` (default 60000 ms, must be positive): how long scheduled admin jobs may
    /// take.
    pub admin_timeout: Duration,
    /// `replication.policy.class`, normalised to its full Java name (default
    /// [`DEFAULT_REPLICATION_POLICY_CLASS`]; [`IDENTITY_REPLICATION_POLICY_CLASS`] also accepted).
    pub replication_policy_class: String,
    /// `replication.policy.separator` exactly as written (MM2's policy does not trim it), or
    /// `None` when absent (the policy then uses `.`).
    pub replication_policy_separator: Option<String>,
    /// `replication.policy.internal.topic.separator.enabled` as MM2's policy reads it
    /// (`Boolean.parseBoolean` of the untrimmed value; default `true`). Like MM2, it only matters
    /// when the separator is set.
    pub internal_topic_separator_enabled: bool,
    /// `task.assigned.groups`: the groups this task checkpoints, or `None` when not assigned.
    pub assigned_groups: Option<Vec<String>>,
    /// `task.index`: this task's number among its connector's tasks.
    pub task_index: Option<u32>,
    /// `task.count` (our extension): how many processes split the groups; requires `task.index`.
    pub task_count: Option<u32>,
    /// `task.assignment` (our extension, default `static`): `group` lets Kafka's group
    /// coordinator split the groups over the live processes (docs/SCALE_OUT.md).
    pub task_assignment: TaskAssignment,
    /// `offset.lag.max` (default 100): how stale an offset sync may get before a new one is
    /// written (source side).
    pub offset_lag_max: i64,
    /// `group.offsets.source` (our extension, default `poll`): where committed group offsets
    /// come from.
    pub group_offsets_source: GroupOffsetsSource,
    /// `statistics.interval.ms` (our extension, default 0 = off, at most 86400000 as in
    /// librdkafka): period of the metrics listener (C: the statistics callback). `None` when off.
    pub statistics_interval: Option<Duration>,
    /// Client settings, by layer.
    pub clients: ClientSettings,
}

/// Where the task learns the source groups' committed offsets (`group.offsets.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupOffsetsSource {
    /// `poll`: ask the source for every group's committed offsets once per checkpoint interval,
    /// as MM2 does.
    #[default]
    Poll,
    /// `consumer-offsets-topic`: read the source's `__consumer_offsets` topic as a stream and
    /// translate each commit as it arrives.
    ConsumerOffsetsTopic,
}

impl GroupOffsetsSource {
    /// The value as written in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            GroupOffsetsSource::Poll => "poll",
            GroupOffsetsSource::ConsumerOffsetsTopic => "consumer-offsets-topic",
        }
    }
}

/// Refuses a NUL character in a key or value: C and librdkafka would cut the text there.
/// Also refuses an empty key, which names nothing (its error has an empty key).
fn check_text(key: &str, value: &str) -> Result<(), ConfigError> {
    if key.is_empty() {
        return Err(ConfigError::new("", "the key is empty"));
    }
    if key.contains('\0') {
        return Err(ConfigError::new(
            key.escape_debug().to_string(),
            "the key contains a NUL character",
        ));
    }
    if value.contains('\0') {
        return Err(ConfigError::new(
            key,
            "the value contains a NUL character, which no Kafka client setting or cluster alias may hold",
        ));
    }
    Ok(())
}

/// What `clusters` alone must satisfy: at least one alias. Which flow runs needs the other keys.
fn check_clusters(value: &str) -> Result<(), ConfigError> {
    if cluster_aliases(value).is_empty() {
        return Err(ConfigError::new(
            keys::CLUSTERS,
            "lists no cluster aliases; dedicated mode needs e.g. `clusters = A, B`",
        ));
    }
    Ok(())
}

/// A value with the key the user wrote for it.
#[derive(Debug, Clone)]
struct Setting {
    value: String,
    written: String,
}

impl Setting {
    fn new(value: &str, written: &str) -> Self {
        Setting {
            value: value.to_string(),
            written: written.to_string(),
        }
    }
}

/// Connector-style keys mapped to their values and the keys they came from.
type Flat = BTreeMap<String, Setting>;

/// Which input shape was given; decides how errors name cluster keys.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Connector,
    Dedicated,
}

impl MirrorCheckpointConfig {
    /// Parses MM2 properties (connector style, or dedicated mode when `clusters` is set).
    /// Keys are trimmed; a repeated key keeps its last value. Returns the config and the
    /// warnings about keys that are unknown, removed or ignored where they were written.
    ///
    /// This is the one place that gives properties their meaning: the C API (`mm_task_new`,
    /// `mm_conf_describe`) and so the Java bindings call it on the text they were given.
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(MirrorCheckpointConfig, Vec<ConfigWarning>), ConfigError> {
        let mut raw = BTreeMap::new();
        for (key, value) in props {
            check_text(key.trim(), value)?;
            raw.insert(key.trim().to_string(), value.to_string());
        }
        let mut warnings = Vec::new();
        let (flat, shape) = if raw.contains_key(keys::CLUSTERS) {
            (flatten_dedicated(&raw, &mut warnings)?, Shape::Dedicated)
        } else {
            let flat = raw
                .iter()
                .map(|(k, v)| (k.clone(), Setting::new(v, k)))
                .collect();
            (flat, Shape::Connector)
        };
        for (key, setting) in &flat {
            if let Some(message) = flat_key_warning(key, &shape) {
                warnings.push(ConfigWarning::new(&setting.written, message));
            }
        }
        let config = Reader { flat: &flat }.read(&shape, &mut warnings)?;
        Ok((config, warnings))
    }

    /// Parses the text of an `mm2.properties` file (Java `.properties` syntax) into the keys and
    /// values to use: a key given twice keeps its last value, as in `java.util.Properties`, and
    /// every kept value passes [`check_setting`](Self::check_setting). Returns them with a
    /// warning per repeated key. The C API's `mm_conf_load_properties` is this function.
    pub fn properties_from_text(
        text: &str,
    ) -> Result<(BTreeMap<String, String>, Vec<ConfigWarning>), ConfigError> {
        let mut last = BTreeMap::new();
        let mut warnings = Vec::new();
        for (key, value) in parse_properties(text)? {
            let key = key.trim().to_string();
            if last.insert(key.clone(), value).is_some()
                && !warnings.iter().any(|w: &ConfigWarning| w.key == key)
            {
                warnings.push(ConfigWarning::new(
                    &key,
                    "given more than once; the last value wins",
                ));
            }
        }
        for (key, value) in &last {
            Self::check_setting(key, value)?;
        }
        Ok((last, warnings))
    }

    /// [`properties_from_text`](Self::properties_from_text) then
    /// [`from_properties`](Self::from_properties): an `mm2.properties` file's text to a config.
    pub fn from_properties_text(
        text: &str,
    ) -> Result<(MirrorCheckpointConfig, Vec<ConfigWarning>), ConfigError> {
        let (props, mut warnings) = Self::properties_from_text(text)?;
        let (config, more) =
            Self::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        warnings.extend(more);
        Ok((config, warnings))
    }

    /// Every flow of an `mm2.properties` text: in dedicated mode (`clusters`) without
    /// `source.cluster.alias` and `target.cluster.alias`, one configuration per enabled
    /// `A->B`, in the order of `clusters`, each with the flow's overrides and its warnings;
    /// otherwise the one flow [`from_properties_text`](Self::from_properties_text) reads. An
    /// error of one flow names it in its reason.
    pub fn flows_from_properties_text(
        text: &str,
    ) -> Result<Vec<(MirrorCheckpointConfig, Vec<ConfigWarning>)>, ConfigError> {
        let (props, warnings) = Self::properties_from_text(text)?;
        let chosen = props.contains_key(keys::SOURCE_CLUSTER_ALIAS)
            || props.contains_key(keys::TARGET_CLUSTER_ALIAS);
        let flows: Vec<(String, String)> = match props.get(keys::CLUSTERS) {
            Some(clusters) if !chosen => {
                let aliases = cluster_aliases(clusters);
                aliases
                    .iter()
                    .flat_map(|s| aliases.iter().map(move |t| (s.clone(), t.clone())))
                    .filter(|(s, t)| s != t && flow_enabled(&props, s, t))
                    .collect()
            }
            _ => Vec::new(),
        };
        if flows.len() < 2 {
            return Self::from_properties_text(text).map(|parsed| vec![parsed]);
        }
        flows
            .into_iter()
            .map(|(source, target)| {
                let mut flow = props.clone();
                flow.insert(keys::SOURCE_CLUSTER_ALIAS.to_string(), source.clone());
                flow.insert(keys::TARGET_CLUSTER_ALIAS.to_string(), target.clone());
                let (config, more) =
                    Self::from_properties(flow.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                        .map_err(|e| {
                            ConfigError::new(
                                &e.key,
                                format!("(flow {source}->{target}) {}", e.reason),
                            )
                        })?;
                let mut all = warnings.clone();
                all.extend(more);
                Ok((config, all))
            })
            .collect()
    }

    /// Checks one key and value as far as that is possible without the other keys: a value
    /// [`from_properties`](Self::from_properties) would reject *for that key* is rejected now.
    /// Errors that need other keys (a missing alias, which flow is enabled, cross-setting rules)
    /// wait for the whole, so no order of setting keys can make a valid whole fail.
    ///
    /// Cheap for the many keys that cannot fail alone (client settings, unknown keys: warnings
    /// at most), so that loading a large properties text costs little per key.
    pub fn check_setting(key: &str, value: &str) -> Result<(), ConfigError> {
        let key = key.trim();
        check_text(key, value)?;
        if key == keys::CLUSTERS {
            return check_clusters(value);
        }
        if !keys::is_checkpoint_key(key) {
            return Ok(());
        }
        // A baseline every other check passes (`enabled = false` skips the cross-setting ones,
        // as in MM2), so an error naming `key` can only come from `key` itself.
        let props = [
            (keys::SOURCE_CLUSTER_ALIAS, "source"),
            (keys::ENABLED, "false"),
            (key, value),
        ];
        match Self::from_properties(props) {
            Err(e) if e.key == key => Err(e),
            _ => Ok(()),
        }
    }

    /// One canonical text of the resolved configuration, secret values shown as `[hidden]`, one
    /// `key = value` line each: every setting of the task under its MM2 key (sorted; defaults
    /// included; a disabled interval as `-1`, an unset list as empty), then one
    /// `<client>: key = value` line per final librdkafka setting of every client the task
    /// makes. The format is stable (docs/VERSIONING.md): lines may be added, never renamed.
    /// The same properties give the same text whichever API loaded them (the Rust API, C's
    /// `mm_conf_describe`, Java's `describe`).
    pub fn describe(&self) -> String {
        // Every field, by name: a field added to the struct must be added here too.
        let MirrorCheckpointConfig {
            source_cluster_alias,
            target_cluster_alias,
            enabled,
            emit_checkpoints_enabled,
            emit_checkpoints_interval,
            sync_group_offsets_enabled,
            sync_group_offsets_interval,
            refresh_groups_enabled,
            refresh_groups_interval,
            group_filter,
            topic_filter,
            offset_syncs_topic_location,
            emit_offset_syncs_enabled,
            emit_reverse_checkpoints_enabled,
            reverse_offset_syncs_topic_location,
            checkpoints_topic_replication_factor,
            offset_syncs_topic_replication_factor,
            consumer_poll_timeout,
            admin_timeout,
            replication_policy_class,
            replication_policy_separator,
            internal_topic_separator_enabled,
            assigned_groups,
            task_index,
            task_count,
            task_assignment,
            offset_lag_max,
            group_offsets_source,
            statistics_interval,
            clients: _,
        } = self;
        let seconds =
            |d: &Option<Duration>| d.map_or_else(|| "-1".to_string(), |d| d.as_secs().to_string());
        let millis = |d: &Duration| d.as_millis().to_string();
        let (groups, groups_exclude) = group_filter.written();
        let (topics, topics_exclude) = topic_filter.written();
        let cluster = |c: &Cluster| match c {
            Cluster::Source => "source",
            Cluster::Target => "target",
        };
        let mut typed: Vec<(&str, String)> = vec![
            ("source.cluster.alias", source_cluster_alias.clone()),
            ("target.cluster.alias", target_cluster_alias.clone()),
            ("enabled", enabled.to_string()),
            (
                "emit.checkpoints.enabled",
                emit_checkpoints_enabled.to_string(),
            ),
            (
                "emit.checkpoints.interval.seconds",
                seconds(emit_checkpoints_interval),
            ),
            (
                "sync.group.offsets.enabled",
                sync_group_offsets_enabled.to_string(),
            ),
            (
                "sync.group.offsets.interval.seconds",
                seconds(sync_group_offsets_interval),
            ),
            ("refresh.groups.enabled", refresh_groups_enabled.to_string()),
            (
                "refresh.groups.interval.seconds",
                seconds(refresh_groups_interval),
            ),
            ("groups", groups.to_string()),
            ("groups.exclude", groups_exclude.to_string()),
            ("topics", topics.to_string()),
            ("topics.exclude", topics_exclude.to_string()),
            (
                "offset-syncs.topic.location",
                cluster(offset_syncs_topic_location).to_string(),
            ),
            (
                "emit.offset-syncs.enabled",
                emit_offset_syncs_enabled.to_string(),
            ),
            (
                "emit.reverse.checkpoints.enabled",
                emit_reverse_checkpoints_enabled.to_string(),
            ),
            (
                "reverse.offset-syncs.topic.location",
                cluster(reverse_offset_syncs_topic_location).to_string(),
            ),
            (
                "checkpoints.topic.replication.factor",
                checkpoints_topic_replication_factor.to_string(),
            ),
            (
                "offset-syncs.topic.replication.factor",
                offset_syncs_topic_replication_factor.to_string(),
            ),
            ("consumer.poll.timeout.ms", millis(consumer_poll_timeout)),
            ("admin.timeout.ms", millis(admin_timeout)),
            ("replication.policy.class", replication_policy_class.clone()),
            (
                "replication.policy.separator",
                replication_policy_separator
                    .clone()
                    .unwrap_or_else(|| ".".to_string()),
            ),
            (
                "replication.policy.internal.topic.separator.enabled",
                internal_topic_separator_enabled.to_string(),
            ),
            (
                "task.assigned.groups",
                assigned_groups
                    .as_ref()
                    .map_or_else(String::new, |g| g.join(",")),
            ),
            (
                "task.index",
                task_index.map_or_else(String::new, |i| i.to_string()),
            ),
            (
                "task.count",
                task_count.map_or_else(String::new, |i| i.to_string()),
            ),
            ("offset.lag.max", offset_lag_max.to_string()),
            (
                "group.offsets.source",
                group_offsets_source.name().to_string(),
            ),
            (
                "statistics.interval.ms",
                statistics_interval.map_or_else(|| "0".to_string(), |d| d.as_millis().to_string()),
            ),
            ("checkpoints.topic", self.checkpoints_topic()),
            ("offset-syncs.topic", self.offset_syncs_topic()),
            (
                "reverse.offset-syncs.topic",
                self.reverse_offset_syncs_topic(),
            ),
        ];
        match task_assignment {
            TaskAssignment::Static => typed.push(("task.assignment", "static".to_string())),
            TaskAssignment::Group(group) => {
                typed.push(("task.assignment", "group".to_string()));
                typed.push(("task.coordination.group.id", group.group_id.clone()));
                typed.push(("task.coordination.topic", group.topic.clone()));
                typed.push(("task.coordination.partitions", group.partitions.to_string()));
            }
        }
        typed.sort();
        let mut out = String::new();
        for (key, value) in typed {
            out.push_str(&format!("{key} = {}\n", shown_value(key, &value)));
        }
        let clients = [
            ("source-admin", self.source_admin_config()),
            ("source-consumer", self.source_consumer_config()),
            ("target-admin", self.target_admin_config()),
            ("target-producer", self.target_producer_config()),
            ("checkpoints-consumer", self.checkpoints_consumer_config()),
            ("offset-syncs-consumer", self.offset_syncs_consumer_config()),
            ("offset-syncs-admin", self.offset_syncs_admin_config()),
            ("coordination-consumer", self.coordination_consumer_config()),
            (
                "consumer-offsets-consumer",
                self.consumer_offsets_consumer_config(),
            ),
        ];
        for (client, settings) in clients {
            for (key, value) in &settings {
                out.push_str(&format!("{client}: {key} = {}\n", shown_value(key, value)));
            }
        }
        out
    }

    /// `<source>-><target>|mm2-checkpoint[-<task.index>]`, MM2's entity label for this task.
    pub fn entity_label(&self) -> String {
        let task = self.task_index.map(|i| format!("-{i}")).unwrap_or_default();
        format!(
            "{}->{}|{CONNECTOR_NAME}{task}",
            self.source_cluster_alias, self.target_cluster_alias
        )
    }

    /// The separator the default policy uses for internal topic names. MM2 reads the internal
    /// flag only when the separator key is present, so an absent separator always means `.`.
    fn internal_separator(&self) -> &str {
        match &self.replication_policy_separator {
            Some(sep) if self.internal_topic_separator_enabled => sep,
            _ => ".",
        }
    }

    /// The checkpoints topic on the target: `<source>{S}checkpoints{S}internal`. The identity
    /// policy inherits this name from the default policy.
    pub fn checkpoints_topic(&self) -> String {
        let s = self.internal_separator();
        format!("{}{s}checkpoints{s}internal", self.source_cluster_alias)
    }

    /// The offset-syncs topic: `mm2-offset-syncs{S}<other>{S}internal`, where `<other>` is the
    /// target alias when the topic lives on the source cluster and the source alias otherwise.
    pub fn offset_syncs_topic(&self) -> String {
        let s = self.internal_separator();
        let other = match self.offset_syncs_topic_location {
            Cluster::Source => &self.target_cluster_alias,
            Cluster::Target => &self.source_cluster_alias,
        };
        format!("mm2-offset-syncs{s}{other}{s}internal")
    }

    /// The reverse flow's offset-syncs topic, as that flow (target -> source) names it:
    /// `mm2-offset-syncs{S}<this source>{S}internal` when it lives on its source (this flow's
    /// target), `mm2-offset-syncs{S}<this target>{S}internal` when on its target.
    pub fn reverse_offset_syncs_topic(&self) -> String {
        let s = self.internal_separator();
        let other = match self.reverse_offset_syncs_topic_location {
            Cluster::Source => &self.source_cluster_alias,
            Cluster::Target => &self.target_cluster_alias,
        };
        format!("mm2-offset-syncs{s}{other}{s}internal")
    }

    /// The cluster of this flow that holds the reverse flow's offset syncs.
    pub fn reverse_offset_syncs_cluster(&self) -> Cluster {
        match self.reverse_offset_syncs_topic_location {
            Cluster::Source => Cluster::Target,
            Cluster::Target => Cluster::Source,
        }
    }

    /// Consumer of the reverse flow's offset-syncs topic, for reverse checkpoints (role
    /// `reverse-offset-syncs-source-consumer` or `…-target-consumer`, by this flow's cluster).
    pub fn reverse_offset_syncs_consumer_config(&self) -> BTreeMap<String, String> {
        let cluster = self.reverse_offset_syncs_cluster();
        let role = format!("reverse-offset-syncs-{}-consumer", cluster.name());
        self.reader_config(cluster, &role)
    }

    /// Default of `task.coordination.group.id`: `mm2-checkpoint-<source>-<target>`.
    pub fn default_coordination_group_id(&self) -> String {
        format!(
            "{CONNECTOR_NAME}-{}-{}",
            self.source_cluster_alias, self.target_cluster_alias
        )
    }

    /// Default of `task.coordination.topic`, on the target beside the checkpoints topic:
    /// `mm2-checkpoint-coordination{S}<source>{S}internal`.
    pub fn default_coordination_topic(&self) -> String {
        let s = self.internal_separator();
        format!(
            "{CONNECTOR_NAME}-coordination{s}{}{s}internal",
            self.source_cluster_alias
        )
    }

    /// Consumer of the coordination group on the target (role `coordination-target-consumer`);
    /// `session.timeout.ms` and `heartbeat.interval.ms` come from the `consumer.*` /
    /// `target.consumer.*` settings like any other consumer setting.
    pub fn coordination_consumer_config(&self) -> BTreeMap<String, String> {
        self.client_config(
            Cluster::Target,
            ClientKind::Consumer,
            "coordination-target-consumer",
        )
    }

    /// The properties the replication policy's `configure(class, props)` reads: the separator
    /// (as written) and, when it is present, the internal-separator flag as MM2's policy read it,
    /// plus `source.cluster.alias` (the identity policy's `topicSource`).
    pub fn policy_properties(&self) -> BTreeMap<String, String> {
        let mut props = BTreeMap::new();
        props.insert(
            keys::SOURCE_CLUSTER_ALIAS.to_string(),
            self.source_cluster_alias.clone(),
        );
        if let Some(sep) = &self.replication_policy_separator {
            props.insert(keys::REPLICATION_POLICY_SEPARATOR.to_string(), sep.clone());
            props.insert(
                keys::INTERNAL_TOPIC_SEPARATOR_ENABLED.to_string(),
                self.internal_topic_separator_enabled.to_string(),
            );
        }
        props
    }

    /// Builds a librdkafka config for one client: `<side>.cluster.*`, then `<kind>.*`, then
    /// `<side>.<kind>.*` (later wins). Consumers always get `enable.auto.commit=false` and, unless
    /// set, `auto.offset.reset=earliest`. `client.id` becomes
    /// `[<user client.id>|]<source>-><target>|mm2-checkpoint[-<task.index>]|<role>`. Admin
    /// connections and producers get their [`CLIENT_DEFAULTS`].
    pub fn client_config(
        &self,
        cluster: Cluster,
        kind: ClientKind,
        role: &str,
    ) -> BTreeMap<String, String> {
        let mut props = self.clients.cluster(cluster).clone();
        props.extend(self.clients.global(kind).clone());
        props.extend(self.clients.specific(cluster, kind).clone());
        if kind == ClientKind::Consumer {
            // MM2 tracks positions itself; a committing consumer would also show up as a group.
            props.insert("enable.auto.commit".to_string(), "false".to_string());
            props
                .entry("auto.offset.reset".to_string())
                .or_insert_with(|| "earliest".to_string());
        }
        let label = format!("{}|{role}", self.entity_label());
        let client_id = match props.get(keys::CLIENT_ID) {
            Some(user) => format!("{user}|{label}"),
            None => label,
        };
        props.insert(keys::CLIENT_ID.to_string(), client_id);
        match kind {
            ClientKind::Admin => apply_client_defaults(ClientUse::Admin, role, &mut props),
            ClientKind::Producer => apply_client_defaults(ClientUse::Producer, role, &mut props),
            ClientKind::Consumer => {}
        }
        props
    }

    /// [`client_config`](Self::client_config) for a consumer that reads an internal topic to its
    /// end, with the readers' [`CLIENT_DEFAULTS`].
    fn reader_config(&self, cluster: Cluster, role: &str) -> BTreeMap<String, String> {
        let mut props = self.client_config(cluster, ClientKind::Consumer, role);
        apply_client_defaults(ClientUse::Reader, role, &mut props);
        props
    }

    /// Admin on the source cluster (role `checkpoint-source-admin`): lists group offsets.
    pub fn source_admin_config(&self) -> BTreeMap<String, String> {
        self.client_config(
            Cluster::Source,
            ClientKind::Admin,
            "checkpoint-source-admin",
        )
    }

    /// Admin on the target cluster (role `checkpoint-target-admin`): group sync and topic creation.
    pub fn target_admin_config(&self) -> BTreeMap<String, String> {
        self.client_config(
            Cluster::Target,
            ClientKind::Admin,
            "checkpoint-target-admin",
        )
    }

    /// Producer of checkpoint records on the target (role `checkpoint-target-producer`; ours, as
    /// MM2 lets the Connect worker produce).
    pub fn target_producer_config(&self) -> BTreeMap<String, String> {
        self.client_config(
            Cluster::Target,
            ClientKind::Producer,
            "checkpoint-target-producer",
        )
    }

    /// Consumer of the offset-syncs topic, on the cluster named by `offset-syncs.topic.location`
    /// (role `offset-syncs-source-consumer` or `offset-syncs-target-consumer`).
    pub fn offset_syncs_consumer_config(&self) -> BTreeMap<String, String> {
        let cluster = self.offset_syncs_topic_location;
        let role = format!("offset-syncs-{}-consumer", cluster.name());
        self.reader_config(cluster, &role)
    }

    /// Admin for the offset-syncs topic, on the cluster named by `offset-syncs.topic.location`
    /// (role `offset-syncs-source-admin` or `offset-syncs-target-admin`).
    pub fn offset_syncs_admin_config(&self) -> BTreeMap<String, String> {
        let cluster = self.offset_syncs_topic_location;
        let role = format!("offset-syncs-{}-admin", cluster.name());
        self.client_config(cluster, ClientKind::Admin, &role)
    }

    /// Consumer of the checkpoints topic on the target (role `checkpoints-target-consumer`).
    pub fn checkpoints_consumer_config(&self) -> BTreeMap<String, String> {
        self.reader_config(Cluster::Target, "checkpoints-target-consumer")
    }

    /// The consumer of the source's `__consumer_offsets` topic when `group.offsets.source =
    /// consumer-offsets-topic` (role `consumer-offsets-source-consumer`; ours). It reads only
    /// committed transactions, so an aborted transactional offset commit never counts.
    pub fn consumer_offsets_consumer_config(&self) -> BTreeMap<String, String> {
        let mut props = self.reader_config(Cluster::Source, "consumer-offsets-source-consumer");
        props.insert("isolation.level".to_string(), "read_committed".to_string());
        props
    }

    /// A consumer on the source cluster (role `checkpoint-source-consumer`; ours, MM2's
    /// checkpoint task has no such client).
    pub fn source_consumer_config(&self) -> BTreeMap<String, String> {
        self.reader_config(Cluster::Source, "checkpoint-source-consumer")
    }
}

#[cfg(test)]
mod tests;
