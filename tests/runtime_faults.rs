//! CheckpointTask under broker faults on real Apache Kafka brokers: a source cluster that is not
//! there at start, a target broker that crashes mid-run and comes back empty on the same port, a
//! source broker that crashes during the offset-sync load and comes back with its data, the
//! offset-syncs topic deleted under the tail, and (injected) failures of a group listing or of one
//! group's committed offsets in discovery and in the group offset sync.

mod support;

use std::net::{Ipv4Addr, TcpListener};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{
    CheckpointTask, PollOutcome, PollStatus, StartupHooks, StopOutcome,
};
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::{Checkpoint, OffsetSync};

use support::kafka::delete_topic;
use support::names::FlowNames;
use support::runtime::task_config;
use support::runtime::{
    assert_no_leaks, captured_logs, clear_logs, install_logger, poll_until_emitted, produce_syncs,
    read_checkpoints, serial, sorted, Latch, Monotonicity,
};
use support::{commit_group_offsets, create_topic, create_topic_with_config, ensure_topic};
use support::{wait_until, Broker};

/// Hang detector for anything that should be prompt.
const PROMPT: Duration = Duration::from_secs(2);

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local_addr").port()
}

#[test]
fn absent_source_broker_start_returns_at_once_poll_is_not_ready_and_stop_is_prompt() {
    let _g = serial();
    install_logger();
    let source = format!("127.0.0.1:{}", closed_port());
    let f = FlowNames::on(&source, &support::shared_pair().1.bootstrap());
    f.create_target_topics(1, true);
    clear_logs();
    let task = CheckpointTask::new(f.config(&[("task.assigned.groups", &f.group("g1"))])).unwrap();

    let began = Instant::now();
    task.start().unwrap();
    let start_took = began.elapsed();
    // Polls over seven seconds, past the five seconds after which a read that saw nothing at all
    // asks whether its topic exists: the offset syncs live on the absent source.
    for _ in 0..7 {
        let out = task.poll(Duration::from_secs(1)).unwrap();
        assert_eq!(out.status, PollStatus::NotReady, "{out:?}");
    }
    let stats = task.stats();
    assert!(
        !stats.initialized && task.fatal_error().is_none(),
        "{stats:?}"
    );
    let began = Instant::now();
    let StopOutcome::Stopped(stop_took) = task.stop().unwrap() else {
        panic!("not stopped")
    };
    let stop_wall = began.elapsed();
    eprintln!(
        "absent source: start took {start_took:?}, stop took {stop_took:?} ({stop_wall:?} wall)"
    );
    assert!(start_took < PROMPT, "start blocked for {start_took:?}");
    // The outage is reported through the `log` crate, once per kind of error, not many times a
    // second (librdkafka repeats "all brokers are down" about every 50 ms).
    let ours: Vec<_> = captured_logs()
        .into_iter()
        .filter(|l| l.level <= log::Level::Warn && l.target.starts_with("mm2_checkpoint"))
        .collect();
    eprintln!("absent source: {} warnings from the library", ours.len());
    assert!(
        ours.iter().any(|l| l.message.contains(&f.syncs)),
        "the unreachable source was not reported: {ours:?}"
    );
    assert!(ours.len() <= 5, "warning flood: {ours:#?}");
    assert!(stop_wall < PROMPT, "stop took {stop_wall:?}");
    assert_no_leaks();
}

/// Stops a task when dropped (a second stop is harmless).
struct StopOnDrop<'a>(&'a CheckpointTask);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.stop();
    }
}

/// Every poll outcome of a task, collected by a polling thread.
type Outcomes = Arc<Mutex<Vec<Result<PollOutcome, String>>>>;

fn emitted(outcomes: &Outcomes) -> Vec<Checkpoint> {
    outcomes
        .lock()
        .unwrap()
        .iter()
        .filter_map(|o| o.as_ref().ok())
        .flat_map(|o| o.checkpoints.clone())
        .collect()
}

#[test]
fn target_broker_killed_and_restarted_empty_the_task_keeps_running_and_never_goes_backwards() {
    let _g = serial();
    install_logger();
    // Only the target is killed: it is this test's own broker; the source is the shared one.
    let mut target = Broker::start();
    let f = FlowNames::on(&support::shared_pair().0.bootstrap(), &target.bootstrap());
    let (s, t) = (f.s.clone(), f.t.clone());
    f.create_source_topics(2);
    let target_topics = |t: &str| {
        ensure_topic(t, &f.remote, 2);
        ensure_topic(t, &f.checkpoints, 1);
    };
    target_topics(&t);
    produce_syncs(
        &s,
        &f.syncs,
        &[
            f.sync(0, 0, 0),
            f.sync(0, 100, 100),
            f.sync(1, 0, 0),
            f.sync(1, 100, 100),
        ],
        false,
    );
    f.commit("g1", &[(0, 100, ""), (1, 100, "")]);
    f.commit("g2", &[(0, 100, "")]);
    let task = CheckpointTask::new(f.config(&[("task.assigned.groups", &f.groups(&["g1", "g2"]))]))
        .unwrap();
    task.start().unwrap();

    let outcomes: Outcomes = Arc::default();
    let stop_took = thread::scope(|scope| {
        let out = Arc::clone(&outcomes);
        let task = &task;
        let poller = scope.spawn(move || loop {
            let r = task.poll(Duration::from_secs(1));
            let stopped = matches!(&r, Ok(o) if o.status == PollStatus::Stopped);
            out.lock().unwrap().push(r.map_err(|e| e.to_string()));
            if stopped {
                return;
            }
        });
        // If an assertion below panics, the scope still joins the poller: stop the task on the
        // way out so that the poller ends and the test reports its failure instead of hanging.
        let _stop_on_unwind = StopOnDrop(task);
        let has = |c: &Checkpoint| emitted(&outcomes).contains(c);
        wait_until(Duration::from_secs(30), "the first checkpoints", || {
            emitted(&outcomes).len() >= 3
        });

        target.kill();
        let killed = Instant::now();
        produce_syncs(&s, &f.syncs, &[f.sync(0, 200, 200)], false);
        f.commit("g1", &[(0, 200, ""), (1, 100, "")]);
        wait_until(
            Duration::from_secs(60),
            "the tail applies the new sync",
            || task.stats().syncs_loaded == 5,
        );
        let cycles = task.stats().cycles;
        wait_until(
            Duration::from_secs(60),
            "a cycle runs while the target is down",
            || task.stats().cycles > cycles,
        );
        assert!(
            !has(&f.cp("g1", 0, 200, 200)),
            "delivered to a dead broker?"
        );

        target.restart_fresh();
        eprintln!("target was down for {:?}", killed.elapsed());
        target_topics(&t);
        wait_until(
            Duration::from_secs(60),
            "a checkpoint after the restart",
            || has(&f.cp("g1", 0, 200, 200)),
        );
        produce_syncs(&s, &f.syncs, &[f.sync(0, 300, 300)], false);
        f.commit("g1", &[(0, 300, ""), (1, 100, "")]);
        wait_until(Duration::from_secs(30), "emission goes on", || {
            has(&f.cp("g1", 0, 300, 300))
        });

        let began = Instant::now();
        let StopOutcome::Stopped(_) = task.stop().unwrap() else {
            panic!("not stopped")
        };
        let took = began.elapsed();
        poller.join().unwrap();
        took
    });
    eprintln!("stop after the target restart took {stop_took:?}");
    assert!(stop_took < PROMPT);
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());

    // Every batch, in order, against all earlier ones.
    let outcomes = outcomes.lock().unwrap().clone();
    let mut batches = Monotonicity::new();
    for (i, o) in outcomes.iter().enumerate() {
        if let Ok(o) = o {
            batches.check(&format!("poll {i}"), &o.checkpoints);
        }
    }
    let errors: Vec<_> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    eprintln!(
        "{} polls ({} checkpoints, {} poll errors while the target was away: {errors:?})",
        outcomes.len(),
        batches.checked,
        errors.len()
    );
    assert_eq!(
        outcomes
            .last()
            .map(|o| o.as_ref().map(|o| o.status.clone())),
        Some(Ok(PollStatus::Stopped))
    );
    // The restarted broker holds only what was written after the restart, in order.
    let after = read_checkpoints(&t, &f.checkpoints);
    let mut topic = Monotonicity::new();
    topic.check("checkpoints topic after the restart", &after);
    assert!(after.contains(&f.cp("g1", 0, 300, 300)), "{after:?}");
    assert!(
        !after.iter().any(|c| c.upstream_offset == 100),
        "old checkpoints were written again: {after:?}"
    );
    assert_no_leaks();
}

/// `f`'s topics on both sides: its replicated topic (2 partitions) and the internal topics
/// created compacted; then the offset syncs `syncs(f)` seeded on the source.
fn seed(f: &FlowNames, syncs: impl Fn(&FlowNames) -> Vec<OffsetSync>, batched: bool) {
    f.create_source_topics(2);
    f.create_target_topics(2, true);
    produce_syncs(&f.s, &f.syncs, &syncs(f), batched);
}

/// The source broker (which holds the offset syncs) is SIGKILLed while the task is loading
/// them, and restarted on its own log dir: the load waits, then finishes with every sync, and
/// the tail goes on applying new ones. The start-up hook holds the load at its first read
/// until the broker is dead, so the kill lands inside the load every time.
#[test]
fn source_broker_killed_during_the_sync_load_and_restarted_with_its_data_the_load_completes() {
    const SYNC_RECORDS: i64 = 20_000;
    let _g = serial();
    install_logger();
    // Only the source is killed: it is this test's own broker; the target is the shared one.
    let mut source = Broker::start();
    let f = FlowNames::on(&source.bootstrap(), &support::shared_pair().1.bootstrap());
    let syncs = |f: &FlowNames| {
        (0..SYNC_RECORDS)
            .map(|i| f.sync((i % 2) as i32, i / 2 * 10, i / 2 * 10))
            .collect()
    };
    seed(&f, syncs, true);
    f.commit("g1", &[(0, 99_990, ""), (1, 99_995, "")]);

    let (reading, killed) = (Latch::new(), Latch::new());
    let hooks = StartupHooks {
        checkpoint_store_reading: None,
        offset_sync_store_reading: Some(Arc::new({
            let (reading, killed) = (reading.clone(), killed.clone());
            move |_: &StopSignal| {
                reading.open();
                killed.wait(Duration::from_secs(60), "the test to kill the source");
            }
        })),
        ..StartupHooks::default()
    };
    let task =
        CheckpointTask::with_hooks(f.config(&[("task.assigned.groups", &f.group("g1"))]), hooks)
            .unwrap();
    task.start().unwrap();
    reading.wait(Duration::from_secs(30), "the offset-sync load to begin");
    source.kill();
    killed.open();
    // The load cannot finish while the source is down (a cycle would need it).
    let down = Instant::now();
    while down.elapsed() < Duration::from_secs(3) {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        assert_eq!(out.status, PollStatus::NotReady, "{out:?}");
    }
    assert!(!task.stats().initialized);
    source.restart();
    eprintln!(
        "source restarted with its data in {:?}",
        source.startup_time()
    );
    wait_until(Duration::from_secs(60), "the load completes", || {
        task.stats().initialized
    });
    let stats = task.stats();
    assert_eq!(stats.syncs_loaded, SYNC_RECORDS as u64, "{stats:?}");
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
    let mut emitted = Vec::new();
    while emitted.len() < 2 {
        emitted.extend(poll_until_emitted(&task, Duration::from_secs(30)));
    }
    // Both partitions' newest sync is 99,990 → 99,990: a commit on it translates exactly, one
    // past it to the next downstream offset.
    assert_eq!(
        sorted(emitted),
        vec![f.cp("g1", 0, 99_990, 99_990), f.cp("g1", 1, 99_995, 99_991)]
    );
    // The tail reconnected too: a sync written after the restart is applied.
    produce_syncs(&f.s, &f.syncs, &[f.sync(1, 100_000, 200_000)], false);
    wait_until(
        Duration::from_secs(30),
        "the tail applies a new sync",
        || task.stats().syncs_loaded == SYNC_RECORDS as u64 + 1,
    );
    let began = Instant::now();
    task.stop().unwrap();
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
    assert_no_leaks();
}

/// The offset-syncs topic is deleted while the tail thread reads it. Pins what happens today:
/// the task neither hangs nor fails, keeps what it translated, and its stop stays prompt; a
/// topic recreated under the same name is followed again from its start.
#[test]
fn offset_syncs_topic_deleted_while_the_tail_reads_it_the_task_keeps_running_and_stops_promptly() {
    let _g = serial();
    install_logger();
    // Deleting this test's own topic disturbs no other test: the shared brokers.
    let f = FlowNames::shared();
    seed(&f, |f| vec![f.sync(0, 0, 0), f.sync(0, 100, 90)], false);
    let s = f.s.clone();
    f.commit("g1", &[(0, 150, "")]);
    let task = CheckpointTask::new(f.config(&[("task.assigned.groups", &f.group("g1"))])).unwrap();
    task.start().unwrap();
    assert_eq!(
        poll_until_emitted(&task, Duration::from_secs(30)),
        vec![f.cp("g1", 0, 150, 91)]
    );
    clear_logs();
    delete_topic(&s, &f.syncs);
    // Cycles go on without the topic: nothing new to emit, no failure.
    let cycles = task.stats().cycles;
    wait_until(
        Duration::from_secs(60),
        "two cycles after the deletion",
        || {
            let out = task.poll(Duration::from_millis(500)).unwrap();
            assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
            task.stats().cycles >= cycles + 2
        },
    );
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
    let reported: Vec<_> = captured_logs()
        .into_iter()
        .filter(|l| l.level <= log::Level::Warn)
        .collect();
    eprintln!("after deleting {}: {reported:#?}", f.syncs);

    // Recreated and written again: the tail follows the new topic.
    create_topic_with_config(&s, &f.syncs, 1, &[("cleanup.policy", "compact")]);
    produce_syncs(&s, &f.syncs, &[f.sync(0, 200, 190)], false);
    f.commit("g1", &[(0, 250, "")]);
    let recreated = Instant::now();
    let followed = loop {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        if out.checkpoints.contains(&f.cp("g1", 0, 250, 191)) {
            break true;
        }
        if recreated.elapsed() > Duration::from_secs(30) {
            break false;
        }
    };
    eprintln!(
        "recreated {}: new sync {} (syncs applied {})",
        f.syncs,
        if followed { "followed" } else { "NOT followed" },
        task.stats().syncs_loaded
    );
    assert!(followed, "{:#?}", captured_logs());
    let began = Instant::now();
    task.stop().unwrap();
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
    assert_no_leaks();
}

/// A group refresh that fails with an error retrying can fix (here injected: the broker
/// unreachable for one refresh) warns, shows its reason in the retry reason until a refresh
/// succeeds, and never fails the task. Real Kafka: the mock cluster cannot list groups at all.
#[test]
fn a_group_refresh_that_fails_transiently_is_retried_with_its_reason_visible_until_one_succeeds() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let b = support::shared().bootstrap();
    let (s, t) = (support::unique("src"), support::unique("tgt"));
    create_topic(&b, &format!("mm2-offset-syncs.{t}.internal"), 1);
    create_topic_with_config(
        &b,
        &format!("{s}.checkpoints.internal"),
        1,
        &[("cleanup.policy", "compact")],
    );
    let task = CheckpointTask::new(task_config(
        &b,
        &b,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("refresh.groups.interval.seconds", "1"),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    support::wait_for(Duration::from_secs(30), "the stores loaded", || {
        task.poll(Duration::from_millis(100)).unwrap();
        task.stats().initialized.then_some(())
    });
    assert_eq!(task.retry_reason(), None);
    task.inject_fault(Fault::GroupListingFails(
        RDKafkaErrorCode::BrokerTransportFailure,
    ));
    let reason = support::wait_for(Duration::from_secs(10), "a retry reason", || {
        task.stats().retry_reason
    });
    assert!(reason.contains("group discovery failed"), "{reason}");
    assert!(reason.contains("BrokerTransportFailure"), "{reason}");
    assert_eq!(task.fatal_error(), None);
    // The next refresh, a second later, lists the groups and clears it; the task kept running.
    support::wait_for(Duration::from_secs(10), "the retry reason cleared", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason().is_none().then_some(())
    });
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// One group whose offsets cannot be read (here injected: GROUP_AUTHORIZATION_FAILED, as its ACL
/// would answer) is skipped, not fatal: the other groups are adopted and checkpointed, the task
/// never fails, and the skipped group is adopted by a later refresh once its fetch succeeds (as
/// Java's task logs such a group and goes on with the rest).
#[test]
fn one_group_whose_offsets_are_denied_is_skipped_and_the_others_go_on() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let b = support::shared().bootstrap();
    let (s, t) = (support::unique("src"), support::unique("tgt"));
    let prefix = support::unique("denied");
    let topic = support::unique("orders");
    create_topic(&b, &topic, 1);
    create_topic(&b, &format!("mm2-offset-syncs.{t}.internal"), 1);
    let (first, second) = (format!("{prefix}-a"), format!("{prefix}-b"));
    commit_group_offsets(&b, &first, &[(&topic, 0, 10, "")]);
    commit_group_offsets(&b, &second, &[(&topic, 0, 10, "")]);
    let task = CheckpointTask::new(task_config(
        &b,
        &b,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("groups", &format!("{prefix}-.*")),
            ("refresh.groups.interval.seconds", "5"),
        ],
    ))
    .unwrap();
    // Armed before start: start-up's discovery meets it for the first group in name order.
    task.inject_fault(Fault::GroupOffsetsFail(
        RDKafkaErrorCode::GroupAuthorizationFailed,
    ));
    task.start().unwrap();
    let adopted = support::wait_for(Duration::from_secs(30), "a group adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        let groups = task.groups();
        (!groups.is_empty()).then_some(groups)
    });
    assert_eq!(
        adopted,
        vec![second.clone()],
        "the denied group was adopted"
    );
    assert_eq!(task.fatal_error(), None);
    // The next refresh fetches the first group's offsets normally and adopts it.
    support::wait_for(Duration::from_secs(20), "both groups adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        (task.groups() == vec![first.clone(), second.clone()]).then_some(())
    });
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// One group whose offsets fail in a discovery for a reason retrying can fix (here injected:
/// COORDINATOR_NOT_AVAILABLE, as while its coordinator moves) is not adopted yet, its reason
/// visible in the retry reason until the next refresh fetches and adopts it; the other group is
/// adopted at once and the task never fails. Real Kafka: the mock cluster cannot list groups.
#[test]
fn one_group_whose_offsets_fail_retriably_in_discovery_is_the_retry_reason_until_adopted() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let b = support::shared().bootstrap();
    let (s, t) = (support::unique("src"), support::unique("tgt"));
    let prefix = support::unique("moving");
    let topic = support::unique("orders");
    create_topic(&b, &topic, 1);
    create_topic(&b, &format!("mm2-offset-syncs.{t}.internal"), 1);
    let (first, second) = (format!("{prefix}-a"), format!("{prefix}-b"));
    commit_group_offsets(&b, &first, &[(&topic, 0, 10, "")]);
    commit_group_offsets(&b, &second, &[(&topic, 0, 10, "")]);
    let task = CheckpointTask::new(task_config(
        &b,
        &b,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("groups", &format!("{prefix}-.*")),
            ("refresh.groups.interval.seconds", "5"),
        ],
    ))
    .unwrap();
    // Armed before start: start-up's discovery meets it for the first group in name order.
    task.inject_fault(Fault::GroupOffsetsFail(
        RDKafkaErrorCode::CoordinatorNotAvailable,
    ));
    task.start().unwrap();
    let (adopted, reason) = support::wait_for(Duration::from_secs(30), "a group adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        let groups = task.groups();
        // Read once loaded: until then the retry reason is start-up's.
        (!groups.is_empty() && task.stats().initialized).then(|| (groups, task.retry_reason()))
    });
    assert_eq!(
        adopted,
        vec![second.clone()],
        "the failing group was adopted"
    );
    let reason = reason.expect("a retry reason while the group waits for the next refresh");
    assert!(reason.contains(&format!("group `{first}`")), "{reason}");
    assert!(reason.contains("CoordinatorNotAvailable"), "{reason}");
    assert!(reason.contains("next group refresh"), "{reason}");
    assert_eq!(task.stats().group_fetches_denied, 0);
    // The next refresh fetches the first group's offsets normally, adopts it, and nothing is
    // being retried any more.
    support::wait_for(Duration::from_secs(20), "both groups adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        (task.groups() == vec![first.clone(), second.clone()]).then_some(())
    });
    assert_eq!(task.retry_reason(), None);
    assert_eq!(task.fatal_error(), None);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// A flow on the shared broker (source and target alike) with groups `a` and `b` committed at
/// 150 on the source (translated to 91 through the syncs 0→0 and 100→90), and a task that
/// checkpoints them and syncs their offsets into the target groups every 5 s, started with
/// `fault` armed. On one broker the target group is the source group itself, which has
/// committed offsets and no member: the target describes it as empty, so the sync reads its
/// committed offsets (where the fault strikes, at `a`, the first in name order) before writing.
fn syncing_task(
    fault: mm2_checkpoint::checkpoint_task::faults::Fault,
) -> (FlowNames, CheckpointTask) {
    let b = support::shared().bootstrap();
    let f = FlowNames::on(&b, &b);
    f.create_source_topics(1);
    f.create_target_topics(1, true);
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 100, 90)],
        false,
    );
    f.commit("a", &[(0, 150, "")]);
    f.commit("b", &[(0, 150, "")]);
    let task = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", &f.groups(&["a", "b"])),
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "5"),
    ]))
    .unwrap();
    task.inject_fault(fault);
    task.start().unwrap();
    let mut emitted = Vec::new();
    while emitted.len() < 2 {
        emitted.extend(poll_until_emitted(&task, Duration::from_secs(30)));
    }
    (f, task)
}

/// The offset group `g` of flow `f` has committed for the remote partition on the target.
fn target_offset(f: &FlowNames, g: &str) -> Option<i64> {
    support::committed_offsets(&f.t, &f.group(g), &f.remote, &[0])[0].offset
}

/// A target group whose committed offsets the group offset sync cannot read for a reason
/// retrying can fix (here injected: COORDINATOR_NOT_AVAILABLE, as while its coordinator moves)
/// is not written in that sync, its reason visible in the retry reason until the next sync
/// reads and writes it; the other group is written in the same sync and the task never fails.
/// Real Kafka: the mock cluster cannot describe groups.
#[test]
fn a_target_group_the_offset_sync_cannot_read_retriably_is_the_retry_reason_until_written() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let (f, task) = syncing_task(Fault::SyncGroupOffsetsFail(
        RDKafkaErrorCode::CoordinatorNotAvailable,
    ));
    let reason = support::wait_for(Duration::from_secs(30), "the sync's retry reason", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason()
            .filter(|r| r.contains("next group offset sync"))
    });
    // The sync that failed `a` went on to `b` (after it, in name order) before publishing the
    // reason; the next sync starts 5 s after that one did, far more than these reads take.
    assert_eq!(target_offset(&f, "b"), Some(91));
    assert_eq!(
        target_offset(&f, "a"),
        None,
        "a was written in the failed sync"
    );
    let a = f.group("a");
    assert!(
        reason.contains(&format!("group `{a}` on `{}`", f.target_alias)),
        "{reason}"
    );
    assert!(reason.contains("CoordinatorNotAvailable"), "{reason}");
    assert_eq!(task.stats().group_fetches_denied, 0);
    // The next sync reads `a` normally and writes it; nothing is being retried any more.
    support::wait_until(Duration::from_secs(30), "a written, reason cleared", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason().is_none() && target_offset(&f, "a") == Some(91)
    });
    assert_eq!(task.fatal_error(), None);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// A target group whose committed offsets its own ACL denies the group offset sync
/// (GROUP_AUTHORIZATION_FAILED, injected) is logged as an error, counted in
/// `group_fetches_denied` and skipped in that sync; it is no retry reason, the other group is
/// written in the same sync, and a later sync writes the skipped group once it can read it.
#[test]
fn a_target_group_denied_to_the_offset_sync_is_counted_and_skipped_and_the_others_written() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    install_logger();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let (f, task) = syncing_task(Fault::SyncGroupOffsetsFail(
        RDKafkaErrorCode::GroupAuthorizationFailed,
    ));
    // Counted when `a` is denied; `b` is written later in the same sync.
    support::wait_until(
        Duration::from_secs(30),
        "the denial counted, b written",
        || {
            let out = task.poll(Duration::from_millis(100)).unwrap();
            assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
            task.stats().group_fetches_denied == 1 && target_offset(&f, "b") == Some(91)
        },
    );
    assert_eq!(
        target_offset(&f, "a"),
        None,
        "a was written in the sync that denied it"
    );
    assert_eq!(task.retry_reason(), None);
    assert_eq!(task.fatal_error(), None);
    let a = f.group("a");
    let logged = captured_logs().into_iter().any(|l| {
        l.level == log::Level::Error
            && l.message.contains(&format!("group `{a}`"))
            && l.message.contains("GroupAuthorizationFailed")
            && l.message.contains("next group offset sync")
    });
    assert!(logged, "no error logged for the denied target group");
    // The fault struck once: a later sync reads `a` and writes it, and counts nothing more.
    support::wait_until(Duration::from_secs(30), "a written by a later sync", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        target_offset(&f, "a") == Some(91)
    });
    assert_eq!(task.stats().group_fetches_denied, 1);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}
