//! MM2's `MirrorClientConfig`: the settings of one cluster as `RemoteClusterUtils` reads them,
//! librdkafka client settings plus the `replication.policy.*` keys that name the checkpoints
//! topic and never reach librdkafka.

use std::collections::BTreeMap;
use std::fmt;

use super::client_settings::{redacted, translate_layer};
use super::{check_text, ConfigWarning};
use crate::error::ConfigError;
use crate::replication_policy::{
    ReplicationPolicy, DEFAULT_POLICY_CLASS, REPLICATION_POLICY_CLASS_CONFIG,
};

/// Keys that configure the replication policy rather than the client.
const POLICY_KEY_PREFIX: &str = "replication.policy.";

/// One cluster's client settings and replication policy (Java's `MirrorClientConfig`).
/// `Debug` hides the values of secret settings.
#[derive(Clone)]
pub struct MirrorClientConfig {
    /// The policy that names remote topics and the checkpoints topic (default policy when no
    /// `replication.policy.*` key is set).
    pub replication_policy: ReplicationPolicy,
    client: BTreeMap<String, String>,
}

impl MirrorClientConfig {
    /// Reads the settings (keys trimmed; a later key replaces an earlier one): NUL refused, Java
    /// client settings translated for librdkafka as in the checkpoint task's config, the policy
    /// configured from the `replication.policy.*` keys.
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(MirrorClientConfig, Vec<ConfigWarning>), ConfigError> {
        let mut policy_props = BTreeMap::new();
        let mut client = BTreeMap::new();
        for (key, value) in props {
            let key = key.trim();
            check_text(key, value)?;
            let map = if key.starts_with(POLICY_KEY_PREFIX) {
                &mut policy_props
            } else {
                &mut client
            };
            map.insert(key.to_string(), value.to_string());
        }
        let class = policy_props
            .get(REPLICATION_POLICY_CLASS_CONFIG)
            .map_or(DEFAULT_POLICY_CLASS, String::as_str);
        let replication_policy = ReplicationPolicy::configure(class, &policy_props)?;
        let mut warnings = Vec::new();
        translate_layer("", &mut client, &mut BTreeMap::new(), &mut warnings)?;
        Ok((
            MirrorClientConfig {
                replication_policy,
                client,
            },
            warnings,
        ))
    }

    /// The librdkafka settings of the cluster's clients.
    pub fn client_config(&self) -> &BTreeMap<String, String> {
        &self.client
    }
}

impl fmt::Debug for MirrorClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MirrorClientConfig")
            .field("replication_policy", &self.replication_policy)
            .field("client", &redacted(&self.client))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_keys_configure_the_policy_and_the_rest_are_client_settings() {
        let (c, _) = MirrorClientConfig::from_properties([
            ("bootstrap.servers", "b:9092"),
            ("replication.policy.separator", "_"),
            ("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=u password=secret-7;"),
        ])
        .unwrap();
        assert_eq!(
            c.replication_policy.checkpoints_topic("src"),
            "src_checkpoints_internal"
        );
        let client = c.client_config();
        assert_eq!(client["sasl.username"], "u");
        assert_eq!(client["sasl.password"], "secret-7");
        assert!(client.keys().all(|k| !k.starts_with("replication.policy.")));
        assert!(!format!("{c:?}").contains("secret-7"));
        let e =
            MirrorClientConfig::from_properties([("replication.policy.class", "x.Y")]).unwrap_err();
        assert_eq!(e.key, "replication.policy.class");
    }
}
