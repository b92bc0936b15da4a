//! Item 1 (and part of 5): the pure offset-sync store, timed over repeated runs, with memory per
//! tracked partition measured analytically and with the counting allocator.

use std::mem::size_of;
use std::time::Instant;

use mm2_checkpoint::{OffsetSyncStore, PartitionSyncs};

use crate::alloc::live_bytes;
use crate::stats::{mmm, rate, Dist, Table};
use crate::workload::{fold, warmed_naive, warmed_store, SyncStream};
use crate::Opts;

const WARM_ROUNDS: usize = 64;
const QUERIES: usize = 100_000;

/// Results kept for the growth table.
pub struct StoreResult {
    pub partitions: usize,
    pub ingest: Dist,
    pub translate: Dist,
    pub bytes_per_partition: f64,
}

pub fn run(opts: &Opts, table: &mut Table) -> Vec<StoreResult> {
    let sizes: &[usize] = if opts.quick {
        &[1, 1_000, 10_000]
    } else {
        &[1, 1_000, 100_000]
    };
    let runs = if opts.quick { 3 } else { 7 };
    let mut results = Vec::new();
    for &n in sizes {
        eprintln!("[store] {n} partitions");
        let (ingest, translate) = {
            let mut stream = SyncStream::new(n, 1);
            let mut store = warmed_store(&mut stream, WARM_ROUNDS);
            timed(&mut stream, runs, &mut store)
        };
        let (naive_ingest, naive_translate) = {
            let mut stream = SyncStream::new(n, 1);
            let mut naive = warmed_naive(&mut stream, WARM_ROUNDS);
            let ingest = {
                let mut batch = Vec::new();
                (0..runs)
                    .map(|_| {
                        stream.fill(&mut batch);
                        let began = Instant::now();
                        for s in &batch {
                            naive.handle_sync(std::hint::black_box(s));
                        }
                        batch.len() as f64 / began.elapsed().as_secs_f64()
                    })
                    .collect()
            };
            let queries = stream.queries(QUERIES, 2);
            let partitions = stream.partitions().to_vec();
            let translate = (0..runs)
                .map(|_| {
                    let began = Instant::now();
                    let mut acc = 0i64;
                    for &(p, g) in &queries {
                        acc = acc.wrapping_add(fold(naive.translate(&partitions[p], g)));
                    }
                    std::hint::black_box(acc);
                    QUERIES as f64 / began.elapsed().as_secs_f64()
                })
                .collect();
            (Dist::new(ingest), Dist::new(translate))
        };
        let ingest = Dist::new(ingest);
        let translate = Dist::new(translate);
        table.row(vec![
            "store ingest (syncs/s)".into(),
            format!("{n} partitions"),
            mmm(&ingest, rate),
            format!("naive BTreeMap index: {}", mmm(&naive_ingest, rate)),
            format!("{:.2}×", ingest.median() / naive_ingest.median()),
        ]);
        table.row(vec![
            "store translate (queries/s)".into(),
            format!("{n} partitions"),
            mmm(&translate, rate),
            format!("naive BTreeMap index: {}", mmm(&naive_translate, rate)),
            format!("{:.2}×", translate.median() / naive_translate.median()),
        ]);

        let (store_bytes, naive_bytes, naive_syncs) = memory(n);
        let analytic = analytic_bytes(n);
        table.row(vec![
            "memory per tracked partition".into(),
            format!("{n} partitions"),
            format!("{store_bytes:.0} B measured, {analytic:.0} B analytic"),
            format!(
                "naive: {naive_bytes:.0} B ({:.0} syncs kept/partition)",
                naive_syncs
            ),
            format!("naive ÷ store = {:.1}×", naive_bytes / store_bytes),
        ]);
        results.push(StoreResult {
            partitions: n,
            ingest,
            translate,
            bytes_per_partition: store_bytes,
        });
    }
    results
}

/// Ingest and translate rates of one warmed store over `runs` batches.
fn timed(
    stream: &mut SyncStream,
    runs: usize,
    store: &mut OffsetSyncStore,
) -> (Vec<f64>, Vec<f64>) {
    let mut batch = Vec::new();
    let mut ingest_rates = Vec::new();
    for _ in 0..runs {
        stream.fill(&mut batch);
        let began = Instant::now();
        for s in &batch {
            store.handle_sync(std::hint::black_box(s));
        }
        ingest_rates.push(batch.len() as f64 / began.elapsed().as_secs_f64());
    }
    let queries = stream.queries(QUERIES, 2);
    let partitions = stream.partitions().to_vec();
    let translate_rates = (0..runs)
        .map(|_| {
            let began = Instant::now();
            let mut acc = 0i64;
            for &(p, g) in &queries {
                acc = acc.wrapping_add(fold(store.translate(&partitions[p], g)));
            }
            std::hint::black_box(acc);
            QUERIES as f64 / began.elapsed().as_secs_f64()
        })
        .collect();
    (ingest_rates, translate_rates)
}

/// Live heap bytes per partition of a warmed store and of the naive index (and the syncs the
/// naive index holds per partition).
fn memory(n: usize) -> (f64, f64, f64) {
    let mut stream = SyncStream::new(n, 3);
    let before = live_bytes();
    let store: OffsetSyncStore = warmed_store(&mut stream, WARM_ROUNDS);
    let store_bytes = (live_bytes() - before) as f64 / n as f64;
    assert_eq!(store.partition_count(), n);
    drop(store);
    let mut stream = SyncStream::new(n, 3);
    let before = live_bytes();
    let naive = warmed_naive(&mut stream, WARM_ROUNDS);
    let naive_bytes = (live_bytes() - before) as f64 / n as f64;
    let syncs = naive.len() as f64 / n as f64;
    (store_bytes, naive_bytes, syncs)
}

/// What the types say: the boxed history, one map entry (key + box pointer) at the map's
/// current load, one control byte, and the topic name's heap bytes.
/// The store's fixed costs per partition: the boxed history, one pointer in its topic's
/// partition index, and its share of the topic's name and map entry (at most 96 B: the name's
/// box, the index `Vec`, the overflow map and a count). Leaves out the index's spare capacity
/// (under an eighth) and the topic map's empty buckets, so it is a lower bound.
fn analytic_bytes(n: usize) -> f64 {
    let topics = n.div_ceil(crate::workload::PARTITIONS_PER_TOPIC).max(1) as f64;
    let topic = "mirror-topic-0000".len() as f64 + 96.0;
    size_of::<PartitionSyncs>() as f64 + size_of::<usize>() as f64 + topic * topics / n as f64
}
