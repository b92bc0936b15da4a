//! Typed errors of the pure core. The runtime's [`crate::Error`]-style errors wrap these.

use thiserror::Error;

/// Why a record could not be encoded or decoded. Decoders return this instead of panicking.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// The buffer ended before a field could be read.
    #[error("truncated record: field `{field}` needs {needed} bytes, {available} left")]
    Truncated {
        /// Name of the field being read (MM2's schema field name).
        field: &'static str,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the buffer.
        available: usize,
    },
    /// A STRING field had a negative INT16 length.
    #[error("field `{field}` has a negative string length {length}")]
    NegativeStringLength {
        /// Name of the field.
        field: &'static str,
        /// The length read.
        length: i16,
    },
    /// A string is longer than the 32767 bytes an INT16 length can describe.
    #[error(
        "field `{field}` is {length} bytes of UTF-8, larger than the maximum string length 32767"
    )]
    StringTooLong {
        /// Name of the field.
        field: &'static str,
        /// Its UTF-8 length.
        length: usize,
    },
    /// The key or value is absent (a tombstone); MM2 never writes these.
    #[error("record has no {part} (tombstone)")]
    Tombstone {
        /// `"key"` or `"value"`.
        part: &'static str,
    },
}

/// A configuration value that cannot be used; names the key and the reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid value for configuration `{key}`: {reason}")]
pub struct ConfigError {
    /// The MM2 property name, as the user wrote it.
    pub key: String,
    /// Why the value was rejected.
    pub reason: String,
}

impl ConfigError {
    /// Makes an error for `key` with `reason`.
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            reason: reason.into(),
        }
    }
}
