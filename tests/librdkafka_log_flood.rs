//! librdkafka's repeated errors while a broker is unreachable reach the `log` crate collapsed:
//! the first line of each kind verbatim, then at most one summary per 30 s (kafka::client_log).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};

use support::runtime::{captured_logs, clear_logs, install_logger, serial, task_config};

/// A local port nothing listens on: connections are refused at once, the fastest repeat.
fn dead_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    addr.to_string()
}

#[test]
fn an_unreachable_broker_logs_each_kind_of_librdkafka_error_once_not_many_times_a_second() {
    let _g = serial();
    install_logger();
    clear_logs();
    let dead = dead_port();
    let task = CheckpointTask::new(task_config(&dead, &dead, &[])).unwrap();
    task.start().unwrap();
    // A fixed window to count in: librdkafka retries a refused connection within a second
    // (reconnect.backoff.ms 100 ms, doubling to 10 s), from each of the task's clients.
    let window = Duration::from_secs(5);
    let began = Instant::now();
    while began.elapsed() < window {
        let out = task.poll(window.saturating_sub(began.elapsed())).unwrap();
        assert!(
            matches!(out.status, PollStatus::NotReady | PollStatus::NotDue),
            "{out:?}"
        );
    }
    task.stop().unwrap();
    let lines: Vec<_> = captured_logs()
        .into_iter()
        .filter(|l| l.level <= log::Level::Warn && l.target == "librdkafka")
        .collect();
    let text: Vec<&str> = lines.iter().map(|l| l.message.as_str()).collect();
    assert!(
        text.iter().any(|m| m.contains(&dead)),
        "the first occurrence names the dead broker verbatim: {text:#?}"
    );
    // Each kind of line once (connect refused, all brokers down, ...): a handful, where the
    // uncollapsed stream had dozens in this window.
    assert!(text.len() <= 6, "{} lines: {text:#?}", text.len());
    let mut kinds = text.clone();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), text.len(), "a line repeated: {text:#?}");
}
