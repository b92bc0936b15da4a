//! The record decoders of mm2-checkpoint, from its Kafka-free core crate.
//!
//! The decoders live in `mm2-checkpoint-core` (`src/core`), which knows nothing of Kafka I/O.
//! Depending on the whole `mm2-checkpoint` crate would also build librdkafka from C source under
//! the fuzzer's instrumentation flags: minutes on a 2-core machine, for code the fuzz targets
//! never call. The core crate has no C code among its dependencies, so the fuzz targets depend
//! on it alone.

#![allow(missing_docs)]

pub use mm2_checkpoint_core::{wire, Checkpoint, OffsetSync, TopicPartition};
