//! MM2's `OffsetSyncWriter` for mirroring tools that are not MirrorMaker: the rules of when a
//! sync is due live in the core (its offset-sync queue), the producer that sends them in the
//! Kafka layer; this is the public face of both.

pub use mm2_checkpoint_core::offset_sync_queue::{
    OffsetSyncWriterConfig, Queued, DEFAULT_FLUSH_INTERVAL, DEFAULT_OFFSET_LAG_MAX,
    MAX_OUTSTANDING_OFFSET_SYNCS,
};
pub use mm2_checkpoint_kafka::offset_sync_producer::{OffsetSyncWriter, OffsetSyncWriterStats};
