//! The task's metrics on two embedded (librdkafka mock) clusters: MM2's checkpoint latency,
//! freshness, the replay bound and the skipped partitions after real cycles, the statistics
//! listener's thread contract, and retries counted by kind.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::faults::Fault;
use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::metrics::{MetricsSnapshot, PartitionMetrics, RetryKind, SCHEMA_VERSION};
use mm2_checkpoint::Error;
use mm2_checkpoint::SkipReason;
use mm2_checkpoint::{OffsetSync, TopicPartition};
use rdkafka::error::RDKafkaErrorCode;

use support::runtime::{embedded_task_config, install_logger, poll_until_emitted};
use support::wait_until;

const SYNCS: &str = "mm2-offset-syncs.target.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";
const EMIT_WAIT: Duration = Duration::from_secs(30);

/// Syncs 0→0 and 100→90 on orders-0, 0→0 and 50→40 on orders-1; g1 committed 150 and 50, g2
/// committed 100 on orders-0. MM2 translates g1@150 through the sync at 100 (to 91), the others
/// hit a sync exactly.
fn seeded() -> EmbeddedClusters {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    let sync = |p, up, down| OffsetSync::new(TopicPartition::new("orders", p), up, down);
    c.produce_offset_syncs(
        Side::Source,
        SYNCS,
        &[sync(0, 0, 0), sync(0, 100, 90), sync(1, 50, 40)],
    )
    .unwrap();
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, "m"), ("orders", 1, 50, "")],
    )
    .unwrap();
    c.commit_offsets(Side::Source, "g2", &[("orders", 0, 100, "")])
        .unwrap();
    c
}

fn task(c: &EmbeddedClusters, extra: &[(&str, &str)]) -> CheckpointTask {
    let mut props = vec![("task.assigned.groups", "g1,g2")];
    props.extend_from_slice(extra);
    CheckpointTask::new(embedded_task_config(c, &props)).unwrap()
}

fn partition(m: &MetricsSnapshot, group: &str, p: i32) -> PartitionMetrics {
    m.partitions
        .iter()
        .find(|x| x.group == group && x.topic == "orders" && x.partition == p)
        .cloned()
        .unwrap_or_else(|| panic!("no {group} orders-{p} in {:?}", m.partitions))
}

/// Polls until a cycle ran (nothing need be written).
fn next_cycle(task: &CheckpointTask) {
    let deadline = Instant::now() + EMIT_WAIT;
    while task.poll(Duration::from_millis(500)).unwrap().status != PollStatus::CycleDone {
        assert!(
            Instant::now() < deadline,
            "no cycle: {:?}",
            task.fatal_error()
        );
    }
}

#[test]
fn after_a_cycle_each_partition_has_its_offsets_replay_bound_freshness_and_latency() {
    install_logger();
    let c = seeded();
    let task = task(&c, &[]);
    let began_ms = now_ms();
    task.start().unwrap();
    assert_eq!(poll_until_emitted(&task, EMIT_WAIT).len(), 3);
    let m = task.metrics();
    let elapsed_ms = (now_ms() - began_ms) as f64;

    // (group, partition) → committed, checkpoint upstream → downstream, sync, replay bound.
    let want = [
        ("g1", 0, 150, 91, 100, 50),
        ("g1", 1, 50, 40, 50, 0),
        ("g2", 0, 100, 90, 100, 0),
    ];
    for (g, p, committed, down, sync, replay) in want {
        let x = partition(&m, g, p);
        assert_eq!(x.committed_offset, Some(committed), "{x:?}");
        assert_eq!(x.checkpoint_upstream_offset, Some(committed), "{x:?}");
        assert_eq!(x.checkpoint_downstream_offset, Some(down), "{x:?}");
        assert_eq!(x.sync_upstream_offset, Some(sync), "{x:?}");
        assert_eq!(x.replay_bound, Some(replay), "{x:?}");
        assert_eq!(x.skip_reason, None, "{x:?}");
        let fresh = x.freshness.expect("a checkpoint reflects the commit");
        assert!(fresh.as_millis() as f64 <= elapsed_ms, "{x:?}");
    }

    // MM2's latency, tagged with the renamed topic; one record each, so min = max = avg = value.
    let mut tags: Vec<_> = m
        .checkpoint_latency
        .iter()
        .map(|l| (l.group.as_str(), l.topic.as_str(), l.partition))
        .collect();
    tags.sort();
    assert_eq!(
        tags,
        [
            ("g1", "source.orders", 0),
            ("g1", "source.orders", 1),
            ("g2", "source.orders", 0)
        ]
    );
    for l in &m.checkpoint_latency {
        assert!(l.last_ms >= 0.0 && l.last_ms <= elapsed_ms, "{l:?}");
        assert_eq!(
            (l.min_ms, l.max_ms, l.avg_ms),
            (Some(l.last_ms), Some(l.last_ms), Some(l.last_ms))
        );
    }

    let t = &m.task;
    assert!(t.initialized && t.load_time.is_some());
    assert_eq!(
        (t.groups, t.checkpoints_emitted, t.offset_syncs_loaded),
        (2, 3, 3)
    );
    assert_eq!((t.cycles_failed, t.offset_sync_lag), (0, Some(0)));
    assert!(t.cycles >= 1 && t.last_cycle_duration.is_some());
    let since = t.since_last_successful_cycle.expect("a good cycle ran");
    assert!(since.as_millis() as f64 <= elapsed_ms);
    assert_eq!((t.retries.reason.as_deref(), t.retries.total()), (None, 0));
    assert_eq!(m.source, "source");
    assert_eq!(m.target, "target");
    let doc: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(doc["schema_version"], SCHEMA_VERSION);
    assert_eq!(doc["partitions"][0]["replay_bound"], 50, "{doc}");
    task.stop().unwrap();
}

#[test]
fn freshness_ages_without_cycles_and_a_cycle_that_finds_the_checkpoint_current_renews_it() {
    install_logger();
    let c = seeded();
    let task = task(&c, &[]);
    task.start().unwrap();
    poll_until_emitted(&task, EMIT_WAIT);
    // No poll, so no cycle: the target's view of the commits only gets older.
    wait_until(Duration::from_secs(20), "freshness past 1.5 s", || {
        partition(&task.metrics(), "g1", 0).freshness > Some(Duration::from_millis(1500))
    });
    // The group moves on, but no newer sync exists: the next checkpoint would be the same, so
    // the one written is current, and the records a failover re-reads grow.
    c.commit_offsets(Side::Source, "g1", &[("orders", 0, 160, "m")])
        .unwrap();
    let before = Instant::now();
    next_cycle(&task);
    let m = task.metrics();
    let x = partition(&m, "g1", 0);
    assert_eq!(x.skip_reason, Some(SkipReason::NotNewerThanLastCheckpoint));
    assert_eq!(
        (x.committed_offset, x.checkpoint_upstream_offset),
        (Some(160), Some(150))
    );
    assert_eq!(x.replay_bound, Some(60));
    assert!(x.freshness.unwrap() <= before.elapsed(), "{x:?}");
    let skipped = |r| {
        m.task
            .partitions_skipped
            .iter()
            .find(|(k, _)| *k == r)
            .map(|(_, n)| *n)
            .unwrap()
    };
    assert_eq!(skipped(SkipReason::NotNewerThanLastCheckpoint), 3, "{m:?}");
    let with_reason = m
        .partitions
        .iter()
        .filter(|p| p.skip_reason.is_some())
        .count() as u64;
    let counted: u64 = m.task.partitions_skipped.iter().map(|(_, n)| n).sum();
    assert_eq!(counted, with_reason);
    task.stop().unwrap();
}

/// Across a restart, the checkpoints come back from the checkpoints topic: a loaded checkpoint's
/// replay bound is the one the first run reported while the sync it went through is still kept,
/// and unknown (`None`) once later syncs have evicted that sync, never the distance to an older
/// sync it did not go through (g1 committed 150 and failing over re-reads the 50 records after
/// 100 -> 90, not 150).
#[test]
fn a_loaded_checkpoints_replay_bound_is_its_own_syncs_or_unknown_after_a_restart() {
    install_logger();
    let c = seeded();
    let first = task(&c, &[]);
    first.start().unwrap();
    poll_until_emitted(&first, EMIT_WAIT);
    let x = partition(&first.metrics(), "g1", 0);
    assert_eq!(
        (x.sync_upstream_offset, x.replay_bound),
        (Some(100), Some(50))
    );
    first.stop().unwrap();

    let loaded = |task: &CheckpointTask| {
        task.start().unwrap();
        next_cycle(task);
        let m = task.metrics();
        assert_eq!(m.task.checkpoints_emitted, 0, "{m:?}");
        partition(&m, "g1", 0)
    };
    let second = task(&c, &[]);
    let x = loaded(&second);
    second.stop().unwrap();
    assert_eq!(x.skip_reason, Some(SkipReason::NotNewerThanLastCheckpoint));
    assert_eq!(
        (x.checkpoint_upstream_offset, x.checkpoint_downstream_offset),
        (Some(150), Some(91))
    );
    assert_eq!(
        (x.sync_upstream_offset, x.replay_bound),
        (Some(100), Some(50)),
        "{x:?}"
    );

    // 50 later syncs, far past the commit, leave 100 -> 90 out of the store's history (the
    // core's unit test shows the same stream does); the newest kept sync at or before 150 is
    // then 0 -> 0, which the checkpoint 150 -> 91 did not go through.
    let later: Vec<OffsetSync> = (1..=50)
        .map(|i| OffsetSync::new(TopicPartition::new("orders", 0), 200 + i * 10, 190 + i * 10))
        .collect();
    c.produce_offset_syncs(Side::Source, SYNCS, &later).unwrap();
    let third = task(&c, &[]);
    let x = loaded(&third);
    third.stop().unwrap();
    assert_eq!(
        (x.checkpoint_upstream_offset, x.checkpoint_downstream_offset),
        (Some(150), Some(91))
    );
    assert_eq!(
        (x.sync_upstream_offset, x.replay_bound),
        (None, None),
        "{x:?}"
    );
}

/// The names of this process's threads as the kernel keeps them (15 bytes), which is what top,
/// gdb and a JVM attaching the thread show.
fn kernel_thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .map(|s| s.trim_end().to_string())
        .collect()
}

/// A task's threads lead with their flow within those 15 bytes (`A->B cycle`), so two tasks of
/// one process tell apart there; none is left after the stop.
#[test]
fn a_tasks_threads_lead_with_their_flow_in_the_15_bytes_linux_keeps() {
    install_logger();
    let c = seeded();
    let task = CheckpointTask::new(embedded_task_config(
        &c,
        &[
            ("source.cluster.alias", "A"),
            ("target.cluster.alias", "B"),
            ("task.assigned.groups", "g1"),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    wait_until(Duration::from_secs(10), "the task's cycle thread", || {
        kernel_thread_names().iter().any(|n| n == "A->B cycle")
    });
    task.stop().unwrap();
    let left: Vec<String> = kernel_thread_names()
        .into_iter()
        .filter(|n| n.starts_with("A->B "))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_listener_gets_a_snapshot_every_interval_on_its_own_thread_and_none_after_stop() {
    install_logger();
    let c = seeded();
    let task = Arc::new(task(&c, &[("statistics.interval.ms", "50")]));
    #[derive(Default)]
    struct Seen {
        snapshots: Vec<MetricsSnapshot>,
        threads: Vec<String>,
        stop_inside: Vec<String>,
        after_stop: usize,
        stopped: bool,
    }
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (s, weak) = (Arc::clone(&seen), Arc::downgrade(&task));
    task.set_metrics_listener(Some(Arc::new(move |m: &MetricsSnapshot| {
        let stop = weak.upgrade().map(|t| t.stop());
        let mut s = s.lock().unwrap();
        s.after_stop += usize::from(s.stopped);
        s.snapshots.push(m.clone());
        s.threads
            .push(std::thread::current().name().unwrap_or("").to_string());
        if let Some(Err(e)) = stop {
            s.stop_inside.push(e.to_string());
        }
    })))
    .unwrap();
    task.start().unwrap();
    assert!(matches!(
        task.set_metrics_listener(None),
        Err(Error::AlreadyStarted)
    ));
    poll_until_emitted(&task, EMIT_WAIT);
    wait_until(
        Duration::from_secs(20),
        "a snapshot counting the checkpoints",
        || {
            seen.lock()
                .unwrap()
                .snapshots
                .iter()
                .any(|m| m.task.checkpoints_emitted == 3)
        },
    );
    task.stop().unwrap();
    let mut s = seen.lock().unwrap();
    s.stopped = true;
    assert!(s.snapshots.len() >= 2);
    assert!(
        s.threads
            .iter()
            // `source->target stats` would pass the 15 bytes Linux keeps: the flow's short id.
            .all(|t| t.starts_with("mm2 ") && t.ends_with(" stats") && t.len() == 14),
        "{:?}",
        s.threads
    );
    assert_eq!(
        s.stop_inside.len(),
        s.snapshots.len(),
        "stop refused every time"
    );
    assert!(
        s.stop_inside[0].contains("metrics listener"),
        "{}",
        s.stop_inside[0]
    );
    // One interval apart at least (the first comes one interval after start).
    let times: Vec<i64> = s.snapshots.iter().map(|m| m.time_ms).collect();
    assert!(times.windows(2).all(|w| w[1] - w[0] >= 25), "{times:?}");
    drop(s);
    assert_eq!(seen.lock().unwrap().after_stop, 0);
    assert!(matches!(
        task.set_metrics_listener(None),
        Err(Error::AlreadyStopped)
    ));
}

#[test]
fn a_failed_group_fetch_is_a_counted_retry_with_its_reason_until_the_next_cycle_fetches_it() {
    install_logger();
    let c = seeded();
    let task = task(&c, &[]);
    task.inject_fault(Fault::CycleGroupOffsetsFail(
        RDKafkaErrorCode::CoordinatorLoadInProgress,
    ));
    task.start().unwrap();
    next_cycle(&task);
    let r = task.metrics().task.retries;
    let count = |r: &mm2_checkpoint::metrics::RetryMetrics, k| {
        r.by_kind
            .iter()
            .find(|(x, _)| *x == k)
            .map(|(_, n)| *n)
            .unwrap()
    };
    assert_eq!(count(&r, RetryKind::GroupFetch), 1, "{r:?}");
    assert_eq!(r.total(), 1);
    assert!(
        r.reason
            .as_deref()
            .unwrap_or("")
            .contains("CoordinatorLoadInProgress"),
        "{r:?}"
    );
    assert!(r.retrying_for.is_some());
    next_cycle(&task);
    let r = task.metrics().task.retries;
    assert_eq!((r.reason.as_deref(), r.retrying_for), (None, None));
    assert_eq!(count(&r, RetryKind::GroupFetch), 1, "a count, not a state");
    task.stop().unwrap();
}

#[test]
fn a_cycle_that_ends_the_task_counts_as_failed_but_not_as_a_retry() {
    install_logger();
    let c = seeded();
    let task = task(&c, &[]);
    task.inject_fault(Fault::CycleGroupOffsetsFail(
        RDKafkaErrorCode::Authentication,
    ));
    task.start().unwrap();
    let deadline = Instant::now() + EMIT_WAIT;
    while task.poll(Duration::from_millis(500)).unwrap().status != PollStatus::Failed {
        assert!(Instant::now() < deadline);
    }
    let t = task.metrics().task;
    assert_eq!(t.cycles_failed, 1);
    assert_eq!(t.retries.total(), 0, "{:?}", t.retries);
    assert_eq!(t.since_last_successful_cycle, None);
    task.stop().unwrap();
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn start_up_against_a_closed_port_reports_its_retries_and_since_when() {
    install_logger();
    let props = [
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", "127.0.0.1:1"),
        ("target.cluster.bootstrap.servers", "127.0.0.1:1"),
        ("task.assigned.groups", "g1"),
        ("admin.timeout.ms", "300"),
    ];
    let config = mm2_checkpoint::MirrorCheckpointConfig::from_properties(props)
        .unwrap()
        .0;
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    let startup = |m: &MetricsSnapshot| {
        m.task
            .retries
            .by_kind
            .iter()
            .find(|(k, _)| *k == RetryKind::Startup)
            .map(|(_, n)| *n)
            .unwrap()
    };
    wait_until(Duration::from_secs(30), "a start-up retry", || {
        startup(&task.metrics()) >= 1
    });
    let first = task.metrics();
    let reason = first.task.retries.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("127.0.0.1:1")
            || reason.contains("unreachable")
            || reason.contains("start-up failed"),
        "{reason}"
    );
    assert!(!first.task.initialized);
    wait_until(Duration::from_secs(10), "the retry lasting longer", || {
        task.metrics().task.retries.retrying_for > first.task.retries.retrying_for
    });
    task.stop().unwrap();
    let m = task.metrics();
    assert_eq!(
        (
            m.task.retries.reason.as_deref(),
            m.task.retries.retrying_for
        ),
        (None, None),
        "a stopped task retries nothing"
    );
    assert!(startup(&m) >= 1, "counts stay");
}
