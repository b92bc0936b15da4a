//! The runtime: MM2's `MirrorCheckpointTask` built from the core and the Kafka layer, with the
//! race-free lifecycle (flag → wake → join → close), plus the tools around a task: failover
//! and failback translation, and the offset-sync writer.

pub mod checkpoint_flows;
pub mod checkpoint_task;
pub mod failback;
pub mod group_offsets_stream;
pub mod metrics;
pub mod offset_sync_writer;
pub mod remote_cluster_utils;
pub(crate) mod scheduler;
pub(crate) mod thread_names;
