//! mm2-checkpoint: the checkpointing half of Kafka MirrorMaker 2, wire- and behaviour-compatible
//! with Java MM2, built so that stopping a task can never race with its start-up (KAFKA-21435).
//!
//! Layers (one concept per module, named after MM2's classes):
//! - pure core, no Kafka I/O: [`offset_sync`], [`checkpoint`], [`heartbeat`] (records and their
//!   byte formats, on top of [`wire`]), [`replication_policy`], [`offset_sync_store`] (offset
//!   translation), [`checkpoint_store`], [`checkpoint_rules`] (what to emit and what to commit),
//!   [`filters`] and [`mirror_checkpoint_config`];
//! - runtime: [`kafka`] owns every Kafka client, [`scheduler`] runs start-up and periodic jobs,
//!   [`checkpoint_task`] composes them into MM2's `MirrorCheckpointTask`, [`diagnostics`]
//!   counts what is alive;
//! - around the task: [`remote_cluster_utils`] (failover offset translation on the target, MM2's
//!   `RemoteClusterUtils`) and [`offset_sync_writer`] (the source side of MM2's offset syncs,
//!   for mirroring tools that are not MirrorMaker);
//! - `ffi`: the C ABI (and the few librdkafka calls rust-rdkafka does not wrap); the only place
//!   with `unsafe`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod checkpoint;
pub mod checkpoint_rules;
pub mod checkpoint_store;
pub mod checkpoint_task;
pub mod diagnostics;
pub mod embedded;
pub mod error;
#[allow(unsafe_code)]
pub mod ffi;
pub mod filters;
pub mod group_assignment;
pub mod heartbeat;
pub(crate) mod kafka;
pub mod mirror_checkpoint_config;
pub mod offset_sync;
pub mod offset_sync_store;
pub mod offset_sync_writer;
pub mod properties;
pub mod remote_cluster_utils;
pub mod replication_policy;
pub(crate) mod scheduler;
pub mod stop_signal;
pub mod topic_partition;
pub mod wire;

pub use checkpoint::Checkpoint;
pub use error::{ConfigError, Error, RecordError};
pub use offset_sync::OffsetSync;
pub use topic_partition::TopicPartition;

pub use heartbeat::Heartbeat;
pub use replication_policy::ReplicationPolicy;

/// Compiles the README's Rust example as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Compiles the Rust examples of docs/FAILOVER.md as doctests.
#[doc = include_str!("../docs/FAILOVER.md")]
#[cfg(doctest)]
pub struct FailoverDoctests;
