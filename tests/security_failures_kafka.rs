//! Security failures on a real Apache Kafka broker end the task with a fatal error that names
//! the cause, within seconds, instead of retrying for ever: a wrong SCRAM password, a CA that did
//! not sign the broker's certificate, and a plaintext client on the TLS listener. The stop stays
//! prompt and leaves no client or thread behind.
//!
//! Uses the shared secured broker (scripts/kafka-broker.sh start --secure).

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};
use mm2_checkpoint::MirrorCheckpointConfig;

use support::runtime::{assert_task_clean, install_logger};
use support::secure_kafka::{Listener, Mechanism, SecureKafka};

/// How long a fatal failure may take to show: a few connection attempts. A plaintext client on
/// the TLS listener takes longest: the broker waits for what it reads as the rest of a TLS
/// record until librdkafka's ApiVersion timeout (10 s) closes the connection, and it takes more
/// than one close before the mismatch is called fatal.
const FAILS_WITHIN: Duration = Duration::from_secs(60);
/// Hang detector for the stop.
const PROMPT: Duration = Duration::from_secs(2);

/// A task whose clusters are both the shared broker, reached with `settings` (librdkafka names),
/// started; the settings are adjusted by `change` first.
fn task_with(settings: Vec<(String, String)>) -> CheckpointTask {
    let mut props: Vec<(String, String)> = vec![
        ("source.cluster.alias".into(), "secsrc".into()),
        ("target.cluster.alias".into(), "sectgt".into()),
        ("task.assigned.groups".into(), "g".into()),
    ];
    for side in ["source", "target"] {
        for (k, v) in &settings {
            props.push((format!("{side}.cluster.{k}"), v.clone()));
        }
    }
    let config = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .unwrap_or_else(|e| panic!("config: {e}"))
    .0;
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    task
}

fn replace(settings: &mut [(String, String)], key: &str, value: &str) {
    let entry = settings
        .iter_mut()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key} in the listener's settings"));
    entry.1 = value.to_owned();
}

/// Polls until Failed (within FAILS_WITHIN), returns the fatal error, and checks the stop.
fn fails_fatally(task: &CheckpointTask) -> String {
    let began = Instant::now();
    loop {
        let left = FAILS_WITHIN.saturating_sub(began.elapsed());
        assert!(
            !left.is_zero(),
            "not failed after {FAILS_WITHIN:?}; retrying: {:?}",
            task.retry_reason()
        );
        match task.poll(left).unwrap().status {
            PollStatus::Failed => break,
            PollStatus::NotReady => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    eprintln!("failed after {:?}", began.elapsed());
    let fatal = task.fatal_error().expect("a fatal error");
    let stopping = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(
        stopping.elapsed() < PROMPT,
        "stop took {:?}",
        stopping.elapsed()
    );
    assert_task_clean(task);
    fatal
}

#[test]
fn a_wrong_scram_password_fails_the_task_with_an_authentication_error() {
    install_logger();
    let kafka = SecureKafka::shared();
    let mut settings = kafka.client_settings(Listener::SaslSsl(Mechanism::ScramSha512));
    replace(&mut settings, "sasl.password", "not-the-password");
    let fatal = fails_fatally(&task_with(settings));
    assert!(fatal.contains("Authentication"), "{fatal}");
}

#[test]
fn an_untrusted_ca_fails_the_task_with_a_certificate_error() {
    install_logger();
    let kafka = SecureKafka::shared();
    let mut settings = kafka.client_settings(Listener::Ssl);
    let untrusted = kafka.untrusted_ca().display().to_string();
    replace(&mut settings, "ssl.ca.location", &untrusted);
    let fatal = fails_fatally(&task_with(settings));
    assert!(fatal.contains("certificate"), "{fatal}");
}

#[test]
fn a_plaintext_client_on_the_tls_listener_fails_the_task_naming_the_protocol() {
    install_logger();
    let kafka = SecureKafka::shared();
    let settings = vec![(
        "bootstrap.servers".to_owned(),
        kafka.bootstrap(Listener::Ssl),
    )];
    let fatal = fails_fatally(&task_with(settings));
    assert!(fatal.contains("security.protocol"), "{fatal}");
}
