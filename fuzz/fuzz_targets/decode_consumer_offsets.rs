//! Feeds arbitrary key/value bytes to the `__consumer_offsets` decoder. Nothing may panic, and an
//! offset commit that decodes must decode again, unchanged, from its own encoding.
//!
//! Input layout as in `decode_records`: byte 0 picks which parts are present (bit 0 clear = key
//! present, bit 1 clear = value present, so tombstones are reached), bytes 1-2 give the split
//! point between key and value, the rest is split there.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mm2_checkpoint_decoders::consumer_offsets::ConsumerOffsetsRecord;

fuzz_target!(|data: &[u8]| {
    let [flags, hi, lo, rest @ ..] = data else {
        return;
    };
    let split = usize::from(u16::from_be_bytes([*hi, *lo])) % (rest.len() + 1);
    let (key, value) = rest.split_at(split);
    let key = (flags & 1 == 0).then_some(key);
    let value = (flags & 2 == 0).then_some(value);

    if let Ok(ConsumerOffsetsRecord::OffsetCommit { key: commit_key, value: Some(commit) }) =
        ConsumerOffsetsRecord::decode(key, value)
    {
        // Lossy decoding can triple a string's size, so re-encoding may legitimately fail.
        let (Ok(key_bytes), Ok(value_bytes)) = (commit_key.encode(), commit.encode()) else {
            return;
        };
        let again = ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&value_bytes));
        let Ok(ConsumerOffsetsRecord::OffsetCommit { key: k, value: Some(v) }) = again else {
            panic!("re-encoded commit did not decode: {again:?}");
        };
        assert_eq!(k, commit_key);
        // Encoding writes no tagged fields; everything else must survive.
        assert_eq!(v.tagged_fields, 0);
        assert_eq!(v.offset, commit.offset);
        assert_eq!(v.leader_epoch, commit.leader_epoch);
        assert_eq!(v.metadata, commit.metadata);
        assert_eq!(v.commit_timestamp, commit.commit_timestamp);
        assert_eq!(v.expire_timestamp, commit.expire_timestamp);
    }
});
