//! Smoke tests of the shared test infrastructure: the tansu broker process, the mock
//! clusters and the client helpers in tests/support, plus the tansu behaviours they document.

mod support;

use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

use support::kafka::{client_config, partition_count, KeyValue, TIMEOUT};
use support::tansu::accepts_connections;
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
fn two_tansu_brokers_round_trip_records_and_offsets_and_restart_empty_on_the_same_port() {
    let source = Tansu::start();
    let mut target = Tansu::start();
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

    let target_port = target.port();
    target.kill();
    assert!(!target.is_running());
    wait_until(
        Duration::from_secs(5),
        "the killed broker's port refuses connections",
        || !accepts_connections(target_port),
    );
    // The other broker is unaffected.
    assert_eq!(read_all(&source_bs, "smoke", 1).len(), 10);

    target.restart_on_same_port();
    assert_eq!(target.port(), target_port);
    assert!(accepts_connections(target_port));
    // In-memory storage: the restarted broker has forgotten the topic.
    assert_eq!(partition_count(&target_bs, "other"), None);
    create_topic(&target_bs, "other", 1);
    assert_eq!(produce(&target_bs, "other", 0, None, Some(b"again")), 0);

    let source_port = source.port();
    drop(source);
    drop(target);
    for port in [source_port, target_port] {
        assert!(
            !accepts_connections(port),
            "broker on port {port} outlived its Tansu"
        );
    }
}

/// Pins what tests/support/kafka.rs documents about tansu, so a tansu upgrade that changes
/// any of it fails here rather than confusing a later test.
#[test]
fn tansu_behaves_as_the_support_helpers_document() {
    let broker = Tansu::start();
    let bs = broker.bootstrap();

    // A consumer's metadata request does not create a topic; a producer's does (4 partitions).
    let consumer: BaseConsumer = client_config(&bs).create().expect("consumer");
    consumer
        .fetch_metadata(Some("asked-by-consumer"), TIMEOUT)
        .expect("metadata");
    assert_eq!(partition_count(&bs, "asked-by-consumer"), None);
    assert_eq!(produce(&bs, "never-created", 0, None, Some(b"v")), 0);
    assert_eq!(partition_count(&bs, "never-created"), Some(4));

    create_topic_with_config(&bs, "compacted", 1, &[("cleanup.policy", "compact")]);
    assert_eq!(
        topic_config(&bs, "compacted", "cleanup.policy").as_deref(),
        Some("compact")
    );

    // Null keys and values survive the round trip.
    create_topic(&bs, "nulls", 1);
    produce_many(&bs, "nulls", 0, &[(None, None), (Some(b"k"), None)]);
    assert_eq!(
        read_all(&bs, "nulls", 0),
        vec![(None, None), (Some(b"k".to_vec()), None)]
    );

    // Offsets commit without a group join, but tansu drops the metadata string.
    commit_group_offsets(&bs, "g", &[("nulls", 0, 2, "kept-by-kafka")]);
    let committed = committed_offsets(&bs, "g", "nulls", &[0]);
    assert_eq!(
        committed,
        vec![Committed {
            partition: 0,
            offset: Some(2),
            metadata: String::new()
        }]
    );
    assert_eq!(group_state(&bs, "g").as_deref(), Some("Empty"));

    // ListOffsets "latest" after one 5-record batch answers 1 (the batch's base offset + 1),
    // while reading to the Fetch high watermark sees all 5 records.
    create_topic(&bs, "batched", 1);
    let producer: BaseProducer = client_config(&bs)
        .set("linger.ms", "500")
        .create()
        .expect("producer");
    for i in 0..5 {
        let value = format!("v{i}");
        producer
            .send(
                BaseRecord::<[u8], [u8]>::to("batched")
                    .partition(0)
                    .payload(value.as_bytes()),
            )
            .expect("send");
    }
    producer.flush(TIMEOUT).expect("flush");
    let (low, high) = consumer
        .fetch_watermarks("batched", 0, TIMEOUT)
        .expect("watermarks");
    assert_eq!((low, high), (0, 1));
    assert_eq!(read_records(&bs, "batched", 0).len(), 5);
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
