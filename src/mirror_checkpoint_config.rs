//! TEMPORARY placeholder with the shape the runtime uses; replaced by the real parser on merge.
#![allow(missing_docs, dead_code)]
use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::ConfigError;
use crate::filters::{GroupFilter, TopicFilter};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigWarning {
    pub key: String,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct MirrorCheckpointConfig {
    pub source_cluster_alias: String,
    pub target_cluster_alias: String,
    pub emit_checkpoints_interval: Duration,
    pub sync_group_offsets_enabled: bool,
    pub sync_group_offsets_interval: Option<Duration>,
    pub refresh_groups_interval: Duration,
    pub group_filter: GroupFilter,
    pub topic_filter: TopicFilter,
    pub assigned_groups: Option<Vec<String>>,
    pub task_index: Option<u32>,
    pub task_count: Option<u32>,
    pub admin_timeout: Duration,
    pub checkpoints_topic_replication_factor: i16,
    pub replication_policy_class: String,
    props: BTreeMap<String, String>,
}

impl MirrorCheckpointConfig {
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(Self, Vec<ConfigWarning>), ConfigError> {
        let props: BTreeMap<String, String> =
            props.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let get = |k: &str| props.get(k).cloned();
        let alias = get("source.cluster.alias").ok_or_else(|| ConfigError::new("source.cluster.alias", "required"))?;
        Ok((
            MirrorCheckpointConfig {
                source_cluster_alias: alias,
                target_cluster_alias: get("target.cluster.alias").unwrap_or_else(|| "target".into()),
                emit_checkpoints_interval: Duration::from_secs(
                    get("emit.checkpoints.interval.seconds").and_then(|v| v.parse().ok()).unwrap_or(60),
                ),
                sync_group_offsets_enabled: get("sync.group.offsets.enabled").as_deref() == Some("true"),
                sync_group_offsets_interval: Some(Duration::from_secs(
                    get("sync.group.offsets.interval.seconds").and_then(|v| v.parse().ok()).unwrap_or(60),
                )),
                refresh_groups_interval: Duration::from_secs(600),
                group_filter: GroupFilter::default(),
                topic_filter: TopicFilter::default(),
                assigned_groups: get("task.assigned.groups").map(|v| crate::filters::split_list(&v)),
                task_index: None,
                task_count: None,
                admin_timeout: Duration::from_millis(60000),
                checkpoints_topic_replication_factor: 1,
                replication_policy_class: "DefaultReplicationPolicy".into(),
                props,
            },
            Vec::new(),
        ))
    }
    pub fn policy_properties(&self) -> BTreeMap<String, String> {
        self.props.clone()
    }
    pub fn checkpoints_topic(&self) -> String {
        format!("{}.checkpoints.internal", self.source_cluster_alias)
    }
    pub fn offset_syncs_topic(&self) -> String {
        format!("mm2-offset-syncs.{}.internal", self.target_cluster_alias)
    }
    fn cluster(&self, prefix: &str) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        if let Some(b) = self.props.get(&format!("{prefix}.cluster.bootstrap.servers")) {
            m.insert("bootstrap.servers".to_string(), b.clone());
        }
        m
    }
    pub fn source_admin_config(&self) -> BTreeMap<String, String> {
        self.cluster("source")
    }
    pub fn target_admin_config(&self) -> BTreeMap<String, String> {
        self.cluster("target")
    }
    pub fn target_producer_config(&self) -> BTreeMap<String, String> {
        self.cluster("target")
    }
    pub fn offset_syncs_consumer_config(&self) -> BTreeMap<String, String> {
        self.cluster("source")
    }
    pub fn checkpoints_consumer_config(&self) -> BTreeMap<String, String> {
        self.cluster("target")
    }
}
