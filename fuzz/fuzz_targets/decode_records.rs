//! Feeds arbitrary key/value bytes to every record decoder and to the Java-compatible UTF-8
//! decoder. Nothing may panic, and whatever decodes must survive an encode/decode round trip.
//!
//! Input layout: see `key_and_value`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mm2_checkpoint_decoders::wire::java_utf8_lossy;
use mm2_checkpoint_decoders::{key_and_value, Checkpoint, OffsetSync};

fuzz_target!(|data: &[u8]| {
    check_utf8(data);
    let Some((key, value)) = key_and_value(data) else {
        return;
    };

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
