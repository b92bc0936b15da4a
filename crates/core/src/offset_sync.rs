//! `OffsetSync`: "record `upstream_offset` of an upstream partition landed at `downstream_offset`
//! downstream", the record MirrorSourceTask writes to the offset-syncs topic.

use std::borrow::Cow;

use crate::error::RecordError;
use crate::topic_partition::TopicPartition;
use crate::wire::{Reader, WireStr, Writer, INT32_SIZE, INT64_SIZE};

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

    /// Encodes the key: `topic` STRING, `partition` INT32. Fails only for a topic name longer
    /// than 32767 bytes of UTF-8.
    pub fn encode_key(&self) -> Result<Vec<u8>, RecordError> {
        let topic = WireStr::new("topic", &self.topic_partition.topic)?;
        let mut writer = Writer::with_size(topic.encoded_len() + INT32_SIZE);
        writer.put_string(topic);
        writer.put_i32(self.topic_partition.partition);
        Ok(writer.finish())
    }

    /// Encodes the value: `upstreamOffset` INT64, `offset` INT64. Unlike checkpoints and
    /// heartbeats, offset syncs have no version header.
    pub fn encode_value(&self) -> Vec<u8> {
        let mut writer = Writer::with_size(2 * INT64_SIZE);
        writer.put_i64(self.upstream_offset);
        writer.put_i64(self.downstream_offset);
        writer.finish()
    }

    /// Decodes a record of the offset-syncs topic. Like Java, reads the key first and the value
    /// only after it, so a bad key is what gets reported when both parts are bad; `None` is a
    /// tombstone. Trailing bytes in either part are ignored.
    pub fn decode(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        OffsetSyncRef::decode(key, value).map(|sync| sync.to_owned())
    }
}

/// An offset sync decoded in place: the topic borrows the record's key unless the bytes were
/// not valid UTF-8, so applying a sync to the store needs no allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetSyncRef<'a> {
    /// Upstream topic name.
    pub topic: Cow<'a, str>,
    /// Upstream partition.
    pub partition: i32,
    /// Offset of the record in the upstream partition.
    pub upstream_offset: i64,
    /// Offset of the same record in the downstream partition.
    pub downstream_offset: i64,
}

impl<'a> OffsetSyncRef<'a> {
    /// [`OffsetSync::decode`] without copying the topic: same checks, same errors, same order.
    pub fn decode(key: Option<&'a [u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        let mut key = Reader::for_part(key, "key")?;
        let topic = key.read_str("topic")?;
        let partition = key.read_i32("partition")?;
        let mut value = Reader::for_part(value, "value")?;
        let upstream_offset = value.read_i64("upstreamOffset")?;
        let downstream_offset = value.read_i64("offset")?;
        Ok(OffsetSyncRef {
            topic,
            partition,
            upstream_offset,
            downstream_offset,
        })
    }

    /// The owned form.
    pub fn to_owned(&self) -> OffsetSync {
        OffsetSync::new(
            TopicPartition::new(self.topic.as_ref(), self.partition),
            self.upstream_offset,
            self.downstream_offset,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::test_support::{assert_truncated_at_every_cut, hex};
    use proptest::prelude::*;

    fn sync(topic: &str, partition: i32, upstream: i64, downstream: i64) -> OffsetSync {
        OffsetSync::new(TopicPartition::new(topic, partition), upstream, downstream)
    }

    #[test]
    fn encodes_reference_worked_example_byte_for_byte() {
        let record = sync("orders", 3, 100, 42);
        let key = hex("00 06 | 6f 72 64 65 72 73 | 00 00 00 03");
        let value = hex("00 00 00 00 00 00 00 64 | 00 00 00 00 00 00 00 2a");
        assert_eq!(record.encode_key().unwrap(), key);
        assert_eq!(record.encode_value(), value);
        assert_eq!(
            OffsetSync::decode(Some(&key), Some(&value)).unwrap(),
            record
        );
    }

    #[test]
    fn round_trips_edge_values() {
        let cases = [
            sync("", 0, 0, 0),
            sync("t", -1, -1, -1),
            sync("t", i32::MAX, i64::MAX, i64::MAX),
            sync("t", i32::MIN, i64::MIN, i64::MIN),
            sync("주문.😀", 7, 1, 2),
            sync(&"x".repeat(32767), 1, 2, 3),
        ];
        for record in cases {
            let key = record.encode_key().unwrap();
            let value = record.encode_value();
            assert_eq!(value.len(), 16);
            assert_eq!(key.len(), 2 + record.topic_partition.topic.len() + 4);
            assert_eq!(
                OffsetSync::decode(Some(&key), Some(&value)).unwrap(),
                record
            );
        }
    }

    #[test]
    fn encodes_unicode_topic_as_utf8_with_byte_length() {
        let key = sync("é", i32::MAX, 0, -1).encode_key().unwrap();
        assert_eq!(key, hex("0002 c3a9 7fffffff"));
        let value = sync("é", 0, 0, -1).encode_value();
        assert_eq!(value, hex("0000000000000000 ffffffffffffffff"));
    }

    #[test]
    fn encode_key_rejects_topic_over_32767_bytes() {
        let record = sync(&"x".repeat(32768), 0, 0, 0);
        assert_eq!(
            record.encode_key(),
            Err(RecordError::StringTooLong {
                field: "topic",
                length: 32768
            })
        );
    }

    #[test]
    fn decode_reports_truncated_at_every_cut_point() {
        let record = sync("orders", 3, 100, 42);
        let key = record.encode_key().unwrap();
        assert_truncated_at_every_cut(&key, &record.encode_value(), OffsetSync::decode);
    }

    #[test]
    fn decode_names_the_field_that_ran_out() {
        let key = sync("orders", 3, 0, 0).encode_key().unwrap();
        let value = hex("0000000000000064 00000000");
        assert_eq!(
            OffsetSync::decode(Some(&key), Some(&value)),
            Err(RecordError::Truncated {
                field: "offset",
                needed: 8,
                available: 4
            })
        );
    }

    #[test]
    fn decode_rejects_negative_topic_length() {
        let key = hex("8000 00000003");
        let value = sync("t", 0, 1, 2).encode_value();
        assert_eq!(
            OffsetSync::decode(Some(&key), Some(&value)),
            Err(RecordError::NegativeStringLength {
                field: "topic",
                length: i16::MIN
            })
        );
    }

    #[test]
    fn decode_ignores_trailing_bytes_in_key_and_value() {
        let record = sync("orders", 3, 100, 42);
        let mut key = record.encode_key().unwrap();
        let mut value = record.encode_value();
        key.extend_from_slice(&[1, 2, 3]);
        value.push(0xff);
        assert_eq!(
            OffsetSync::decode(Some(&key), Some(&value)).unwrap(),
            record
        );
    }

    #[test]
    fn decode_reads_key_before_value() {
        let record = sync("orders", 3, 100, 42);
        let key = record.encode_key().unwrap();
        let value = record.encode_value();
        let short_key = &key[..1];
        type Case<'a> = (Option<&'a [u8]>, Option<&'a [u8]>, RecordError);
        let cases: [Case; 5] = [
            (None, None, RecordError::Tombstone { part: "key" }),
            (None, Some(&value), RecordError::Tombstone { part: "key" }),
            (Some(&key), None, RecordError::Tombstone { part: "value" }),
            (
                Some(short_key),
                None,
                RecordError::Truncated {
                    field: "topic",
                    needed: 2,
                    available: 1,
                },
            ),
            (
                Some(short_key),
                Some(&value[..3]),
                RecordError::Truncated {
                    field: "topic",
                    needed: 2,
                    available: 1,
                },
            ),
        ];
        for (key, value, expected) in cases {
            assert_eq!(OffsetSync::decode(key, value), Err(expected));
        }
    }

    proptest! {
        #[test]
        fn encode_then_decode_round_trips(
            topic in ".{0,300}",
            partition in any::<i32>(),
            upstream in any::<i64>(),
            downstream in any::<i64>(),
        ) {
            let record = sync(&topic, partition, upstream, downstream);
            let key = record.encode_key().unwrap();
            let value = record.encode_value();
            prop_assert_eq!(OffsetSync::decode(Some(&key), Some(&value)).unwrap(), record);
        }

        #[test]
        fn borrowed_decode_equals_owned_decode(
            key in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..32)),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)),
        ) {
            let owned = OffsetSync::decode(key.as_deref(), value.as_deref());
            let borrowed = OffsetSyncRef::decode(key.as_deref(), value.as_deref());
            prop_assert_eq!(owned, borrowed.map(|s| s.to_owned()));
        }

        #[test]
        fn decode_never_panics(
            key in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..48)),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..24)),
        ) {
            if let Ok(record) = OffsetSync::decode(key.as_deref(), value.as_deref()) {
                // Success needs both parts, each at least as long as its fixed-size fields.
                prop_assert!(key.as_ref().is_some_and(|k| k.len() >= 6));
                prop_assert!(value.as_ref().is_some_and(|v| v.len() >= 16));
                prop_assert!(record.topic_partition.topic.len() <= 3 * 42);
            }
        }
    }
}
