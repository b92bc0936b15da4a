//! No librdkafka line reaches stderr directly: every one goes through the `log` crate (and so
//! through the C log callback and the JVM bridge). librdkafka's own printer writes `%N|…` lines
//! to stderr whenever it serves a log or error event outside the event API, e.g. the events still
//! queued when `rd_kafka_destroy` closes a consumer.
//!
//! A child process (this test binary, running the ignored `child_start_stop_cycles`) starts and
//! stops tasks against the mock cluster and a real broker, each healthy and with the target an
//! HTTP port (fatal) or a closed port (retried); the parent reads the child's stderr.

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};

use support::bad_endpoint::{BadEndpoint, Behaviour};
use support::runtime::{assert_no_leaks, captured_logs, install_logger, task_config};
use support::{shared, unique, MockPair};

/// What the child prints on stdout: how many librdkafka lines went through `log`.
const ROUTED: &str = "librdkafka-lines-through-log=";

/// Whether `line` is one librdkafka printed itself (`%<syslog level>|<time>|<facility>|…`).
fn printed_by_librdkafka(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('%') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with('|')
}

#[test]
fn the_detector_recognises_librdkafkas_own_lines() {
    assert!(printed_by_librdkafka(
        "%3|1796082207.346|ERROR|rdkafka#consumer-6| [thrd:127.0.0.1:1/bootstrap]: 1/1 brokers are down"
    ));
    assert!(printed_by_librdkafka("%4|1.0|CONFWARN|x| y"));
    assert!(!printed_by_librdkafka(
        "[2026 WARN librdkafka] 1/1 brokers are down"
    ));
    assert!(!printed_by_librdkafka("100%| done"));
}

#[test]
fn start_and_stop_print_nothing_to_stderr_behind_log() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_start_stop_cycles",
            "--nocapture",
        ])
        .env_remove("MM2_TEST_LOG")
        .output()
        .expect("running the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let printed: Vec<&str> = stderr
        .lines()
        .filter(|l| printed_by_librdkafka(l))
        .collect();
    assert!(
        printed.is_empty(),
        "librdkafka wrote {} line(s) to stderr, bypassing `log`:\n{}",
        printed.len(),
        printed.join("\n")
    );
    // The cases did make librdkafka talk (so the silence above is not for want of lines).
    let routed: usize = stdout
        .lines()
        .find_map(|l| l.strip_prefix(ROUTED))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the child did not report {ROUTED}:\n{stdout}"));
    assert!(routed > 0, "no librdkafka line reached `log`:\n{stdout}");
}

/// How a case should go.
#[derive(Clone, Copy)]
enum Expect {
    /// A cycle runs (or is not due yet) within 30 s.
    Ready,
    /// The task fails within 30 s.
    Fails,
    /// Seven seconds of retries: a closed port is an outage (past the five seconds after which
    /// a read that saw nothing asks whether its topic exists).
    Retries,
}

/// One task from `source` to `target` under fresh aliases, run as `expect` says, then stopped.
fn case(source: &str, target: &str, expect: Expect) {
    let (s, t) = (unique("src"), unique("tgt"));
    let task = CheckpointTask::new(task_config(
        source,
        target,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("task.assigned.groups", "g1"),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    let window = match expect {
        Expect::Ready | Expect::Fails => Duration::from_secs(30),
        Expect::Retries => Duration::from_secs(7),
    };
    let began = Instant::now();
    let mut last = PollStatus::NotReady;
    while began.elapsed() < window {
        last = task.poll(Duration::from_millis(500)).unwrap().status;
        let done = match expect {
            Expect::Ready => matches!(last, PollStatus::CycleDone | PollStatus::NotDue),
            Expect::Fails => last == PollStatus::Failed,
            Expect::Retries => last == PollStatus::Failed,
        };
        if done {
            break;
        }
    }
    let expected = match expect {
        Expect::Ready => matches!(last, PollStatus::CycleDone | PollStatus::NotDue),
        Expect::Fails => last == PollStatus::Failed,
        Expect::Retries => last == PollStatus::NotReady,
    };
    assert!(expected, "{source} -> {target}: last poll {last:?}");
    let StopOutcome::Stopped(_) = task.stop().unwrap() else {
        panic!("{source} -> {target}: not stopped")
    };
}

#[test]
#[ignore = "run by start_and_stop_print_nothing_to_stderr_behind_log in a child process"]
fn child_start_stop_cycles() {
    install_logger();
    let mocks = MockPair::new();
    let kafka = shared().bootstrap();
    let http = BadEndpoint::start(Behaviour::Http);
    let closed = BadEndpoint::start(Behaviour::Closed);
    let (ms, mt) = (mocks.source_bootstrap(), mocks.target_bootstrap());
    thread::scope(|scope| {
        let cases = [
            (&ms, &mt, Expect::Ready),
            (&ms, &http.address, Expect::Fails),
            (&ms, &closed.address, Expect::Retries),
            (&kafka, &kafka, Expect::Ready),
            (&kafka, &http.address, Expect::Fails),
            (&kafka, &closed.address, Expect::Retries),
        ];
        for (s, t, expect) in cases {
            scope.spawn(move || case(s, t, expect));
        }
    });
    assert_no_leaks();
    let routed = captured_logs()
        .iter()
        .filter(|l| l.target == "librdkafka")
        .count();
    println!("{ROUTED}{routed}");
}
