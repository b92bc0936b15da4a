//! How a CheckpointTask fails: client settings librdkafka refuses are configuration errors when
//! the task is created (naming the key the user wrote); a cluster that stays unreachable is
//! retried with its reason visible until the stop; a panic on a library thread or inside a poll
//! fails the task. No broker is needed: an unreachable cluster is a loopback port nothing listens
//! on.

use std::net::{Ipv4Addr, TcpListener};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::Error;
use mm2_checkpoint::MirrorCheckpointConfig;

use support::c_conf::CConf;
use support::runtime::{assert_task_clean, task_config};
use support::wait_for;

/// Generous bound on anything that should be prompt: only a hang detector.
const PROMPT: Duration = Duration::from_secs(2);
const SYNCS: &str = "mm2-offset-syncs.target.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";

/// Two embedded clusters with the internal topics, and a task on them that is started.
fn running_task(extra: &[(&str, &str)]) -> (EmbeddedClusters, CheckpointTask) {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    let (source, target) = (c.bootstrap(Side::Source), c.bootstrap(Side::Target));
    let mut props = vec![("task.assigned.groups", "g1")];
    props.extend_from_slice(extra);
    let task = CheckpointTask::new(task_config(&source, &target, &props)).unwrap();
    task.start().unwrap();
    (c, task)
}

/// Polls until the task says something other than NotReady/NotDue/CycleDone, within `within`.
fn poll_until_settled(task: &CheckpointTask, within: Duration) -> PollStatus {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "still running after {within:?}: {:?}",
            task.stats()
        );
        match task.poll(left).expect("poll").status {
            PollStatus::NotReady | PollStatus::NotDue | PollStatus::CycleDone => {}
            other => return other,
        }
    }
}

/// Stops the task, checks it left no client or thread, and returns how long the stop took.
fn stop(task: &CheckpointTask) -> Duration {
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    let took = began.elapsed();
    assert_task_clean(task);
    took
}

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local_addr").port()
}

fn config(props: &[(&str, &str)]) -> MirrorCheckpointConfig {
    MirrorCheckpointConfig::from_properties(props.iter().copied())
        .unwrap_or_else(|e| panic!("config: {e}"))
        .0
}

/// The key and reason of the configuration error `CheckpointTask::new` gives.
fn config_error(config: MirrorCheckpointConfig) -> (String, String) {
    match CheckpointTask::new(config) {
        Err(Error::Config(e)) => (e.key, e.reason),
        Err(other) => panic!("not a configuration error: {other:?}"),
        Ok(_) => panic!("the task was created"),
    }
}

#[test]
fn unknown_client_key_is_a_config_error_naming_the_connector_style_key() {
    let c = task_config(
        "127.0.0.1:1",
        "127.0.0.1:1",
        &[("source.cluster.consumer.no.such.property", "1")],
    );
    let (key, reason) = config_error(c);
    assert_eq!(key, "source.cluster.consumer.no.such.property");
    // An unknown key may be a misspelt secret: its value is hidden.
    assert!(
        reason.contains("consumer.no.such.property=[hidden]"),
        "{reason}"
    );

    let c = task_config(
        "127.0.0.1:1",
        "127.0.0.1:1",
        &[("consumer.no.such.property", "1")],
    );
    assert_eq!(config_error(c).0, "consumer.no.such.property");
}

#[test]
fn unknown_client_key_is_a_config_error_naming_the_dedicated_mode_key() {
    let c = config(&[
        ("clusters", "A, B"),
        ("A.bootstrap.servers", "127.0.0.1:1"),
        ("B.bootstrap.servers", "127.0.0.1:1"),
        ("A->B.enabled", "true"),
        ("A.consumer.no.such.property", "1"),
    ]);
    assert_eq!(config_error(c).0, "A.consumer.no.such.property");
}

#[test]
fn unknown_security_protocol_is_a_config_error_naming_the_key() {
    let c = config(&[
        ("clusters", "A, B"),
        ("A.bootstrap.servers", "127.0.0.1:1"),
        ("B.bootstrap.servers", "127.0.0.1:1"),
        ("A->B.enabled", "true"),
        ("B.security.protocol", "FOO"),
    ]);
    let (key, reason) = config_error(c);
    assert_eq!(key, "B.security.protocol");
    assert!(reason.contains("FOO"), "{reason}");
}

#[test]
fn tls_and_sasl_client_settings_are_accepted() {
    let c = task_config(
        "127.0.0.1:1",
        "127.0.0.1:1",
        &[
            ("source.cluster.security.protocol", "SSL"),
            ("target.cluster.security.protocol", "SASL_SSL"),
            ("target.cluster.sasl.mechanisms", "SCRAM-SHA-512"),
            ("target.cluster.sasl.username", "u"),
            ("target.cluster.sasl.password", "p"),
            ("producer.compression.type", "zstd"),
        ],
    );
    CheckpointTask::new(c).expect("TLS, SASL and zstd settings are valid");
}

#[test]
fn sasl_without_credentials_and_idempotence_without_acks_all_are_config_errors_naming_the_keys_written(
) {
    let c = task_config(
        "127.0.0.1:1",
        "127.0.0.1:1",
        &[
            ("source.cluster.security.protocol", "SASL_SSL"),
            ("source.cluster.sasl.mechanism", "PLAIN"),
        ],
    );
    let (key, reason) = config_error(c);
    assert_eq!(key, "source.cluster.sasl.mechanism");
    assert!(
        reason.contains("`source.cluster.sasl.username` and `source.cluster.sasl.password`"),
        "{reason}"
    );

    let c = task_config(
        "127.0.0.1:1",
        "127.0.0.1:1",
        &[
            ("producer.enable.idempotence", "true"),
            ("producer.acks", "1"),
        ],
    );
    let (key, reason) = config_error(c);
    assert_eq!(key, "producer.acks");
    assert!(reason.contains("`producer.enable.idempotence`"), "{reason}");

    // The same through the C API: `mm_task_new` refuses, naming the dedicated-mode key.
    let text = "clusters = A, B\nA.bootstrap.servers = 127.0.0.1:1\n\
                B.bootstrap.servers = 127.0.0.1:1\nA->B.enabled = true\n\
                B.security.protocol = SASL_PLAINTEXT\nB.sasl.mechanism = SCRAM-SHA-256\n\
                B.sasl.username = u\n";
    let e = CConf::load(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .new_task()
        .unwrap_err();
    assert!(e.contains("B.sasl.mechanism"), "{e}");
    assert!(e.contains("`B.sasl.password`"), "{e}");
    assert!(!e.contains("Client creation error"), "{e}");
}

#[test]
fn unreachable_cluster_is_retried_with_its_reason_visible_then_stop_is_prompt() {
    let down = format!("127.0.0.1:{}", closed_port());
    let task =
        CheckpointTask::new(task_config(&down, &down, &[("task.assigned.groups", "g1")])).unwrap();
    task.start().unwrap();
    let reason = wait_for(Duration::from_secs(10), "a retry reason", || {
        task.stats().retry_reason
    });
    assert!(
        reason.contains("target cluster `target` unreachable for") && reason.contains(&down),
        "{reason}"
    );
    // Retried, not failed: the poll says not ready, and there is no fatal error.
    assert_eq!(
        task.poll(Duration::from_millis(200)).unwrap().status,
        PollStatus::NotReady
    );
    assert_eq!(task.fatal_error(), None);
    assert!(task.retry_reason().is_some());
    let took = stop(&task);
    assert!(took < PROMPT, "stop took {took:?}");
    assert_eq!(task.retry_reason(), None, "a stopped task retries nothing");
}

#[test]
fn tls_client_on_a_plaintext_listener_fails_with_a_fatal_error_and_stop_is_prompt() {
    let (_clusters, task) = running_task(&[("target.cluster.security.protocol", "SSL")]);
    // Within seconds: the failure wakes the waiting poll.
    assert_eq!(
        poll_until_settled(&task, Duration::from_secs(5)),
        PollStatus::Failed
    );
    let fatal = task.fatal_error().expect("a fatal error");
    assert!(fatal.contains("SSL"), "{fatal}");
    assert_eq!(task.retry_reason(), None);
    let took = stop(&task);
    assert!(took < PROMPT, "stop took {took:?}");
}

#[cfg(feature = "internals")]
mod injected {
    use super::*;
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    #[test]
    fn a_panic_on_the_tail_thread_fails_the_task() {
        let (_clusters, task) = running_task(&[]);
        wait_for(Duration::from_secs(20), "the stores loaded", || {
            task.poll(Duration::from_millis(100)).unwrap();
            task.stats().initialized.then_some(())
        });
        task.inject_fault(Fault::TailPanics);
        assert_eq!(
            poll_until_settled(&task, Duration::from_secs(10)),
            PollStatus::Failed
        );
        let fatal = task.fatal_error().expect("a fatal error");
        assert!(fatal.contains("tail thread panicked"), "{fatal}");
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    #[test]
    fn a_panic_inside_poll_fails_the_task_and_later_polls_say_failed_not_busy() {
        let (_clusters, task) = running_task(&[]);
        task.inject_fault(Fault::PollPanics);
        assert_eq!(
            poll_until_settled(&task, Duration::from_secs(20)),
            PollStatus::Failed
        );
        let fatal = task.fatal_error().expect("a fatal error");
        assert!(fatal.contains("poll panicked"), "{fatal}");
        assert_eq!(
            task.poll(Duration::ZERO).expect("not busy").status,
            PollStatus::Failed
        );
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    /// A task that discovers its groups (refreshed every second) on two embedded clusters,
    /// with `fault` armed before it starts.
    fn discovering_task(fault: Option<Fault>) -> (EmbeddedClusters, CheckpointTask) {
        let c = EmbeddedClusters::new().unwrap();
        c.create_topic(Side::Source, SYNCS, 1).unwrap();
        c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
        let (source, target) = (c.bootstrap(Side::Source), c.bootstrap(Side::Target));
        let task = CheckpointTask::new(task_config(
            &source,
            &target,
            &[("refresh.groups.interval.seconds", "1")],
        ))
        .unwrap();
        if let Some(fault) = fault {
            task.inject_fault(fault);
        }
        task.start().unwrap();
        (c, task)
    }

    fn loaded(task: &CheckpointTask) {
        wait_for(Duration::from_secs(20), "the stores loaded", || {
            task.poll(Duration::from_millis(100)).unwrap();
            task.stats().initialized.then_some(())
        });
    }

    /// Polls until a checkpoint cycle runs (a poll that says CycleDone); panics on Failed.
    fn next_cycle(task: &CheckpointTask) {
        wait_for(Duration::from_secs(20), "a checkpoint cycle", || {
            let out = task.poll(Duration::from_millis(100)).unwrap();
            assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
            (out.status == PollStatus::CycleDone).then_some(())
        });
    }

    /// A group whose committed offsets fail in a checkpoint cycle for a reason retrying can fix
    /// (a coordinator still loading) is retried at the next cycle, its reason visible in the
    /// retry reason until that fetch succeeds; the task never fails.
    #[test]
    fn a_groups_retriable_fetch_failure_in_a_cycle_is_its_retry_reason_until_it_fetches_again() {
        let (_clusters, task) = running_task(&[]);
        loaded(&task);
        next_cycle(&task);
        assert_eq!(task.retry_reason(), None);
        task.inject_fault(Fault::CycleGroupOffsetsFail(
            RDKafkaErrorCode::CoordinatorLoadInProgress,
        ));
        next_cycle(&task);
        let reason = task.stats().retry_reason.expect("a retry reason");
        assert!(reason.contains("group `g1` on `source`"), "{reason}");
        assert!(reason.contains("CoordinatorLoadInProgress"), "{reason}");
        assert!(reason.contains("next checkpoint cycle"), "{reason}");
        assert_eq!(task.fatal_error(), None);
        assert_eq!(task.stats().group_fetches_denied, 0);
        // The next cycle fetches g1 normally: nothing is being retried any more.
        next_cycle(&task);
        assert_eq!(task.retry_reason(), None);
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    /// A group whose committed offsets its own ACL denies (GROUP_AUTHORIZATION_FAILED) in a
    /// checkpoint cycle is logged as an error, counted and skipped; it is no retry reason and
    /// the task goes on (the next cycle fetches it again).
    #[test]
    fn a_group_denied_by_its_acl_in_a_cycle_is_logged_counted_and_skipped() {
        support::runtime::install_logger();
        let (_clusters, task) = running_task(&[]);
        loaded(&task);
        next_cycle(&task);
        task.inject_fault(Fault::CycleGroupOffsetsFail(
            RDKafkaErrorCode::GroupAuthorizationFailed,
        ));
        next_cycle(&task);
        assert_eq!(task.stats().group_fetches_denied, 1);
        assert_eq!(task.retry_reason(), None);
        assert_eq!(task.fatal_error(), None);
        let logged = support::runtime::captured_logs().into_iter().any(|l| {
            l.level == log::Level::Error
                && l.message.contains("group `g1`")
                && l.message.contains("GroupAuthorizationFailed")
                && l.message.contains("skipped")
        });
        assert!(logged, "no error logged for the denied group");
        next_cycle(&task);
        assert_eq!(task.stats().group_fetches_denied, 1);
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    /// A failure fetching one group's offsets that retrying cannot fix and that is not the
    /// group's own ACL (failed authentication) ends the task as FAILED with the fatal error.
    #[test]
    fn failed_authentication_fetching_a_groups_offsets_in_a_cycle_fails_the_task() {
        let (_clusters, task) = running_task(&[]);
        loaded(&task);
        task.inject_fault(Fault::CycleGroupOffsetsFail(
            RDKafkaErrorCode::Authentication,
        ));
        assert_eq!(
            poll_until_settled(&task, Duration::from_secs(20)),
            PollStatus::Failed
        );
        let fatal = task.fatal_error().expect("a fatal error");
        assert!(fatal.contains("checkpoint cycle failed"), "{fatal}");
        assert!(fatal.contains("group `g1` on `source`"), "{fatal}");
        assert!(fatal.contains("Authentication"), "{fatal}");
        assert_eq!(task.retry_reason(), None);
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    #[test]
    fn a_denied_group_listing_at_a_periodic_refresh_fails_the_task() {
        let (_clusters, task) = discovering_task(None);
        loaded(&task);
        task.inject_fault(Fault::GroupListingFails(
            RDKafkaErrorCode::ClusterAuthorizationFailed,
        ));
        assert_eq!(
            poll_until_settled(&task, Duration::from_secs(10)),
            PollStatus::Failed
        );
        let fatal = task.fatal_error().expect("a fatal error");
        assert!(fatal.contains("group discovery failed"), "{fatal}");
        assert!(fatal.contains("listing groups on `source`"), "{fatal}");
        assert!(fatal.contains("ClusterAuthorizationFailed"), "{fatal}");
        assert_eq!(task.retry_reason(), None);
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }

    #[test]
    fn failed_authentication_at_start_up_discovery_fails_the_task() {
        let (_clusters, task) = discovering_task(Some(Fault::GroupListingFails(
            RDKafkaErrorCode::Authentication,
        )));
        assert_eq!(
            poll_until_settled(&task, Duration::from_secs(20)),
            PollStatus::Failed
        );
        let fatal = task.fatal_error().expect("a fatal error");
        assert!(
            fatal.contains("discovering the consumer groups on `source`"),
            "{fatal}"
        );
        assert!(fatal.contains("Authentication"), "{fatal}");
        let took = stop(&task);
        assert!(took < PROMPT, "stop took {took:?}");
    }
}
