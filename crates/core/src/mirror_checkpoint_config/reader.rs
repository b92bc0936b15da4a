//! The typed reader: each setting parsed from its string with MM2's default, validated, and
//! reported with the key the user wrote.

use super::client_settings::ClientKind;
use super::client_settings::ClientSettings;
use super::client_settings::Cluster;
use super::keys;
use super::ConfigWarning;
use super::Flat;
use super::GroupOffsetsSource;
use super::MirrorCheckpointConfig;
use super::Setting;
use super::Shape;
use super::DEFAULT_REPLICATION_POLICY_CLASS;
use super::FORWARDING_ADMIN_CLASS_DEFAULT;
use super::GROUP_FILTER_CLASS_DEFAULT;
use super::IDENTITY_REPLICATION_POLICY_CLASS;
use super::TOPIC_FILTER_CLASS_DEFAULT;
use std::time::Duration;

use crate::error::ConfigError;
use crate::filters::{
    split_list, GroupFilter, TopicFilter, DEFAULT_GROUPS, DEFAULT_GROUPS_EXCLUDE, DEFAULT_TOPICS,
    DEFAULT_TOPICS_EXCLUDE,
};
use crate::group_coordination::{
    CoordinationSettings, TaskAssignment, DEFAULT_COORDINATION_PARTITIONS,
    MAX_COORDINATION_PARTITIONS,
};
use crate::topic_name::{topic_name_problem, MAX_TOPIC_NAME_LEN};

/// Typed reads from the flattened properties; every error names the key the user wrote.
pub(super) struct Reader<'a> {
    pub(super) flat: &'a Flat,
}

/// A parsed value and the key it came from (the canonical key for defaults).
pub(super) struct Read<T> {
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

    /// `statistics.interval.ms`: 0 (off) up to a day, librdkafka's range for its key of the
    /// same name.
    fn statistics_interval(&self) -> Result<Option<Duration>, ConfigError> {
        let ms = self.integer(
            keys::STATISTICS_INTERVAL_MS,
            0i64,
            "int (Java 32-bit integer)",
        )?;
        match ms.value {
            0 => Ok(None),
            1..=86_400_000 => Ok(Some(Duration::from_millis(ms.value as u64))),
            other => Err(ConfigError::new(
                &ms.written,
                format!("must be between 0 (off) and 86400000 (a day), got {other}"),
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

    /// The internal topics the aliases name must be legal topic names, or creating and writing
    /// them fails for ever: the error names the alias key as written, the topic and the rule.
    /// A separator with whitespace is MM2's quirk, warned about where it is read, and not
    /// refused here; a topic the broker still refuses to create fails start-up.
    fn check_internal_topic_names(
        &self,
        config: &MirrorCheckpointConfig,
    ) -> Result<(), ConfigError> {
        let (syncs_key, syncs_alias) = match config.offset_syncs_topic_location {
            Cluster::Source => (keys::TARGET_CLUSTER_ALIAS, &config.target_cluster_alias),
            Cluster::Target => (keys::SOURCE_CLUSTER_ALIAS, &config.source_cluster_alias),
        };
        let derived = [
            (
                keys::SOURCE_CLUSTER_ALIAS,
                &config.source_cluster_alias,
                config.checkpoints_topic(),
            ),
            (syncs_key, syncs_alias, config.offset_syncs_topic()),
        ];
        for (key, alias, topic) in derived {
            let Some(problem) = topic_name_problem(&topic) else {
                continue;
            };
            let alias_at_fault = topic_name_problem(alias).is_some()
                || topic.len() > MAX_TOPIC_NAME_LEN
                || config.replication_policy_separator.is_none();
            if alias_at_fault {
                return Err(ConfigError::new(
                    self.written(key),
                    format!(
                        "makes the internal topic `{topic}`, which is not a legal topic name: {problem}"
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn read(
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
        let emit_reverse = self.boolean(keys::EMIT_REVERSE_CHECKPOINTS_ENABLED, false)?;
        let reverse_location = self.string(keys::REVERSE_OFFSET_SYNCS_TOPIC_LOCATION, "source");
        let reverse_offset_syncs_topic_location = match reverse_location.value.as_str() {
            "source" => Cluster::Source,
            "target" => Cluster::Target,
            other => {
                return Err(ConfigError::new(
                    &reverse_location.written,
                    format!(
                        "must be `source` or `target` (lower case, as `offset-syncs.topic.location`), got `{other}`"
                    ),
                ))
            }
        };

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

        let source = self.string(keys::GROUP_OFFSETS_SOURCE, "poll");
        // Case-sensitive like MM2's `ValidString.in` checks (`offset-syncs.topic.location`).
        let group_offsets_source = match source.value.as_str() {
            "poll" => GroupOffsetsSource::Poll,
            "consumer-offsets-topic" => GroupOffsetsSource::ConsumerOffsetsTopic,
            other => {
                return Err(ConfigError::new(
                    &source.written,
                    format!(
                        "must be `poll` or `consumer-offsets-topic` (lower case), got `{other}`"
                    ),
                ))
            }
        };
        let statistics_interval = self.statistics_interval()?;

        let mut clients = ClientSettings::default();
        for (key, setting) in self.flat {
            clients.insert(key, &setting.value, &setting.written);
        }
        clients.translate_java(warnings)?;

        let coordination = self.coordination(assigned_groups.is_some(), task_count.is_some())?;

        let mut config = MirrorCheckpointConfig {
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
            emit_reverse_checkpoints_enabled: emit_reverse.value,
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
            offset_lag_max,
            task_assignment: TaskAssignment::Static,
            group_offsets_source,
            statistics_interval,
            clients,
        };
        if let Some((group_id, topic, partitions)) = coordination {
            config.task_assignment = TaskAssignment::Group(CoordinationSettings {
                group_id: group_id.unwrap_or_else(|| config.default_coordination_group_id()),
                topic: topic.unwrap_or_else(|| config.default_coordination_topic()),
                partitions,
            });
        }
        // MM2 skips `validate` (and starts nothing) for a disabled connector.
        if config.enabled {
            if !config.emit_offset_syncs_enabled {
                return Err(ConfigError::new(
                    &emit_offset_syncs.written,
                    "the checkpoint connector can't run without offset syncs: checkpoints are translated through them",
                ));
            }
            if config.emit_reverse_checkpoints_enabled
                && config.replication_policy_class == IDENTITY_REPLICATION_POLICY_CLASS
            {
                return Err(ConfigError::new(
                    &emit_reverse.written,
                    "reverse checkpoints need DefaultReplicationPolicy: under IdentityReplicationPolicy a replica topic has its original's name and cannot be told apart from the source's own topics",
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
        self.check_internal_topic_names(&config)?;
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

    /// `task.assignment` and, for `group`, the coordination group id and topic (when set) and
    /// the partition count. `None` for `static`.
    #[allow(clippy::type_complexity)]
    fn coordination(
        &self,
        fixed_groups: bool,
        split: bool,
    ) -> Result<Option<(Option<String>, Option<String>, u32)>, ConfigError> {
        // Checked in either mode, so a bad value is reported where it is set (also alone,
        // through mm_conf_set).
        let read = self.integer::<i32>(
            keys::TASK_COORDINATION_PARTITIONS,
            DEFAULT_COORDINATION_PARTITIONS as i32,
            "int (Java 32-bit integer)",
        )?;
        let partitions = match u32::try_from(read.value) {
            Ok(n) if (1..=MAX_COORDINATION_PARTITIONS).contains(&n) => n,
            _ => {
                return Err(ConfigError::new(
                    &read.written,
                    format!(
                        "must be between 1 and {MAX_COORDINATION_PARTITIONS}, got {}",
                        read.value
                    ),
                ))
            }
        };
        let mode = self.string(keys::TASK_ASSIGNMENT, "static");
        match mode.value.trim() {
            "static" => return Ok(None),
            "group" => {}
            other => {
                return Err(ConfigError::new(
                    &mode.written,
                    format!("must be `static` or `group`, got `{other}`"),
                ))
            }
        }
        if fixed_groups {
            return Err(ConfigError::new(
                self.written(keys::TASK_ASSIGNED_GROUPS),
                "cannot be combined with task.assignment=group: the coordination group decides which groups this process checkpoints",
            ));
        }
        if split {
            return Err(ConfigError::new(
                self.written(keys::TASK_COUNT),
                "cannot be combined with task.assignment=group: the coordination group replaces the task.index/task.count split",
            ));
        }
        let named = |key: &str| -> Result<Option<String>, ConfigError> {
            match self.raw(key) {
                None => Ok(None),
                Some(s) if s.value.trim().is_empty() => Err(ConfigError::new(
                    &s.written,
                    "must not be empty (leave it unset for the default)",
                )),
                Some(s) => Ok(Some(s.value.trim().to_string())),
            }
        };
        let group_id = named(keys::TASK_COORDINATION_GROUP_ID)?;
        let topic = named(keys::TASK_COORDINATION_TOPIC)?;
        Ok(Some((group_id, topic, partitions)))
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
pub(super) fn parse_bool(value: &str) -> Option<bool> {
    let v = value.trim();
    if v.eq_ignore_ascii_case("true") {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}
