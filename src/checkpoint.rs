//! `Checkpoint`: a consumer group's committed source offset and its translation on the target,
//! the record MirrorCheckpointTask writes to `<source>.checkpoints.internal`.

use crate::TopicPartition;

/// One checkpoint. The topic is the **target-cluster** (renamed) name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Checkpoint {
    /// Consumer group id (the same on both clusters).
    pub consumer_group_id: String,
    /// Target (renamed) topic and partition.
    pub topic_partition: TopicPartition,
    /// The group's committed offset on the source cluster.
    pub upstream_offset: i64,
    /// The translated offset on the target cluster.
    pub downstream_offset: i64,
    /// The source commit's metadata, copied unchanged.
    pub metadata: String,
}

impl Checkpoint {
    /// Makes a checkpoint.
    pub fn new(
        consumer_group_id: impl Into<String>,
        topic_partition: TopicPartition,
        upstream_offset: i64,
        downstream_offset: i64,
        metadata: impl Into<String>,
    ) -> Self {
        Checkpoint {
            consumer_group_id: consumer_group_id.into(),
            topic_partition,
            upstream_offset,
            downstream_offset,
            metadata: metadata.into(),
        }
    }
}
