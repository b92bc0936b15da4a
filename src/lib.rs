//! mm2-checkpoint: the checkpointing half of Kafka MirrorMaker 2, wire- and behaviour-compatible
//! with Java MM2, built so that stopping a task can never race with its start-up (KAFKA-21435).
//!
//! Four layers, each importing only the ones before it. Each of the three boundaries between
//! crates is kept by the compiler; the one inside this crate by `tests/layering.rs`:
//! 1. `core` (the crate `mm2-checkpoint-core`, folder src/core): the pure MM2-compatible core —
//!    records and their byte formats, replication policies, filters, both stores, the checkpoint
//!    rules and configuration. No Kafka I/O.
//! 2. `kafka` (this crate): every Kafka client, the stop signal that wakes their blocking calls,
//!    and the raw librdkafka calls rust-rdkafka lacks (the only outbound `unsafe`).
//! 3. `runtime` (this crate): MM2's `MirrorCheckpointTask` (lifecycle, start-up, discovery,
//!    cycles), the scheduler, failover translation and the offset-sync writer.
//! 4. `ffi` (the crate `mm2-checkpoint-ffi`, folder src/ffi): the C ABI, built into
//!    libmm2_checkpoint.so/.a by the crate `mm2-checkpoint-capi` (folder capi). This crate cannot
//!    name it: the C ABI crate depends on this one, and cargo refuses a dependency cycle.
//!
//! The public Rust API is what the top level re-exports (`mm2_checkpoint::checkpoint_task`, …):
//! the layers themselves are private, so user code does not depend on where a module sits, and
//! the helpers behind the API (hashing, the offset-sync queue) are not part of it. Test and
//! benchmark hooks are behind the `internals` feature, the test-only mock clusters
//! (`embedded`) behind `embedded`; neither is a stable API, neither is on by default.
#![deny(unsafe_code)]
#![deny(missing_docs)]

// The core layer under the name its modules had when it was a module of this crate.
use mm2_checkpoint_core as core;
pub(crate) mod kafka;
mod runtime;

pub use crate::core::{
    checkpoint, checkpoint_rules, checkpoint_store, committed_offsets, consumer_offsets, error,
    filters, group_assignment, group_coordination, mirror_checkpoint_config, offset_sync,
    offset_sync_store, properties, replication_policy, reverse_translation, topic_partition, wire,
};
pub use crate::kafka::task_scope::current_task_id;
pub use crate::kafka::{diagnostics, stop_signal};

/// The test-only mock clusters. Not a stable API; only with the `embedded` feature.
#[cfg(feature = "embedded")]
pub use crate::kafka::embedded;
pub use crate::runtime::{
    checkpoint_flows, checkpoint_task, failback, group_offsets_stream, metrics, offset_sync_writer,
    remote_cluster_utils,
};

/// The seeded generator the tests and benchmarks draw their workloads from. Not a stable API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use crate::core::splitmix;

/// Raw librdkafka calls, for the benchmarks' same-run baselines. Not a stable API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use crate::kafka::librdkafka;

/// The client wrappers, named only by the compile-fail tests of their thread-safety
/// (docs/TYPE_GUARANTEES.md). Not a stable API: nothing outside the crate can build one.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod client_wrappers {
    pub use crate::kafka::{Owned, WakeableClient};
}

/// What the C ABI crate (`mm2-checkpoint-ffi`) needs beyond the Rust API. Not a stable API.
#[doc(hidden)]
pub mod ffi_support {
    pub use crate::kafka::library_thread::panic_message;
    pub use crate::runtime::metrics::reporter::in_listener;
}

pub use crate::core::checkpoint::Checkpoint;
pub use crate::core::error::{ConfigError, Error, RecordError};
pub use crate::core::offset_sync::OffsetSync;
pub use crate::core::replication_policy::ReplicationPolicy;
pub use crate::core::topic_partition::TopicPartition;

/// Compiles the README's Rust example as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The type-level guarantees of docs/TYPE_GUARANTEES.md, each a compile-fail doctest with a
/// compiling twin (they name `internals` items: `cargo test --doc --all-features`).
#[doc = include_str!("../docs/TYPE_GUARANTEES.md")]
#[cfg(all(doctest, feature = "internals"))]
pub struct TypeGuaranteeDoctests;

/// Compiles the Rust example of docs/SCALE_OUT.md as a doctest.
#[doc = include_str!("../docs/SCALE_OUT.md")]
#[cfg(doctest)]
pub struct ScaleOutDoctests;

/// Compiles the Rust example of docs/OPERATIONS.md as a doctest.
#[doc = include_str!("../docs/OPERATIONS.md")]
#[cfg(doctest)]
pub struct OperationsDoctests;

/// Compiles the Rust examples of docs/FAILOVER.md as doctests.
#[doc = include_str!("../docs/FAILOVER.md")]
#[cfg(doctest)]
pub struct FailoverDoctests;
