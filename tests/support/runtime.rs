//! Helpers for the runtime tests of `CheckpointTask`: serialisation of tests that assert
//! process-wide counters, a capturing logger, latches, latency summaries, a deterministic PRNG
//! and the checkpoint monotonicity check.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, TopicPartition};

/// Tests that assert process-wide counters (live clients/threads, overlapping client calls)
/// run one at a time within a test binary.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Asserts that no library client or thread is alive and that no two threads ever overlapped
/// inside one client, since the process started.
pub fn assert_no_leaks() {
    assert_eq!(
        diagnostics::live_clients(),
        0,
        "live Kafka clients after stop"
    );
    assert_eq!(
        diagnostics::live_threads(),
        0,
        "live library threads after stop"
    );
    assert_eq!(
        diagnostics::concurrent_client_access(),
        0,
        "overlapping client calls"
    );
}

/// Asserts that a stopped task has no client or thread left, and that no two threads ever
/// overlapped inside one of its clients. Per task, so tests that run in parallel check only
/// their own tasks and need no [`serial`] lock.
pub fn assert_task_clean(task: &CheckpointTask) {
    assert_eq!(
        task.diagnostics(),
        diagnostics::Diagnostics::default(),
        "the task's clients, threads and overlapping client calls after stop"
    );
}

/// One captured log record.
#[derive(Clone, Debug)]
pub struct LogLine {
    /// Level.
    pub level: log::Level,
    /// Target (module path, or `librdkafka` for the client's own logs).
    pub target: String,
    /// Formatted message.
    pub message: String,
}

/// A logger that keeps every record at Info or above for the test to inspect, and echoes
/// them to stderr when `MM2_TEST_LOG` is set (`debug` also echoes Debug records).
struct CaptureLog {
    lines: Mutex<Vec<LogLine>>,
    echo: Option<log::Level>,
    started: Instant,
}

impl log::Log for CaptureLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Info || self.echo.is_some_and(|e| m.level() <= e)
    }

    fn log(&self, r: &log::Record) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let message = r.args().to_string();
        if self.echo.is_some_and(|e| r.level() <= e) {
            eprintln!(
                "{:>9.3?} [{}] {} {}",
                self.started.elapsed(),
                r.level(),
                r.target(),
                message
            );
        }
        if r.level() <= log::Level::Info {
            let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
            // Bounded: the long tests log a few lines per task.
            if lines.len() < 200_000 {
                lines.push(LogLine {
                    level: r.level(),
                    target: r.target().to_string(),
                    message,
                });
            }
        }
    }

    fn flush(&self) {}
}

fn capture() -> &'static CaptureLog {
    static LOGGER: OnceLock<CaptureLog> = OnceLock::new();
    LOGGER.get_or_init(|| CaptureLog {
        lines: Mutex::new(Vec::new()),
        echo: match std::env::var("MM2_TEST_LOG").as_deref() {
            Ok("debug") => Some(log::Level::Debug),
            Ok(_) => Some(log::Level::Info),
            Err(_) => None,
        },
        started: Instant::now(),
    })
}

/// Installs the capturing logger (once per process; later calls do nothing).
pub fn install_logger() {
    let logger = capture();
    if log::set_logger(logger).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
    }
}

/// Every record captured so far at Info or above.
pub fn captured_logs() -> Vec<LogLine> {
    capture()
        .lines
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// Forgets the captured records.
pub fn clear_logs() {
    capture()
        .lines
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
}

/// Captured records at Warn or above whose message contains `needle` (case-insensitive).
pub fn warnings_mentioning(needle: &str) -> Vec<LogLine> {
    let needle = needle.to_lowercase();
    captured_logs()
        .into_iter()
        .filter(|l| l.level <= log::Level::Warn && l.message.to_lowercase().contains(&needle))
        .collect()
}

/// A one-shot latch: threads wait until it is opened.
#[derive(Clone, Default)]
pub struct Latch(Arc<(Mutex<bool>, Condvar)>);

impl Latch {
    /// A closed latch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens the latch and wakes every waiter.
    pub fn open(&self) {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0 .1.notify_all();
    }

    /// Whether the latch is open.
    pub fn is_open(&self) -> bool {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the latch opens; panics naming `what` after `timeout`.
    pub fn wait(&self, timeout: Duration, what: &str) {
        let deadline = Instant::now() + timeout;
        let mut open = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            let now = Instant::now();
            assert!(
                now < deadline,
                "timed out after {timeout:?} waiting for {what}"
            );
            open = self
                .0
                 .1
                .wait_timeout(open, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Timestamped lifecycle events: what the stop signal's observer and the test hooks saw.
#[derive(Clone)]
pub struct Events {
    start: Instant,
    list: Arc<Mutex<Vec<(Duration, String)>>>,
}

impl Default for Events {
    fn default() -> Self {
        Events {
            start: Instant::now(),
            list: Arc::default(),
        }
    }
}

impl Events {
    /// An empty event log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `event` now.
    pub fn push(&self, event: impl Into<String>) {
        let at = self.start.elapsed();
        self.list
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((at, event.into()));
    }

    /// The events in order.
    pub fn names(&self) -> Vec<String> {
        self.list
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, e)| e.clone())
            .collect()
    }

    /// The events with their times since this log was made.
    pub fn timeline(&self) -> Vec<(Duration, String)> {
        self.list.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Index of the first event equal to `name`; panics listing all events if absent.
    pub fn pos(&self, name: &str) -> usize {
        let names = self.names();
        names
            .iter()
            .position(|e| e == name)
            .unwrap_or_else(|| panic!("no `{name}` in {names:?}"))
    }

    /// When the first event equal to `name` happened; panics if absent.
    pub fn at(&self, name: &str) -> Duration {
        let list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        list.iter()
            .find(|(_, e)| e == name)
            .map(|(t, _)| *t)
            .unwrap_or_else(|| panic!("no `{name}` in {list:?}"))
    }

    /// Installs this log as the observer of `task`'s stop signal.
    pub fn observe(&self, task: &CheckpointTask) {
        let me = self.clone();
        task.stop_signal()
            .set_observer(Arc::new(move |step| me.push(step)));
    }
}

/// Latency samples with percentile summaries.
#[derive(Clone, Debug, Default)]
pub struct Latencies(Vec<Duration>);

impl Latencies {
    /// No samples.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one sample.
    pub fn push(&mut self, d: Duration) {
        self.0.push(d);
    }

    /// The samples, in the order they were added.
    pub fn samples(&self) -> &[Duration] {
        &self.0
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `p`-th percentile (nearest rank), `p` in 0..=100.
    pub fn percentile(&self, p: f64) -> Duration {
        let mut v = self.0.clone();
        v.sort();
        if v.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1]
    }

    /// The largest sample.
    pub fn max(&self) -> Duration {
        self.0.iter().copied().max().unwrap_or_default()
    }

    /// `label: n=…, p50=…, p99=…, max=…`.
    pub fn summary(&self, label: &str) -> String {
        format!(
            "{label}: n={}, p50={:.2?}, p99={:.2?}, max={:.2?}",
            self.len(),
            self.percentile(50.0),
            self.percentile(99.0),
            self.max()
        )
    }
}

/// A small deterministic PRNG (SplitMix64): reproducible delays from a printed seed.
pub struct Prng(u64);

impl Prng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Prng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// Checks that checkpoints never go backwards: per (group, target partition), a checkpoint's
/// downstream offset is below the previous one only when its upstream offset is too (MM2's
/// upstream-rewind rule).
#[derive(Debug, Default)]
pub struct Monotonicity {
    last: BTreeMap<(String, TopicPartition), Checkpoint>,
    /// Checkpoints checked so far.
    pub checked: usize,
}

impl Monotonicity {
    /// No history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks `checkpoints` in order against everything seen before; panics naming `source`
    /// on the first one that goes backwards.
    pub fn check(&mut self, source: &str, checkpoints: &[Checkpoint]) {
        for cp in checkpoints {
            let key = (cp.consumer_group_id.clone(), cp.topic_partition.clone());
            if let Some(prev) = self.last.get(&key) {
                let backwards = cp.downstream_offset < prev.downstream_offset
                    && cp.upstream_offset >= prev.upstream_offset;
                assert!(
                    !backwards,
                    "{source}: checkpoint went backwards for {key:?}: {prev:?} then {cp:?}"
                );
            }
            self.last.insert(key, cp.clone());
            self.checked += 1;
        }
    }

    /// The last checkpoint seen per (group, target partition).
    pub fn last(&self) -> &BTreeMap<(String, TopicPartition), Checkpoint> {
        &self.last
    }
}

/// Polls until a cycle emits at least one checkpoint (failing after `timeout`), and returns
/// every checkpoint emitted on the way.
pub fn poll_until_emitted(task: &CheckpointTask, timeout: Duration) -> Vec<Checkpoint> {
    let deadline = Instant::now() + timeout;
    loop {
        let out = task
            .poll(Duration::from_millis(500))
            .unwrap_or_else(|e| panic!("poll failed: {e}"));
        if out.status == PollStatus::CycleDone && !out.checkpoints.is_empty() {
            return out.checkpoints;
        }
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "poll ended with {out:?}: {:?}",
            task.fatal_error()
        );
        assert!(
            Instant::now() < deadline,
            "no checkpoints within {timeout:?}: last {out:?}; fatal {:?}; stats {:?}; statuses {:?}",
            task.fatal_error(),
            task.stats(),
            task.partition_statuses()
        );
    }
}

/// Polls until the first checkpoint cycle runs (failing after `timeout`) and returns what it
/// emitted as sorted (group, partition, upstream, downstream).
pub fn first_cycle(task: &CheckpointTask, timeout: Duration) -> Vec<(String, i32, i64, i64)> {
    let deadline = Instant::now() + timeout;
    loop {
        let out = task
            .poll(Duration::from_millis(500))
            .unwrap_or_else(|e| panic!("poll failed: {e}"));
        if out.status == PollStatus::CycleDone {
            return sorted(out.checkpoints)
                .into_iter()
                .map(|c| {
                    (
                        c.consumer_group_id,
                        c.topic_partition.partition,
                        c.upstream_offset,
                        c.downstream_offset,
                    )
                })
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "no cycle within {timeout:?}: {out:?}; fatal {:?}",
            task.fatal_error()
        );
    }
}

/// Sorts checkpoints by (group, target partition).
pub fn sorted(mut cps: Vec<Checkpoint>) -> Vec<Checkpoint> {
    cps.sort_by(|a, b| {
        (&a.consumer_group_id, &a.topic_partition).cmp(&(&b.consumer_group_id, &b.topic_partition))
    });
    cps
}

/// A task config for clusters aliased `source` and `target` at the given bootstraps, emitting
/// every second; `extra` adds or overrides properties.
pub fn task_config(
    source: &str,
    target: &str,
    extra: &[(&str, &str)],
) -> mm2_checkpoint::MirrorCheckpointConfig {
    let mut props = vec![
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", source),
        ("target.cluster.bootstrap.servers", target),
        ("emit.checkpoints.interval.seconds", "1"),
        // Test clusters have one broker. With MM2's default of 3, Kafka refuses to create the
        // checkpoints topic (InvalidReplicationFactor), which fails the task (tansu ignored the
        // factor and hid this; runtime_kafka pins the failure).
        ("checkpoints.topic.replication.factor", "1"),
    ];
    props.extend_from_slice(extra);
    mm2_checkpoint::MirrorCheckpointConfig::from_properties(props)
        .unwrap_or_else(|e| panic!("task config: {e}"))
        .0
}

/// Writes offset syncs to partition 0 of `topic` as MirrorSourceTask encodes them, one record
/// per batch ([`super::produce_many`]) or, for thousands, batched ([`super::produce_batched`]).
pub fn produce_syncs(
    bootstrap: &str,
    topic: &str,
    syncs: &[mm2_checkpoint::OffsetSync],
    batched: bool,
) {
    let encoded = encode_syncs(syncs);
    let records = as_records(&encoded);
    if batched {
        super::produce_batched(bootstrap, topic, 0, &records);
    } else {
        super::produce_many(bootstrap, topic, 0, &records);
    }
}

/// [`produce_syncs`] batched, with extra producer settings (a codec, client credentials).
pub fn produce_syncs_with(
    bootstrap: &str,
    topic: &str,
    syncs: &[mm2_checkpoint::OffsetSync],
    settings: &[(&str, &str)],
) {
    let encoded = encode_syncs(syncs);
    super::kafka::produce_batched_with(bootstrap, topic, 0, &as_records(&encoded), settings);
}

fn encode_syncs(syncs: &[mm2_checkpoint::OffsetSync]) -> Vec<(Vec<u8>, Vec<u8>)> {
    syncs
        .iter()
        .map(|s| {
            let key = s
                .encode_key()
                .unwrap_or_else(|e| panic!("encoding {s:?}: {e}"));
            (key, s.encode_value())
        })
        .collect()
}

fn as_records(encoded: &[(Vec<u8>, Vec<u8>)]) -> Vec<super::Record<'_>> {
    encoded
        .iter()
        .map(|(k, v)| (Some(k.as_slice()), Some(v.as_slice())))
        .collect()
}

/// The checkpoints in partition 0 of `topic` (records that do not decode are left out).
pub fn read_checkpoints(bootstrap: &str, topic: &str) -> Vec<Checkpoint> {
    super::read_all(bootstrap, topic, 0)
        .into_iter()
        .filter_map(|(k, v)| Checkpoint::decode(k.as_deref(), v.as_deref()).ok())
        .collect()
}

/// The connector-style config of a task on embedded clusters (aliases `source` and `target`,
/// a 1 s emit interval), with `extra` settings after the base ones, so they win.
pub fn embedded_task_config(
    c: &EmbeddedClusters,
    extra: &[(&str, &str)],
) -> MirrorCheckpointConfig {
    let source = c.bootstrap(Side::Source);
    let target = c.bootstrap(Side::Target);
    let mut props = vec![
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", source.as_str()),
        ("target.cluster.bootstrap.servers", target.as_str()),
        ("emit.checkpoints.interval.seconds", "1"),
    ];
    props.extend_from_slice(extra);
    MirrorCheckpointConfig::from_properties(props).unwrap().0
}
