//! CheckpointTask runtime on two embedded (librdkafka mock) clusters: checkpoints end to end,
//! deterministic stop-vs-start
//! races for both stores, restart monotonicity, the offset-syncs topic on either cluster,
//! malformed internal records, and the poll/stop lifecycle.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{
    CheckpointTask, PollStatus, StartupHook, StartupHooks, StopOutcome,
};
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::Error;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::OffsetSyncStore;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

use support::runtime::{
    assert_task_clean, embedded_task_config, first_cycle, install_logger, poll_until_emitted,
    sorted, Events, Latch, Monotonicity,
};
use support::wait_until;

/// The offset-syncs topic on the source (the default location).
const SYNCS: &str = "mm2-offset-syncs.target.internal";
/// The offset-syncs topic on the target (`offset-syncs.topic.location=target`).
const TARGET_SYNCS: &str = "mm2-offset-syncs.source.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";
/// Generous bound on anything that should be prompt: only a hang detector.
const PROMPT: Duration = Duration::from_secs(2);
const EMIT_WAIT: Duration = Duration::from_secs(30);

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

fn cp(group: &str, p: i32, up: i64, down: i64, meta: &str) -> Checkpoint {
    Checkpoint::new(
        group,
        TopicPartition::new("source.orders", p),
        up,
        down,
        meta,
    )
}

fn config(c: &EmbeddedClusters, extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
    let mut props = vec![("task.assigned.groups", "g1,g2")];
    props.extend_from_slice(extra);
    embedded_task_config(c, &props)
}

/// Which store's start-up a race test holds.
#[derive(Clone, Copy, Debug)]
enum Store {
    Checkpoints,
    OffsetSyncs,
}

impl Store {
    fn name(self) -> &'static str {
        match self {
            Store::Checkpoints => "checkpoint store",
            Store::OffsetSyncs => "offset-sync store",
        }
    }

    /// The role of the consumer the store reads with (named in "closed <role>" events).
    fn consumer_role(self) -> &'static str {
        match self {
            Store::Checkpoints => "checkpoints-target-consumer",
            Store::OffsetSyncs => "offset-syncs-consumer",
        }
    }

    fn hooks(self, hook: StartupHook) -> StartupHooks {
        match self {
            Store::Checkpoints => StartupHooks {
                checkpoint_store_reading: Some(hook),
                offset_sync_store_reading: None,
                ..StartupHooks::default()
            },
            Store::OffsetSyncs => StartupHooks {
                checkpoint_store_reading: None,
                offset_sync_store_reading: Some(hook),
                ..StartupHooks::default()
            },
        }
    }
}

/// A start-up hook that reports `running`, opens `reached`, and holds the scheduler thread until
/// the task's stop flag is set (the stop itself is the latch), then reports `returned`.
fn hold_until_stopped(store: Store, events: &Events, reached: &Latch) -> StartupHook {
    let (events, reached) = (events.clone(), reached.clone());
    Arc::new(move |signal: &StopSignal| {
        events.push(format!("{} start running", store.name()));
        reached.open();
        let deadline = Instant::now() + Duration::from_secs(60);
        while signal.sleep(Duration::from_secs(1)) {
            if Instant::now() >= deadline {
                events.push("hold gave up: no stop within 60 s");
                break;
            }
        }
        events.push(format!("{} start returned", store.name()));
    })
}

/// Holds `store` mid-start on the scheduler thread, stops the task from a third thread, and pins
/// the stop sequence: flag → wake → (held start returns) → join → close, with the store's
/// consumer closed only after its start returned and after every join.
fn stop_while_store_start_is_held(store: Store) {
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 0, 0), sync(0, 100, 90)])
        .unwrap();
    c.commit_offsets(Side::Source, "g1", &[("orders", 0, 150, "")])
        .unwrap();
    let events = Events::new();
    let reached = Latch::new();
    let hooks = store.hooks(hold_until_stopped(store, &events, &reached));
    let task = CheckpointTask::with_hooks(config(&c, &[]), hooks).unwrap();
    events.observe(&task);
    task.start().unwrap();
    reached.wait(
        Duration::from_secs(30),
        &format!("{} start to be held", store.name()),
    );
    let stats = task.stats();
    assert!(!stats.initialized, "held mid-start, yet {stats:?}");

    let starter = thread::current().id();
    let (outcome, stopper) = thread::scope(|s| {
        s.spawn(|| (task.stop(), thread::current().id()))
            .join()
            .unwrap()
    });
    assert_ne!(stopper, starter, "stop must come from another thread");
    let took = match outcome.unwrap() {
        StopOutcome::Stopped(took) => took,
        other => panic!("first stop returned {other:?}"),
    };
    eprintln!(
        "stop while the {} start was held took {took:?}",
        store.name()
    );
    assert!(took < PROMPT, "stop took {took:?}");

    eprintln!("{:?}", events.timeline());
    let names = events.names();
    let running = events.pos(&format!("{} start running", store.name()));
    let returned = events.pos(&format!("{} start returned", store.name()));
    let flag = events.pos("stop flag set");
    let woken = events.pos("woken");
    let joined = events.pos("joined scheduler");
    let joined_tail = events.pos("joined tail");
    let poll_returned = events.pos("poll returned");
    let closed_store = events.pos(&format!("closed {}", store.consumer_role()));
    assert!(running < flag, "{names:?}");
    assert!(
        flag < woken && woken < joined && joined < joined_tail && joined_tail < poll_returned,
        "flag → wake → join → close out of order: {names:?}"
    );
    assert!(
        flag < returned && returned < joined,
        "the held start must see the flag and return before the join: {names:?}"
    );
    assert!(
        closed_store > returned && closed_store > poll_returned,
        "the {} consumer was closed while its start could still run: {names:?}",
        store.name()
    );
    // Every client closed by the stop is closed after every join.
    for (i, e) in names.iter().enumerate() {
        if e.starts_with("closed ") && i > flag {
            assert!(i > poll_returned, "`{e}` before the joins: {names:?}");
        }
    }
    let closes = |role: &str| {
        names
            .iter()
            .filter(|e| *e == &format!("closed {role}"))
            .count()
    };
    assert_eq!(closes(store.consumer_role()), 1, "{names:?}");
    assert_eq!(closes("checkpoint-target-admin"), 1, "{names:?}");
    assert!(
        !names.iter().any(|e| e.starts_with("hold gave up")),
        "{names:?}"
    );
    assert_eq!(task.stats().checkpoints_emitted, 0);
    assert_eq!(task.stop().unwrap(), StopOutcome::AlreadyStopped);
    assert_task_clean(&task);
}

#[test]
fn stop_from_another_thread_while_checkpoint_store_start_is_held_waits_for_it_and_closes_after_join(
) {
    stop_while_store_start_is_held(Store::Checkpoints);
}

#[test]
fn stop_from_another_thread_while_offset_sync_store_start_is_held_waits_for_it_and_closes_after_join(
) {
    stop_while_store_start_is_held(Store::OffsetSyncs);
}

#[test]
fn checkpoints_for_several_groups_and_partitions_reach_the_batch_and_the_target_topic() {
    install_logger();
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
    let batch = sorted(poll_until_emitted(&task, EMIT_WAIT));
    let expected = vec![
        cp("g1", 0, 150, 91, "m1"),
        cp("g1", 1, 50, 40, ""),
        cp("g2", 0, 100, 90, ""),
    ];
    assert_eq!(batch, expected);
    assert_eq!(sorted(c.read_checkpoints(CHECKPOINTS).unwrap()), expected);
    assert_eq!(task.stats().checkpoints_emitted, 3);
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert_eq!(task.stop().unwrap(), StopOutcome::AlreadyStopped);
    assert_task_clean(&task);
}

/// The default path asks the source for each group's committed offsets; when the group's
/// coordinator has moved or is not up yet (as around a broker restart), librdkafka 2.12's admin
/// client crashed the process (librdkafka bug confluentinc/librdkafka#5040). The task asks again and checkpoints as
/// usual, and each retry is an info line naming the group.
#[test]
fn a_source_group_coordinator_that_moves_is_asked_again_and_the_checkpoints_are_unchanged() {
    use rdkafka_sys::types::{RDKafkaApiKey, RDKafkaRespErr};
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 0, 0), sync(0, 100, 90)])
        .unwrap();
    c.commit_offsets(Side::Source, "g1", &[("orders", 0, 150, "")])
        .unwrap();
    c.inject_request_errors(
        Side::Source,
        RDKafkaApiKey::OffsetFetch,
        &[
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        ],
    );
    let task = CheckpointTask::new(config(&c, &[("task.assigned.groups", "g1")])).unwrap();
    task.start().unwrap();
    let batch = sorted(poll_until_emitted(&task, EMIT_WAIT));
    assert_eq!(batch, vec![cp("g1", 0, 150, 91, "")]);
    assert_eq!(task.fatal_error(), None);
    let retries: Vec<_> = support::runtime::captured_logs()
        .into_iter()
        .filter(|l| l.message.contains("asking its coordinator again"))
        .filter(|l| l.message.contains("group `g1`"))
        .collect();
    assert_eq!(retries.len(), 3, "{retries:#?}");
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert_task_clean(&task);
}

#[test]
fn restarted_task_never_emits_a_lower_downstream_offset_for_an_unchanged_upstream_offset() {
    install_logger();
    let c = clusters();
    // Generation 1: dense syncs on orders-0, so offset 150 translates exactly.
    let first: Vec<OffsetSync> = (0..=150)
        .step_by(10)
        .map(|u| sync(0, u, u))
        .chain([sync(1, 0, 0), sync(1, 50, 40)])
        .collect();
    c.produce_offset_syncs(Side::Source, SYNCS, &first).unwrap();
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, "a"), ("orders", 1, 50, "b")],
    )
    .unwrap();
    c.commit_offsets(Side::Source, "g2", &[("orders", 0, 150, "")])
        .unwrap();
    let task1 = CheckpointTask::new(config(&c, &[])).unwrap();
    task1.start().unwrap();
    let emitted1 = sorted(poll_until_emitted(&task1, EMIT_WAIT));
    assert_eq!(
        emitted1,
        vec![
            cp("g1", 0, 150, 150, "a"),
            cp("g1", 1, 50, 40, "b"),
            cp("g2", 0, 150, 150, ""),
        ]
    );
    assert!(matches!(task1.stop().unwrap(), StopOutcome::Stopped(_)));
    assert_task_clean(&task1);
    drop(task1);

    // Between generations: many more syncs evict the ones near 150, so a fresh optimistic
    // store translates that unchanged group offset lower than before.
    let second: Vec<OffsetSync> = (160..=5000)
        .step_by(10)
        .map(|u| sync(0, u, u))
        .chain([sync(1, 60, 55)])
        .collect();
    c.produce_offset_syncs(Side::Source, SYNCS, &second)
        .unwrap();
    let mut naive = OffsetSyncStore::new();
    naive.begin_initial_load(false);
    for s in first.iter().chain(&second) {
        naive.handle_sync(s);
    }
    naive.mark_read_to_end();
    let orders0 = TopicPartition::new("orders", 0);
    let lower = naive.translate_downstream(&orders0, 150).unwrap();
    assert!(
        (0..150).contains(&lower),
        "precondition: the new syncs must translate 150 lower, not to {lower}"
    );
    // g1 moves on orders-1 only, so generation 2 has something to emit.
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, "a"), ("orders", 1, 70, "b")],
    )
    .unwrap();

    let task2 = CheckpointTask::new(config(&c, &[])).unwrap();
    task2.start().unwrap();
    let mut emitted2 = poll_until_emitted(&task2, EMIT_WAIT);
    // One more cycle: nothing may appear for the unchanged offsets later either.
    let again = task2.poll(Duration::from_secs(3)).unwrap();
    assert_eq!(again.status, PollStatus::CycleDone, "{again:?}");
    emitted2.extend(again.checkpoints);
    assert_eq!(sorted(emitted2), vec![cp("g1", 1, 70, 56, "b")]);
    let stats = task2.stats();
    assert!(stats.checkpoints_load_ok, "{stats:?}");
    assert_eq!(stats.checkpoints_loaded, 3, "{stats:?}");
    let blocked: Vec<_> = task2
        .partition_statuses()
        .into_iter()
        .filter(|s| s.topic_partition == orders0)
        .map(|s| (s.group, s.reason))
        .collect();
    assert_eq!(
        blocked,
        vec![
            (
                "g1".to_string(),
                Some("not_newer_than_last_checkpoint".into())
            ),
            (
                "g2".to_string(),
                Some("not_newer_than_last_checkpoint".into())
            ),
        ]
    );
    assert!(matches!(task2.stop().unwrap(), StopOutcome::Stopped(_)));

    let written = c.read_checkpoints(CHECKPOINTS).unwrap();
    assert_eq!(written.len(), 4, "{written:?}");
    let mut m = Monotonicity::new();
    m.check("checkpoints topic", &written);
    assert_task_clean(&task2);
}

#[test]
fn offset_syncs_topic_on_the_target_is_the_one_read_when_its_location_is_target() {
    install_logger();
    let c = clusters();
    c.create_topic(Side::Target, TARGET_SYNCS, 1).unwrap();
    c.produce_offset_syncs(
        Side::Target,
        TARGET_SYNCS,
        &[sync(0, 0, 0), sync(0, 100, 90), sync(1, 50, 40)],
    )
    .unwrap();
    // A decoy on the source: read it and the translations differ.
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 100, 7), sync(1, 50, 7)])
        .unwrap();
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, ""), ("orders", 1, 50, "")],
    )
    .unwrap();
    let task =
        CheckpointTask::new(config(&c, &[("offset-syncs.topic.location", "target")])).unwrap();
    task.start().unwrap();
    let batch = sorted(poll_until_emitted(&task, EMIT_WAIT));
    assert_eq!(
        batch,
        vec![cp("g1", 0, 150, 91, ""), cp("g1", 1, 50, 40, "")]
    );
    assert_eq!(task.stats().syncs_loaded, 3);
    task.stop().unwrap();
    assert_eq!(sorted(c.read_checkpoints(CHECKPOINTS).unwrap()), batch);
    assert_task_clean(&task);
}

#[test]
fn malformed_records_in_both_internal_topics_are_skipped_counted_and_checkpoints_stay_right() {
    install_logger();
    let c = clusters();
    let garbage = (0, Some(b"\x00\x01".to_vec()), Some(b"zz".to_vec()));
    let sync_key = sync(0, 1, 1).encode_key().unwrap();
    let cp_key = cp("g2", 0, 1, 1, "").encode_key().unwrap();
    // Offset syncs: malformed records between good ones, in the same produce batch.
    let mut syncs = vec![(
        0,
        Some(sync(0, 0, 0).encode_key().unwrap()),
        Some(sync(0, 0, 0).encode_value()),
    )];
    syncs.push(garbage.clone());
    syncs.push((0, Some(sync_key.clone()), None));
    for s in [sync(0, 100, 90), sync(1, 50, 40)] {
        syncs.push((0, Some(s.encode_key().unwrap()), Some(s.encode_value())));
    }
    c.produce(Side::Source, SYNCS, &syncs).unwrap();
    // Checkpoints: two malformed records before an earlier generation's good checkpoint.
    let earlier = cp("g2", 0, 100, 80, "");
    c.produce(
        Side::Target,
        CHECKPOINTS,
        &[
            garbage.clone(),
            (0, Some(cp_key), None),
            (
                0,
                Some(earlier.encode_key().unwrap()),
                Some(earlier.encode_value().unwrap()),
            ),
        ],
    )
    .unwrap();
    c.commit_offsets(
        Side::Source,
        "g1",
        &[("orders", 0, 150, ""), ("orders", 1, 50, "")],
    )
    .unwrap();
    c.commit_offsets(Side::Source, "g2", &[("orders", 0, 100, "")])
        .unwrap();

    let task = CheckpointTask::new(config(&c, &[])).unwrap();
    task.start().unwrap();
    let batch = sorted(poll_until_emitted(&task, EMIT_WAIT));
    assert_eq!(
        batch,
        vec![
            cp("g1", 0, 150, 91, ""),
            cp("g1", 1, 50, 40, ""),
            cp("g2", 0, 100, 90, ""),
        ]
    );
    let stats = task.stats();
    assert_eq!(stats.records_skipped, 4, "{stats:?}");
    assert_eq!(stats.syncs_loaded, 3, "{stats:?}");
    assert_eq!(stats.checkpoints_loaded, 1, "{stats:?}");
    assert!(stats.checkpoints_load_ok, "{stats:?}");

    // While tailing: a malformed record, then a good sync in the same batch.
    let moved = sync(1, 80, 70);
    c.produce(
        Side::Source,
        SYNCS,
        &[
            garbage,
            (
                0,
                Some(moved.encode_key().unwrap()),
                Some(moved.encode_value()),
            ),
        ],
    )
    .unwrap();
    wait_until(
        Duration::from_secs(20),
        "the tail applies the sync after the malformed record",
        || task.stats().syncs_loaded == 4,
    );
    assert_eq!(task.stats().records_skipped, 5);
    c.commit_offsets(Side::Source, "g1", &[("orders", 1, 80, "")])
        .unwrap();
    let later = poll_until_emitted(&task, EMIT_WAIT);
    assert_eq!(later, vec![cp("g1", 1, 80, 70, "")]);
    task.stop().unwrap();
    assert_task_clean(&task);
}

fn is_busy(r: &Result<mm2_checkpoint::checkpoint_task::PollOutcome, Error>) -> bool {
    matches!(r, Err(Error::Busy))
}

#[test]
fn checkpoints_loaded_counts_one_per_group_and_partition_not_the_records_of_the_topic() {
    let c = clusters();
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 0, 0), sync(0, 100, 90)])
        .unwrap();
    // Three generations of g1's orders-0 (not compacted yet), one of g2's, and one of a group
    // this task does not checkpoint: two checkpoints of this task's groups.
    let records: Vec<_> = [
        cp("g1", 0, 10, 5, ""),
        cp("g1", 0, 20, 15, ""),
        cp("g2", 0, 30, 25, ""),
        cp("g1", 0, 40, 35, ""),
        cp("other", 0, 50, 45, ""),
    ]
    .iter()
    .map(|cp| {
        (
            0,
            Some(cp.encode_key().unwrap()),
            Some(cp.encode_value().unwrap()),
        )
    })
    .collect();
    c.produce(Side::Target, CHECKPOINTS, &records).unwrap();
    let task = CheckpointTask::new(config(&c, &[])).unwrap();
    task.start().unwrap();
    let deadline = Instant::now() + EMIT_WAIT;
    while !task.stats().initialized {
        assert!(
            Instant::now() < deadline,
            "not initialized: {:?}",
            task.stats()
        );
        let _ = task.poll(Duration::from_millis(200));
    }
    let stats = task.stats();
    assert!(stats.checkpoints_load_ok, "{stats:?}");
    assert_eq!(stats.checkpoints_loaded, 2, "{stats:?}");
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert_task_clean(&task);
}

#[test]
fn poll_before_start_is_an_error_and_poll_after_stop_says_stopped() {
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 0, 0), sync(0, 100, 90)])
        .unwrap();
    c.commit_offsets(Side::Source, "g1", &[("orders", 0, 100, "")])
        .unwrap();
    let task = CheckpointTask::new(config(&c, &[])).unwrap();
    assert!(
        matches!(task.poll(Duration::ZERO), Err(Error::NotStarted)),
        "poll before start"
    );
    assert!(
        matches!(task.stop(), Err(Error::NotStarted)),
        "stop before start"
    );
    task.start().unwrap();
    assert!(matches!(task.start(), Err(Error::AlreadyStarted)));
    assert_eq!(
        poll_until_emitted(&task, EMIT_WAIT),
        vec![cp("g1", 0, 100, 90, "")]
    );
    task.stop().unwrap();
    for _ in 0..2 {
        let out = task.poll(Duration::from_secs(5)).unwrap();
        assert_eq!(out.status, PollStatus::Stopped);
        assert!(out.checkpoints.is_empty());
    }
    assert!(
        matches!(task.start(), Err(Error::AlreadyStopped)),
        "start after stop"
    );
    assert_task_clean(&task);
}

/// Runs `poll(60 s)` on a second thread, waits until that thread is inside poll (a probe poll
/// is refused as "already running"), stops from this thread, and returns (stop latency, time
/// from stop to the poll's return, the poll's status).
fn stop_while_polling(task: &CheckpointTask) -> (Duration, Duration, PollStatus) {
    thread::scope(|s| {
        let poller = s.spawn(|| loop {
            let r = task.poll(Duration::from_secs(60));
            if is_busy(&r) {
                // The probe below holds the poll lock for an instant; try again.
                thread::yield_now();
                continue;
            }
            return (r, Instant::now());
        });
        wait_until(
            Duration::from_secs(10),
            "the other thread is inside poll",
            || is_busy(&task.poll(Duration::ZERO)),
        );
        let began = Instant::now();
        let stopped = task.stop().unwrap();
        let took = began.elapsed();
        let (r, returned_at) = poller.join().unwrap();
        let status = r.unwrap().status;
        assert!(matches!(stopped, StopOutcome::Stopped(_)));
        (took, returned_at.saturating_duration_since(began), status)
    })
}

#[test]
fn stop_while_another_thread_waits_in_poll_for_the_next_cycle_returns_promptly_with_stopped() {
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync(0, 0, 0), sync(0, 100, 90)])
        .unwrap();
    c.commit_offsets(Side::Source, "g1", &[("orders", 0, 100, "")])
        .unwrap();
    let task =
        CheckpointTask::new(config(&c, &[("emit.checkpoints.interval.seconds", "60")])).unwrap();
    task.start().unwrap();
    poll_until_emitted(&task, EMIT_WAIT);
    let (took, poll_return, status) = stop_while_polling(&task);
    eprintln!("stop during a poll waiting for its next cycle: stop {took:?}, poll returned {poll_return:?} after the stop began");
    assert_eq!(status, PollStatus::Stopped);
    assert!(
        took < PROMPT && poll_return < PROMPT,
        "{took:?} {poll_return:?}"
    );
    assert_task_clean(&task);
}

#[test]
fn stop_while_another_thread_waits_in_poll_for_the_stores_returns_promptly_with_stopped() {
    install_logger();
    let c = clusters();
    let events = Events::new();
    let reached = Latch::new();
    let hooks = Store::OffsetSyncs.hooks(hold_until_stopped(Store::OffsetSyncs, &events, &reached));
    let task = CheckpointTask::with_hooks(config(&c, &[]), hooks).unwrap();
    task.start().unwrap();
    reached.wait(
        Duration::from_secs(30),
        "the offset-sync store start to be held",
    );
    assert_eq!(
        task.poll(Duration::from_millis(50)).unwrap().status,
        PollStatus::NotReady
    );
    let (took, poll_return, status) = stop_while_polling(&task);
    eprintln!("stop during a poll waiting for the stores: stop {took:?}, poll returned {poll_return:?} after the stop began");
    assert_eq!(status, PollStatus::Stopped);
    assert!(
        took < PROMPT && poll_return < PROMPT,
        "{took:?} {poll_return:?}"
    );
    assert_task_clean(&task);
}

#[test]
fn poll_from_another_thread_while_stop_is_closing_says_stopped() {
    install_logger();
    let c = clusters();
    let task = Arc::new(CheckpointTask::new(config(&c, &[])).unwrap());
    task.start().unwrap();
    let seen: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let (weak, seen2) = (Arc::downgrade(&task), Arc::clone(&seen));
    // At each step of the stop, another thread polls; every answer must be Stopped (not an
    // error, not a cycle).
    task.stop_signal().set_observer(Arc::new(move |step| {
        let Some(task) = weak.upgrade() else { return };
        if !task.stop_signal().is_stopped() {
            // A close during start-up, before the stop began.
            return;
        }
        let answer = thread::spawn(move || task.poll(Duration::ZERO))
            .join()
            .unwrap();
        seen2.lock().unwrap().push(format!("{step}: {answer:?}"));
    }));
    task.stop().unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|s| s.starts_with("poll returned")),
        "{seen:?}"
    );
    for s in &seen {
        assert!(
            s.ends_with("Ok(PollOutcome { status: Stopped, checkpoints: [] })"),
            "{seen:?}"
        );
    }
    task.stop().unwrap();
    assert_task_clean(&task);
}

/// Syncs every 100 upstream offsets on both partitions of `orders` (newest at 900), and groups
/// committed behind the newest sync (g1 at 150, g2 at 450) and past it (g3 at 950).
fn groups_behind_the_newest_sync(c: &EmbeddedClusters) -> MirrorCheckpointConfig {
    let syncs: Vec<OffsetSync> = (0..2)
        .flat_map(|p| (0..1000).step_by(100).map(move |u| sync(p, u, u + 10)))
        .collect();
    c.produce_offset_syncs(Side::Source, SYNCS, &syncs).unwrap();
    for (group, at) in [("g1", 150), ("g2", 450), ("g3", 950)] {
        c.commit_offsets(
            Side::Source,
            group,
            &[("orders", 0, at, ""), ("orders", 1, at, "")],
        )
        .unwrap();
    }
    config(
        c,
        &[
            ("task.assigned.groups", "g1,g2,g3"),
            // The mock cluster never answers CreateTopics: give up on it after a second.
            ("admin.timeout.ms", "1000"),
        ],
    )
}

#[test]
fn an_empty_checkpoints_topic_loads_the_full_sync_history_so_every_group_behind_the_newest_sync_is_checkpointed_in_the_first_cycle(
) {
    install_logger();
    let c = clusters();
    let task = CheckpointTask::new(groups_behind_the_newest_sync(&c)).unwrap();
    task.start().unwrap();
    let mut expected = Vec::new();
    // MM2's store keeps syncs spaced exponentially back from the newest: 150 translates through
    // the sync at 0 (no sync at 100 is kept), 450 through the one at 400.
    for (group, up, down) in [("g1", 150, 11), ("g2", 450, 411), ("g3", 950, 911)] {
        for p in 0..2 {
            expected.push((group.to_string(), p, up, down));
        }
    }
    assert_eq!(first_cycle(&task, EMIT_WAIT), expected);
    assert!(task.stats().checkpoints_load_ok);
    task.stop().unwrap();
    assert_task_clean(&task);
}

#[test]
fn a_checkpoints_topic_that_is_missing_and_cannot_be_created_starts_pessimistic_keeping_only_the_newest_sync(
) {
    install_logger();
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    let task = CheckpointTask::new(groups_behind_the_newest_sync(&c)).unwrap();
    task.start().unwrap();
    // Only the group at or past the newest sync translates: nothing proves what an earlier
    // generation emitted for the others.
    let expected: Vec<_> = (0..2).map(|p| ("g3".to_string(), p, 950, 911)).collect();
    assert_eq!(first_cycle(&task, EMIT_WAIT), expected);
    assert!(!task.stats().checkpoints_load_ok);
    task.stop().unwrap();
    assert_task_clean(&task);
}

/// Both flows of one `mm2.properties` in one object: each flow's own task, a failed flow named
/// and leaving the other running, and one stop for both that leaves nothing behind.
#[test]
fn every_enabled_flow_of_one_file_runs_a_failed_flow_leaves_the_other_and_one_stop_stops_both() {
    use mm2_checkpoint::checkpoint_flows::CheckpointFlows;
    use mm2_checkpoint::checkpoint_task::faults::Fault;

    let c = EmbeddedClusters::new().unwrap();
    let (a, b) = (c.bootstrap(Side::Source), c.bootstrap(Side::Target));
    // Created beforehand: the mock's topic creation times out.
    c.create_topic(Side::Target, "A.checkpoints.internal", 1)
        .unwrap();
    c.create_topic(Side::Source, "B.checkpoints.internal", 1)
        .unwrap();
    let text = format!(
        "clusters = A, B\nA.bootstrap.servers = {a}\nB.bootstrap.servers = {b}\n\
         A->B.enabled = true\nB->A.enabled = true\ntask.assigned.groups = g\n\
         emit.checkpoints.interval.seconds = 1\nB->A.emit.reverse.checkpoints.enabled = true\n"
    );
    let (flows, warnings) = CheckpointFlows::from_properties_text(&text).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<&str> = flows.flows().map(|(name, _)| name).collect();
    assert_eq!(names, ["A->B", "B->A"]);
    flows.start().unwrap();
    wait_until(EMIT_WAIT, "both flows loaded", || {
        flows.flows().all(|(_, task)| task.stats().initialized)
    });
    let reverse = flows.task("B->A").unwrap();
    let forward = flows.task("A->B").unwrap();
    assert!(forward.stats().reverse_syncs_loaded == 0);

    reverse.inject_fault(Fault::TailPanics);
    wait_until(EMIT_WAIT, "the B->A flow failed", || {
        !flows.failed().is_empty()
    });
    let failed = flows.failed();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "B->A");
    assert!(failed[0].1.contains("panicked"), "{failed:?}");
    // The other flow goes on: its cycles still complete.
    let cycles = forward.stats().cycles;
    wait_until(EMIT_WAIT, "a cycle of A->B after B->A failed", || {
        let out = forward.poll(Duration::from_millis(200)).unwrap();
        assert_ne!(
            out.status,
            PollStatus::Failed,
            "{:?}",
            forward.fatal_error()
        );
        forward.stats().cycles > cycles
    });

    let began = Instant::now();
    let outcomes = flows.stop();
    let took = began.elapsed();
    assert_eq!(outcomes.len(), 2);
    for (name, outcome) in &outcomes {
        assert!(
            matches!(outcome, Ok(StopOutcome::Stopped(_))),
            "{name}: {outcome:?}"
        );
    }
    assert!(took < PROMPT, "stopping both flows took {took:?}");
    for (_, task) in flows.flows() {
        assert_task_clean(task);
    }
}
