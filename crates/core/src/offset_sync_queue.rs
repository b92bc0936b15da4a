//! MM2's `OffsetSyncWriter` (the source side of offset translation), for mirroring tools that
//! are not MirrorMaker: after each mirrored record is confirmed downstream, report
//! `(upstream partition, upstream offset, downstream offset)` and the writer decides, exactly as
//! MM2 does, when an offset sync must be written to the offset-syncs topic.
//!
//! This module is the pure part: per-partition staleness state ([`PartitionState`]), the
//! *pending* and *delayed* syncs, the promotion of delayed syncs, and the bound on outstanding
//! sends ([`OffsetSyncQueue`]). The Kafka part, which owns the producer, is `runtime::offset_sync_writer::OffsetSyncWriter`.
//!
//! Differences from Java, on purpose:
//! - MM2 promotes delayed syncs on Connect's offset commit; without Connect, a timer does it
//!   every `offset.flush.interval.ms` (default 60000, Connect's default) — see [`PromoteTimer`].
//! - MM2 takes syncs from its pending map under a lock but sends them outside it, from two
//!   threads, so two syncs of one partition can be produced in the wrong order; the checkpoint
//!   side reads that as an upstream rewind and drops the partition's history. Here one owner
//!   takes and sends (`&mut self`, no lock to step out of), so syncs reach the producer in queue
//!   order, and the producer keeps that order on the wire (the writer allows one request in
//!   flight unless idempotence is on).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use crate::error::ConfigError;
use crate::offset_sync::OffsetSync;
use crate::topic_partition::TopicPartition;

/// Offset-sync sends one writer may have outstanding at once (hard-coded in MM2).
pub const MAX_OUTSTANDING_OFFSET_SYNCS: usize = 10;

/// `offset.lag.max` default.
pub const DEFAULT_OFFSET_LAG_MAX: i64 = 100;

/// Connect's default `offset.flush.interval.ms`, the period of MM2's delayed-sync promotion.
pub const DEFAULT_FLUSH_INTERVAL: Duration = Duration::from_millis(60_000);

/// The keys of an offset-sync writer's settings that configure the writer itself; every other
/// key is a setting of its librdkafka producer.
pub const WRITER_KEYS: [&str; 2] = ["offset.lag.max", "offset.flush.interval.ms"];

/// Settings of an offset-sync writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetSyncWriterConfig {
    /// `offset.lag.max`: how many downstream offsets a translation may fall behind before a
    /// new sync is written.
    pub offset_lag_max: i64,
    /// `offset.flush.interval.ms`: how often delayed syncs are promoted and sent.
    pub flush_interval: Duration,
    /// Sends outstanding at once ([`MAX_OUTSTANDING_OFFSET_SYNCS`] in MM2).
    pub max_outstanding: usize,
}

impl Default for OffsetSyncWriterConfig {
    fn default() -> Self {
        OffsetSyncWriterConfig {
            offset_lag_max: DEFAULT_OFFSET_LAG_MAX,
            flush_interval: DEFAULT_FLUSH_INTERVAL,
            max_outstanding: MAX_OUTSTANDING_OFFSET_SYNCS,
        }
    }
}

impl OffsetSyncWriterConfig {
    /// Reads `offset.lag.max` and `offset.flush.interval.ms` (Java longs; other keys are
    /// ignored). Like MM2, any `offset.lag.max` is accepted (0 or less: sync every record); the
    /// flush interval must be positive.
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, ConfigError> {
        let mut config = OffsetSyncWriterConfig::default();
        for (key, value) in props {
            let parse = || {
                value.trim().parse::<i64>().map_err(|_| {
                    ConfigError::new(key, format!("`{value}` is not a long (64-bit integer)"))
                })
            };
            match key.trim() {
                "offset.lag.max" => config.offset_lag_max = parse()?,
                "offset.flush.interval.ms" => {
                    let ms = parse()?;
                    let ms = u64::try_from(ms).ok().filter(|ms| *ms > 0).ok_or_else(|| {
                        ConfigError::new(key, format!("must be a positive number of ms, got {ms}"))
                    })?;
                    config.flush_interval = Duration::from_millis(ms);
                }
                _ => {}
            }
        }
        Ok(config)
    }

    /// Splits a writer's settings into the writer's own ([`WRITER_KEYS`], read as
    /// [`from_properties`](Self::from_properties) reads them) and its producer's (the rest).
    pub fn split(
        settings: &BTreeMap<String, String>,
    ) -> Result<(Self, BTreeMap<String, String>), ConfigError> {
        let config = Self::from_properties(settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        let producer = settings
            .iter()
            .filter(|(k, _)| !WRITER_KEYS.contains(&k.trim()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok((config, producer))
    }
}

/// MM2's per-partition staleness state (`OffsetSyncWriter.PartitionState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionState {
    previous_upstream: i64,
    previous_downstream: i64,
    last_sync_downstream: i64,
    max_offset_lag: i64,
    should_sync: bool,
}

impl PartitionState {
    /// A partition not seen in this writer's lifetime.
    pub fn new(max_offset_lag: i64) -> Self {
        PartitionState {
            previous_upstream: -1,
            previous_downstream: -1,
            last_sync_downstream: -1,
            max_offset_lag,
            should_sync: false,
        }
    }

    /// Records a mirrored record; true when a sync is due. The flag stays set until
    /// [`reset`](Self::reset), so a caller that did not act on it is asked again.
    pub fn update(&mut self, upstream: i64, downstream: i64) -> bool {
        let first = self.last_sync_downstream == -1;
        // Translation lands one past the last sync (OffsetSyncStore), hence the +1; Java's long
        // arithmetic wraps, and so does this.
        let too_stale = downstream.wrapping_sub(self.last_sync_downstream.wrapping_add(1))
            >= self.max_offset_lag;
        let upstream_jump = upstream.wrapping_sub(self.previous_upstream) != 1;
        let downstream_rewind = downstream < self.previous_downstream;
        if first || too_stale || upstream_jump || downstream_rewind {
            self.last_sync_downstream = downstream;
            self.should_sync = true;
        }
        self.previous_upstream = upstream;
        self.previous_downstream = downstream;
        self.should_sync
    }

    /// Clears the "sync due" flag once the sync is queued.
    pub fn reset(&mut self) {
        self.should_sync = false;
    }

    /// Whether a sync is due and not yet queued.
    pub fn should_sync(&self) -> bool {
        self.should_sync
    }

    /// Downstream offset of the last record that triggered a sync (-1 before the first).
    pub fn last_sync_downstream_offset(&self) -> i64 {
        self.last_sync_downstream
    }
}

/// At most one sync per partition, in first-insertion order; replacing a partition's sync keeps
/// its place (Java's `LinkedHashMap`).
#[derive(Clone, Debug, Default)]
struct OrderedSyncs {
    next_seq: u64,
    order: BTreeMap<u64, TopicPartition>,
    entries: HashMap<TopicPartition, (u64, OffsetSync)>,
}

impl OrderedSyncs {
    fn put(&mut self, sync: OffsetSync) {
        let tp = sync.topic_partition.clone();
        if let Some((_, slot)) = self.entries.get_mut(&tp) {
            *slot = sync;
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.insert(seq, tp.clone());
        self.entries.insert(tp, (seq, sync));
    }

    fn remove(&mut self, tp: &TopicPartition) -> Option<OffsetSync> {
        let (seq, sync) = self.entries.remove(tp)?;
        self.order.remove(&seq);
        Some(sync)
    }

    fn get(&self, tp: &TopicPartition) -> Option<&OffsetSync> {
        self.entries.get(tp).map(|(_, s)| s)
    }

    fn iter(&self) -> impl Iterator<Item = &OffsetSync> {
        self.order
            .values()
            .filter_map(|tp| self.entries.get(tp).map(|(_, s)| s))
    }

    fn drain(&mut self) -> Vec<OffsetSync> {
        let out = std::mem::take(&mut self.order)
            .into_values()
            .filter_map(|tp| self.entries.remove(&tp).map(|(_, s)| s))
            .collect();
        self.entries.clear();
        out
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Where [`OffsetSyncQueue::maybe_queue`] put a sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    /// To be sent now (first record, too stale, upstream gap or rewind, downstream rewind).
    Pending,
    /// Held until the next promotion (the translation is still fresh enough).
    Delayed,
}

/// MM2's writer state without the producer: partition states, pending and delayed syncs, and
/// the outstanding-send bound (MM2's semaphore). Single-owner (`&mut self`); the caller sends
/// what [`next_to_send`](Self::next_to_send) hands out, in that order, and reports each send's
/// end with [`completed`](Self::completed).
#[derive(Clone, Debug)]
pub struct OffsetSyncQueue {
    max_offset_lag: i64,
    max_outstanding: usize,
    states: HashMap<TopicPartition, PartitionState>,
    pending: OrderedSyncs,
    delayed: OrderedSyncs,
    outstanding: usize,
}

impl OffsetSyncQueue {
    /// An empty queue; `max_outstanding` is raised to at least 1.
    pub fn new(max_offset_lag: i64, max_outstanding: usize) -> Self {
        OffsetSyncQueue {
            max_offset_lag,
            max_outstanding: max_outstanding.max(1),
            states: HashMap::new(),
            pending: OrderedSyncs::default(),
            delayed: OrderedSyncs::default(),
            outstanding: 0,
        }
    }

    /// MM2's `maybeQueueOffsetSyncs`: updates the partition's state and queues the sync as
    /// pending (replacing any delayed one) when due, else as the partition's delayed sync.
    pub fn maybe_queue(&mut self, tp: &TopicPartition, upstream: i64, downstream: i64) -> Queued {
        let lag = self.max_offset_lag;
        let state = self
            .states
            .entry(tp.clone())
            .or_insert_with(|| PartitionState::new(lag));
        let sync = OffsetSync::new(tp.clone(), upstream, downstream);
        if state.update(upstream, downstream) {
            state.reset();
            self.delayed.remove(tp);
            self.pending.put(sync);
            Queued::Pending
        } else {
            self.delayed.put(sync);
            Queued::Delayed
        }
    }

    /// MM2's `promoteDelayedOffsetSyncs`: every delayed sync becomes pending (overwriting a
    /// pending one of the same partition), so quiet partitions get a sync at their latest record.
    pub fn promote_delayed(&mut self) {
        for sync in self.delayed.drain() {
            self.pending.put(sync);
        }
    }

    /// The next sync to send, taking one of the outstanding-send permits: the first pending
    /// sync. `None` when nothing is pending or every permit is taken (the syncs then wait, and a
    /// newer due sync of the same partition replaces its waiting one, as in MM2).
    pub fn next_to_send(&mut self) -> Option<OffsetSync> {
        if self.outstanding >= self.max_outstanding {
            return None;
        }
        let tp = self.pending.iter().next()?.topic_partition.clone();
        let sync = self.pending.remove(&tp)?;
        self.outstanding += 1;
        Some(sync)
    }

    /// A send ended (delivered or failed): its permit is returned.
    pub fn completed(&mut self) {
        self.outstanding = self.outstanding.saturating_sub(1);
    }

    /// True when a permit is free, so a sync queued now would be handed out at once.
    pub fn has_capacity(&self) -> bool {
        self.outstanding < self.max_outstanding
    }

    /// Pending syncs, in send order.
    pub fn pending(&self) -> Vec<OffsetSync> {
        self.pending.iter().cloned().collect()
    }

    /// Delayed syncs, in insertion order.
    pub fn delayed(&self) -> Vec<OffsetSync> {
        self.delayed.iter().cloned().collect()
    }

    /// The pending sync of `tp`, if any.
    pub fn pending_for(&self, tp: &TopicPartition) -> Option<&OffsetSync> {
        self.pending.get(tp)
    }

    /// The delayed sync of `tp`, if any.
    pub fn delayed_for(&self, tp: &TopicPartition) -> Option<&OffsetSync> {
        self.delayed.get(tp)
    }

    /// Sends handed out and not yet completed.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Number of pending syncs.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Number of delayed syncs.
    pub fn delayed_len(&self) -> usize {
        self.delayed.len()
    }

    /// The staleness state of `tp`, once a record of it was reported.
    pub fn partition_state(&self, tp: &TopicPartition) -> Option<&PartitionState> {
        self.states.get(tp)
    }
}

/// When delayed syncs are promoted: every `interval`, counted from creation (Connect commits
/// offsets on such a timer; MM2 promotes on each commit).
#[derive(Clone, Debug)]
pub struct PromoteTimer {
    interval: Duration,
    next: Instant,
}

impl PromoteTimer {
    /// A timer first due one `interval` after `now`.
    pub fn new(interval: Duration, now: Instant) -> Self {
        PromoteTimer {
            interval,
            next: now + interval,
        }
    }

    /// True when a promotion is due at `now`; the next one is then one interval later (a late
    /// check does not cause a burst of catch-up promotions).
    pub fn due(&mut self, now: Instant) -> bool {
        if now < self.next {
            return false;
        }
        self.next = now + self.interval;
        true
    }

    /// Time left until the next promotion.
    pub fn remaining(&self, now: Instant) -> Duration {
        self.next.saturating_duration_since(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition::new("topic", p)
    }

    #[test]
    fn a_writers_settings_split_into_its_own_keys_and_its_producers() {
        let settings: BTreeMap<String, String> = [
            ("bootstrap.servers", "b:1"),
            ("offset.lag.max", "7"),
            ("offset.flush.interval.ms", "250"),
            ("acks", "all"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (config, producer) = OffsetSyncWriterConfig::split(&settings).unwrap();
        assert_eq!(config.offset_lag_max, 7);
        assert_eq!(config.flush_interval, Duration::from_millis(250));
        let keys: Vec<&str> = producer.keys().map(String::as_str).collect();
        assert_eq!(keys, ["acks", "bootstrap.servers"]);

        let bad: BTreeMap<String, String> =
            [("offset.flush.interval.ms".to_string(), "0".to_string())].into();
        let e = OffsetSyncWriterConfig::split(&bad).unwrap_err();
        assert!(e.to_string().contains("offset.flush.interval.ms"), "{e}");
    }

    /// `(upstream, downstream, emits, reset afterwards)`.
    type Step = (i64, i64, bool, bool);

    fn run_steps(lag: i64, steps: &[Step]) {
        let mut state = PartitionState::new(lag);
        for (i, &(up, down, emits, reset)) in steps.iter().enumerate() {
            assert_eq!(
                state.update(up, down),
                emits,
                "lag {lag}, step {i}: update({up}, {down})"
            );
            if reset {
                state.reset();
                assert!(!state.should_sync());
            }
        }
    }

    #[test]
    fn offset_sync_emit_sequence_with_lag_50_matches_mirror_source_task_test() {
        run_steps(
            50,
            &[
                (0, 100, true, true),  // first record this lifetime
                (2, 102, true, true),  // upstream gap
                (3, 152, false, true), // 152 - 103 = 49 < 50
                (4, 153, true, true),  // 153 - 103 = 50
                (5, 154, false, true),
                (6, 203, false, true),
                (7, 204, true, true), // 204 - 154 = 50
                (2, 206, true, true), // upstream rewind
                (3, 207, false, true),
                (4, 3, true, true), // downstream went back
                (5, 4, false, false),
                (7, 6, true, false), // gap; the flag then stays set without a reset
                (7, 6, true, false),
                (8, 7, true, false),
                (10, 57, true, true),
                (11, 58, false, false),
            ],
        );
    }

    #[test]
    fn offset_sync_with_lag_0_emits_for_every_record() {
        let ups_downs = [
            (0, 100),
            (2, 102),
            (3, 153),
            (4, 154),
            (5, 155),
            (6, 207),
            (2, 208),
            (3, 209),
            (4, 3),
            (5, 4),
            (7, 6),
            (7, 6),
            (8, 7),
            (10, 57),
            (11, 58),
        ];
        let steps: Vec<Step> = ups_downs.iter().map(|&(u, d)| (u, d, true, true)).collect();
        run_steps(0, &steps);
    }

    #[test]
    fn staleness_arithmetic_wraps_like_java_longs() {
        let mut state = PartitionState::new(0);
        assert!(state.update(0, i64::MAX));
        state.reset();
        // MAX - (MAX + 1) is MAX - MIN in Java, which wraps to -1: not stale (and no panic).
        assert!(!state.update(1, i64::MAX));
    }

    #[test]
    fn maybe_queue_puts_the_first_record_in_pending_and_the_next_fresh_one_in_delayed() {
        // OffsetSyncWriterTest.testMaybeQueueOffsetSyncs
        let mut q = OffsetSyncQueue::new(2, 1);
        assert_eq!(q.maybe_queue(&tp(0), 0, 1), Queued::Pending);
        assert!(q.delayed_for(&tp(0)).is_none());
        assert!(q.pending_for(&tp(0)).is_some());
        assert_eq!(q.maybe_queue(&tp(0), 1, 2), Queued::Delayed);
        assert_eq!(q.delayed_for(&tp(0)), Some(&OffsetSync::new(tp(0), 1, 2)));
        assert_eq!(
            q.partition_state(&tp(0))
                .map(|s| s.last_sync_downstream_offset()),
            Some(1)
        );
    }

    #[test]
    fn a_due_sync_replaces_the_delayed_one_of_its_partition() {
        let mut q = OffsetSyncQueue::new(10, 10);
        q.maybe_queue(&tp(0), 0, 0);
        q.maybe_queue(&tp(0), 1, 1);
        assert_eq!(q.delayed_len(), 1);
        assert_eq!(q.maybe_queue(&tp(0), 5, 5), Queued::Pending); // upstream gap
        assert_eq!(q.delayed_len(), 0);
        assert_eq!(q.pending_for(&tp(0)), Some(&OffsetSync::new(tp(0), 5, 5)));
    }

    #[test]
    fn with_one_permit_a_second_sync_waits_while_the_first_is_in_flight() {
        // OffsetSyncWriterTest.testFirePendingOffsetSyncs
        let mut q = OffsetSyncQueue::new(1, 1);
        q.maybe_queue(&tp(0), 0, 100);
        assert_eq!(q.next_to_send(), Some(OffsetSync::new(tp(0), 0, 100)));
        q.maybe_queue(&tp(0), 2, 102);
        assert_eq!(q.next_to_send(), None);
        assert_eq!(q.outstanding(), 1);
        q.completed();
        assert_eq!(q.next_to_send(), Some(OffsetSync::new(tp(0), 2, 102)));
    }

    #[test]
    fn a_newer_due_sync_replaces_the_one_waiting_for_a_permit_in_its_place() {
        let mut q = OffsetSyncQueue::new(0, 1);
        q.maybe_queue(&tp(0), 0, 0);
        assert!(q.next_to_send().is_some());
        q.maybe_queue(&tp(0), 1, 1);
        q.maybe_queue(&tp(1), 0, 0);
        q.maybe_queue(&tp(0), 2, 2);
        assert!(!q.has_capacity());
        q.completed();
        assert!(q.has_capacity());
        assert_eq!(q.next_to_send(), Some(OffsetSync::new(tp(0), 2, 2)));
        q.completed();
        assert_eq!(q.next_to_send(), Some(OffsetSync::new(tp(1), 0, 0)));
    }

    #[test]
    fn permits_bound_the_outstanding_sends() {
        let mut q = OffsetSyncQueue::new(100, MAX_OUTSTANDING_OFFSET_SYNCS);
        for p in 0..15 {
            q.maybe_queue(&tp(p), 0, 0);
        }
        let sent: Vec<_> = std::iter::from_fn(|| q.next_to_send()).collect();
        assert_eq!(sent.len(), MAX_OUTSTANDING_OFFSET_SYNCS);
        assert_eq!(
            sent.iter()
                .map(|s| s.topic_partition.partition)
                .collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>(),
            "sent in queue order"
        );
        q.completed();
        assert_eq!(q.next_to_send().map(|s| s.topic_partition), Some(tp(10)));
        assert_eq!(q.next_to_send(), None);
    }

    #[test]
    fn promote_moves_the_latest_delayed_sync_into_pending() {
        // OffsetSyncWriterTest.testPromoteDelayedOffsetSyncs
        let mut q = OffsetSyncQueue::new(50, 1);
        q.maybe_queue(&tp(0), 0, 100);
        q.maybe_queue(&tp(0), 1, 101);
        q.promote_delayed();
        assert_eq!(q.delayed_len(), 0);
        assert_eq!(q.pending(), vec![OffsetSync::new(tp(0), 1, 101)]);
    }

    #[test]
    fn promote_keeps_pending_positions_and_appends_new_partitions_in_delayed_order() {
        let mut q = OffsetSyncQueue::new(50, 10);
        q.maybe_queue(&tp(0), 0, 0); // pending
        q.maybe_queue(&tp(1), 0, 0); // pending
        q.maybe_queue(&tp(2), 0, 0); // pending
        assert_eq!(q.next_to_send().map(|s| s.topic_partition), Some(tp(0)));
        q.completed();
        q.maybe_queue(&tp(0), 1, 1); // delayed
        q.maybe_queue(&tp(2), 1, 1); // delayed, overwrites pending tp2 on promote
        q.promote_delayed();
        let order: Vec<(i32, i64)> = q
            .pending()
            .iter()
            .map(|s| (s.topic_partition.partition, s.upstream_offset))
            .collect();
        assert_eq!(order, vec![(1, 0), (2, 1), (0, 1)]);
    }

    #[test]
    fn promote_timer_fires_once_per_interval_without_catch_up_bursts() {
        let t0 = Instant::now();
        let mut timer = PromoteTimer::new(Duration::from_secs(60), t0);
        assert!(!timer.due(t0));
        assert!(!timer.due(t0 + Duration::from_secs(59)));
        assert!(timer.due(t0 + Duration::from_secs(60)));
        assert!(!timer.due(t0 + Duration::from_secs(61)));
        assert!(timer.due(t0 + Duration::from_secs(500)));
        assert!(!timer.due(t0 + Duration::from_secs(501)));
        assert_eq!(
            timer.remaining(t0 + Duration::from_secs(530)),
            Duration::from_secs(30)
        );
    }

    #[test]
    fn config_reads_lag_and_flush_interval_and_rejects_bad_values() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Result<(i64, u64), &'a str>);
        let cases: &[Case<'_>] = &[
            (&[], Ok((100, 60_000))),
            (
                &[("offset.lag.max", "0"), ("offset.flush.interval.ms", "250")],
                Ok((0, 250)),
            ),
            (&[("offset.lag.max", " -5 ")], Ok((-5, 60_000))),
            (&[("other", "x")], Ok((100, 60_000))),
            (&[("offset.lag.max", "ten")], Err("offset.lag.max")),
            (
                &[("offset.flush.interval.ms", "0")],
                Err("offset.flush.interval.ms"),
            ),
            (
                &[("offset.flush.interval.ms", "-1")],
                Err("offset.flush.interval.ms"),
            ),
        ];
        for (props, expected) in cases {
            let got = OffsetSyncWriterConfig::from_properties(props.iter().copied());
            match (got, expected) {
                (Ok(c), Ok((lag, ms))) => {
                    assert_eq!(c.offset_lag_max, *lag, "{props:?}");
                    assert_eq!(c.flush_interval, Duration::from_millis(*ms), "{props:?}");
                    assert_eq!(c.max_outstanding, MAX_OUTSTANDING_OFFSET_SYNCS);
                }
                (Err(e), Err(key)) => assert_eq!(e.key, *key, "{props:?}"),
                (got, expected) => panic!("{props:?}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    /// The writer's syncs fed to MM2's store: a position `h` behind the newest sync translates at
    /// most `offset.lag.max + 2h` offsets back (exactly `lag` spacing near the head, the store's
    /// exponential thinning further back), and never forward past the position.
    #[test]
    fn syncs_from_the_writer_translate_within_lag_plus_twice_the_distance_from_the_head() {
        use crate::offset_sync_store::OffsetSyncStore;
        for lag in [0, 1, 10, 100] {
            for records in [50i64, 600, 2000] {
                let mut store = OffsetSyncStore::new();
                store.begin_initial_load(false);
                let mut q = OffsetSyncQueue::new(lag, 1);
                let mut send = |q: &mut OffsetSyncQueue| {
                    while let Some(s) = q.next_to_send() {
                        store.handle_sync(&s);
                        q.completed();
                    }
                };
                for u in 0..records {
                    q.maybe_queue(&tp(0), u, u);
                    send(&mut q);
                }
                q.promote_delayed(); // the final flush: a sync at the last record
                send(&mut q);
                store.mark_read_to_end();
                for g in 0..=records {
                    let Some(d) = store.translate_downstream(&tp(0), g) else {
                        panic!("lag {lag}, {records} records: no translation for {g}");
                    };
                    assert!(d <= g, "lag {lag}: {g} translated forward to {d}");
                    let behind_head = (records - 1 - g).max(0);
                    assert!(
                        g - d <= lag + 2 * behind_head,
                        "lag {lag}, {records} records: {g} -> {d}"
                    );
                }
            }
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Report(i32, i64, i64),
        Promote,
        Send,
        Complete,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..3i32, 0..40i64, 0..40i64).prop_map(|(p, u, d)| Op::Report(p, u, d)),
            1 => Just(Op::Promote),
            3 => Just(Op::Send),
            2 => Just(Op::Complete),
        ]
    }

    proptest! {
        /// Whatever the interleaving, each partition's syncs are handed out in the order they
        /// were reported (a subsequence of its reports), and never more than the permits allow.
        #[test]
        fn syncs_of_one_partition_are_handed_out_in_report_order_within_the_permits(
            ops in proptest::collection::vec(op(), 1..200),
            lag in 0..5i64,
            permits in 1..4usize,
        ) {
            let mut q = OffsetSyncQueue::new(lag, permits);
            let mut reported: HashMap<TopicPartition, Vec<OffsetSync>> = HashMap::new();
            let mut sent_at: HashMap<TopicPartition, usize> = HashMap::new();
            let mut outstanding = 0usize;
            for op in ops {
                match op {
                    Op::Report(p, u, d) => {
                        q.maybe_queue(&tp(p), u, d);
                        reported.entry(tp(p)).or_default().push(OffsetSync::new(tp(p), u, d));
                    }
                    Op::Promote => q.promote_delayed(),
                    Op::Send => {
                        if let Some(s) = q.next_to_send() {
                            outstanding += 1;
                            let tp = s.topic_partition.clone();
                            let history = &reported[&tp];
                            let floor = sent_at.get(&tp).map_or(0, |i| i + 1);
                            let at = (floor..history.len()).find(|&i| history[i] == s);
                            prop_assert!(at.is_some(), "{:?} handed out of order", s);
                            sent_at.extend(at.map(|i| (tp, i)));
                        }
                    }
                    Op::Complete => {
                        if outstanding > 0 {
                            outstanding -= 1;
                            q.completed();
                        }
                    }
                }
                prop_assert!(q.outstanding() <= permits);
                prop_assert_eq!(q.outstanding(), outstanding);
            }
        }
    }
}
