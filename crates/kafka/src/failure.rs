//! Which Kafka failures are worth retrying: the one place that decides.
//!
//! A start-up that waits on an unavailable or slow cluster retries until the stop, because the
//! cluster may come back. A failure that retrying cannot fix — a client setting librdkafka
//! refuses, failed authentication, a TLS handshake that cannot succeed, a denied ACL, a client
//! librdkafka itself declared fatal — ends the task with a fatal error instead, so a
//! misconfigured task fails at once rather than sitting "not ready" for ever.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rdkafka::config::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

use crate::mutex::lock;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::secrets::{shown_value, HIDDEN};

/// Whether a failure may go away by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// Unavailable, slow or restarting: try again after a backoff.
    Retriable,
    /// Configuration, authentication, authorization or a fatal client error: give up.
    Fatal,
}

/// Texts librdkafka adds to a transport error when it diagnoses a `security.protocol` that does
/// not match the listener: a plaintext client on a TLS listener ("incorrect security.protocol
/// configuration (connecting to a SSL listener?)"), or a TLS client on a plaintext one
/// ("connecting to a PLAINTEXT broker listener?"). Retrying cannot fix either. (A broker that
/// drops connections while restarting could in principle earn the same text once; failing such
/// a start-up is the price of not hiding a wrong protocol behind endless retries.)
const WRONG_PROTOCOL_HINTS: [&str; 2] = [
    "incorrect security.protocol",
    "connecting to a PLAINTEXT broker listener?",
];

/// How many such closes in a row, before the reader has read anything from the cluster, count as
/// a `security.protocol` mismatch. One could be a broker restarting; several in a row are not.
/// Once the cluster has answered, it speaks the reader's protocol: closes are then a broker's or
/// a network's (a link that recovers from a partition can close the connections it held), and
/// are retried.
pub const CLOSES_BEFORE_API_VERSION_FATAL: u32 = 3;

/// What librdkafka says of a connection the broker reset (`ECONNRESET`) rather than closed.
const RESET_BY_PEER: &str = "reset by peer";

/// How many closes before ApiVersion a librdkafka line about one reports, toward
/// [`protocol_mismatch`]: 1 plus the identical errors folded into it. A reset connection counts
/// 0: that is what a broker killed or shutting down gives (three resets within 30 ms of a kill,
/// in CI), while a TLS listener refusing a plaintext client closes the connection in order
/// ("connection closed by peer"). A reset is retried like any unreachable broker, its text in
/// the task's retry status.
///
/// A connection librdkafka itself gave up on counts 0 too: "Connection setup timed out in state
/// APIVERSION_QUERY" or "ApiVersionRequest failed: Local: Timed out" is a broker that accepted
/// the connection and answered nothing (a process paused by a long GC or SIGSTOP, a network
/// stall), retried like an unreachable one and reported as "no answer" ([`no_answer`]).
pub fn closes_counted(message: &str) -> u32 {
    if message.contains(RESET_BY_PEER) || no_answer(message) {
        0
    } else {
        1 + suppressed_repeats(message)
    }
}

/// Whether librdkafka's error text says a request or connection set-up timed out: the broker
/// did not answer, which says nothing about the protocol spoken.
pub fn no_answer(message: &str) -> bool {
    message.to_ascii_lowercase().contains("timed out")
}

/// The broker a librdkafka error text is about (`host:port/id`, as librdkafka names brokers),
/// when it names one: the text is `"[thrd:…]: <broker>: <what happened>"`.
pub fn broker_named(message: &str) -> Option<&str> {
    let rest = match message.strip_prefix("[thrd:") {
        Some(after) => after.split_once("]: ")?.1,
        None => message,
    };
    let (broker, _) = rest.split_once(": ")?;
    (broker.contains(':') && broker.contains('/') && !broker.contains(' ')).then_some(broker)
}

/// How many identical errors librdkafka folded into this line ("…, 2 identical error(s)
/// suppressed)"); 0 when none.
pub fn suppressed_repeats(message: &str) -> u32 {
    message
        .split_once(" identical error(s) suppressed")
        .and_then(|(before, _)| before.rsplit([' ', ',', '(']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The fatal error for repeated closes before ApiVersion, or `None` below the threshold.
pub fn protocol_mismatch(context: &str, closes_in_a_row: u32, last: &str) -> Option<Error> {
    (closes_in_a_row >= CLOSES_BEFORE_API_VERSION_FATAL).then(|| {
        Error::fatal(
            context,
            format!(
                "{last}: the broker closed {closes_in_a_row} connections in a row before answering; incorrect security.protocol (a plaintext client on a TLS listener?)"
            ),
        )
    })
}

/// Classifies a librdkafka error code (and its text, for the one transport error librdkafka
/// itself diagnoses as a protocol mismatch).
pub fn classify(code: RDKafkaErrorCode, message: &str) -> Retry {
    use RDKafkaErrorCode as C;
    match code {
        C::Authentication
        | C::SSL
        | C::SaslAuthenticationFailed
        | C::UnsupportedSASLMechanism
        | C::IllegalSASLState
        | C::TopicAuthorizationFailed
        | C::GroupAuthorizationFailed
        | C::ClusterAuthorizationFailed
        | C::TransactionalIdAuthorizationFailed
        | C::DelegationTokenAuthorizationFailed
        | C::Fatal
        | C::InvalidArgument
        | C::UnknownProtocol => Retry::Fatal,
        C::BrokerTransportFailure if WRONG_PROTOCOL_HINTS.iter().any(|h| message.contains(h)) => {
            Retry::Fatal
        }
        _ => Retry::Retriable,
    }
}

/// The task-level error for a librdkafka failure while `context`: [`Error::Fatal`] when
/// [`classify`] says so, otherwise [`Error::Kafka`].
pub fn kafka_error(context: impl Into<String>, code: RDKafkaErrorCode, message: &str) -> Error {
    let text = format!("{message} ({code:?})");
    match classify(code, message) {
        Retry::Fatal => Error::fatal(context, text),
        Retry::Retriable => Error::kafka_code(context, text, Some(code as i32)),
    }
}

/// Creating a client never fails for a reason that goes away: its settings are wrong, or a
/// file they name (a CA, a key) is missing or unreadable. A property librdkafka rejects is a
/// configuration error naming it (`INVALID_CONFIG` in C), as everywhere else.
pub fn client_creation_error(context: impl Into<String>, e: KafkaError) -> Error {
    match e {
        KafkaError::ClientConfig(_, why, key, _) => {
            mm2_checkpoint_core::error::ConfigError::new(key, why).into()
        }
        other => Error::fatal(context, other),
    }
}

/// The name start-up's retries are counted under ([`RetryStatus::count_retry`]).
pub const STARTUP: &str = "start-up";

/// Why a task is waiting instead of working (e.g. "source cluster `A` unreachable for 30 s:
/// …"), shared between the thread that retries and whoever reads the task's state. Empty while
/// nothing is being retried. Also keeps since when a reason has been set without interruption,
/// and how many retries each job made (the task's metrics).
#[derive(Clone, Debug, Default)]
pub struct RetryStatus(Arc<Mutex<RetryState>>);

#[derive(Debug, Default)]
struct RetryState {
    reason: Option<Reason>,
    since: Option<Instant>,
    retries: BTreeMap<&'static str, u64>,
}

/// A reason as set: fixed text, or text around the whole seconds since the retries began,
/// counted when the reason is read (librdkafka repeats an error only every 30 s, so a count
/// taken when it last reported would trail by as much).
#[derive(Debug)]
enum Reason {
    Fixed(String),
    Counting {
        head: String,
        tail: String,
        /// Counted from here instead of from the start of the retries.
        from: Option<Instant>,
    },
}

impl RetryStatus {
    /// Records the current reason, replacing the last one.
    pub fn set(&self, reason: String) {
        let mut state = lock(&self.0);
        state.since.get_or_insert_with(Instant::now);
        state.reason = Some(Reason::Fixed(reason));
    }

    /// Records the current reason as `head`, the whole seconds since the retries began (the
    /// first reason set after a [`clear`](Self::clear)) as of each read, then `tail`.
    pub fn set_counting(&self, head: String, tail: String) {
        let mut state = lock(&self.0);
        state.since.get_or_insert_with(Instant::now);
        state.reason = Some(Reason::Counting {
            head,
            tail,
            from: None,
        });
    }

    /// Like [`set_counting`](Self::set_counting), counting the seconds from `from` (when the
    /// condition began, before it was worth a reason); the retries count from `from` too.
    pub fn set_counting_from(&self, from: Instant, head: String, tail: String) {
        let mut state = lock(&self.0);
        let since = state.since.map_or(from, |s| s.min(from));
        state.since = Some(since);
        state.reason = Some(Reason::Counting {
            head,
            tail,
            from: Some(from),
        });
    }

    /// Nothing is being retried any more.
    pub fn clear(&self) {
        let mut state = lock(&self.0);
        state.reason = None;
        state.since = None;
    }

    /// The current reason, if any.
    pub fn get(&self) -> Option<String> {
        let state = lock(&self.0);
        state.reason.as_ref().map(|reason| match reason {
            Reason::Fixed(text) => text.clone(),
            Reason::Counting { head, tail, from } => {
                let secs = from
                    .or(state.since)
                    .map_or(0, |since| since.elapsed().as_secs());
                format!("{head}{secs}{tail}")
            }
        })
    }

    /// Since when a reason has been set without a [`clear`](Self::clear) in between.
    pub fn since(&self) -> Option<Instant> {
        lock(&self.0).since
    }

    /// Counts one retry of `job` (a failed run that will run again).
    pub fn count_retry(&self, job: &'static str) {
        *lock(&self.0).retries.entry(job).or_default() += 1;
    }

    /// Retries of `job` counted so far.
    pub fn retries(&self, job: &str) -> u64 {
        lock(&self.0).retries.get(job).copied().unwrap_or(0)
    }
}

/// A client setting librdkafka refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedSetting {
    /// The librdkafka property name.
    pub key: String,
    /// librdkafka's reason, with the value.
    pub reason: String,
}

/// Checks every key and value of a client config the way `rd_kafka_conf_set` does, without
/// creating a client (no threads, no I/O).
pub fn check_client_settings(settings: &BTreeMap<String, String>) -> Result<(), RejectedSetting> {
    // One property at a time, in key order, so the key reported is deterministic.
    for (key, value) in settings {
        let mut one = ClientConfig::new();
        one.set(key, value);
        if let Err(e) = one.create_native_config() {
            let mut reason = match e {
                KafkaError::ClientConfig(_, desc, _, _) => desc,
                other => other.to_string(),
            };
            // A key librdkafka does not know may be a misspelt secret (`sasl.pasword`): its
            // value is hidden too.
            let unknown = reason.contains("No such configuration property");
            let shown = if unknown {
                HIDDEN
            } else {
                shown_value(key, value)
            };
            if shown != value && !value.is_empty() {
                // librdkafka may quote the value in its reason.
                reason = reason.replace(value.as_str(), shown);
            }
            return Err(RejectedSetting {
                key: key.clone(),
                reason: format!("librdkafka refuses `{key}={shown}`: {reason}"),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_counting_reason_says_the_seconds_as_of_its_reading() {
        let status = super::RetryStatus::default();
        status.set_counting("`A` unreachable for ".into(), " s: down".into());
        // The retries began 12 s ago; nothing was reported since.
        super::lock(&status.0).since =
            std::time::Instant::now().checked_sub(std::time::Duration::from_secs(12));
        assert_eq!(status.get().unwrap(), "`A` unreachable for 12 s: down");
        status.set("fixed".into());
        assert_eq!(status.get().unwrap(), "fixed");
        status.clear();
        assert_eq!(status.get(), None);
    }

    #[test]
    fn a_broker_that_answers_nothing_is_no_answer_and_never_a_protocol_mismatch() {
        let timeouts = [
            "[thrd:127.0.0.1:29104/bootstrap]: 127.0.0.1:29104/bootstrap: Connection setup timed out in state APIVERSION_QUERY (after 1000ms in state APIVERSION_QUERY)",
            "[thrd:127.0.0.1:29104/bootstrap]: 127.0.0.1:29104/bootstrap: ApiVersionRequest failed: Local: Timed out: probably due to broker version < 0.10 (see api.version.request configuration) (after 10009ms in state APIVERSION_QUERY, 2 identical error(s) suppressed)",
        ];
        for t in timeouts {
            assert!(super::no_answer(t), "{t}");
            assert_eq!(super::closes_counted(t), 0, "{t}");
            assert_eq!(super::broker_named(t), Some("127.0.0.1:29104/bootstrap"));
        }
        let closed = "[thrd:b:9093/bootstrap]: b:9093/bootstrap: Disconnected: connection closed by peer: receive 0 after 1 probe(s) (after 2ms in state APIVERSION_QUERY)";
        assert!(!super::no_answer(closed));
        assert_eq!(super::closes_counted(closed), 1);
        assert_eq!(super::broker_named(closed), Some("b:9093/bootstrap"));
        assert_eq!(super::broker_named("1/1 brokers are down"), None);
    }

    use super::*;

    #[test]
    fn authentication_authorization_and_tls_are_fatal_unavailability_is_not() {
        use RDKafkaErrorCode as C;
        let table = [
            (C::Authentication, "", Retry::Fatal),
            (C::SSL, "", Retry::Fatal),
            (C::SaslAuthenticationFailed, "", Retry::Fatal),
            (C::TopicAuthorizationFailed, "", Retry::Fatal),
            (C::GroupAuthorizationFailed, "", Retry::Fatal),
            (C::ClusterAuthorizationFailed, "", Retry::Fatal),
            (C::Fatal, "", Retry::Fatal),
            (
                C::BrokerTransportFailure,
                "Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol configuration (connecting to a SSL listener?)",
                Retry::Fatal,
            ),
            (
                C::BrokerTransportFailure,
                "SSL handshake failed: Disconnected: connection reset by peer: connecting to a PLAINTEXT broker listener?",
                Retry::Fatal,
            ),
            (C::BrokerTransportFailure, "Connection refused", Retry::Retriable),
            (C::AllBrokersDown, "", Retry::Retriable),
            (C::RequestTimedOut, "", Retry::Retriable),
            (C::LeaderNotAvailable, "", Retry::Retriable),
            (C::NotCoordinator, "", Retry::Retriable),
            (C::UnknownTopicOrPartition, "", Retry::Retriable),
        ];
        for (code, message, expected) in table {
            assert_eq!(classify(code, message), expected, "{code:?} {message}");
        }
    }

    #[test]
    fn suppressed_repeats_are_read_from_librdkafka_text() {
        let line = "127.0.0.1:1/bootstrap: Disconnected: connection closed by peer: receive 0 after POLLIN (after 1ms in state APIVERSION_QUERY, 2 identical error(s) suppressed)";
        assert_eq!(suppressed_repeats(line), 2);
        assert_eq!(
            suppressed_repeats("Disconnected (after 1ms in state APIVERSION_QUERY)"),
            0
        );
        assert_eq!(closes_counted(line), 3);
        assert!(protocol_mismatch("reading `t`", 2, line).is_none());
        let fatal = protocol_mismatch("reading `t`", 3, line)
            .unwrap()
            .to_string();
        assert!(fatal.contains("incorrect security.protocol"), "{fatal}");
    }

    #[test]
    fn resets_before_api_version_are_a_dying_broker_not_a_protocol_mismatch() {
        // The line librdkafka logs for a source broker killed during the offset-sync load.
        let reset = "[thrd:127.0.0.1:24385/1]: 127.0.0.1:24385/1: Disconnected: connection reset by peer (after 10ms in state APIVERSION_QUERY, 1 identical error(s) suppressed)";
        assert_eq!(closes_counted(reset), 0);
        let closed = "127.0.0.1:1/bootstrap: Disconnected: connection closed by peer: receive 0 after POLLIN (after 1ms in state APIVERSION_QUERY)";
        assert_eq!(closes_counted(closed), 1);
        assert_eq!(
            classify(RDKafkaErrorCode::BrokerTransportFailure, reset),
            Retry::Retriable
        );
    }

    #[test]
    fn a_refused_setting_names_its_key_and_hides_an_unknown_keys_value() {
        let mut s = BTreeMap::new();
        s.insert(
            "bootstrap.servers".to_string(),
            "localhost:9092".to_string(),
        );
        s.insert("no.such.property".to_string(), "1".to_string());
        let e = check_client_settings(&s).unwrap_err();
        assert_eq!(e.key, "no.such.property");
        assert!(
            e.reason.contains("no.such.property=[hidden]"),
            "{}",
            e.reason
        );

        let mut s = BTreeMap::new();
        s.insert("security.protocol".to_string(), "FOO".to_string());
        assert_eq!(
            check_client_settings(&s).unwrap_err().key,
            "security.protocol"
        );
    }

    #[test]
    fn a_refused_secret_setting_names_its_key_but_not_its_value() {
        let mut s = BTreeMap::new();
        s.insert(
            "sasl.oauthbearer.config".to_string(),
            "principal=x".to_string(),
        );
        s.insert(
            "enable.sasl.oauthbearer.unsecure.jwt".to_string(),
            "maybe-secret-9".to_string(),
        );
        s.insert("no.such.password".to_string(), "secret-9".to_string());
        let e = check_client_settings(&s).unwrap_err();
        assert_eq!(e.key, "enable.sasl.oauthbearer.unsecure.jwt");
        s.remove(&e.key);
        let e = check_client_settings(&s).unwrap_err();
        assert_eq!(e.key, "no.such.password");
        assert!(!e.reason.contains("secret-9"), "{}", e.reason);
        assert!(e.reason.contains("[hidden]"), "{}", e.reason);
    }

    #[test]
    fn tls_settings_are_accepted_when_built_with_ssl() {
        let mut s = BTreeMap::new();
        s.insert("security.protocol".to_string(), "SASL_SSL".to_string());
        s.insert("sasl.mechanisms".to_string(), "SCRAM-SHA-512".to_string());
        s.insert("compression.type".to_string(), "zstd".to_string());
        if cfg!(all(feature = "ssl", feature = "zstd")) {
            assert_eq!(check_client_settings(&s), Ok(()));
        }
    }
}
