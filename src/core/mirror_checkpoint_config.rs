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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use crate::core::error::ConfigError;
use crate::core::filters::{
    split_list, GroupFilter, TopicFilter, DEFAULT_GROUPS, DEFAULT_GROUPS_EXCLUDE, DEFAULT_TOPICS,
    DEFAULT_TOPICS_EXCLUDE,
};
pub use crate::core::properties::parse_properties;

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

/// Property names, as MM2 spells them.
mod keys {
    pub const CLUSTERS: &str = "clusters";
    pub const ENABLED: &str = "enabled";
    pub const SOURCE_CLUSTER_ALIAS: &str = "source.cluster.alias";
    pub const TARGET_CLUSTER_ALIAS: &str = "target.cluster.alias";
    pub const EMIT_CHECKPOINTS_ENABLED: &str = "emit.checkpoints.enabled";
    pub const EMIT_CHECKPOINTS_INTERVAL: &str = "emit.checkpoints.interval.seconds";
    pub const SYNC_GROUP_OFFSETS_ENABLED: &str = "sync.group.offsets.enabled";
    pub const SYNC_GROUP_OFFSETS_INTERVAL: &str = "sync.group.offsets.interval.seconds";
    pub const REFRESH_GROUPS_ENABLED: &str = "refresh.groups.enabled";
    pub const REFRESH_GROUPS_INTERVAL: &str = "refresh.groups.interval.seconds";
    pub const GROUPS: &str = "groups";
    pub const GROUPS_EXCLUDE: &str = "groups.exclude";
    pub const GROUP_FILTER_CLASS: &str = "group.filter.class";
    pub const TOPICS: &str = "topics";
    pub const TOPICS_EXCLUDE: &str = "topics.exclude";
    pub const TOPIC_FILTER_CLASS: &str = "topic.filter.class";
    pub const OFFSET_SYNCS_TOPIC_LOCATION: &str = "offset-syncs.topic.location";
    pub const EMIT_OFFSET_SYNCS_ENABLED: &str = "emit.offset-syncs.enabled";
    pub const CHECKPOINTS_TOPIC_REPLICATION_FACTOR: &str = "checkpoints.topic.replication.factor";
    pub const OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR: &str = "offset-syncs.topic.replication.factor";
    pub const CONSUMER_POLL_TIMEOUT_MS: &str = "consumer.poll.timeout.ms";
    pub const ADMIN_TIMEOUT_MS: &str = "admin.timeout.ms";
    pub const REPLICATION_POLICY_CLASS: &str = "replication.policy.class";
    pub const REPLICATION_POLICY_SEPARATOR: &str = "replication.policy.separator";
    pub const INTERNAL_TOPIC_SEPARATOR_ENABLED: &str =
        "replication.policy.internal.topic.separator.enabled";
    pub const FORWARDING_ADMIN_CLASS: &str = "forwarding.admin.class";
    pub const TASK_ASSIGNED_GROUPS: &str = "task.assigned.groups";
    pub const TASK_INDEX: &str = "task.index";
    pub const TASK_COUNT: &str = "task.count";
    pub const OFFSET_LAG_MAX: &str = "offset.lag.max";
    pub const BOOTSTRAP_SERVERS: &str = "bootstrap.servers";
    pub const CLIENT_ID: &str = "client.id";
}

/// Flow keys this crate reads.
const CHECKPOINT_KEYS: &[&str] = &[
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
    keys::OFFSET_LAG_MAX,
];

/// Keys of the other MM2 connectors and of Connect's connector config. A shared `mm2.properties`
/// is full of them, so they are accepted without a warning even though checkpointing ignores them.
const OTHER_MM2_KEYS: &[&str] = &[
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
const OTHER_MM2_PREFIXES: &[&str] = &[
    "transforms.",
    "predicates.",
    "topic.creation.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
];

/// Aliases MM2 removed in Kafka 4.0 (KAFKA-17529); Java now ignores them, and so do we.
const REMOVED_KEYS: &[(&str, &str)] = &[
    ("topics.blacklist", keys::TOPICS_EXCLUDE),
    ("groups.blacklist", keys::GROUPS_EXCLUDE),
    ("config.properties.blacklist", "config.properties.exclude"),
];

/// Top-level prefixes that dedicated mode hands to the Connect worker or the MM2 driver itself
/// (`MirrorMakerConfig.workerConfig` matches them with a plain `startsWith`).
const DEDICATED_DRIVER_PREFIXES: &[&str] = &[
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

fn is_checkpoint_key(key: &str) -> bool {
    CHECKPOINT_KEYS.contains(&key)
}

fn removed_key_replacement(key: &str) -> Option<&'static str> {
    REMOVED_KEYS
        .iter()
        .find(|(old, _)| *old == key)
        .map(|(_, new)| *new)
}

/// Any key MM2's connectors define: a flow setting, never a client setting.
fn is_mm2_key(key: &str) -> bool {
    is_checkpoint_key(key)
        || OTHER_MM2_KEYS.contains(&key)
        || OTHER_MM2_PREFIXES.iter().any(|p| key.starts_with(p))
        || removed_key_replacement(key).is_some()
}

/// The keys MM2 keeps from a cluster's settings (`MirrorClientConfig.CLIENT_CONFIG_DEF`). Java
/// lists its own SSL/SASL names; librdkafka spells some differently, so any `ssl.`/`sasl.` key
/// counts.
fn is_connection_key(key: &str) -> bool {
    key == keys::BOOTSTRAP_SERVERS
        || key == "security.protocol"
        || key.starts_with("ssl.")
        || key.starts_with("sasl.")
}

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

/// One of the flow's two clusters; also the value of `offset-syncs.topic.location`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cluster {
    /// The cluster named by `source.cluster.alias`.
    Source,
    /// The cluster named by `target.cluster.alias`.
    Target,
}

/// Where the offset-syncs topic lives (`offset-syncs.topic.location`).
pub type OffsetSyncsTopicLocation = Cluster;

impl Cluster {
    /// MM2's lower-case name of the side (`source`/`target`), also its key prefix.
    pub fn name(self) -> &'static str {
        match self {
            Cluster::Source => "source",
            Cluster::Target => "target",
        }
    }
}

/// The three kinds of Kafka client MM2 configures separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// Settings under `consumer.*`.
    Consumer,
    /// Settings under `producer.*`.
    Producer,
    /// Settings under `admin.*`.
    Admin,
}

impl ClientKind {
    /// MM2's key prefix word for this kind (`consumer`, `producer`, `admin`).
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Consumer => "consumer",
            ClientKind::Producer => "producer",
            ClientKind::Admin => "admin",
        }
    }
}

/// The client-setting layers of a flow, each with its prefix stripped and values trimmed (Java
/// clients trim every value they parse). [`MirrorCheckpointConfig::client_config`] merges them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientSettings {
    /// `source.cluster.*` and `target.cluster.*`: connection settings and any other librdkafka
    /// setting written under a cluster prefix (MM2 flow keys excluded).
    clusters: [BTreeMap<String, String>; 2],
    /// `consumer.*`, `producer.*`, `admin.*`, for clients of both clusters.
    global: [BTreeMap<String, String>; 3],
    /// `source.consumer.*` … `target.admin.*`.
    specific: [[BTreeMap<String, String>; 3]; 2],
}

fn cluster_index(cluster: Cluster) -> usize {
    match cluster {
        Cluster::Source => 0,
        Cluster::Target => 1,
    }
}

fn kind_index(kind: ClientKind) -> usize {
    match kind {
        ClientKind::Consumer => 0,
        ClientKind::Producer => 1,
        ClientKind::Admin => 2,
    }
}

impl ClientSettings {
    /// The `<side>.cluster.*` layer.
    pub fn cluster(&self, cluster: Cluster) -> &BTreeMap<String, String> {
        &self.clusters[cluster_index(cluster)]
    }

    /// The `<kind>.*` layer shared by both clusters.
    pub fn global(&self, kind: ClientKind) -> &BTreeMap<String, String> {
        &self.global[kind_index(kind)]
    }

    /// The `<side>.<kind>.*` layer.
    pub fn specific(&self, cluster: Cluster, kind: ClientKind) -> &BTreeMap<String, String> {
        &self.specific[cluster_index(cluster)][kind_index(kind)]
    }

    /// Sorts one flat key into its layer, if it is a client setting.
    fn insert(&mut self, key: &str, value: &str) {
        // These flow keys start with a client prefix but would be nonsense to a client.
        if is_checkpoint_key(key) {
            return;
        }
        let Some((layer, setting)) = client_layer(key) else {
            return;
        };
        let map = match layer {
            // A flow key under a cluster prefix would make librdkafka refuse the whole config.
            Layer::Cluster(_) if is_mm2_key(setting) => return,
            Layer::Cluster(c) => &mut self.clusters[cluster_index(c)],
            Layer::Global(k) => &mut self.global[kind_index(k)],
            Layer::Specific(c, k) => &mut self.specific[cluster_index(c)][kind_index(k)],
        };
        map.insert(setting.to_string(), value.trim().to_string());
    }
}

const CLIENT_KINDS: [ClientKind; 3] = [
    ClientKind::Consumer,
    ClientKind::Producer,
    ClientKind::Admin,
];

/// Which client-settings layer a connector-style key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    /// `source.cluster.*` / `target.cluster.*`.
    Cluster(Cluster),
    /// `consumer.*`, `producer.*`, `admin.*`.
    Global(ClientKind),
    /// `source.consumer.*` … `target.admin.*`.
    Specific(Cluster, ClientKind),
}

/// Strips `word.` from the front of `key`, refusing an empty remainder.
fn strip_word<'k>(key: &'k str, word: &str) -> Option<&'k str> {
    key.strip_prefix(word)
        .and_then(|rest| rest.strip_prefix('.'))
        .filter(|rest| !rest.is_empty())
}

/// The client layer of a connector-style key and the client setting it carries.
fn client_layer(key: &str) -> Option<(Layer, &str)> {
    for cluster in [Cluster::Source, Cluster::Target] {
        if let Some(rest) = strip_word(key, cluster.name()) {
            if let Some(setting) = strip_word(rest, "cluster") {
                return Some((Layer::Cluster(cluster), setting));
            }
            for kind in CLIENT_KINDS {
                if let Some(setting) = strip_word(rest, kind.name()) {
                    return Some((Layer::Specific(cluster, kind), setting));
                }
            }
        }
    }
    CLIENT_KINDS
        .into_iter()
        .find_map(|kind| strip_word(key, kind.name()).map(|setting| (Layer::Global(kind), setting)))
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
    pub offset_syncs_topic_location: OffsetSyncsTopicLocation,
    /// `emit.offset-syncs.enabled` (default `true`); `false` is rejected while enabled.
    pub emit_offset_syncs_enabled: bool,
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
    /// `offset.lag.max` (default 100): how stale an offset sync may get before a new one is
    /// written (source side).
    pub offset_lag_max: i64,
    /// Client settings, by layer.
    pub clients: ClientSettings,
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
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(MirrorCheckpointConfig, Vec<ConfigWarning>), ConfigError> {
        let mut raw = BTreeMap::new();
        for (key, value) in props {
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
    /// `[<user client.id>|]<source>-><target>|mm2-checkpoint[-<task.index>]|<role>`.
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
        self.client_config(cluster, ClientKind::Consumer, &role)
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
        self.client_config(
            Cluster::Target,
            ClientKind::Consumer,
            "checkpoints-target-consumer",
        )
    }

    /// A consumer on the source cluster (role `checkpoint-source-consumer`; ours, MM2's
    /// checkpoint task has no such client).
    pub fn source_consumer_config(&self) -> BTreeMap<String, String> {
        self.client_config(
            Cluster::Source,
            ClientKind::Consumer,
            "checkpoint-source-consumer",
        )
    }
}

/// The warning for a connector-style key, if it deserves one.
fn flat_key_warning(key: &str, shape: &Shape) -> Option<String> {
    if is_checkpoint_key(key) || OTHER_MM2_KEYS.contains(&key) {
        return None;
    }
    if let Some(new) = removed_key_replacement(key) {
        return Some(format!(
            "removed from MM2 in Kafka 4.0 and ignored; use `{new}`"
        ));
    }
    if OTHER_MM2_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return None;
    }
    match client_layer(key) {
        Some((Layer::Cluster(_), setting)) if is_mm2_key(setting) => {
            return Some(format!(
                "`{setting}` is an MM2 flow setting, not a client setting; it is ignored under a cluster prefix"
            ));
        }
        Some(_) => return None,
        None => {}
    }
    if is_connection_key(key) {
        return Some(match shape {
            Shape::Connector => format!(
                "not applied to any client: MM2 reads connection settings per cluster, as `source.cluster.{key}` and `target.cluster.{key}`"
            ),
            Shape::Dedicated => format!(
                "not applied to any client: MM2 reads connection settings per cluster (`<alias>.{key}`) or at the top level"
            ),
        });
    }
    Some("unknown key, ignored".to_string())
}

/// Parses MM2's `clusters` list: Connect LIST rules, duplicates dropped, order kept.
fn cluster_aliases(value: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    split_list(value)
        .into_iter()
        .filter(|alias| !alias.is_empty() && seen.insert(alias.clone()))
        .collect()
}

/// Whether `A->B` runs checkpointing: `A->B.enabled`, else `enabled`, else false (dedicated
/// mode's default).
fn flow_enabled(raw: &BTreeMap<String, String>, source: &str, target: &str) -> bool {
    raw.get(&format!("{source}->{target}.{}", keys::ENABLED))
        .or_else(|| raw.get(keys::ENABLED))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Picks the one flow this task runs from a dedicated-mode configuration.
fn choose_flow(
    raw: &BTreeMap<String, String>,
    clusters: &[String],
) -> Result<(String, String), ConfigError> {
    let listed = clusters.join(", ");
    let mut given = [None, None];
    for (slot, key) in given
        .iter_mut()
        .zip([keys::SOURCE_CLUSTER_ALIAS, keys::TARGET_CLUSTER_ALIAS])
    {
        if let Some(alias) = raw.get(key).map(|v| v.trim().to_string()) {
            if !clusters.contains(&alias) {
                return Err(ConfigError::new(
                    key,
                    format!("`{alias}` is not one of the clusters listed in `clusters` ({listed})"),
                ));
            }
            *slot = Some(alias);
        }
    }
    let [given_source, given_target] = given;
    if let (Some(source), Some(target)) = (&given_source, &given_target) {
        if source == target {
            return Err(ConfigError::new(
                keys::TARGET_CLUSTER_ALIAS,
                format!(
                    "`{target}` is also the source cluster; a flow needs two different clusters"
                ),
            ));
        }
        return Ok((source.clone(), target.clone()));
    }
    let mut candidates = Vec::new();
    for source in clusters {
        for target in clusters {
            if source == target
                || given_source.as_ref().is_some_and(|s| s != source)
                || given_target.as_ref().is_some_and(|t| t != target)
            {
                continue;
            }
            if flow_enabled(raw, source, target) {
                candidates.push((source.clone(), target.clone()));
            }
        }
    }
    let restriction = match (&given_source, &given_target) {
        (Some(s), _) => format!(" from `{s}`"),
        (_, Some(t)) => format!(" into `{t}`"),
        _ => String::new(),
    };
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        0 => Err(ConfigError::new(
            keys::CLUSTERS,
            format!(
                "no replication flow{restriction} is enabled among the clusters ({listed}): set exactly one `<source>-><target>.enabled = true`, or name the flow with `source.cluster.alias` and `target.cluster.alias`"
            ),
        )),
        n => {
            let names: Vec<String> = candidates.iter().map(|(s, t)| format!("{s}->{t}")).collect();
            Err(ConfigError::new(
                keys::CLUSTERS,
                format!(
                    "{n} replication flows{restriction} are enabled ({}); this task runs one flow: choose it with `source.cluster.alias` and `target.cluster.alias`",
                    names.join(", ")
                ),
            ))
        }
    }
}

/// The cluster alias a `A.<key>` setting belongs to (the longest matching alias wins, so an
/// alias may itself contain dots) and the key without it.
fn split_cluster_key<'k>(key: &'k str, clusters: &[String]) -> Option<(String, &'k str)> {
    clusters
        .iter()
        .filter_map(|alias| {
            key.strip_prefix(alias.as_str())
                .and_then(|rest| rest.strip_prefix('.'))
                .filter(|rest| !rest.is_empty())
                .map(|rest| (alias.clone(), rest))
        })
        .max_by_key(|(alias, _)| alias.len())
}

/// Flattens a dedicated-mode configuration into the connector-style keys MM2 gives the flow's
/// checkpoint connector (`MirrorMakerConfig.connectorBaseConfig`), in the same precedence:
/// top-level flow keys, then the clusters' settings, then `A->B.*` overrides.
fn flatten_dedicated(
    raw: &BTreeMap<String, String>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Flat, ConfigError> {
    let clusters = cluster_aliases(raw.get(keys::CLUSTERS).map_or("", String::as_str));
    if clusters.is_empty() {
        return Err(ConfigError::new(
            keys::CLUSTERS,
            "lists no cluster aliases; dedicated mode needs e.g. `clusters = A, B`",
        ));
    }
    let (source, target) = choose_flow(raw, &clusters)?;
    let flow_prefix = format!("{source}->{target}.");
    let is_other_flow_key = |key: &str| {
        clusters.iter().any(|s| {
            clusters
                .iter()
                .any(|t| s != t && key.starts_with(&format!("{s}->{t}.")))
        })
    };

    let mut flat = Flat::new();
    let mut cluster_props: [BTreeMap<String, Setting>; 2] = Default::default();
    let mut top_level_connection = Vec::new();
    let mut flow_overrides = Vec::new();
    for (key, value) in raw {
        let setting = Setting::new(value, key);
        if let Some(rest) = key.strip_prefix(&flow_prefix) {
            flow_overrides.push((rest.to_string(), setting));
        } else if is_other_flow_key(key) || key == keys::CLUSTERS {
            // Another flow's settings: not this task's business.
        } else if is_mm2_key(key) {
            flat.insert(key.clone(), setting);
        } else if DEDICATED_DRIVER_PREFIXES.iter().any(|p| key.starts_with(p)) {
            // Read by the MM2 driver and its Connect workers, never by the connectors.
        } else if let Some((alias, rest)) = split_cluster_key(key, &clusters) {
            if alias == source {
                cluster_props[0].insert(rest.to_string(), setting);
            } else if alias == target {
                cluster_props[1].insert(rest.to_string(), setting);
            }
        } else if is_connection_key(key) {
            top_level_connection.push((key.clone(), setting));
        } else {
            warnings.push(ConfigWarning::new(
                key,
                dedicated_top_level_warning(key, &source, &target),
            ));
        }
    }

    for (props, side) in cluster_props.iter_mut().zip(["source", "target"]) {
        // MM2 lets every cluster inherit the top-level connection settings it does not set.
        for (key, setting) in &top_level_connection {
            props.entry(key.clone()).or_insert_with(|| setting.clone());
        }
        for (key, setting) in props.iter() {
            if ["consumer.", "producer.", "admin."]
                .iter()
                .any(|p| key.starts_with(p))
            {
                flat.insert(format!("{side}.{key}"), setting.clone());
            } else if is_mm2_key(key) {
                warnings.push(ConfigWarning::new(
                    &setting.written,
                    format!(
                        "MM2 ignores flow settings under a cluster prefix; write `{source}->{target}.{key}` or `{key}`"
                    ),
                ));
            } else {
                flat.insert(format!("{side}.cluster.{key}"), setting.clone());
            }
        }
        // MM2 copies a cluster's connection settings into its per-client layers, which is why
        // `A.security.protocol` beats `A->B.consumer.security.protocol`.
        for (key, setting) in props.iter().filter(|(k, _)| is_connection_key(k)) {
            for kind in ["consumer", "producer", "admin"] {
                flat.entry(format!("{side}.{kind}.{key}"))
                    .or_insert_with(|| setting.clone());
            }
        }
    }

    flat.entry(keys::SOURCE_CLUSTER_ALIAS.to_string())
        .or_insert_with(|| Setting::new(&source, keys::CLUSTERS));
    flat.entry(keys::TARGET_CLUSTER_ALIAS.to_string())
        .or_insert_with(|| Setting::new(&target, keys::CLUSTERS));
    for (key, setting) in flow_overrides {
        flat.insert(key, setting);
    }
    // Dedicated mode leaves a flow disabled unless told otherwise.
    flat.entry(keys::ENABLED.to_string())
        .or_insert_with(|| Setting::new("false", &format!("{flow_prefix}{}", keys::ENABLED)));

    for (key, chosen) in [
        (keys::SOURCE_CLUSTER_ALIAS, &source),
        (keys::TARGET_CLUSTER_ALIAS, &target),
    ] {
        if let Some(setting) = flat.get(key) {
            if setting.value.trim() != chosen.as_str() {
                return Err(ConfigError::new(
                    &setting.written,
                    format!("the flow {source}->{target} cannot rename its cluster `{chosen}`"),
                ));
            }
        }
    }
    Ok(flat)
}

/// Why a top-level dedicated-mode key is not used, in words that say what to write instead.
fn dedicated_top_level_warning(key: &str, source: &str, target: &str) -> String {
    if ["consumer.", "producer.", "admin."]
        .iter()
        .any(|p| key.starts_with(p))
    {
        return format!(
            "MM2's dedicated mode ignores top-level client settings; write `{source}.{key}` or `{target}.{key}` for one cluster, or `{source}->{target}.{key}` for this flow"
        );
    }
    for (side, alias) in [("source.", source), ("target.", target)] {
        if let Some(rest) = key.strip_prefix(side) {
            let rest = rest.strip_prefix("cluster.").unwrap_or(rest);
            return format!(
                "connector-style keys are ignored when `clusters` is set; write `{alias}.{rest}`"
            );
        }
    }
    "unknown key, ignored".to_string()
}

/// Typed reads from the flattened properties; every error names the key the user wrote.
struct Reader<'a> {
    flat: &'a Flat,
}

/// A parsed value and the key it came from (the canonical key for defaults).
struct Read<T> {
    value: T,
    written: String,
}

impl Reader<'_> {
    fn raw(&self, key: &str) -> Option<&Setting> {
        self.flat.get(key)
    }

    fn written(&self, key: &str) -> String {
        self.raw(key)
            .map_or_else(|| key.to_string(), |s| s.written.clone())
    }

    /// A Java STRING: trimmed.
    fn string(&self, key: &str, default: &str) -> Read<String> {
        match self.raw(key) {
            Some(s) => Read {
                value: s.value.trim().to_string(),
                written: s.written.clone(),
            },
            None => Read {
                value: default.to_string(),
                written: key.to_string(),
            },
        }
    }

    /// A Java BOOLEAN: trimmed, `true`/`false` in any case, anything else rejected.
    fn boolean(&self, key: &str, default: bool) -> Result<Read<bool>, ConfigError> {
        let Some(s) = self.raw(key) else {
            return Ok(Read {
                value: default,
                written: key.to_string(),
            });
        };
        let value = parse_bool(&s.value).ok_or_else(|| {
            ConfigError::new(
                &s.written,
                format!("expected `true` or `false`, got `{}`", s.value),
            )
        })?;
        Ok(Read {
            value,
            written: s.written.clone(),
        })
    }

    /// A Java integer type (LONG, INT, SHORT): trimmed, optional sign, decimal digits, in range.
    fn integer<T: std::str::FromStr>(
        &self,
        key: &str,
        default: T,
        java_type: &str,
    ) -> Result<Read<T>, ConfigError> {
        let Some(s) = self.raw(key) else {
            return Ok(Read {
                value: default,
                written: key.to_string(),
            });
        };
        let value = s.value.trim().parse::<T>().map_err(|_| {
            ConfigError::new(
                &s.written,
                format!("`{}` is not a valid {java_type}", s.value),
            )
        })?;
        Ok(Read {
            value,
            written: s.written.clone(),
        })
    }

    /// A `*.enabled` switch and its `*.interval.seconds`, as MM2 turns them into one duration:
    /// disabled or negative means off.
    fn interval(
        &self,
        enabled_key: &str,
        enabled_default: bool,
        seconds_key: &str,
        default_seconds: i64,
        zero_reason: Option<&str>,
        warnings: &mut Vec<ConfigWarning>,
    ) -> Result<(bool, Option<Duration>), ConfigError> {
        let enabled = self.boolean(enabled_key, enabled_default)?.value;
        let seconds = self.integer(seconds_key, default_seconds, "long (Java 64-bit integer)")?;
        if !enabled {
            return Ok((false, None));
        }
        // MM2 converts the interval to milliseconds, which overflows a Java long beyond this.
        if seconds.value > i64::MAX / 1000 {
            return Err(ConfigError::new(
                &seconds.written,
                format!(
                    "{} seconds is too large: MM2 converts it to milliseconds, which overflows",
                    seconds.value
                ),
            ));
        }
        match u64::try_from(seconds.value) {
            Err(_) => {
                warnings.push(ConfigWarning::new(
                    &seconds.written,
                    format!(
                        "a negative interval disables this job, as in MM2 (`{enabled_key} = false` says so more clearly)"
                    ),
                ));
                Ok((true, None))
            }
            Ok(0) => match zero_reason {
                Some(reason) => Err(ConfigError::new(&seconds.written, reason)),
                None => Ok((true, Some(Duration::ZERO))),
            },
            Ok(secs) => Ok((true, Some(Duration::from_secs(secs)))),
        }
    }

    /// A positive millisecond timeout.
    fn positive_millis(&self, key: &str, default: i64, why: &str) -> Result<Duration, ConfigError> {
        let ms = self.integer(key, default, "long (Java 64-bit integer)")?;
        match u64::try_from(ms.value) {
            Ok(v) if v > 0 => Ok(Duration::from_millis(v)),
            _ => Err(ConfigError::new(
                &ms.written,
                format!("must be positive, got {}: {why}", ms.value),
            )),
        }
    }

    fn replication_factor(&self, key: &str) -> Result<i16, ConfigError> {
        let rf = self.integer::<i16>(key, 3, "short (Java 16-bit integer)")?;
        if rf.value == -1 || rf.value >= 1 {
            Ok(rf.value)
        } else {
            Err(ConfigError::new(
                &rf.written,
                format!(
                    "{} is not a replication factor: use a positive number, or -1 for the broker default",
                    rf.value
                ),
            ))
        }
    }

    /// A Java CLASS setting: only the classes this crate implements, by full or simple name.
    fn class(&self, key: &str, supported: &[&str]) -> Result<String, ConfigError> {
        let default = supported.first().copied().unwrap_or_default();
        let name = self.string(key, default);
        for full in supported {
            let simple = full.rsplit('.').next().unwrap_or(full);
            if name.value == *full || name.value == simple {
                return Ok((*full).to_string());
            }
        }
        let list: Vec<String> = supported.iter().map(|c| format!("`{c}`")).collect();
        Err(ConfigError::new(
            &name.written,
            format!(
                "`{}` is not supported (Java plug-in classes cannot be loaded here); supported: {}",
                name.value,
                list.join(", ")
            ),
        ))
    }

    fn alias(&self, key: &str, default: Option<&str>) -> Result<String, ConfigError> {
        let alias = match (self.raw(key), default) {
            (None, None) => {
                return Err(ConfigError::new(
                    key,
                    "is required: the alias of the cluster checkpoints are read from",
                ))
            }
            _ => self.string(key, default.unwrap_or_default()),
        };
        if alias.value.is_empty() {
            return Err(ConfigError::new(
                &alias.written,
                "must not be empty: the alias names topics and client ids",
            ));
        }
        Ok(alias.value)
    }

    fn read(
        &self,
        shape: &Shape,
        warnings: &mut Vec<ConfigWarning>,
    ) -> Result<MirrorCheckpointConfig, ConfigError> {
        let source_cluster_alias = self.alias(keys::SOURCE_CLUSTER_ALIAS, None)?;
        let target_cluster_alias = self.alias(keys::TARGET_CLUSTER_ALIAS, Some("target"))?;
        let enabled = self.boolean(keys::ENABLED, true)?.value;

        let (emit_checkpoints_enabled, emit_checkpoints_interval) = self.interval(
            keys::EMIT_CHECKPOINTS_ENABLED,
            true,
            keys::EMIT_CHECKPOINTS_INTERVAL,
            60,
            None,
            warnings,
        )?;
        let (sync_group_offsets_enabled, sync_group_offsets_interval) = self.interval(
            keys::SYNC_GROUP_OFFSETS_ENABLED,
            false,
            keys::SYNC_GROUP_OFFSETS_INTERVAL,
            60,
            Some("0 seconds would make MM2 silently never sync group offsets (its scheduler rejects a zero period); use a positive interval, or set sync.group.offsets.enabled = false"),
            warnings,
        )?;
        let (refresh_groups_enabled, refresh_groups_interval) = self.interval(
            keys::REFRESH_GROUPS_ENABLED,
            true,
            keys::REFRESH_GROUPS_INTERVAL,
            600,
            Some("0 seconds makes MM2's checkpoint connector fail to start (its scheduler rejects a zero period); use a positive interval, or set refresh.groups.enabled = false"),
            warnings,
        )?;

        let group_filter = self.filter(
            keys::GROUPS,
            DEFAULT_GROUPS,
            keys::GROUPS_EXCLUDE,
            DEFAULT_GROUPS_EXCLUDE,
            GroupFilter::new,
        )?;
        let topic_filter = self.filter(
            keys::TOPICS,
            DEFAULT_TOPICS,
            keys::TOPICS_EXCLUDE,
            DEFAULT_TOPICS_EXCLUDE,
            TopicFilter::new,
        )?;
        self.class(keys::GROUP_FILTER_CLASS, &[GROUP_FILTER_CLASS_DEFAULT])?;
        self.class(keys::TOPIC_FILTER_CLASS, &[TOPIC_FILTER_CLASS_DEFAULT])?;
        self.class(
            keys::FORWARDING_ADMIN_CLASS,
            &[FORWARDING_ADMIN_CLASS_DEFAULT],
        )?;
        let replication_policy_class = self.class(
            keys::REPLICATION_POLICY_CLASS,
            &[
                DEFAULT_REPLICATION_POLICY_CLASS,
                IDENTITY_REPLICATION_POLICY_CLASS,
            ],
        )?;

        let location = self.string(keys::OFFSET_SYNCS_TOPIC_LOCATION, "source");
        // MM2 validates with the case-sensitive `ValidString.in("source", "target")`.
        let offset_syncs_topic_location = match location.value.as_str() {
            "source" => Cluster::Source,
            "target" => Cluster::Target,
            other => {
                return Err(ConfigError::new(
                    &location.written,
                    format!(
                        "must be `source` or `target` (lower case, as MM2 checks), got `{other}`"
                    ),
                ))
            }
        };
        let emit_offset_syncs = self.boolean(keys::EMIT_OFFSET_SYNCS_ENABLED, true)?;

        let checkpoints_topic_replication_factor =
            self.replication_factor(keys::CHECKPOINTS_TOPIC_REPLICATION_FACTOR)?;
        let offset_syncs_topic_replication_factor =
            self.replication_factor(keys::OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR)?;
        let consumer_poll_timeout = self.positive_millis(
            keys::CONSUMER_POLL_TIMEOUT_MS,
            1000,
            "it paces every poll round, and 0 makes MM2's poll loop spin",
        )?;
        let admin_timeout = self.positive_millis(
            keys::ADMIN_TIMEOUT_MS,
            60_000,
            "it bounds how long scheduled admin jobs may take",
        )?;

        let (replication_policy_separator, internal_topic_separator_enabled) =
            self.separator(warnings)?;

        let assigned_groups = self
            .raw(keys::TASK_ASSIGNED_GROUPS)
            .map(|s| split_list(&s.value));
        let (task_index, task_count) = self.task_split()?;
        let offset_lag_max = self
            .integer(keys::OFFSET_LAG_MAX, 100i64, "long (Java 64-bit integer)")?
            .value;

        let mut clients = ClientSettings::default();
        for (key, setting) in self.flat {
            clients.insert(key, &setting.value);
        }

        let config = MirrorCheckpointConfig {
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
            emit_offset_syncs_enabled: emit_offset_syncs.value,
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
            offset_lag_max,
            clients,
        };
        // MM2 skips `validate` (and starts nothing) for a disabled connector.
        if config.enabled {
            if !config.emit_offset_syncs_enabled {
                return Err(ConfigError::new(
                    &emit_offset_syncs.written,
                    "the checkpoint connector can't run without offset syncs: checkpoints are translated through them",
                ));
            }
            if !config.emit_checkpoints_enabled && !config.sync_group_offsets_enabled {
                return Err(ConfigError::new(
                    self.written(keys::EMIT_CHECKPOINTS_ENABLED),
                    "the checkpoint connector can't run with both emit.checkpoints.enabled and sync.group.offsets.enabled set to false",
                ));
            }
            self.check_bootstrap(&config, shape)?;
        }
        Ok(config)
    }

    /// Builds a filter from its two lists, renaming the filter's key to the one the user wrote.
    fn filter<F>(
        &self,
        include_key: &str,
        include_default: &str,
        exclude_key: &str,
        exclude_default: &str,
        build: impl Fn(&str, &str) -> Result<F, ConfigError>,
    ) -> Result<F, ConfigError> {
        let include = self.raw(include_key);
        let exclude = self.raw(exclude_key);
        build(
            include.map_or(include_default, |s| s.value.as_str()),
            exclude.map_or(exclude_default, |s| s.value.as_str()),
        )
        .map_err(|mut e| {
            e.key = if e.key == exclude_key {
                self.written(exclude_key)
            } else {
                self.written(include_key)
            };
            e
        })
    }

    /// The separator as MM2's policy sees it (untrimmed), and the internal flag as the policy
    /// reads it (`Boolean.parseBoolean`, no trimming) after MM2's config layer validated it.
    fn separator(
        &self,
        warnings: &mut Vec<ConfigWarning>,
    ) -> Result<(Option<String>, bool), ConfigError> {
        let separator = self.raw(keys::REPLICATION_POLICY_SEPARATOR);
        if let Some(sep) = separator {
            if sep.value.is_empty() {
                return Err(ConfigError::new(
                    &sep.written,
                    "must not be empty: remote topic names would have no separator to split on",
                ));
            }
            if sep.value.trim() != sep.value {
                warnings.push(ConfigWarning::new(
                    &sep.written,
                    format!(
                        "separator `{}` has surrounding whitespace, which MM2 keeps as part of it",
                        sep.value
                    ),
                ));
            }
        }
        let flag = self.boolean(keys::INTERNAL_TOPIC_SEPARATOR_ENABLED, true)?;
        let mut internal = flag.value;
        if let Some(raw) = self.raw(keys::INTERNAL_TOPIC_SEPARATOR_ENABLED) {
            match separator {
                None => warnings.push(ConfigWarning::new(
                    &raw.written,
                    "ignored: MM2's replication policy reads it only when replication.policy.separator is set",
                )),
                Some(_) => {
                    internal = raw.value.eq_ignore_ascii_case("true");
                    if internal != flag.value {
                        warnings.push(ConfigWarning::new(
                            &raw.written,
                            format!(
                                "`{}` has surrounding whitespace, so MM2's replication policy reads it as false",
                                raw.value
                            ),
                        ));
                    }
                }
            }
        }
        Ok((separator.map(|s| s.value.clone()), internal))
    }

    /// `task.index` (a Java INT, non-negative) and our `task.count` (positive, needs an index).
    fn task_split(&self) -> Result<(Option<u32>, Option<u32>), ConfigError> {
        let int = "int (Java 32-bit integer)";
        let index = match self.raw(keys::TASK_INDEX) {
            None => None,
            Some(_) => {
                let read = self.integer::<i32>(keys::TASK_INDEX, 0, int)?;
                let index = u32::try_from(read.value).map_err(|_| {
                    ConfigError::new(
                        &read.written,
                        format!("must be 0 or more, got {}", read.value),
                    )
                })?;
                Some((index, read.written))
            }
        };
        let count = match self.raw(keys::TASK_COUNT) {
            None => None,
            Some(_) => {
                let read = self.integer::<i32>(keys::TASK_COUNT, 1, int)?;
                match u32::try_from(read.value) {
                    Ok(count) if count >= 1 => Some(count),
                    _ => {
                        return Err(ConfigError::new(
                            &read.written,
                            format!("must be 1 or more, got {}", read.value),
                        ))
                    }
                }
            }
        };
        match (&index, count) {
            (Some((i, written)), Some(n)) if *i >= n => Err(ConfigError::new(
                written,
                format!("{i} is out of range: task.index must be less than task.count ({n})"),
            )),
            (None, Some(_)) => Err(ConfigError::new(
                keys::TASK_INDEX,
                "is required when task.count is set: it says which share of the groups this process takes",
            )),
            _ => Ok((index.map(|(i, _)| i), count)),
        }
    }

    /// Every client of an enabled flow needs `bootstrap.servers`; the error names the key the
    /// user should set for the cluster that lacks it.
    fn check_bootstrap(
        &self,
        config: &MirrorCheckpointConfig,
        shape: &Shape,
    ) -> Result<(), ConfigError> {
        let checks = [
            (Cluster::Source, ClientKind::Admin),
            (Cluster::Source, ClientKind::Consumer),
            (Cluster::Target, ClientKind::Admin),
            (Cluster::Target, ClientKind::Producer),
            (Cluster::Target, ClientKind::Consumer),
        ];
        for (cluster, kind) in checks {
            let props = config.client_config(cluster, kind, "");
            let set = props
                .get(keys::BOOTSTRAP_SERVERS)
                .is_some_and(|v| !v.trim().is_empty());
            if set {
                continue;
            }
            let alias = match cluster {
                Cluster::Source => &config.source_cluster_alias,
                Cluster::Target => &config.target_cluster_alias,
            };
            let key = match shape {
                Shape::Connector => {
                    format!("{}.cluster.{}", cluster.name(), keys::BOOTSTRAP_SERVERS)
                }
                Shape::Dedicated => format!("{alias}.{}", keys::BOOTSTRAP_SERVERS),
            };
            return Err(ConfigError::new(
                key,
                format!(
                    "is required: the {} cluster `{alias}` has no bootstrap servers for its {} clients",
                    cluster.name(),
                    kind.name()
                ),
            ));
        }
        Ok(())
    }
}

/// Java `ConfigDef` BOOLEAN parsing: trimmed, case-insensitive, nothing else accepted.
fn parse_bool(value: &str) -> Option<bool> {
    let v = value.trim();
    if v.eq_ignore_ascii_case("true") {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
            ("emit.checkpoint.interval.seconds", "unknown key"),
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
            c.group_filter.should_replicate_group("y")
                && !c.group_filter.should_replicate_group("x")
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
}
