//! Reads a range of offsets of partition 0 of a topic, with one header of each record: what the
//! checkpoint task reads back of records other writers put between its own. Every wait is a batch
//! read of the consumer queue that a stop wakes, as in the internal-topic reader.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::time::{Duration, Instant};

use rdkafka::client::Client;

use super::client_log::ClientLog;
use super::kafka_based_log::{open_reader_client, BATCH};
use super::WakeableClient;
use crate::librdkafka::batch::{self, BatchBuffer, Batched};
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::error::Error;

/// Longest single wait; a stop wakes it earlier.
const WAIT_SLICE: Duration = Duration::from_millis(200);

/// One record read: its offset, key, value and the header asked for (`None`: absent or null).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeRecord {
    /// The record's offset in its partition.
    pub offset: i64,
    /// Its key.
    pub key: Option<Vec<u8>>,
    /// Its value.
    pub value: Option<Vec<u8>>,
    /// The value of the header the reader was asked for.
    pub header: Option<Vec<u8>>,
}

/// A reader of offset ranges of partition 0 of one topic.
pub struct RangeReader {
    consumer: WakeableClient<Client<ClientLog>>,
    topic: String,
    header: CString,
    signal: StopSignal,
    /// Where the consumer is assigned to read next, if assigned.
    position: Option<i64>,
    buf: BatchBuffer,
}

impl RangeReader {
    /// Creates the consumer (no blocking I/O); records are read with header `header`.
    pub fn open(
        settings: &BTreeMap<String, String>,
        topic: &str,
        header: &str,
        role: &'static str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        Ok(RangeReader {
            consumer: open_reader_client(settings, topic, role, signal)?,
            topic: topic.to_string(),
            header: CString::new(header).unwrap_or_default(),
            signal: signal.clone(),
            position: None,
            buf: BatchBuffer::new(BATCH),
        })
    }

    /// Reads the records of offsets `from..to` (those still in the log) until the range is read
    /// or `budget` has passed; returns them in order, and the offset to read from next (`to`
    /// once the range is read). [`Error::Stopped`] on a stop; an error only when the consumer
    /// cannot be assigned.
    pub fn read(
        &mut self,
        from: i64,
        to: i64,
        budget: Duration,
    ) -> Result<(Vec<RangeRecord>, i64), Error> {
        if from >= to {
            return Ok((Vec::new(), to));
        }
        if self.position != Some(from) {
            let topic = self.topic.as_str();
            self.consumer
                .call(|c| batch::assign_at_apart(c, topic, &[(0, from)]))
                .map_err(|e| Error::kafka(format!("assigning `{topic}`-0 at {from}"), e))?;
            self.position = Some(from);
        }
        let began = Instant::now();
        let mut next = from;
        let mut records = Vec::new();
        while next < to {
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            let left = budget.saturating_sub(began.elapsed());
            if left.is_zero() {
                break;
            }
            let header = self.header.as_c_str();
            let end = batch::consume_batch(
                self.consumer.queue(),
                left.min(WAIT_SLICE),
                BATCH,
                &mut self.buf,
                |b| {
                    let mut end = None;
                    for (index, m) in b.iter().enumerate() {
                        match m {
                            Batched::Record {
                                offset, key, value, ..
                            } => {
                                if offset < to {
                                    records.push(RangeRecord {
                                        offset,
                                        key: key.map(<[u8]>::to_vec),
                                        value: value.map(<[u8]>::to_vec),
                                        header: b.header(index, header).map(<[u8]>::to_vec),
                                    });
                                }
                                end = Some(end.unwrap_or(offset + 1).max(offset + 1));
                            }
                            // Offsets up to the end exist no more (compacted, or transaction
                            // markers): nothing to read there.
                            Batched::PartitionEof { offset, .. } => {
                                end = Some(end.unwrap_or(offset).max(offset));
                            }
                            Batched::Error(e) => log::debug!("reading `{}`-0: {e}", self.topic),
                        }
                    }
                    end
                },
            );
            if let Some(events) = self.consumer.events() {
                let mut errors = Vec::new();
                self.consumer
                    .call(|c| batch::client_events(c, events, &mut errors));
                for e in errors {
                    log::debug!("reading `{}`: {e}", self.topic);
                }
            }
            if let Some(end) = end {
                next = next.max(end);
            }
        }
        self.position = Some(next);
        Ok((records, next.min(to)))
    }
}
