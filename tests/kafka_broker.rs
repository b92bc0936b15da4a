//! Tests of the shared test infrastructure: the Kafka launcher (scripts/kafka-broker.sh through
//! tests/support/broker.rs), the mock clusters and the client helpers in tests/support, plus
//! the broker behaviours those helpers document.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

use support::broker::{accepts_connections, script};
use support::kafka::{client_config, partition_count, KeyValue, TIMEOUT};
use support::*;

/// (key, value) pairs as [`produce_numbered`] writes them.
fn numbered(count: usize) -> Vec<KeyValue> {
    (0..count)
        .map(|i| {
            (
                Some(format!("key-{i}").into_bytes()),
                Some(format!("value-{i}").into_bytes()),
            )
        })
        .collect()
}

#[test]
fn two_brokers_are_two_clusters_that_survive_kill_and_restart_with_or_without_their_data() {
    let (source, mut target) = Broker::start_pair();
    eprintln!(
        "start-up (format + start + ready): {:?} and {:?}",
        source.startup_time(),
        target.startup_time()
    );
    assert_ne!(source.port(), target.port());
    let (source_bs, target_bs) = (source.bootstrap(), target.bootstrap());

    create_topic(&source_bs, "smoke", 2);
    create_topic(&target_bs, "other", 1);
    // Two brokers are two clusters: nothing is shared between them.
    assert_eq!(partition_count(&source_bs, "other"), None);
    assert_eq!(partition_count(&target_bs, "smoke"), None);

    let offsets = produce_numbered(&source_bs, "smoke", 1, 10);
    assert_eq!(offsets, (0..10).collect::<Vec<i64>>());
    assert_eq!(read_all(&source_bs, "smoke", 1), numbered(10));
    assert_eq!(read_all(&source_bs, "smoke", 0), numbered(0));

    commit_group_offsets(&source_bs, "smoke-group", &[("smoke", 1, 7, "")]);
    let committed = committed_offsets(&source_bs, "smoke-group", "smoke", &[0, 1]);
    assert_eq!(committed[0].offset, None);
    assert_eq!(committed[1].offset, Some(7));

    produce_numbered(&target_bs, "other", 0, 3);
    commit_group_offsets(&target_bs, "kept", &[("other", 0, 2, "m")]);
    let target_port = target.port();
    target.kill();
    assert!(!target.is_running());
    assert!(
        !accepts_connections(target_port),
        "the killed broker's port still accepts connections"
    );
    // The other broker is unaffected.
    assert_eq!(read_all(&source_bs, "smoke", 1).len(), 10);

    // Same log dir: topic, records and committed offsets are back.
    target.restart();
    eprintln!("restart with data: {:?}", target.startup_time());
    assert_eq!(target.port(), target_port);
    assert_eq!(read_all(&target_bs, "other", 0), numbered(3));
    assert_eq!(
        committed_offsets(&target_bs, "kept", "other", &[0])[0].offset,
        Some(2)
    );

    // Fresh log dir: an empty cluster at the same address.
    target.restart_fresh();
    eprintln!("restart empty: {:?}", target.startup_time());
    assert_eq!(target.port(), target_port);
    assert_eq!(partition_count(&target_bs, "other"), None);
    create_topic(&target_bs, "other", 1);
    assert_eq!(produce(&target_bs, "other", 0, None, Some(b"again")), 0);

    let source_port = source.port();
    let handles: Vec<PathBuf> = [&source, &target]
        .iter()
        .map(|b| b.handle().to_path_buf())
        .collect();
    drop(source);
    drop(target);
    for port in [source_port, target_port] {
        assert!(
            !accepts_connections(port),
            "broker on port {port} outlived its Broker"
        );
    }
    for handle in handles {
        assert!(!handle.exists(), "{} left behind", handle.display());
    }
}

/// The watchdog: a process that started a broker and died without stopping it (here a `sleep`
/// holding the lifeline pipe, SIGKILLed) leaves no broker and no log dir behind.
#[test]
fn a_broker_whose_owner_is_killed_is_stopped_and_deleted_by_its_watchdog() {
    let mut owner = Command::new("sleep")
        .arg("600")
        .stdout(Stdio::piped())
        .spawn()
        .expect("sleep");
    let lifeline = owner.stdout.take().expect("pipe");
    // Only the owner holds the write end; the launcher's watchdog gets the read end.
    let out = Command::new(script())
        .args(["start", "--lifeline-stdin"])
        .stdin(Stdio::from(lifeline))
        .stderr(Stdio::inherit())
        .output()
        .expect("kafka-broker.sh start");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_owned))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
    };
    let handle = PathBuf::from(field("handle"));
    let pid = field("pid");
    let port: u16 = field("bootstrap")
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(accepts_connections(port));

    owner.kill().expect("kill the owner");
    owner.wait().expect("reap the owner");
    wait_until(
        Duration::from_secs(20),
        "the watchdog stops the broker and deletes its dir",
        || !PathBuf::from(format!("/proc/{pid}")).exists() && !handle.exists(),
    );
    assert!(!accepts_connections(port));
}

#[test]
fn the_shared_broker_is_started_once_per_test_binary() {
    let a = shared();
    let b = shared();
    assert!(std::ptr::eq(a, b));
    assert!(a.is_running());
    let topic = unique("shared-smoke");
    create_topic(&a.bootstrap(), &topic, 1);
    assert_eq!(produce(&a.bootstrap(), &topic, 0, None, Some(b"v")), 0);
    assert_ne!(unique("x"), unique("x"));
}

/// Pins what tests/support/kafka.rs documents about Apache Kafka, so that a Kafka upgrade that
/// changes any of it fails here rather than confusing a later test.
#[test]
fn kafka_behaves_as_the_support_helpers_document() {
    let bs = shared().bootstrap();
    let name = |s: &str| unique(&format!("doc-{s}"));

    // A consumer's metadata request does not create a topic; a producer's does (1 partition).
    let (asked, produced) = (name("asked-by-consumer"), name("never-created"));
    let consumer: BaseConsumer = client_config(&bs).create().expect("consumer");
    consumer
        .fetch_metadata(Some(&asked), TIMEOUT)
        .expect("metadata");
    assert_eq!(partition_count(&bs, &asked), None);
    assert_eq!(produce(&bs, &produced, 0, None, Some(b"v")), 0);
    assert_eq!(partition_count(&bs, &produced), Some(1));

    let compacted = name("compacted");
    create_topic_with_config(&bs, &compacted, 1, &[("cleanup.policy", "compact")]);
    assert_eq!(
        topic_config(&bs, &compacted, "cleanup.policy").as_deref(),
        Some("compact")
    );

    // Null keys and values survive the round trip.
    let nulls = name("nulls");
    create_topic(&bs, &nulls, 1);
    produce_many(&bs, &nulls, 0, &[(None, None), (Some(b"k"), None)]);
    assert_eq!(
        read_all(&bs, &nulls, 0),
        vec![(None, None), (Some(b"k".to_vec()), None)]
    );

    // Offsets commit without a group join, and Kafka keeps the metadata string (tansu did not).
    let group = name("g");
    commit_group_offsets(&bs, &group, &[(&nulls, 0, 2, "kept-by-kafka")]);
    let committed = committed_offsets(&bs, &group, &nulls, &[0]);
    assert_eq!(
        committed,
        vec![Committed {
            partition: 0,
            offset: Some(2),
            metadata: "kept-by-kafka".to_owned()
        }]
    );
    assert_eq!(group_state(&bs, &group).as_deref(), Some("Empty"));

    // ListOffsets "latest" after one 5-record batch is the high watermark, 5 (tansu answered 1,
    // the batch's base offset + 1).
    let batched = name("batched");
    create_topic(&bs, &batched, 1);
    let producer: BaseProducer = client_config(&bs)
        .set("linger.ms", "500")
        .create()
        .expect("producer");
    for i in 0..5 {
        let value = format!("v{i}");
        producer
            .send(
                BaseRecord::<[u8], [u8]>::to(&batched)
                    .partition(0)
                    .payload(value.as_bytes()),
            )
            .expect("send");
    }
    producer.flush(TIMEOUT).expect("flush");
    let (low, high) = consumer
        .fetch_watermarks(&batched, 0, TIMEOUT)
        .expect("watermarks");
    assert_eq!((low, high), (0, 5));
    assert_eq!(read_records(&bs, &batched, 0).len(), 5);
}

#[test]
fn mock_pair_round_trips_records_and_keeps_commit_metadata() {
    let mocks = MockPair::new();
    let (source, target) = (mocks.source_bootstrap(), mocks.target_bootstrap());
    assert_ne!(source, target);
    mocks.create_source_topic("topic", 2);
    mocks.create_target_topic("source.checkpoints.internal", 1);

    assert_eq!(produce_numbered(&source, "topic", 1, 3), vec![0, 1, 2]);
    assert_eq!(read_all(&source, "topic", 1), numbered(3));
    assert_eq!(partition_count(&target, "topic"), None);

    commit_group_offsets(&source, "g", &[("topic", 1, 3, "meta")]);
    assert_eq!(
        committed_offsets(&source, "g", "topic", &[1]),
        vec![Committed {
            partition: 1,
            offset: Some(3),
            metadata: "meta".to_owned()
        }]
    );
}
