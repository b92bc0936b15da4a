//! mm2-checkpoint: the checkpointing half of Kafka MirrorMaker 2, wire- and behaviour-compatible
//! with Java MM2, built so that stopping a task can never race with its start-up (KAFKA-21435).
//!
//! Five crates, each importing only the ones before it, so that the compiler refuses an upward
//! import:
//! 1. `mm2-checkpoint-core` (crates/core): the pure MM2-compatible core — records and their
//!    byte formats, replication policies, filters, both stores, the checkpoint rules and
//!    configuration. No Kafka I/O.
//! 2. `mm2-checkpoint-kafka` (crates/kafka): every Kafka client, the stop signal that wakes
//!    their blocking calls, and the raw librdkafka calls rust-rdkafka lacks.
//! 3. this crate (src/): the runtime — MM2's `MirrorCheckpointTask` (lifecycle, start-up,
//!    discovery, cycles), the scheduler, failover translation and the offset-sync writer — and
//!    the public Rust API. It names no rdkafka type: Kafka is reached through the layer below.
//! 4. `mm2-checkpoint-ffi` (crates/ffi): the C ABI, over this crate's API.
//! 5. `mm2-checkpoint-capi` (crates/capi): builds it into libmm2_checkpoint.so/.a.
//!
//! The public Rust API is a chosen list: the runtime's modules (`checkpoint_task`, `metrics`,
//! `remote_cluster_utils`, …) and, at the top, the core's types a user meets (records, errors,
//! configuration, translation). Nothing else of the lower crates is part of it, so their
//! helpers (byte codecs, stores, hashing) can change freely; `abi/rust-api.txt` lists every item,
//! and CI fails when the API changes without that list. Test and benchmark hooks are behind the
//! `internals` feature, the test-only mock clusters (`embedded`) behind `embedded`, what the C
//! ABI crate needs beyond the API behind `c-abi`; none is a stable API, none is on by default.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod runtime;

// The records MM2 writes and reads, their names, and the errors of every call.
pub use mm2_checkpoint_core::checkpoint::Checkpoint;
pub use mm2_checkpoint_core::error::{ConfigError, Error, RecordError};
pub use mm2_checkpoint_core::offset_sync::{OffsetSync, OffsetSyncRef};
pub use mm2_checkpoint_core::replication_policy::{
    DefaultReplicationPolicy, IdentityReplicationPolicy, ReplicationPolicy,
};
pub use mm2_checkpoint_core::topic_partition::TopicPartition;

// Configuration: MM2's keys, read from a properties text or from key/value pairs.
pub use mm2_checkpoint_core::filters::{GroupFilter, PatternList, TopicFilter};
pub use mm2_checkpoint_core::group_coordination::{CoordinationSettings, TaskAssignment};
pub use mm2_checkpoint_core::mirror_checkpoint_config::{
    ClientKind, ClientSettings, Cluster, ConfigWarning, GroupOffsetsSource, MirrorCheckpointConfig,
    MirrorClientConfig,
};
pub use mm2_checkpoint_core::properties::parse_properties;

// Offset translation, both ways, as MM2's checkpoint task and `RemoteClusterUtils` do it.
pub use mm2_checkpoint_core::offset_sync_store::{OffsetSyncStore, PartitionSyncs, Translation};
pub use mm2_checkpoint_core::reverse_translation::{
    original_of_replica, translate_back, ReplicaTopicError, ReverseTranslation,
};

// A group's committed offsets as the offsets stream keeps them.
pub use mm2_checkpoint_core::committed_offsets::Committed;

// Why a partition was or was not checkpointed or synced (in the metrics and the log).
pub use mm2_checkpoint_core::checkpoint_rules::{NoWriteReason, SkipReason, WriteReason};

// Which process handles a group when several share a flow.
pub use mm2_checkpoint_core::group_assignment::owner_of;
pub use mm2_checkpoint_core::group_coordination::coordination_partition;

pub use mm2_checkpoint_kafka::task_scope::current_task_id;

// The 0.1 paths of the items above, kept through 0.2 so that 0.1 code still compiles, and gone
// in 0.3 (rustc has no deprecation warning for a path through a re-exporting module). Hidden
// from the documentation; each holds only what the API still has.
#[doc(hidden)]
pub mod checkpoint {
    pub use crate::Checkpoint;
}
#[doc(hidden)]
pub mod checkpoint_rules {
    pub use crate::{NoWriteReason, SkipReason, WriteReason};
}
#[doc(hidden)]
pub mod committed_offsets {
    pub use crate::Committed;
}
#[doc(hidden)]
pub mod error {
    pub use crate::{ConfigError, Error, RecordError};
}
#[doc(hidden)]
pub mod filters {
    pub use crate::{GroupFilter, PatternList, TopicFilter};
}
#[doc(hidden)]
pub mod group_assignment {
    pub use crate::owner_of;
}
#[doc(hidden)]
pub mod group_coordination {
    pub use crate::{coordination_partition, CoordinationSettings, TaskAssignment};
}
#[doc(hidden)]
pub mod mirror_checkpoint_config {
    pub use crate::{
        parse_properties, ClientKind, ClientSettings, Cluster, ConfigWarning, GroupOffsetsSource,
        MirrorCheckpointConfig, MirrorClientConfig,
    };
}
#[doc(hidden)]
pub mod offset_sync {
    pub use crate::{OffsetSync, OffsetSyncRef};
}
#[doc(hidden)]
pub mod offset_sync_store {
    pub use crate::{OffsetSyncStore, PartitionSyncs, Translation};
}
#[doc(hidden)]
pub mod properties {
    pub use crate::parse_properties;
}
#[doc(hidden)]
pub mod replication_policy {
    pub use crate::{DefaultReplicationPolicy, IdentityReplicationPolicy, ReplicationPolicy};
}
#[doc(hidden)]
pub mod reverse_translation {
    pub use crate::{original_of_replica, translate_back, ReplicaTopicError, ReverseTranslation};
}
#[doc(hidden)]
pub mod topic_partition {
    pub use crate::TopicPartition;
}

/// Counters that show there are no leaks and no shared clients: live Kafka clients, live
/// library threads, and overlapping client calls seen by the access checker, process-wide (a
/// task's own are [`CheckpointTask::diagnostics`](checkpoint_task::CheckpointTask::diagnostics)).
pub mod diagnostics {
    pub use mm2_checkpoint_kafka::diagnostics::{
        concurrent_client_access, live_clients, live_threads, Diagnostics,
    };
}

/// The stop flag of a task and everything that must notice it promptly: see [`StopSignal`].
///
/// [`StopSignal`]: stop_signal::StopSignal
pub mod stop_signal {
    pub use mm2_checkpoint_kafka::stop_signal::StopSignal;
}

pub use crate::runtime::{
    checkpoint_flows, checkpoint_task, failback, group_offsets_stream, metrics, offset_sync_writer,
    remote_cluster_utils,
};
/// The test-only mock clusters. Not a stable API; only with the `embedded` feature.
#[cfg(feature = "embedded")]
pub use mm2_checkpoint_kafka::embedded;

/// The seeded generator the tests and benchmarks draw their workloads from. Not a stable API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use mm2_checkpoint_core::splitmix;

/// Raw librdkafka calls, for the benchmarks' same-run baselines. Not a stable API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use mm2_checkpoint_kafka::librdkafka;

/// The client wrappers, named only by the compile-fail tests of their thread-safety
/// (docs/TYPE_GUARANTEES.md). Not a stable API: nothing outside the crate can build one.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod client_wrappers {
    pub use mm2_checkpoint_kafka::{Owned, WakeableClient};
}

/// What the C ABI crate (`mm2-checkpoint-ffi`) needs beyond the Rust API. Not a stable API;
/// only with the `c-abi` feature.
#[cfg(feature = "c-abi")]
#[doc(hidden)]
pub mod ffi_support {
    pub use crate::runtime::metrics::reporter::in_listener;
    pub use mm2_checkpoint_kafka::library_thread::panic_message;
}

/// The 0.1 paths still name the same items:
///
/// ```
/// use mm2_checkpoint as m;
/// fn same<T>(_: Option<T>, _: Option<T>) {}
/// same::<m::Checkpoint>(None::<m::checkpoint::Checkpoint>, None);
/// same::<m::SkipReason>(None::<m::checkpoint_rules::SkipReason>, None);
/// same::<m::Committed>(None::<m::committed_offsets::Committed>, None);
/// same::<m::ConfigError>(None::<m::error::ConfigError>, None);
/// same::<m::GroupFilter>(None::<m::filters::GroupFilter>, None);
/// same::<m::TaskAssignment>(None::<m::group_coordination::TaskAssignment>, None);
/// same::<m::MirrorCheckpointConfig>(None::<m::mirror_checkpoint_config::MirrorCheckpointConfig>, None);
/// same::<m::OffsetSync>(None::<m::offset_sync::OffsetSync>, None);
/// same::<m::OffsetSyncStore>(None::<m::offset_sync_store::OffsetSyncStore>, None);
/// same::<m::ReplicationPolicy>(None::<m::replication_policy::ReplicationPolicy>, None);
/// same::<m::ReverseTranslation>(None::<m::reverse_translation::ReverseTranslation>, None);
/// same::<m::TopicPartition>(None::<m::topic_partition::TopicPartition>, None);
/// let _ = (m::properties::parse_properties, m::group_assignment::owner_of);
/// ```
#[cfg(doctest)]
pub struct OldPathDoctests;

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
