//! The handover of `task.assignment=group`, step by step, on real Kafka: two tasks in this test
//! process (their hooks are what makes the order of events deterministic, and hooks cannot reach
//! into another process), each with its own clients and coordination consumer, as two processes
//! would have.
//!
//! - A handover in the middle of a cycle: the old owner's revocation waits for its running cycle,
//!   which abandons the moved group's checkpoints; the new owner gets the partition only then.
//! - A revoke while start-up is still loading: acknowledged at once, so the new owner takes the
//!   partition over while the old one is still loading; the old one never adopts it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks};
use mm2_checkpoint::coordination_partition;
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{OffsetSync, TopicPartition};

use support::broker::{shared, unique};
use support::runtime::{produce_syncs, read_checkpoints, Latch};
use support::{commit_group_offsets, create_topic, create_topic_with_config, wait_until};

const WAIT: Duration = Duration::from_secs(60);

/// One flow on the shared broker with its own names: two coordination partitions and one group
/// on each.
struct Flow {
    bootstrap: String,
    source: String,
    topic: String,
    syncs_topic: String,
    groups: [String; 2],
}

impl Flow {
    fn new() -> Flow {
        let bootstrap = shared().bootstrap();
        let source = unique("hsrc").replace('-', "_");
        let topic = unique("orders");
        let syncs_topic = format!("mm2-offset-syncs.{source}-target.internal");
        create_topic(&bootstrap, &topic, 1);
        create_topic(&bootstrap, &syncs_topic, 1);
        create_topic_with_config(
            &bootstrap,
            &format!("{source}.checkpoints.internal"),
            1,
            &[("cleanup.policy", "compact")],
        );
        // The first group names that hash to partition 0 and to partition 1.
        let pick = |p: i32| {
            (0..)
                .map(|i| format!("{source}-g{i}"))
                .find(|g| coordination_partition(g, 2) == p)
                .unwrap()
        };
        Flow {
            bootstrap,
            groups: [pick(0), pick(1)],
            source,
            topic,
            syncs_topic,
        }
    }

    /// Every group commits `offset`, translated by a sync `offset -> offset`.
    fn advance(&self, offset: i64) {
        let sync = OffsetSync::new(TopicPartition::new(self.topic.clone(), 0), offset, offset);
        produce_syncs(&self.bootstrap, &self.syncs_topic, &[sync], false);
        for g in &self.groups {
            commit_group_offsets(&self.bootstrap, g, &[(&self.topic, 0, offset, "")]);
        }
    }

    fn config(&self) -> MirrorCheckpointConfig {
        let target_alias = format!("{}-target", self.source);
        let groups = format!("{}-g.*", self.source);
        let props = [
            ("source.cluster.alias", self.source.as_str()),
            ("target.cluster.alias", target_alias.as_str()),
            ("source.cluster.bootstrap.servers", self.bootstrap.as_str()),
            ("target.cluster.bootstrap.servers", self.bootstrap.as_str()),
            ("topics", self.topic.as_str()),
            ("groups", groups.as_str()),
            ("emit.checkpoints.interval.seconds", "1"),
            ("refresh.groups.interval.seconds", "1"),
            ("checkpoints.topic.replication.factor", "1"),
            ("task.assignment", "group"),
            ("task.coordination.partitions", "2"),
        ];
        MirrorCheckpointConfig::from_properties(props)
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    }

    fn checkpoints(&self) -> Vec<mm2_checkpoint::Checkpoint> {
        read_checkpoints(
            &self.bootstrap,
            &format!("{}.checkpoints.internal", self.source),
        )
    }
}

/// Polls `task` until a cycle emitted checkpoints for every group in `groups`.
fn poll_until_checkpointed(task: &CheckpointTask, groups: &[&String]) {
    let mut missing: Vec<&String> = groups.to_vec();
    wait_until(WAIT, &format!("checkpoints for {groups:?}"), || {
        let out = task.poll(Duration::from_millis(200)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        missing.retain(|g| !out.checkpoints.iter().any(|c| &c.consumer_group_id == *g));
        missing.is_empty()
    });
}

#[test]
fn handover_in_the_middle_of_a_cycle_waits_for_the_cycle_and_abandons_the_moved_group() {
    let flow = Flow::new();
    flow.advance(10);

    // Task A holds its cycle, once armed, between fetching offsets and writing.
    let armed = Arc::new(AtomicBool::new(false));
    let (in_cycle, release) = (Latch::new(), Latch::new());
    let revoked: Arc<Mutex<Vec<i32>>> = Arc::default();
    let revoke_seen = Latch::new();
    let hooks = StartupHooks {
        cycle_writing: Some(Arc::new({
            let (armed, in_cycle, release) = (armed.clone(), in_cycle.clone(), release.clone());
            move |_: &StopSignal| {
                if armed.swap(false, Ordering::SeqCst) {
                    in_cycle.open();
                    release.wait(WAIT, "the test to release the cycle");
                }
            }
        })),
        rebalance: Some(Arc::new({
            let (revoked, revoke_seen) = (revoked.clone(), revoke_seen.clone());
            move |partitions: &[i32], assigned: bool| {
                if !assigned && !partitions.is_empty() {
                    revoked.lock().unwrap().extend_from_slice(partitions);
                    revoke_seen.open();
                }
            }
        })),
        ..StartupHooks::default()
    };
    let a = Arc::new(CheckpointTask::with_hooks(flow.config(), hooks).unwrap());
    a.start().unwrap();
    wait_until(WAIT, "A owns both partitions", || {
        a.coordination_partitions().0 == [0, 1]
    });
    poll_until_checkpointed(&a, &[&flow.groups[0], &flow.groups[1]]);

    // A's next cycle has new offsets to write for both groups, and is held before writing.
    flow.advance(20);
    armed.store(true, Ordering::SeqCst);
    let poller = std::thread::spawn({
        let a = Arc::clone(&a);
        move || a.poll(Duration::from_secs(30)).unwrap()
    });
    in_cycle.wait(WAIT, "A's cycle to reach the write");

    // B joins: the coordinator takes one partition from A.
    let b = CheckpointTask::new(flow.config()).unwrap();
    b.start().unwrap();
    revoke_seen.wait(WAIT, "A to be asked for a partition");
    let moved = revoked.lock().unwrap().clone();
    assert_eq!(
        moved.len(),
        1,
        "cooperative-sticky moves one of two: {moved:?}"
    );
    let moved = moved[0];
    let (kept_group, moved_group) = if moved == 0 {
        (&flow.groups[1], &flow.groups[0])
    } else {
        (&flow.groups[0], &flow.groups[1])
    };
    // A has not acknowledged (its cycle still holds the partition), so B cannot have it.
    assert!(a.coordination_partitions().0 == [1 - moved]);
    // A negative can only be observed over a window: were the revocation acknowledged now, B
    // would be assigned the partition within a heartbeat or two (a few hundred ms).
    let window = std::time::Instant::now() + Duration::from_secs(3);
    while std::time::Instant::now() < window {
        let (owned, pending) = b.coordination_partitions();
        assert!(
            !owned.contains(&moved) && !pending.contains(&moved),
            "B got partition {moved} while A's cycle still holds it"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    release.open();
    let out = poller.join().unwrap();
    assert_eq!(out.status, PollStatus::CycleDone);
    let groups: Vec<&String> = out
        .checkpoints
        .iter()
        .map(|c| &c.consumer_group_id)
        .collect();
    assert!(groups.contains(&kept_group), "{groups:?}");
    assert!(
        !groups.contains(&moved_group),
        "A wrote {moved_group} after its partition was revoked: {groups:?}"
    );

    // Only now does B get the partition, adopt it after reading A's checkpoints, and carry on.
    wait_until(WAIT, "B adopts the moved partition", || {
        b.coordination_partitions().0 == [moved]
    });
    flow.advance(30);
    poll_until_checkpointed(&b, &[moved_group]);
    let cps = flow.checkpoints();
    let moved_offsets: Vec<i64> = cps
        .iter()
        .filter(|c| &c.consumer_group_id == moved_group)
        .map(|c| c.upstream_offset)
        .collect();
    assert_eq!(
        moved_offsets,
        [10, 30],
        "A wrote 10, abandoned 20; B wrote 30"
    );
    b.stop().unwrap();
    a.stop().unwrap();
}

#[test]
fn a_revoke_while_start_up_is_loading_is_acknowledged_at_once_and_never_adopted() {
    let flow = Flow::new();
    flow.advance(10);

    // A's start-up holds in its checkpoint load until released.
    let (loading, release) = (Latch::new(), Latch::new());
    let revoked: Arc<Mutex<Vec<i32>>> = Arc::default();
    let assigned = Latch::new();
    let hooks = StartupHooks {
        checkpoint_store_reading: Some(Arc::new({
            let (loading, release) = (loading.clone(), release.clone());
            move |_: &StopSignal| {
                loading.open();
                release.wait(WAIT, "the test to release start-up");
            }
        })),
        rebalance: Some(Arc::new({
            let (revoked, assigned) = (revoked.clone(), assigned.clone());
            move |partitions: &[i32], is_assign: bool| {
                if is_assign && partitions.len() == 2 {
                    assigned.open();
                } else if !is_assign {
                    revoked.lock().unwrap().extend_from_slice(partitions);
                }
            }
        })),
        ..StartupHooks::default()
    };
    let a = CheckpointTask::with_hooks(flow.config(), hooks).unwrap();
    a.start().unwrap();
    loading.wait(WAIT, "A's start-up to load");
    assigned.wait(WAIT, "A to be assigned both partitions");
    assert_eq!(
        a.coordination_partitions(),
        (vec![], vec![0, 1]),
        "assigned while loading: pending, not owned"
    );

    // B joins while A is still loading: A gives one partition up at once.
    let b = CheckpointTask::new(flow.config()).unwrap();
    b.start().unwrap();
    wait_until(WAIT, "B owns a partition while A still loads", || {
        b.coordination_partitions().0.len() == 1
    });
    assert!(!release.is_open() && !a.stats().initialized);
    let moved = b.coordination_partitions().0[0];
    assert_eq!(*revoked.lock().unwrap(), [moved]);
    assert_eq!(a.coordination_partitions(), (vec![], vec![1 - moved]));

    release.open();
    wait_until(WAIT, "A adopts the partition it kept", || {
        a.coordination_partitions() == (vec![1 - moved], vec![])
    });
    poll_until_checkpointed(&a, &[&flow.groups[(1 - moved) as usize]]);
    poll_until_checkpointed(&b, &[&flow.groups[moved as usize]]);
    // Each group checkpointed once, by its one owner.
    let cps = flow.checkpoints();
    for g in &flow.groups {
        assert_eq!(
            cps.iter().filter(|c| &c.consumer_group_id == g).count(),
            1,
            "{g}"
        );
    }
    a.stop().unwrap();
    b.stop().unwrap();
}

#[test]
fn stop_joins_the_coordination_thread_then_leaves_the_group_so_the_survivor_takes_over_at_once() {
    let flow = Flow::new();
    flow.advance(10);
    let a = CheckpointTask::new(flow.config()).unwrap();
    let b = CheckpointTask::new(flow.config()).unwrap();
    a.start().unwrap();
    b.start().unwrap();
    wait_until(WAIT, "A and B own one partition each", || {
        a.coordination_partitions().0.len() == 1 && b.coordination_partitions().0.len() == 1
    });
    let steps: Arc<Mutex<Vec<String>>> = Arc::default();
    let s = Arc::clone(&steps);
    a.stop_signal().set_observer(Arc::new(move |step: &str| {
        s.lock().unwrap().push(step.to_string())
    }));
    let stopped_at = std::time::Instant::now();
    a.stop().unwrap();
    let steps = steps.lock().unwrap().clone();
    let pos = |step: &str| {
        steps
            .iter()
            .position(|s| s == step)
            .unwrap_or_else(|| panic!("no `{step}` in {steps:?}"))
    };
    assert!(pos("woken") < pos("joined coordination"), "{steps:?}");
    assert!(
        pos("joined coordination") < pos("poll returned"),
        "{steps:?}"
    );
    assert!(
        pos("poll returned") < pos("closed coordination-target-consumer"),
        "the consumer is closed only after every thread that used it: {steps:?}"
    );
    let d = a.diagnostics();
    assert_eq!(
        (d.live_threads, d.live_clients, d.concurrent_client_access),
        (0, 0, 0),
        "after stop: no thread or client of A left, no client ever used by two threads at once"
    );
    // librdkafka's default session timeout is 45 s: a survivor that takes over well before that
    // was told by the LeaveGroup of the close, not by the session expiring.
    wait_until(Duration::from_secs(15), "B owns both partitions", || {
        b.coordination_partitions().0 == [0, 1]
    });
    assert!(stopped_at.elapsed() < Duration::from_secs(15));
    b.stop().unwrap();
}

#[test]
fn a_failed_task_leaves_the_group_so_the_others_take_its_share_over() {
    let flow = Flow::new();
    flow.advance(10);
    let b = CheckpointTask::new(flow.config()).unwrap();
    b.start().unwrap();
    wait_until(WAIT, "B owns both partitions", || {
        b.coordination_partitions().0 == [0, 1]
    });
    // A joins, takes one partition, and its start-up then fails (a panic in the load).
    let (assigned, fail) = (Latch::new(), Latch::new());
    let hooks = StartupHooks {
        checkpoint_store_reading: Some(Arc::new({
            let fail = fail.clone();
            move |_: &StopSignal| {
                fail.wait(WAIT, "the test to fail start-up");
                panic!("start-up fails on purpose");
            }
        })),
        rebalance: Some(Arc::new({
            let assigned = assigned.clone();
            move |partitions: &[i32], is_assign: bool| {
                if is_assign && !partitions.is_empty() {
                    assigned.open();
                }
            }
        })),
        ..StartupHooks::default()
    };
    let a = CheckpointTask::with_hooks(flow.config(), hooks).unwrap();
    a.start().unwrap();
    assigned.wait(WAIT, "A to be assigned a partition");
    wait_until(WAIT, "B gives one partition up to A", || {
        b.coordination_partitions().0.len() == 1
    });
    fail.open();
    wait_until(WAIT, "A has failed", || a.fatal_error().is_some());
    // Well within librdkafka's default 45 s session timeout: A left instead of going silent.
    wait_until(
        Duration::from_secs(15),
        "B owns both partitions again",
        || b.coordination_partitions().0 == [0, 1],
    );
    assert_eq!(a.coordination_partitions(), (vec![], vec![]));
    a.stop().unwrap();
    b.stop().unwrap();
}
