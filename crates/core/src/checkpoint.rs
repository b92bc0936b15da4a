//! `Checkpoint`: a consumer group's committed source offset and its translation on the target,
//! the record MirrorCheckpointTask writes to `<source>.checkpoints.internal`.

use crate::error::RecordError;
use crate::topic_partition::TopicPartition;
use crate::wire::{Reader, WireStr, Writer, INT16_SIZE, INT32_SIZE, INT64_SIZE};

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
    /// The value-format version MM2 writes (and the only one that exists).
    pub const VERSION: i16 = 0;

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

    /// Encodes the key: `group` STRING, `topic` STRING, `partition` INT32. Fails for a group or
    /// topic longer than 32767 bytes of UTF-8.
    pub fn encode_key(&self) -> Result<Vec<u8>, RecordError> {
        let group = WireStr::new("group", &self.consumer_group_id)?;
        let topic = WireStr::new("topic", &self.topic_partition.topic)?;
        let mut writer = Writer::with_size(group.encoded_len() + topic.encoded_len() + INT32_SIZE);
        writer.put_string(group);
        writer.put_string(topic);
        writer.put_i32(self.topic_partition.partition);
        Ok(writer.finish())
    }

    /// Encodes the value: `version` INT16 (always [`Checkpoint::VERSION`]), then
    /// `upstreamOffset` INT64, `offset` INT64, `metadata` STRING. Fails for metadata longer than
    /// 32767 bytes of UTF-8 (a consumer may commit arbitrarily long metadata upstream).
    pub fn encode_value(&self) -> Result<Vec<u8>, RecordError> {
        let metadata = WireStr::new("metadata", &self.metadata)?;
        let mut writer = Writer::with_size(INT16_SIZE + 2 * INT64_SIZE + metadata.encoded_len());
        writer.put_i16(Self::VERSION);
        writer.put_i64(self.upstream_offset);
        writer.put_i64(self.downstream_offset);
        writer.put_string(metadata);
        Ok(writer.finish())
    }

    /// Decodes a record of the checkpoints topic. Like Java, reads the value first and the key
    /// only after it, so a bad value is what gets reported when both parts are bad; `None` is a
    /// tombstone. Any version is accepted and its body read as version 0 with trailing bytes
    /// ignored: Java checks the version only with a JVM `assert`, which production runs disable.
    pub fn decode(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        let mut value = Reader::for_part(value, "value")?;
        let version = value.read_i16("version")?;
        if version != Self::VERSION {
            log::debug!("reading checkpoint value of version {version} as version 0");
        }
        let upstream_offset = value.read_i64("upstreamOffset")?;
        let downstream_offset = value.read_i64("offset")?;
        let metadata = value.read_string("metadata")?;
        let mut key = Reader::for_part(key, "key")?;
        let consumer_group_id = key.read_string("group")?;
        let topic = key.read_string("topic")?;
        let partition = key.read_i32("partition")?;
        Ok(Checkpoint::new(
            consumer_group_id,
            TopicPartition::new(topic, partition),
            upstream_offset,
            downstream_offset,
            metadata,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::test_support::{assert_truncated_at_every_cut, hex};
    use proptest::prelude::*;

    fn checkpoint(
        group: &str,
        topic: &str,
        partition: i32,
        up: i64,
        down: i64,
        meta: &str,
    ) -> Checkpoint {
        Checkpoint::new(group, TopicPartition::new(topic, partition), up, down, meta)
    }

    fn encode(record: &Checkpoint) -> (Vec<u8>, Vec<u8>) {
        (record.encode_key().unwrap(), record.encode_value().unwrap())
    }

    fn decode(key: &[u8], value: &[u8]) -> Result<Checkpoint, RecordError> {
        Checkpoint::decode(Some(key), Some(value))
    }

    #[test]
    fn encodes_reference_worked_example_byte_for_byte() {
        let record = checkpoint("g1", "src.orders", 3, 100, 43, "");
        let key = hex("00 02 | 67 31 | 00 0a | 73 72 63 2e 6f 72 64 65 72 73 | 00 00 00 03");
        let value = hex("00 00 | 00 00 00 00 00 00 00 64 | 00 00 00 00 00 00 00 2b | 00 00");
        assert_eq!(encode(&record), (key.clone(), value.clone()));
        assert_eq!(decode(&key, &value).unwrap(), record);
    }

    #[test]
    fn encodes_unicode_metadata_as_in_reference() {
        let record = checkpoint("g1", "src.orders", 3, 100, 43, "é");
        let value = record.encode_value().unwrap();
        assert_eq!(value.len(), 22);
        assert_eq!(value[18..], hex("00 02 c3 a9"));
    }

    #[test]
    fn round_trips_edge_values() {
        let cases = [
            checkpoint("", "", 0, 0, 0, ""),
            checkpoint("g", "t", -1, -1, -1, "m"),
            checkpoint("g", "t", i32::MAX, i64::MAX, i64::MAX, ""),
            checkpoint("g", "t", i32::MIN, i64::MIN, i64::MIN, ""),
            checkpoint("그룹-😀", "src.주문", 5, 10, 9, "ü\u{0}\u{10FFFF}"),
            checkpoint("g", "t", 0, 1, 1, &"m".repeat(32767)),
        ];
        for record in cases {
            let (key, value) = encode(&record);
            assert_eq!(value.len(), 2 + 8 + 8 + 2 + record.metadata.len());
            assert_eq!(decode(&key, &value).unwrap(), record);
        }
    }

    #[test]
    fn encode_rejects_strings_over_32767_bytes() {
        let long = "x".repeat(32768);
        let too_long = |field| RecordError::StringTooLong {
            field,
            length: 32768,
        };
        let record = checkpoint("g", "t", 0, 0, 0, &long);
        assert_eq!(record.encode_value(), Err(too_long("metadata")));
        let record = checkpoint(&long, "t", 0, 0, 0, "");
        assert_eq!(record.encode_key(), Err(too_long("group")));
        let record = checkpoint("g", &long, 0, 0, 0, "");
        assert_eq!(record.encode_key(), Err(too_long("topic")));
    }

    #[test]
    fn decode_reports_truncated_at_every_cut_point() {
        let (key, value) = encode(&checkpoint("g1", "src.orders", 3, 100, 43, "meta"));
        assert_truncated_at_every_cut(&key, &value, Checkpoint::decode);
    }

    #[test]
    fn decode_rejects_negative_string_lengths() {
        let (key, value) = encode(&checkpoint("g1", "t", 3, 100, 43, ""));
        let mut bad_value = value.clone();
        bad_value[18..20].copy_from_slice(&[0xff, 0xfe]);
        assert_eq!(
            decode(&key, &bad_value),
            Err(RecordError::NegativeStringLength {
                field: "metadata",
                length: -2
            })
        );
        let bad_key = hex("0001 67 ffff");
        assert_eq!(
            decode(&bad_key, &value),
            Err(RecordError::NegativeStringLength {
                field: "topic",
                length: -1
            })
        );
    }

    #[test]
    fn decode_accepts_other_versions_as_v0_and_ignores_trailing_bytes() {
        let record = checkpoint("g1", "src.orders", 3, 100, 43, "m");
        let (mut key, value) = encode(&record);
        key.push(0x55);
        for version in [1i16, 7, -1, i16::MAX] {
            let mut future = value.clone();
            future[..2].copy_from_slice(&version.to_be_bytes());
            future.extend_from_slice(&hex("0000000000000001 0003 616263"));
            assert_eq!(decode(&key, &future).unwrap(), record, "version {version}");
        }
    }

    #[test]
    fn decode_reads_value_before_key() {
        let (key, value) = encode(&checkpoint("g1", "src.orders", 3, 100, 43, ""));
        let short_value = &value[..1];
        let truncated_version = RecordError::Truncated {
            field: "version",
            needed: 2,
            available: 1,
        };
        type Case<'a> = (Option<&'a [u8]>, Option<&'a [u8]>, RecordError);
        let cases: [Case; 5] = [
            (None, None, RecordError::Tombstone { part: "value" }),
            (Some(&key), None, RecordError::Tombstone { part: "value" }),
            (None, Some(&value), RecordError::Tombstone { part: "key" }),
            (None, Some(short_value), truncated_version.clone()),
            (Some(&key[..1]), Some(short_value), truncated_version),
        ];
        for (key, value, expected) in cases {
            assert_eq!(Checkpoint::decode(key, value), Err(expected));
        }
    }

    proptest! {
        #[test]
        fn encode_then_decode_round_trips(
            group in ".{0,200}",
            topic in ".{0,200}",
            partition in any::<i32>(),
            upstream in any::<i64>(),
            downstream in any::<i64>(),
            metadata in ".{0,300}",
        ) {
            let record = checkpoint(&group, &topic, partition, upstream, downstream, &metadata);
            let (key, value) = encode(&record);
            prop_assert_eq!(decode(&key, &value).unwrap(), record);
        }

        #[test]
        fn decode_never_panics(
            key in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..48)),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..48)),
        ) {
            if Checkpoint::decode(key.as_deref(), value.as_deref()).is_ok() {
                // Success needs both parts, each at least as long as its fixed-size fields.
                prop_assert!(key.as_ref().is_some_and(|k| k.len() >= 8));
                prop_assert!(value.as_ref().is_some_and(|v| v.len() >= 20));
            }
        }
    }
}
