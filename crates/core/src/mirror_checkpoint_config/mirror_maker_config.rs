//! The dedicated-mode `mm2.properties` (MM2's `MirrorMakerConfig`): choosing the flow and
//! flattening `A.*`, `A->B.*` and top-level keys into connector style, remembering for every
//! value the key the user wrote.

use super::client_settings::client_layer;
use super::client_settings::Layer;
use super::keys;
use super::keys::is_checkpoint_key;
use super::keys::is_connection_key;
use super::keys::is_mm2_key;
use super::keys::removed_key_replacement;
use super::keys::unknown_key_message;
use super::keys::DEDICATED_DRIVER_PREFIXES;
use super::keys::OTHER_MM2_KEYS;
use super::keys::OTHER_MM2_PREFIXES;
use super::ConfigWarning;
use super::Flat;
use super::Setting;
use super::Shape;
use std::collections::{BTreeMap, BTreeSet};

use crate::error::ConfigError;
use crate::filters::split_list;

/// The warning for a connector-style key, if it deserves one.
pub(super) fn flat_key_warning(key: &str, shape: &Shape) -> Option<String> {
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
    Some(unknown_key_message(key))
}

/// Parses MM2's `clusters` list: Connect LIST rules, duplicates dropped, order kept.
pub(super) fn cluster_aliases(value: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    split_list(value)
        .into_iter()
        .filter(|alias| !alias.is_empty() && seen.insert(alias.clone()))
        .collect()
}

/// Whether `A->B` runs checkpointing: `A->B.enabled`, else `enabled`, else false (dedicated
/// mode's default).
pub(super) fn flow_enabled(raw: &BTreeMap<String, String>, source: &str, target: &str) -> bool {
    raw.get(&format!("{source}->{target}.{}", keys::ENABLED))
        .or_else(|| raw.get(keys::ENABLED))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Picks the one flow this task runs from a dedicated-mode configuration.
pub(super) fn choose_flow(
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
pub(super) fn split_cluster_key<'k>(
    key: &'k str,
    clusters: &[String],
) -> Option<(String, &'k str)> {
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
pub(super) fn flatten_dedicated(
    raw: &BTreeMap<String, String>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Flat, ConfigError> {
    let listed = raw.get(keys::CLUSTERS).map_or("", String::as_str);
    super::check_clusters(listed)?;
    let clusters = cluster_aliases(listed);
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
pub(super) fn dedicated_top_level_warning(key: &str, source: &str, target: &str) -> String {
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
    unknown_key_message(key)
}
