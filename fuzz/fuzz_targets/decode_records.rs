//! Feeds arbitrary key/value bytes to every record decoder and to the Java-compatible UTF-8
//! decoder. Nothing may panic, and whatever decodes must survive an encode/decode round trip.
//!
//! Input layout: byte 0 picks which parts are present (bit 0 clear = key present, bit 1 clear =
//! value present, so tombstones are reached), bytes 1-2 give the split point between key and
//! value (big-endian, taken modulo the remaining length + 1), the rest is split there.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mm2_checkpoint_decoders::wire::java_utf8_lossy;
use mm2_checkpoint_decoders::{Checkpoint, OffsetSync};

fuzz_target!(|data: &[u8]| {
    check_utf8(data);
    let [flags, hi, lo, rest @ ..] = data else {
        return;
    };
    let split = usize::from(u16::from_be_bytes([*hi, *lo])) % (rest.len() + 1);
    let (key, value) = rest.split_at(split);
    let key = (flags & 1 == 0).then_some(key);
    let value = (flags & 2 == 0).then_some(value);

    if let Ok(sync) = OffsetSync::decode(key, value) {
        // Lossy decoding can triple a string's size, so re-encoding may legitimately fail.
        if let Ok(encoded_key) = sync.encode_key() {
            let encoded_value = sync.encode_value();
            let again = OffsetSync::decode(Some(&encoded_key), Some(&encoded_value));
            assert_eq!(again.as_ref(), Ok(&sync));
        }
    }
    if let Ok(checkpoint) = Checkpoint::decode(key, value) {
        if let (Ok(k), Ok(v)) = (checkpoint.encode_key(), checkpoint.encode_value()) {
            assert_eq!(
                Checkpoint::decode(Some(&k), Some(&v)).as_ref(),
                Ok(&checkpoint)
            );
        }
    }
});

fn check_utf8(data: &[u8]) {
    let decoded = java_utf8_lossy(data);
    match std::str::from_utf8(data) {
        Ok(valid) => assert_eq!(decoded, valid),
        Err(_) => assert!(decoded.contains(char::REPLACEMENT_CHARACTER)),
    }
    // Decoding is idempotent on its own output: the result is always valid UTF-8.
    assert_eq!(java_utf8_lossy(decoded.as_bytes()), decoded);
}
