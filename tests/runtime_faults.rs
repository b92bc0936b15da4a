//! CheckpointTask under broker faults on real Apache Kafka brokers: a source cluster that is not
//! there at start, and a target broker that crashes mid-run and comes back empty on the same
//! port. The other fault tests are split by what fails, so that their binaries run side by side
//! (each asserts process-wide counters, so the tests of one binary run one at a time):
//! tests/runtime_faults_offset_syncs.rs (the offset syncs' broker and topic),
//! tests/runtime_group_faults.rs (group discovery) and
//! tests/runtime_group_offset_sync_faults.rs (the group offset sync).

use std::net::{Ipv4Addr, TcpListener};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollOutcome, PollStatus, StopOutcome};
use mm2_checkpoint::Checkpoint;

use support::broker::signal;
use support::ensure_topic;
use support::names::FlowNames;
use support::runtime::{
    assert_no_leaks, captured_logs, clear_logs, install_logger, produce_syncs, read_checkpoints,
    serial, Monotonicity,
};
use support::{wait_until, Broker};

/// Hang detector for anything that should be prompt.
const PROMPT: Duration = Duration::from_secs(2);

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local_addr").port()
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

/// A broker process held under SIGSTOP: it accepts connections (the kernel does) and answers
/// nothing, as in a long GC pause. Continued when dropped.
struct Hung(u32);

impl Hung {
    fn stop(pid: u32) -> Hung {
        signal(pid, "-STOP");
        Hung(pid)
    }
}

impl Drop for Hung {
    fn drop(&mut self) {
        signal(self.0, "-CONT");
    }
}

#[test]
fn a_hung_source_is_retried_with_a_true_reason_at_start_up_and_reported_while_a_cycle_waits() {
    let _g = serial();
    install_logger();
    let source = Broker::start();
    let f = FlowNames::on(&source.bootstrap(), &support::shared_pair().1.bootstrap());
    f.create_source_topics(1);
    f.create_target_topics(1, true);
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 100, 100)],
        false,
    );
    f.commit("g1", &[(0, 100, "")]);
    let hung = Hung::stop(source.pid());
    // A 1 s connection set-up timeout gives three unanswered ApiVersion requests within
    // seconds, where the default (30 s) takes minutes.
    let task = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", &f.group("g1")),
        ("source.cluster.socket.connection.setup.timeout.ms", "1000"),
        ("admin.timeout.ms", "6000"),
        ("emit.checkpoints.interval.seconds", "1"),
    ]))
    .unwrap();
    let _stop_on_unwind = StopOnDrop(&task);
    task.start().unwrap();
    // A second task, stopped while the source still hangs.
    let stopped_while_hung = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", &f.group("g1")),
        ("source.cluster.socket.connection.setup.timeout.ms", "1000"),
    ]))
    .unwrap();
    stopped_while_hung.start().unwrap();
    let hung_until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < hung_until {
        let out = task.poll(Duration::from_secs(1)).unwrap();
        assert_eq!(
            out.status,
            PollStatus::NotReady,
            "{out:?}, fatal {:?}",
            task.fatal_error()
        );
    }
    let reason = task.retry_reason().unwrap_or_default();
    eprintln!("hung source: retry reason {reason:?}");
    assert!(
        reason.contains("no answer from") && reason.contains(&source.port().to_string()),
        "retry reason {reason:?}"
    );
    assert!(!reason.contains("security.protocol"), "{reason}");
    // The seconds are those of the hang so far (the task started 6 s ago; the first timeout
    // came after 1 s), not those as of librdkafka's last report.
    let secs: u64 = reason
        .split(" for ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no duration in {reason:?}"));
    assert!(secs >= 3, "{secs} s in {reason:?}");
    let began = Instant::now();
    let StopOutcome::Stopped(_) = stopped_while_hung.stop().unwrap() else {
        panic!("not stopped")
    };
    let stop_hung = began.elapsed();
    eprintln!("hung source: stop during the hang took {stop_hung:?}");
    assert!(
        stop_hung < PROMPT,
        "stop during the hang took {stop_hung:?}"
    );

    drop(hung);
    let continued = Instant::now();
    let mut seen = Vec::new();
    while !seen.contains(&f.cp("g1", 0, 100, 100)) {
        let out = task.poll(Duration::from_secs(1)).unwrap();
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "{out:?}, fatal {:?}",
            task.fatal_error()
        );
        seen.extend(out.checkpoints);
        assert!(
            continued.elapsed() < Duration::from_secs(60),
            "no checkpoint after the source answered again: {seen:?}"
        );
    }
    eprintln!(
        "hung source: first checkpoint {:?} after SIGCONT",
        continued.elapsed()
    );

    // In steady state: a cycle blocked in its offset fetch says so, at the default level and
    // in the retry reason, while it waits (a third of the 6 s request timeout: 2 s).
    clear_logs();
    let stop_took = thread::scope(|scope| {
        let task = &task;
        let poller = scope.spawn(move || loop {
            match task.poll(Duration::from_secs(1)) {
                Ok(o) if o.status == PollStatus::Stopped => return,
                Ok(_) => {}
                Err(e) => panic!("{e}"),
            }
        });
        let _stop_on_unwind = StopOnDrop(task);
        let hung = Hung::stop(source.pid());
        let stopped = Instant::now();
        let wanted = format!("cluster `{}`: no answer to OffsetFetch", f.source_alias);
        wait_until(
            Duration::from_secs(15),
            "the slow fetch's retry reason",
            || task.retry_reason().is_some_and(|r| r.contains(&wanted)),
        );
        eprintln!(
            "hung source in steady state: retry reason {:?} after {:?}",
            task.retry_reason(),
            stopped.elapsed()
        );
        assert!(
            task.metrics().task.retries.retrying_for.is_some(),
            "no time in the retry metrics"
        );
        let warned = captured_logs()
            .into_iter()
            .any(|l| l.level == log::Level::Warn && l.message.contains(&wanted));
        assert!(warned, "no warning naming the cluster and the call");
        drop(hung);
        let cycles = task.stats().cycles;
        wait_until(Duration::from_secs(30), "a cycle after SIGCONT", || {
            task.stats().cycles > cycles + 1
        });
        let began = Instant::now();
        let StopOutcome::Stopped(_) = task.stop().unwrap() else {
            panic!("not stopped")
        };
        let took = began.elapsed();
        poller.join().unwrap();
        took
    });
    assert!(stop_took < PROMPT, "stop took {stop_took:?}");
}
