//! A task pointed at something that is not a working Kafka cluster: a closed port, a port that
//! answers in another protocol (HTTP), a listener that closes every connection at once, and one
//! that resets every connection, on either side, with the other side a real broker. `start`
//! returns at once; a closed port or reset connections are an outage, retried with its reason
//! visible (polls report NotReady, no fatal error); an endpoint that closes connections in order
//! before answering in Kafka's protocol is a wrong address or `security.protocol`, and fails the
//! task (see `kafka/failure.rs`). Either way the library says what is wrong through `log`, and
//! `stop` is prompt and leaves no client or thread.

use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};

use support::bad_endpoint::{BadEndpoint, Behaviour};
use support::runtime::{
    assert_no_leaks, captured_logs, clear_logs, install_logger, serial, task_config, LogLine,
};
use support::{create_topic_with_config, shared, unique};

/// Hang detector for start and stop.
const PROMPT: Duration = Duration::from_secs(2);

#[derive(Clone, Copy, Debug)]
enum BadSide {
    Source,
    Target,
}

/// Runs a task with one side pointing at `behaviour`'s endpoint for seven one-second polls;
/// returns the warnings that concern this case (they name its endpoint or its cluster aliases).
/// Cases run concurrently, so the no-leak check is left to the caller.
fn run_against(behaviour: Behaviour, side: BadSide) -> Vec<LogLine> {
    let bad = BadEndpoint::start(behaviour);
    let good = shared().bootstrap();
    // Distinct aliases keep each case's internal topics apart on the shared broker.
    let source_alias = unique("src");
    let target_alias = unique("tgt");
    let (s, t) = match side {
        BadSide::Source => (bad.address.clone(), good.clone()),
        BadSide::Target => (good.clone(), bad.address.clone()),
    };
    if let BadSide::Source = side {
        create_topic_with_config(
            &good,
            &format!("{source_alias}.checkpoints.internal"),
            1,
            &[("cleanup.policy", "compact")],
        );
    }
    let task = CheckpointTask::new(task_config(
        &s,
        &t,
        &[
            ("source.cluster.alias", &source_alias),
            ("target.cluster.alias", &target_alias),
            ("task.assigned.groups", "g1"),
        ],
    ))
    .unwrap();
    let began = Instant::now();
    task.start().unwrap();
    let start_took = began.elapsed();
    let case = format!("{behaviour:?} {side:?}");
    match behaviour {
        // A reset is what a broker being killed gives: retried like an outage (a kill can give
        // three resets within 30 ms at start-up).
        Behaviour::Closed | Behaviour::Reset => {
            // Past the five seconds after which a read that saw nothing asks whether its topic
            // exists.
            for _ in 0..7 {
                let out = task.poll(Duration::from_secs(1)).unwrap();
                assert_eq!(out.status, PollStatus::NotReady, "{case}: {out:?}");
            }
            assert!(
                task.fatal_error().is_none(),
                "{case}: {:?}",
                task.fatal_error()
            );
            let reason = task.retry_reason().unwrap_or_default();
            assert!(
                reason.contains(&bad.address),
                "{case}: retry reason {reason:?}"
            );
        }
        Behaviour::Http | Behaviour::Hangup => {
            let out = task.poll(Duration::from_secs(30)).unwrap();
            assert_eq!(out.status, PollStatus::Failed, "{case}: {out:?}");
            let fatal = task.fatal_error().unwrap_or_default();
            assert!(fatal.contains("security.protocol"), "{case}: {fatal}");
        }
    }
    assert!(!task.stats().initialized, "{case}");
    let began = Instant::now();
    let StopOutcome::Stopped(_) = task.stop().unwrap() else {
        panic!("{case}: not stopped")
    };
    let stop_took = began.elapsed();
    assert!(start_took < PROMPT, "{case}: start blocked {start_took:?}");
    assert!(stop_took < PROMPT, "{case}: stop took {stop_took:?}");
    let warnings: Vec<LogLine> = captured_logs()
        .into_iter()
        .filter(|l| {
            l.level <= log::Level::Warn
                && [&bad.address, &source_alias, &target_alias]
                    .iter()
                    .any(|needle| l.message.contains(needle.as_str()))
        })
        .collect();
    let mut distinct: Vec<&LogLine> = Vec::new();
    for w in &warnings {
        if !distinct
            .iter()
            .any(|d| d.target == w.target && d.message == w.message)
        {
            distinct.push(w);
        }
    }
    let mut report = format!(
        "{case}: start {start_took:?}, stop {stop_took:?}, {} warnings, distinct:",
        warnings.len()
    );
    for w in distinct {
        report.push_str(&format!("\n  [{} {}] {}", w.level, w.target, w.message));
    }
    eprintln!("{report}");
    warnings
}

/// Runs the four bad endpoints on `side` at once; returns each one's warnings.
fn run_all(side: BadSide) -> Vec<(Behaviour, Vec<LogLine>)> {
    clear_logs();
    let results = thread::scope(|scope| {
        let handles: Vec<_> = [
            Behaviour::Closed,
            Behaviour::Http,
            Behaviour::Hangup,
            Behaviour::Reset,
        ]
        .into_iter()
        .map(|b| (b, scope.spawn(move || run_against(b, side))))
        .collect();
        handles
            .into_iter()
            .map(|(b, h)| (b, h.join().expect("a case panicked")))
            .collect()
    });
    assert_no_leaks();
    results
}

/// Whether one of `warnings` comes from the library and names `needle`.
fn ours_naming(warnings: &[LogLine], needle: &str) -> bool {
    warnings
        .iter()
        .any(|w| w.target.starts_with("mm2_checkpoint") && w.message.contains(needle))
}

/// Runs every bad-listener case on `side` and checks what was said: the library's own warning
/// names `topic` (the first topic start-up reads on that side) for a closed port or an HTTP
/// port, and its warnings come once per kind of error, not at librdkafka's rate.
fn check_bad_side(side: BadSide, topic: &str) {
    let _g = serial();
    install_logger();
    for (behaviour, warnings) in run_all(side) {
        let named = ours_naming(&warnings, topic);
        match behaviour {
            Behaviour::Closed | Behaviour::Http | Behaviour::Reset => {
                assert!(named, "{behaviour:?}: {warnings:#?}")
            }
            // Its fatal error is checked in run_against. Whether the library also warned before
            // the third close is a matter of timing, so `named` is only printed here.
            Behaviour::Hangup => {
                eprintln!("{behaviour:?}: the library named the topic: {named}");
                assert!(
                    warnings
                        .iter()
                        .any(|w| w.target == "librdkafka" && w.message.contains("brokers are down")),
                    "{behaviour:?}: {warnings:#?}"
                );
            }
        }
        let ours = warnings
            .iter()
            .filter(|w| w.target.starts_with("mm2_checkpoint"))
            .count();
        assert!(ours <= 5, "{behaviour:?}: warning flood: {warnings:#?}");
    }
}

#[test]
fn a_source_that_is_not_kafka_is_retried_or_fails_says_so_and_stops_promptly() {
    // The offset syncs live on the source.
    check_bad_side(BadSide::Source, "mm2-offset-syncs");
}

#[test]
fn a_target_that_is_not_kafka_is_retried_or_fails_says_so_and_stops_promptly() {
    // The checkpoints topic lives on the target: the first start-up step cannot read it.
    check_bad_side(BadSide::Target, "checkpoints.internal");
}
