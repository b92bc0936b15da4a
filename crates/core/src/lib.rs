//! The pure MM2-compatible core: records and their byte formats, replication policies, filters,
//! offset translation, the checkpoint rules and configuration. No Kafka I/O, no threads: every
//! module here is plain data and functions, tested in isolation.
//!
//! A crate of its own (`mm2-checkpoint-core`), the bottom layer: it has no Kafka client among its
//! dependencies and cannot name the layers above, so neither compiles here:
//!
//! ```compile_fail,E0432
//! // The runtime (the Rust API crate) is above the core.
//! use mm2_checkpoint::checkpoint_task::CheckpointTask;
//! ```
//!
//! ```compile_fail,E0432
//! // Kafka I/O is the Kafka layer's, above the core.
//! use rdkafka::config::ClientConfig;
//! ```
//!
//! while its own items are in reach (the twin that shows the two above fail for the import):
//!
//! ```
//! use mm2_checkpoint_core::checkpoint::Checkpoint;
//! ```
//!
//! Users reach these modules through `mm2_checkpoint`, which re-exports the public ones.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod checkpoint;
pub mod checkpoint_rules;
pub mod checkpoint_store;
pub mod committed_offsets;
pub mod consumer_offsets;
pub mod error;
// For the layers above (the task's hash maps, the offset-sync writer's queue), not an API.
#[doc(hidden)]
pub mod fast_hash;
pub mod filters;
pub mod group_assignment;
pub mod group_coordination;
pub mod mirror_checkpoint_config;
pub mod offset_sync;
#[doc(hidden)]
pub mod offset_sync_queue;
pub mod offset_sync_store;
pub mod properties;
pub mod replication_policy;
pub mod reverse_translation;
pub mod secrets;
// The rendezvous hash's finaliser, and the generator the tests and benchmarks draw from (through
// the Rust API crate's `internals`): not an API.
#[doc(hidden)]
pub mod splitmix;
pub mod topic_name;
pub mod topic_partition;
pub mod wire;

pub use checkpoint::Checkpoint;
pub use error::{ConfigError, Error, RecordError};
pub use offset_sync::OffsetSync;
pub use replication_policy::ReplicationPolicy;
pub use topic_partition::TopicPartition;
