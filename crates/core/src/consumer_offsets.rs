//! The records of Kafka's `__consumer_offsets` topic, where the group coordinator writes every
//! offset commit as it happens (the stream that lag monitors such as Burrow read).
//!
//! Every key starts with an `INT16` record type, every value with an `INT16` version; the rest is
//! the record type's message (Kafka's `OffsetCommitKey.json`, `OffsetCommitValue.json` and
//! `GroupMetadataKey.json` in the group coordinator):
//!
//! | key type | key fields                      | meaning                                   |
//! |----------|---------------------------------|-------------------------------------------|
//! | 0, 1     | group, topic STRING; partition INT32 | an offset commit (0 is the legacy type) |
//! | 2        | group STRING                    | a classic group's metadata                |
//! | 3..=21   | (not read)                      | KIP-848 consumer, share and streams group state |
//!
//! Offset-commit values, by version: `offset` INT64 in all; `leaderEpoch` INT32 from v3; then
//! `metadata` STRING, `commitTimestamp` INT64; `expireTimestamp` INT64 in v1 only. Version 4 is
//! flexible (KIP-482): the metadata is a `COMPACT_STRING` and a tagged-field section ends the
//! value. A null value is a tombstone: the coordinator deleted that offset (an explicit
//! deletion, the group's deletion, or expiry).
//!
//! Decoding never fails on a record it merely does not know: a record type or value version newer
//! than this module is returned as such for the caller to skip and count (Kafka's own coordinator
//! skips unknown record types the same way when it loads the topic). Only bytes that break the
//! format of a known record are an error.

use std::borrow::Cow;

use crate::error::RecordError;
use crate::wire::{
    unsigned_varint_len, Reader, WireStr, Writer, INT16_SIZE, INT32_SIZE, INT64_SIZE,
};

/// The topic's name on every Kafka cluster.
pub const CONSUMER_OFFSETS_TOPIC: &str = "__consumer_offsets";

/// The partition of `__consumer_offsets` (of `partitions` in all) whose leader coordinates
/// `group`, and where every record of the group is written: the group coordinator's own choice,
/// the absolute value of Java's `String.hashCode` of the group id (over its UTF-16 code units,
/// with `i32::MIN` taken as 0) modulo the partition count. 0 when `partitions` is 0.
pub fn coordinator_partition(group: &str, partitions: usize) -> i32 {
    let hash = group.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    let abs = if hash == i32::MIN { 0 } else { hash.abs() };
    match i32::try_from(partitions) {
        Ok(n) if n > 0 => abs % n,
        _ => 0,
    }
}

/// Key type of an offset commit written by coordinators before Kafka 2.x (same layout as 1).
pub const LEGACY_OFFSET_COMMIT_KEY: i16 = 0;
/// Key type of an offset commit.
pub const OFFSET_COMMIT_KEY: i16 = 1;
/// Key type of a classic group's metadata record.
pub const GROUP_METADATA_KEY: i16 = 2;
/// The last key type Kafka 4.3 defines (`StreamsGroupTopology`); types 3 up to this one hold
/// the state of KIP-848 consumer groups, share groups and streams groups.
pub const LAST_KNOWN_KEY: i16 = 21;
/// The newest offset-commit value version this module reads.
pub const LAST_KNOWN_VALUE_VERSION: i16 = 4;

/// One decoded record of `__consumer_offsets`. Strings borrow the record's bytes when they are
/// valid UTF-8, so records of groups that are filtered out cost no allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsumerOffsetsRecord<'a> {
    /// An offset commit (`value` present) or the deletion of one (`value` is `None`: a
    /// tombstone, written when the offset is deleted, its group is deleted, or it expires).
    OffsetCommit {
        /// The key.
        key: OffsetCommitKey<'a>,
        /// The value; `None` for a tombstone.
        value: Option<OffsetCommitValue<'a>>,
    },
    /// A classic group's metadata (members, generation), or its tombstone. Not needed to follow
    /// offsets: a group's deletion also writes a tombstone for each of its offsets, while a
    /// classic group converted to a KIP-848 group gets a metadata tombstone and keeps its
    /// offsets. So this record never removes offsets.
    GroupMetadata {
        /// The group.
        group: Cow<'a, str>,
        /// Whether the value was null (the classic group is gone or was converted).
        tombstone: bool,
    },
    /// A KIP-848 consumer, share or streams group's state record (key types 3 to
    /// [`LAST_KNOWN_KEY`]); offsets of those groups are ordinary offset commits.
    GroupState {
        /// The key's record type.
        record_type: i16,
    },
    /// A key type this module does not know (newer than Kafka 4.3, or invalid).
    UnknownRecordType {
        /// The key's record type.
        record_type: i16,
    },
    /// An offset commit whose value version this module does not know; its offset is not read.
    UnknownValueVersion {
        /// The key, so the caller can name the group and partition.
        key: OffsetCommitKey<'a>,
        /// The value's version.
        version: i16,
    },
}

/// The key of an offset commit: which group committed for which partition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetCommitKey<'a> {
    /// The key's record type ([`LEGACY_OFFSET_COMMIT_KEY`] or [`OFFSET_COMMIT_KEY`]).
    pub record_type: i16,
    /// Consumer group id.
    pub group: Cow<'a, str>,
    /// Topic of the committed partition.
    pub topic: Cow<'a, str>,
    /// Partition number.
    pub partition: i32,
}

/// The value of an offset commit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetCommitValue<'a> {
    /// Value version, 0 to [`LAST_KNOWN_VALUE_VERSION`].
    pub version: i16,
    /// The committed offset: the next record the group will read.
    pub offset: i64,
    /// Leader epoch of the committed offset (v3 and later; `None` before, `Some(-1)` when the
    /// client sent none).
    pub leader_epoch: Option<i32>,
    /// The client's commit metadata string.
    pub metadata: Cow<'a, str>,
    /// When the coordinator accepted the commit, in ms since the epoch.
    pub commit_timestamp: i64,
    /// When the offset expires (v1 only: the retention a client asked for; `None` otherwise).
    pub expire_timestamp: Option<i64>,
    /// Tagged fields skipped at the end of a v4 value (0 before v4).
    pub tagged_fields: u32,
}

impl<'a> ConsumerOffsetsRecord<'a> {
    /// Decodes one record of `__consumer_offsets`. `None` for the value is a tombstone; a record
    /// without a key is an error (the coordinator never writes one). Bytes after the last field
    /// are ignored, as Kafka's readers ignore them.
    pub fn decode(key: Option<&'a [u8]>, value: Option<&'a [u8]>) -> Result<Self, RecordError> {
        let mut key_reader = Reader::for_part(key, "key")?;
        let record_type = key_reader.read_i16("key type")?;
        match record_type {
            LEGACY_OFFSET_COMMIT_KEY | OFFSET_COMMIT_KEY => {
                let key = OffsetCommitKey {
                    record_type,
                    group: key_reader.read_str("group")?,
                    topic: key_reader.read_str("topic")?,
                    partition: key_reader.read_i32("partition")?,
                };
                let Some(value) = value else {
                    return Ok(ConsumerOffsetsRecord::OffsetCommit { key, value: None });
                };
                let mut value_reader = Reader::new(value);
                let version = value_reader.read_i16("version")?;
                if !(0..=LAST_KNOWN_VALUE_VERSION).contains(&version) {
                    return Ok(ConsumerOffsetsRecord::UnknownValueVersion { key, version });
                }
                let value = OffsetCommitValue::read(version, &mut value_reader)?;
                Ok(ConsumerOffsetsRecord::OffsetCommit {
                    key,
                    value: Some(value),
                })
            }
            GROUP_METADATA_KEY => Ok(ConsumerOffsetsRecord::GroupMetadata {
                group: key_reader.read_str("group")?,
                tombstone: value.is_none(),
            }),
            3..=LAST_KNOWN_KEY => Ok(ConsumerOffsetsRecord::GroupState { record_type }),
            _ => Ok(ConsumerOffsetsRecord::UnknownRecordType { record_type }),
        }
    }
}

impl<'a> OffsetCommitValue<'a> {
    fn read(version: i16, reader: &mut Reader<'a>) -> Result<Self, RecordError> {
        let offset = reader.read_i64("offset")?;
        let leader_epoch = if version >= 3 {
            Some(reader.read_i32("leaderEpoch")?)
        } else {
            None
        };
        let metadata = if version >= 4 {
            reader.read_compact_str("metadata")?
        } else {
            reader.read_str("metadata")?
        };
        let commit_timestamp = reader.read_i64("commitTimestamp")?;
        let expire_timestamp = if version == 1 {
            Some(reader.read_i64("expireTimestamp")?)
        } else {
            None
        };
        let tagged_fields = if version >= 4 {
            reader.skip_tagged_fields("_tagged_fields")?
        } else {
            0
        };
        Ok(OffsetCommitValue {
            version,
            offset,
            leader_epoch,
            metadata,
            commit_timestamp,
            expire_timestamp,
            tagged_fields,
        })
    }

    /// Encodes the value at its `version` as Kafka's coordinator does (a v4 value gets an empty
    /// tagged-field section). Fields the version lacks are left out. For tests and tools: the
    /// library itself never writes `__consumer_offsets`. Fails for an unknown version or a
    /// metadata string too long for its length prefix.
    pub fn encode(&self) -> Result<Vec<u8>, RecordError> {
        let version = self.version;
        if !(0..=LAST_KNOWN_VALUE_VERSION).contains(&version) {
            return Err(RecordError::Malformed {
                field: "version",
                reason: "not an offset-commit value version (0 to 4)",
            });
        }
        let metadata = WireStr::new("metadata", &self.metadata)?;
        let metadata_len = if version >= 4 {
            let len = self.metadata.len() as u32 + 1;
            unsigned_varint_len(len) + self.metadata.len()
        } else {
            metadata.encoded_len()
        };
        let size = INT16_SIZE
            + INT64_SIZE
            + if version >= 3 { INT32_SIZE } else { 0 }
            + metadata_len
            + INT64_SIZE
            + if version == 1 { INT64_SIZE } else { 0 }
            + if version >= 4 { 1 } else { 0 };
        let mut writer = Writer::with_size(size);
        writer.put_i16(version);
        writer.put_i64(self.offset);
        if version >= 3 {
            writer.put_i32(self.leader_epoch.unwrap_or(-1));
        }
        if version >= 4 {
            writer.put_unsigned_varint(self.metadata.len() as u32 + 1);
            writer.put_bytes(self.metadata.as_bytes());
        } else {
            writer.put_string(metadata);
        }
        writer.put_i64(self.commit_timestamp);
        if version == 1 {
            writer.put_i64(self.expire_timestamp.unwrap_or(-1));
        }
        if version >= 4 {
            writer.put_unsigned_varint(0);
        }
        Ok(writer.finish())
    }
}

impl OffsetCommitKey<'_> {
    /// Encodes the key: its record type, then group, topic and partition. For tests and tools.
    /// Fails for a string too long for its length prefix.
    pub fn encode(&self) -> Result<Vec<u8>, RecordError> {
        let group = WireStr::new("group", &self.group)?;
        let topic = WireStr::new("topic", &self.topic)?;
        let mut writer =
            Writer::with_size(INT16_SIZE + group.encoded_len() + topic.encoded_len() + INT32_SIZE);
        writer.put_i16(self.record_type);
        writer.put_string(group);
        writer.put_string(topic);
        writer.put_i32(self.partition);
        Ok(writer.finish())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn coordinator_partition_is_java_string_hash_code_abs_modulo_the_partition_count() {
        // (group, Java's String.hashCode, partition of 50)
        let cases = [
            ("", 0, 0),
            ("a", 97, 47),
            ("console-consumer-12345", 158_455_506, 6),
            // hashCode == Integer.MIN_VALUE: Kafka's Utils.abs maps it to 0.
            ("polygenelubricants", i32::MIN, 0),
            ("my-group", -1_906_497_762, 12),
            // Outside the BMP: hashed over the UTF-16 surrogate pair, as Java does.
            ("grüße-😀", 347_391_577, 27),
        ];
        for (group, _hash, partition) in cases {
            assert_eq!(
                super::coordinator_partition(group, 50),
                partition,
                "{group}"
            );
        }
        assert_eq!(super::coordinator_partition("a", 1), 0);
        assert_eq!(super::coordinator_partition("a", 0), 0);
    }

    use super::*;
    use crate::wire::test_support::hex;
    use proptest::prelude::*;

    fn key<'a>(
        record_type: i16,
        group: &'a str,
        topic: &'a str,
        partition: i32,
    ) -> OffsetCommitKey<'a> {
        OffsetCommitKey {
            record_type,
            group: Cow::Borrowed(group),
            topic: Cow::Borrowed(topic),
            partition,
        }
    }

    /// The value every golden vector below encodes, at `version` (fields the version lacks are
    /// absent; Kafka writes -1 for a missing leader epoch).
    fn golden_value(version: i16) -> OffsetCommitValue<'static> {
        OffsetCommitValue {
            version,
            offset: 42,
            leader_epoch: (version >= 3).then_some(7),
            metadata: Cow::Borrowed("mé"),
            commit_timestamp: 1_700_000_000_000,
            expire_timestamp: (version == 1).then_some(1_700_000_600_000),
            tagged_fields: 0,
        }
    }

    /// Bytes written by Kafka 4.3.1's own generated classes (`OffsetCommitKey`,
    /// `OffsetCommitValue`, `GroupMetadataKey`, each written after its INT16 prefix) for group
    /// `g1`, partition `orders-3`, offset 42, leader epoch 7, metadata `mé`, commit time
    /// 1700000000000 and expire time 1700000600000.
    const GOLDEN_VALUES: [&str; 5] = [
        "0000 000000000000002a 0003 6dc3a9 0000018bcfe56800",
        "0001 000000000000002a 0003 6dc3a9 0000018bcfe56800 0000018bcfee8fc0",
        "0002 000000000000002a 0003 6dc3a9 0000018bcfe56800",
        "0003 000000000000002a 00000007 0003 6dc3a9 0000018bcfe56800",
        "0004 000000000000002a 00000007 04 6dc3a9 0000018bcfe56800 00",
    ];

    #[test]
    fn decodes_kafka_written_offset_commit_keys_of_both_types() {
        for (record_type, bytes) in [
            (0, "0000 0002 6731 0006 6f7264657273 00000003"),
            (1, "0001 0002 6731 0006 6f7264657273 00000003"),
        ] {
            let bytes = hex(bytes);
            let value = hex(GOLDEN_VALUES[3]);
            let record = ConsumerOffsetsRecord::decode(Some(&bytes), Some(&value)).unwrap();
            assert_eq!(
                record,
                ConsumerOffsetsRecord::OffsetCommit {
                    key: key(record_type, "g1", "orders", 3),
                    value: Some(golden_value(3)),
                }
            );
            assert_eq!(key(record_type, "g1", "orders", 3).encode().unwrap(), bytes);
        }
    }

    #[test]
    fn decodes_and_encodes_kafka_written_values_of_every_version() {
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        for (version, golden) in GOLDEN_VALUES.iter().enumerate() {
            let bytes = hex(golden);
            let expected = golden_value(version as i16);
            let record = ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&bytes)).unwrap();
            let ConsumerOffsetsRecord::OffsetCommit { value, .. } = record else {
                panic!("v{version}: not an offset commit: {record:?}");
            };
            assert_eq!(value.as_ref(), Some(&expected), "v{version}");
            assert_eq!(expected.encode().unwrap(), bytes, "v{version}");
        }
    }

    #[test]
    fn skips_unknown_tagged_fields_of_a_v4_value() {
        // Kafka 4.3.1 wrote this v4 value with empty metadata and two unknown tagged fields:
        // tag 5 (3 bytes) and tag 200 (a two-byte varint tag, empty).
        let bytes =
            hex("0004 000000000000002a 00000007 01 0000018bcfe56800 02 05 03 010203 c801 00");
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        let record = ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&bytes)).unwrap();
        let ConsumerOffsetsRecord::OffsetCommit {
            value: Some(value), ..
        } = record
        else {
            panic!("not a commit: {record:?}");
        };
        assert_eq!(value.offset, 42);
        assert_eq!(value.metadata, "");
        assert_eq!(value.commit_timestamp, 1_700_000_000_000);
        assert_eq!(value.tagged_fields, 2);
    }

    #[test]
    fn null_value_of_an_offset_commit_is_a_deletion() {
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        assert_eq!(
            ConsumerOffsetsRecord::decode(Some(&key_bytes), None).unwrap(),
            ConsumerOffsetsRecord::OffsetCommit {
                key: key(1, "g1", "orders", 3),
                value: None
            }
        );
    }

    #[test]
    fn group_metadata_records_are_recognised_with_their_group_and_tombstone() {
        let key_bytes = hex("0002 0002 6731");
        for (value, tombstone) in [(Some(&[0u8, 3, 1, 2][..]), false), (None, true)] {
            assert_eq!(
                ConsumerOffsetsRecord::decode(Some(&key_bytes), value).unwrap(),
                ConsumerOffsetsRecord::GroupMetadata {
                    group: Cow::Borrowed("g1"),
                    tombstone
                }
            );
        }
    }

    #[test]
    fn kip848_share_and_streams_state_records_are_group_state_and_later_types_unknown() {
        for record_type in 3..=LAST_KNOWN_KEY {
            let key_bytes = record_type.to_be_bytes();
            assert_eq!(
                ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&[0, 0])).unwrap(),
                ConsumerOffsetsRecord::GroupState { record_type }
            );
        }
        for record_type in [LAST_KNOWN_KEY + 1, i16::MAX, -1, i16::MIN] {
            let key_bytes = record_type.to_be_bytes();
            assert_eq!(
                ConsumerOffsetsRecord::decode(Some(&key_bytes), None).unwrap(),
                ConsumerOffsetsRecord::UnknownRecordType { record_type }
            );
        }
    }

    #[test]
    fn unknown_value_versions_are_returned_with_their_key_not_read() {
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        for version in [5i16, i16::MAX, -1] {
            let mut value = version.to_be_bytes().to_vec();
            value.extend_from_slice(&[0xff; 3]);
            assert_eq!(
                ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&value)).unwrap(),
                ConsumerOffsetsRecord::UnknownValueVersion {
                    key: key(1, "g1", "orders", 3),
                    version
                }
            );
        }
    }

    #[test]
    fn a_record_without_key_is_an_error() {
        assert_eq!(
            ConsumerOffsetsRecord::decode(None, Some(&[0, 0])),
            Err(RecordError::Tombstone { part: "key" })
        );
    }

    #[test]
    fn cutting_a_known_record_short_anywhere_is_a_truncation_error() {
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        for cut in 0..key_bytes.len() {
            let result = ConsumerOffsetsRecord::decode(Some(&key_bytes[..cut]), None);
            assert!(
                matches!(result, Err(RecordError::Truncated { .. })),
                "key cut at {cut}: {result:?}"
            );
        }
        for golden in GOLDEN_VALUES {
            let value = hex(golden);
            for cut in 0..value.len() {
                let result = ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&value[..cut]));
                assert!(
                    matches!(result, Err(RecordError::Truncated { .. })),
                    "{golden} cut at {cut}: {result:?}"
                );
            }
        }
    }

    #[test]
    fn a_null_v4_metadata_is_malformed() {
        let key_bytes = hex("0001 0002 6731 0006 6f7264657273 00000003");
        let value = hex("0004 000000000000002a 00000007 00 0000018bcfe56800 00");
        assert_eq!(
            ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&value)),
            Err(RecordError::Malformed {
                field: "metadata",
                reason: "null in a non-nullable string"
            })
        );
    }

    fn any_value() -> impl Strategy<Value = OffsetCommitValue<'static>> {
        (
            0i16..=4,
            any::<i64>(),
            any::<i32>(),
            ".{0,40}",
            any::<i64>(),
            any::<i64>(),
        )
            .prop_map(|(version, offset, epoch, metadata, commit, expire)| {
                OffsetCommitValue {
                    version,
                    offset,
                    leader_epoch: (version >= 3).then_some(epoch),
                    metadata: Cow::Owned(metadata),
                    commit_timestamp: commit,
                    expire_timestamp: (version == 1).then_some(expire),
                    tagged_fields: 0,
                }
            })
    }

    proptest! {
        #[test]
        fn encoded_commits_decode_to_themselves(
            record_type in 0i16..=1,
            group in ".{0,60}",
            topic in ".{0,60}",
            partition in any::<i32>(),
            value in proptest::option::of(any_value()),
        ) {
            let key = OffsetCommitKey {
                record_type,
                group: Cow::Owned(group),
                topic: Cow::Owned(topic),
                partition,
            };
            let key_bytes = key.encode().unwrap();
            let value_bytes = value.as_ref().map(|v| v.encode().unwrap());
            let record = ConsumerOffsetsRecord::decode(Some(&key_bytes), value_bytes.as_deref());
            prop_assert_eq!(record, Ok(ConsumerOffsetsRecord::OffsetCommit { key, value }));
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_decoded_commits_round_trip(
            key_bytes in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..24)),
            value_bytes in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..48)),
            record_type in 0i16..=3,
            version in 0i16..=5,
        ) {
            // Half the inputs get a known key type and value version, so decoding gets past them.
            let mut key_bytes = key_bytes;
            let mut value_bytes = value_bytes;
            if let Some(k) = key_bytes.as_mut().filter(|k| k.len() >= 2 && k[0] & 1 == 0) {
                k[..2].copy_from_slice(&record_type.to_be_bytes());
            }
            if let Some(v) = value_bytes.as_mut().filter(|v| v.len() >= 2 && v[0] & 1 == 0) {
                v[..2].copy_from_slice(&version.to_be_bytes());
            }
            let decoded =
                ConsumerOffsetsRecord::decode(key_bytes.as_deref(), value_bytes.as_deref());
            if let Ok(ConsumerOffsetsRecord::OffsetCommit { value: Some(value), .. }) = decoded {
                let again = value.encode().unwrap();
                let redecoded = ConsumerOffsetsRecord::decode(key_bytes.as_deref(), Some(&again));
                let same = matches!(
                    &redecoded,
                    Ok(ConsumerOffsetsRecord::OffsetCommit { value: Some(v), .. })
                        if OffsetCommitValue { tagged_fields: value.tagged_fields, ..v.clone() } == value
                );
                prop_assert!(same, "{:?} re-decoded as {:?}", value, redecoded);
                // Legacy versions have one encoding per value: with valid UTF-8, the bytes read
                // are exactly what encoding gives back, and anything after them was ignored.
                let raw = value_bytes.as_deref().unwrap_or_default();
                if value.version < 4 && !value.metadata.contains(char::REPLACEMENT_CHARACTER) {
                    prop_assert_eq!(&raw[..again.len()], &again[..]);
                }
            }
        }
    }
}
