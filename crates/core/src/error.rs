//! Typed errors of the pure core. [`enum@Error`] is the error of every layer above too.

use thiserror::Error;

/// Why a record could not be encoded or decoded. Decoders return this instead of panicking.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// The buffer ended before a field could be read.
    #[error("truncated record: field `{field}` needs {needed} bytes, {available} left")]
    Truncated {
        /// Name of the field being read (MM2's schema field name).
        field: &'static str,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the buffer.
        available: usize,
    },
    /// A STRING field had a negative INT16 length.
    #[error("field `{field}` has a negative string length {length}")]
    NegativeStringLength {
        /// Name of the field.
        field: &'static str,
        /// The length read.
        length: i16,
    },
    /// A string is longer than the 32767 bytes an INT16 length can describe.
    #[error(
        "field `{field}` is {length} bytes of UTF-8, larger than the maximum string length 32767"
    )]
    StringTooLong {
        /// Name of the field.
        field: &'static str,
        /// Its UTF-8 length.
        length: usize,
    },
    /// A field's bytes break its type's rules (a varint too long, a null where none may be).
    #[error("field `{field}` is malformed: {reason}")]
    Malformed {
        /// Name of the field.
        field: &'static str,
        /// Which rule the bytes break.
        reason: &'static str,
    },
    /// The key or value is absent (a tombstone); MM2 never writes these.
    #[error("record has no {part} (tombstone)")]
    Tombstone {
        /// `"key"` or `"value"`.
        part: &'static str,
    },
}

/// A configuration value that cannot be used; names the key and the reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid value for configuration `{key}`: {reason}")]
pub struct ConfigError {
    /// The MM2 property name, as the user wrote it.
    pub key: String,
    /// Why the value was rejected.
    pub reason: String,
}

impl ConfigError {
    /// Makes an error for `key` with `reason`.
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// An error of the runtime: configuration, Kafka, or misuse of a task's lifecycle.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// A configuration value was rejected.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A Kafka client or request failed; `context` says what was being done.
    #[error("{context}: {message}")]
    Kafka {
        /// What was being done (names the topic, group or cluster involved).
        context: String,
        /// The client's error text.
        message: String,
        /// librdkafka's `rd_kafka_resp_err_t` when the client reported one (C callers branch on
        /// it through `mm_last_error_kafka_code`).
        code: Option<i32>,
    },
    /// A Kafka failure that retrying cannot fix: a client setting librdkafka refuses, failed
    /// authentication, TLS, a denied ACL, or a client librdkafka declared fatal. It ends the task.
    #[error("{context}: {message}")]
    Fatal {
        /// What was being done (names the topic, group or cluster involved).
        context: String,
        /// The client's error text.
        message: String,
    },
    /// The task was stopped while the call was waiting.
    #[error("stopped")]
    Stopped,
    /// A bounded wait ended before the broker answered.
    #[error("timed out: {0}")]
    TimedOut(String),
    /// `poll` or `stop` before `start`.
    #[error("the task was not started")]
    NotStarted,
    /// `start` on a task that is already running.
    #[error("the task was already started")]
    AlreadyStarted,
    /// `start` on a task that was stopped (a task starts once; make a new one).
    #[error("the task was stopped; a task starts once")]
    AlreadyStopped,
    /// `poll` while another thread is inside `poll` on the same task.
    #[error("poll is already running on another thread")]
    Busy,
    /// An internal invariant did not hold (a library bug; the message says which).
    #[error("invalid state: {0}")]
    InvalidState(String),
    /// A library thread could not be started.
    #[error("could not start thread: {0}")]
    Thread(String),
}

impl Error {
    /// A Kafka error with its context.
    pub fn kafka(context: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Error::Kafka {
            context: context.into(),
            message: message.to_string(),
            code: None,
        }
    }

    /// A Kafka error that carries librdkafka's error code.
    pub fn kafka_code(
        context: impl Into<String>,
        message: impl std::fmt::Display,
        code: Option<i32>,
    ) -> Self {
        Error::Kafka {
            context: context.into(),
            message: message.to_string(),
            code,
        }
    }

    /// A Kafka failure that retrying cannot fix, with its context.
    pub fn fatal(context: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Error::Fatal {
            context: context.into(),
            message: message.to_string(),
        }
    }
}
