//! `translate_offsets` and `failover_report` against an embedded mock target cluster.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, RawRecord, Side};
use mm2_checkpoint::remote_cluster_utils::{
    failover_report, translate_offsets, GroupSelector, PartitionFailover,
};
use mm2_checkpoint::{Checkpoint, Error, ReplicationPolicy, TopicPartition};

const CHECKPOINTS: &str = "primary.checkpoints.internal";

/// Tests here assert the process-wide live-client count, so they run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn settings(bootstrap: &str) -> BTreeMap<String, String> {
    BTreeMap::from([("bootstrap.servers".to_string(), bootstrap.to_string())])
}

fn checkpoint(group: &str, partition: i32, upstream: i64, downstream: i64) -> RawRecord {
    let cp = Checkpoint::new(
        group,
        TopicPartition::new("primary.orders", partition),
        upstream,
        downstream,
        "",
    );
    (
        0,
        Some(cp.encode_key().unwrap()),
        Some(cp.encode_value().unwrap()),
    )
}

fn tp(p: i32) -> TopicPartition {
    TopicPartition::new("primary.orders", p)
}

#[test]
fn translates_the_latest_checkpoints_and_reports_skips_and_rereads_against_current_commits() {
    let _g = serial();
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c.create_topic(Side::Target, "primary.orders", 2).unwrap();
    c.produce(
        Side::Target,
        CHECKPOINTS,
        &[
            checkpoint("app", 0, 100, 90),
            checkpoint("app", 1, 10, 8),
            checkpoint("batch", 0, 7, 7),
            (0, Some(b"garbage".to_vec()), Some(b"x".to_vec())),
            checkpoint("app", 0, 200, 180), // supersedes 90
            checkpoint("app", 1, 12, -1),   // negative: skipped, 8 stays
            checkpoint("other", 0, 1, 1),   // not selected
        ],
    )
    .unwrap();
    c.commit_offsets(
        Side::Target,
        "app",
        &[
            ("primary.orders", 0, 150, ""),
            ("primary.orders", 1, 20, ""),
        ],
    )
    .unwrap();

    let target = settings(&c.bootstrap(Side::Target));
    let policy = ReplicationPolicy::default();
    let selector = GroupSelector::list(["app", "batch"]);
    let t = translate_offsets(
        &target,
        "primary",
        &policy,
        &selector,
        Duration::from_secs(30),
    )
    .unwrap();
    assert_eq!(t.checkpoints_topic, CHECKPOINTS);
    assert_eq!(t.records_read, 7);
    assert_eq!((t.malformed_records, t.negative_offset_records), (1, 1));
    let app = t.group("app").unwrap();
    assert_eq!(
        (app[&tp(0)].offset, app[&tp(0)].upstream_offset),
        (180, 200)
    );
    assert_eq!(app[&tp(1)].offset, 8);
    assert_eq!(t.group("batch").unwrap()[&tp(0)].offset, 7);
    assert!(t.group("other").is_none());

    let report = failover_report(&target, &t, Duration::from_secs(30)).unwrap();
    let entry = |g: &str, p: i32| -> PartitionFailover {
        report
            .partitions
            .iter()
            .find(|e| e.group == g && e.topic_partition == tp(p))
            .cloned()
            .unwrap_or_else(|| panic!("no entry for {g} {p}: {report:?}"))
    };
    // app is at 150 on p0: moving to 180 skips 30; at 20 on p1: moving to 8 re-reads 12.
    assert_eq!(
        (entry("app", 0).current_offset, entry("app", 0).skipped),
        (Some(150), 30)
    );
    assert_eq!(
        (entry("app", 1).current_offset, entry("app", 1).reread),
        (Some(20), 12)
    );
    // batch has no commit on the target: nothing to compare.
    let batch = entry("batch", 0);
    assert_eq!(
        (batch.current_offset, batch.skipped, batch.reread),
        (None, 0, 0)
    );
    assert_eq!(report.partitions.len(), 3);
    assert_eq!((report.total_skipped(), report.total_reread()), (30, 12));
    assert_eq!(diagnostics::live_clients(), 0);
}

#[test]
fn a_missing_checkpoints_topic_is_an_error_naming_it_not_an_empty_answer() {
    let _g = serial();
    let c = EmbeddedClusters::new().unwrap();
    let err = translate_offsets(
        &settings(&c.bootstrap(Side::Target)),
        "nowhere",
        &ReplicationPolicy::default(),
        &GroupSelector::one("app"),
        Duration::from_secs(30),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("nowhere.checkpoints.internal"),
        "{err}"
    );
    assert_eq!(diagnostics::live_clients(), 0);
}

/// A loopback address nothing listens on (connections are refused).
fn dead_bootstrap() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

#[test]
fn both_calls_give_up_with_timed_out_within_their_timeout_instead_of_returning_partial_data() {
    let _g = serial();
    let target = settings(&dead_bootstrap());
    let timeout = Duration::from_millis(1500);
    let began = Instant::now();
    let err = translate_offsets(
        &target,
        "primary",
        &ReplicationPolicy::default(),
        &GroupSelector::regex(".*").unwrap(),
        timeout,
    )
    .unwrap_err();
    let took = began.elapsed();
    assert!(matches!(err, Error::TimedOut(_)), "{err}");
    assert!(
        err.to_string().contains("no translation is returned"),
        "{err}"
    );
    assert!(took < timeout + Duration::from_millis(700), "{took:?}");

    // A translation to compare against: one group, one partition.
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c.produce(Side::Target, CHECKPOINTS, &[checkpoint("app", 0, 5, 5)])
        .unwrap();
    let translated = translate_offsets(
        &settings(&c.bootstrap(Side::Target)),
        "primary",
        &ReplicationPolicy::default(),
        &GroupSelector::one("app"),
        Duration::from_secs(30),
    )
    .unwrap();
    let began = Instant::now();
    let err = failover_report(&target, &translated, timeout).unwrap_err();
    let took = began.elapsed();
    assert!(matches!(err, Error::TimedOut(_)), "{err}");
    assert!(took < timeout + Duration::from_millis(700), "{took:?}");
    assert_eq!(diagnostics::live_clients(), 0);
}

/// A group's coordinator that moves (`NotCoordinator`) or is briefly unavailable while its
/// offsets are fetched, as around a broker restart. librdkafka's admin client answered these
/// by queueing a coordinator query on a consumer group that an admin client does not have
/// (librdkafka bug confluentinc/librdkafka#5040) and took the whole process down; the fetch is now retried on the
/// group's new coordinator and the report is complete.
#[test]
fn a_coordinator_that_moves_while_offsets_are_fetched_is_retried_not_a_crash() {
    use rdkafka_sys::types::{RDKafkaApiKey, RDKafkaRespErr};
    let _g = serial();
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c.create_topic(Side::Target, "primary.orders", 1).unwrap();
    c.produce(Side::Target, CHECKPOINTS, &[checkpoint("app", 0, 5, 5)])
        .unwrap();
    c.commit_offsets(Side::Target, "app", &[("primary.orders", 0, 3, "")])
        .unwrap();
    let target = settings(&c.bootstrap(Side::Target));
    let translated = translate_offsets(
        &target,
        "primary",
        &ReplicationPolicy::default(),
        &GroupSelector::one("app"),
        Duration::from_secs(30),
    )
    .unwrap();
    c.inject_request_errors(
        Side::Target,
        RDKafkaApiKey::OffsetFetch,
        &[
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
        ],
    );
    let report = failover_report(&target, &translated, Duration::from_secs(30)).unwrap();
    assert_eq!(report.partitions.len(), 1, "{report:?}");
    let p = &report.partitions[0];
    assert_eq!((p.current_offset, p.skipped, p.reread), (Some(3), 2, 0));
    assert_eq!(diagnostics::live_clients(), 0);
}
