//! Reads the source cluster's `__consumer_offsets` topic as a stream, every partition from the
//! beginning, for `group.offsets.source = consumer-offsets-topic`.
//!
//! The consumer is a reader client like [`KafkaBasedLog`](super::kafka_based_log)'s: assigned,
//! never joined, never committing, read in batches from a queue a stop wakes. It reads with
//! `isolation.level = read_committed` (set by the configuration), so a transactional offset
//! commit is seen once its transaction commits, and never when it aborts.
//!
//! The topic exists only once some group has looked up its coordinator, so a fresh cluster may
//! have none yet: the reader then checks again now and then, and assigns it when it appears.
//! A principal without DESCRIBE on the topic learns so from the metadata, one without READ from
//! the first Fetch; both are [`Error::Fatal`] naming the ACL, for the runtime to decide.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use rdkafka::client::Client;
use rdkafka::error::RDKafkaErrorCode;

use super::client_log::ClientLog;
use super::kafka_based_log::{concerns_unused_group, open_reader_client, ApplyRecords, BATCH};
use super::WakeableClient;
use crate::failure::{classify, Retry};
use crate::librdkafka::batch::{self, BatchBuffer, Batched};
use crate::librdkafka::{cached_high_watermark, NativeError};
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::consumer_offsets::CONSUMER_OFFSETS_TOPIC;
use mm2_checkpoint_core::error::Error;

/// Longest single wait inside a poll; a stop wakes it earlier through the queue yield.
const POLL_SLICE: Duration = Duration::from_millis(500);

/// How often a missing topic is looked for again.
const MISSING_TOPIC_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Longest wait for a metadata answer once the reader runs. librdkafka's metadata call cannot be
/// woken, so this bounds how long a stop can wait should it land inside one.
const METADATA_TIMEOUT: Duration = Duration::from_millis(200);

/// The role named in the client id and in errors.
const ROLE: &str = "consumer-offsets-source-consumer";

/// What the ACL error says, so an operator knows what to grant.
pub const ACL_NEEDED: &str =
    "the principal needs READ and DESCRIBE on topic `__consumer_offsets` for group.offsets.source = consumer-offsets-topic";

/// The reader; see the module documentation. Belongs to one thread at a time.
pub struct ConsumerOffsetsReader {
    consumer: WakeableClient<Client<ClientLog>>,
    signal: StopSignal,
    /// Partitions assigned; empty until the topic exists.
    partitions: Vec<i32>,
    /// Partitions not yet read to their end once.
    behind: BTreeSet<i32>,
    /// Partitions whose latest event was their end, with the offset of that end.
    at_end: BTreeMap<i32, i64>,
    next_topic_check: Instant,
    buf: BatchBuffer,
    /// Records read so far.
    pub records_read: u64,
}

impl ConsumerOffsetsReader {
    /// Creates the consumer and asks for the topic's partitions, waiting up to `timeout` for the
    /// answer. Fails, naming the ACL, when the broker denies the topic's metadata.
    pub fn open(
        settings: &BTreeMap<String, String>,
        signal: &StopSignal,
        timeout: Duration,
    ) -> Result<Self, Error> {
        let consumer = open_reader_client(settings, CONSUMER_OFFSETS_TOPIC, ROLE, signal)?;
        let mut reader = ConsumerOffsetsReader {
            consumer,
            signal: signal.clone(),
            partitions: Vec::new(),
            behind: BTreeSet::new(),
            at_end: BTreeMap::new(),
            next_topic_check: Instant::now(),
            buf: BatchBuffer::new(BATCH),
            records_read: 0,
        };
        reader.assign_when_present(timeout)?;
        Ok(reader)
    }

    /// Looks the topic up (bounded by `timeout`) and assigns every partition from the start once
    /// it exists. An unanswered lookup is tried again later.
    fn assign_when_present(&mut self, timeout: Duration) -> Result<(), Error> {
        self.next_topic_check = Instant::now() + MISSING_TOPIC_CHECK_EVERY;
        let md = self
            .consumer
            .call(|c| c.fetch_metadata(Some(CONSUMER_OFFSETS_TOPIC), timeout));
        let md = match md {
            Ok(md) => md,
            Err(e) => {
                log::debug!("metadata for `{CONSUMER_OFFSETS_TOPIC}`: {e}");
                return Ok(());
            }
        };
        let Some(topic) = md
            .topics()
            .iter()
            .find(|t| t.name() == CONSUMER_OFFSETS_TOPIC)
        else {
            return Ok(());
        };
        if let Some(code) = topic.error().map(RDKafkaErrorCode::from) {
            if classify(code, "") == Retry::Fatal {
                return Err(denied(code));
            }
            return Ok(());
        }
        let partitions: Vec<i32> = topic.partitions().iter().map(|p| p.id()).collect();
        if partitions.is_empty() {
            return Ok(());
        }
        self.consumer
            .call(|c| {
                batch::assign_partitions_from_start_apart(c, CONSUMER_OFFSETS_TOPIC, &partitions)
            })
            .map_err(|e| Error::kafka(format!("assigning `{CONSUMER_OFFSETS_TOPIC}`"), e))?;
        log::info!(
            "reading `{CONSUMER_OFFSETS_TOPIC}` ({} partitions) from the beginning",
            partitions.len()
        );
        self.behind = partitions.iter().copied().collect();
        self.partitions = partitions;
        Ok(())
    }

    /// Whether every partition was read to its end at least once (the end as the first Fetch
    /// of each saw it): the commits made before the reader started are all applied. False while
    /// the topic does not exist.
    pub fn caught_up(&self) -> bool {
        !self.partitions.is_empty() && self.behind.is_empty()
    }

    /// The partitions of the topic there are.
    pub fn partition_count(&self) -> usize {
        self.partitions.len()
    }

    /// The partitions held below their high watermark by an open transaction: the reader stands
    /// at the end a Fetch allows (the last stable offset), while the high watermark of the same
    /// Fetch is beyond it. Each with that end and the high watermark. No request is made.
    pub fn held_partitions(&self) -> BTreeMap<i32, (i64, i64)> {
        self.at_end
            .iter()
            .filter_map(|(&partition, &end)| {
                let high = self
                    .consumer
                    .call(|c| cached_high_watermark(c, CONSUMER_OFFSETS_TOPIC, partition))?;
                (high > end).then_some((partition, (end, high)))
            })
            .collect()
    }

    /// Waits up to `max_wait` for records and hands each batch to `apply` (key and value, `None`
    /// = null), taking what is already fetched without waiting again; returns how many records.
    /// Returns early (with what it read) on stop, and an error only for a failure retrying
    /// cannot fix, such as a denied READ.
    pub fn poll(
        &mut self,
        max_wait: Duration,
        apply: &mut ApplyRecords<'_>,
    ) -> Result<usize, Error> {
        if self.partitions.is_empty() {
            if Instant::now() >= self.next_topic_check {
                self.assign_when_present(METADATA_TIMEOUT)?;
            }
            if self.partitions.is_empty() {
                self.signal.sleep(max_wait.min(MISSING_TOPIC_CHECK_EVERY));
                return Ok(0);
            }
        }
        let mut total = 0;
        let mut wait = max_wait.min(POLL_SLICE);
        while !self.signal.is_stopped() {
            let (records, errors) =
                self.read_batch(wait, if wait.is_zero() { BATCH } else { 1 }, apply);
            total += records;
            for e in &errors {
                if concerns_unused_group(e.code) {
                    log::debug!(
                        "reading `{CONSUMER_OFFSETS_TOPIC}`: {e}; the reader's group is never used"
                    );
                } else if classify(e.code, &e.message) == Retry::Fatal {
                    return Err(denied(e.code));
                } else {
                    log::debug!("reading `{CONSUMER_OFFSETS_TOPIC}`: {e}; retrying");
                }
            }
            if records == 0 {
                break;
            }
            wait = Duration::ZERO;
        }
        Ok(total)
    }

    /// One batch: applies its records, notes partition ends, returns the record count and the
    /// partition and client errors.
    fn read_batch(
        &mut self,
        wait: Duration,
        max: usize,
        apply: &mut ApplyRecords<'_>,
    ) -> (usize, Vec<NativeError>) {
        let behind = &mut self.behind;
        let at_end = &mut self.at_end;
        let (records, mut errors) =
            batch::consume_batch(self.consumer.queue(), wait, max, &mut self.buf, |b| {
                let mut records = 0;
                let mut errors = Vec::new();
                for m in b.iter() {
                    match m {
                        Batched::Record { partition, .. } => {
                            records += 1;
                            at_end.remove(&partition);
                        }
                        Batched::PartitionEof { partition, offset } => {
                            behind.remove(&partition);
                            at_end.insert(partition, offset);
                        }
                        Batched::Error(e) => errors.push(e),
                    }
                }
                if records > 0 {
                    let mut iter = b.iter().filter_map(|m| match m {
                        Batched::Record { key, value, .. } => Some((key, value)),
                        _ => None,
                    });
                    apply(&mut iter);
                }
                (records, errors)
            });
        if let Some(events) = self.consumer.events() {
            self.consumer
                .call(|c| batch::client_events(c, events, &mut errors));
        }
        self.records_read += records as u64;
        (records, errors)
    }
}

/// The error for a denied (or otherwise fatal) read of the topic.
fn denied(code: RDKafkaErrorCode) -> Error {
    let message = match code {
        RDKafkaErrorCode::TopicAuthorizationFailed => ACL_NEEDED.to_string(),
        other => format!("{other:?}"),
    };
    Error::fatal(format!("reading `{CONSUMER_OFFSETS_TOPIC}`"), message)
}
