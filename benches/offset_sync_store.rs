//! Criterion benchmarks of the pure offset-sync store: ingest and translate
//! rates for 1, 1,000 and 100,000 upstream partitions with realistic sync streams, beside a
//! naive "every sync in a BTreeMap" index fed the same streams in the same run.
//!
//! Run with `cargo bench --bench offset_sync_store`; `-- --quick` style filters work as usual,
//! e.g. `cargo bench --bench offset_sync_store -- translate/store`.

use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mm2_checkpoint::OffsetSyncRef;

#[path = "support/workload.rs"]
mod workload;

use workload::{fold, warmed_naive, warmed_store, SyncStream};

/// Partition counts measured.
const SIZES: [usize; 3] = [1, 1_000, 100_000];

/// The partition counts of this run. `cargo bench` passes `--bench`; without it (the test-mode
/// run of `cargo test --benches`, unoptimised, as scripts/test.sh runs it) every benchmark still
/// runs once, but the 100,000-partition warm-up (6.4 million syncs per store) would take
/// minutes, so it is left out.
fn sizes() -> &'static [usize] {
    if std::env::args().any(|a| a == "--bench") {
        &SIZES
    } else {
        &SIZES[..2]
    }
}
/// Rounds of history fed before measuring, so every partition is in its steady state.
const WARM_ROUNDS: usize = 64;
/// Translation queries per measured batch.
const QUERIES: usize = 100_000;

fn ingest(c: &mut Criterion) {
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    for &n in sizes() {
        let mut stream = SyncStream::new(n, 1);
        let mut store = warmed_store(&mut stream, WARM_ROUNDS);
        let mut batch = Vec::new();
        stream.fill(&mut batch);
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_function(BenchmarkId::new("store", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    stream.fill(&mut batch);
                    let began = Instant::now();
                    for s in &batch {
                        store.handle_sync(black_box(s));
                    }
                    total += began.elapsed();
                }
                total
            })
        });
        drop(store);

        let mut stream = SyncStream::new(n, 1);
        let mut naive = warmed_naive(&mut stream, WARM_ROUNDS);
        group.bench_function(BenchmarkId::new("naive_btreemap", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    stream.fill(&mut batch);
                    let began = Instant::now();
                    for s in &batch {
                        naive.handle_sync(black_box(s));
                    }
                    total += began.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

/// Decoding from the record bytes plus ingest: what the initial load does per record.
fn decode_and_ingest(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode_and_ingest");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    for &n in sizes() {
        let mut stream = SyncStream::new(n, 1);
        let mut store = warmed_store(&mut stream, WARM_ROUNDS);
        let mut batch = Vec::new();
        stream.fill(&mut batch);
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_function(BenchmarkId::new("store", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    stream.fill(&mut batch);
                    let encoded: Vec<(Vec<u8>, Vec<u8>)> = batch
                        .iter()
                        .map(|s| (s.encode_key().expect("short topic"), s.encode_value()))
                        .collect();
                    let began = Instant::now();
                    for (k, v) in &encoded {
                        if let Ok(s) = OffsetSyncRef::decode(Some(k), Some(v)) {
                            store.handle_record(
                                &s.topic,
                                s.partition,
                                s.upstream_offset,
                                s.downstream_offset,
                            );
                        }
                    }
                    total += began.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

fn translate(c: &mut Criterion) {
    let mut group = c.benchmark_group("translate");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(QUERIES as u64));
    for &n in sizes() {
        let mut stream = SyncStream::new(n, 1);
        let store = warmed_store(&mut stream, WARM_ROUNDS);
        let queries = stream.queries(QUERIES, 2);
        let partitions = stream.partitions().to_vec();
        group.bench_function(BenchmarkId::new("store", n), |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for &(p, g) in &queries {
                    acc = acc.wrapping_add(fold(store.translate(&partitions[p], g)));
                }
                acc
            })
        });
        drop(store);

        let mut stream = SyncStream::new(n, 1);
        let naive = warmed_naive(&mut stream, WARM_ROUNDS);
        let queries = stream.queries(QUERIES, 2);
        group.bench_function(BenchmarkId::new("naive_btreemap", n), |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for &(p, g) in &queries {
                    acc = acc.wrapping_add(fold(naive.translate(&partitions[p], g)));
                }
                acc
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ingest, decode_and_ingest, translate);
criterion_main!(benches);
