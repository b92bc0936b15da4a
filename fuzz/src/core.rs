//! The library's `src/core` decoder modules, by path (see the crate documentation).

#[path = "../../src/core/checkpoint.rs"]
pub mod checkpoint;
#[path = "../../src/core/consumer_offsets.rs"]
pub mod consumer_offsets;
#[path = "../../src/core/error.rs"]
pub mod error;
#[path = "../../src/core/offset_sync.rs"]
pub mod offset_sync;
#[path = "../../src/core/topic_partition.rs"]
pub mod topic_partition;
#[path = "../../src/core/wire.rs"]
pub mod wire;
