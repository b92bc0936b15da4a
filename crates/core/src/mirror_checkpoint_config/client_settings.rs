//! Client settings: the librdkafka configuration of each client (cluster × kind), layered from
//! `<side>.cluster.*`, then `<kind>.*`, then the per-side overrides, as MM2 layers them.

use super::java_client::{self, Translation};
use super::keys::is_checkpoint_key;
use super::keys::is_mm2_key;
use super::ConfigWarning;
use crate::error::ConfigError;
use crate::secrets::shown_value;
use std::collections::BTreeMap;
use std::fmt;

/// One of the flow's two clusters; also the value of `offset-syncs.topic.location`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cluster {
    /// The cluster named by `source.cluster.alias`.
    Source,
    /// The cluster named by `target.cluster.alias`.
    Target,
}

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
/// clients trim every value they parse). [`MirrorCheckpointConfig::client_config`](super::MirrorCheckpointConfig::client_config) merges them.
/// `Debug` shows the values of sensitive settings as `[hidden]` (see [`is_sensitive_key`](super::is_sensitive_key)).
#[derive(Clone, Default, PartialEq, Eq)]
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

/// A layer as `Debug` shows it: every value of a sensitive setting hidden.
pub(super) fn redacted(layer: &BTreeMap<String, String>) -> BTreeMap<&str, &str> {
    layer
        .iter()
        .map(|(k, v)| (k.as_str(), shown_value(k, v)))
        .collect()
}

impl fmt::Debug for ClientSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn map(layers: &[BTreeMap<String, String>]) -> Vec<BTreeMap<&str, &str>> {
            layers.iter().map(redacted).collect()
        }
        let specific: Vec<_> = self.specific.iter().map(|l| map(l)).collect();
        f.debug_struct("ClientSettings")
            .field("clusters", &map(&self.clusters))
            .field("global", &map(&self.global))
            .field("specific", &specific)
            .field("written", &self.written)
            .finish()
    }
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

impl ClientSettings {
    /// Every layer with the connector-style prefix of its keys.
    fn layers_mut(&mut self) -> Vec<(String, &mut BTreeMap<String, String>)> {
        let mut out = Vec::new();
        for (cluster, layer) in [Cluster::Source, Cluster::Target]
            .into_iter()
            .zip(self.clusters.iter_mut())
        {
            out.push((format!("{}.cluster.", cluster.name()), layer));
        }
        for (kind, layer) in CLIENT_KINDS.into_iter().zip(self.global.iter_mut()) {
            out.push((format!("{}.", kind.name()), layer));
        }
        for (cluster, layers) in [Cluster::Source, Cluster::Target]
            .into_iter()
            .zip(self.specific.iter_mut())
        {
            for (kind, layer) in CLIENT_KINDS.into_iter().zip(layers.iter_mut()) {
                out.push((format!("{}.{}.", cluster.name(), kind.name()), layer));
            }
        }
        out
    }

    /// Replaces Java-only client settings (`sasl.jaas.config`, keystores, truststores) by
    /// librdkafka's, or refuses them naming the key the user wrote (see [`java_client`]).
    /// Settings librdkafka already has win over a translation in the same layer.
    pub(super) fn translate_java(
        &mut self,
        warnings: &mut Vec<ConfigWarning>,
    ) -> Result<(), ConfigError> {
        let mut written = std::mem::take(&mut self.written);
        let result = self
            .layers_mut()
            .into_iter()
            .try_for_each(|(prefix, layer)| {
                translate_layer(&prefix, layer, &mut written, warnings)
            });
        self.written = written;
        result
    }
}

/// Translates the Java-only settings of one layer whose keys carry `prefix` in connector style;
/// `written` maps connector-style keys to the keys the user wrote and learns the new ones.
pub(super) fn translate_layer(
    prefix: &str,
    layer: &mut BTreeMap<String, String>,
    written: &mut BTreeMap<String, String>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<(), ConfigError> {
    let keystore_type = layer.get("ssl.keystore.type").cloned();
    let settings: Vec<String> = layer.keys().cloned().collect();
    for setting in settings {
        let flat = format!("{prefix}{setting}");
        let user = written.get(&flat).cloned().unwrap_or_else(|| flat.clone());
        let translation =
            java_client::translate(&setting, &layer[&setting], keystore_type.as_deref())
                .map_err(|reason| ConfigError::new(&user, reason))?;
        match translation {
            Translation::PassThrough => {}
            Translation::Settings(new) => {
                layer.remove(&setting);
                for (key, value) in new {
                    if !layer.contains_key(key) {
                        layer.insert(key.to_string(), value);
                        written.insert(format!("{prefix}{key}"), user.clone());
                    }
                }
            }
            Translation::Ignored(why) => {
                layer.remove(&setting);
                if !warnings.iter().any(|w| w.key == user) {
                    warnings.push(ConfigWarning::new(&user, why));
                }
            }
        }
    }
    Ok(())
}

/// Checks that the files a client config names exist (`ssl.ca.location`,
/// `ssl.certificate.location`, `ssl.key.location`, `ssl.keystore.location`, `ssl.crl.location`,
/// `sasl.kerberos.keytab`), so a missing one is reported as that key and that file, not as
/// OpenSSL's `system lib` error. Returns the setting and the reason.
pub fn check_client_files(settings: &BTreeMap<String, String>) -> Result<(), (String, String)> {
    const FILE_SETTINGS: &[&str] = &[
        "ssl.ca.location",
        "ssl.certificate.location",
        "ssl.key.location",
        "ssl.keystore.location",
        "ssl.crl.location",
        "sasl.kerberos.keytab",
    ];
    for key in FILE_SETTINGS {
        let Some(path) = settings.get(*key).map(|p| p.trim()) else {
            continue;
        };
        // librdkafka's `probe` looks for the system's CA bundle itself.
        if path.is_empty() || (*key == "ssl.ca.location" && path == "probe") {
            continue;
        }
        if let Err(e) = std::fs::metadata(path) {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => format!("cannot be read: {e}"),
            };
            return Err((key.to_string(), format!("the file `{path}` {why}")));
        }
    }
    Ok(())
}

/// Settings each valid alone that librdkafka refuses together when it creates the client (its
/// "Client creation error"), as Java's clients refuse them too: SASL `PLAIN` or `SCRAM-*` without
/// `sasl.username` and `sasl.password`, and `enable.idempotence = true` with `acks` other than
/// `all`/`-1`. Returns the setting to blame and the reason; `written` gives the key the user
/// wrote for a setting, so the reason names the other keys the same way. `GSSAPI` and
/// `OAUTHBEARER` are left to librdkafka (Kerberos and token settings have defaults there).
pub fn client_setting_conflict(
    settings: &BTreeMap<String, String>,
    written: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, String)> {
    let value = |key: &str| {
        settings
            .get(key)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
    // The first of librdkafka's names for a setting (it has aliases) that is set.
    let set_as = |names: &[&'static str]| names.iter().copied().find(|k| value(k).is_some());
    let sasl =
        value("security.protocol").is_some_and(|p| p.to_ascii_uppercase().starts_with("SASL_"));
    if let Some(mechanism_key) = set_as(&["sasl.mechanisms", "sasl.mechanism"]).filter(|_| sasl) {
        let mechanism = value(mechanism_key)
            .unwrap_or_default()
            .to_ascii_uppercase();
        if mechanism == "PLAIN" || mechanism.starts_with("SCRAM-") {
            let missing: Vec<&str> = ["sasl.username", "sasl.password"]
                .into_iter()
                .filter(|k| value(k).is_none())
                .collect();
            if !missing.is_empty() {
                // Spell the missing keys with the prefix of the mechanism's key.
                let prefix = written(mechanism_key)
                    .and_then(|w| w.strip_suffix(mechanism_key).map(str::to_string))
                    .unwrap_or_default();
                let missing: Vec<String> =
                    missing.iter().map(|k| format!("`{prefix}{k}`")).collect();
                return Some((
                    mechanism_key.to_string(),
                    format!(
                        "SASL mechanism `{mechanism}` needs {} (or `{prefix}sasl.jaas.config` with Kafka's {} login module)",
                        missing.join(" and "),
                        if mechanism == "PLAIN" { "Plain" } else { "Scram" }
                    ),
                ));
            }
        }
    }
    let idempotent = value("enable.idempotence").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if let Some(acks_key) = set_as(&["acks", "request.required.acks"]).filter(|_| idempotent) {
        let acks = value(acks_key).unwrap_or_default();
        if !(acks.eq_ignore_ascii_case("all") || acks == "-1") {
            let idempotence =
                written("enable.idempotence").unwrap_or_else(|| "enable.idempotence".to_string());
            return Some((
                acks_key.to_string(),
                format!(
                    "`{acks}` cannot be used with `{idempotence}` = true: an idempotent producer needs acks = all (or -1)"
                ),
            ));
        }
    }
    None
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
