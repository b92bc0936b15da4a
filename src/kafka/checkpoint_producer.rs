//! Writes checkpoint records to the target's checkpoints topic (partition 0, as MM2 does) and waits
//! for their delivery, so the checkpoint store records only what reached the broker.
//!
//! rust-rdkafka's producer poll always runs to its deadline, so delivery waits use short slices
//! (`DELIVERY_SLICE`) and check the stop flag between them: a stop is seen within one slice.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseProducer, BaseRecord, ProducerContext};

use super::client_log::ClientLog;
use super::{producer_config, Owned};
use crate::core::error::Error;
use crate::kafka::failure::{classify, client_creation_error, kafka_error, Retry};
use crate::kafka::mutex::lock;
use crate::kafka::stop_signal::StopSignal;

/// Longest wait between two looks at the stop flag while waiting for deliveries.
const DELIVERY_SLICE: Duration = Duration::from_millis(5);

/// Collects delivery outcomes by record index: when the broker's confirmation was served (ms
/// since the epoch, for MM2's `checkpoint-latency-ms`), or the error.
pub(crate) struct DeliveryLog {
    outcomes: Arc<Mutex<BTreeMap<usize, Result<i64, String>>>>,
    /// The first delivery failure that retrying cannot fix (kafka/failure.rs), e.g. no WRITE
    /// ACL on the topic, with its code.
    fatal: Arc<Mutex<Option<(RDKafkaErrorCode, String)>>>,
    log: ClientLog,
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
        let outcome = match result {
            Ok(_) => Ok(delivered_at_ms()),
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
pub(crate) struct CheckpointProducer {
    producer: Owned<BaseProducer<DeliveryLog>>,
    outcomes: Arc<Mutex<BTreeMap<usize, Result<i64, String>>>>,
    fatal: Arc<Mutex<Option<(RDKafkaErrorCode, String)>>>,
    topic: String,
    signal: StopSignal,
}

impl CheckpointProducer {
    /// Creates the producer (no blocking I/O).
    pub(crate) fn open(
        settings: &BTreeMap<String, String>,
        topic: &str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let context = DeliveryLog {
            outcomes: Arc::default(),
            fatal: Arc::default(),
            log: ClientLog::new(settings),
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
        Ok(CheckpointProducer {
            producer: Owned::new(producer, "checkpoints producer", signal),
            outcomes,
            fatal,
            topic: topic.to_string(),
            signal: signal.clone(),
        })
    }

    /// Starts a batch of records, numbered from 0 as they are sent: forgets the last batch's
    /// outcomes.
    pub(crate) fn begin(&mut self) {
        lock(&self.outcomes).clear();
    }

    /// Hands record `index` of the batch to librdkafka, serving delivery reports while its
    /// queue is full; a record librdkafka refuses gets its error as its outcome. Returns at
    /// once otherwise: the wait for delivery is [`finish`](Self::finish)'s.
    pub(crate) fn send(
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
                .timestamp(timestamp_ms);
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
    /// outcome per record, in order (the time its delivery was confirmed, in ms since the
    /// epoch, or the error); [`Error::Stopped`] if the task stopped first; a fatal error
    /// naming the topic when a record failed for a reason retrying cannot fix (a denied WRITE
    /// ACL, say), since every later write would fail the same way.
    pub(crate) fn finish(&mut self, count: usize) -> Result<Vec<Result<i64, String>>, Error> {
        loop {
            if lock(&self.outcomes).len() >= count {
                break;
            }
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            self.producer.call(|p| p.poll(DELIVERY_SLICE));
        }
        if let Some((code, text)) = lock(&self.fatal).take() {
            return Err(kafka_error(
                format!("writing checkpoints to `{}`", self.topic),
                code,
                &text,
            ));
        }
        let mut outcomes = lock(&self.outcomes);
        Ok((0..count)
            .map(|i| {
                outcomes
                    .remove(&i)
                    .unwrap_or_else(|| Err("no delivery report".into()))
            })
            .collect())
    }
}

fn delivered_at_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
