//! CheckpointTask runtime on two real Apache Kafka brokers: checkpoints end to end with group
//! discovery, group offset sync into idle target groups, and the seed's reproducer — 100,000
//! offset syncs and start→stop cycles with random delays: 120 by default (CI), the seed's 1,200
//! with `MM2_KAFKA_CHURN_CYCLES=1200` (scripts/soak.sh).
//!
//! Kafka keeps the metadata of a commit, and checkpoints carry it.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks, StopOutcome};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::OffsetSync;

use support::kafka::ActiveMember;
use support::names::FlowNames;
use support::runtime::{
    assert_no_leaks, clear_logs, install_logger, poll_until_emitted, produce_syncs,
    read_checkpoints, serial, sorted, task_config, warnings_mentioning, Latch, Latencies, Prng,
};
use support::{commit_group_offsets, committed_offsets, produce, produce_batched, wait_until};

const EMIT_WAIT: Duration = Duration::from_secs(30);

/// This test's names on the shared broker pair, with the seed's two-partition topic on both
/// sides and, when `checkpoints_topic`, the checkpoints topic created explicitly.
fn flow(partitions: i32, checkpoints_topic: bool) -> FlowNames {
    let f = FlowNames::shared();
    f.create_source_topics(partitions);
    f.create_target_topics(partitions, checkpoints_topic);
    f
}

/// Syncs 0→0 and 100→90 on partition 0, 0→0 and 50→40 on partition 1: the history two tests
/// translate their groups' commits through.
fn produce_two_partition_syncs(f: &FlowNames) {
    let syncs = [
        f.sync(0, 0, 0),
        f.sync(0, 100, 90),
        f.sync(1, 0, 0),
        f.sync(1, 50, 40),
    ];
    produce_syncs(&f.s, &f.syncs, &syncs, false);
}

#[test]
fn checkpoints_for_discovered_groups_reach_the_target_topic_on_real_brokers() {
    let _g = serial();
    install_logger();
    let f = flow(2, true);
    produce_two_partition_syncs(&f);
    f.commit("g1", &[(0, 150, "m1"), (1, 50, "")]);
    f.commit("g2", &[(0, 100, "")]);
    // No task.assigned.groups: the task lists the source's groups itself. The source broker is
    // shared with the other tests here, so the topic filter names this test's topic: the
    // groups that committed only on other tests' topics are listed but not adopted.
    let task = CheckpointTask::new(f.config(&[("topics", &f.topic)])).unwrap();
    task.start().unwrap();
    let mut with_metadata = f.cp("g1", 0, 150, 91);
    with_metadata.metadata = "m1".to_owned();
    let expected = vec![with_metadata, f.cp("g1", 1, 50, 40), f.cp("g2", 0, 100, 90)];
    let mut emitted = Vec::new();
    let deadline = Instant::now() + EMIT_WAIT;
    while emitted.len() < expected.len() {
        assert!(Instant::now() < deadline, "only {emitted:?}");
        emitted.extend(poll_until_emitted(&task, EMIT_WAIT));
    }
    assert_eq!(sorted(emitted), expected);
    let stats = task.stats();
    eprintln!("load time on Kafka: {:?}", stats.load_time);
    assert_eq!(stats.groups, 2, "{stats:?}");
    assert_eq!(stats.syncs_loaded, 4, "{stats:?}");
    let StopOutcome::Stopped(took) = task.stop().unwrap() else {
        panic!("not stopped")
    };
    eprintln!("stop after emitting took {took:?}");
    assert_eq!(sorted(read_checkpoints(&f.t, &f.checkpoints)), expected);
    assert_no_leaks();
}

#[test]
fn missing_checkpoints_topic_is_created_compacted_and_the_full_offset_sync_history_is_loaded() {
    let _g = serial();
    install_logger();
    // No checkpoints topic on the target.
    let f = flow(1, false);
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 100, 90)],
        false,
    );
    f.commit("g1", &[(0, 150, "")]);
    f.commit("g2", &[(0, 50, "")]);
    let groups = f.groups(&["g1", "g2"]);
    let task = CheckpointTask::new(f.config(&[("task.assigned.groups", &groups)])).unwrap();
    task.start().unwrap();
    // The task created the topic, so nothing was emitted before and the whole history is kept:
    // g2's offset behind the newest sync is translated too (50 → 1 from the sync at 0); a
    // pessimistic load would have kept only the newest sync and skipped g2.
    let expected = vec![f.cp("g1", 0, 150, 91), f.cp("g2", 0, 50, 1)];
    let mut emitted = Vec::new();
    let deadline = Instant::now() + EMIT_WAIT;
    while emitted.len() < expected.len() {
        assert!(Instant::now() < deadline, "only {emitted:?}");
        emitted.extend(poll_until_emitted(&task, EMIT_WAIT));
    }
    assert_eq!(sorted(emitted), expected);
    let stats = task.stats();
    assert!(stats.checkpoints_load_ok, "{stats:?}");
    task.stop().unwrap();
    assert_eq!(
        support::kafka::partition_count(&f.t, &f.checkpoints),
        Some(1)
    );
    assert_eq!(
        support::topic_config(&f.t, &f.checkpoints, "cleanup.policy").as_deref(),
        Some("compact"),
        "{:#?}",
        support::runtime::captured_logs()
            .into_iter()
            .filter(|l| l.message.contains(&f.checkpoints))
            .collect::<Vec<_>>()
    );
    assert_eq!(sorted(read_checkpoints(&f.t, &f.checkpoints)), expected);
    assert_no_leaks();
}

#[test]
fn group_offset_sync_writes_idle_target_groups_never_rewinds_and_refuses_active_ones() {
    let _g = serial();
    install_logger();
    let f = flow(2, true);
    let t = &f.t;
    produce_two_partition_syncs(&f);
    let filler: Vec<support::Record<'_>> = vec![(None, Some(b"x")); 120];
    produce_batched(t, &f.remote, 0, &filler);
    produce_batched(t, &f.remote, 1, &filler);
    for g in ["g-absent", "g-behind", "g-ahead", "g-active"] {
        f.commit(g, &[(0, 150, ""), (1, 50, "")]);
    }
    // On the target: one group behind the translation, one ahead of it, one with a live member.
    commit_group_offsets(t, &f.group("g-behind"), &[(&f.remote, 0, 10, "")]);
    commit_group_offsets(t, &f.group("g-ahead"), &[(&f.remote, 0, 95, "")]);
    let member = ActiveMember::join(t, &f.group("g-active"), &f.remote);

    let assigned = f.groups(&["g-absent", "g-behind", "g-ahead", "g-active"]);
    let task = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", &assigned),
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
    ]))
    .unwrap();
    task.start().unwrap();
    let mut emitted = Vec::new();
    while emitted.len() < 8 {
        emitted.extend(poll_until_emitted(&task, EMIT_WAIT));
    }
    let committed = |g: &str| -> Vec<Option<i64>> {
        committed_offsets(t, &f.group(g), &f.remote, &[0, 1])
            .into_iter()
            .map(|c| c.offset)
            .collect()
    };
    wait_until(
        Duration::from_secs(30),
        "idle target groups get the translated offsets",
        || {
            committed("g-absent") == [Some(91), Some(40)]
                && committed("g-behind") == [Some(91), Some(40)]
        },
    );
    // Groups are synced in name order within a round and the report is stored after it, so
    // once g-behind (the last) is written and the report is complete, the round that wrote it
    // has decided g-active and g-ahead too.
    wait_until(Duration::from_secs(10), "the sync round's report", || {
        task.group_offset_sync_results().len() >= 8
    });
    assert_eq!(committed("g-ahead"), [Some(95), Some(40)]);
    assert_eq!(committed("g-active"), [None, None]);
    let results = task.group_offset_sync_results();
    let reason = |g: &str, p: i32| {
        results
            .iter()
            .find(|r| r.group == f.group(g) && r.topic_partition.partition == p)
            .map(|r| (r.reason.clone(), r.written_offset, r.error.clone()))
            .unwrap_or_else(|| panic!("no result for {g}-{p}: {results:?}"))
    };
    assert_eq!(reason("g-active", 0).0, "group_active", "{results:?}");
    assert_eq!(reason("g-active", 1).0, "group_active", "{results:?}");
    assert_eq!(
        reason("g-ahead", 0),
        ("target_at_or_ahead".to_string(), None, None),
        "{results:?}"
    );
    for (g, p) in [
        ("g-absent", 0),
        ("g-absent", 1),
        ("g-behind", 0),
        ("g-behind", 1),
    ] {
        let (why, _, error) = reason(g, p);
        // Written once (absent/behind/new), then found at the translated offset every round.
        assert!(
            [
                "group_absent_at_target",
                "target_behind",
                "partition_new_at_target",
                "target_at_or_ahead"
            ]
            .contains(&why.as_str())
                && error.is_none(),
            "{g}-{p}: {results:?}"
        );
    }
    assert!(task.stats().group_offsets_written >= 4);
    task.stop().unwrap();
    drop(member);
    assert_no_leaks();
}

/// Where a cycle's random delay is measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    /// From `start` (the seed's reproducer).
    Start,
    /// From the moment the offset-sync store begins reading (reported by a non-blocking hook):
    /// with this runtime a delay from `start` ends before that load begins.
    SyncLoad,
}

/// What one lane of cycles saw.
#[derive(Default)]
struct Lane {
    stops: Latencies,
    /// Stop latencies by phase, in the order of the counts below.
    by_phase: [Latencies; 3],
    /// Stops by phase: before the offset-sync load, during it, after both stores loaded.
    before_sync_load: usize,
    during_sync_load: usize,
    after_load: usize,
}

fn run_lane(
    lane: usize,
    cycles: usize,
    seed: u64,
    config: &mm2_checkpoint::MirrorCheckpointConfig,
) -> Lane {
    let mut rng = Prng::new(seed);
    let mut out = Lane::default();
    for cycle in 0..cycles {
        // One cycle in six waits for the offset-sync load; the rest are timed from start.
        let anchor = if cycle % 6 == 5 {
            Anchor::SyncLoad
        } else {
            Anchor::Start
        };
        let reading = Latch::new();
        let r = reading.clone();
        let hooks = StartupHooks {
            checkpoint_store_reading: None,
            offset_sync_store_reading: Some(Arc::new(move |_: &StopSignal| r.open())),
            ..StartupHooks::default()
        };
        let task = CheckpointTask::with_hooks(config.clone(), hooks).unwrap();
        task.start().unwrap();
        if anchor == Anchor::SyncLoad {
            reading.wait(
                Duration::from_secs(30),
                &format!("lane {lane} cycle {cycle}: the offset-sync load"),
            );
        }
        thread::sleep(Duration::from_millis(rng.between(0, 50)));
        let at_stop = task.stats();
        let sync_load_began = reading.is_open();
        let StopOutcome::Stopped(took) = task.stop().unwrap() else {
            panic!("lane {lane} cycle {cycle}: not stopped")
        };
        out.stops.push(took);
        let phase = if at_stop.initialized {
            out.after_load += 1;
            2
        } else if sync_load_began {
            out.during_sync_load += 1;
            1
        } else {
            out.before_sync_load += 1;
            0
        };
        out.by_phase[phase].push(took);
        assert_eq!(
            diagnostics::concurrent_client_access(),
            0,
            "lane {lane} cycle {cycle}: overlapping client calls"
        );
        assert!(
            task.fatal_error().is_none(),
            "lane {lane} cycle {cycle}: {:?}",
            task.fatal_error()
        );
    }
    out
}

/// Start→stop cycles of the churn test, all lanes together: `MM2_KAFKA_CHURN_CYCLES` when set
/// (scripts/soak.sh runs the seed's 1,200), else 120, sized for CI.
fn churn_cycles() -> usize {
    match std::env::var("MM2_KAFKA_CHURN_CYCLES") {
        Ok(n) => n
            .parse()
            .unwrap_or_else(|_| panic!("MM2_KAFKA_CHURN_CYCLES={n:?} is not a count")),
        Err(_) => 120,
    }
}

#[test]
fn start_stop_cycles_with_random_delays_never_share_a_client() {
    const LANES: usize = 2;
    let cycles_per_lane = churn_cycles().div_ceil(LANES);
    const SYNC_RECORDS: i64 = 100_000;
    const SEED: u64 = 0x2143_5000_0000_0001;
    let _g = serial();
    install_logger();
    let f = flow(2, true);
    let syncs: Vec<OffsetSync> = (0..SYNC_RECORDS)
        .map(|i| f.sync((i % 2) as i32, i / 2 * 10, i / 2 * 10))
        .collect();
    let seeded = Instant::now();
    produce_syncs(&f.s, &f.syncs, &syncs, true);
    eprintln!(
        "seeded {SYNC_RECORDS} offset syncs in {:?}",
        seeded.elapsed()
    );
    // An earlier generation's checkpoint, so the checkpoint load ends at its record instead of
    // waiting for an empty fetch.
    let earlier = f.cp("g1", 0, 10, 10);
    produce(
        &f.t,
        &f.checkpoints,
        0,
        Some(&earlier.encode_key().unwrap()),
        Some(&earlier.encode_value().unwrap()),
    );
    f.commit("g1", &[(0, 500_000, ""), (1, 500_000, "")]);
    let config = f.config(&[("task.assigned.groups", &f.group("g1"))]);

    // Once through, to know the load works and how long it takes.
    let task = CheckpointTask::new(config.clone()).unwrap();
    task.start().unwrap();
    wait_until(Duration::from_secs(30), "a full load", || {
        task.stats().initialized
    });
    let stats = task.stats();
    assert_eq!(stats.syncs_loaded, SYNC_RECORDS as u64, "{stats:?}");
    eprintln!(
        "a full load of {SYNC_RECORDS} syncs took {:?}",
        stats.load_time
    );
    task.stop().unwrap();
    drop(task);

    clear_logs();
    eprintln!("seed {SEED:#x} (lane i uses seed + i)");
    let began = Instant::now();
    let lanes: Vec<Lane> = thread::scope(|scope| {
        let handles: Vec<_> = (0..LANES)
            .map(|lane| {
                let config = &config;
                scope.spawn(move || run_lane(lane, cycles_per_lane, SEED + lane as u64, config))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = began.elapsed();
    let mut stops = Latencies::new();
    let mut by_phase: [Latencies; 3] = Default::default();
    let (mut before, mut during, mut after) = (0, 0, 0);
    for lane in &lanes {
        for d in lane.stops.samples() {
            stops.push(*d);
        }
        for (all, one) in by_phase.iter_mut().zip(&lane.by_phase) {
            for d in one.samples() {
                all.push(*d);
            }
        }
        before += lane.before_sync_load;
        during += lane.during_sync_load;
        after += lane.after_load;
    }
    let total = LANES * cycles_per_lane;
    eprintln!(
        "{total} cycles ({} timed from start, {} from the sync load) on {LANES} lanes in {elapsed:?}",
        total - total / 6,
        total / 6
    );
    eprintln!(
        "stopped before the offset-sync load {before}, during it {during}, after loading {after}"
    );
    eprintln!("{}", stops.summary("start→stop cycle stop latency"));
    for (phase, l) in [
        "before the sync load",
        "during the sync load",
        "after loading",
    ]
    .iter()
    .zip(&by_phase)
    {
        eprintln!("{}", l.summary(&format!("  stopped {phase}")));
    }
    assert_eq!(stops.len(), total);
    assert!(during > 0, "no stop landed in the offset-sync load");
    let concurrent = warnings_mentioning("concurrent");
    assert!(concurrent.is_empty(), "{concurrent:?}");
    assert!(
        stops.max() < Duration::from_secs(2),
        "{}",
        stops.summary("stop")
    );
    assert_no_leaks();
}

#[test]
fn a_checkpoints_topic_the_broker_refuses_to_create_fails_the_task_naming_the_setting() {
    let _g = serial();
    install_logger();
    // Names only, nothing created; source and target are the same one-broker cluster.
    let f = FlowNames::shared();
    let b = &f.t;
    // MM2's default replication factor of 3 on a one-broker cluster: Kafka refuses the topic.
    // Java's connector fails here; before, this task went on and the producer auto-created an
    // uncompacted topic.
    let task = CheckpointTask::new(task_config(
        b,
        b,
        &[
            ("source.cluster.alias", &f.source_alias),
            ("target.cluster.alias", &f.target_alias),
            ("checkpoints.topic.replication.factor", "3"),
            ("task.assigned.groups", &f.group("g1")),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    let out = task.poll(EMIT_WAIT).unwrap();
    assert_eq!(out.status, PollStatus::Failed, "{:?}", task.stats());
    let fatal = task.fatal_error().unwrap_or_default();
    assert!(
        fatal.contains("creating topic")
            && fatal.contains("checkpoints.topic.replication.factor=3"),
        "{fatal}"
    );
    task.stop().unwrap();
    assert_eq!(support::kafka::partition_count(b, &f.checkpoints), None);
    assert_no_leaks();
}
