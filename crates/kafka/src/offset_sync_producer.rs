//! The Kafka half of the offset-sync writer: owns the producer of the offset-syncs topic and
//! drives the pure [`OffsetSyncQueue`] with it. One owner (`&mut self`): the delivery callbacks
//! run inside this writer's own producer polls, on the owner's thread, so no state is shared
//! between threads (MM2's writer shares its maps between the producer callback thread and the
//! offset-commit thread, which is where its ordering hazard comes from).

use super::kafka_error;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::error::KafkaError;
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseProducer, BaseRecord, ProducerContext};

use super::client_log::ClientLog;
use super::producer_drop::purge_before_drop;
use super::{producer_config, Owned};
use crate::mutex::lock;
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::offset_sync::OffsetSync;
use mm2_checkpoint_core::offset_sync_queue::{
    OffsetSyncQueue, OffsetSyncWriterConfig, PromoteTimer, Queued,
};
use mm2_checkpoint_core::topic_partition::TopicPartition;

/// Longest single producer poll while waiting for deliveries (rust-rdkafka's producer poll runs
/// to its deadline, so long waits are made of short slices).
const DELIVERY_SLICE: Duration = Duration::from_millis(5);

type Completions = Arc<Mutex<Vec<(TopicPartition, Result<(), String>)>>>;

/// Collects the end of each sync send, keyed by its upstream partition.
struct SyncDeliveries {
    done: Completions,
    log: ClientLog,
}

impl ClientContext for SyncDeliveries {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, text: &str) {
        self.log.log(level, facility, text);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        self.log.error(error, reason);
    }
}

impl ProducerContext for SyncDeliveries {
    type DeliveryOpaque = Box<TopicPartition>;

    fn delivery(&self, result: &DeliveryResult<'_>, tp: Self::DeliveryOpaque) {
        let outcome = match result {
            Ok(_) => Ok(()),
            Err((e, _)) => Err(e.to_string()),
        };
        lock(&self.done).push((*tp, outcome));
    }
}

/// Makes the producer keep the order syncs are handed to it in: with more than one request in
/// flight and no idempotence, a retried request can land after a later one, and two syncs of one
/// partition would then be read in the wrong order (the checkpoint side takes that for a rewind).
fn keep_send_order(settings: &mut ClientConfig, topic: &str) {
    let idempotent = settings
        .get("enable.idempotence")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if idempotent {
        return;
    }
    for key in ["max.in.flight.requests.per.connection", "max.in.flight"] {
        if let Some(v) = settings.get(key).filter(|v| v.trim() != "1") {
            log::warn!(
                "offset-syncs producer for `{topic}`: overriding {key}={v} with 1 to keep syncs                  in order (set enable.idempotence=true to allow more)"
            );
        }
    }
    settings.remove("max.in.flight");
    settings.set("max.in.flight.requests.per.connection", "1");
}

/// Counters of an [`OffsetSyncWriter`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OffsetSyncWriterStats {
    /// Mirrored records reported.
    pub records_reported: u64,
    /// Syncs handed to the producer.
    pub syncs_sent: u64,
    /// Syncs the broker acknowledged.
    pub syncs_delivered: u64,
    /// Syncs that failed (logged; like MM2, not retried: a later sync supersedes them).
    pub syncs_failed: u64,
    /// Promotions of delayed syncs (timer, flush or close).
    pub promotions: u64,
    /// Syncs waiting for a permit or for their partition's previous send.
    pub pending: usize,
    /// Syncs held until the next promotion.
    pub delayed: usize,
    /// Sends not yet acknowledged.
    pub outstanding: usize,
}

/// Writes offset syncs for a mirroring tool, as MM2's `MirrorSourceTask` does: call
/// [`report`](Self::report) for every mirrored record once its downstream offset is known, and
/// [`tick`](Self::tick) regularly (it promotes delayed syncs every `offset.flush.interval.ms`);
/// [`close`](Self::close) delivers what is left. Records go to partition 0 of the offset-syncs
/// topic in MM2's byte format. Not shared between threads: one owner calls every method.
pub struct OffsetSyncWriter {
    producer: Owned<BaseProducer<SyncDeliveries>>,
    done: Completions,
    queue: OffsetSyncQueue,
    timer: PromoteTimer,
    topic: String,
    stats: OffsetSyncWriterStats,
}

impl Drop for OffsetSyncWriter {
    fn drop(&mut self) {
        // What `close` did not deliver within its timeout, or all a writer dropped unclosed holds.
        self.producer.call(purge_before_drop);
    }
}

impl std::fmt::Debug for OffsetSyncWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffsetSyncWriter")
            .field("topic", &self.topic)
            .field("stats", &self.stats())
            .finish()
    }
}

impl OffsetSyncWriter {
    /// Creates the producer from librdkafka `producer_settings` (at least `bootstrap.servers`
    /// of the cluster holding the offset-syncs topic). No blocking I/O. The topic must exist or
    /// be auto-created by the broker (MM2 creates it as a one-partition compacted topic).
    pub fn new(
        producer_settings: &BTreeMap<String, String>,
        offset_syncs_topic: &str,
        config: &OffsetSyncWriterConfig,
    ) -> Result<Self, Error> {
        let context = SyncDeliveries {
            done: Completions::default(),
            log: ClientLog::new(producer_settings),
        };
        let done = Arc::clone(&context.done);
        let mut settings = producer_config(producer_settings);
        keep_send_order(&mut settings, offset_syncs_topic);
        let producer: BaseProducer<SyncDeliveries> =
            settings.create_with_context(context).map_err(|e| {
                kafka_error(
                    format!("creating the offset-syncs producer for `{offset_syncs_topic}`"),
                    e,
                )
            })?;
        Ok(OffsetSyncWriter {
            producer: Owned::new(producer, "offset-syncs producer", &StopSignal::new()),
            done,
            queue: OffsetSyncQueue::new(config.offset_lag_max, config.max_outstanding),
            timer: PromoteTimer::new(config.flush_interval, Instant::now()),
            topic: offset_syncs_topic.to_string(),
            stats: OffsetSyncWriterStats::default(),
        })
    }

    /// Reports a mirrored record: `upstream_offset` in `upstream` landed at `downstream_offset`.
    /// Queues a sync when MM2 would (see [`mm2_checkpoint_core::offset_sync_queue::PartitionState`]) and sends
    /// what may be sent now. Report each partition's records in order. Never blocks.
    pub fn report(
        &mut self,
        upstream: &TopicPartition,
        upstream_offset: i64,
        downstream_offset: i64,
    ) -> Queued {
        self.serve(Duration::ZERO);
        self.stats.records_reported += 1;
        let queued = self
            .queue
            .maybe_queue(upstream, upstream_offset, downstream_offset);
        self.fire();
        queued
    }

    /// Collects finished sends, promotes delayed syncs when `offset.flush.interval.ms` has
    /// passed, and sends what may be sent. Never blocks; call it regularly, also when idle.
    pub fn tick(&mut self) {
        self.serve(Duration::ZERO);
        if self.timer.due(Instant::now()) {
            self.promote();
        }
        self.fire();
    }

    /// True when a sync due now would be sent at once. When false, a due sync waits, and a
    /// later due sync of the same partition replaces it (MM2's coalescing), which widens the
    /// gap between syncs and so the re-reads after a failover. A mirror that prefers precision
    /// to throughput calls [`wait_for_capacity`](Self::wait_for_capacity) before reporting.
    pub fn has_capacity(&self) -> bool {
        self.queue.has_capacity()
    }

    /// Waits up to `timeout` until a send permit is free (see
    /// [`has_capacity`](Self::has_capacity)); [`Error::TimedOut`] otherwise.
    pub fn wait_for_capacity(&mut self, timeout: Duration) -> Result<(), Error> {
        let deadline = Instant::now() + timeout;
        loop {
            self.serve(Duration::ZERO);
            self.fire();
            if self.queue.has_capacity() {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::TimedOut(format!(
                    "waiting for a free offset-sync send permit ({} outstanding to `{}`)",
                    self.queue.outstanding(),
                    self.topic
                )));
            }
            self.serve(DELIVERY_SLICE.min(deadline - now));
        }
    }

    /// Time until the timer next promotes delayed syncs (a caller's poll timeout hint).
    pub fn time_to_next_promotion(&self) -> Duration {
        self.timer.remaining(Instant::now())
    }

    /// Promotes every delayed sync and waits, up to `timeout`, until every sync is sent and
    /// acknowledged. Fails with [`Error::TimedOut`] (saying how many are left) otherwise.
    pub fn flush(&mut self, timeout: Duration) -> Result<(), Error> {
        let deadline = Instant::now() + timeout;
        self.promote();
        loop {
            self.serve(Duration::ZERO);
            self.fire();
            if self.queue.pending_len() == 0 && self.queue.outstanding() == 0 {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::TimedOut(format!(
                    "flushing offset syncs to `{}`: {} pending, {} unacknowledged",
                    self.topic,
                    self.queue.pending_len(),
                    self.queue.outstanding()
                )));
            }
            self.serve(DELIVERY_SLICE.min(deadline - now));
        }
    }

    /// Flushes (see [`flush`](Self::flush)) and destroys the producer; returns the final counters.
    /// The producer is destroyed also when the flush fails.
    pub fn close(mut self, timeout: Duration) -> Result<OffsetSyncWriterStats, Error> {
        let flushed = self.flush(timeout);
        let stats = self.stats();
        drop(self);
        flushed.map(|()| stats)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> OffsetSyncWriterStats {
        OffsetSyncWriterStats {
            pending: self.queue.pending_len(),
            delayed: self.queue.delayed_len(),
            outstanding: self.queue.outstanding(),
            ..self.stats.clone()
        }
    }

    fn promote(&mut self) {
        self.queue.promote_delayed();
        self.stats.promotions += 1;
    }

    /// Polls the producer for up to `wait` and returns the permits of finished sends.
    fn serve(&mut self, wait: Duration) {
        self.producer.call(|p| p.poll(wait));
        let finished = std::mem::take(&mut *lock(&self.done));
        for (tp, outcome) in finished {
            self.queue.completed();
            match outcome {
                Ok(()) => self.stats.syncs_delivered += 1,
                Err(e) => self.failed(&tp, &e),
            }
        }
    }

    fn fire(&mut self) {
        while let Some(sync) = self.queue.next_to_send() {
            self.send(sync);
        }
    }

    fn send(&mut self, sync: OffsetSync) {
        let tp = sync.topic_partition.clone();
        let key = match sync.encode_key() {
            Ok(k) => k,
            Err(e) => {
                self.queue.completed();
                self.failed(&tp, &e.to_string());
                return;
            }
        };
        let value = sync.encode_value();
        let record = BaseRecord::with_opaque_to(&self.topic, Box::new(tp.clone()))
            .partition(0)
            .key(&key)
            .payload(&value);
        match self.producer.call(|p| p.send(record).map_err(|(e, _)| e)) {
            Ok(()) => self.stats.syncs_sent += 1,
            Err(e) => {
                self.queue.completed();
                self.failed(&tp, &e.to_string());
            }
        }
    }

    fn failed(&mut self, tp: &TopicPartition, error: &str) {
        self.stats.syncs_failed += 1;
        log::error!(
            "offset sync for {tp} to `{}` failed: {error}; a later sync of the partition replaces it",
            self.topic
        );
    }
}
