//! The record decoders of mm2-checkpoint, from its Kafka-free core crate.
//!
//! The decoders live in `mm2-checkpoint-core` (`crates/core`), which knows nothing of Kafka I/O.
//! Depending on the whole `mm2-checkpoint` crate would also build librdkafka from C source under
//! the fuzzer's instrumentation flags: minutes on a 2-core machine, for code the fuzz targets
//! never call. The core crate has no C code among its dependencies, so the fuzz targets depend
//! on it alone.

#![allow(missing_docs)]

pub use mm2_checkpoint_core::{consumer_offsets, wire, Checkpoint, OffsetSync, TopicPartition};

/// Splits a fuzz input into a record's key and value: byte 0 picks which parts are present
/// (bit 0 clear = key present, bit 1 clear = value present, so tombstones are reached), bytes
/// 1-2 give the split point (big-endian, taken modulo the remaining length + 1), the rest is
/// split there. `None` for inputs shorter than 3 bytes.
pub fn key_and_value(data: &[u8]) -> Option<(Option<&[u8]>, Option<&[u8]>)> {
    let [flags, hi, lo, rest @ ..] = data else {
        return None;
    };
    let split = usize::from(u16::from_be_bytes([*hi, *lo])) % (rest.len() + 1);
    let (key, value) = rest.split_at(split);
    Some((
        (flags & 1 == 0).then_some(key),
        (flags & 2 == 0).then_some(value),
    ))
}
