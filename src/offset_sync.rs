//! `OffsetSync`: "record `upstream_offset` of an upstream partition landed at `downstream_offset`
//! downstream", the record MirrorSourceTask writes to the offset-syncs topic.

use crate::TopicPartition;

/// One offset sync. The topic is the **upstream** (source-cluster) name, never renamed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetSync {
    /// Upstream topic and partition.
    pub topic_partition: TopicPartition,
    /// Offset of the record in the upstream partition.
    pub upstream_offset: i64,
    /// Offset of the same record in the downstream partition.
    pub downstream_offset: i64,
}

impl OffsetSync {
    /// Makes an offset sync.
    pub fn new(
        topic_partition: TopicPartition,
        upstream_offset: i64,
        downstream_offset: i64,
    ) -> Self {
        OffsetSync {
            topic_partition,
            upstream_offset,
            downstream_offset,
        }
    }
}
