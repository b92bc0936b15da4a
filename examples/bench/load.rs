//! Item 2 (and part of 5): loading the offset-sync store from a 1-partition offset-syncs topic,
//! read to its end by the library's real path, beside a raw librdkafka `BaseConsumer` reading
//! the same topic in the same run (runs alternate, so both see the same machine noise).

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::librdkafka;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

pub use crate::seed::{produce_records, seed_syncs as produce_syncs};
use crate::stats::{millis, mmm, ms, rate, Dist, Table};
use crate::{task_config, Cluster, Opts};

/// Most records librdkafka's mock cluster keeps in one partition (`max_cnt` in rdkafka_mock.c).
const MOCK_MAX_RECORDS: usize = 100_000;
/// Longest any single read may take before the benchmark gives up.
const READ_LIMIT: Duration = Duration::from_secs(600);

/// The alias pair whose offset-syncs topic holds `records` records.
pub fn target_alias(records: usize) -> String {
    format!("t{records}")
}

/// Results kept for the growth table and the stop benchmark.
pub struct LoadResult {
    pub cluster: &'static str,
    pub records: usize,
    pub ours: Dist,
    pub raw: Dist,
    pub task_ms: Dist,
    pub produce: Duration,
}

/// A plain consumer on partition 0 of `topic`, from the beginning, with EOF events on.
pub fn raw_consumer(bootstrap: &str, topic: &str) -> BaseConsumer {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", "bench-raw-reader")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .set("auto.offset.reset", "earliest")
        .create()
        .expect("raw consumer");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, Offset::Beginning)
        .expect("assignment");
    consumer.assign(&tpl).expect("assign");
    consumer
}

/// The baseline: reads `topic` to its end touching each key and value; returns the records
/// read and the time from consumer creation to the end (closing not timed). The end is the
/// partition EOF or, whichever comes first, the high watermark librdkafka cached from the
/// first Fetch: the library's own end rule. Waiting for the EOF alone would charge the
/// baseline one extra empty fetch (`fetch.wait.max.ms`, 500 ms) that the library does not pay.
pub fn raw_read(bootstrap: &str, topic: &str) -> (u64, Duration) {
    let began = Instant::now();
    let consumer = raw_consumer(bootstrap, topic);
    let (mut n, mut bytes) = (0u64, 0usize);
    let mut end: Option<i64> = None;
    loop {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => {
                n += 1;
                bytes += m.key().map_or(0, <[u8]>::len) + m.payload().map_or(0, <[u8]>::len);
                if end.is_none() {
                    // A thin wrapper of rd_kafka_get_watermark_offsets (rust-rdkafka has none).
                    end = librdkafka::cached_high_watermark(consumer.client(), topic, 0);
                }
                if end.is_some_and(|e| m.offset() + 1 >= e) {
                    break;
                }
            }
            Some(Err(KafkaError::PartitionEOF(0))) => break,
            Some(Err(e)) => eprintln!("[load] raw reader: {e}"),
            None => {}
        }
        assert!(began.elapsed() < READ_LIMIT, "raw read of {topic} too slow");
    }
    let elapsed = began.elapsed();
    std::hint::black_box(bytes);
    drop(consumer);
    (n, elapsed)
}

pub fn run(
    opts: &Opts,
    clusters: &[(&'static str, &dyn Cluster)],
    table: &mut Table,
) -> Vec<LoadResult> {
    let sizes: &[usize] = if opts.quick {
        &[100_000]
    } else {
        &[100_000, 1_000_000]
    };
    let runs = if opts.quick { 3 } else { 5 };
    let mut results = Vec::new();
    for &(name, cluster) in clusters {
        let bootstrap = cluster.bootstrap();
        cluster.create_topic("bench.checkpoints.internal", 1);
        for &records in sizes {
            if name == "mock" && records > MOCK_MAX_RECORDS {
                // librdkafka's mock broker keeps only the newest 100,000 messages (or 5 MiB) of a
                // partition and deletes older segments, so a 1M-record topic cannot exist there.
                continue;
            }
            let alias = target_alias(records);
            let topic = format!("mm2-offset-syncs.{alias}.internal");
            cluster.create_topic(&topic, 1);
            eprintln!("[load] {name}: producing {records} offset syncs");
            let produce = produce_syncs(&bootstrap, &topic, records);
            eprintln!("[load] {name}: produced in {produce:?}");
            let config = || task_config("bench", &alias, &bootstrap, &[]);
            let (mut ours, mut raw, mut task_ms, mut paired) = (vec![], vec![], vec![], vec![]);
            for run in 0..runs {
                let (n_raw, t_raw) = raw_read(&bootstrap, &topic);
                assert_eq!(n_raw as usize, records, "raw reader count on {name}");
                let task = CheckpointTask::new(config()).expect("task");
                let (n_ours, t_ours) = task.bench_load_offset_syncs().expect("bench load");
                drop(task);
                assert_eq!(n_ours as usize, records, "library reader count on {name}");
                let task = CheckpointTask::new(config()).expect("task");
                task.start().expect("start");
                let deadline = Instant::now() + READ_LIMIT;
                while !task.stats().initialized {
                    assert!(Instant::now() < deadline, "task load on {name} too slow");
                    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
                    std::thread::sleep(Duration::from_millis(2));
                }
                let stats = task.stats();
                drop(task);
                assert_eq!(stats.syncs_loaded as usize, records);
                let load = stats.load_time.expect("load time");
                eprintln!(
                    "[load] {name} {records} run {run}: raw {t_raw:?}, ours {t_ours:?}, task {load:?}"
                );
                raw.push(records as f64 / t_raw.as_secs_f64());
                ours.push(records as f64 / t_ours.as_secs_f64());
                task_ms.push(ms(load));
                paired.push(t_raw.as_secs_f64() / t_ours.as_secs_f64());
            }
            let (ours, raw, task_ms, paired) = (
                Dist::new(ours),
                Dist::new(raw),
                Dist::new(task_ms),
                Dist::new(paired),
            );
            table.row(vec![
                "store load (records/s)".into(),
                format!("{records} records, {name}"),
                mmm(&ours, rate),
                format!("raw BaseConsumer: {}", mmm(&raw, rate)),
                format!(
                    "{:.2} (paired runs {:.2}–{:.2})",
                    ours.median() / raw.median(),
                    paired.min(),
                    paired.max()
                ),
            ]);
            table.row(vec![
                "task start → initialized".into(),
                format!("{records} records, {name}"),
                mmm(&task_ms, millis),
                format!(
                    "raw read time: {}",
                    millis(records as f64 / raw.median() * 1e3)
                ),
                format!(
                    "{:.2}",
                    (records as f64 / raw.median() * 1e3) / task_ms.median()
                ),
            ]);
            results.push(LoadResult {
                cluster: name,
                records,
                ours,
                raw,
                task_ms,
                produce,
            });
        }
    }
    results
}
