//! `Heartbeat`: "the flow `source → target` was alive at `timestamp`", the record
//! MirrorHeartbeatTask writes to the `heartbeats` topic. The checkpoint side only needs its
//! format, to recognise and mirror heartbeat topics.

use crate::core::error::RecordError;
use crate::core::wire::{Reader, WireStr, Writer, INT16_SIZE, INT64_SIZE};

/// One heartbeat.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Heartbeat {
    /// Alias of the cluster the flow replicates from.
    pub source_cluster_alias: String,
    /// Alias of the cluster the flow replicates to.
    pub target_cluster_alias: String,
    /// When the heartbeat was emitted, in epoch milliseconds.
    pub timestamp: i64,
}

impl Heartbeat {
    /// The value-format version MM2 writes (and the only one that exists).
    pub const VERSION: i16 = 0;

    /// Makes a heartbeat.
    pub fn new(
        source_cluster_alias: impl Into<String>,
        target_cluster_alias: impl Into<String>,
        timestamp: i64,
    ) -> Self {
        Heartbeat {
            source_cluster_alias: source_cluster_alias.into(),
            target_cluster_alias: target_cluster_alias.into(),
            timestamp,
        }
    }

    /// Encodes the key: `sourceClusterAlias` STRING, `targetClusterAlias` STRING. Fails for an
    /// alias longer than 32767 bytes of UTF-8.
    pub fn encode_key(&self) -> Result<Vec<u8>, RecordError> {
        let source = WireStr::new("sourceClusterAlias", &self.source_cluster_alias)?;
        let target = WireStr::new("targetClusterAlias", &self.target_cluster_alias)?;
        let mut writer = Writer::with_size(source.encoded_len() + target.encoded_len());
        writer.put_string(source);
        writer.put_string(target);
        Ok(writer.finish())
    }

    /// Encodes the value: `version` INT16 (always [`Heartbeat::VERSION`]), then `timestamp`
    /// INT64.
    pub fn encode_value(&self) -> Vec<u8> {
        let mut writer = Writer::with_size(INT16_SIZE + INT64_SIZE);
        writer.put_i16(Self::VERSION);
        writer.put_i64(self.timestamp);
        writer.finish()
    }

    /// Decodes a record of a heartbeats topic. Like Java, reads the value first and the key only
    /// after it; `None` is a tombstone. Any version is accepted and read as version 0 with
    /// trailing bytes ignored, because Java's version check is only a JVM `assert`.
    pub fn decode(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        let mut value = Reader::for_part(value, "value")?;
        let version = value.read_i16("version")?;
        if version != Self::VERSION {
            log::debug!("reading heartbeat value of version {version} as version 0");
        }
        let timestamp = value.read_i64("timestamp")?;
        let mut key = Reader::for_part(key, "key")?;
        let source_cluster_alias = key.read_string("sourceClusterAlias")?;
        let target_cluster_alias = key.read_string("targetClusterAlias")?;
        Ok(Heartbeat::new(
            source_cluster_alias,
            target_cluster_alias,
            timestamp,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::wire::test_support::{assert_truncated_at_every_cut, hex};
    use proptest::prelude::*;

    fn decode(key: &[u8], value: &[u8]) -> Result<Heartbeat, RecordError> {
        Heartbeat::decode(Some(key), Some(value))
    }

    #[test]
    fn encodes_reference_worked_example_byte_for_byte() {
        let record = Heartbeat::new("A", "B", 1_700_000_000_000);
        let key = hex("00 01 41 | 00 01 42");
        let value = hex("00 00 | 00 00 01 8b cf e5 68 00");
        assert_eq!(record.encode_key().unwrap(), key);
        assert_eq!(record.encode_value(), value);
        assert_eq!(decode(&key, &value).unwrap(), record);
    }

    #[test]
    fn round_trips_edge_values() {
        let cases = [
            Heartbeat::new("", "", 0),
            Heartbeat::new("a", "b", -1),
            Heartbeat::new("a", "b", i64::MAX),
            Heartbeat::new("a", "b", i64::MIN),
            Heartbeat::new("東京", "😀-dc", 5),
            Heartbeat::new("s".repeat(32767), "t", 5),
        ];
        for record in cases {
            let key = record.encode_key().unwrap();
            let value = record.encode_value();
            assert_eq!(value.len(), 10);
            assert_eq!(decode(&key, &value).unwrap(), record);
        }
    }

    #[test]
    fn encode_key_rejects_alias_over_32767_bytes() {
        let record = Heartbeat::new("a", "t".repeat(32768), 0);
        assert_eq!(
            record.encode_key(),
            Err(RecordError::StringTooLong {
                field: "targetClusterAlias",
                length: 32768
            })
        );
    }

    #[test]
    fn decode_reports_truncated_at_every_cut_point() {
        let record = Heartbeat::new("primary", "backup", 42);
        let key = record.encode_key().unwrap();
        assert_truncated_at_every_cut(&key, &record.encode_value(), Heartbeat::decode);
    }

    #[test]
    fn decode_rejects_negative_alias_length() {
        let value = Heartbeat::new("a", "b", 1).encode_value();
        assert_eq!(
            decode(&hex("0001 41 fffd"), &value),
            Err(RecordError::NegativeStringLength {
                field: "targetClusterAlias",
                length: -3
            })
        );
    }

    #[test]
    fn decode_accepts_other_versions_as_v0_and_ignores_trailing_bytes() {
        let record = Heartbeat::new("A", "B", 1_700_000_000_000);
        let mut key = record.encode_key().unwrap();
        key.extend_from_slice(&[0, 9]);
        for version in [1i16, 2, -5] {
            let mut value = record.encode_value();
            value[..2].copy_from_slice(&version.to_be_bytes());
            value.extend_from_slice(&[1, 2, 3, 4]);
            assert_eq!(decode(&key, &value).unwrap(), record, "version {version}");
        }
    }

    #[test]
    fn decode_reads_value_before_key() {
        let record = Heartbeat::new("A", "B", 1);
        let key = record.encode_key().unwrap();
        let value = record.encode_value();
        let truncated_timestamp = RecordError::Truncated {
            field: "timestamp",
            needed: 8,
            available: 3,
        };
        type Case<'a> = (Option<&'a [u8]>, Option<&'a [u8]>, RecordError);
        let cases: [Case; 5] = [
            (None, None, RecordError::Tombstone { part: "value" }),
            (Some(&key), None, RecordError::Tombstone { part: "value" }),
            (None, Some(&value), RecordError::Tombstone { part: "key" }),
            (None, Some(&value[..5]), truncated_timestamp.clone()),
            (Some(&key[..2]), Some(&value[..5]), truncated_timestamp),
        ];
        for (key, value, expected) in cases {
            assert_eq!(Heartbeat::decode(key, value), Err(expected));
        }
    }

    proptest! {
        #[test]
        fn encode_then_decode_round_trips(
            source in ".{0,300}",
            target in ".{0,300}",
            timestamp in any::<i64>(),
        ) {
            let record = Heartbeat::new(source, target, timestamp);
            let key = record.encode_key().unwrap();
            let value = record.encode_value();
            prop_assert_eq!(decode(&key, &value).unwrap(), record);
        }

        #[test]
        fn decode_never_panics(
            key in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..48)),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..16)),
        ) {
            if Heartbeat::decode(key.as_deref(), value.as_deref()).is_ok() {
                // Success needs both parts, each at least as long as its fixed-size fields.
                prop_assert!(key.as_ref().is_some_and(|k| k.len() >= 4));
                prop_assert!(value.as_ref().is_some_and(|v| v.len() >= 10));
            }
        }
    }
}
