//! Our `OffsetSyncStore` on the workload that `interop/jmh` feeds Java MM2's store, for
//! BENCHMARKS.md "Against Java MM2": decode + ingest and translate at 1, 1,000 and 100,000
//! partitions, memory per tracked partition at 100,000, and a pointer-chasing calibration (one
//! dependent DRAM miss per step over a working set as large as the 100,000-partition store).
//!
//! ```sh
//! cargo run --release --features internals --example vs_java [-- ROUNDS]
//! ```
//!
//! Prints one markdown row per measurement: median over ROUNDS (default 15) batches of
//! 100,000 operations, with min and max.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use mm2_checkpoint::OffsetSyncRef;

#[path = "../../benches/support/workload.rs"]
mod workload;

use workload::{fold, warmed_store, SplitMix, SyncStream};

/// Counts live heap bytes, for the memory row.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const SIZES: [usize; 3] = [1, 1_000, 100_000];
const WARM_ROUNDS: usize = 64;
const QUERIES: usize = 100_000;

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

fn row(what: &str, n: usize, ns: Vec<f64>) {
    let (lo, mid, hi) = stats(ns);
    println!("| {what} | {n} | {mid:.1} ns/op | {lo:.1} | {hi:.1} |");
}

/// Nanoseconds per step of a dependent walk over a single random cycle of `bytes` of `usize`
/// slots (Sattolo's shuffle): every step is a cache miss and, beyond the TLB's reach, a TLB miss.
fn pointer_chase(bytes: usize, steps: usize, rounds: usize) -> Vec<f64> {
    let n = bytes / std::mem::size_of::<usize>();
    let mut next: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix(7);
    for i in (1..n).rev() {
        let j = rng.range(0, i as u64) as usize;
        next.swap(i, j);
    }
    (0..rounds)
        .map(|_| {
            let mut at = 0usize;
            let began = Instant::now();
            for _ in 0..steps {
                at = next[at];
            }
            black_box(at);
            began.elapsed().as_nanos() as f64 / steps as f64
        })
        .collect()
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROUNDS is a number"))
        .unwrap_or(15);
    println!("| measurement | partitions | median | min | max |");
    println!("|---|---|---|---|---|");
    for n in SIZES {
        let mut stream = SyncStream::new(n, 1);
        let before = LIVE.load(Ordering::Relaxed);
        let mut store = warmed_store(&mut stream, WARM_ROUNDS);
        let bytes = LIVE.load(Ordering::Relaxed) - before;
        if n == 100_000 {
            println!(
                "| memory (counting allocator) | {n} | {:.1} B/partition | | |",
                bytes as f64 / n as f64
            );
        }

        // Decode + ingest: the encoded records of the next batch, prepared outside the timing.
        let mut batch = Vec::new();
        let mut ingest = Vec::new();
        for _ in 0..rounds {
            stream.fill(&mut batch);
            let encoded: Vec<(Vec<u8>, Vec<u8>)> = batch
                .iter()
                .map(|s| (s.encode_key().expect("short topic"), s.encode_value()))
                .collect();
            let began = Instant::now();
            for (k, v) in &encoded {
                if let Ok(s) = OffsetSyncRef::decode(Some(black_box(k)), Some(black_box(v))) {
                    store.handle_record(
                        &s.topic,
                        s.partition,
                        s.upstream_offset,
                        s.downstream_offset,
                    );
                }
            }
            ingest.push(began.elapsed().as_nanos() as f64 / encoded.len() as f64);
        }
        row("decode + ingest", n, ingest);

        let queries = stream.queries(QUERIES, 2);
        let partitions = stream.partitions().to_vec();
        let mut translate = Vec::new();
        for _ in 0..rounds {
            let began = Instant::now();
            let mut acc = 0i64;
            for &(p, g) in &queries {
                acc = acc.wrapping_add(fold(store.translate(black_box(&partitions[p]), g)));
            }
            black_box(acc);
            translate.push(began.elapsed().as_nanos() as f64 / QUERIES as f64);
        }
        row("translate", n, translate);
    }
    // The floor at 100,000 partitions: one dependent miss over a 128 MiB working set (the
    // store's ≈ 110 MiB plus the query's key).
    row(
        "pointer chase, 128 MiB (1 dependent miss)",
        100_000,
        pointer_chase(128 << 20, 2_000_000, rounds),
    );
}
