//! Every use of Kafka clients. Each client is wrapped in [`Owned`], which counts it as live and
//! checks that no two threads are ever inside it at once; each client has exactly one owning
//! thread at a time, and other threads only reach its queues through wake handles.

mod access_checker;
pub(crate) mod admin;
pub(crate) mod checkpoint_producer;
pub(crate) mod client_log;
pub(crate) mod coordination_consumer;
pub mod diagnostics;
pub mod embedded;
pub(crate) mod failure;
pub(crate) mod kafka_based_log;
#[allow(unsafe_code)]
pub mod librdkafka;
pub(crate) mod offset_sync_producer;
pub mod stop_signal;
mod wakeable_client;

pub(crate) use access_checker::Owned;
pub(crate) use wakeable_client::WakeableClient;

use std::collections::BTreeMap;

use rdkafka::config::ClientConfig;

/// Turns a settings map into an rdkafka client config.
pub(crate) fn client_config(settings: &BTreeMap<String, String>) -> ClientConfig {
    let mut c = ClientConfig::new();
    for (k, v) in settings {
        c.set(k, v);
    }
    c
}

/// Producer settings whose deliveries end in bounded time: a caller waiting for delivery reports
/// must not hang for librdkafka's default five-minute `message.timeout.ms`.
pub(crate) fn producer_config(settings: &BTreeMap<String, String>) -> ClientConfig {
    let mut c = client_config(settings);
    if c.get("message.timeout.ms").is_none() {
        c.set("message.timeout.ms", "30000");
    }
    c
}
