//! Blocking Kafka client shortcuts for tests, usable against a real broker or a mock cluster.
//!
//! Every call is bounded by [`TIMEOUT`] and panics with the reason on failure.
//!
//! What the brokers do, as found while writing these helpers (pinned by tests/kafka_broker.rs
//! where it matters):
//!
//! Apache Kafka (scripts/kafka-broker.sh, single node):
//! - Topics are auto-created (`num.partitions`, 1) by a Metadata request that allows it, which
//!   librdkafka's producer sends by default: producing to an unknown topic succeeds. A
//!   consumer's metadata (`allow.auto.create.topics=false`) does not create it. Tests create
//!   their topics explicitly with [`create_topic`] so partition counts are what they expect.
//! - OffsetCommit outside any group generation keeps the metadata string; such a group is
//!   "Empty" in ListGroups/DescribeGroups. A group whose members joined but never committed is
//!   listed too.
//!
//! librdkafka's mock cluster: no CreateTopics (times out) and no DescribeConfigs (use
//! [`super::mock::create_mock_topic`]), no ListGroups/DescribeGroups (UnsupportedFeature);
//! auto-creates 4-partition topics; OffsetCommit/OffsetFetch keep metadata.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::Message;
use rdkafka::metadata::Metadata;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{Offset, TopicPartitionList};

use super::runtime::Latch;
use super::wait::{block_on, wait_until};

/// Upper bound for any single helper call.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A record to produce: (key, value), None for a null key or value.
pub type Record<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// A record's (key, value) as read back, None for a null key or value.
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A record as read back: its offset, key and value (None for a null key or value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumedRecord {
    /// Offset of the record in its partition.
    pub offset: i64,
    /// Key bytes, None for a null key.
    pub key: Option<Vec<u8>>,
    /// Value bytes, None for a null value (a tombstone).
    pub value: Option<Vec<u8>>,
}

/// A group's committed position for one partition, as OffsetFetch reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The partition asked about.
    pub partition: i32,
    /// The committed offset, None when the group has no offset for this partition.
    pub offset: Option<i64>,
    /// The metadata string stored with the commit (empty when none).
    pub metadata: String,
}

/// Settings every helper client of a given bootstrap address gets (TLS, SASL), by address.
static CLIENT_SETTINGS: Mutex<BTreeMap<String, Vec<(String, String)>>> =
    Mutex::new(BTreeMap::new());

/// Makes every helper here that connects to `bootstrap` also set `settings` (e.g.
/// `security.protocol`, `ssl.ca.location`, SASL credentials), so the same helpers serve a
/// secured listener. Later registrations for the same address replace earlier ones.
pub fn register_client_settings(bootstrap: &str, settings: Vec<(String, String)>) {
    CLIENT_SETTINGS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(bootstrap.to_owned(), settings);
}

/// Base client configuration pointing at `bootstrap`, with its registered settings.
pub fn client_config(bootstrap: &str) -> ClientConfig {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap)
        .set("socket.timeout.ms", "10000");
    let registered = CLIENT_SETTINGS.lock().unwrap_or_else(|e| e.into_inner());
    for (key, value) in registered.get(bootstrap).into_iter().flatten() {
        config.set(key, value);
    }
    config
}

/// One metadata round trip for all topics (used as the broker's readiness probe).
pub fn fetch_metadata(bootstrap: &str, timeout: Duration) -> KafkaResult<Metadata> {
    let consumer: BaseConsumer = client_config(bootstrap).create()?;
    consumer.fetch_metadata(None, timeout)
}

/// The leader of `topic`-`partition` and its in-sync replicas, as the cluster's metadata
/// says now; `None` while the topic is unknown or the partition has no leader.
pub fn partition_leader(bootstrap: &str, topic: &str, partition: i32) -> Option<(i32, Vec<i32>)> {
    let metadata = fetch_metadata(bootstrap, TIMEOUT)
        .unwrap_or_else(|e| panic!("metadata from {bootstrap}: {e}"));
    let topic = metadata.topics().iter().find(|t| t.name() == topic)?;
    let p = topic.partitions().iter().find(|p| p.id() == partition)?;
    (p.error().is_none() && p.leader() >= 0).then(|| (p.leader(), p.isr().to_vec()))
}

/// The partition count of `topic`, or None if the broker does not know the topic.
pub fn partition_count(bootstrap: &str, topic: &str) -> Option<usize> {
    replica_counts(bootstrap, topic).map(|counts| counts.len())
}

/// Creates `name` with `partitions` partitions (replication 1) and waits until metadata
/// shows it.
pub fn create_topic(bootstrap: &str, name: &str, partitions: i32) {
    create_topic_with_config(bootstrap, name, partitions, &[]);
}

/// Like [`create_topic`], with topic configs such as `("cleanup.policy", "compact")`.
pub fn create_topic_with_config(
    bootstrap: &str,
    name: &str,
    partitions: i32,
    config: &[(&str, &str)],
) {
    create_replicated_topic(bootstrap, name, partitions, 1, config);
}

/// Like [`create_topic_with_config`], with `replicas` replicas of each partition (on a
/// [`super::broker::Cluster`]).
pub fn create_replicated_topic(
    bootstrap: &str,
    name: &str,
    partitions: i32,
    replicas: i32,
    config: &[(&str, &str)],
) {
    let admin: AdminClient<DefaultClientContext> = client_config(bootstrap)
        .create()
        .unwrap_or_else(|e| panic!("admin client for {bootstrap}: {e}"));
    let mut topic = NewTopic::new(name, partitions, TopicReplication::Fixed(replicas));
    for (key, value) in config {
        topic = topic.set(key, value);
    }
    let options = AdminOptions::new().operation_timeout(Some(TIMEOUT));
    let what = format!("CreateTopics {name} on {bootstrap}");
    let results = block_on(admin.create_topics([&topic], &options), TIMEOUT, &what)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    for result in results {
        match result {
            Ok(_) => {}
            // The client sends CreateTopics again when its first request is answered NOT_CONTROLLER
            // (a controller still settling on a cluster just started); the second request then
            // finds the topic the first one made. Names are unique to a test and its process,
            // so an existing topic is this call's own: its shape is checked below.
            Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((topic, code)) => panic!("{what}: topic {topic} failed with {code:?}"),
        }
    }
    let expected = usize::try_from(partitions).unwrap_or(0);
    let copies = usize::try_from(replicas).unwrap_or(0);
    wait_until(TIMEOUT, &format!("metadata shows {what}"), || {
        replica_counts(bootstrap, name)
            .is_some_and(|counts| counts.len() == expected && counts.iter().all(|&n| n == copies))
    });
}

/// The replica count of each partition of `topic`, or None if the broker does not know it.
fn replica_counts(bootstrap: &str, topic: &str) -> Option<Vec<usize>> {
    let metadata = fetch_metadata(bootstrap, TIMEOUT)
        .unwrap_or_else(|e| panic!("metadata from {bootstrap}: {e}"));
    let topic = metadata
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())?;
    Some(
        topic
            .partitions()
            .iter()
            .map(|p| p.replicas().len())
            .collect(),
    )
}

/// Creates `name` like [`create_topic`] unless it already exists (e.g. auto-created by a
/// producer's metadata request on a broker that just restarted); returns whether it created it.
/// An existing topic keeps its partition count; tests that need partition 0 only can use either.
pub fn ensure_topic(bootstrap: &str, name: &str, partitions: i32) -> bool {
    let admin: AdminClient<DefaultClientContext> = client_config(bootstrap)
        .create()
        .unwrap_or_else(|e| panic!("admin client for {bootstrap}: {e}"));
    let topic = NewTopic::new(name, partitions, TopicReplication::Fixed(1));
    let options = AdminOptions::new().operation_timeout(Some(TIMEOUT));
    let what = format!("CreateTopics {name} on {bootstrap}");
    let results = block_on(admin.create_topics([&topic], &options), TIMEOUT, &what)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let created = match results.into_iter().next() {
        Some(Ok(_)) => true,
        Some(Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists))) => false,
        Some(Err((topic, code))) => panic!("{what}: topic {topic} failed with {code:?}"),
        None => panic!("{what}: empty answer"),
    };
    wait_until(
        TIMEOUT,
        &format!("metadata shows {name} on {bootstrap}"),
        || partition_count(bootstrap, name).is_some_and(|n| n > 0),
    );
    created
}

/// Deletes `name` (DeleteTopics) and waits until metadata no longer shows it.
pub fn delete_topic(bootstrap: &str, name: &str) {
    let admin: AdminClient<DefaultClientContext> = client_config(bootstrap)
        .create()
        .unwrap_or_else(|e| panic!("admin client for {bootstrap}: {e}"));
    let options = AdminOptions::new().operation_timeout(Some(TIMEOUT));
    let what = format!("DeleteTopics {name} on {bootstrap}");
    let results = block_on(admin.delete_topics(&[name], &options), TIMEOUT, &what)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    for result in results {
        if let Err((topic, code)) = result {
            panic!("{what}: topic {topic} failed with {code:?}");
        }
    }
    wait_until(TIMEOUT, &format!("metadata drops {name}"), || {
        partition_count(bootstrap, name).is_none()
    });
}

/// The value of topic config `key` for `topic` (DescribeConfigs; real brokers only, the mock
/// cluster does not answer it), None when the broker reports no such entry.
pub fn topic_config(bootstrap: &str, topic: &str, key: &str) -> Option<String> {
    let admin: AdminClient<DefaultClientContext> = client_config(bootstrap)
        .create()
        .unwrap_or_else(|e| panic!("admin client for {bootstrap}: {e}"));
    let options = AdminOptions::new().request_timeout(Some(TIMEOUT));
    let what = format!("DescribeConfigs {topic} on {bootstrap}");
    let resources = [ResourceSpecifier::Topic(topic)];
    let results = block_on(admin.describe_configs(&resources, &options), TIMEOUT, &what)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let resource = results
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{what}: empty answer"))
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    resource.get(key).and_then(|entry| entry.value.clone())
}

/// The state of `group` as ListGroups/DescribeGroups report it ("Empty", "Stable", ...), or
/// None when the broker does not list it (real brokers only; the mock cluster lacks these APIs).
pub fn group_state(bootstrap: &str, group: &str) -> Option<String> {
    let consumer: BaseConsumer = client_config(bootstrap)
        .create()
        .unwrap_or_else(|e| panic!("consumer for {bootstrap}: {e}"));
    let groups = consumer
        .fetch_group_list(Some(group), TIMEOUT)
        .unwrap_or_else(|e| panic!("DescribeGroups {group} on {bootstrap}: {e}"));
    groups
        .groups()
        .iter()
        .find(|g| g.name() == group)
        .map(|g| g.state().to_owned())
}

/// Collects delivery reports by the index each record was sent with.
struct Deliveries(Mutex<Vec<Option<Result<i64, String>>>>);

impl ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, index: usize) {
        let outcome = match result {
            Ok(message) => Ok(message.offset()),
            Err((error, _)) => Err(error.to_string()),
        };
        let mut reports = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = reports.get_mut(index) {
            *slot = Some(outcome);
        }
    }
}

/// Produces one record and returns its offset.
pub fn produce(
    bootstrap: &str,
    topic: &str,
    partition: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> i64 {
    produce_many(bootstrap, topic, partition, &[(key, value)])[0]
}

/// Produces `count` records with keys `key-<i>` and values `value-<i>`; returns their offsets.
pub fn produce_numbered(bootstrap: &str, topic: &str, partition: i32, count: usize) -> Vec<i64> {
    let owned: Vec<(String, String)> = (0..count)
        .map(|i| (format!("key-{i}"), format!("value-{i}")))
        .collect();
    let records: Vec<Record<'_>> = owned
        .iter()
        .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes())))
        .collect();
    produce_many(bootstrap, topic, partition, &records)
}

/// Produces `records` (key, value) in order to one partition, waits until every one is
/// acknowledged, and returns their offsets in the same order.
pub fn produce_many(
    bootstrap: &str,
    topic: &str,
    partition: i32,
    records: &[Record<'_>],
) -> Vec<i64> {
    produce_in_order(bootstrap, topic, partition, records, &[("linger.ms", "0")])
}

/// Produces `records` in order to one partition in large batches (fast, for seeding thousands
/// of records) and waits until all are acknowledged; unlike [`produce_many`] it does not
/// report the offsets.
pub fn produce_batched(bootstrap: &str, topic: &str, partition: i32, records: &[Record<'_>]) {
    produce_batched_with(bootstrap, topic, partition, records, &[]);
}

/// [`produce_batched`] with extra producer settings, e.g. `("compression.type", "zstd")`.
pub fn produce_batched_with(
    bootstrap: &str,
    topic: &str,
    partition: i32,
    records: &[Record<'_>],
    settings: &[(&str, &str)],
) {
    let mut all = vec![("linger.ms", "5"), ("batch.num.messages", "10000")];
    all.extend_from_slice(settings);
    produce_in_order(bootstrap, topic, partition, records, &all);
}

/// The producer both of the above use: `settings` on top of one request in flight (which keeps
/// the order even if a request is retried) and no idempotence; waits for every delivery report
/// and panics on the first failed one. Returns the offsets in `records` order.
fn produce_in_order(
    bootstrap: &str,
    topic: &str,
    partition: i32,
    records: &[Record<'_>],
    settings: &[(&str, &str)],
) -> Vec<i64> {
    let context = Deliveries(Mutex::new(vec![None; records.len()]));
    let mut config = client_config(bootstrap);
    config
        .set("max.in.flight.requests.per.connection", "1")
        .set("enable.idempotence", "false")
        .set("message.timeout.ms", TIMEOUT.as_millis().to_string());
    for (key, value) in settings {
        config.set(*key, *value);
    }
    let producer: BaseProducer<Deliveries> = config
        .create_with_context(context)
        .unwrap_or_else(|e| panic!("producer for {bootstrap}: {e}"));
    let deadline = Instant::now() + TIMEOUT;
    for (index, (key, value)) in records.iter().enumerate() {
        let mut record =
            BaseRecord::<[u8], [u8], usize>::with_opaque_to(topic, index).partition(partition);
        if let Some(key) = key {
            record = record.key(key);
        }
        if let Some(value) = value {
            record = record.payload(value);
        }
        let mut pending = record;
        loop {
            match producer.send(pending) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(code), returned))
                    if code == rdkafka::types::RDKafkaErrorCode::QueueFull
                        && Instant::now() < deadline =>
                {
                    // Serves delivery reports, which is what frees queue space.
                    producer.poll(Duration::from_millis(10));
                    pending = returned;
                }
                Err((e, _)) => panic!("produce to {topic}-{partition} on {bootstrap}: {e}"),
            }
        }
    }
    if let Err(e) = producer.flush(deadline.saturating_duration_since(Instant::now())) {
        panic!("produce to {topic}-{partition} on {bootstrap}: flush: {e}");
    }
    let reports = producer
        .context()
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    reports
        .into_iter()
        .enumerate()
        .map(|(index, report)| match report {
            Some(Ok(offset)) => offset,
            Some(Err(e)) => panic!("record {index} to {topic}-{partition} on {bootstrap}: {e}"),
            None => {
                panic!("record {index} to {topic}-{partition} on {bootstrap}: no delivery report")
            }
        })
        .collect()
}

/// Reads `topic`-`partition` from the beginning up to the high watermark seen by Fetch and
/// returns (key, value) pairs in offset order.
pub fn read_all(bootstrap: &str, topic: &str, partition: i32) -> Vec<KeyValue> {
    read_records(bootstrap, topic, partition)
        .into_iter()
        .map(|r| (r.key, r.value))
        .collect()
}

/// Like [`read_all`], keeping each record's offset.
pub fn read_records(bootstrap: &str, topic: &str, partition: i32) -> Vec<ConsumedRecord> {
    // librdkafka refuses assign() without a group id; nothing is committed under it.
    let consumer: BaseConsumer = client_config(bootstrap)
        .set("group.id", "mm2-test-reader")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .set("auto.offset.reset", "earliest")
        // The broker holds an empty fetch this long; the default 500 ms slows every read.
        .set("fetch.wait.max.ms", "50")
        .create()
        .unwrap_or_else(|e| panic!("consumer for {bootstrap}: {e}"));
    let mut assignment = TopicPartitionList::new();
    assignment
        .add_partition_offset(topic, partition, Offset::Beginning)
        .unwrap_or_else(|e| panic!("assignment {topic}-{partition}: {e}"));
    consumer
        .assign(&assignment)
        .unwrap_or_else(|e| panic!("assign {topic}-{partition} on {bootstrap}: {e}"));

    let deadline = Instant::now() + TIMEOUT;
    let mut records = Vec::new();
    let mut last_error = None;
    while Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(100)) {
            None => {}
            Some(Ok(message)) => records.push(ConsumedRecord {
                offset: message.offset(),
                key: message.key().map(<[u8]>::to_vec),
                value: message.payload().map(<[u8]>::to_vec),
            }),
            // EOF means the fetch position reached the high watermark the broker reported.
            Some(Err(KafkaError::PartitionEOF(p))) if p == partition => return records,
            // Transient errors (e.g. a broker still starting) are retried by librdkafka;
            // keep the last one to explain a timeout.
            Some(Err(e)) => last_error = Some(e),
        }
    }
    panic!(
        "reading {topic}-{partition} on {bootstrap}: no end of partition within {TIMEOUT:?} \
         after {} records; last error: {last_error:?}",
        records.len()
    );
}

/// Commits offsets for `group` as a client outside any group generation (no join needed):
/// each entry is (topic, partition, offset, metadata).
pub fn commit_group_offsets(bootstrap: &str, group: &str, offsets: &[(&str, i32, i64, &str)]) {
    let consumer = group_consumer(bootstrap, group);
    let mut list = TopicPartitionList::new();
    for &(topic, partition, offset, metadata) in offsets {
        list.add_partition_offset(topic, partition, Offset::Offset(offset))
            .unwrap_or_else(|e| panic!("offset list {topic}-{partition}: {e}"));
        if let Some(mut element) = list.find_partition(topic, partition) {
            element.set_metadata(metadata);
        }
    }
    // A coordinator that is moving or still loading (a broker just restarted) answers with a
    // retriable error, as Java's consumer retries it.
    let deadline = Instant::now() + TIMEOUT;
    loop {
        match consumer.commit(&list, CommitMode::Sync) {
            Ok(()) => return,
            Err(KafkaError::ConsumerCommit(
                code @ (rdkafka::types::RDKafkaErrorCode::NotCoordinator
                | rdkafka::types::RDKafkaErrorCode::CoordinatorNotAvailable
                | rdkafka::types::RDKafkaErrorCode::CoordinatorLoadInProgress),
            )) if Instant::now() < deadline => {
                eprintln!("commit for group {group} on {bootstrap}: {code:?}; asking again");
                std::thread::sleep(Duration::from_millis(200)); // the coordinator's move has no event to await
            }
            Err(e) => panic!("commit for group {group} on {bootstrap}: {e}"),
        }
    }
}

/// The committed offsets of `group` for the given partitions of `topic` (OffsetFetch).
pub fn committed_offsets(
    bootstrap: &str,
    group: &str,
    topic: &str,
    partitions: &[i32],
) -> Vec<Committed> {
    let consumer = group_consumer(bootstrap, group);
    let mut list = TopicPartitionList::new();
    for &partition in partitions {
        list.add_partition(topic, partition);
    }
    let answer = consumer
        .committed_offsets(list, TIMEOUT)
        .unwrap_or_else(|e| panic!("OffsetFetch for group {group} on {bootstrap}: {e}"));
    answer
        .elements()
        .iter()
        .map(|element| {
            if let Err(e) = element.error() {
                panic!(
                    "OffsetFetch for group {group}, {topic}-{}: {e}",
                    element.partition()
                );
            }
            Committed {
                partition: element.partition(),
                offset: match element.offset() {
                    Offset::Offset(offset) => Some(offset),
                    _ => None,
                },
                metadata: element.metadata().to_owned(),
            }
        })
        .collect()
}

fn group_consumer(bootstrap: &str, group: &str) -> BaseConsumer {
    client_config(bootstrap)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .create()
        .unwrap_or_else(|e| panic!("consumer for group {group} on {bootstrap}: {e}"))
}

/// A consumer that joins `group` on `bootstrap` and keeps polling (so it stays a member) until
/// dropped.
pub struct ActiveMember {
    running: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl ActiveMember {
    /// A member of the classic protocol.
    pub fn join(bootstrap: &str, group: &str, topic: &str) -> ActiveMember {
        let mut config = client_config(bootstrap);
        // The first join waits about half of this; keep it short.
        config
            .set("session.timeout.ms", "6000")
            .set("heartbeat.interval.ms", "500");
        Self::join_with(config, group, topic)
    }

    /// A member of KIP-848's consumer protocol (`group.protocol=consumer`): the broker assigns
    /// the partitions, and the group is a "consumer" group, not a classic one.
    pub fn join_consumer_protocol(bootstrap: &str, group: &str, topic: &str) -> ActiveMember {
        let mut config = client_config(bootstrap);
        config.set("group.protocol", "consumer");
        Self::join_with(config, group, topic)
    }

    fn join_with(mut config: ClientConfig, group: &str, topic: &str) -> ActiveMember {
        let consumer: BaseConsumer = config
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap_or_else(|e| panic!("member of {group}: {e}"));
        consumer
            .subscribe(&[topic])
            .unwrap_or_else(|e| panic!("subscribe {topic}: {e}"));
        let running = Arc::new(AtomicBool::new(true));
        let assigned = Latch::new();
        let (r, a) = (Arc::clone(&running), assigned.clone());
        let thread = thread::spawn(move || {
            while r.load(Ordering::SeqCst) {
                let _ = consumer.poll(Duration::from_millis(100));
                if !a.is_open() && consumer.assignment().is_ok_and(|tpl| tpl.count() > 0) {
                    a.open();
                }
            }
        });
        assigned.wait(
            Duration::from_secs(30),
            &format!("{group} to get an assignment"),
        );
        ActiveMember {
            running,
            thread: Some(thread),
        }
    }
}

impl Drop for ActiveMember {
    fn drop(&mut self) {
        self.running.store(false, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
