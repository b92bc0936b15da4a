//! The Kafka layer of mm2-checkpoint: every use of Kafka clients. Each client is wrapped in
//! [`Owned`], which counts it as live and checks that no two threads are ever inside it at once;
//! each client has exactly one owning thread at a time, and other threads only reach its queues
//! through wake handles.
//!
//! The runtime (the crate `mm2-checkpoint`) reaches Kafka only through this crate's types; below
//! it, `mm2-checkpoint-core` names no Kafka client at all. Not a stable API: programs use
//! `mm2-checkpoint`, which re-exports what they need.
//!
//! The runtime is above this layer, so this does not compile here:
//!
//! ```compile_fail,E0432
//! use mm2_checkpoint::checkpoint_task::CheckpointTask;
//! ```
//!
//! while the core below is in reach (the twin that shows the one above fails for the import):
//!
//! ```
//! use mm2_checkpoint_core::checkpoint::Checkpoint;
//! ```
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod access_checker;
pub mod admin;
pub mod checkpoint_producer;
mod client_log;
pub mod consumer_offsets_reader;
pub mod coordination_consumer;
pub mod diagnostics;
#[cfg(feature = "embedded")]
pub mod embedded;
pub mod failure;
pub mod kafka_based_log;
pub mod library_thread;
#[allow(unsafe_code)]
pub mod librdkafka;
pub mod mutex;
pub mod offset_sync_producer;
mod producer_drop;
pub mod range_reader;
mod slow_wait;
pub mod stop_signal;
pub mod task_scope;
mod wakeable_client;

pub use access_checker::Owned;
/// The error codes of Kafka and of librdkafka, as the runtime matches and injects them.
pub use rdkafka::error::RDKafkaErrorCode as ErrorCode;
pub use wakeable_client::WakeableClient;

use std::collections::BTreeMap;

use mm2_checkpoint_core::mirror_checkpoint_config::{apply_client_defaults, ClientUse};
use rdkafka::config::ClientConfig;

/// Turns a settings map into an rdkafka client config.
pub fn client_config(settings: &BTreeMap<String, String>) -> ClientConfig {
    let mut c = ClientConfig::new();
    for (k, v) in settings {
        c.set(k, v);
    }
    c
}

/// Settings for a consumer-type client (`client`: a reader or an admin handle) whose consumer
/// group is never joined and never committed to: librdkafka's consumer API (and, for admin
/// clients, its answers to coordinator errors) needs a group handle. The core's client defaults
/// fill in what the settings leave unset (the group: `mm2-checkpoint-<role>`).
pub fn unjoined_group_config(
    settings: &BTreeMap<String, String>,
    client: ClientUse,
    role: &str,
) -> ClientConfig {
    let mut settings = settings.clone();
    apply_client_defaults(client, role, &mut settings);
    let mut c = client_config(&settings);
    c.set("enable.auto.commit", "false");
    c
}

/// Creates a consumer-type client whose log lines, including those librdkafka serves itself,
/// go through the client log (`client_log::ClientLog`). `prepare` may set up the native config
/// first; `creating` names the client in errors.
pub fn consumer_client(
    config: &ClientConfig,
    settings: &BTreeMap<String, String>,
    creating: impl Fn() -> String,
    prepare: impl FnOnce(&rdkafka::config::NativeClientConfig),
) -> Result<rdkafka::client::Client<client_log::ClientLog>, mm2_checkpoint_core::error::Error> {
    let native = config
        .create_native_config()
        .map_err(|e| failure::client_creation_error(creating(), e))?;
    prepare(&native);
    librdkafka::route_served_logs::<client_log::ClientLog>(&native);
    rdkafka::client::Client::new(
        config,
        native,
        rdkafka::types::RDKafkaType::RD_KAFKA_CONSUMER,
        client_log::ClientLog::new(settings),
    )
    .map_err(|e| failure::client_creation_error(creating(), e))
}

/// Producer settings with the core's producer defaults where unset (deliveries that end in
/// bounded time: a caller waiting for delivery reports must not hang for librdkafka's default
/// five-minute `message.timeout.ms`).
pub fn producer_config(settings: &BTreeMap<String, String>) -> ClientConfig {
    let mut settings = settings.clone();
    apply_client_defaults(ClientUse::Producer, "producer", &mut settings);
    client_config(&settings)
}

/// A client error with librdkafka's error code kept, so C callers can branch on it.
pub trait KafkaCause: std::fmt::Display {
    /// librdkafka's `rd_kafka_resp_err_t`, when there is one.
    fn code(&self) -> Option<i32>;
    /// A configuration property librdkafka rejected, as (property, why).
    fn rejected_setting(&self) -> Option<(String, String)> {
        None
    }
}

impl KafkaCause for rdkafka::error::KafkaError {
    fn code(&self) -> Option<i32> {
        self.rdkafka_error_code().map(|c| c as i32)
    }

    fn rejected_setting(&self) -> Option<(String, String)> {
        use rdkafka::error::KafkaError as K;
        match self {
            K::ClientConfig(_, why, key, _) => Some((key.clone(), why.clone())),
            // rd_kafka_new refuses a client only for its configuration (an unusable
            // combination, a certificate it cannot load, …).
            K::ClientCreation(why) => Some(("librdkafka configuration".into(), why.clone())),
            _ => None,
        }
    }
}

impl KafkaCause for librdkafka::NativeError {
    fn code(&self) -> Option<i32> {
        Some(self.code as i32)
    }
}

/// The one way a Kafka client error becomes an [`Error`](mm2_checkpoint_core::error::Error): a rejected librdkafka setting is a
/// configuration error (`INVALID_CONFIG` in C), everything else a Kafka error with its code.
pub fn kafka_error(
    context: impl Into<String>,
    e: impl KafkaCause,
) -> mm2_checkpoint_core::error::Error {
    match e.rejected_setting() {
        Some((key, why)) => mm2_checkpoint_core::error::ConfigError::new(key, why).into(),
        None => mm2_checkpoint_core::error::Error::kafka_code(context, &e, e.code()),
    }
}
