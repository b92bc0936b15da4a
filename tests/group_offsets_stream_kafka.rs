//! `group.offsets.source = consumer-offsets-topic` on a real broker: the stream of the source's
//! `__consumer_offsets` keeps the newest commit of classic groups, KIP-848 consumer groups and
//! transactional committers (never an aborted one), follows rewinds and deletions, applies the
//! filters, and stops flag → wake → join → close.

use std::collections::BTreeMap;
use std::sync::{RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::producer::{BaseProducer, Producer};
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::diagnostics;
use mm2_checkpoint::group_offsets_stream::GroupOffsetsStream;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::TopicPartition;

use support::kafka::{client_config, partition_count};
use support::*;

const WAIT: Duration = Duration::from_secs(60);

/// The live-client count is process-wide: the test that counts holds this for writing, every
/// test that opens clients holds it for reading (so those still run in parallel).
static CLIENTS: RwLock<()> = RwLock::new(());

fn opening_clients() -> RwLockReadGuard<'static, ()> {
    CLIENTS.read().unwrap_or_else(|e| e.into_inner())
}

/// A stream over the shared source broker, keeping groups that start with `prefix`.
fn stream(bootstrap: &str, prefix: &str) -> GroupOffsetsStream {
    let (config, _) = MirrorCheckpointConfig::from_properties([
        ("source.cluster.alias", "S"),
        ("source.cluster.bootstrap.servers", bootstrap),
        ("target.cluster.bootstrap.servers", bootstrap),
        ("group.offsets.source", "consumer-offsets-topic"),
        ("groups", &format!("{prefix}.*")),
    ])
    .unwrap();
    let stream = GroupOffsetsStream::start(&config, |_| true).unwrap();
    wait_until(
        WAIT,
        "the stream to read __consumer_offsets to its end",
        || stream.caught_up() || stream.failure().is_some(),
    );
    assert_eq!(stream.failure(), None);
    stream
}

/// Offsets of `group` as the stream keeps them, by partition of `topic`.
fn kept(stream: &GroupOffsetsStream, group: &str) -> BTreeMap<TopicPartition, i64> {
    stream
        .group_offsets(group)
        .into_iter()
        .map(|(tp, c)| (tp, c.offset))
        .collect()
}

fn offsets(pairs: &[(&str, i32, i64)]) -> BTreeMap<TopicPartition, i64> {
    pairs
        .iter()
        .map(|(t, p, o)| (TopicPartition::new(*t, *p), *o))
        .collect()
}

fn wait_kept(stream: &GroupOffsetsStream, group: &str, want: &BTreeMap<TopicPartition, i64>) {
    wait_until(
        WAIT,
        &format!("the stream to keep {want:?} for {group}"),
        || &kept(stream, group) == want,
    );
}

/// A KIP-848 member (`group.protocol=consumer`) of `group`, assigned `topic`, that commits
/// `offset` for each of its partitions and leaves.
fn kip848_commit(bootstrap: &str, group: &str, topic: &str, offset: i64) {
    let consumer: BaseConsumer = client_config(bootstrap)
        .set("group.id", group)
        .set("group.protocol", "consumer")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let deadline = Instant::now() + WAIT;
    let assigned = loop {
        let _ = consumer.poll(Duration::from_millis(100));
        let assignment = consumer.assignment().unwrap();
        if assignment.count() > 0 {
            break assignment;
        }
        assert!(Instant::now() < deadline, "{group} got no assignment");
    };
    let mut list = TopicPartitionList::new();
    for e in assigned.elements() {
        list.add_partition_offset(e.topic(), e.partition(), Offset::Offset(offset))
            .unwrap();
    }
    consumer.commit(&list, CommitMode::Sync).unwrap();
    consumer.unsubscribe();
}

/// A transactional producer committing offsets for `group` inside transactions.
struct TransactionalCommitter {
    producer: BaseProducer,
    group: BaseConsumer,
}

impl TransactionalCommitter {
    fn new(bootstrap: &str, group: &str) -> Self {
        let producer: BaseProducer = client_config(bootstrap)
            .set("transactional.id", unique("txn"))
            .create()
            .unwrap();
        producer.init_transactions(Duration::from_secs(30)).unwrap();
        let group = client_config(bootstrap)
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        TransactionalCommitter { producer, group }
    }

    fn commit_offsets(&self, topic: &str, partition: i32, offset: i64, commit: bool) {
        self.producer.begin_transaction().unwrap();
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(topic, partition, Offset::Offset(offset))
            .unwrap();
        let metadata = self.group.group_metadata().unwrap();
        self.producer
            .send_offsets_to_transaction(&list, &metadata, Duration::from_secs(30))
            .unwrap();
        if commit {
            self.producer
                .commit_transaction(Duration::from_secs(30))
                .unwrap();
        } else {
            self.producer
                .abort_transaction(Duration::from_secs(30))
                .unwrap();
        }
    }
}

#[test]
fn classic_kip848_and_committed_transactional_offsets_are_kept_and_aborted_ones_never() {
    let _clients = opening_clients();
    let bootstrap = shared().bootstrap();
    let prefix = unique("stream-kinds");
    let topic = format!("{prefix}-orders");
    create_topic(&bootstrap, &topic, 2);
    let before = format!("{prefix}-before");
    // Committed before the stream starts: read from the beginning of the topic.
    commit_group_offsets(&bootstrap, &before, &[(&topic, 0, 3, "")]);
    let stream = stream(&bootstrap, &prefix);
    wait_kept(&stream, &before, &offsets(&[(&topic, 0, 3)]));

    let classic = format!("{prefix}-classic");
    commit_group_offsets(
        &bootstrap,
        &classic,
        &[(&topic, 0, 5, "m"), (&topic, 1, 6, "")],
    );
    wait_kept(
        &stream,
        &classic,
        &offsets(&[(&topic, 0, 5), (&topic, 1, 6)]),
    );

    let consumer = format!("{prefix}-kip848");
    kip848_commit(&bootstrap, &consumer, &topic, 7);
    wait_kept(
        &stream,
        &consumer,
        &offsets(&[(&topic, 0, 7), (&topic, 1, 7)]),
    );

    let txn = format!("{prefix}-txn");
    let committer = TransactionalCommitter::new(&bootstrap, &txn);
    committer.commit_offsets(&topic, 0, 11, true);
    wait_kept(&stream, &txn, &offsets(&[(&topic, 0, 11)]));
    committer.commit_offsets(&topic, 0, 99, false);
    // A later commit of the same group lands after the aborted one in the same partition of
    // __consumer_offsets; once it is kept, the aborted commit was read past, and skipped.
    commit_group_offsets(&bootstrap, &txn, &[(&topic, 1, 12, "")]);
    wait_kept(&stream, &txn, &offsets(&[(&topic, 0, 11), (&topic, 1, 12)]));

    let counts = stream.counts();
    assert_eq!((counts.malformed, counts.unknown), (0, 0), "{counts:?}");
}

#[test]
fn rewinds_are_followed_and_deleted_groups_are_dropped() {
    let _clients = opening_clients();
    let bootstrap = shared().bootstrap();
    let prefix = unique("stream-churn");
    let topic = format!("{prefix}-orders");
    create_topic(&bootstrap, &topic, 1);
    let stream = stream(&bootstrap, &prefix);
    let group = format!("{prefix}-g");
    commit_group_offsets(&bootstrap, &group, &[(&topic, 0, 40, "")]);
    wait_kept(&stream, &group, &offsets(&[(&topic, 0, 40)]));
    commit_group_offsets(&bootstrap, &group, &[(&topic, 0, 4, "")]);
    wait_kept(&stream, &group, &offsets(&[(&topic, 0, 4)]));
    stream.wait_for_changes(Duration::ZERO);

    let admin: AdminClient<DefaultClientContext> = client_config(&bootstrap).create().unwrap();
    let deleted = block_on(
        admin.delete_groups(&[group.as_str()], &AdminOptions::new()),
        WAIT,
        "deleting the group",
    )
    .unwrap();
    assert!(deleted.iter().all(Result::is_ok), "{deleted:?}");
    wait_kept(&stream, &group, &BTreeMap::new());
    assert!(!stream.groups().contains(&group));
    // The deletion is reported as a change, so an emitter learns the group is gone.
    assert!(stream.wait_for_changes(WAIT).contains(&group));
}

/// Kafka's partition of `__consumer_offsets` for `group`: Java's `String.hashCode`, made
/// non-negative as `Utils.abs` does, modulo the partition count.
fn coordinator_partition(group: &str, partitions: i32) -> i32 {
    let hash = group.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    let abs = if hash == i32::MIN { 0 } else { hash.abs() };
    abs % partitions
}

#[test]
fn groups_and_topics_outside_the_filters_are_never_kept() {
    let _clients = opening_clients();
    let bootstrap = shared().bootstrap();
    let prefix = unique("stream-filter");
    let topic = format!("{prefix}-orders");
    let excluded_topic = format!("{prefix}-audit.replica");
    create_topic(&bootstrap, &topic, 1);
    create_topic(&bootstrap, &excluded_topic, 1);
    let stream = stream(&bootstrap, &prefix);
    let partitions = partition_count(&bootstrap, "__consumer_offsets").unwrap() as i32;
    let outside = unique("other-stream-filter");
    // A group of ours whose records share the outside group's partition of __consumer_offsets:
    // once its later commit is kept, the outside group's commit was read before it.
    let inside = (0..)
        .map(|i| format!("{prefix}-g{i}"))
        .find(|g| {
            coordinator_partition(g, partitions) == coordinator_partition(&outside, partitions)
        })
        .unwrap();
    commit_group_offsets(&bootstrap, &outside, &[(&topic, 0, 1, "")]);
    commit_group_offsets(&bootstrap, &inside, &[(&excluded_topic, 0, 2, "")]);
    commit_group_offsets(&bootstrap, &inside, &[(&topic, 0, 3, "")]);
    wait_kept(&stream, &inside, &offsets(&[(&topic, 0, 3)]));
    assert!(kept(&stream, &outside).is_empty());
    assert!(stream.counts().filtered >= 2);
}

#[test]
fn stop_wakes_the_reader_joins_its_thread_and_closes_its_consumer() {
    let _counting = CLIENTS.write().unwrap_or_else(|e| e.into_inner());
    let bootstrap = shared().bootstrap();
    let prefix = unique("stream-stop");
    let clients_before = diagnostics::live_clients();
    let mut stream = stream(&bootstrap, &prefix);
    assert!(diagnostics::live_clients() > clients_before);
    // The reader now waits in a 500 ms poll with nothing to read; stop must not wait for it
    // to time out, let alone for more.
    let started = Instant::now();
    stream.stop();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "stop took {took:?}");
    assert_eq!(diagnostics::live_clients(), clients_before);
    // Idempotent, and drop after stop does nothing more.
    stream.stop();
    drop(stream);
    assert_eq!(diagnostics::live_clients(), clients_before);
}
