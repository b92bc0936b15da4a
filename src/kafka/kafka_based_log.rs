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
use std::time::{Duration, Instant};

use rdkafka::client::Client;
use rdkafka::config::ClientConfig;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::types::RDKafkaType;

use super::client_log::ClientLog;
use super::{client_config, WakeableClient};
use crate::core::error::Error;
use crate::kafka::failure::{
    classify, client_creation_error, kafka_error, protocol_mismatch, suppressed_repeats, Retry,
    RetryStatus, CLOSED_BEFORE_API_VERSION,
};
use crate::kafka::librdkafka::{self, NativeError, Polled, QueueHandle};
use crate::kafka::stop_signal::StopSignal;

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
    consumer: WakeableClient<Client<ClientLog>>,
    topic: String,
    signal: StopSignal,
    /// Where read-to-end reports why it is waiting, and the words naming the cluster.
    retry: Option<(RetryStatus, String)>,
    /// Since when client errors came without any record or end in between.
    failing_since: Option<Instant>,
    /// Connections the broker closed before answering, in a row.
    closes_before_answer: u32,
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
        reader_defaults(&mut config);
        let creating = || format!("creating the {role} for `{topic}`");
        let native = config
            .create_native_config()
            .map_err(|e| client_creation_error(creating(), e))?;
        librdkafka::route_served_logs::<ClientLog>(&native);
        let client = Client::new(
            &config,
            native,
            RDKafkaType::RD_KAFKA_CONSUMER,
            ClientLog::new(settings),
        )
        .map_err(|e| client_creation_error(creating(), e))?;
        let consumer = WakeableClient::new(client, role, signal, QueueHandle::consumer_queue)
            .ok_or_else(|| Error::kafka(format!("reading `{topic}`"), "no consumer queue"))?;
        consumer
            .call(|c| librdkafka::consumer_assign_from_start(c, topic, 0))
            .map_err(|e| Error::kafka(format!("assigning `{topic}`-0"), e))?;
        Ok(KafkaBasedLog {
            consumer,
            topic: topic.to_string(),
            signal: signal.clone(),
            retry: None,
            failing_since: None,
            closes_before_answer: 0,
            records_read: 0,
        })
    }

    /// Makes read-to-end report, while client errors keep it waiting, "`cluster` unreachable
    /// for N s: <librdkafka's error>" into `status`, and clear it once the topic answers.
    pub(crate) fn report_retries(&mut self, status: &RetryStatus, cluster: String) {
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
        if e.message.contains(CLOSED_BEFORE_API_VERSION) {
            self.closes_before_answer += 1 + suppressed_repeats(&e.message);
            let context = format!("reading `{}`", self.topic);
            if let Some(fatal) = protocol_mismatch(&context, self.closes_before_answer, &e.message)
            {
                return Err(fatal);
            }
        }
        let since = *self.failing_since.get_or_insert_with(Instant::now);
        if let Some((status, cluster)) = &self.retry {
            status.set(format!(
                "{cluster} unreachable for {} s: {e}",
                since.elapsed().as_secs()
            ));
        }
        Ok(())
    }

    fn progress(&mut self) {
        self.closes_before_answer = 0;
        if self.failing_since.take().is_some() {
            if let Some((status, _)) = &self.retry {
                status.clear();
            }
        }
    }

    /// Reads from the beginning to the end captured at start, applying every record.
    /// Returns [`Error::Stopped`] promptly when the task stops.
    pub(crate) fn read_to_end(&mut self, apply: &mut ApplyRecord<'_>) -> Result<ReadToEnd, Error> {
        self.read_to_end_by(None, apply)
    }

    /// Like [`read_to_end`](Self::read_to_end), giving up with [`Error::TimedOut`] at `deadline`
    /// (for one-shot readers with a time budget; what was applied so far is then incomplete).
    pub(crate) fn read_to_end_by(
        &mut self,
        deadline: Option<Instant>,
        apply: &mut ApplyRecord<'_>,
    ) -> Result<ReadToEnd, Error> {
        let mut next_existence_check = Instant::now() + FIRST_EXISTENCE_CHECK;
        let mut end: Option<i64> = None;
        let mut seen_anything = false;
        // librdkafka repeats client errors such as "all brokers are down" many times a second
        // while a broker is unreachable: warn once per kind of error, not at every repeat.
        let mut warned: Vec<RDKafkaErrorCode> = Vec::new();
        // After a record, the next poll first takes what librdkafka already fetched without
        // waiting (and without reading the clock); only an empty queue leads to a timed wait.
        // A stop's queue yield that such a poll swallows still ends the read: the flag is set
        // before the yield and checked at the top of every turn.
        let mut queued = false;
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
            let polled = self.poll_one(if queued { Duration::ZERO } else { slice });
            queued = matches!(polled, Polled::Record { .. });
            match polled {
                Polled::Record {
                    offset, key, value, ..
                } => {
                    self.progress();
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
                    self.progress();
                    self.drain(apply);
                    return Ok(ReadToEnd::Reached);
                }
                Polled::Error(e) if is_missing_topic(e.code) => return Ok(ReadToEnd::TopicMissing),
                Polled::Error(e) if concerns_unused_group(e.code) => {
                    log::debug!(
                        "reading `{}`: {e}; the reader's group is never used",
                        self.topic
                    );
                }
                Polled::Error(e) => {
                    self.client_error(&e)?;
                    if warned.contains(&e.code) {
                        log::debug!("reading `{}`: {e}; retrying", self.topic);
                    } else {
                        log::warn!("reading `{}`: {e}; retrying", self.topic);
                        warned.push(e.code);
                    }
                }
                Polled::Nothing => {
                    if !seen_anything && Instant::now() >= next_existence_check {
                        if !self.topic_exists()? {
                            return Ok(ReadToEnd::TopicMissing);
                        }
                        next_existence_check = Instant::now() + EXISTENCE_CHECK_EVERY;
                    }
                }
            }
        }
    }

    /// Waits up to `max_wait` for records and applies what arrives; returns how many.
    /// Returns early (with 0) on stop, and an error only for a failure retrying cannot fix.
    pub(crate) fn poll_once(
        &mut self,
        max_wait: Duration,
        apply: &mut ApplyRecord<'_>,
    ) -> Result<usize, Error> {
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
                Polled::Error(e) if concerns_unused_group(e.code) => {
                    log::debug!(
                        "reading `{}`: {e}; the reader's group is never used",
                        self.topic
                    );
                    break;
                }
                Polled::Error(e) if !is_missing_topic(e.code) => {
                    self.client_error(&e)?;
                    log::debug!("reading `{}`: {e}", self.topic);
                    break;
                }
                _ => break,
            }
        }
        Ok(n)
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
    pub(crate) fn topic(&self) -> &str {
        &self.topic
    }
}

/// Settings of internal-topic readers that differ from librdkafka's defaults, unless the user set
/// them:
/// - `fetch.wait.max.ms=100`: internal topics are small and local reads dominate start-up; do
///   not let each empty fetch wait the default 500 ms.
/// - `fetch.queue.backoff.ms=10`: once librdkafka holds `queued.min.messages` (100,000) fetched
///   records not yet polled, it postpones the next Fetch by this much, 1 s by default, and does
///   not fetch again before that even when the reader has long emptied its queue. Reading
///   record by record is slower than one Fetch fills the queue, so with the default a large
///   offset-syncs topic loaded at about a tenth of the speed the broker delivers (1M records:
///   ≈ 7 s, mostly idle, against ≈ 2 s with 10 ms; BENCHMARKS.md "Start-up load").
fn reader_defaults(config: &mut ClientConfig) {
    for (key, value) in [
        ("fetch.wait.max.ms", "100"),
        ("fetch.queue.backoff.ms", "10"),
    ] {
        if config.get(key).is_none() {
            config.set(key, value);
        }
    }
}

/// Whether a client error is about the reader's consumer group, which librdkafka needs for its
/// consumer API but which is never joined or committed to: librdkafka still looks up its
/// coordinator, and a broker with an authorizer denies that to a principal without DESCRIBE on
/// the group. Reading an assigned partition needs no group ACL (Java's KafkaBasedLog has no
/// group at all), so such an error changes nothing and must not fail the read.
fn concerns_unused_group(code: RDKafkaErrorCode) -> bool {
    code == RDKafkaErrorCode::GroupAuthorizationFailed
}

fn is_missing_topic(code: RDKafkaErrorCode) -> bool {
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

    #[test]
    fn reader_defaults_fill_in_only_what_the_user_left_unset() {
        let mut unset = ClientConfig::new();
        reader_defaults(&mut unset);
        assert_eq!(unset.get("fetch.wait.max.ms"), Some("100"));
        assert_eq!(unset.get("fetch.queue.backoff.ms"), Some("10"));

        let mut user = ClientConfig::new();
        user.set("fetch.wait.max.ms", "7")
            .set("fetch.queue.backoff.ms", "1000");
        reader_defaults(&mut user);
        assert_eq!(user.get("fetch.wait.max.ms"), Some("7"));
        assert_eq!(user.get("fetch.queue.backoff.ms"), Some("1000"));
    }
}
