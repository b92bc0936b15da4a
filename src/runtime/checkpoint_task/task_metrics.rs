//! The task's metrics snapshot (runtime/metrics): read from the task's counters and reports.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{now_ms, Shared};
use crate::core::checkpoint_rules::SkipReason;
use crate::kafka::mutex::lock;
use crate::runtime::metrics::{
    GroupOffsetSyncMetrics, MetricsSnapshot, PartitionMetrics, RetryKind, RetryMetrics, TaskMetrics,
};

fn micros(us: u64) -> Option<Duration> {
    (us != 0).then(|| Duration::from_micros(us))
}

impl Shared {
    /// One reading of the task's metrics.
    pub(super) fn metrics(&self) -> MetricsSnapshot {
        let c = &self.counters;
        let partitions: Vec<PartitionMetrics> = lock(&self.statuses)
            .values()
            .map(|s| PartitionMetrics {
                group: s.group.clone(),
                topic: s.topic_partition.topic.clone(),
                partition: s.topic_partition.partition,
                committed_offset: None,
                checkpoint_upstream_offset: s.last_checkpoint.as_ref().map(|c| c.upstream_offset),
                checkpoint_downstream_offset: s
                    .last_checkpoint
                    .as_ref()
                    .map(|c| c.downstream_offset),
                sync_upstream_offset: None,
                replay_bound: None,
                freshness: None,
                skip_reason: s
                    .reason
                    .as_deref()
                    .and_then(|r| SkipReason::ALL.into_iter().find(|k| k.as_str() == r)),
            })
            .collect();
        let partitions_skipped = SkipReason::ALL
            .into_iter()
            .map(|r| {
                let n = partitions
                    .iter()
                    .filter(|p| p.skip_reason == Some(r))
                    .count();
                (r, n as u64)
            })
            .collect();
        let cycles = c.cycles.load(Ordering::SeqCst);
        MetricsSnapshot {
            source: self.config.source_cluster_alias.clone(),
            target: self.config.target_cluster_alias.clone(),
            time_ms: now_ms(),
            task: TaskMetrics {
                initialized: self.initialized.load(Ordering::SeqCst),
                load_time: micros(c.load_time_us.load(Ordering::SeqCst)),
                groups: self.current_groups().len() as u64,
                cycles,
                cycles_failed: 0,
                last_cycle_duration: micros(c.last_cycle_us.load(Ordering::SeqCst)),
                since_last_successful_cycle: None,
                checkpoints_emitted: c.checkpoints_emitted.load(Ordering::SeqCst),
                offset_syncs_loaded: c.syncs_loaded.load(Ordering::SeqCst),
                offset_sync_lag: None,
                records_skipped: c.records_skipped.load(Ordering::SeqCst),
                partitions_skipped,
                group_offset_sync: GroupOffsetSyncMetrics {
                    written: c.group_offsets_written.load(Ordering::SeqCst),
                    ..GroupOffsetSyncMetrics::default()
                },
                retries: RetryMetrics {
                    reason: self.retry_reason(),
                    retrying_for: None,
                    by_kind: RetryKind::ALL.into_iter().map(|k| (k, 0)).collect(),
                },
            },
            checkpoint_latency: Vec::new(),
            partitions,
        }
    }
}
