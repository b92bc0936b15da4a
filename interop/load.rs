//! The Rust half of the start-up load comparison (interop/run.sh load; BENCHMARKS.md, "Against
//! Java MM2", "Start-up load"), driven by interop's `LoadStart.java`.
//!
//! ```text
//! interop_load seed BOOTSTRAP TOPIC RECORDS
//!     writes RECORDS offset syncs (benches/support/workload.rs, 1,000 upstream partitions) to
//!     partition 0 of TOPIC and waits for all of them; prints `RESULT records=N secs=S`.
//! interop_load ours BOOTSTRAP [key=value ...]
//!     one start-up load of the offset-syncs topic of a task configured as MM2's would be
//!     (source alias A, target alias B, both clusters at BOOTSTRAP, so the topic is
//!     `mm2-offset-syncs.B.internal`), through `CheckpointTask::bench_load_offset_syncs`:
//!     consumer creation, read to end, decoding, the store's lock per record. Extra key=value
//!     pairs are added to the task's properties (e.g. `source.consumer.fetch.max.bytes=...`).
//!     Prints `RESULT records=N secs=S`.
//! ```

#[path = "../benches/support/workload.rs"]
mod workload;

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::mirror_checkpoint_config::MirrorCheckpointConfig;
use mm2_checkpoint::OffsetSync;
use rdkafka::config::ClientConfig;
use rdkafka::error::KafkaError;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaErrorCode;

/// Upstream partitions the syncs are spread over (as examples/bench's load section).
const SYNC_PARTITIONS: usize = 1_000;
/// Seed of the sync stream.
const STREAM_SEED: u64 = 7;

fn usage() -> ! {
    eprintln!(
        "usage: interop_load seed BOOTSTRAP TOPIC RECORDS | interop_load ours BOOTSTRAP [key=value ...]"
    );
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("seed") if args.len() == 4 => {
            let records: usize = args[3].parse().unwrap_or_else(|_| usage());
            let began = Instant::now();
            seed(&args[1], &args[2], records);
            println!(
                "RESULT records={records} secs={:.6}",
                began.elapsed().as_secs_f64()
            );
        }
        Some("ours") if args.len() >= 2 => {
            let extra: Vec<(&str, &str)> = args[2..]
                .iter()
                .map(|kv| kv.split_once('=').unwrap_or_else(|| usage()))
                .collect();
            let (records, took) = ours(&args[1], &extra);
            println!("RESULT records={records} secs={:.6}", took.as_secs_f64());
        }
        _ => usage(),
    }
}

fn seed(bootstrap: &str, topic: &str, records: usize) {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("linger.ms", "20")
        .set("batch.num.messages", "10000")
        .set("batch.size", "1000000")
        .set("queue.buffering.max.messages", "1000000")
        .set("queue.buffering.max.kbytes", "1048576")
        .set("message.timeout.ms", "600000")
        .create()
        .expect("seeding producer");
    let mut stream = workload::SyncStream::new(SYNC_PARTITIONS, STREAM_SEED);
    let mut batch = Vec::new();
    let mut sent = 0usize;
    while sent < records {
        stream.fill(&mut batch);
        for sync in batch.iter().take(records - sent) {
            send(&producer, topic, sync);
            sent += 1;
        }
        producer.poll(Duration::ZERO);
    }
    producer
        .flush(Duration::from_secs(600))
        .unwrap_or_else(|e| panic!("flushing the offset syncs to {topic}: {e}"));
}

fn send(producer: &BaseProducer, topic: &str, sync: &OffsetSync) {
    let key = sync.encode_key().expect("workload topic names are short");
    let value = sync.encode_value();
    let mut record = BaseRecord::<[u8], [u8]>::to(topic)
        .partition(0)
        .key(key.as_slice())
        .payload(value.as_slice());
    loop {
        match producer.send(record) {
            Ok(()) => return,
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                producer.poll(Duration::from_millis(10));
                record = back;
            }
            Err((e, _)) => panic!("producing an offset sync to {topic}: {e}"),
        }
    }
}

fn ours(bootstrap: &str, extra: &[(&str, &str)]) -> (u64, Duration) {
    let mut props = vec![
        ("source.cluster.alias", "A"),
        ("target.cluster.alias", "B"),
        ("source.cluster.bootstrap.servers", bootstrap),
        ("target.cluster.bootstrap.servers", bootstrap),
        ("task.assigned.groups", "load-group"),
        ("checkpoints.topic.replication.factor", "1"),
    ];
    props.extend_from_slice(extra);
    let (config, _) = MirrorCheckpointConfig::from_properties(props).expect("task config");
    let task = CheckpointTask::new(config).expect("task");
    let loaded = task.bench_load_offset_syncs().expect("start-up load");
    drop(task);
    loaded
}
