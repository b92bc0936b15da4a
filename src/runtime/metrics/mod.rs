//! What an operator watches on a checkpoint task: MM2's own `checkpoint-latency-ms`, how fresh
//! each group's checkpoint is, how many records a consumer would re-read after failing over
//! now (the replay bound), and the task's cycles, loads, group offset syncs and retries.
//!
//! [`MetricsSnapshot`] is one reading, taken by `CheckpointTask::metrics` or handed to the
//! listener set with `CheckpointTask::set_metrics_listener` every `statistics.interval.ms`;
//! [`MetricsSnapshot::to_json`] renders the versioned JSON document that C receives
//! (docs/OPERATIONS.md describes every field).

use std::time::Duration;

use mm2_checkpoint_core::checkpoint_rules::SkipReason;

mod json;
pub(crate) mod latency;
pub(crate) mod reporter;

pub use json::SCHEMA_VERSION;
pub use reporter::MetricsListener;

/// Java MM2's metric group for `checkpoint-latency-ms` (its JMX `type=`).
pub const METRIC_GROUP: &str = "MirrorCheckpointConnector";

/// One reading of a task's metrics. Plain data: taking it costs one pass over the task's
/// group × partitions, and holding it holds no lock.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsSnapshot {
    /// `source.cluster.alias`.
    pub source: String,
    /// `target.cluster.alias`.
    pub target: String,
    /// When the reading was taken, in ms since the Unix epoch.
    pub time_ms: i64,
    /// Task-wide values.
    pub task: TaskMetrics,
    /// MM2's `checkpoint-latency-ms` per group and checkpointed (renamed) partition.
    pub checkpoint_latency: Vec<CheckpointLatency>,
    /// Per group and upstream partition: freshness, the replay bound, why nothing was written.
    pub partitions: Vec<PartitionMetrics>,
}

/// Task-wide metrics.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskMetrics {
    /// Whether both stores finished loading.
    pub initialized: bool,
    /// Time from start to both stores loaded; `None` until then.
    pub load_time: Option<Duration>,
    /// Groups this task checkpoints now.
    pub groups: u64,
    /// Checkpoint cycles run (successful or not).
    pub cycles: u64,
    /// Checkpoint cycles that ended in an error (retried at the next poll, or fatal).
    pub cycles_failed: u64,
    /// How long the last checkpoint cycle took; `None` before the first.
    pub last_cycle_duration: Option<Duration>,
    /// Time since the last checkpoint cycle that ended without error; `None` before the first.
    pub since_last_successful_cycle: Option<Duration>,
    /// Checkpoints written and confirmed by the target.
    pub checkpoints_emitted: u64,
    /// Offset syncs applied (initial load and tailing).
    pub offset_syncs_loaded: u64,
    /// Records between the task's position in the offset-syncs topic and its end (summed over
    /// its partitions); `None` while unknown (before the load, or no answer from the broker).
    pub offset_sync_lag: Option<u64>,
    /// Malformed records skipped in the offset-syncs and checkpoints topics.
    pub records_skipped: u64,
    /// Group × partitions whose last cycle wrote no checkpoint, per reason; every reason of
    /// [`SkipReason::ALL`] is listed, in that order, zero or not.
    pub partitions_skipped: Vec<(SkipReason, u64)>,
    /// What the group offset sync did.
    pub group_offset_sync: GroupOffsetSyncMetrics,
    /// What the task retries.
    pub retries: RetryMetrics,
    /// Other writers of this task's checkpoints.
    pub other_writers: OtherWriterMetrics,
    /// The `__consumer_offsets` stream (`group.offsets.source = consumer-offsets-topic`);
    /// `None` when the task reads committed offsets by polling.
    pub offsets_stream: Option<OffsetsStreamMetrics>,
}

/// The `__consumer_offsets` stream's partitions held below their end by another client's open
/// transaction (the offsets of the groups they coordinate are fetched from their coordinators
/// meanwhile).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OffsetsStreamMetrics {
    /// Partitions held now.
    pub held_partitions: u64,
    /// How long the oldest hold has lasted; `None` when none is held.
    pub longest_hold: Option<Duration>,
}

/// Other writers of the same checkpoints: a second copy of the flow, or Java MM2's task for it,
/// found writing checkpoints of this task's groups between this task's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtherWriterMetrics {
    /// Their checkpoints of this task's groups found so far.
    pub checkpoints: u64,
    /// The writers, in the order found, each as its records name it (`mm2-checkpoint <version>
    /// on <host> (pid <pid>, task <id>)`), or as a writer that names none (Java MM2).
    pub writers: Vec<String>,
}

/// The group offset sync's counts, in group × partitions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupOffsetSyncMetrics {
    /// Group offset sync runs completed.
    pub runs: u64,
    /// Offsets written into target groups, since start.
    pub written: u64,
    /// Offsets left alone because the target group has active members, since start.
    pub left_active: u64,
    /// Offsets the target broker refused to write, since start.
    pub refused: u64,
    /// Offsets left alone because the target group's state could not be learned, since start.
    pub left_unknown_state: u64,
    /// Offsets left alone because the idle target group already holds the translated offset,
    /// since start.
    pub left_up_to_date: u64,
    /// Offsets left alone because the idle target group is past the translated offset (its
    /// consumers went on on the target; never rewound), since start.
    pub left_ahead: u64,
    /// The same counts for the last run only; `None` before the first run.
    pub last_run: Option<GroupOffsetSyncRun>,
}

/// One group offset sync run's counts, in group × partitions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupOffsetSyncRun {
    /// Offsets written.
    pub written: u64,
    /// Offsets left because the target group is active.
    pub left_active: u64,
    /// Offsets the broker refused.
    pub refused: u64,
    /// Offsets left because the target group's state could not be learned.
    pub unknown_state: u64,
    /// Offsets already at or past the translated offset on the target (`ahead` included).
    pub up_to_date: u64,
    /// Of those, the offsets past the translated offset.
    pub ahead: u64,
}

/// What a retry was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RetryKind {
    /// Start-up waited on a cluster (unreachable, slow, a topic missing) and tried again.
    Startup,
    /// A group discovery run failed and waits for its next run.
    GroupDiscovery,
    /// A group offset sync run failed and waits for its next run.
    GroupOffsetSync,
    /// A group's committed offsets could not be fetched for a reason retrying can fix.
    GroupFetch,
    /// A checkpoint cycle failed as a whole for a reason the next poll retries (a fatal one is
    /// counted in `cycles_failed` only).
    CheckpointCycle,
    /// A checkpoint was not delivered (it is written again at the next cycle).
    CheckpointWrite,
}

impl RetryKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [RetryKind; 6] = [
        RetryKind::Startup,
        RetryKind::GroupDiscovery,
        RetryKind::GroupOffsetSync,
        RetryKind::GroupFetch,
        RetryKind::CheckpointCycle,
        RetryKind::CheckpointWrite,
    ];

    /// Stable snake_case name (JSON keys, Prometheus labels).
    pub fn as_str(self) -> &'static str {
        match self {
            RetryKind::Startup => "startup",
            RetryKind::GroupDiscovery => "group_discovery",
            RetryKind::GroupOffsetSync => "group_offset_sync",
            RetryKind::GroupFetch => "group_fetch",
            RetryKind::CheckpointCycle => "checkpoint_cycle",
            RetryKind::CheckpointWrite => "checkpoint_write",
        }
    }
}

/// Retries: what is being retried now, for how long, and how often each kind happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryMetrics {
    /// Why the task is retrying now (`CheckpointTask::retry_reason`); `None` when it is not.
    pub reason: Option<String>,
    /// How long `reason` has been set without interruption; `None` when it is not set.
    pub retrying_for: Option<Duration>,
    /// Retries since start, per kind; every kind of [`RetryKind::ALL`], in that order.
    pub by_kind: Vec<(RetryKind, u64)>,
}

impl RetryMetrics {
    /// All retries since start.
    pub fn total(&self) -> u64 {
        self.by_kind.iter().map(|(_, n)| n).sum()
    }
}

/// MM2's `checkpoint-latency-ms` for one group and checkpointed partition: the time from the
/// moment a cycle decided a checkpoint (its record timestamp) to the target confirming it, in
/// ms. Tags as Java's: `source`, `target`, `group`, `topic` (the renamed, target-side topic),
/// `partition`.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointLatency {
    /// Consumer group.
    pub group: String,
    /// The checkpoint's (renamed) topic, as in Java's `topic` tag.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// `checkpoint-latency-ms`: the last latency recorded (0 before any).
    pub last_ms: f64,
    /// `checkpoint-latency-ms-min` over Kafka's window (two 30 s samples); `None` (Java: NaN)
    /// when the window holds no record.
    pub min_ms: Option<f64>,
    /// `checkpoint-latency-ms-max`, as `min_ms`.
    pub max_ms: Option<f64>,
    /// `checkpoint-latency-ms-avg`, as `min_ms`.
    pub avg_ms: Option<f64>,
}

/// One group × upstream partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionMetrics {
    /// Consumer group.
    pub group: String,
    /// Upstream (source) topic.
    pub topic: String,
    /// Upstream partition.
    pub partition: i32,
    /// The group's committed offset on the source as the last cycle read it.
    pub committed_offset: Option<i64>,
    /// The newest checkpoint's upstream offset.
    pub checkpoint_upstream_offset: Option<i64>,
    /// The newest checkpoint's downstream offset (where a failed-over consumer resumes).
    pub checkpoint_downstream_offset: Option<i64>,
    /// The upstream offset of the offset sync the newest checkpoint was translated through.
    pub sync_upstream_offset: Option<i64>,
    /// Upstream records a consumer failing over now would read again:
    /// `committed_offset - sync_upstream_offset`; `None` without a checkpoint or a commit.
    pub replay_bound: Option<i64>,
    /// Age of the target's view of this commit: time since the last cycle that read the group's
    /// committed offset and found the newest checkpoint reflecting it (written for it in that
    /// cycle, or already its translation). Offset fetches carry no commit timestamp, so the time
    /// the cycle read the commit stands for it. `None` until a checkpoint reflected a commit.
    pub freshness: Option<Duration>,
    /// Why the last cycle wrote no checkpoint for it; `None` when it wrote one or had no reason.
    pub skip_reason: Option<SkipReason>,
}
