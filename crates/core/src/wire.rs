//! Kafka's legacy fixed-layout struct encoding (`protocol.types.Schema`), the byte format of
//! MM2's offset syncs, checkpoints and heartbeats.
//!
//! A struct is its fields back to back: big-endian `INT16`/`INT32`/`INT64`, and `STRING` as an
//! `INT16` byte length followed by that many bytes of UTF-8. There are no tags, no field count
//! and no null. Java's reader never checks that a buffer is used up, so [`Reader`] ignores
//! trailing bytes too: that is how a v0 reader tolerates a longer future version.

use std::borrow::Cow;

use crate::error::RecordError;

/// The longest `STRING` in bytes: its length must fit a non-negative `INT16`.
pub const MAX_STRING_LEN: usize = i16::MAX as usize;

/// Size of an encoded `INT16`.
pub const INT16_SIZE: usize = 2;
/// Size of an encoded `INT32`.
pub const INT32_SIZE: usize = 4;
/// Size of an encoded `INT64`.
pub const INT64_SIZE: usize = 8;

/// A string already checked to fit a `STRING` field, so writing it cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireStr<'a>(&'a str);

impl<'a> WireStr<'a> {
    /// Checks that `value` fits; `field` names the schema field in the error.
    pub fn new(field: &'static str, value: &'a str) -> Result<Self, RecordError> {
        if value.len() > MAX_STRING_LEN {
            return Err(RecordError::StringTooLong {
                field,
                length: value.len(),
            });
        }
        Ok(WireStr(value))
    }

    /// Bytes the field takes on the wire: the length prefix plus the UTF-8 bytes.
    pub fn encoded_len(&self) -> usize {
        INT16_SIZE + self.0.len()
    }
}

/// Bytes an unsigned varint of `value` takes on the wire (1 to 5).
pub fn unsigned_varint_len(value: u32) -> usize {
    let bits = 32 - value.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Builds one encoded struct in a buffer sized exactly up front, as Java sizes its `ByteBuffer`.
#[derive(Debug)]
pub struct Writer {
    buf: Vec<u8>,
    size: usize,
}

impl Writer {
    /// Starts a buffer for a struct of exactly `size` bytes.
    pub fn with_size(size: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(size),
            size,
        }
    }

    /// Appends a big-endian `INT16`.
    pub fn put_i16(&mut self, value: i16) {
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// Appends a big-endian `INT32`.
    pub fn put_i32(&mut self, value: i32) {
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// Appends a big-endian `INT64`.
    pub fn put_i64(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// Appends a `STRING`: `INT16` length, then the UTF-8 bytes.
    pub fn put_string(&mut self, value: WireStr<'_>) {
        // WireStr::new guarantees the length fits, so the conversion never saturates.
        let len = i16::try_from(value.0.len()).unwrap_or(i16::MAX);
        self.put_i16(len);
        self.buf.extend_from_slice(value.0.as_bytes());
    }

    /// Appends an unsigned varint (see [`Reader::read_unsigned_varint`]).
    pub fn put_unsigned_varint(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.buf.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        self.buf.push(value as u8);
    }

    /// Appends raw bytes (a compact string's or a tagged field's body).
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Returns the encoded bytes.
    pub fn finish(self) -> Vec<u8> {
        debug_assert_eq!(
            self.buf.len(),
            self.size,
            "encoded size computed up front must be exact"
        );
        self.buf
    }
}

/// Reads fields in schema order from a byte slice; never panics, never looks past the last field.
#[derive(Debug)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading at the beginning of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { rest: buf }
    }

    /// Starts reading a record's key or value (`part`); `None` is a tombstone.
    ///
    /// Java wraps each part only when its turn in the read order comes, so callers call this
    /// for the second part only after the first one decoded.
    pub fn for_part(bytes: Option<&'a [u8]>, part: &'static str) -> Result<Self, RecordError> {
        bytes
            .map(Reader::new)
            .ok_or(RecordError::Tombstone { part })
    }

    /// Bytes not read yet (ignored by the record decoders, as in Java).
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    fn take(&mut self, field: &'static str, needed: usize) -> Result<&'a [u8], RecordError> {
        if needed > self.rest.len() {
            return Err(RecordError::Truncated {
                field,
                needed,
                available: self.rest.len(),
            });
        }
        let (head, tail) = self.rest.split_at(needed);
        self.rest = tail;
        Ok(head)
    }

    fn take_array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], RecordError> {
        let bytes = self.take(field, N)?;
        let mut array = [0u8; N];
        array.copy_from_slice(bytes);
        Ok(array)
    }

    /// Reads a big-endian `INT16`.
    pub fn read_i16(&mut self, field: &'static str) -> Result<i16, RecordError> {
        self.take_array(field).map(i16::from_be_bytes)
    }

    /// Reads a big-endian `INT32`.
    pub fn read_i32(&mut self, field: &'static str) -> Result<i32, RecordError> {
        self.take_array(field).map(i32::from_be_bytes)
    }

    /// Reads a big-endian `INT64`.
    pub fn read_i64(&mut self, field: &'static str) -> Result<i64, RecordError> {
        self.take_array(field).map(i64::from_be_bytes)
    }

    /// Reads a `STRING`, decoding its bytes as Java does (malformed UTF-8 becomes U+FFFD).
    pub fn read_string(&mut self, field: &'static str) -> Result<String, RecordError> {
        let length = self.read_i16(field)?;
        let len = usize::try_from(length)
            .map_err(|_| RecordError::NegativeStringLength { field, length })?;
        let bytes = self.take(field, len)?;
        Ok(java_utf8_lossy(bytes))
    }

    /// [`read_string`](Self::read_string) without the copy when the bytes are valid UTF-8 (on
    /// valid input Java's decoder and ours agree byte for byte); only malformed input allocates.
    pub fn read_str(&mut self, field: &'static str) -> Result<Cow<'a, str>, RecordError> {
        let length = self.read_i16(field)?;
        let len = usize::try_from(length)
            .map_err(|_| RecordError::NegativeStringLength { field, length })?;
        let bytes = self.take(field, len)?;
        Ok(match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => Cow::Owned(java_utf8_lossy(bytes)),
        })
    }
}

impl<'a> Reader<'a> {
    /// Reads an unsigned varint (Kafka's `UNSIGNED_VARINT`: 7 bits a byte, least significant
    /// group first, at most 5 bytes for 32 bits), the length and count prefix of the flexible
    /// versions (KIP-482).
    pub fn read_unsigned_varint(&mut self, field: &'static str) -> Result<u32, RecordError> {
        let mut value: u32 = 0;
        for index in 0..5 {
            let [byte] = self.take_array::<1>(field)?;
            let bits = u32::from(byte & 0x7f);
            // The fifth byte holds the top 4 bits of a u32; anything above is Kafka's
            // "varint is too long" error, not a value to wrap.
            if index == 4 && bits > 0x0f {
                return Err(RecordError::Malformed {
                    field,
                    reason: "unsigned varint longer than 32 bits",
                });
            }
            value |= bits << (7 * index);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(RecordError::Malformed {
            field,
            reason: "unsigned varint longer than 5 bytes",
        })
    }

    /// Reads a non-null `COMPACT_STRING` (flexible versions): an unsigned varint holding the
    /// byte length plus one, then the bytes. Length 0 is null, which a non-nullable field may
    /// not hold. Decoded like [`read_str`](Self::read_str).
    pub fn read_compact_str(&mut self, field: &'static str) -> Result<Cow<'a, str>, RecordError> {
        let encoded = self.read_unsigned_varint(field)?;
        let Some(len) = encoded.checked_sub(1) else {
            return Err(RecordError::Malformed {
                field,
                reason: "null in a non-nullable string",
            });
        };
        let bytes = self.take(field, len as usize)?;
        Ok(match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => Cow::Owned(java_utf8_lossy(bytes)),
        })
    }

    /// Skips a flexible version's tagged-field section: a count, then for each field its tag,
    /// its size and that many bytes. Returns how many fields were skipped. None of the fields
    /// Kafka has tagged so far matters to a reader of committed offsets, so all are skipped.
    pub fn skip_tagged_fields(&mut self, field: &'static str) -> Result<u32, RecordError> {
        let count = self.read_unsigned_varint(field)?;
        for _ in 0..count {
            self.read_unsigned_varint(field)?;
            let size = self.read_unsigned_varint(field)?;
            self.take(field, size as usize)?;
        }
        Ok(count)
    }
}

/// Decodes `bytes` exactly as Java's `new String(bytes, UTF_8)` does.
///
/// This equals [`String::from_utf8_lossy`] except after the lead byte `ED`. Unicode allows only
/// `80..=9F` as its second byte (higher values would encode a UTF-16 surrogate), so the lossy
/// decoder replaces `ED` alone. Java's decoder accepts any continuation byte there and rejects the
/// surrogate only once the sequence is complete, so it replaces `ED A0..=BF` together with a
/// following continuation byte by one U+FFFD (and `ED A0..=BF` at the end or before a
/// non-continuation byte by one U+FFFD as well). A CESU-8 surrogate pair thus gives two U+FFFD.
pub fn java_utf8_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, bad) = rest.split_at(error.valid_up_to());
                out.push_str(&String::from_utf8_lossy(valid));
                out.push(char::REPLACEMENT_CHARACTER);
                let skip = match bad {
                    [0xED, 0xA0..=0xBF, third, ..] if is_continuation(*third) => 3,
                    [0xED, 0xA0..=0xBF, ..] => 2,
                    _ => error.error_len().unwrap_or(bad.len()),
                };
                rest = bad.get(skip..).unwrap_or_default();
            }
        }
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Helpers shared by the record modules' tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::error::RecordError;

    /// Checks that cutting `key` or `value` short anywhere (the other part intact) makes
    /// `decode` report `Truncated`: every field of these records is mandatory.
    pub(crate) fn assert_truncated_at_every_cut<T: std::fmt::Debug>(
        key: &[u8],
        value: &[u8],
        decode: impl Fn(Option<&[u8]>, Option<&[u8]>) -> Result<T, RecordError>,
    ) {
        for cut in 0..key.len() {
            let result = decode(Some(&key[..cut]), Some(value));
            assert!(
                matches!(result, Err(RecordError::Truncated { .. })),
                "key cut at {cut}: {result:?}"
            );
        }
        for cut in 0..value.len() {
            let result = decode(Some(key), Some(&value[..cut]));
            assert!(
                matches!(result, Err(RecordError::Truncated { .. })),
                "value cut at {cut}: {result:?}"
            );
        }
    }

    /// Parses hex digits, ignoring whitespace and `|` separators, as written in the reference.
    pub(crate) fn hex(text: &str) -> Vec<u8> {
        let digits: String = text.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        assert_eq!(digits.len() % 2, 0, "odd number of hex digits in {text:?}");
        (0..digits.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("test hex"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::hex;
    use super::*;
    use proptest::prelude::*;

    const FFFD: char = char::REPLACEMENT_CHARACTER;

    /// Vectors checked against JDK 17's `new String(bytes, StandardCharsets.UTF_8)`.
    #[test]
    fn java_utf8_lossy_matches_jdk17_vectors() {
        let cases: &[(&str, &[char])] = &[
            ("eda080", &[FFFD]),
            ("eda0", &[FFFD]),
            ("eda041", &[FFFD, 'A']),
            ("edbf", &[FFFD]),
            ("edbfbf41", &[FFFD, 'A']),
            ("eda080edb080", &[FFFD, FFFD]),
            ("edaf80", &[FFFD]),
            ("eda0c3a9", &[FFFD, 'é']),
            ("61eda0", &['a', FFFD]),
            ("f0eda080", &[FFFD, FFFD]),
            ("e0eda080", &[FFFD, FFFD]),
            ("ed9fbf", &['\u{D7FF}']),
            ("ed80", &[FFFD]),
            ("ed", &[FFFD]),
            ("edc0", &[FFFD, FFFD]),
            ("61ffc362e282", &['a', FFFD, FFFD, 'b', FFFD]),
            ("", &[]),
        ];
        for (input, expected) in cases {
            let expected: String = expected.iter().collect();
            assert_eq!(java_utf8_lossy(&hex(input)), expected, "input {input}");
        }
    }

    #[test]
    fn java_utf8_lossy_differs_from_rust_only_on_ed_surrogate_lead() {
        assert_eq!(
            String::from_utf8_lossy(&hex("eda080")),
            "\u{FFFD}".repeat(3)
        );
        assert_eq!(java_utf8_lossy(&hex("eda080")), "\u{FFFD}");
    }

    #[test]
    fn writer_encodes_big_endian_fields_back_to_back() {
        let name = WireStr::new("topic", "é").unwrap();
        let mut writer = Writer::with_size(INT16_SIZE + INT32_SIZE + INT64_SIZE + 4);
        writer.put_i16(-2);
        writer.put_i32(0x0102_0304);
        writer.put_i64(-1);
        writer.put_string(name);
        assert_eq!(
            writer.finish(),
            hex("fffe 01020304 ffffffffffffffff 0002 c3a9")
        );
    }

    #[test]
    fn wire_str_accepts_32767_bytes_and_rejects_32768() {
        let max = "x".repeat(MAX_STRING_LEN);
        assert_eq!(WireStr::new("metadata", &max).unwrap().encoded_len(), 32769);
        let too_long = "x".repeat(MAX_STRING_LEN + 1);
        assert_eq!(
            WireStr::new("metadata", &too_long),
            Err(RecordError::StringTooLong {
                field: "metadata",
                length: 32768
            })
        );
    }

    #[test]
    fn wire_str_limit_counts_utf8_bytes_not_chars() {
        // 16384 two-byte chars = 32768 bytes, over the limit although only 16384 chars.
        let wide = "é".repeat(16384);
        assert!(matches!(
            WireStr::new("group", &wide),
            Err(RecordError::StringTooLong { length: 32768, .. })
        ));
    }

    #[test]
    fn reader_reports_truncation_with_field_and_sizes() {
        let mut reader = Reader::new(&[0, 0, 0]);
        assert_eq!(
            reader.read_i32("partition"),
            Err(RecordError::Truncated {
                field: "partition",
                needed: 4,
                available: 3
            })
        );
        let mut reader = Reader::new(&[0, 5, b'a', b'b']);
        assert_eq!(
            reader.read_string("topic"),
            Err(RecordError::Truncated {
                field: "topic",
                needed: 5,
                available: 2
            })
        );
    }

    #[test]
    fn reader_rejects_negative_string_length() {
        let mut reader = Reader::new(&[0xff, 0xff, b'a']);
        assert_eq!(
            reader.read_string("topic"),
            Err(RecordError::NegativeStringLength {
                field: "topic",
                length: -1
            })
        );
    }

    #[test]
    fn reader_leaves_trailing_bytes_unread() {
        let mut reader = Reader::new(&[0, 1, b'a', 0, 0, 0, 7, 9, 9]);
        assert_eq!(reader.read_string("topic").unwrap(), "a");
        assert_eq!(reader.read_i32("partition").unwrap(), 7);
        assert_eq!(reader.remaining(), 2);
    }

    #[test]
    fn reader_decodes_malformed_string_bytes_lossily() {
        let mut reader = Reader::new(&[0, 3, 0xed, 0xa0, 0x80]);
        assert_eq!(reader.read_string("topic").unwrap(), "\u{FFFD}");
    }

    #[test]
    fn unsigned_varints_match_kafka_byte_for_byte() {
        let cases: &[(u32, &str)] = &[
            (0, "00"),
            (1, "01"),
            (127, "7f"),
            (128, "8001"),
            (200, "c801"),
            (16384, "808001"),
            (u32::MAX, "ffffffff0f"),
        ];
        for (value, bytes) in cases {
            let bytes = hex(bytes);
            assert_eq!(unsigned_varint_len(*value), bytes.len(), "{value}");
            let mut writer = Writer::with_size(bytes.len());
            writer.put_unsigned_varint(*value);
            assert_eq!(writer.finish(), bytes, "{value}");
            let mut reader = Reader::new(&bytes);
            assert_eq!(reader.read_unsigned_varint("n"), Ok(*value));
            assert_eq!(reader.remaining(), 0);
        }
    }

    #[test]
    fn unsigned_varints_past_32_bits_are_malformed_and_cut_ones_truncated() {
        for bytes in ["ffffffff1f", "8080808080"] {
            assert!(matches!(
                Reader::new(&hex(bytes)).read_unsigned_varint("n"),
                Err(RecordError::Malformed { field: "n", .. })
            ));
        }
        assert!(matches!(
            Reader::new(&hex("8080")).read_unsigned_varint("n"),
            Err(RecordError::Truncated { field: "n", .. })
        ));
    }

    #[test]
    fn compact_strings_and_tagged_fields_are_read_and_skipped() {
        let bytes = hex("03 6869 02 05 03 010203 c801 00 ff");
        let mut reader = Reader::new(&bytes);
        assert_eq!(reader.read_compact_str("s").unwrap(), "hi");
        assert_eq!(reader.skip_tagged_fields("tags"), Ok(2));
        assert_eq!(reader.remaining(), 1);
        assert!(matches!(
            Reader::new(&hex("00")).read_compact_str("s"),
            Err(RecordError::Malformed { field: "s", .. })
        ));
        assert!(matches!(
            Reader::new(&hex("01 05 09 01")).skip_tagged_fields("tags"),
            Err(RecordError::Truncated { field: "tags", .. })
        ));
    }

    proptest! {
        #[test]
        fn read_str_equals_read_string_and_borrows_valid_utf8(
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            declared in prop_oneof![Just(None), (-2i16..45).prop_map(Some)],
        ) {
            let length = declared.unwrap_or(bytes.len() as i16);
            let mut buf = length.to_be_bytes().to_vec();
            buf.extend_from_slice(&bytes);
            let owned = Reader::new(&buf).read_string("topic");
            let borrowed = Reader::new(&buf).read_str("topic");
            prop_assert_eq!(owned.clone(), borrowed.clone().map(Cow::into_owned));
            if let Ok(text) = &borrowed {
                // Copied exactly when the bytes are not valid UTF-8 (the case Java repairs).
                let raw = &buf[2..2 + length as usize];
                prop_assert_eq!(matches!(text, Cow::Borrowed(_)), std::str::from_utf8(raw).is_ok());
            }
        }

        #[test]
        fn java_utf8_lossy_equals_from_utf8_lossy_on_valid_utf8(text in ".{0,200}") {
            prop_assert_eq!(java_utf8_lossy(text.as_bytes()), text);
        }

        #[test]
        fn java_utf8_lossy_never_panics_and_replaces_at_most_once_per_byte(
            bytes in proptest::collection::vec(any::<u8>(), 0..64)
        ) {
            let decoded = java_utf8_lossy(&bytes);
            prop_assert!(decoded.chars().count() <= bytes.len());
            if !bytes.contains(&0xED) {
                prop_assert_eq!(decoded, String::from_utf8_lossy(&bytes));
            }
        }

        #[test]
        fn string_round_trips(text in ".{0,300}") {
            let value = WireStr::new("topic", &text).unwrap();
            let mut writer = Writer::with_size(value.encoded_len());
            writer.put_string(value);
            let bytes = writer.finish();
            let mut reader = Reader::new(&bytes);
            prop_assert_eq!(reader.read_string("topic").unwrap(), text);
            prop_assert_eq!(reader.remaining(), 0);
        }
    }
}
