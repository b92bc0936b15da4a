//! The metrics JSON document, schema version 1 (docs/OPERATIONS.md "JSON document"): what the C
//! statistics callback and `mm_task_metrics_json` deliver. Fields are only ever added within a
//! version; a field removed or changing meaning raises [`SCHEMA_VERSION`].
//!
//! Durations are milliseconds (numbers, possibly fractional); counters are integers; a value not
//! known yet is `null`. Java's NaN (an empty latency window) is `null` too: JSON has no NaN.

use serde::Serialize;

use super::{CheckpointLatency, MetricsSnapshot, PartitionMetrics, TaskMetrics};
use std::time::Duration;

/// The `schema_version` of the document [`MetricsSnapshot::to_json`] writes.
pub const SCHEMA_VERSION: u32 = 1;

fn ms(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_secs_f64() * 1000.0)
}

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    source: &'a str,
    target: &'a str,
    time_ms: i64,
    task: Task<'a>,
    checkpoint_latency: Vec<Latency<'a>>,
    partitions: Vec<Partition<'a>>,
}

#[derive(Serialize)]
struct Task<'a> {
    initialized: bool,
    load_time_ms: Option<f64>,
    groups: u64,
    cycles: u64,
    cycles_failed: u64,
    last_cycle_duration_ms: Option<f64>,
    since_last_successful_cycle_ms: Option<f64>,
    checkpoints_emitted: u64,
    offset_syncs_loaded: u64,
    offset_sync_lag: Option<u64>,
    records_skipped: u64,
    partitions_skipped: serde_json::Map<String, serde_json::Value>,
    group_offset_sync: GroupOffsetSync,
    retries: Retries<'a>,
    other_writers: OtherWriters<'a>,
    offsets_stream: Option<OffsetsStream>,
}

#[derive(Serialize)]
struct OffsetsStream {
    held_partitions: u64,
    longest_hold_ms: Option<f64>,
}

#[derive(Serialize)]
struct OtherWriters<'a> {
    checkpoints: u64,
    writers: &'a [String],
}

#[derive(Serialize)]
struct GroupOffsetSync {
    runs: u64,
    written: u64,
    left_active: u64,
    refused: u64,
    left_unknown_state: u64,
    left_up_to_date: u64,
    left_ahead: u64,
    last_run: Option<LastRun>,
}

#[derive(Serialize)]
struct LastRun {
    written: u64,
    left_active: u64,
    refused: u64,
    unknown_state: u64,
    up_to_date: u64,
    ahead: u64,
}

#[derive(Serialize)]
struct Retries<'a> {
    reason: Option<&'a str>,
    retrying_for_ms: Option<f64>,
    total: u64,
    by_kind: serde_json::Map<String, serde_json::Value>,
}

/// Java's tags, in the order of its ObjectName.
#[derive(Serialize)]
struct Tags<'a> {
    source: &'a str,
    target: &'a str,
    group: &'a str,
    topic: &'a str,
    partition: String,
}

#[derive(Serialize)]
struct Latency<'a> {
    tags: Tags<'a>,
    #[serde(rename = "checkpoint-latency-ms")]
    last: f64,
    #[serde(rename = "checkpoint-latency-ms-min")]
    min: Option<f64>,
    #[serde(rename = "checkpoint-latency-ms-max")]
    max: Option<f64>,
    #[serde(rename = "checkpoint-latency-ms-avg")]
    avg: Option<f64>,
}

#[derive(Serialize)]
struct Partition<'a> {
    group: &'a str,
    topic: &'a str,
    partition: i32,
    committed_offset: Option<i64>,
    checkpoint_upstream_offset: Option<i64>,
    checkpoint_downstream_offset: Option<i64>,
    sync_upstream_offset: Option<i64>,
    replay_bound: Option<i64>,
    freshness_ms: Option<f64>,
    skip_reason: Option<&'static str>,
}

fn counts<K>(
    pairs: &[(K, u64)],
    name: impl Fn(&K) -> &'static str,
) -> serde_json::Map<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(k, n)| (name(k).to_string(), (*n).into()))
        .collect()
}

fn task(t: &TaskMetrics) -> Task<'_> {
    let g = &t.group_offset_sync;
    Task {
        initialized: t.initialized,
        load_time_ms: ms(t.load_time),
        groups: t.groups,
        cycles: t.cycles,
        cycles_failed: t.cycles_failed,
        last_cycle_duration_ms: ms(t.last_cycle_duration),
        since_last_successful_cycle_ms: ms(t.since_last_successful_cycle),
        checkpoints_emitted: t.checkpoints_emitted,
        offset_syncs_loaded: t.offset_syncs_loaded,
        offset_sync_lag: t.offset_sync_lag,
        records_skipped: t.records_skipped,
        partitions_skipped: counts(&t.partitions_skipped, |r| r.as_str()),
        group_offset_sync: GroupOffsetSync {
            runs: g.runs,
            written: g.written,
            left_active: g.left_active,
            refused: g.refused,
            left_unknown_state: g.left_unknown_state,
            left_up_to_date: g.left_up_to_date,
            left_ahead: g.left_ahead,
            last_run: g.last_run.as_ref().map(|r| LastRun {
                written: r.written,
                left_active: r.left_active,
                refused: r.refused,
                unknown_state: r.unknown_state,
                up_to_date: r.up_to_date,
                ahead: r.ahead,
            }),
        },
        retries: Retries {
            reason: t.retries.reason.as_deref(),
            retrying_for_ms: ms(t.retries.retrying_for),
            total: t.retries.total(),
            by_kind: counts(&t.retries.by_kind, |k| k.as_str()),
        },
        other_writers: OtherWriters {
            checkpoints: t.other_writers.checkpoints,
            writers: &t.other_writers.writers,
        },
        offsets_stream: t.offsets_stream.as_ref().map(|s| OffsetsStream {
            held_partitions: s.held_partitions,
            longest_hold_ms: ms(s.longest_hold),
        }),
    }
}

fn latency<'a>(s: &'a MetricsSnapshot, l: &'a CheckpointLatency) -> Latency<'a> {
    Latency {
        tags: Tags {
            source: &s.source,
            target: &s.target,
            group: &l.group,
            topic: &l.topic,
            partition: l.partition.to_string(),
        },
        last: l.last_ms,
        min: l.min_ms,
        max: l.max_ms,
        avg: l.avg_ms,
    }
}

fn partition(p: &PartitionMetrics) -> Partition<'_> {
    Partition {
        group: &p.group,
        topic: &p.topic,
        partition: p.partition,
        committed_offset: p.committed_offset,
        checkpoint_upstream_offset: p.checkpoint_upstream_offset,
        checkpoint_downstream_offset: p.checkpoint_downstream_offset,
        sync_upstream_offset: p.sync_upstream_offset,
        replay_bound: p.replay_bound,
        freshness_ms: ms(p.freshness),
        skip_reason: p.skip_reason.map(|r| r.as_str()),
    }
}

impl MetricsSnapshot {
    /// The JSON document of schema version [`SCHEMA_VERSION`] (docs/OPERATIONS.md), on one line.
    pub fn to_json(&self) -> String {
        let doc = Document {
            schema_version: SCHEMA_VERSION,
            source: &self.source,
            target: &self.target,
            time_ms: self.time_ms,
            task: task(&self.task),
            checkpoint_latency: self
                .checkpoint_latency
                .iter()
                .map(|l| latency(self, l))
                .collect(),
            partitions: self.partitions.iter().map(partition).collect(),
        };
        // Serialising plain structs of strings and finite numbers cannot fail; a NaN would
        // become `null`.
        serde_json::to_string(&doc).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::metrics::{
        GroupOffsetSyncMetrics, GroupOffsetSyncRun, OffsetsStreamMetrics, OtherWriterMetrics,
        RetryKind, RetryMetrics,
    };
    use mm2_checkpoint_core::checkpoint_rules::SkipReason;

    fn snapshot() -> MetricsSnapshot {
        MetricsSnapshot {
            source: "A".into(),
            target: "B".into(),
            time_ms: 1_700_000_000_000,
            task: TaskMetrics {
                initialized: true,
                load_time: Some(Duration::from_micros(1_500)),
                groups: 2,
                cycles: 7,
                cycles_failed: 1,
                last_cycle_duration: Some(Duration::from_millis(12)),
                since_last_successful_cycle: Some(Duration::from_millis(250)),
                checkpoints_emitted: 9,
                offset_syncs_loaded: 40,
                offset_sync_lag: Some(3),
                records_skipped: 0,
                partitions_skipped: SkipReason::ALL
                    .into_iter()
                    .map(|r| (r, u64::from(r == SkipReason::NoOffsetSync)))
                    .collect(),
                group_offset_sync: GroupOffsetSyncMetrics {
                    runs: 2,
                    written: 5,
                    left_active: 1,
                    refused: 0,
                    left_unknown_state: 0,
                    left_up_to_date: 4,
                    left_ahead: 2,
                    last_run: Some(GroupOffsetSyncRun {
                        written: 2,
                        up_to_date: 3,
                        ahead: 1,
                        ..GroupOffsetSyncRun::default()
                    }),
                },
                retries: RetryMetrics {
                    reason: Some("fetching \"g\"".into()),
                    retrying_for: Some(Duration::from_secs(2)),
                    by_kind: RetryKind::ALL
                        .into_iter()
                        .map(|k| (k, u64::from(k == RetryKind::GroupFetch) * 4))
                        .collect(),
                },
                other_writers: OtherWriterMetrics {
                    checkpoints: 3,
                    writers: vec!["mm2-checkpoint 0.1.0 on h (pid 7, task 1)".into()],
                },
                offsets_stream: Some(OffsetsStreamMetrics {
                    held_partitions: 1,
                    longest_hold: Some(Duration::from_millis(2500)),
                }),
            },
            checkpoint_latency: vec![CheckpointLatency {
                group: "g".into(),
                topic: "A.t".into(),
                partition: 0,
                last_ms: 8.0,
                min_ms: Some(5.0),
                max_ms: Some(8.0),
                avg_ms: None,
            }],
            partitions: vec![PartitionMetrics {
                group: "g".into(),
                topic: "t".into(),
                partition: 0,
                committed_offset: Some(130),
                checkpoint_upstream_offset: Some(130),
                checkpoint_downstream_offset: Some(101),
                sync_upstream_offset: Some(100),
                replay_bound: Some(30),
                freshness: Some(Duration::from_millis(40)),
                skip_reason: None,
            }],
        }
    }

    /// The document's shape is the C contract (docs/OPERATIONS.md): a change here is a
    /// deliberate schema change.
    #[test]
    fn the_json_document_of_schema_1_has_exactly_this_shape() {
        let want = concat!(
            r#"{"schema_version":1,"source":"A","target":"B","time_ms":1700000000000,"#,
            r#""task":{"initialized":true,"load_time_ms":1.5,"groups":2,"cycles":7,"#,
            r#""cycles_failed":1,"last_cycle_duration_ms":12.0,"#,
            r#""since_last_successful_cycle_ms":250.0,"checkpoints_emitted":9,"#,
            r#""offset_syncs_loaded":40,"offset_sync_lag":3,"records_skipped":0,"#,
            r#""partitions_skipped":{"negative_translation":0,"no_committed_offset":0,"#,
            r#""no_offset_sync":1,"not_newer_than_last_checkpoint":0,"not_read_to_end":0,"#,
            r#""older_than_every_kept_sync":0,"renamed_partition_collides":0,"topic_filtered":0},"#,
            r#""group_offset_sync":{"runs":2,"written":5,"left_active":1,"refused":0,"#,
            r#""left_unknown_state":0,"left_up_to_date":4,"left_ahead":2,"#,
            r#""last_run":{"written":2,"left_active":0,"refused":0,"unknown_state":0,"up_to_date":3,"ahead":1}},"#,
            r#""retries":{"reason":"fetching \"g\"","retrying_for_ms":2000.0,"total":4,"#,
            r#""by_kind":{"checkpoint_cycle":0,"checkpoint_write":0,"group_discovery":0,"#,
            r#""group_fetch":4,"group_offset_sync":0,"startup":0}},"#,
            r#""other_writers":{"checkpoints":3,"writers":["mm2-checkpoint 0.1.0 on h (pid 7, task 1)"]},"#,
            r#""offsets_stream":{"held_partitions":1,"longest_hold_ms":2500.0}},"#,
            r#""checkpoint_latency":[{"tags":{"source":"A","target":"B","group":"g","topic":"A.t","partition":"0"},"#,
            r#""checkpoint-latency-ms":8.0,"checkpoint-latency-ms-min":5.0,"#,
            r#""checkpoint-latency-ms-max":8.0,"checkpoint-latency-ms-avg":null}],"#,
            r#""partitions":[{"group":"g","topic":"t","partition":0,"committed_offset":130,"#,
            r#""checkpoint_upstream_offset":130,"checkpoint_downstream_offset":101,"#,
            r#""sync_upstream_offset":100,"replay_bound":30,"freshness_ms":40.0,"skip_reason":null}]}"#
        );
        assert_eq!(snapshot().to_json(), want);
    }

    #[test]
    fn a_nan_latency_is_written_as_null_so_the_document_stays_json() {
        let mut s = snapshot();
        s.checkpoint_latency[0].last_ms = f64::NAN;
        let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert!(v["checkpoint_latency"][0]["checkpoint-latency-ms"].is_null());
    }
}
