//! Everything that crosses a foreign boundary, and the only place with `unsafe`:
//! [`librdkafka`] calls into librdkafka that rust-rdkafka does not wrap.
#![allow(unsafe_code)]

pub mod librdkafka;
