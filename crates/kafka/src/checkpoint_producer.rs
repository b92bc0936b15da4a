//! Writes checkpoint records to the target's checkpoints topic (partition 0, as MM2 does) and waits
//! for their delivery, so the checkpoint store records only what reached the broker.
//!
//! Each record carries the header [`WRITER_HEADER`], naming the process and task that wrote it, so
//! that another writer of the same checkpoints can be named (Java MM2 ignores record headers
//! there, as it writes none).
//!
//! rust-rdkafka's producer poll always runs to its deadline, so delivery waits use short slices
//! (`DELIVERY_SLICE`) and check the stop flag between them: a stop is seen within one slice.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{DeliveryResult, Header, Message, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext};

use super::client_log::ClientLog;
use super::producer_drop::purge_before_drop;
use super::{producer_config, Owned};
use crate::failure::{classify, client_creation_error, kafka_error, Retry, RetryStatus};
use crate::mutex::lock;
use crate::slow_wait::{self, SlowWait};
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::error::Error;

/// Longest wait between two looks at the stop flag while waiting for deliveries.
const DELIVERY_SLICE: Duration = Duration::from_millis(5);

/// The record header naming a checkpoint's writer: `mm2-checkpoint <version> on <host> (pid <pid>,
/// task <id>)`.
pub const WRITER_HEADER: &str = "mm2-checkpoint-writer";

/// A checkpoint record the broker confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When the confirmation was served, in ms since the epoch (for MM2's
    /// `checkpoint-latency-ms`).
    pub at_ms: i64,
    /// The record's offset in partition 0.
    pub offset: i64,
}

/// A record's outcome: its delivery, or the error.
pub type Outcome = Result<Delivery, String>;

/// Collects delivery outcomes by record index.
pub struct DeliveryLog {
    outcomes: Arc<Mutex<BTreeMap<usize, Outcome>>>,
    /// The first delivery failure that retrying cannot fix (kafka/failure.rs), e.g. no WRITE
    /// ACL on the topic, with its code.
    fatal: Arc<Mutex<Option<(RDKafkaErrorCode, String)>>>,
    log: ClientLog,
    /// Set while the producer is dropped: the reports of the records it purges are not kept.
    dropping: AtomicBool,
}

impl ClientContext for DeliveryLog {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, text: &str) {
        self.log.log(level, facility, text);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        self.log.error(error, reason);
    }
}

impl ProducerContext for DeliveryLog {
    type DeliveryOpaque = Box<usize>;

    fn delivery(&self, result: &DeliveryResult<'_>, index: Self::DeliveryOpaque) {
        if self.dropping.load(Ordering::Relaxed) {
            return;
        }
        let outcome = match result {
            Ok(m) => Ok(Delivery {
                at_ms: delivered_at_ms(),
                offset: m.offset(),
            }),
            Err((e, _)) => {
                if let Some(code) = e.rdkafka_error_code() {
                    let text = e.to_string();
                    if classify(code, &text) == Retry::Fatal {
                        lock(&self.fatal).get_or_insert((code, text));
                    }
                }
                Err(e.to_string())
            }
        };
        lock(&self.outcomes).insert(*index, outcome);
    }
}

/// A producer for one checkpoints topic.
pub struct CheckpointProducer {
    producer: Owned<BaseProducer<DeliveryLog>>,
    outcomes: Arc<Mutex<BTreeMap<usize, Outcome>>>,
    fatal: Arc<Mutex<Option<(RDKafkaErrorCode, String)>>>,
    topic: String,
    /// The value of every record's [`WRITER_HEADER`].
    writer: String,
    signal: StopSignal,
    /// Where writes left unconfirmed are reported: the target cluster's alias and the status.
    slow_writes: Option<(String, RetryStatus)>,
    /// How long a batch may wait for its confirmations before that is warned about.
    slow_after: Duration,
    /// Whether the last batch had writes that failed (their reason is still shown).
    failed_last: bool,
}

/// librdkafka's default `message.timeout.ms`.
const DEFAULT_MESSAGE_TIMEOUT: Duration = Duration::from_secs(300);

impl CheckpointProducer {
    /// Creates the producer (no blocking I/O); `writer` names this writer in every record.
    pub fn open(
        settings: &BTreeMap<String, String>,
        topic: &str,
        writer: &str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let context = DeliveryLog {
            outcomes: Arc::default(),
            fatal: Arc::default(),
            log: ClientLog::new(settings),
            dropping: AtomicBool::new(false),
        };
        let outcomes = Arc::clone(&context.outcomes);
        let fatal = Arc::clone(&context.fatal);
        // A delivery wait holds up a poll.
        let config = producer_config(settings);
        let producer: BaseProducer<DeliveryLog> =
            config.create_with_context(context).map_err(|e| {
                client_creation_error(
                    format!("creating the checkpoints producer for `{topic}`"),
                    e,
                )
            })?;
        let message_timeout = config
            .get("message.timeout.ms")
            .and_then(|ms| ms.parse::<u64>().ok())
            .map_or(DEFAULT_MESSAGE_TIMEOUT, Duration::from_millis);
        Ok(CheckpointProducer {
            producer: Owned::new(producer, "checkpoints producer", signal),
            outcomes,
            fatal,
            topic: topic.to_string(),
            writer: writer.to_string(),
            signal: signal.clone(),
            slow_writes: None,
            slow_after: slow_wait::threshold(message_timeout),
            failed_last: false,
        })
    }

    /// Reports a batch left unconfirmed past a third of `message.timeout.ms` (10 s at most) into
    /// `status` while the wait lasts ("cluster `B`: N checkpoint writes to `T` unconfirmed for
    /// N s"); it is warned about in the log either way.
    pub fn report_slow_writes(mut self, cluster: &str, status: RetryStatus) -> Self {
        self.slow_writes = Some((cluster.to_string(), status));
        self
    }

    /// Starts a batch of records, numbered from 0 as they are sent: forgets the last batch's
    /// outcomes.
    pub fn begin(&mut self) {
        lock(&self.outcomes).clear();
    }

    /// Hands record `index` of the batch to librdkafka, serving delivery reports while its
    /// queue is full; a record librdkafka refuses gets its error as its outcome. Returns at
    /// once otherwise: the wait for delivery is [`finish`](Self::finish)'s.
    pub fn send(
        &mut self,
        index: usize,
        key: &[u8],
        value: &[u8],
        timestamp_ms: i64,
    ) -> Result<(), Error> {
        loop {
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            let record = BaseRecord::with_opaque_to(&self.topic, Box::new(index))
                .partition(0)
                .key(key)
                .payload(value)
                .timestamp(timestamp_ms)
                .headers(OwnedHeaders::new_with_capacity(1).insert(Header {
                    key: WRITER_HEADER,
                    value: Some(self.writer.as_bytes()),
                }));
            match self.producer.call(|p| p.send(record).map_err(|(e, _)| e)) {
                Ok(()) => return Ok(()),
                Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)) => {
                    self.producer.call(|p| p.poll(DELIVERY_SLICE));
                }
                Err(e) => {
                    lock(&self.outcomes).insert(index, Err(e.to_string()));
                    return Ok(());
                }
            }
        }
    }

    /// Waits until each of the batch's `count` records is delivered or failed; returns one
    /// outcome per record, in order (its delivery, or the error); [`Error::Stopped`] if the task stopped first; a fatal error
    /// naming the topic when a record failed for a reason retrying cannot fix (a denied WRITE
    /// ACL, say), since every later write would fail the same way.
    pub fn finish(&mut self, count: usize) -> Result<Vec<Outcome>, Error> {
        let mut wait = SlowWait::new(self.slow_after);
        loop {
            let confirmed = lock(&self.outcomes).len();
            if confirmed >= count {
                break;
            }
            if self.signal.is_stopped() {
                self.end_slow(&mut wait);
                return Err(Error::Stopped);
            }
            if wait.is_due() {
                self.tell_slow(count - confirmed, &mut wait);
            }
            self.producer.call(|p| p.poll(DELIVERY_SLICE));
        }
        self.end_slow(&mut wait);
        if let Some((code, text)) = lock(&self.fatal).take() {
            return Err(kafka_error(
                format!("writing checkpoints to `{}`", self.topic),
                code,
                &text,
            ));
        }
        let mut outcomes = lock(&self.outcomes);
        let batch: Vec<Outcome> = (0..count)
            .map(|i| {
                outcomes
                    .remove(&i)
                    .unwrap_or_else(|| Err("no delivery report".into()))
            })
            .collect();
        drop(outcomes);
        // Writes that failed (a target cut off past `message.timeout.ms`) stay in the retry
        // reason until a batch is confirmed in full.
        if let Some((cluster, status)) = &self.slow_writes {
            let failed: Vec<&String> = batch.iter().filter_map(|o| o.as_ref().err()).collect();
            if let Some(first) = failed.first() {
                status.set(format!(
                    "cluster `{cluster}`: {} checkpoint writes to `{}` failed: {first}; retrying at the next cycle",
                    failed.len(),
                    self.topic
                ));
            } else if count > 0 && self.failed_last {
                status.clear();
            }
            self.failed_last = !failed.is_empty();
        }
        Ok(batch)
    }
}

impl Drop for CheckpointProducer {
    fn drop(&mut self) {
        // A stop inside a cycle leaves the batch's records queued or in flight (100,000 for
        // 10,000 groups): their reports are dropped unread.
        self.producer.call(|p| {
            p.context().dropping.store(true, Ordering::Relaxed);
            purge_before_drop(p);
        });
    }
}

impl CheckpointProducer {
    /// The cluster the writes go to, as the retry reason names it.
    fn target(&self) -> &str {
        self.slow_writes
            .as_ref()
            .map_or("target", |(c, _)| c.as_str())
    }

    /// Warns that `unconfirmed` writes of the batch whose `wait` is due wait, and reports it.
    fn tell_slow(&self, unconfirmed: usize, wait: &mut SlowWait) {
        let cluster = self.target();
        log::warn!(
            "cluster `{cluster}`: {unconfirmed} checkpoint writes to `{}` unconfirmed for {:.1} s; still waiting",
            self.topic,
            wait.seconds()
        );
        wait.tell(
            self.slow_writes.as_ref().map(|(_, status)| status),
            || {
                format!(
                    "cluster `{cluster}`: {unconfirmed} checkpoint writes to `{}` unconfirmed for ",
                    self.topic
                )
            },
            " s",
        );
    }

    /// The wait that was told about ended (confirmed, failed or stopped): the reason goes.
    fn end_slow(&self, wait: &mut SlowWait) {
        if let Some(seconds) = wait.end(self.slow_writes.as_ref().map(|(_, status)| status)) {
            log::info!(
                "cluster `{}`: the checkpoint writes to `{}` ended their wait after {seconds:.1} s",
                self.target(),
                self.topic
            );
        }
    }
}

fn delivered_at_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
