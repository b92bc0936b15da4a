//! The task's metrics (runtime/metrics): what the checkpoint cycle and the group offset sync
//! record as they go, and the snapshot read from it and from the task's counters.
//!
//! Recording is per group, one lock per group and cycle, and looks entries up without
//! allocating, so that it can stay on (BENCHMARKS.md measures it).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::decisions::SyncSummary;
use super::other_writers::Found;
use super::{now_ms, Shared, GROUP_DISCOVERY, GROUP_OFFSET_SYNC};
use crate::runtime::group_offsets_stream::Holds;
use crate::runtime::metrics::latency::LatencyStat;
use crate::runtime::metrics::{
    CheckpointLatency, GroupOffsetSyncMetrics, MetricsSnapshot, OffsetsStreamMetrics,
    OtherWriterMetrics, PartitionMetrics, RetryKind, RetryMetrics, TaskMetrics,
};
use mm2_checkpoint_core::checkpoint_rules::{CommittedOffset, SkipReason};
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::failure::STARTUP;
use mm2_checkpoint_kafka::mutex::lock;

/// `offset_sync_lag` while unknown.
const UNKNOWN: u64 = u64::MAX;

/// One group × upstream partition, as the cycles left it.
#[derive(Clone, Debug, Default)]
struct PartitionState {
    committed: Option<i64>,
    /// The newest checkpoint: upstream and downstream offsets.
    checkpoint: Option<(i64, i64)>,
    sync_upstream: Option<i64>,
    /// When a cycle last read a commit the newest checkpoint reflects.
    reflected_at: Option<Instant>,
    skip: Option<SkipReason>,
}

/// A checkpoint delivered in a cycle, as the metrics need it.
pub(super) struct Delivered<'a> {
    pub(super) group: &'a str,
    /// Upstream partition.
    pub(super) upstream: &'a TopicPartition,
    /// The checkpoint's (renamed) partition, for MM2's latency tags.
    pub(super) checkpointed: &'a TopicPartition,
    pub(super) upstream_offset: i64,
    pub(super) downstream_offset: i64,
    /// The upstream offset of the sync it was translated through.
    pub(super) sync_upstream: Option<i64>,
    /// When the cycle read the commit it reflects.
    pub(super) read_at: Instant,
    /// The record's timestamp (when the cycle decided it) and when the target confirmed it.
    pub(super) decided_ms: i64,
    pub(super) delivered_ms: i64,
}

/// How a checkpoint cycle ended (a stop is none of these).
pub(super) enum CycleEnd {
    /// Without error: every group's offsets were read.
    Done,
    /// To its end, but some groups' offsets could not be read or some checkpoints not written
    /// (their retry reasons say why): not a successful cycle, and not a failed one either.
    Partial,
    /// With an error the next poll retries.
    Retried,
    /// With an error that ends the task.
    Fatal,
}

/// What the task records for its metrics.
pub(super) struct MetricsRecorder {
    /// Per group, per upstream partition.
    partitions: Mutex<HashMap<String, HashMap<TopicPartition, PartitionState>>>,
    /// MM2's latency statistic, per group and checkpointed (renamed) partition.
    latency: Mutex<HashMap<String, HashMap<TopicPartition, LatencyStat>>>,
    cycles_failed: AtomicU64,
    /// Failed cycles the next poll retries (the others ended the task).
    cycles_retried: AtomicU64,
    last_success: Mutex<Option<Instant>>,
    writes_failed: AtomicU64,
    offset_sync_lag: AtomicU64,
    group_sync: Mutex<GroupOffsetSyncMetrics>,
    other_writers: Mutex<OtherWriterMetrics>,
    /// The offsets stream's transaction holds, once the stream started.
    stream_holds: Mutex<Option<Holds>>,
    /// Whether cycles record per-partition metrics (always, but for the overhead benchmark).
    recording: AtomicBool,
}

impl Default for MetricsRecorder {
    fn default() -> Self {
        MetricsRecorder {
            partitions: Mutex::default(),
            latency: Mutex::default(),
            cycles_failed: AtomicU64::new(0),
            cycles_retried: AtomicU64::new(0),
            last_success: Mutex::new(None),
            writes_failed: AtomicU64::new(0),
            offset_sync_lag: AtomicU64::new(UNKNOWN),
            group_sync: Mutex::default(),
            other_writers: Mutex::default(),
            stream_holds: Mutex::new(None),
            recording: AtomicBool::new(true),
        }
    }
}

impl MetricsRecorder {
    /// The offsets stream started: its transaction holds are part of every reading from now on.
    pub(super) fn offsets_stream_started(&self, holds: Holds) {
        *lock(&self.stream_holds) = Some(holds);
    }

    /// Counts other writers' checkpoints found, and warns once of each new writer, naming this
    /// task (`me`) too.
    pub(super) fn other_writers_found(&self, found: Vec<Found>, me: &str, topic: &str) {
        let mut m = lock(&self.other_writers);
        for f in found {
            m.checkpoints += f.checkpoints;
            if m.writers.contains(&f.writer) {
                continue;
            }
            let groups: Vec<&str> = f.groups.iter().map(String::as_str).collect();
            log::warn!(
                "another writer writes this flow's checkpoints: {} wrote checkpoints of group(s) {} \
                 in `{topic}` between those of this task, {me}; two copies of a flow write every \
                 checkpoint twice and both run the group offset sync: stop one of them",
                f.writer,
                groups.join(", ")
            );
            m.writers.push(f.writer);
        }
    }

    /// Whether cycles record per-partition metrics.
    pub(super) fn recording(&self) -> bool {
        self.recording.load(Ordering::Relaxed)
    }

    /// Turns the cycles' per-partition recording off or on (the overhead benchmark).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub(super) fn set_recording(&self, on: bool) {
        self.recording.store(on, Ordering::Relaxed);
    }

    /// Records what a cycle read and decided for `group`: its committed offsets (read at
    /// `read_at`), and the partitions it skipped; the checkpoints it sends are recorded once
    /// delivered ([`delivered`](Self::delivered)). Returns the skipped partitions whose newest
    /// checkpoint is not known yet here (after a restart: it came from the checkpoints topic),
    /// for [`known_checkpoint`](Self::known_checkpoint).
    pub(super) fn group_read(
        &self,
        group: &str,
        committed: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
        skipped: &[(TopicPartition, SkipReason)],
        read_at: Instant,
    ) -> Vec<TopicPartition> {
        let mut all = lock(&self.partitions);
        if !all.contains_key(group) {
            all.insert(group.to_string(), HashMap::new());
        }
        let Some(partitions) = all.get_mut(group) else {
            return Vec::new();
        };
        for (tp, commit) in committed {
            let state = match partitions.get_mut(tp) {
                Some(state) => state,
                None => partitions.entry(tp.clone()).or_default(),
            };
            state.committed = commit.as_ref().map(|c| c.offset);
            state.skip = None;
        }
        let mut unknown = Vec::new();
        for (tp, reason) in skipped {
            let Some(state) = partitions.get_mut(tp) else {
                continue;
            };
            state.skip = Some(*reason);
            // The newest checkpoint is already this commit's translation: the target is as
            // fresh as it can be.
            if *reason == SkipReason::NotNewerThanLastCheckpoint {
                if state.checkpoint.is_some() {
                    state.reflected_at = Some(read_at);
                } else {
                    unknown.push(tp.clone());
                }
            }
        }
        unknown
    }

    /// The newest checkpoint of a partition [`group_read`](Self::group_read) did not know, found
    /// in the checkpoint store.
    pub(super) fn known_checkpoint(
        &self,
        group: &str,
        upstream: &TopicPartition,
        checkpoint: (i64, i64),
        sync_upstream: Option<i64>,
        read_at: Instant,
    ) {
        let mut all = lock(&self.partitions);
        if let Some(state) = all.get_mut(group).and_then(|p| p.get_mut(upstream)) {
            state.checkpoint = Some(checkpoint);
            state.sync_upstream = sync_upstream;
            state.reflected_at = Some(read_at);
        }
    }

    /// Records the checkpoints a cycle delivered.
    pub(super) fn delivered<'a>(&self, delivered: impl IntoIterator<Item = Delivered<'a>>) {
        let mut partitions = lock(&self.partitions);
        let mut latency = lock(&self.latency);
        for d in delivered {
            if let Some(state) = partitions
                .get_mut(d.group)
                .and_then(|p| p.get_mut(d.upstream))
            {
                state.checkpoint = Some((d.upstream_offset, d.downstream_offset));
                state.sync_upstream = d.sync_upstream;
                state.reflected_at = Some(d.read_at);
            }
            if !latency.contains_key(d.group) {
                latency.insert(d.group.to_string(), HashMap::new());
            }
            if let Some(stats) = latency.get_mut(d.group) {
                let stat = match stats.get_mut(d.checkpointed) {
                    Some(stat) => stat,
                    None => stats.entry(d.checkpointed.clone()).or_default(),
                };
                stat.record((d.delivered_ms - d.decided_ms) as f64, d.delivered_ms);
            }
        }
    }

    /// Checkpoints not delivered so far.
    pub(super) fn writes_failed_so_far(&self) -> u64 {
        self.writes_failed.load(Ordering::SeqCst)
    }

    /// Counts checkpoints that were not delivered (written again next cycle).
    pub(super) fn writes_failed(&self, n: u64) {
        self.writes_failed.fetch_add(n, Ordering::SeqCst);
    }

    /// Records how a checkpoint cycle ended.
    pub(super) fn cycle_ended(&self, end: CycleEnd) {
        match end {
            CycleEnd::Done => *lock(&self.last_success) = Some(Instant::now()),
            CycleEnd::Partial => {}
            CycleEnd::Retried => {
                self.cycles_failed.fetch_add(1, Ordering::SeqCst);
                self.cycles_retried.fetch_add(1, Ordering::SeqCst);
            }
            CycleEnd::Fatal => {
                self.cycles_failed.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// Records the offset-syncs reader's lag.
    pub(super) fn offset_sync_lag(&self, lag: Option<u64>) {
        self.offset_sync_lag
            .store(lag.unwrap_or(UNKNOWN), Ordering::SeqCst);
    }

    /// Records a group offset sync run.
    pub(super) fn group_sync_ran(&self, summary: &SyncSummary) {
        let run = summary.run();
        let mut m = lock(&self.group_sync);
        m.runs += 1;
        m.written += run.written;
        m.left_active += run.left_active;
        m.refused += run.refused;
        m.left_unknown_state += run.unknown_state;
        m.left_up_to_date += run.up_to_date - run.ahead;
        m.left_ahead += run.ahead;
        m.last_run = Some(run);
    }

    /// Forgets the groups no longer checkpointed.
    pub(super) fn forget_groups(&self, gone: &[String]) {
        let mut partitions = lock(&self.partitions);
        let mut latency = lock(&self.latency);
        for g in gone {
            partitions.remove(g);
            latency.remove(g);
        }
    }

    fn partition_metrics(&self, now: Instant) -> Vec<PartitionMetrics> {
        let all = lock(&self.partitions);
        let mut out: Vec<PartitionMetrics> = all
            .iter()
            .flat_map(|(group, partitions)| {
                partitions.iter().map(move |(tp, s)| PartitionMetrics {
                    group: group.clone(),
                    topic: tp.topic.clone(),
                    partition: tp.partition,
                    committed_offset: s.committed,
                    checkpoint_upstream_offset: s.checkpoint.map(|c| c.0),
                    checkpoint_downstream_offset: s.checkpoint.map(|c| c.1),
                    sync_upstream_offset: s.sync_upstream,
                    replay_bound: replay_bound(s.committed, s.sync_upstream),
                    freshness: s.reflected_at.map(|t| now.saturating_duration_since(t)),
                    skip_reason: s.skip,
                })
            })
            .collect();
        drop(all);
        out.sort_by(|a, b| {
            (&a.group, &a.topic, a.partition).cmp(&(&b.group, &b.topic, b.partition))
        });
        out
    }

    fn latency_metrics(&self, now_ms: i64) -> Vec<CheckpointLatency> {
        let mut all = lock(&self.latency);
        let mut out: Vec<CheckpointLatency> = all
            .iter_mut()
            .flat_map(|(group, stats)| {
                stats.iter_mut().map(move |(tp, stat)| {
                    let m = stat.measure(now_ms);
                    CheckpointLatency {
                        group: group.clone(),
                        topic: tp.topic.clone(),
                        partition: tp.partition,
                        last_ms: m.last,
                        min_ms: m.min,
                        max_ms: m.max,
                        avg_ms: m.avg,
                    }
                })
            })
            .collect();
        drop(all);
        out.sort_by(|a, b| {
            (&a.group, &a.topic, a.partition).cmp(&(&b.group, &b.topic, b.partition))
        });
        out
    }
}

/// Upstream records a failed-over consumer would read again: from the sync its checkpoint was
/// translated through up to the group's commit (none when the commit went below it).
fn replay_bound(committed: Option<i64>, sync_upstream: Option<i64>) -> Option<i64> {
    Some(committed?.saturating_sub(sync_upstream?).max(0))
}

fn micros(us: u64) -> Option<Duration> {
    (us != 0).then(|| Duration::from_micros(us))
}

impl Shared {
    /// One reading of the task's metrics.
    pub(super) fn metrics(&self) -> MetricsSnapshot {
        let c = &self.counters;
        let m = &self.metrics;
        let now = Instant::now();
        let time_ms = now_ms();
        let partitions = m.partition_metrics(now);
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
        let lag = m.offset_sync_lag.load(Ordering::SeqCst);
        MetricsSnapshot {
            source: self.config.source_cluster_alias.clone(),
            target: self.config.target_cluster_alias.clone(),
            time_ms,
            task: TaskMetrics {
                initialized: self.initialized.load(Ordering::SeqCst),
                load_time: micros(c.load_time_us.load(Ordering::SeqCst)),
                groups: self.current_groups().len() as u64,
                cycles: c.cycles.load(Ordering::SeqCst),
                cycles_failed: m.cycles_failed.load(Ordering::SeqCst),
                last_cycle_duration: micros(c.last_cycle_us.load(Ordering::SeqCst)),
                since_last_successful_cycle: lock(&m.last_success)
                    .map(|t| now.saturating_duration_since(t)),
                checkpoints_emitted: c.checkpoints_emitted.load(Ordering::SeqCst),
                offset_syncs_loaded: c.syncs_loaded.load(Ordering::SeqCst),
                offset_sync_lag: (lag != UNKNOWN).then_some(lag),
                records_skipped: c.records_skipped.load(Ordering::SeqCst),
                partitions_skipped,
                group_offset_sync: lock(&m.group_sync).clone(),
                retries: self.retry_metrics(now),
                other_writers: lock(&m.other_writers).clone(),
                offsets_stream: lock(&m.stream_holds).as_ref().map(|h| {
                    let (held_partitions, longest_hold) = h.now();
                    OffsetsStreamMetrics {
                        held_partitions,
                        longest_hold,
                    }
                }),
            },
            checkpoint_latency: m.latency_metrics(time_ms),
            partitions,
        }
    }

    fn retry_metrics(&self, now: Instant) -> RetryMetrics {
        let reason = self.retry_reason();
        let since = if reason.is_none() {
            None
        } else if self.initialized.load(Ordering::SeqCst) {
            [
                self.slow_answer.since(),
                self.jobs_retry.since(),
                self.group_retries.since(),
            ]
            .into_iter()
            .flatten()
            .min()
        } else {
            self.retry.since()
        };
        let count = |kind| match kind {
            RetryKind::Startup => self.retry.retries(STARTUP),
            RetryKind::GroupDiscovery => self.jobs_retry.retries(GROUP_DISCOVERY),
            RetryKind::GroupOffsetSync => self.jobs_retry.retries(GROUP_OFFSET_SYNC),
            RetryKind::GroupFetch => self.group_retries.retried(),
            RetryKind::CheckpointCycle => self.metrics.cycles_retried.load(Ordering::SeqCst),
            RetryKind::CheckpointWrite => self.metrics.writes_failed.load(Ordering::SeqCst),
        };
        RetryMetrics {
            reason,
            retrying_for: since.map(|t| now.saturating_duration_since(t)),
            by_kind: RetryKind::ALL.into_iter().map(|k| (k, count(k))).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition::new("t", p)
    }

    fn committed(pairs: &[(i32, i64)]) -> BTreeMap<TopicPartition, Option<CommittedOffset>> {
        pairs
            .iter()
            .map(|&(p, o)| (tp(p), Some(CommittedOffset::new(o, ""))))
            .collect()
    }

    fn delivered<'a>(
        upstream: &'a TopicPartition,
        renamed: &'a TopicPartition,
        offsets: (i64, i64, i64),
        read_at: Instant,
        latency_ms: i64,
    ) -> Delivered<'a> {
        Delivered {
            group: "g",
            upstream,
            checkpointed: renamed,
            upstream_offset: offsets.0,
            downstream_offset: offsets.1,
            sync_upstream: Some(offsets.2),
            read_at,
            decided_ms: 1_000_000,
            delivered_ms: 1_000_000 + latency_ms,
        }
    }

    #[test]
    fn the_replay_bound_is_the_commit_minus_the_sync_the_checkpoint_went_through() {
        assert_eq!(replay_bound(Some(150), Some(100)), Some(50));
        assert_eq!(replay_bound(Some(100), Some(100)), Some(0));
        assert_eq!(
            replay_bound(Some(90), Some(100)),
            Some(0),
            "rewound below the sync"
        );
        assert_eq!(replay_bound(None, Some(100)), None);
        assert_eq!(replay_bound(Some(150), None), None);
    }

    #[test]
    fn a_delivered_checkpoint_sets_offsets_replay_bound_freshness_and_latency() {
        let m = MetricsRecorder::default();
        let t0 = Instant::now();
        let (up, renamed) = (tp(0), TopicPartition::new("A.t", 0));
        assert!(m
            .group_read("g", &committed(&[(0, 150)]), &[], t0)
            .is_empty());
        m.delivered([delivered(&up, &renamed, (150, 91, 100), t0, 7)]);
        let later = t0 + Duration::from_millis(400);
        let p = &m.partition_metrics(later)[0];
        assert_eq!(
            (p.committed_offset, p.checkpoint_upstream_offset),
            (Some(150), Some(150))
        );
        assert_eq!(p.checkpoint_downstream_offset, Some(91));
        assert_eq!(
            (p.sync_upstream_offset, p.replay_bound),
            (Some(100), Some(50))
        );
        assert_eq!(p.freshness, Some(Duration::from_millis(400)));
        assert_eq!(p.skip_reason, None);
        let l = &m.latency_metrics(1_000_007)[0];
        assert_eq!(
            (l.group.as_str(), l.topic.as_str(), l.partition),
            ("g", "A.t", 0)
        );
        assert_eq!(
            (l.last_ms, l.min_ms, l.max_ms, l.avg_ms),
            (7.0, Some(7.0), Some(7.0), Some(7.0))
        );
    }

    #[test]
    fn freshness_restarts_while_the_checkpoint_reflects_the_commit_and_ages_while_it_does_not() {
        let m = MetricsRecorder::default();
        let t0 = Instant::now();
        let (up, renamed) = (tp(0), TopicPartition::new("A.t", 0));
        m.group_read("g", &committed(&[(0, 150)]), &[], t0);
        m.delivered([delivered(&up, &renamed, (150, 91, 100), t0, 1)]);
        // Next cycle: the commit moved, but translates to the same checkpoint: still fresh.
        let t1 = t0 + Duration::from_secs(10);
        let same = [(tp(0), SkipReason::NotNewerThanLastCheckpoint)];
        m.group_read("g", &committed(&[(0, 160)]), &same, t1);
        let p = &m.partition_metrics(t1 + Duration::from_secs(1))[0];
        assert_eq!(p.freshness, Some(Duration::from_secs(1)));
        assert_eq!(p.replay_bound, Some(60));
        assert_eq!(p.skip_reason, Some(SkipReason::NotNewerThanLastCheckpoint));
        // Then the offset syncs stop loading: the checkpoint no longer follows the commits.
        let t2 = t1 + Duration::from_secs(10);
        let stuck = [(tp(0), SkipReason::NotReadToEnd)];
        m.group_read("g", &committed(&[(0, 400)]), &stuck, t2);
        let p = &m.partition_metrics(t2 + Duration::from_secs(5))[0];
        assert_eq!(p.freshness, Some(Duration::from_secs(15)), "since t1");
        assert_eq!(p.checkpoint_upstream_offset, Some(150));
        assert_eq!(p.replay_bound, Some(300));
    }

    #[test]
    fn a_checkpoint_read_back_at_start_is_asked_for_once_and_then_known() {
        let m = MetricsRecorder::default();
        let t0 = Instant::now();
        let same = [(tp(0), SkipReason::NotNewerThanLastCheckpoint)];
        let unknown = m.group_read("g", &committed(&[(0, 150)]), &same, t0);
        assert_eq!(unknown, vec![tp(0)]);
        m.known_checkpoint("g", &tp(0), (150, 91), Some(100), t0);
        assert!(m
            .group_read("g", &committed(&[(0, 150)]), &same, t0)
            .is_empty());
        let p = &m.partition_metrics(t0)[0];
        assert_eq!(
            (p.replay_bound, p.freshness),
            (Some(50), Some(Duration::ZERO))
        );
    }

    #[test]
    fn a_forgotten_group_leaves_no_partition_and_no_latency() {
        let m = MetricsRecorder::default();
        let t0 = Instant::now();
        let (up, renamed) = (tp(0), TopicPartition::new("A.t", 0));
        m.group_read("g", &committed(&[(0, 150)]), &[], t0);
        m.delivered([delivered(&up, &renamed, (150, 91, 100), t0, 1)]);
        m.forget_groups(&["g".to_string()]);
        assert!(m.partition_metrics(t0).is_empty());
        assert!(m.latency_metrics(1_000_001).is_empty());
    }
}
