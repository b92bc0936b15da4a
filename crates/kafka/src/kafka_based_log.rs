//! The Rust counterpart of Connect's `KafkaBasedLog`, read-only: reads partition 0 of an internal
//! topic from the beginning, first to the end (read-to-end), then onwards (tailing).
//!
//! Differences from Java, each on purpose:
//! - The consumer belongs to whichever thread holds the `KafkaBasedLog` value; it moves between
//!   threads only by value (start-up thread → tail thread → the stopper, after a join). There is
//!   no window in which two threads can reach it (KAFKA-21435).
//! - Every wait is a batch read of the consumer queue that a stop wakes through librdkafka's
//!   queue yield.
//! - The end is the high watermark of the first Fetch response, not a ListOffsets answer: some
//!   brokers report a "latest" offset behind their log, and a Fetch is what the reader trusts
//!   anyway. Reaching that end, or a partition EOF, completes read-to-end; records already
//!   fetched with the last batch are drained before returning.
//! - A record that fails to decode is skipped and counted by the caller's `apply`; it never loses
//!   the rest of its batch.
//! - Records are read in batches of what librdkafka has already fetched (up to [`BATCH`]), their
//!   bytes lent to `apply` without copies, and `apply` sees a whole batch at once, so a store can
//!   take its lock once per batch. Only an empty queue leads to a wait, and only a wait reads the
//!   clock. Within one batch, partition and client errors are handled after its records.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::client::Client;
use rdkafka::error::RDKafkaErrorCode;

use super::client_log::ClientLog;
use super::{consumer_client, unjoined_group_config, WakeableClient};
use crate::failure::{
    broker_named, classify, closes_counted, kafka_error, no_answer, protocol_mismatch, Retry,
    RetryStatus, STARTUP,
};
use crate::librdkafka::batch::{self, BatchBuffer, Batched};
use crate::librdkafka::{self, NativeError, QueueHandle, CLOSED_BEFORE_API_VERSION};
use crate::slow_wait::{self, SlowWait};
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::mirror_checkpoint_config::ClientUse;

/// Longest single wait inside a poll; a stop wakes it earlier through the queue yield, so this
/// only bounds the wait should a wake ever be missed.
const POLL_SLICE: Duration = Duration::from_millis(500);

/// How long read-to-end waits for the first sign of the topic (a record or an EOF) before
/// checking whether the topic exists at all. librdkafka reports nothing for an assigned
/// partition of a topic that does not exist, and a fresh target has no checkpoints topic yet:
/// its first run should not sit silent for long before creating it.
const FIRST_EXISTENCE_CHECK: Duration = Duration::from_secs(1);

/// How often the existence check is repeated after the first, while nothing arrives.
const EXISTENCE_CHECK_EVERY: Duration = Duration::from_secs(5);

/// Longest wait for the metadata answer of an existence check. librdkafka's metadata call cannot
/// be woken, so this bounds how long a stop can wait should it land inside one (a check runs at
/// most every EXISTENCE_CHECK_EVERY, and only until the topic showed a record or an EOF). The
/// admin API's DescribeTopics would be wakeable, but the embedded mock broker cannot answer it.
const METADATA_TIMEOUT: Duration = Duration::from_millis(100);

/// librdkafka's default `socket.timeout.ms`.
const DEFAULT_SOCKET_TIMEOUT: Duration = Duration::from_secs(60);

/// Most records one batch read takes: the C floor of BENCHMARKS.md "Start-up load" reads 10,000
/// per batch too. The buffer is 8 bytes a record (message pointers), 80 KB per reader.
pub const BATCH: usize = 10_000;

/// One record's key and value (`None` = null), borrowed from the batch being read.
pub type RecordRef<'r> = (Option<&'r [u8]>, Option<&'r [u8]>);

/// Receives the records of one batch, in log order, and must take them all. Called once per
/// non-empty batch.
pub type ApplyRecords<'a> = dyn FnMut(&mut dyn Iterator<Item = RecordRef<'_>>) + 'a;

/// Adapts a per-record callback (`None` = null key or value) to [`ApplyRecords`], for readers
/// with no lock to share across a batch.
pub fn each_record<'a>(
    mut f: impl FnMut(Option<&[u8]>, Option<&[u8]>) + 'a,
) -> impl FnMut(&mut dyn Iterator<Item = RecordRef<'_>>) + 'a {
    move |records| {
        for (key, value) in records {
            f(key, value);
        }
    }
}

/// What one batch read took.
#[derive(Default)]
struct Step {
    /// Records applied.
    records: usize,
    /// Offset of the last record applied.
    last_offset: Option<i64>,
    /// A partition EOF was among the messages.
    eof: bool,
    /// Partition errors, then the client errors queued by the end of the read.
    errors: Vec<NativeError>,
}

/// How read-to-end ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadToEnd {
    /// Everything up to the end captured at start was applied.
    Reached,
    /// The topic does not exist (nothing to read).
    TopicMissing,
}

/// A reader of partition 0 of one topic.
pub struct KafkaBasedLog {
    /// Reads the consumer queue in batches; its events queue is the consumer's main queue
    /// (client errors, log lines), kept apart from the consumer queue.
    consumer: WakeableClient<Client<ClientLog>>,
    topic: String,
    signal: StopSignal,
    /// Where read-to-end reports why it is waiting, and the words naming the cluster.
    retry: Option<(RetryStatus, String)>,
    /// Since when client errors came without any record or end in between.
    failing_since: Option<Instant>,
    /// Connections the broker closed before answering, in a row.
    closes_before_answer: u32,
    /// The cluster has answered this reader (a record or an end of the partition): it speaks
    /// the reader's `security.protocol`, so closes before answering are never a mismatch.
    answered: bool,
    /// How long read-to-end goes without progress before it reports a stall.
    stall_after: Duration,
    /// Records applied so far.
    pub records_read: u64,
    /// The offset after the last record read (0 before the first).
    next_offset: i64,
    /// Room for one batch of message pointers.
    buf: BatchBuffer,
}

impl KafkaBasedLog {
    /// Creates the consumer and assigns partition 0 from the beginning. Does no I/O that blocks.
    pub fn open(
        settings: &BTreeMap<String, String>,
        topic: &str,
        role: &'static str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let consumer = open_reader_client(settings, topic, role, signal)?;
        let request_timeout = settings
            .get("socket.timeout.ms")
            .and_then(|ms| ms.parse().ok())
            .map_or(DEFAULT_SOCKET_TIMEOUT, Duration::from_millis);
        consumer
            .call(|c| batch::assign_from_start_apart(c, topic, 0))
            .map_err(|e| Error::kafka(format!("assigning `{topic}`-0"), e))?;
        Ok(KafkaBasedLog {
            consumer,
            topic: topic.to_string(),
            signal: signal.clone(),
            retry: None,
            failing_since: None,
            closes_before_answer: 0,
            answered: false,
            stall_after: slow_wait::threshold(request_timeout),
            records_read: 0,
            next_offset: 0,
            buf: BatchBuffer::new(BATCH),
        })
    }
}

/// A consumer of `topic` for an internal-topic reader (role `role`): never joins its group, never
/// commits, reports partition EOFs, and keeps its main queue apart for batch reads. Not assigned.
pub fn open_reader_client(
    settings: &BTreeMap<String, String>,
    topic: &str,
    role: &'static str,
    signal: &StopSignal,
) -> Result<WakeableClient<Client<ClientLog>>, Error> {
    // librdkafka's consumer poll needs a group handle; the group is never joined (assign, not
    // subscribe) and nothing is committed.
    let mut config = unjoined_group_config(settings, ClientUse::Reader, role);
    config
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "true")
        .set("auto.offset.reset", "earliest");
    let creating = || format!("creating the {role} for `{topic}`");
    let client = consumer_client(&config, settings, creating, |_| {})?;
    WakeableClient::new(client, role, signal, QueueHandle::consumer_queue)
        .ok_or_else(|| Error::kafka(format!("reading `{topic}`"), "no consumer queue"))
        .map(|consumer| consumer.with_events(batch::main_queue))
}

impl KafkaBasedLog {
    /// Makes read-to-end report, while client errors keep it waiting, "`cluster` unreachable
    /// for N s: <librdkafka's error>" into `status`, and clear it once the topic answers.
    pub fn report_retries(&mut self, status: &RetryStatus, cluster: String) {
        self.retry = Some((status.clone(), cluster));
    }

    /// A client error while reading: fatal ones end the read, others are retried (librdkafka
    /// reconnects by itself) and reported.
    fn client_error(&mut self, e: &NativeError) -> Result<(), Error> {
        if classify(e.code, &e.message) == Retry::Fatal {
            return Err(kafka_error(
                format!("reading `{}`", self.topic),
                e.code,
                &e.message,
            ));
        }
        if e.message.contains(CLOSED_BEFORE_API_VERSION) && !self.answered {
            self.closes_before_answer += closes_counted(&e.message);
            let context = format!("reading `{}`", self.topic);
            if let Some(fatal) = protocol_mismatch(&context, self.closes_before_answer, &e.message)
            {
                return Err(fatal);
            }
        }
        let episode_began = self.failing_since.is_none();
        self.failing_since.get_or_insert_with(Instant::now);
        if let Some((status, cluster)) = &self.retry {
            // One retry per episode of errors (librdkafka reconnects by itself meanwhile).
            if episode_began {
                status.count_retry(STARTUP);
            }
            // The seconds are counted by the status from the first error of the retries, as of
            // each reading.
            let head = match broker_named(&e.message).filter(|_| no_answer(&e.message)) {
                Some(broker) => format!("{cluster}: no answer from {broker} for "),
                None => format!("{cluster} unreachable for "),
            };
            status.set_counting(head, format!(" s: {e}"));
        }
        Ok(())
    }

    /// Read-to-end has had no record or end since `stall` began, and no error for a while
    /// either: reported as the retry reason while it lasts, and warned about when `warn` (once a
    /// read).
    fn stalled(&self, stall: &mut SlowWait, warn: bool) {
        if warn {
            log::warn!(
                "reading `{}`: no progress for {:.1} s (no record, no end of the partition, no \
                 error lately); still waiting",
                self.topic,
                stall.seconds()
            );
        }
        match &self.retry {
            Some((status, cluster)) => {
                status.count_retry(STARTUP);
                stall.tell(
                    Some(status),
                    || format!("{cluster}: no progress reading `{}` for ", self.topic),
                    " s (no answer to its fetches)",
                );
            }
            None => stall.tell(None, String::new, ""),
        }
    }

    fn progress(&mut self) {
        self.closes_before_answer = 0;
        self.answered = true;
        if self.failing_since.take().is_some() {
            if let Some((status, _)) = &self.retry {
                status.clear();
            }
        }
    }

    /// Reads from the beginning to the end captured at start, applying every record.
    /// Returns [`Error::Stopped`] promptly when the task stops.
    pub fn read_to_end(&mut self, apply: &mut ApplyRecords<'_>) -> Result<ReadToEnd, Error> {
        self.read_to_end_by(None, apply)
    }

    /// Like [`read_to_end`](Self::read_to_end), giving up with [`Error::TimedOut`] at `deadline`
    /// (for one-shot readers with a time budget; what was applied so far is then incomplete).
    pub fn read_to_end_by(
        &mut self,
        deadline: Option<Instant>,
        apply: &mut ApplyRecords<'_>,
    ) -> Result<ReadToEnd, Error> {
        let mut next_existence_check = Instant::now() + FIRST_EXISTENCE_CHECK;
        let mut end: Option<i64> = None;
        let mut seen_anything = false;
        // librdkafka repeats client errors such as "all brokers are down" many times a second
        // while a broker is unreachable: warn once per kind of error, not at every repeat.
        let mut warned: Vec<RDKafkaErrorCode> = Vec::new();
        // After a batch that took messages, the next read first takes what librdkafka already
        // fetched without waiting (and, without a deadline, without reading the clock); only an
        // empty queue leads to a timed wait, for the first message only. A stop's queue yield
        // that such a read swallows still ends the read: the flag is set before the yield and
        // checked at the top of every turn.
        let mut queued = false;
        // A stall is silence: no record, end or client error for `stall_after`; its duration is
        // counted from the last record or end, through any errors in between.
        let mut stall = SlowWait::new(self.stall_after);
        let mut stall_warned = false;
        loop {
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            let slice = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(Error::TimedOut(format!(
                            "reading `{}` to its end ({} records read, end offset {})",
                            self.topic,
                            self.records_read,
                            end.map_or_else(|| "not yet known".to_string(), |e| e.to_string())
                        )));
                    }
                    POLL_SLICE.min(d - now)
                }
                None => POLL_SLICE,
            };
            let step = if queued {
                self.read_batch(Duration::ZERO, BATCH, apply)
            } else {
                self.read_batch(slice, 1, apply)
            };
            queued = step.records > 0 || step.eof;
            let quiet = step.errors.iter().all(|e| concerns_unused_group(e.code));
            if queued {
                if let Some(seconds) = stall.end(self.retry.as_ref().map(|(status, _)| status)) {
                    log::info!(
                        "reading `{}`: moving again after {seconds:.1} s",
                        self.topic
                    );
                }
            } else if !quiet {
                // The errors below set the retry reason; a later silence is a stall again.
                stall.heard();
            } else if stall.is_due() {
                self.stalled(&mut stall, !stall_warned);
                stall_warned = true;
            }
            if step.records > 0 {
                self.progress();
                seen_anything = true;
            }
            for e in step.errors {
                if is_missing_topic(e.code) {
                    return Ok(ReadToEnd::TopicMissing);
                }
                if concerns_unused_group(e.code) {
                    log::debug!(
                        "reading `{}`: {e}; the reader's group is never used",
                        self.topic
                    );
                    continue;
                }
                self.client_error(&e)?;
                if warned.contains(&e.code) {
                    log::debug!("reading `{}`: {e}; retrying", self.topic);
                } else {
                    log::warn!("reading `{}`: {e}; retrying", self.topic);
                    warned.push(e.code);
                }
            }
            if step.eof {
                self.progress();
                self.drain(apply);
                return Ok(ReadToEnd::Reached);
            }
            if let Some(offset) = step.last_offset {
                if end.is_none() {
                    end = self.cached_end();
                }
                if end.is_some_and(|e| offset + 1 >= e) {
                    self.drain(apply);
                    return Ok(ReadToEnd::Reached);
                }
            } else if quiet && !seen_anything && Instant::now() >= next_existence_check {
                if !self.topic_exists()? {
                    return Ok(ReadToEnd::TopicMissing);
                }
                next_existence_check = Instant::now() + EXISTENCE_CHECK_EVERY;
            }
        }
    }

    /// Waits up to `max_wait` for records and applies what arrives; returns how many.
    /// Returns early (with 0) on stop, and an error only for a failure retrying cannot fix.
    pub fn poll_once(
        &mut self,
        max_wait: Duration,
        apply: &mut ApplyRecords<'_>,
    ) -> Result<usize, Error> {
        let mut n = 0;
        let mut wait = max_wait.min(POLL_SLICE);
        while !self.signal.is_stopped() {
            let step = if wait.is_zero() {
                self.read_batch(Duration::ZERO, BATCH, apply)
            } else {
                self.read_batch(wait, 1, apply)
            };
            n += step.records;
            for e in step.errors.iter().filter(|e| concerns_unused_group(e.code)) {
                log::debug!(
                    "reading `{}`: {e}; the reader's group is never used",
                    self.topic
                );
            }
            let failure = step
                .errors
                .iter()
                .find(|e| !is_missing_topic(e.code) && !concerns_unused_group(e.code));
            if let Some(e) = failure {
                self.client_error(e)?;
                log::debug!("reading `{}`: {e}", self.topic);
                break;
            }
            if step.records == 0 || !step.errors.is_empty() || step.eof {
                break;
            }
            wait = Duration::ZERO;
        }
        Ok(n)
    }

    /// Takes one batch (up to `max` messages, waiting up to `wait` for the first), applies its
    /// records as one batch, and reports the rest.
    fn read_batch(&mut self, wait: Duration, max: usize, apply: &mut ApplyRecords<'_>) -> Step {
        let step = batch::consume_batch(self.consumer.queue(), wait, max, &mut self.buf, |b| {
            let mut step = Step::default();
            for m in b.iter() {
                match m {
                    Batched::Record { offset, .. } => {
                        step.records += 1;
                        step.last_offset = Some(offset);
                    }
                    Batched::PartitionEof { .. } => step.eof = true,
                    Batched::Error(e) => step.errors.push(e),
                }
            }
            if step.records > 0 {
                let mut records = b.iter().filter_map(|m| match m {
                    Batched::Record { key, value, .. } => Some((key, value)),
                    _ => None,
                });
                apply(&mut records);
            }
            step
        });
        let mut step = step;
        if let Some(events) = self.consumer.events() {
            self.consumer
                .call(|c| batch::client_events(c, events, &mut step.errors));
        }
        self.records_read += step.records as u64;
        if let Some(last) = step.last_offset {
            self.next_offset = last + 1;
        }
        step
    }

    /// Applies what librdkafka has already fetched, without waiting.
    fn drain(&mut self, apply: &mut ApplyRecords<'_>) {
        while self.read_batch(Duration::ZERO, BATCH, apply).records > 0 {}
    }

    /// Records between the reader's position and the end of the partition, as of the last
    /// fetch response (librdkafka's cached high watermark: no request); `None` before any
    /// response. Before the first record the position counts as offset 0.
    pub fn lag(&self) -> Option<u64> {
        self.cached_end()
            .map(|end| u64::try_from(end - self.next_offset).unwrap_or(0))
    }

    fn cached_end(&self) -> Option<i64> {
        let topic = self.topic.as_str();
        self.consumer
            .call(|c| librdkafka::cached_high_watermark(c, topic, 0))
    }

    /// Asks the cluster whether the topic exists (bounded by METADATA_TIMEOUT). An unanswered
    /// question counts as "exists": keep reading.
    fn topic_exists(&self) -> Result<bool, Error> {
        let topic = self.topic.as_str();
        let md = self
            .consumer
            .call(|c| c.fetch_metadata(Some(topic), METADATA_TIMEOUT));
        Ok(match md {
            Ok(md) => {
                // A topic we may not describe looks missing; say that it is denied instead.
                let denied = md
                    .topics()
                    .iter()
                    .filter(|t| t.name() == topic)
                    .find_map(|t| {
                        let code = RDKafkaErrorCode::from(t.error()?);
                        (classify(code, "") == Retry::Fatal).then_some(code)
                    });
                if let Some(code) = denied {
                    return Err(kafka_error(
                        format!("reading `{topic}`"),
                        code,
                        "the broker denies this principal the topic's metadata (no READ or DESCRIBE ACL?)",
                    ));
                }
                md.topics()
                    .iter()
                    .any(|t| t.name() == topic && t.error().is_none() && !t.partitions().is_empty())
            }
            Err(e) => {
                log::debug!("metadata for `{topic}`: {e}");
                true
            }
        })
    }

    /// The topic being read.
    pub fn topic(&self) -> &str {
        &self.topic
    }
}

/// Whether a client error is about the reader's consumer group, which librdkafka needs for its
/// consumer API but which is never joined or committed to: librdkafka still looks up its
/// coordinator, and a broker with an authorizer denies that to a principal without DESCRIBE on
/// the group. Reading an assigned partition needs no group ACL (Java's KafkaBasedLog has no
/// group at all), so such an error changes nothing and must not fail the read.
pub fn concerns_unused_group(code: RDKafkaErrorCode) -> bool {
    code == RDKafkaErrorCode::GroupAuthorizationFailed
}

pub(crate) fn is_missing_topic(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::UnknownTopicOrPartition
            | RDKafkaErrorCode::UnknownTopic
            | RDKafkaErrorCode::UnknownPartition
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded::{EmbeddedClusters, RawRecord, Side};
    use std::sync::mpsc;

    type Record = (Option<Vec<u8>>, Option<Vec<u8>>);

    fn collect(into: &mut Vec<Record>) -> impl FnMut(&mut dyn Iterator<Item = RecordRef<'_>>) + '_ {
        each_record(|k, v| into.push((k.map(<[u8]>::to_vec), v.map(<[u8]>::to_vec))))
    }

    /// A log on a mock cluster's topic holding `records`, already read to its end.
    fn read_log(
        records: &[RawRecord],
    ) -> (EmbeddedClusters, StopSignal, KafkaBasedLog, Vec<Record>) {
        let clusters = EmbeddedClusters::new().unwrap();
        clusters.create_topic(Side::Target, "log", 1).unwrap();
        clusters.produce(Side::Target, "log", records).unwrap();
        let settings = BTreeMap::from([(
            "bootstrap.servers".to_string(),
            clusters.bootstrap(Side::Target),
        )]);
        let signal = StopSignal::new();
        let mut log = KafkaBasedLog::open(&settings, "log", "test-reader", &signal).unwrap();
        let mut read = Vec::new();
        assert_eq!(
            log.read_to_end(&mut collect(&mut read)).unwrap(),
            ReadToEnd::Reached
        );
        (clusters, signal, log, read)
    }

    fn record(key: &str, value: Option<&str>) -> RawRecord {
        (0, Some(key.into()), value.map(Into::into))
    }

    #[test]
    fn read_to_end_lends_every_record_in_order_then_the_queue_is_empty() {
        let records = [
            record("a", Some("1")),
            record("b", None),
            record("c", Some("3")),
        ];
        let (_clusters, _signal, mut log, read) = read_log(&records);
        let expected: Vec<Record> = records
            .iter()
            .map(|(_, k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(read, expected);
        assert_eq!(log.records_read, 3);
        let mut more = Vec::new();
        assert_eq!(
            log.poll_once(Duration::ZERO, &mut collect(&mut more))
                .unwrap(),
            0
        );
        assert!(more.is_empty());
    }

    /// A wait for the first record returns with it, not when the buffer is full or the wait
    /// ends (the tail thread's latency).
    #[test]
    fn a_batch_wait_for_the_first_record_returns_with_it() {
        let (clusters, _signal, mut log, _) = read_log(&[record("a", Some("1"))]);
        let (started, start) = mpsc::channel();
        let (done, finished) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            started.send(()).unwrap();
            let mut read = Vec::new();
            // The partition EOF of the first read may still come first (read-to-end ends at the
            // high watermark without waiting for it): it is a message of its own.
            let mut steps = Vec::new();
            while steps.len() < 3 && read.is_empty() {
                let step = log.read_batch(Duration::from_secs(3600), 1, &mut collect(&mut read));
                steps.push((step.records, step.eof));
            }
            done.send((steps, read)).unwrap();
            log
        });
        start.recv().unwrap();
        clusters
            .produce(Side::Target, "log", &[record("b", Some("2"))])
            .unwrap();
        let (steps, read) = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("the wait did not end with the first record");
        assert!(
            steps == [(1, false)] || steps == [(0, true), (1, false)],
            "{steps:?}"
        );
        assert_eq!(read, vec![(Some(b"b".to_vec()), Some(b"2".to_vec()))]);
        drop(reader.join().unwrap());
    }

    /// The stop's queue yield wakes a batch read waiting on an empty queue (or makes the wait
    /// return at once when it comes first): the read has no stop-flag check of its own, and
    /// would otherwise wait an hour.
    #[test]
    fn a_stop_wakes_a_batch_read_blocked_on_an_empty_queue() {
        let (_clusters, signal, mut log, _) = read_log(&[record("a", Some("1"))]);
        let (started, start) = mpsc::channel();
        let (done, finished) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            started.send(()).unwrap();
            let step = log.read_batch(Duration::from_secs(3600), BATCH, &mut |_| {
                unreachable!("nothing was produced")
            });
            done.send(step.records).unwrap();
            log
        });
        start.recv().unwrap();
        signal.stop();
        let n = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("the stop did not wake the blocked batch read");
        assert_eq!(n, 0);
        drop(reader.join().unwrap());
    }

    /// A broker that answers too slowly to show the read anything for a third of the request
    /// timeout: the read says so (once, naming the cluster and the topic) and clears it once
    /// records come.
    #[test]
    fn a_read_that_gets_nothing_for_a_third_of_the_request_timeout_is_reported_until_it_moves() {
        let clusters = EmbeddedClusters::new().unwrap();
        clusters.create_topic(Side::Target, "log", 1).unwrap();
        clusters
            .produce(Side::Target, "log", &[record("a", Some("1"))])
            .unwrap();
        let settings = BTreeMap::from([
            (
                "bootstrap.servers".to_string(),
                clusters.bootstrap(Side::Target),
            ),
            // Nothing for 1 s is a stall.
            ("socket.timeout.ms".to_string(), "3000".to_string()),
        ]);
        let signal = StopSignal::new();
        let mut log = KafkaBasedLog::open(&settings, "log", "test-reader", &signal).unwrap();
        let status = RetryStatus::default();
        log.report_retries(&status, "target cluster `B`".to_string());
        // Every answer takes 2 s.
        clusters
            .cluster(Side::Target)
            .broker_round_trip_time(1, Duration::from_secs(2))
            .unwrap();
        let (reported, outcome, read) = std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut read = Vec::new();
                let outcome = log.read_to_end(&mut collect(&mut read));
                (outcome, read)
            });
            let mut reported = None;
            while reported.is_none() && !reader.is_finished() {
                reported = status.get();
                std::thread::sleep(Duration::from_millis(10));
            }
            let (outcome, read) = reader.join().unwrap();
            (reported, outcome, read)
        });
        let reason = reported.expect("no retry reason while nothing came");
        assert!(
            reason.starts_with("target cluster `B`: no progress reading `log` for ")
                && reason.ends_with(" s (no answer to its fetches)"),
            "{reason}"
        );
        assert_eq!(outcome.unwrap(), ReadToEnd::Reached);
        assert_eq!(read, vec![(Some(b"a".to_vec()), Some(b"1".to_vec()))]);
        assert_eq!(status.get(), None, "the reason outlived the stall");
        assert_eq!(status.retries(STARTUP), 1);
    }
}
