//! `OffsetSyncStore`: keeps a bounded, exponentially spaced history of offset syncs per upstream
//! partition and translates a consumer group's upstream position into a safe downstream one.
//!
//! This is the pure half of MM2's class: the runtime reads the offset-syncs topic, feeds every
//! record to [`OffsetSyncStore::handle_record`], calls [`OffsetSyncStore::mark_read_to_end`] once
//! the initial read has caught up, and guards the store with a lock. Nothing here does I/O, and
//! only the first sync of a partition (or of a topic) allocates.
//!
//! The replacement procedure reproduces Java's slot for slot, including two quirks that decide
//! which syncs survive: the spacing predicates use *wrapping* 64-bit arithmetic (so `2^63` is
//! `i64::MIN` and a bound that wraps negative counts as "satisfied" for staleness but "violated"
//! for spacing), and syncs are compared by *identity* (two records with equal offsets are still
//! different syncs), which Java gets from object references and we get from per-slot labels.

use std::collections::HashMap;

use crate::fast_hash::FastHashBuilder;
use crate::offset_sync::OffsetSync;
use crate::topic_partition::TopicPartition;

#[cfg(test)]
mod reference;

/// Slots kept per upstream partition (Java's `SYNCS_PER_PARTITION`, `Long.SIZE`).
pub const SYNCS_PER_PARTITION: usize = 64;

/// Labels are `0..LABELS`: one more than the slots, so a sync new to a full array always finds
/// a free one.
const LABELS: u8 = SYNCS_PER_PARTITION as u8 + 1;

/// One stored sync while the array is being rewritten; `label` stands in for Java's object
/// identity and is unique among the syncs of one array (plus the sync being applied).
#[derive(Clone, Copy, Debug, Default)]
struct Sync {
    up: i64,
    down: i64,
    label: u8,
}

/// The offsets of one slot, side by side so a translation reads one cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    up: i64,
    down: i64,
}

/// The 64-slot sync history of one upstream partition.
///
/// Invariants kept after every update (slot `i < j`, both holding different syncs):
/// A: slot 0 is the newest sync; B: `up[i] <= up[j] + 2^j - 2^i`; C: `up[i] >= up[j] +
/// 2^max(i-2,0)`; D: slot 63 keeps the oldest usable sync until a reset. Upstream offsets never
/// increase from slot 0 to slot 63 (a sync older than slot 0 resets the array).
///
/// Layout is fixed and heap-free: 64 `(upstream, downstream)` pairs and a `[u8; 64]` identity
/// label array, **1088 bytes** in total (checked by a test). Labels only need to tell apart the
/// at most 65 syncs involved in one update, so every label is in `0..=64` and a fresh sync takes
/// the first label after slot 0's (cyclically) that no slot uses; a global sequence number would
/// need 4–8 bytes a slot.
#[derive(Clone, Debug)]
pub struct PartitionSyncs {
    slots: [Slot; SYNCS_PER_PARTITION],
    labels: [u8; SYNCS_PER_PARTITION],
}

impl PartitionSyncs {
    /// An array holding `first` in every slot, which satisfies all invariants trivially.
    fn filled(up: i64, down: i64) -> Self {
        PartitionSyncs {
            slots: [Slot { up, down }; SYNCS_PER_PARTITION],
            labels: [0; SYNCS_PER_PARTITION],
        }
    }

    /// `(upstream, downstream)` of the sync in slot `i` (0 = newest), or `None` past slot 63.
    pub fn slot(&self, i: usize) -> Option<(i64, i64)> {
        self.slots.get(i).map(|s| (s.up, s.down))
    }

    /// True when slots `i` and `j` hold the very same ingested sync (not merely equal offsets).
    pub fn same_sync(&self, i: usize, j: usize) -> bool {
        matches!((self.labels.get(i), self.labels.get(j)), (Some(a), Some(b)) if a == b)
    }

    /// How many distinct syncs the array holds, counted as Java's tests do: one plus the number
    /// of neighbouring slots that hold different syncs.
    pub fn distinct_syncs(&self) -> usize {
        1 + self.labels.windows(2).filter(|w| w[0] != w[1]).count()
    }

    #[inline]
    fn get(&self, i: usize) -> Sync {
        Sync {
            up: self.slots[i].up,
            down: self.slots[i].down,
            label: self.labels[i],
        }
    }

    #[inline]
    fn set(&mut self, i: usize, sync: Sync) {
        self.slots[i] = Slot {
            up: sync.up,
            down: sync.down,
        };
        self.labels[i] = sync.label;
    }

    /// A label no slot uses: the first free one after slot 0's, cyclically in `0..=64`. At most
    /// 64 of the 65 labels are in use, so the search ends; usually at its first step.
    fn fresh_label(&self) -> u8 {
        let mut label = self.labels[0];
        loop {
            label = if label + 1 >= LABELS { 0 } else { label + 1 };
            // A whole-array fold, not an early-exit search: it compiles to a few vector
            // compares.
            let used = self
                .labels
                .iter()
                .fold(false, |used, &l| used | (l == label));
            if !used {
                return label;
            }
        }
    }

    /// Slot to translate `g` with: the newest sync at or before `g`, else the oldest one.
    /// Upstream offsets never increase along the slots, so this is the first slot at or before
    /// `g`; the scan starts at the newest slot, where most groups are, and so touches only the
    /// history's first cache lines (a binary search measured twice as slow at 100,000
    /// partitions, where every line it touches is a miss).
    #[inline]
    fn lookup(&self, g: i64) -> (i64, i64) {
        let i = self
            .slots
            .iter()
            .position(|s| s.up <= g)
            .unwrap_or(SYNCS_PER_PARTITION - 1);
        (self.slots[i].up, self.slots[i].down)
    }

    /// Java's `updateSyncArray` for a partition that already has history: makes the new sync
    /// slot 0 and repairs invariants B and C towards the tail, preferring to keep old syncs.
    ///
    /// **Shortcut over the leading run.** Let `S` be the sync in old slot 0, `N` the incoming
    /// one (a fresh label, so never `same` as `S`), and suppose Java's loop reaches `current =
    /// c` with slots `0..c` rewritten to `N`, `candidate = c - 1`, `replacement = N`, and old
    /// slots `c - 1`, `c` and `c + 1` (`c + 1 <= 63`) all holding `S`. One pass of its inner
    /// loop then reads `old = S` and finds: `isNextSeparated` true (slot `c + 1` is `S`
    /// itself), `isDuplicate` true (old slot `c` is `S`), so `skipOldValue` holds whatever
    /// `isSeparated` is; `candidate` becomes `c` and the inner loop ends (`c < c` is false).
    /// `S` becomes the replacement only if `isRecent = B(N, S, c - 1, c)` holds. The check after
    /// the inner loop is `B(N, slot c = S, c - 1, c)`, the same predicate: if it holds, Java
    /// stops with slots `c..` untouched (the replacement is never written); if not, it writes
    /// `replacement = N` to slot `c`, and the hypothesis holds again at `c + 1`. The hypothesis
    /// holds at `c = 1` whenever old slots 1 and 2 hold `S`. So along the leading run of `S`
    /// the whole procedure is: write `N` to slot `c` until the first `c` where `B(N, S, c - 1,
    /// c)` holds (then stop), or until old slot `c + 1` is no longer `S`; from there Java's
    /// general loop continues in exactly the state it would have reached (`candidate = c - 1`,
    /// `replacement = N`, the pre-update contents of slots `0..c` all `S`). In a steady stream
    /// with spacing `d` this covers the first ≈ log2(d) slots with one compare each.
    fn apply(&mut self, up: i64, down: i64, reset: bool) {
        // Java also resets on a rewind only against the newest sync; an equal upstream offset
        // goes through the normal path.
        if reset || up < self.slots[0].up {
            *self = PartitionSyncs::filled(up, down);
            return;
        }
        let incoming = Sync {
            up,
            down,
            label: self.fresh_label(),
        };
        let head = self.get(0);
        let mut start = 1usize;
        while start + 1 < SYNCS_PER_PARTITION
            && self.labels[start] == head.label
            && self.labels[start + 1] == head.label
        {
            if not_too_stale(incoming, head, start - 1, start) {
                self.fill_prefix(incoming, start);
                return;
            }
            start += 1;
        }
        self.fill_prefix(incoming, start);
        // The pre-update contents of the slots rewritten so far (`0..current`): `head` below
        // `start`, `saved` from there; the slots from `current` on still hold them in place.
        // Java reads the old array the same way. (Zero-filled with the slots' own layout, which
        // compiles to a plain memset; a `[Sync; 64]` filled element by element, padding and
        // all, cost 15 % of an update.)
        let mut saved = PartitionSyncs::filled(0, 0);
        let original = |this: &Self, saved: &Self, k: usize, current| {
            if k < start {
                head
            } else if k < current {
                saved.get(k)
            } else {
                this.get(k)
            }
        };
        let mut replacement = incoming;
        let mut candidate = start - 1;
        for current in start..SYNCS_PER_PARTITION {
            let previous = self.get(current - 1);
            loop {
                let old = original(self, &saved, candidate, current);
                let recent = not_too_stale(previous, old, current - 1, current);
                let apart_from_previous = spread_out(previous, old, current - 1);
                // `current + 1` still holds the untouched old tail at this point.
                let apart_from_next = current + 1 >= SYNCS_PER_PARTITION
                    || spread_out(old, self.get(current + 1), current);
                let repeated = candidate + 1 < SYNCS_PER_PARTITION
                    && same(old, original(self, &saved, candidate + 1, current));
                let usable = recent && apart_from_previous && apart_from_next;
                if usable {
                    replacement = old;
                }
                // A repeated or too-close old sync can never be used further down the array.
                let skip = repeated || !apart_from_previous;
                if usable || skip {
                    candidate += 1;
                }
                if !(candidate < current && skip) {
                    break;
                }
            }
            if not_too_stale(previous, self.get(current), current - 1, current) {
                // The rest of the old tail still satisfies B; Java keeps it untouched.
                break;
            }
            saved.set(current, self.get(current));
            self.set(current, replacement);
        }
    }

    /// Writes `sync` to slots `0..end`.
    #[inline]
    fn fill_prefix(&mut self, sync: Sync, end: usize) {
        let slot = Slot {
            up: sync.up,
            down: sync.down,
        };
        self.slots[..end].fill(slot);
        self.labels[..end].fill(sync.label);
    }
}

/// Java's `1L << n` for `n` in `0..64`: `2^63` wraps to `i64::MIN`.
fn pow2(n: usize) -> i64 {
    1i64.wrapping_shl(n as u32)
}

fn same(a: Sync, b: Sync) -> bool {
    a.label == b.label
}

/// Invariant B between `a` in slot `i` and `b` in slot `j`; a bound that wraps negative counts as
/// satisfied, as in Java.
fn not_too_stale(a: Sync, b: Sync, i: usize, j: usize) -> bool {
    let bound = b.up.wrapping_add(pow2(j)).wrapping_sub(pow2(i));
    same(a, b) || bound < 0 || a.up <= bound
}

/// Invariant C between `a` in slot `i` and the older `b`; a bound that wraps negative counts as
/// violated, as in Java.
fn spread_out(a: Sync, b: Sync, i: usize) -> bool {
    let bound = b.up.wrapping_add(pow2(i.saturating_sub(2)));
    same(a, b) || (bound >= 0 && a.up >= bound)
}

/// Outcome of translating a consumer group's upstream position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Translation {
    /// The initial read of the offset-syncs topic has not finished, so old history could still
    /// be missing; Java declines to translate anything.
    NotReadToEnd,
    /// No sync was ever seen for this upstream partition.
    NoOffsetSync,
    /// The position is older than every sync still kept; Java reports `-1`.
    OlderThanEveryKeptSync,
    /// The downstream offset to resume from.
    Offset(i64),
}

/// Partitions of one topic may be numbered up to this far past twice the topic's tracked count
/// and still be indexed directly; anything else (negative, or far beyond the others) goes to the
/// topic's overflow map, so a stray partition number cannot make the index large.
const DENSE_SLACK: usize = 64;

/// The histories of one upstream topic's partitions. Kafka numbers partitions `0..n`, so they
/// are indexed by number: a lookup is one bounds check, no hashing and no key comparison.
#[derive(Debug, Default)]
struct TopicSyncs {
    /// `dense[p]` is partition `p`'s history. Invariant: a partition below `dense.len()` is never
    /// in `overflow`.
    dense: Vec<Option<Box<PartitionSyncs>>>,
    /// Partitions that did not fit the dense rule when first seen.
    overflow: HashMap<i32, Box<PartitionSyncs>, FastHashBuilder>,
    /// Partitions tracked (dense and overflow).
    tracked: usize,
}

impl TopicSyncs {
    #[inline]
    fn get(&self, partition: i32) -> Option<&PartitionSyncs> {
        match usize::try_from(partition) {
            Ok(p) if p < self.dense.len() => self.dense[p].as_deref(),
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.get(&partition).map(|b| &**b),
        }
    }

    #[inline]
    fn get_mut(&mut self, partition: i32) -> Option<&mut PartitionSyncs> {
        match usize::try_from(partition) {
            Ok(p) if p < self.dense.len() => self.dense[p].as_deref_mut(),
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.get_mut(&partition).map(|b| &mut **b),
        }
    }

    /// Adds a partition that [`get`](Self::get) does not know.
    fn insert(&mut self, partition: i32, syncs: Box<PartitionSyncs>) {
        self.tracked += 1;
        let limit = 2 * self.tracked + DENSE_SLACK;
        match usize::try_from(partition) {
            Ok(p) if p < self.dense.len() => self.dense[p] = Some(syncs),
            Ok(p) if p < limit => {
                // Grow by at least an eighth so a topic seen partition by partition does not
                // reallocate each time, yet keeps little spare capacity.
                let len = self.dense.len();
                let target = (p + 1).max(len + len / 8).min(limit);
                self.dense.reserve_exact(target - len);
                self.dense.resize_with(target, || None);
                let moved: Vec<i32> = self
                    .overflow
                    .keys()
                    .copied()
                    .filter(|&q| usize::try_from(q).is_ok_and(|q| q < target))
                    .collect();
                for q in moved {
                    if let (Some(history), Ok(i)) = (self.overflow.remove(&q), usize::try_from(q)) {
                        self.dense[i] = Some(history);
                    }
                }
                self.dense[p] = Some(syncs);
            }
            _ => {
                self.overflow.insert(partition, syncs);
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (i32, &PartitionSyncs)> {
        let dense = self.dense.iter().enumerate().filter_map(|(p, s)| {
            let history = s.as_deref()?;
            Some((i32::try_from(p).ok()?, history))
        });
        dense.chain(self.overflow.iter().map(|(&p, s)| (p, &**s)))
    }
}

/// Offset translation state for all upstream partitions of one checkpoint task.
///
/// Each tracked partition costs one boxed [`PartitionSyncs`] (1088 bytes) and a pointer in its
/// topic's partition index; each topic costs its name once and a map entry. Applying a sync to
/// a known partition allocates nothing.
#[derive(Debug)]
pub struct OffsetSyncStore {
    /// Histories by upstream topic, then partition number.
    topics: HashMap<Box<str>, TopicSyncs, FastHashBuilder>,
    partition_count: usize,
    must_read_to_end: bool,
    read_to_end: bool,
}

impl Default for OffsetSyncStore {
    fn default() -> Self {
        Self::new()
    }
}

impl OffsetSyncStore {
    /// An empty store, not yet read to end. Like Java before `start`, it behaves as a
    /// pessimistic load until [`begin_initial_load`](Self::begin_initial_load) says otherwise.
    pub fn new() -> Self {
        OffsetSyncStore {
            topics: HashMap::default(),
            partition_count: 0,
            must_read_to_end: true,
            read_to_end: false,
        }
    }

    /// Java's `start(mustReadToEnd)`, called before the initial read of the offset-syncs topic.
    /// With `must_read_to_end` (checkpoints could not be loaded) each sync read before
    /// [`mark_read_to_end`](Self::mark_read_to_end) replaces its partition's whole history, so a
    /// new task generation cannot translate below anything an earlier one might have emitted.
    /// Existing history is kept; build a new store for a new task generation.
    pub fn begin_initial_load(&mut self, must_read_to_end: bool) {
        self.must_read_to_end = must_read_to_end;
        self.read_to_end = false;
    }

    /// Records that the initial read has caught up; translation is enabled from now on.
    pub fn mark_read_to_end(&mut self) {
        self.read_to_end = true;
    }

    /// True once [`mark_read_to_end`](Self::mark_read_to_end) was called.
    pub fn is_read_to_end(&self) -> bool {
        self.read_to_end
    }

    /// Applies one sync read from the offset-syncs topic (Java's `handleRecord`).
    pub fn handle_sync(&mut self, sync: &OffsetSync) {
        self.handle_record(
            &sync.topic_partition.topic,
            sync.topic_partition.partition,
            sync.upstream_offset,
            sync.downstream_offset,
        );
    }

    /// [`handle_sync`](Self::handle_sync) on the decoded fields, for a sync decoded in place
    /// ([`OffsetSyncRef`](crate::offset_sync::OffsetSyncRef)). Allocates only the first
    /// time a partition (or topic) is seen.
    pub fn handle_record(&mut self, topic: &str, partition: i32, up: i64, down: i64) {
        let reset = !self.read_to_end && self.must_read_to_end;
        let known = match self.topics.get_mut(topic) {
            Some(syncs) => syncs.get_mut(partition),
            None => None,
        };
        match known {
            Some(history) => history.apply(up, down, reset),
            None => {
                let history = Box::new(PartitionSyncs::filled(up, down));
                if let Some(syncs) = self.topics.get_mut(topic) {
                    syncs.insert(partition, history);
                } else {
                    let mut syncs = TopicSyncs::default();
                    syncs.insert(partition, history);
                    self.topics.insert(topic.into(), syncs);
                }
                self.partition_count += 1;
            }
        }
        if log::log_enabled!(log::Level::Trace) {
            if let Some(history) = self.find(topic, partition) {
                log::trace!(
                    "offset sync {topic}-{partition}: {up}->{down} applied, slots now {}",
                    describe(history)
                );
            }
        }
    }

    #[inline]
    fn find(&self, topic: &str, partition: i32) -> Option<&PartitionSyncs> {
        self.topics.get(topic)?.get(partition)
    }

    /// Number of upstream partitions with a sync history.
    pub fn partition_count(&self) -> usize {
        self.partition_count
    }

    /// The sync history of one upstream partition, for diagnostics and tests.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionSyncs> {
        self.find(&tp.topic, tp.partition)
    }

    /// Every upstream partition as `(topic, partition, history)`, in no particular order.
    pub fn partitions(&self) -> impl Iterator<Item = (&str, i32, &PartitionSyncs)> {
        self.topics
            .iter()
            .flat_map(|(topic, syncs)| syncs.iter().map(move |(p, s)| (&**topic, p, s)))
    }

    /// Translates the upstream position `upstream_offset` (the next record the group would read)
    /// using the newest kept sync at or before it. Past that sync the answer is at most one
    /// offset beyond it, because the records in between may or may not have been mirrored and
    /// guessing further could skip data.
    pub fn translate(&self, tp: &TopicPartition, upstream_offset: i64) -> Translation {
        if !self.read_to_end {
            log::debug!(
                "translate {tp} at {upstream_offset}: initial offset-sync read still running"
            );
            return Translation::NotReadToEnd;
        }
        let Some(syncs) = self.find(&tp.topic, tp.partition) else {
            log::debug!("translate {tp} at {upstream_offset}: no offset sync");
            return Translation::NoOffsetSync;
        };
        let (up, down) = syncs.lookup(upstream_offset);
        if up > upstream_offset {
            log::debug!(
                "translate {tp} at {upstream_offset}: older than every kept sync (oldest {up}->{down})"
            );
            Translation::OlderThanEveryKeptSync
        } else if up == upstream_offset {
            Translation::Offset(down)
        } else {
            // Java's `long` addition wraps.
            Translation::Offset(down.wrapping_add(1))
        }
    }

    /// The upstream offset of the sync [`translate`](Self::translate) goes through for
    /// `upstream_offset` (the newest kept sync at or before it); `None` when it translates
    /// through none (not read to end, no sync, older than every kept sync). A consumer resuming
    /// from that translation re-reads the records from there to `upstream_offset`.
    pub fn sync_upstream_offset(&self, tp: &TopicPartition, upstream_offset: i64) -> Option<i64> {
        if !self.read_to_end {
            return None;
        }
        let (up, _) = self.find(&tp.topic, tp.partition)?.lookup(upstream_offset);
        (up <= upstream_offset).then_some(up)
    }

    /// The upstream offset of the kept sync that a checkpoint `upstream_offset ->
    /// downstream_offset` was translated through: the newest sync at or before `upstream_offset`
    /// whose translation of it is exactly `downstream_offset`. `None` when the store does not
    /// keep such a sync (later syncs evicted it, compaction removed it, or it was never read) or
    /// has not read to the end. Unlike [`sync_upstream_offset`](Self::sync_upstream_offset),
    /// which answers for a translation made now, this names the sync of a checkpoint made
    /// earlier (one read back from the checkpoints topic), or nothing.
    pub fn sync_of_checkpoint(
        &self,
        tp: &TopicPartition,
        upstream_offset: i64,
        downstream_offset: i64,
    ) -> Option<i64> {
        if !self.read_to_end {
            return None;
        }
        let syncs = self.find(&tp.topic, tp.partition)?;
        (0..SYNCS_PER_PARTITION)
            .filter_map(|i| syncs.slot(i))
            .filter(|&(up, down)| {
                up <= upstream_offset
                    && if up == upstream_offset {
                        down == downstream_offset
                    } else {
                        down.wrapping_add(1) == downstream_offset
                    }
            })
            .map(|(up, _)| up)
            .max()
    }

    /// Java-shaped [`translate`](Self::translate): `None` when not read to end or without syncs,
    /// `Some(-1)` when older than every kept sync, else the offset.
    pub fn translate_downstream(&self, tp: &TopicPartition, upstream_offset: i64) -> Option<i64> {
        match self.translate(tp, upstream_offset) {
            Translation::NotReadToEnd | Translation::NoOffsetSync => None,
            Translation::OlderThanEveryKeptSync => Some(-1),
            Translation::Offset(down) => Some(down),
        }
    }
}

/// Compact trace form: one `up:down` per run of slots holding the same sync.
fn describe(syncs: &PartitionSyncs) -> String {
    let mut out = String::from("[");
    for i in 0..SYNCS_PER_PARTITION {
        if i == 0 || !syncs.same_sync(i - 1, i) {
            if i != 0 {
                out.push(',');
            }
            let slot = syncs.slots[i];
            out.push_str(&format!("{}:{}", slot.up, slot.down));
        }
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::SplitMix64;
    use proptest::prelude::*;

    fn tp() -> TopicPartition {
        TopicPartition::new("orders", 3)
    }

    #[test]
    fn the_sync_a_translation_goes_through_is_the_newest_at_or_before_the_offset() {
        let mut store = started(false);
        assert_eq!(store.sync_upstream_offset(&tp(), 10), None, "no sync");
        sync(&mut store, 100, 90);
        sync(&mut store, 200, 180);
        let table = [
            (99, None),
            (100, Some(100)),
            (150, Some(100)),
            (200, Some(200)),
            (900, Some(200)),
        ];
        for (offset, want) in table {
            assert_eq!(store.sync_upstream_offset(&tp(), offset), want, "{offset}");
            let translated = store.translate(&tp(), offset);
            assert_eq!(
                want.is_some(),
                matches!(translated, Translation::Offset(_)),
                "{offset}"
            );
        }
        let mut loading = OffsetSyncStore::new();
        loading.begin_initial_load(false);
        loading.handle_sync(&OffsetSync::new(tp(), 100, 90));
        assert_eq!(
            loading.sync_upstream_offset(&tp(), 150),
            None,
            "not read to end"
        );
    }

    #[test]
    fn a_checkpoints_sync_is_the_kept_one_that_translates_it_or_none_once_evicted() {
        let mut store = started(false);
        sync(&mut store, 0, 0);
        sync(&mut store, 100, 90);
        // 150 -> 91 went through 100 -> 90; 100 -> 90 hit it exactly; 150 -> 95 went through no
        // kept sync (none translates 150 to 95).
        assert_eq!(store.sync_of_checkpoint(&tp(), 150, 91), Some(100));
        assert_eq!(store.sync_of_checkpoint(&tp(), 100, 90), Some(100));
        assert_eq!(store.sync_of_checkpoint(&tp(), 150, 95), None);
        assert_eq!(
            store.sync_of_checkpoint(&TopicPartition::new("other", 0), 150, 91),
            None
        );
        // Later syncs far past the checkpoint evict 100 -> 90 from the 64-slot history: the
        // newest kept sync at or before 150 is then 0 -> 0, which a translation made now goes
        // through, but the checkpoint did not.
        for i in 1..=EVICTING_SYNCS {
            sync(&mut store, 200 + i * 10, 190 + i * 10);
        }
        assert_eq!(store.sync_upstream_offset(&tp(), 150), Some(0));
        assert_eq!(store.sync_of_checkpoint(&tp(), 150, 91), None);
        let mut loading = OffsetSyncStore::new();
        loading.begin_initial_load(false);
        loading.handle_sync(&OffsetSync::new(tp(), 100, 90));
        assert_eq!(
            loading.sync_of_checkpoint(&tp(), 150, 91),
            None,
            "not read to end"
        );
    }

    /// Syncs 10 apart after 0 -> 0 and 100 -> 90 that leave 100 -> 90 out of the history (the
    /// restart test of tests/metrics_embedded.rs writes as many).
    const EVICTING_SYNCS: i64 = 50;

    fn sync(store: &mut OffsetSyncStore, up: i64, down: i64) {
        store.handle_sync(&OffsetSync::new(tp(), up, down));
    }

    fn started(must_read_to_end: bool) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(must_read_to_end);
        store.mark_read_to_end();
        store
    }

    /// Runs of slots holding one sync, as `(first slot, last slot, upstream offset)`.
    fn runs(syncs: &PartitionSyncs) -> Vec<(usize, usize, i64)> {
        let mut out: Vec<(usize, usize, i64)> = Vec::new();
        for i in 0..SYNCS_PER_PARTITION {
            match out.last_mut() {
                Some(run) if syncs.same_sync(i - 1, i) => run.1 = i,
                _ => out.push((i, i, syncs.slots[i].up)),
            }
        }
        out
    }

    /// Invariants B and C over every pair of slots, as Java's test states them: pairs with equal
    /// upstream offsets are exempt, and so is a bound that wraps negative.
    fn assert_invariants(syncs: &PartitionSyncs) {
        for j in 0..SYNCS_PER_PARTITION {
            for i in 0..j {
                let (up_i, up_j) = (syncs.slots[i].up, syncs.slots[j].up);
                if up_i == up_j {
                    continue;
                }
                let lower = up_j.wrapping_add(pow2(i.saturating_sub(2)));
                if lower < 0 {
                    continue;
                }
                assert!(up_i >= lower, "C({i},{j}): {up_i} < {lower} in {syncs:?}");
                let upper = up_j.wrapping_add(pow2(j)).wrapping_sub(pow2(i));
                if upper < 0 {
                    continue;
                }
                assert!(up_i <= upper, "B({i},{j}): {up_i} > {upper} in {syncs:?}");
            }
        }
    }

    fn checked_sync(store: &mut OffsetSyncStore, up: i64, down: i64) {
        sync(store, up, down);
        let syncs = store
            .partition(&tp())
            .expect("partition present after a sync");
        assert_eq!(syncs.slot(0), Some((up, down)), "invariant A");
        assert_invariants(syncs);
    }

    /// Java's `assertSparseSync`: `point` is kept, and the offset just below it translates from
    /// `previous` (or is untranslatable when `previous` is `None`). Downstream = upstream + shift.
    fn assert_sparse_point(store: &OffsetSyncStore, point: i64, previous: Option<i64>, shift: i64) {
        let below = previous.map_or(-1, |p| p + shift + 1);
        assert_eq!(
            store.translate_downstream(&tp(), point - 1),
            Some(below),
            "below {point}"
        );
        assert_eq!(
            store.translate_downstream(&tp(), point),
            Some(point + shift),
            "at {point}"
        );
        assert_eq!(
            store.translate_downstream(&tp(), point + 1),
            Some(point + shift + 1)
        );
        assert_eq!(
            store.translate_downstream(&tp(), point + 2),
            Some(point + shift + 1)
        );
    }

    #[test]
    fn partition_syncs_is_exactly_1088_bytes() {
        assert_eq!(std::mem::size_of::<PartitionSyncs>(), 1088);
    }

    #[test]
    fn translation_follows_syncs_and_honours_downstream_and_upstream_resets() {
        let mut store = started(true);
        sync(&mut store, 40, 900);
        assert_eq!(store.translate(&tp(), 75), Translation::Offset(901));
        sync(&mut store, 75, 960);
        assert_eq!(store.translate(&tp(), 75), Translation::Offset(960));
        assert_eq!(
            store.translate(&tp(), 3),
            Translation::OlderThanEveryKeptSync
        );
        assert_eq!(store.translate_downstream(&tp(), 3), Some(-1));
        // Downstream topic recreated: the newest sync wins even though it went backwards.
        sync(&mut store, 120, 6);
        assert_eq!(store.translate(&tp(), 120), Translation::Offset(6));
        // Upstream rewind: history is dropped.
        sync(&mut store, 30, 31);
        assert_eq!(store.translate(&tp(), 30), Translation::Offset(31));
        assert_eq!(
            store.translate(&tp(), 29),
            Translation::OlderThanEveryKeptSync
        );
        assert_eq!(store.partition(&tp()).map(|s| s.distinct_syncs()), Some(1));
    }

    #[test]
    fn nothing_translates_before_or_during_the_initial_load() {
        let mut store = OffsetSyncStore::new();
        for g in [0, 40, 80] {
            assert_eq!(store.translate(&tp(), g), Translation::NotReadToEnd);
        }
        store.begin_initial_load(true);
        sync(&mut store, 40, 700);
        for g in [0, 40, 80] {
            assert_eq!(store.translate(&tp(), g), Translation::NotReadToEnd);
            assert_eq!(store.translate_downstream(&tp(), g), None);
        }
        assert!(!store.is_read_to_end());
        store.mark_read_to_end();
        assert!(store.is_read_to_end());
        assert_eq!(store.translate_downstream(&tp(), 0), Some(-1));
        assert_eq!(store.translate_downstream(&tp(), 40), Some(700));
        assert_eq!(store.translate_downstream(&tp(), 80), Some(701));
    }

    #[test]
    fn a_partition_without_syncs_has_no_translation() {
        let mut store = started(true);
        sync(&mut store, 5, 5);
        let other = TopicPartition::new("orders", 4);
        assert_eq!(store.translate(&other, 0), Translation::NoOffsetSync);
        assert_eq!(store.translate_downstream(&other, 0), None);
        assert_eq!(store.partition_count(), 1);
        assert!(store.partition(&other).is_none());
    }

    #[test]
    fn translation_past_the_sync_adds_one_with_java_wrapping() {
        let mut store = started(true);
        sync(&mut store, 10, i64::MAX);
        assert_eq!(store.translate(&tp(), 11), Translation::Offset(i64::MIN));
        assert_eq!(store.translate(&tp(), 10), Translation::Offset(i64::MAX));
    }

    #[test]
    fn worked_example_slot_layouts_after_live_syncs() {
        let mut store = started(true);
        let mut layouts = Vec::new();
        for u in (0..=100).step_by(10) {
            checked_sync(&mut store, u, u + 1000);
            if [0, 10, 20, 50, 100].contains(&u) {
                let syncs = store.partition(&tp()).expect("present");
                layouts.push((u, runs(syncs)));
            }
        }
        let expected = vec![
            (0, vec![(0, 63, 0)]),
            (10, vec![(0, 4, 10), (5, 63, 0)]),
            (20, vec![(0, 4, 20), (5, 5, 10), (6, 63, 0)]),
            (50, vec![(0, 4, 50), (5, 5, 40), (6, 6, 30), (7, 63, 0)]),
            (100, vec![(0, 4, 100), (5, 5, 90), (6, 6, 60), (7, 63, 0)]),
        ];
        assert_eq!(layouts, expected);
        let syncs = store.partition(&tp()).expect("present");
        assert_eq!(syncs.slot(6), Some((60, 1060)));
        assert_eq!(syncs.slot(64), None);
    }

    fn load_0_to_1000(must_read_to_end: bool) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(must_read_to_end);
        for u in (0..=1000).step_by(10) {
            checked_sync(&mut store, u, u);
        }
        store.mark_read_to_end();
        store
    }

    #[test]
    fn optimistic_initial_load_keeps_exponential_history() {
        let store = load_0_to_1000(false);
        let syncs = store.partition(&tp()).expect("present");
        let expected = vec![
            (0, 4, 1000),
            (5, 5, 990),
            (6, 6, 960),
            (7, 7, 900),
            (8, 8, 840),
            (9, 9, 720),
            (10, 10, 480),
            (11, 63, 0),
        ];
        assert_eq!(runs(syncs), expected);
        assert_eq!(syncs.distinct_syncs(), 8);
    }

    #[test]
    fn pessimistic_initial_load_keeps_only_the_last_sync() {
        let store = load_0_to_1000(true);
        let syncs = store.partition(&tp()).expect("present");
        assert_eq!(runs(syncs), vec![(0, 63, 1000)]);
    }

    /// Syncs every 10 offsets up to 10000 after a load of 0..=1000; downstream = upstream + 7.
    fn past_offsets_store(must_read_to_end: bool) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(must_read_to_end);
        for u in (0..=1000).step_by(10) {
            checked_sync(&mut store, u, u + 7);
        }
        store.mark_read_to_end();
        store
    }

    fn live_syncs_to_10000(store: &mut OffsetSyncStore, from: i64) {
        for u in (from..=10_000).step_by(10) {
            checked_sync(store, u, u + 7);
        }
    }

    fn assert_rewind_clears_history(store: &mut OffsetSyncStore) {
        checked_sync(store, 1500, 20_000);
        assert_eq!(store.translate_downstream(&tp(), 1499), Some(-1));
        assert_eq!(store.translate_downstream(&tp(), 1500), Some(20_000));
        assert_eq!(store.translate_downstream(&tp(), 2500), Some(20_001));
    }

    #[test]
    fn pessimistic_start_translates_past_offsets_from_the_last_loaded_sync_on() {
        let mut store = past_offsets_store(true);
        assert_sparse_point(&store, 1000, None, 7);
        live_syncs_to_10000(&mut store, 1010);
        // Invariant D: the last sync of the initial load is still the oldest one kept.
        assert_sparse_point(&store, 1000, None, 7);
        let points = [4840, 6760, 8680, 9160, 9640, 9880, 9940, 9970, 9990, 10_000];
        let mut previous = 1000;
        for point in points {
            assert_sparse_point(&store, point, Some(previous), 7);
            previous = point;
        }
        assert_rewind_clears_history(&mut store);
    }

    #[test]
    fn optimistic_start_translates_past_offsets_from_the_whole_history() {
        let mut store = past_offsets_store(false);
        assert_sparse_point(&store, 480, Some(0), 7);
        assert_sparse_point(&store, 720, Some(480), 7);
        assert_sparse_point(&store, 1000, Some(990), 7);
        // 1000 arrives again live: an equal upstream offset is not a rewind.
        live_syncs_to_10000(&mut store, 1000);
        let points = [3840, 7680, 8640, 9120, 9600, 9840, 9900, 9960, 9990, 10_000];
        let mut previous = 0;
        for point in points {
            assert_sparse_point(&store, point, Some(previous), 7);
            previous = point;
        }
        assert_rewind_clears_history(&mut store);
    }

    /// Feeds `first`, then one sync per gap, and checks A, D, B, C and that no update evicts more
    /// than `max_evicted` distinct syncs (identity-counted, as Java does).
    fn assert_bounded_evictions(
        first: i64,
        gaps: impl IntoIterator<Item = i64>,
        max_evicted: usize,
    ) {
        let mut store = started(true);
        checked_sync(&mut store, first, first);
        let mut offset = first;
        let mut last_count = 1usize;
        for gap in gaps {
            offset = offset
                .checked_add(gap)
                .expect("test stream must not overflow");
            checked_sync(&mut store, offset, offset);
            let syncs = store.partition(&tp()).expect("present");
            assert_eq!(syncs.slot(63).map(|s| s.0), Some(first), "invariant D");
            let count = syncs.distinct_syncs();
            let evicted = last_count + 1 - count;
            assert!(
                evicted <= max_evicted,
                "{evicted} > {max_evicted} syncs evicted at {offset}"
            );
            last_count = count;
        }
    }

    #[test]
    fn consistently_spaced_syncs_evict_at_most_one_sync_per_update() {
        let iterations = 100;
        let max_step = i64::MAX / iterations;
        let mut step = 1i64;
        while step < max_step {
            for first in (0..30).step_by(7) {
                assert_bounded_evictions(
                    first,
                    std::iter::repeat(step).take(iterations as usize),
                    1,
                );
            }
            step = step * 2 + 1;
        }
    }

    /// Uniform in `lo..hi` from the shared deterministic generator.
    fn range(rng: &mut SplitMix64, lo: i64, hi: i64) -> i64 {
        rng.range(0, (hi - lo) as u64) as i64 + lo
    }

    #[test]
    fn randomly_spaced_syncs_evict_at_most_n_plus_two_for_n_bit_gaps() {
        let mut rng = SplitMix64(42);
        let iterations = 1 << 10;
        for n in 1..(64 - 10) {
            let spread = 1i64 << n;
            let gaps: Vec<i64> = (0..iterations)
                .map(|_| range(&mut rng, 0, spread))
                .collect();
            assert_bounded_evictions(0, gaps, n + 2);
            // Same bound with a large minimum gap, as offset.lag.max produces.
            let lag = 1i64 << 16;
            let gaps: Vec<i64> = (0..iterations)
                .map(|_| range(&mut rng, lag, lag + spread))
                .collect();
            assert_bounded_evictions(0, gaps, n + 2);
        }
    }

    #[test]
    fn a_dropped_sync_among_regular_ones_evicts_at_most_two() {
        let mut rng = SplitMix64(7);
        let gaps: Vec<i64> = (0..10_000)
            .map(|_| if rng.next_u64() % 2 == 0 { 200 } else { 100 })
            .collect();
        assert_bounded_evictions(0, gaps, 2);
    }

    #[test]
    fn syncs_with_equal_offsets_are_distinct_by_identity() {
        let mut store = started(true);
        sync(&mut store, 50, 50);
        sync(&mut store, 50, 50);
        let syncs = store.partition(&tp()).expect("present");
        // The repeat takes slot 0 and, by identity, differs from the first one behind it.
        assert!(!syncs.same_sync(0, 63));
        assert_eq!(syncs.distinct_syncs(), 2);
        assert_eq!(syncs.slot(0), syncs.slot(63));
    }

    #[test]
    fn labels_stay_small_under_long_streams() {
        let mut store = started(true);
        let mut rng = SplitMix64(3);
        let mut offset = 0i64;
        for _ in 0..20_000 {
            offset += range(&mut rng, 0, 1 << 20);
            sync(&mut store, offset, offset);
        }
        let syncs = store.partition(&tp()).expect("present");
        assert!(syncs.labels.iter().all(|&l| l <= 64));
        assert!(syncs.fresh_label() <= 64);
    }

    #[test]
    fn each_partition_has_its_own_history() {
        let mut store = started(true);
        let a = TopicPartition::new("a", 0);
        let b = TopicPartition::new("b", 0);
        store.handle_sync(&OffsetSync::new(a.clone(), 10, 100));
        store.handle_sync(&OffsetSync::new(b.clone(), 5, 7));
        store.handle_sync(&OffsetSync::new(a.clone(), 2, 3));
        assert_eq!(store.partition_count(), 2);
        assert_eq!(store.translate_downstream(&a, 2), Some(3));
        assert_eq!(store.translate_downstream(&b, 6), Some(8));
        assert_eq!(store.partitions().count(), 2);
    }

    /// One mirrored record: its upstream and downstream offsets, and whether it produced a sync.
    #[derive(Debug)]
    struct Mirrored {
        up: i64,
        down: i64,
        synced: bool,
    }

    /// MirrorSourceTask's sync decision (emit a sync when the downstream offset would drift more
    /// than `offset.lag.max` from the translated one), plus `extra` syncs that stand for delayed
    /// syncs promoted at offset-flush time.
    fn mirror(steps: &[(i64, i64, bool)], lag_max: i64) -> Vec<Mirrored> {
        let (mut up, mut down) = (0i64, 0i64);
        let (mut prev_up, mut prev_down, mut last_sync_down) = (-1i64, -1i64, -1i64);
        let mut out = Vec::new();
        for (i, &(up_gap, down_gap, extra)) in steps.iter().enumerate() {
            if i > 0 {
                up += up_gap;
                down += down_gap;
            } else {
                up = up_gap - 1;
            }
            let required = last_sync_down == -1
                || down - (last_sync_down + 1) >= lag_max
                || up - prev_up != 1
                || down < prev_down;
            let synced = required || extra;
            if synced {
                last_sync_down = down;
            }
            prev_up = up;
            prev_down = down;
            out.push(Mirrored { up, down, synced });
        }
        out
    }

    /// The downstream offset a consumer at upstream position `g` must resume from so it misses
    /// nothing, among `records` mirrored so far.
    fn true_position(records: &[Mirrored], g: i64) -> i64 {
        match records.iter().find(|r| r.up >= g) {
            Some(r) => r.down,
            None => records.last().map_or(0, |r| r.down + 1),
        }
    }

    fn as_offset(t: Translation) -> Option<i64> {
        match t {
            Translation::Offset(d) => Some(d),
            Translation::OlderThanEveryKeptSync => Some(-1),
            _ => None,
        }
    }

    fn extreme_i64() -> impl Strategy<Value = i64> {
        prop_oneof![
            any::<i64>(),
            (0i64..4096),
            (i64::MAX - 4096..=i64::MAX),
            (i64::MIN..i64::MIN + 4096),
            Just(1i64 << 62),
            Just(-1i64),
        ]
    }

    /// For each slot, the first slot holding the same sync: equal for two arrays exactly when
    /// they group their slots into syncs alike, whatever label values they use.
    fn identity_classes(same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        (0..SYNCS_PER_PARTITION)
            .map(|i| (0..=i).find(|&j| same(j, i)).unwrap_or(i))
            .collect()
    }

    /// Slot offsets equal and the same slots share a sync (labels may differ in value).
    fn assert_same_as_reference(ours: &PartitionSyncs, theirs: &reference::ReferenceSyncs) {
        for i in 0..SYNCS_PER_PARTITION {
            assert_eq!(ours.slot(i), theirs.slot(i), "slot {i}");
        }
        assert_eq!(
            identity_classes(|i, j| ours.same_sync(i, j)),
            identity_classes(|i, j| theirs.same_sync(i, j)),
            "identities"
        );
    }

    /// Feeds the same syncs to a history and to the reference one and compares them after every
    /// sync, and their translations at `probes` plus every kept offset and its neighbours.
    fn compare_with_reference(syncs: &[(i64, i64, bool)], probes: &[i64]) {
        let (first_up, first_down, _) = syncs[0];
        let mut ours = PartitionSyncs::filled(first_up, first_down);
        let mut theirs = reference::ReferenceSyncs::filled(first_up, first_down);
        for &(up, down, reset) in &syncs[1..] {
            ours.apply(up, down, reset);
            theirs.apply(up, down, reset);
            assert_same_as_reference(&ours, &theirs);
            let kept = (0..SYNCS_PER_PARTITION)
                .filter(|&i| i == 0 || !ours.same_sync(i - 1, i))
                .filter_map(|i| ours.slot(i))
                .map(|s| s.0);
            for g in kept
                .flat_map(|u| [u.wrapping_sub(1), u, u.wrapping_add(1)])
                .chain(probes.iter().copied())
                .chain([i64::MIN, i64::MAX])
            {
                assert_eq!(ours.lookup(g), theirs.lookup(g), "lookup {g}");
            }
        }
    }

    #[test]
    fn matches_the_reference_on_the_benchmark_like_stream_and_extremes() {
        let mut rng = SplitMix64(11);
        let mut offset = 1i64 << 20;
        let mut stream = vec![(offset, offset, false)];
        for _ in 0..5_000 {
            offset += if rng.range(0, 50) == 0 {
                range(&mut rng, 1_000, 10_000)
            } else {
                range(&mut rng, 100, 140)
            };
            stream.push((offset, offset + 3, false));
        }
        compare_with_reference(&stream, &[0, offset / 2]);
        let top: Vec<(i64, i64, bool)> = (0..200)
            .map(|i| (i64::MAX - (1i64 << 40) + i * (1i64 << 32), i, false))
            .collect();
        compare_with_reference(&top, &[]);
    }

    /// Slots equal and grouped into syncs alike, in O(slots): our labels and the reference's
    /// must correspond one to one.
    fn same_as_reference_fast(ours: &PartitionSyncs, theirs: &reference::ReferenceSyncs) -> bool {
        let mut ours_to_theirs = [u8::MAX; 256];
        let mut theirs_to_ours = [u8::MAX; 256];
        (0..SYNCS_PER_PARTITION).all(|i| {
            let (a, b) = (ours.labels[i], theirs.label(i));
            let fresh = ours_to_theirs[usize::from(a)] == u8::MAX
                && theirs_to_ours[usize::from(b)] == u8::MAX;
            if fresh {
                ours_to_theirs[usize::from(a)] = b;
                theirs_to_ours[usize::from(b)] = a;
            }
            ours.slot(i) == theirs.slot(i)
                && ours_to_theirs[usize::from(a)] == b
                && theirs_to_ours[usize::from(b)] == a
        })
    }

    /// The next gap of one of the stream shapes the run-length shortcut in `apply` must agree
    /// with the reference on: unit, random, power-of-two, huge, mixed-with-rewinds, and equal.
    fn next_offset(rng: &mut SplitMix64, shape: u64, offset: i64) -> (i64, bool) {
        let reset = rng.range(0, 997) == 0;
        let next = match shape {
            0 => offset.wrapping_add(1),
            1 => offset.wrapping_add(range(rng, 0, 300)),
            2 => offset.wrapping_add(1i64 << rng.range(0, 20)),
            3 => offset.wrapping_add(range(rng, 0, i64::MAX / 1024)),
            4 if rng.range(0, 50) == 0 => offset.wrapping_sub(range(rng, 0, 5_000)),
            4 => offset.wrapping_add(range(rng, 100, 141)),
            5 => offset.wrapping_add(i64::from(rng.range(0, 4) == 0)),
            _ => offset.wrapping_add(1i64 << rng.range(0, 63)),
        };
        (next, reset)
    }

    /// Streams of 5,000 syncs each, every one of the 7 shapes from each of the 5 starts: 35
    /// cover them all once (175,000 syncs) in the unit tests; scripts/soak.sh sets
    /// MM2_SOAK_STORE_STREAMS=420 (2.1 million syncs, a minute in a debug build).
    fn reference_streams() -> u64 {
        std::env::var("MM2_SOAK_STORE_STREAMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(35)
    }

    #[test]
    fn run_length_shortcut_equals_the_reference_on_every_stream_shape_from_every_start() {
        let streams = reference_streams();
        let mut rng = SplitMix64(20_261_201);
        let mut syncs = 0usize;
        let mut probes = 0usize;
        let starts = [
            0i64,
            1 << 20,
            i64::MAX - (1i64 << 30),
            i64::MAX - 70,
            (1i64 << 62) - 5,
        ];
        let mut combinations = std::collections::HashSet::new();
        for stream in 0..streams {
            let shape = stream % 7;
            let start = (stream as usize / 7) % starts.len();
            combinations.insert((shape, start));
            let mut offset = starts[start];
            let mut ours = PartitionSyncs::filled(offset, 0);
            let mut theirs = reference::ReferenceSyncs::filled(offset, 0);
            for step in 0..5_000i64 {
                let (next, reset) = next_offset(&mut rng, shape, offset);
                offset = next;
                ours.apply(offset, step, reset);
                theirs.apply(offset, step, reset);
                syncs += 1;
                assert!(
                    same_as_reference_fast(&ours, &theirs),
                    "stream {stream} step {step}: {ours:?} vs {theirs:?}"
                );
                if step % 16 == 0 {
                    for g in [
                        offset,
                        offset.wrapping_sub(range(&mut rng, 0, 1 << 20)),
                        i64::MIN,
                    ] {
                        assert_eq!(ours.lookup(g), theirs.lookup(g), "lookup {g}");
                        probes += 1;
                    }
                }
            }
        }
        assert_eq!(syncs as u64, streams * 5_000);
        assert!(
            probes as u64 > streams * 5_000 * 3 / 16 * 9 / 10,
            "{probes} probes"
        );
        assert!(
            streams < 35 || combinations.len() == 35,
            "{} shape × start combinations",
            combinations.len()
        );
    }

    #[test]
    fn topics_index_their_partitions_densely_and_keep_strays_apart() {
        let mut store = started(false);
        let partitions = [3, 0, -1, 1, i32::MAX, 2, 200, 5000, i32::MIN, 70, 150];
        for (n, &p) in partitions.iter().enumerate() {
            let tp = TopicPartition::new("t", p);
            store.handle_sync(&OffsetSync::new(tp, 10 * n as i64, p as i64));
            store.handle_sync(&OffsetSync::new(TopicPartition::new("u", p), 1, 2));
        }
        assert_eq!(store.partition_count(), 2 * partitions.len());
        for (n, &p) in partitions.iter().enumerate() {
            let tp = TopicPartition::new("t", p);
            assert_eq!(
                store.translate_downstream(&tp, 10 * n as i64),
                Some(p as i64),
                "partition {p}"
            );
            let syncs = store.partition(&tp).expect("tracked");
            assert_eq!(syncs.slot(0), Some((10 * n as i64, p as i64)));
        }
        for p in [4, 71, 199, 4999, -2] {
            assert!(store.partition(&TopicPartition::new("t", p)).is_none());
        }
        let topics = store.topics.get("t").expect("topic");
        assert!(topics.dense.len() <= 2 * partitions.len() + DENSE_SLACK);
        assert!(topics
            .overflow
            .keys()
            .all(|&p| usize::try_from(p).map_or(true, |p| p >= topics.dense.len())));
        let mut listed: Vec<(String, i32)> = store
            .partitions()
            .map(|(t, p, _)| (t.to_owned(), p))
            .collect();
        listed.sort();
        let mut expected: Vec<(String, i32)> = ["t", "u"]
            .iter()
            .flat_map(|t| partitions.iter().map(move |&p| (t.to_string(), p)))
            .collect();
        expected.sort();
        assert_eq!(listed, expected);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]

        #[test]
        fn histories_equal_the_reference_representation(
            syncs in prop::collection::vec(
                (extreme_i64(), extreme_i64(), prop::bool::weighted(0.05)), 1..200),
            increasing in prop::collection::vec(
                (prop_oneof![0i64..4, 0i64..300, 0i64..(1i64 << 40)], any::<i64>()), 1..300),
            start in extreme_i64(),
            probes in prop::collection::vec(extreme_i64(), 0..20),
        ) {
            compare_with_reference(&syncs, &probes);
            let mut offset = start;
            let rising: Vec<(i64, i64, bool)> = increasing
                .iter()
                .map(|&(gap, down)| {
                    offset = offset.saturating_add(gap);
                    (offset, down, false)
                })
                .collect();
            compare_with_reference(&rising, &probes);
        }

        #[test]
        fn store_equals_per_partition_reference_over_many_partitions(
            ops in prop::collection::vec((0usize..6, -3i32..80, 0i64..50, any::<bool>()), 1..400),
        ) {
            let topics = ["a", "b", "mirror-topic-0001"];
            let mut store = started(false);
            let mut model: HashMap<(usize, i32), (i64, reference::ReferenceSyncs)> = HashMap::new();
            for &(t, p, gap, query) in &ops {
                let t = t % topics.len();
                let tp = TopicPartition::new(topics[t], p);
                if query {
                    let expected = model.get(&(t, p)).map(|(_, r)| r.lookup(gap));
                    let got = store.partition(&tp).map(|s| s.lookup(gap));
                    prop_assert_eq!(got, expected);
                    continue;
                }
                let entry = model.entry((t, p));
                let up = match entry {
                    std::collections::hash_map::Entry::Occupied(mut e) => {
                        let (last, r) = e.get_mut();
                        *last += gap;
                        r.apply(*last, gap, false);
                        *last
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert((gap, reference::ReferenceSyncs::filled(gap, gap)));
                        gap
                    }
                };
                store.handle_sync(&OffsetSync::new(tp.clone(), up, gap));
                let (_, r) = &model[&(t, p)];
                assert_same_as_reference(store.partition(&tp).expect("tracked"), r);
            }
            prop_assert_eq!(store.partition_count(), model.len());
            prop_assert_eq!(store.partitions().count(), model.len());
        }

        #[test]
        fn translation_never_passes_the_next_unconsumed_record_and_is_monotonic(
            steps in prop::collection::vec((1i64..20, 1i64..4, any::<bool>()), 1..100),
            lag_max in 0i64..40,
            load_fraction in 0usize..=100,
            must_read_to_end in any::<bool>(),
        ) {
            let records = mirror(&steps, lag_max);
            let loaded = records.len() * load_fraction / 100;
            let mut store = OffsetSyncStore::new();
            store.begin_initial_load(must_read_to_end);
            for (i, r) in records.iter().enumerate() {
                if i == loaded {
                    store.mark_read_to_end();
                }
                if !r.synced {
                    continue;
                }
                sync(&mut store, r.up, r.down);
                let syncs = store.partition(&tp()).expect("present");
                assert_invariants(syncs);
                let so_far = &records[..=i];
                for probe in so_far.iter().step_by(3) {
                    for g in [probe.up, probe.up + 1] {
                        if let Some(d) = as_offset(store.translate(&tp(), g)) {
                            prop_assert!(d <= true_position(so_far, g), "g={} d={}", g, d);
                        }
                    }
                }
            }
            store.mark_read_to_end();
            let end = records.last().map_or(0, |r| r.up + 1);
            let mut previous = i64::MIN;
            for g in 0..=end {
                let d = as_offset(store.translate(&tp(), g));
                prop_assert!(d.is_some(), "a synced partition always translates once read to end");
                let d = d.unwrap_or(i64::MIN);
                prop_assert!(d <= true_position(&records, g), "g={} d={}", g, d);
                prop_assert!(d >= previous, "not monotonic at g={}: {} < {}", g, d, previous);
                previous = d;
            }
        }

        #[test]
        fn arbitrary_sync_streams_keep_invariants_and_never_panic(
            syncs in prop::collection::vec((extreme_i64(), extreme_i64()), 1..200),
            probes in prop::collection::vec(extreme_i64(), 0..20),
            must_read_to_end in any::<bool>(),
            loaded in 0usize..200,
        ) {
            let mut store = OffsetSyncStore::new();
            store.begin_initial_load(must_read_to_end);
            for (i, &(up, down)) in syncs.iter().enumerate() {
                if i == loaded {
                    store.mark_read_to_end();
                }
                sync(&mut store, up, down);
                let state = store.partition(&tp()).expect("present");
                prop_assert_eq!(state.slot(0), Some((up, down)));
                assert_invariants(state);
                for &g in &probes {
                    let _ = store.translate(&tp(), g);
                }
            }
        }

        #[test]
        fn increasing_streams_near_the_top_of_i64_keep_invariants(
            start in prop_oneof![Just(0i64), (1i64 << 61)..(1i64 << 62), (i64::MAX - (1i64 << 40))..i64::MAX],
            gaps in prop::collection::vec(prop_oneof![0i64..16, 0i64..(1 << 20), 0i64..(1i64 << 58)], 1..200),
        ) {
            let mut store = started(true);
            let mut offset = start;
            sync(&mut store, offset, 0);
            for gap in gaps {
                offset = offset.saturating_add(gap);
                sync(&mut store, offset, 0);
                let state = store.partition(&tp()).expect("present");
                assert_invariants(state);
                // Slot 63's staleness bound is 2^63 - 2^62 = 2^62 (wrapping), so in Java too the
                // first sync can be displaced once the stream has moved more than 2^62 past it.
                if offset - start <= 1i64 << 62 {
                    prop_assert_eq!(state.slot(63).map(|s| s.0), Some(start), "invariant D");
                }
            }
        }
    }
}
