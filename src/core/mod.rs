//! The pure MM2-compatible core: records and their byte formats, replication policies, filters,
//! offset translation, the checkpoint rules and configuration. No Kafka I/O, no threads: every
//! module here is plain data and functions, tested in isolation.

pub mod checkpoint;
pub mod checkpoint_rules;
pub mod checkpoint_store;
pub mod committed_offsets;
pub mod consumer_offsets;
pub mod error;
pub(crate) mod fast_hash;
pub mod filters;
pub mod group_assignment;
pub mod group_coordination;
pub mod mirror_checkpoint_config;
pub mod offset_sync;
pub(crate) mod offset_sync_queue;
pub mod offset_sync_store;
pub mod properties;
pub mod replication_policy;
pub mod secrets;
pub mod splitmix;
pub mod topic_partition;
pub mod wire;
