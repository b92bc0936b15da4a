//! CheckpointTask end to end on two embedded mock clusters.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks, StopOutcome};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::mirror_checkpoint_config::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

/// Tests here assert process-wide counters, so they run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

const SYNCS: &str = "mm2-offset-syncs.target.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";

fn clusters() -> EmbeddedClusters {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c
}

fn sync(p: i32, up: i64, down: i64) -> OffsetSync {
    OffsetSync::new(TopicPartition::new("orders", p), up, down)
}

fn config(c: &EmbeddedClusters, extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
    let source = c.bootstrap(Side::Source);
    let target = c.bootstrap(Side::Target);
    let mut props = vec![
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", source.as_str()),
        ("target.cluster.bootstrap.servers", target.as_str()),
        ("task.assigned.groups", "g1,g2"),
        ("emit.checkpoints.interval.seconds", "1"),
    ];
    props.extend_from_slice(extra);
    MirrorCheckpointConfig::from_properties(props).unwrap().0
}

fn poll_until_emitted(task: &CheckpointTask) -> Vec<Checkpoint> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = task.poll(Duration::from_secs(2)).unwrap();
        if out.status == PollStatus::Emitted && !out.checkpoints.is_empty() {
            return out.checkpoints;
        }
        assert!(
            Instant::now() < deadline,
            "no checkpoints within 30 s: {out:?} {:?} {:?}",
            task.fatal_error(),
            task.partition_statuses()
        );
    }
}

fn assert_no_leaks() {
    assert_eq!(
        diagnostics::live_clients(),
        0,
        "live Kafka clients after stop"
    );
    assert_eq!(
        diagnostics::live_threads(),
        0,
        "live library threads after stop"
    );
    assert_eq!(
        diagnostics::concurrent_client_access(),
        0,
        "overlapping client calls"
    );
}

#[test]
fn checkpoints_for_several_groups_and_partitions_reach_the_batch_and_the_target_topic() {
    let _g = serial();
    init_log();
    let c = clusters();
    c.produce_offset_syncs(
        Side::Source,
        SYNCS,
        &[sync(0, 0, 0), sync(0, 100, 90), sync(1, 50, 40)],
    )
    .unwrap();
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, "m1"), ("orders", 1, 50, "")],
    )
    .unwrap();
    c.commit_offsets(Side::Source, "g2", &[("orders", 0, 100, "")])
        .unwrap();

    let task = CheckpointTask::new(config(&c, &[])).unwrap();
    task.start().unwrap();
    let mut batch = poll_until_emitted(&task);
    batch.sort_by(|a, b| {
        (&a.consumer_group_id, &a.topic_partition).cmp(&(&b.consumer_group_id, &b.topic_partition))
    });
    let expected = vec![
        Checkpoint::new("g1", TopicPartition::new("source.orders", 0), 150, 91, "m1"),
        Checkpoint::new("g1", TopicPartition::new("source.orders", 1), 50, 40, ""),
        Checkpoint::new("g2", TopicPartition::new("source.orders", 0), 100, 90, ""),
    ];
    assert_eq!(batch, expected);
    let mut written = c.read_checkpoints(CHECKPOINTS).unwrap();
    written.sort_by(|a, b| {
        (&a.consumer_group_id, &a.topic_partition).cmp(&(&b.consumer_group_id, &b.topic_partition))
    });
    assert_eq!(written, expected);
    assert_eq!(task.stats().checkpoints_emitted, 3);
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert_eq!(task.stop().unwrap(), StopOutcome::AlreadyStopped);
    assert_no_leaks();
}

#[test]
fn stop_while_checkpoint_store_start_is_held_orders_flag_wake_join_close() {
    let _g = serial();
    init_log();
    let c = clusters();
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let reached = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let (ev, r) = (Arc::clone(&events), Arc::clone(&reached));
    let hooks = StartupHooks {
        checkpoint_store_reading: Some(Arc::new(move |signal| {
            ev.lock()
                .unwrap()
                .push("checkpoint store start running".into());
            *r.0.lock().unwrap() = true;
            r.1.notify_all();
            // Hold the store mid-start until the stop arrives (a latch released by stop).
            while signal.sleep(Duration::from_secs(60)) {}
            ev.lock()
                .unwrap()
                .push("checkpoint store start returned".into());
        })),
        offset_sync_store_reading: None,
    };
    let task = CheckpointTask::with_hooks(config(&c, &[]), hooks).unwrap();
    let ev = Arc::clone(&events);
    task.stop_signal().set_observer(Arc::new(move |step| {
        ev.lock().unwrap().push(step.to_string())
    }));
    task.start().unwrap();
    {
        let mut held = reached.0.lock().unwrap();
        while !*held {
            held = reached.1.wait(held).unwrap();
        }
    }
    task.stop().unwrap();
    let events = events.lock().unwrap().clone();
    let pos = |s: &str| {
        events
            .iter()
            .position(|e| e == s)
            .unwrap_or_else(|| panic!("no `{s}` in {events:?}"))
    };
    // flag → (the held start sees it and returns) → wake done → join → close.
    assert!(
        pos("stop flag set") < pos("checkpoint store start returned"),
        "{events:?}"
    );
    assert!(pos("stop flag set") < pos("woken"), "{events:?}");
    assert!(pos("woken") < pos("joined scheduler"), "{events:?}");
    assert!(
        pos("checkpoint store start returned") < pos("joined scheduler"),
        "{events:?}"
    );
    assert!(
        pos("joined scheduler") < pos("closed checkpoints-target-consumer"),
        "{events:?}"
    );
    assert_no_leaks();
}

struct StderrLog;
impl log::Log for StderrLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Debug
    }
    fn log(&self, r: &log::Record) {
        eprintln!(
            "{:?} [{}] {} {}",
            Instant::now(),
            r.level(),
            r.target(),
            r.args()
        );
    }
    fn flush(&self) {}
}
#[test]
fn zz_log() {}
pub fn init_log() {
    let _ = log::set_logger(&StderrLog);
    log::set_max_level(log::LevelFilter::Debug);
}
