//! Feeds arbitrary key/value bytes to the `__consumer_offsets` decoder. Nothing may panic, and an
//! offset commit that decodes must decode again, unchanged, from its own encoding.
//!
//! Input layout: see `key_and_value`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mm2_checkpoint_decoders::consumer_offsets::ConsumerOffsetsRecord;
use mm2_checkpoint_decoders::key_and_value;

fuzz_target!(|data: &[u8]| {
    let Some((key, value)) = key_and_value(data) else {
        return;
    };

    if let Ok(ConsumerOffsetsRecord::OffsetCommit {
        key: commit_key,
        value: Some(commit),
    }) = ConsumerOffsetsRecord::decode(key, value)
    {
        // Lossy decoding can triple a string's size, so re-encoding may legitimately fail.
        let (Ok(key_bytes), Ok(value_bytes)) = (commit_key.encode(), commit.encode()) else {
            return;
        };
        let again = ConsumerOffsetsRecord::decode(Some(&key_bytes), Some(&value_bytes));
        let Ok(ConsumerOffsetsRecord::OffsetCommit {
            key: k,
            value: Some(v),
        }) = again
        else {
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
