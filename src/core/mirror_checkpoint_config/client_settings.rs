//! Client settings: the librdkafka configuration of each client (cluster × kind), layered from
//! `<side>.cluster.*`, then `<kind>.*`, then the per-side overrides, as MM2 layers them.

use super::keys::is_checkpoint_key;
use super::keys::is_mm2_key;
use std::collections::BTreeMap;

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
    /// Connector-style key of each setting above → the key the user wrote (they differ in
    /// dedicated mode: `source.consumer.x` may come from `A.consumer.x` or `A.x`), so that a
    /// value librdkafka rejects is reported under the user's key.
    written: BTreeMap<String, String>,
}

pub(super) fn cluster_index(cluster: Cluster) -> usize {
    match cluster {
        Cluster::Source => 0,
        Cluster::Target => 1,
    }
}

pub(super) fn kind_index(kind: ClientKind) -> usize {
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

    /// The key the user wrote for the value `setting` takes in the config of a `kind` client on
    /// `cluster` (the most specific layer that sets it wins, as in
    /// [`MirrorCheckpointConfig::client_config`](super::MirrorCheckpointConfig::client_config)).
    /// `None` when no layer sets it (a value the library adds itself).
    pub fn written_key(&self, cluster: Cluster, kind: ClientKind, setting: &str) -> Option<&str> {
        let (side, word) = (cluster.name(), kind.name());
        let layers = [
            (
                self.specific(cluster, kind),
                format!("{side}.{word}.{setting}"),
            ),
            (self.global(kind), format!("{word}.{setting}")),
            (self.cluster(cluster), format!("{side}.cluster.{setting}")),
        ];
        layers
            .into_iter()
            .find(|(layer, _)| layer.contains_key(setting))
            .and_then(|(_, flat)| self.written.get(&flat))
            .map(String::as_str)
    }

    /// Sorts one flat key into its layer, if it is a client setting; `written` is the key as the
    /// user wrote it.
    pub(super) fn insert(&mut self, key: &str, value: &str, written: &str) {
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
        self.written.insert(key.to_string(), written.to_string());
    }
}

pub(super) const CLIENT_KINDS: [ClientKind; 3] = [
    ClientKind::Consumer,
    ClientKind::Producer,
    ClientKind::Admin,
];

/// Which client-settings layer a connector-style key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layer {
    /// `source.cluster.*` / `target.cluster.*`.
    Cluster(Cluster),
    /// `consumer.*`, `producer.*`, `admin.*`.
    Global(ClientKind),
    /// `source.consumer.*` … `target.admin.*`.
    Specific(Cluster, ClientKind),
}

/// Strips `word.` from the front of `key`, refusing an empty remainder.
pub(super) fn strip_word<'k>(key: &'k str, word: &str) -> Option<&'k str> {
    key.strip_prefix(word)
        .and_then(|rest| rest.strip_prefix('.'))
        .filter(|rest| !rest.is_empty())
}

/// The client layer of a connector-style key and the client setting it carries.
pub(super) fn client_layer(key: &str) -> Option<(Layer, &str)> {
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
