//! `OffsetSyncWriter` against an embedded mock cluster: what reaches the offset-syncs topic, when.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::offset_sync_writer::{OffsetSyncWriter, OffsetSyncWriterConfig, Queued};
use mm2_checkpoint::{Error, OffsetSync, TopicPartition};

const SYNCS: &str = "mm2-offset-syncs.target.internal";

/// Tests here assert the process-wide live-client count, so they run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn settings(bootstrap: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("bootstrap.servers".to_string(), bootstrap.to_string()),
        // A user setting the writer must override to keep syncs in order.
        (
            "max.in.flight.requests.per.connection".to_string(),
            "5".to_string(),
        ),
    ])
}

fn syncs_in_topic(c: &EmbeddedClusters) -> Vec<OffsetSync> {
    c.read_partition0(Side::Source, SYNCS)
        .unwrap()
        .into_iter()
        .map(|(k, v)| OffsetSync::decode(k.as_deref(), v.as_deref()).unwrap())
        .collect()
}

#[test]
fn due_syncs_go_out_at_once_and_delayed_ones_on_the_flush_timer_or_at_close() {
    let _g = serial();
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    let config = OffsetSyncWriterConfig {
        offset_lag_max: 50,
        // Long enough that the first delivery (client start-up included) lands well before it,
        // even on a loaded machine.
        flush_interval: Duration::from_secs(5),
        ..OffsetSyncWriterConfig::default()
    };
    let mut w =
        OffsetSyncWriter::new(&settings(&c.bootstrap(Side::Source)), SYNCS, &config).unwrap();
    let orders = TopicPartition::new("orders", 0);
    let began = Instant::now();
    assert_eq!(w.report(&orders, 0, 100), Queued::Pending);
    for u in 1..5 {
        assert_eq!(w.report(&orders, u, 100 + u), Queued::Delayed);
    }
    // Before the flush interval only the first sync goes out.
    w.flush_pending_sends_for_test(Duration::from_secs(3));
    assert!(began.elapsed() < Duration::from_secs(5));
    assert_eq!(
        syncs_in_topic(&c),
        vec![OffsetSync::new(orders.clone(), 0, 100)]
    );
    // Once the interval passes, a tick promotes the latest delayed sync.
    while w.time_to_next_promotion() > Duration::ZERO {
        std::thread::sleep(w.time_to_next_promotion());
    }
    w.tick();
    w.flush_pending_sends_for_test(Duration::from_secs(10));
    assert_eq!(
        syncs_in_topic(&c),
        vec![
            OffsetSync::new(orders.clone(), 0, 100),
            OffsetSync::new(orders.clone(), 4, 104)
        ]
    );
    // An upstream gap is due at once; the fresh record after it waits for close.
    assert_eq!(w.report(&orders, 9, 105), Queued::Pending);
    assert_eq!(w.report(&orders, 10, 106), Queued::Delayed);
    let stats = w.close(Duration::from_secs(10)).unwrap();
    assert_eq!(
        (stats.syncs_sent, stats.syncs_delivered, stats.syncs_failed),
        (4, 4, 0)
    );
    assert_eq!(stats.records_reported, 7);
    assert_eq!((stats.pending, stats.delayed, stats.outstanding), (0, 0, 0));
    let written = syncs_in_topic(&c);
    assert_eq!(
        written[2..],
        [
            OffsetSync::new(orders.clone(), 9, 105),
            OffsetSync::new(orders, 10, 106)
        ]
    );
    assert_eq!(diagnostics::live_clients(), 0);
}

/// Waits until nothing is pending or outstanding, without promoting delayed syncs.
trait FlushSends {
    fn flush_pending_sends_for_test(&mut self, timeout: Duration);
}

impl FlushSends for OffsetSyncWriter {
    fn flush_pending_sends_for_test(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            self.wait_for_capacity(timeout).unwrap();
            let s = self.stats();
            if s.pending == 0 && s.outstanding == 0 {
                return;
            }
            assert!(Instant::now() < deadline, "sends not done: {s:?}");
            std::thread::sleep(Duration::from_millis(5));
            self.tick();
        }
    }
}

#[test]
fn close_gives_up_with_timed_out_when_the_cluster_is_unreachable_and_frees_the_producer() {
    let _g = serial();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut w = OffsetSyncWriter::new(
        &settings(&format!("127.0.0.1:{port}")),
        SYNCS,
        &OffsetSyncWriterConfig::default(),
    )
    .unwrap();
    w.report(&TopicPartition::new("orders", 0), 0, 0);
    let began = Instant::now();
    let err = w.close(Duration::from_millis(500)).unwrap_err();
    assert!(matches!(err, Error::TimedOut(_)), "{err}");
    assert!(err.to_string().contains("1 unacknowledged"), "{err}");
    assert!(began.elapsed() < Duration::from_secs(2));
    assert_eq!(diagnostics::live_clients(), 0);
}
