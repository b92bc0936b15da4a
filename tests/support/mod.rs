//! Shared helpers for the integration tests (and the `bench` example): the crate
//! `mm2-checkpoint-test-support`, a dev-dependency of mm2-checkpoint, used as `support::…`.
//!
//! - [`acl`]: ACLs on a broker with an authorizer, granted by its admin user.
//! - [`bad_endpoint`]: loopback ports that are not Kafka (closed, HTTP, hang-up).
//! - [`broker`]: real Apache Kafka brokers (scripts/kafka-broker.sh), one per cluster, or a
//!   shared one per test binary.
//! - [`mock`]: librdkafka's in-process mock clusters, for tests that need no real broker.
//! - [`names`]: one test's unique names for a replication flow, to share brokers safely.
//! - [`secure_kafka`]: a real Apache Kafka broker with SSL and SASL_SSL listeners.
//! - [`flow`]: one replication flow end to end over given client settings and codec.
//! - [`kafka`]: produce / read / commit / create-topic shortcuts that work against either.
//! - [`runtime`]: what the `CheckpointTask` runtime tests share (serialisation, a capturing
//!   logger, latches, latency summaries, a PRNG, the checkpoint monotonicity check).
//! - [`toxiproxy`]: network faults (blackhole, latency, resets, slow draining) between the task
//!   and a real broker, through a Toxiproxy server.
//! - [`wait`]: condition polling with a deadline, so tests await conditions instead of sleeping.
//!
//! Every helper fails loudly (panics with the reason) instead of skipping: a test that
//! silently did nothing would hide a missing broker.

pub mod acl;
pub mod bad_endpoint;
pub mod broker;
pub mod c_conf;
pub mod examples;
pub mod flow;
pub mod invariants;
pub mod kafka;
pub mod mock;
pub mod names;
pub mod runtime;
pub mod secure_kafka;
pub mod toxiproxy;
pub mod wait;

pub use broker::{shared, shared_pair, shared_target, unique, Broker, BrokerOptions};
pub use kafka::{
    commit_group_offsets, committed_offsets, create_topic, create_topic_with_config, ensure_topic,
    group_state, produce, produce_batched, produce_batched_with, produce_many, produce_numbered,
    read_all, read_records, topic_config, Committed, ConsumedRecord, KeyValue, Record,
};
pub use mock::{create_mock_topic, mock_cluster, Mock, MockPair};
pub use wait::{block_on, wait_for, wait_until};
