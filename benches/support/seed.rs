//! Seeding an offset-syncs topic for the start-up load benchmarks, shared by the bench example
//! (`examples/bench`, section "load") and `interop/load.rs` (`interop/run.sh load`), so both read
//! the same stream written the same way. Include it as a module next to `workload`:
//!
//! ```ignore
//! #[path = "../benches/support/workload.rs"]
//! mod workload;
//! #[path = "../benches/support/seed.rs"]
//! mod seed;
//! ```

// Each includer uses a different part.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use mm2_checkpoint::OffsetSync;
use rdkafka::config::ClientConfig;
use rdkafka::error::KafkaError;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaErrorCode;

use crate::workload::SyncStream;

/// Upstream partitions the generated syncs are spread over.
pub const SYNC_PARTITIONS: usize = 1_000;
/// Seed of the generated sync stream.
pub const STREAM_SEED: u64 = 7;
/// Longest the producer may take to deliver everything it was given.
const FLUSH_LIMIT: Duration = Duration::from_secs(600);

/// A producer for bulk writes: big batches, a deep queue, long delivery timeout.
pub fn bulk_producer(bootstrap: &str) -> BaseProducer {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("linger.ms", "20")
        .set("batch.num.messages", "10000")
        .set("batch.size", "1000000")
        .set("queue.buffering.max.messages", "1000000")
        .set("queue.buffering.max.kbytes", "1048576")
        .set("message.timeout.ms", "600000")
        .create()
        .expect("bulk producer")
}

/// Queues `sync`, in MM2's wire format, for partition 0 of `topic`; waits while the producer
/// queue is full.
pub fn send(producer: &BaseProducer, topic: &str, sync: &OffsetSync) {
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

/// Waits until everything queued on `producer` is delivered.
pub fn flush(producer: &BaseProducer, topic: &str) {
    producer
        .flush(FLUSH_LIMIT)
        .unwrap_or_else(|e| panic!("flushing the offset syncs to {topic}: {e}"));
}

/// Writes `syncs` to partition 0 of `topic` and waits for them.
pub fn produce_records(bootstrap: &str, topic: &str, syncs: &[OffsetSync]) {
    let producer = bulk_producer(bootstrap);
    for s in syncs {
        send(&producer, topic, s);
    }
    flush(&producer, topic);
}

/// Writes the first `total` syncs of the benchmark stream ([`SYNC_PARTITIONS`] partitions,
/// [`STREAM_SEED`]) to partition 0 of `topic` and waits for all of them; returns the time from
/// producer creation to the end of the flush.
pub fn seed_syncs(bootstrap: &str, topic: &str, total: usize) -> Duration {
    let began = Instant::now();
    let producer = bulk_producer(bootstrap);
    let mut stream = SyncStream::new(SYNC_PARTITIONS, STREAM_SEED);
    let mut batch = Vec::new();
    let mut sent = 0usize;
    while sent < total {
        stream.fill(&mut batch);
        for s in batch.iter().take(total - sent) {
            send(&producer, topic, s);
            sent += 1;
        }
        producer.poll(Duration::ZERO);
    }
    flush(&producer, topic);
    began.elapsed()
}
