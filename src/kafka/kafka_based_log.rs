//! The Rust counterpart of Connect's `KafkaBasedLog`, read-only: reads partition 0 of an internal
//! topic from the beginning, first to the end (read-to-end), then onwards (tailing).
//!
//! Differences from Java, each on purpose:
//! - The consumer belongs to whichever thread holds the `KafkaBasedLog` value; it moves between
//!   threads only by value (start-up thread → tail thread → the stopper, after a join). There is
//!   no window in which two threads can reach it (KAFKA-21435).
//! - Every wait is a consumer poll that a stop wakes through librdkafka's queue yield.
//! - The end is the high watermark of the first Fetch response, not a ListOffsets answer: some
//!   brokers report a "latest" offset behind their log, and a Fetch is what the reader trusts
//!   anyway. Reaching that end, or a partition EOF, completes read-to-end; records already
//!   fetched with the last batch are drained before returning.
//! - A record that fails to decode is skipped and counted by the caller's `apply`; it never loses
//!   the rest of its batch.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

use super::{client_config, Owned};
use crate::error::Error;
use crate::ffi::librdkafka::{self, Polled, QueueHandle};
use crate::stop_signal::{StopSignal, WakeRegistration};

/// Longest single wait inside a poll; a stop wakes it earlier through the queue yield, so this
/// only bounds the wait should a wake ever be missed.
const POLL_SLICE: Duration = Duration::from_millis(500);

/// How long read-to-end waits for the first sign of the topic (a record, an EOF or an error)
/// before checking whether the topic exists at all.
const FIRST_SIGN_WAIT: Duration = Duration::from_secs(5);

/// Receives each record's key and value (`None` = null).
pub(crate) type ApplyRecord<'a> = dyn FnMut(Option<&[u8]>, Option<&[u8]>) + 'a;

/// How read-to-end ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadToEnd {
    /// Everything up to the end captured at start was applied.
    Reached,
    /// The topic does not exist (nothing to read).
    TopicMissing,
}

/// A reader of partition 0 of one topic.
pub(crate) struct KafkaBasedLog {
    // Field order is drop order: unregister the wake, release the queue, then destroy the client.
    _registration: WakeRegistration,
    _queue: Arc<QueueHandle>,
    consumer: Owned<BaseConsumer>,
    topic: String,
    signal: StopSignal,
    /// Records applied so far.
    pub(crate) records_read: u64,
}

impl KafkaBasedLog {
    /// Creates the consumer and assigns partition 0 from the beginning. Does no I/O that blocks.
    pub(crate) fn open(
        settings: &BTreeMap<String, String>,
        topic: &str,
        role: &'static str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let mut config = client_config(settings);
        // librdkafka's consumer poll needs a group handle; the group is never joined (assign,
        // not subscribe) and nothing is committed.
        if config.get("group.id").is_none() {
            config.set("group.id", format!("mm2-checkpoint-{role}"));
        }
        config
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "true")
            .set("auto.offset.reset", "earliest");
        let consumer: BaseConsumer = config
            .create()
            .map_err(|e| Error::kafka(format!("creating the {role} for `{topic}`"), e))?;
        let consumer = Owned::new(consumer, role, signal);
        let mut tpl = TopicPartitionList::new();
        // Offset 0, not "beginning": a logical offset needs a ListOffsets lookup, which
        // librdkafka first tries before it knows the partition leader and then retries only
        // after a fixed 500 ms. A log that no longer starts at 0 answers "out of range" and
        // auto.offset.reset=earliest moves to its start, as "beginning" would.
        tpl.add_partition_offset(topic, 0, Offset::Offset(0))
            .map_err(|e| Error::kafka(format!("assigning `{topic}`-0"), e))?;
        consumer
            .call(|c| c.assign(&tpl))
            .map_err(|e| Error::kafka(format!("assigning `{topic}`-0"), e))?;
        let queue = consumer
            .call(|c| QueueHandle::consumer_queue(c.client()))
            .map(Arc::new)
            .ok_or_else(|| Error::kafka(format!("reading `{topic}`"), "no consumer queue"))?;
        let registration = signal.register(Arc::clone(&queue));
        Ok(KafkaBasedLog {
            _registration: registration,
            _queue: queue,
            consumer,
            topic: topic.to_string(),
            signal: signal.clone(),
            records_read: 0,
        })
    }

    /// Reads from the beginning to the end captured at start, applying every record.
    /// Returns [`Error::Stopped`] promptly when the task stops.
    pub(crate) fn read_to_end(&mut self, apply: &mut ApplyRecord<'_>) -> Result<ReadToEnd, Error> {
        let started = Instant::now();
        let mut end: Option<i64> = None;
        let mut seen_anything = false;
        // librdkafka repeats client errors such as "all brokers are down" many times a second
        // while a broker is unreachable: warn once per kind of error, not at every repeat.
        let mut warned: Vec<RDKafkaErrorCode> = Vec::new();
        loop {
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            match self.poll_one(POLL_SLICE) {
                Polled::Record {
                    offset, key, value, ..
                } => {
                    seen_anything = true;
                    self.records_read += 1;
                    apply(key.as_deref(), value.as_deref());
                    if end.is_none() {
                        end = self.cached_end();
                    }
                    if end.is_some_and(|e| offset + 1 >= e) {
                        self.drain(apply);
                        return Ok(ReadToEnd::Reached);
                    }
                }
                Polled::PartitionEof { .. } => {
                    self.drain(apply);
                    return Ok(ReadToEnd::Reached);
                }
                Polled::Error(e) if is_missing_topic(e.code) => return Ok(ReadToEnd::TopicMissing),
                Polled::Error(e) => {
                    seen_anything = true;
                    if warned.contains(&e.code) {
                        log::debug!("reading `{}`: {e}; retrying", self.topic);
                    } else {
                        log::warn!("reading `{}`: {e}; retrying", self.topic);
                        warned.push(e.code);
                    }
                }
                Polled::Nothing => {
                    if !seen_anything
                        && started.elapsed() >= FIRST_SIGN_WAIT
                        && !self.topic_exists()?
                    {
                        return Ok(ReadToEnd::TopicMissing);
                    }
                }
            }
        }
    }

    /// Waits up to `max_wait` for records and applies what arrives; returns how many.
    /// Returns early (with 0) on stop.
    pub(crate) fn poll_once(&mut self, max_wait: Duration, apply: &mut ApplyRecord<'_>) -> usize {
        let mut n = 0;
        let mut wait = max_wait.min(POLL_SLICE);
        while !self.signal.is_stopped() {
            match self.poll_one(wait) {
                Polled::Record { key, value, .. } => {
                    n += 1;
                    self.records_read += 1;
                    apply(key.as_deref(), value.as_deref());
                    wait = Duration::ZERO;
                }
                Polled::Error(e) if !is_missing_topic(e.code) => {
                    log::debug!("reading `{}`: {e}", self.topic);
                    break;
                }
                _ => break,
            }
        }
        n
    }

    fn poll_one(&self, timeout: Duration) -> Polled {
        self.consumer
            .call(|c| librdkafka::consumer_poll(c, timeout))
    }

    fn drain(&mut self, apply: &mut ApplyRecord<'_>) {
        while let Polled::Record { key, value, .. } = self.poll_one(Duration::ZERO) {
            self.records_read += 1;
            apply(key.as_deref(), value.as_deref());
        }
    }

    fn cached_end(&self) -> Option<i64> {
        let topic = self.topic.as_str();
        self.consumer
            .call(|c| librdkafka::cached_high_watermark(c, topic, 0))
    }

    fn topic_exists(&self) -> Result<bool, Error> {
        let topic = self.topic.as_str();
        // Bounded, and only reached when a topic showed no sign of life for FIRST_SIGN_WAIT.
        let md = self
            .consumer
            .call(|c| c.fetch_metadata(Some(topic), Duration::from_secs(1)));
        match md {
            Ok(md) => Ok(md
                .topics()
                .iter()
                .any(|t| t.name() == topic && t.error().is_none() && !t.partitions().is_empty())),
            Err(e) => {
                log::debug!("metadata for `{topic}`: {e}");
                Ok(true)
            }
        }
    }

    /// The topic being read.
    pub(crate) fn topic(&self) -> &str {
        &self.topic
    }
}

fn is_missing_topic(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::UnknownTopicOrPartition
            | RDKafkaErrorCode::UnknownTopic
            | RDKafkaErrorCode::UnknownPartition
    )
}
