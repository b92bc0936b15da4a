//! One test's own names for a replication flow (cluster aliases, the replicated topic, the
//! internal topics they imply, groups), so that tests can share brokers without seeing each
//! other's records, commits or groups.

use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

use super::broker::{shared_pair, unique};
use super::kafka::{commit_group_offsets, create_topic, create_topic_with_config};
use super::runtime::{produce_syncs, task_config};

/// Unique names for one flow between a source and a target broker. Unique cluster aliases give
/// unique internal topics (`mm2-offset-syncs.<target>.internal`,
/// `<source>.checkpoints.internal`); the replicated topic and every group get unique names too.
pub struct FlowNames {
    /// Source bootstrap.
    pub s: String,
    /// Target bootstrap.
    pub t: String,
    pub source_alias: String,
    pub target_alias: String,
    /// The replicated topic on the source (the seeds' `orders`).
    pub topic: String,
    /// Its remote name on the target (`<source alias>.<topic>`).
    pub remote: String,
    pub syncs: String,
    pub checkpoints: String,
}

impl FlowNames {
    /// Fresh names for a flow from `source` to `target` (bootstraps); nothing created.
    pub fn on(source: &str, target: &str) -> FlowNames {
        let source_alias = unique("src");
        let target_alias = unique("tgt");
        let topic = unique("orders");
        FlowNames {
            s: source.to_owned(),
            t: target.to_owned(),
            remote: format!("{source_alias}.{topic}"),
            syncs: format!("mm2-offset-syncs.{target_alias}.internal"),
            checkpoints: format!("{source_alias}.checkpoints.internal"),
            source_alias,
            target_alias,
            topic,
        }
    }

    /// Fresh names on the test binary's shared broker pair ([`shared_pair`]); nothing created.
    pub fn shared() -> FlowNames {
        let (source, target) = shared_pair();
        FlowNames::on(&source.bootstrap(), &target.bootstrap())
    }

    /// On the source: the replicated topic with `partitions` and the offset-syncs topic,
    /// compacted with one partition.
    pub fn create_source_topics(&self, partitions: i32) {
        create_topic(&self.s, &self.topic, partitions);
        create_topic_with_config(&self.s, &self.syncs, 1, &[("cleanup.policy", "compact")]);
    }

    /// On the target: the remote topic with `partitions` and, when `checkpoints_topic`, the
    /// checkpoints topic, compacted with one partition.
    pub fn create_target_topics(&self, partitions: i32, checkpoints_topic: bool) {
        create_topic(&self.t, &self.remote, partitions);
        if checkpoints_topic {
            create_topic_with_config(
                &self.t,
                &self.checkpoints,
                1,
                &[("cleanup.policy", "compact")],
            );
        }
    }

    /// This flow's name for group `name`.
    pub fn group(&self, name: &str) -> String {
        format!("{}-{name}", self.source_alias)
    }

    /// This flow's names for `names`, comma-separated (for `task.assigned.groups`).
    pub fn groups(&self, names: &[&str]) -> String {
        names
            .iter()
            .map(|g| self.group(g))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// An offset sync of partition `p` of the replicated topic.
    pub fn sync(&self, p: i32, up: i64, down: i64) -> OffsetSync {
        OffsetSync::new(TopicPartition::new(&self.topic, p), up, down)
    }

    /// Writes the syncs 0 → 0 and 50 → 50 for partitions 0 and 1: offsets up to 50 then
    /// translate one to one (a commit at 60 checkpoints as 51).
    pub fn produce_one_to_one_syncs(&self) {
        let syncs = [
            self.sync(0, 0, 0),
            self.sync(0, 50, 50),
            self.sync(1, 0, 0),
            self.sync(1, 50, 50),
        ];
        produce_syncs(&self.s, &self.syncs, &syncs, false);
    }

    /// A checkpoint of this flow's group `group` for partition `p` of the remote topic.
    pub fn cp(&self, group: &str, p: i32, up: i64, down: i64) -> Checkpoint {
        Checkpoint::new(
            self.group(group),
            TopicPartition::new(&self.remote, p),
            up,
            down,
            "",
        )
    }

    /// Commits `offsets` (partition, offset, metadata) of the replicated topic for this flow's
    /// group `group` on the source.
    pub fn commit(&self, group: &str, offsets: &[(i32, i64, &str)]) {
        let offsets: Vec<(&str, i32, i64, &str)> = offsets
            .iter()
            .map(|&(p, o, m)| (self.topic.as_str(), p, o, m))
            .collect();
        commit_group_offsets(&self.s, &self.group(group), &offsets);
    }

    /// [`task_config`] with this flow's aliases; `extra` adds or overrides properties.
    pub fn config(&self, extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
        let mut props = vec![
            ("source.cluster.alias", self.source_alias.as_str()),
            ("target.cluster.alias", self.target_alias.as_str()),
        ];
        props.extend_from_slice(extra);
        task_config(&self.s, &self.t, &props)
    }
}
