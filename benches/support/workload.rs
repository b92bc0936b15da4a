//! Offset-sync workloads shared by the criterion bench (`benches/offset_sync_store.rs`) and the
//! bench example (`examples/bench`), so both measure the same streams.
//!
//! A realistic sync stream is what MirrorSourceTask writes with the default
//! `offset.lag.max = 100`: per upstream partition, a sync roughly every 100–140 records (a sync
//! lands on the first record past the lag bound, so batch boundaries add jitter), now and then a
//! long jump (an idle period or compaction, 1,000–10,000 offsets), downstream offsets moving with
//! the upstream ones plus an occasional transaction marker. Partitions are interleaved as they
//! are in the topic: one sync per partition per round, in a fixed shuffled order.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use mm2_checkpoint::{OffsetSync, TopicPartition};
use mm2_checkpoint::{OffsetSyncStore, Translation};

/// Syncs applied per measured batch (at least one round over all partitions).
pub const BATCH_SYNCS: usize = 100_000;
/// Partitions per upstream topic in generated workloads.
pub const PARTITIONS_PER_TOPIC: usize = 100;

pub use mm2_checkpoint::splitmix::SplitMix64 as SplitMix;

/// The `n` upstream partitions of a workload: `mirror-topic-NNNN-P`, 100 partitions a topic.
pub fn upstream_partitions(n: usize) -> Vec<TopicPartition> {
    (0..n)
        .map(|i| {
            TopicPartition::new(
                format!("mirror-topic-{:04}", i / PARTITIONS_PER_TOPIC),
                (i % PARTITIONS_PER_TOPIC) as i32,
            )
        })
        .collect()
}

/// An endless, deterministic sync stream over `n` partitions.
pub struct SyncStream {
    partitions: Vec<TopicPartition>,
    order: Vec<usize>,
    next_up: Vec<i64>,
    next_down: Vec<i64>,
    rng: SplitMix,
}

impl SyncStream {
    /// A stream over `n` partitions starting at random offsets.
    pub fn new(n: usize, seed: u64) -> Self {
        let mut rng = SplitMix(seed);
        let partitions = upstream_partitions(n);
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.range(0, i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let next_up = (0..n).map(|_| rng.range(0, 1 << 30) as i64).collect();
        let next_down = (0..n).map(|_| rng.range(0, 1 << 30) as i64).collect();
        SyncStream {
            partitions,
            order,
            next_up,
            next_down,
            rng,
        }
    }

    /// The partitions, indexed as [`queries`](Self::queries) refers to them.
    pub fn partitions(&self) -> &[TopicPartition] {
        &self.partitions
    }

    /// Length of one batch: whole rounds, at least [`BATCH_SYNCS`].
    pub fn batch_len(&self) -> usize {
        let n = self.partitions.len().max(1);
        BATCH_SYNCS.div_ceil(n) * n
    }

    fn advance(&mut self, p: usize) -> (i64, i64) {
        let (up, down) = (self.next_up[p], self.next_down[p]);
        let gap = if self.rng.range(0, 50) == 0 {
            self.rng.range(1_000, 10_000)
        } else {
            self.rng.range(100, 141)
        } as i64;
        let markers = if self.rng.range(0, 20) == 0 { 2 } else { 0 };
        self.next_up[p] = up + gap;
        self.next_down[p] = down + gap + markers;
        (up, down)
    }

    /// Overwrites `batch` with the next [`batch_len`](Self::batch_len) syncs. The first call
    /// allocates the batch; later calls only rewrite offsets in place, so preparing a batch
    /// costs nothing that the measured code would not also see.
    pub fn fill(&mut self, batch: &mut Vec<OffsetSync>) {
        let len = self.batch_len();
        if batch.len() != len {
            batch.clear();
            for i in 0..len {
                let p = self.order[i % self.order.len()];
                batch.push(OffsetSync::new(self.partitions[p].clone(), 0, 0));
            }
        }
        for (i, sync) in batch.iter_mut().enumerate() {
            let p = self.order[i % self.order.len()];
            let (up, down) = self.advance(p);
            sync.upstream_offset = up;
            sync.downstream_offset = down;
        }
    }

    /// `count` translation queries `(partition index, upstream position)`: nine in ten from
    /// groups close to the head (lag under 2,000 records), one in ten from groups far behind
    /// (lag up to 1,000,000, mostly past the fine-grained part of the history).
    pub fn queries(&self, count: usize, seed: u64) -> Vec<(usize, i64)> {
        let mut rng = SplitMix(seed);
        let n = self.partitions.len() as u64;
        (0..count)
            .map(|_| {
                let p = rng.range(0, n) as usize;
                let lag = if rng.range(0, 10) == 0 {
                    rng.range(0, 1_000_000)
                } else {
                    rng.range(0, 2_000)
                } as i64;
                (p, (self.next_up[p] - lag).max(0))
            })
            .collect()
    }
}

/// A store in the state a running task has: read to end (optimistic), every partition with
/// `rounds` syncs of history.
pub fn warmed_store(stream: &mut SyncStream, rounds: usize) -> OffsetSyncStore {
    let mut store = OffsetSyncStore::new();
    store.begin_initial_load(false);
    store.mark_read_to_end();
    let mut batch = Vec::new();
    let mut applied = 0;
    while applied < rounds * stream.partitions().len() {
        stream.fill(&mut batch);
        for s in &batch {
            store.handle_sync(s);
        }
        applied += batch.len();
    }
    store
}

/// The naive baseline: every sync ever seen, per partition, in an ordered map. Translation
/// picks the newest sync at or before the position (more precise than MM2's bounded history,
/// but memory grows without bound: 1,000 syncs a partition cost tens of KiB).
#[derive(Default)]
pub struct NaiveIndex {
    map: HashMap<TopicPartition, BTreeMap<i64, i64>>,
}

impl NaiveIndex {
    /// Records one sync.
    pub fn handle_sync(&mut self, sync: &OffsetSync) {
        match self.map.get_mut(&sync.topic_partition) {
            Some(m) => {
                m.insert(sync.upstream_offset, sync.downstream_offset);
            }
            None => {
                let mut m = BTreeMap::new();
                m.insert(sync.upstream_offset, sync.downstream_offset);
                self.map.insert(sync.topic_partition.clone(), m);
            }
        }
    }

    /// Same answer shape as [`OffsetSyncStore::translate`].
    pub fn translate(&self, tp: &TopicPartition, upstream: i64) -> Translation {
        let Some(m) = self.map.get(tp) else {
            return Translation::NoOffsetSync;
        };
        match m.range(..=upstream).next_back() {
            Some((&up, &down)) if up == upstream => Translation::Offset(down),
            Some((_, &down)) => Translation::Offset(down + 1),
            None => Translation::OlderThanEveryKeptSync,
        }
    }

    /// Syncs held.
    pub fn len(&self) -> usize {
        self.map.values().map(BTreeMap::len).sum()
    }
}

/// A naive index fed the same history as [`warmed_store`].
pub fn warmed_naive(stream: &mut SyncStream, rounds: usize) -> NaiveIndex {
    let mut index = NaiveIndex::default();
    let mut batch = Vec::new();
    let mut applied = 0;
    while applied < rounds * stream.partitions().len() {
        stream.fill(&mut batch);
        for s in &batch {
            index.handle_sync(s);
        }
        applied += batch.len();
    }
    index
}

/// A translation answer folded into a number, so the optimizer cannot drop the call.
pub fn fold(t: Translation) -> i64 {
    match t {
        Translation::Offset(d) => d,
        Translation::OlderThanEveryKeptSync => -1,
        Translation::NoOffsetSync => -2,
        Translation::NotReadToEnd => -3,
    }
}
