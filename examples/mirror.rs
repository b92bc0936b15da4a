//! A minimal one-topic mirror that writes MM2 offset syncs, so that MM2's checkpointing (this
//! crate's `CheckpointTask`, or Java MM2's checkpoint connector) can translate consumer offsets
//! for it, exactly as for MirrorMaker's own mirroring.
//!
//! It consumes every partition of `topic` on the source from the beginning, produces each
//! record to the same partition of the replication policy's remote topic on the target
//! (`<source alias>.<topic>`), and, once the target confirms a record's offset, reports
//! `(upstream partition, upstream offset, downstream offset)` to an [`OffsetSyncWriter`].
//!
//! ```text
//! cargo run --example mirror                       # two embedded mock clusters, demo data
//! cargo run --example mirror -- SOURCE TARGET TOPIC [OFFSET_LAG_MAX]
//! ```
//!
//! With arguments it mirrors `TOPIC` from the `SOURCE` bootstrap servers to `TARGET` (alias
//! `source`, offset syncs on the source in `mm2-offset-syncs.target.internal`, which must exist)
//! until it has caught up, then exits.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{DeliveryResult, Message};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext};
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::offset_sync_writer::{
    OffsetSyncWriter, OffsetSyncWriterConfig, OffsetSyncWriterStats,
};
use mm2_checkpoint::{ReplicationPolicy, TopicPartition};

/// Errors of this example.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Where and what to mirror.
#[derive(Clone, Debug)]
pub struct MirrorSettings {
    /// `bootstrap.servers` of the source cluster.
    pub source_bootstrap: String,
    /// `bootstrap.servers` of the target cluster.
    pub target_bootstrap: String,
    /// The source cluster's alias (names the remote topic and the checkpoints topic).
    pub source_alias: String,
    /// The target cluster's alias (names the offset-syncs topic).
    pub target_alias: String,
    /// The topic to mirror.
    pub topic: String,
    /// `offset.lag.max` and `offset.flush.interval.ms` of the offset-sync writer.
    pub writer: OffsetSyncWriterConfig,
}

/// What a mirror run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorStats {
    /// Records copied and confirmed by the target.
    pub records_mirrored: u64,
    /// The offset-sync writer's counters.
    pub writer: OffsetSyncWriterStats,
}

type Delivered = Arc<Mutex<Vec<(i32, i64, Result<i64, String>)>>>;

/// Delivery reports of mirrored records: (partition, upstream offset, downstream offset).
#[derive(Default)]
struct Deliveries(Delivered);

impl ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = Box<(i32, i64)>;

    fn delivery(&self, result: &DeliveryResult<'_>, upstream: Self::DeliveryOpaque) {
        let (partition, offset) = *upstream;
        let downstream = match result {
            Ok(m) => Ok(m.offset()),
            Err((e, _)) => Err(e.to_string()),
        };
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((partition, offset, downstream));
    }
}

/// A running mirror of one topic.
pub struct Mirror {
    consumer: BaseConsumer,
    producer: BaseProducer<Deliveries>,
    delivered: Delivered,
    writer: OffsetSyncWriter,
    topic: String,
    remote_topic: String,
    partitions: Vec<i32>,
    in_flight: usize,
    records_mirrored: u64,
}

impl Mirror {
    /// Connects to both clusters and assigns every partition of the topic from the beginning.
    pub fn new(settings: &MirrorSettings) -> Result<Mirror, BoxError> {
        let policy = ReplicationPolicy::default();
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &settings.source_bootstrap)
            .set("group.id", "example-mirror")
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "true")
            .set("auto.offset.reset", "earliest")
            .create()?;
        let metadata = consumer.fetch_metadata(Some(&settings.topic), Duration::from_secs(10))?;
        let partitions: Vec<i32> = metadata
            .topics()
            .iter()
            .filter(|t| t.name() == settings.topic)
            .flat_map(|t| t.partitions().iter().map(|p| p.id()))
            .collect();
        if partitions.is_empty() {
            return Err(format!("topic `{}` not found on the source", settings.topic).into());
        }
        let mut assignment = TopicPartitionList::new();
        for p in &partitions {
            assignment.add_partition_offset(&settings.topic, *p, Offset::Beginning)?;
        }
        consumer.assign(&assignment)?;

        let deliveries = Deliveries::default();
        let delivered = Arc::clone(&deliveries.0);
        // One request in flight keeps each partition's records, and so their offsets, in order
        // even when a send is retried.
        let producer: BaseProducer<Deliveries> = ClientConfig::new()
            .set("bootstrap.servers", &settings.target_bootstrap)
            .set("max.in.flight.requests.per.connection", "1")
            .set("linger.ms", "5")
            .create_with_context(deliveries)?;

        let syncs_topic = policy.offset_syncs_topic(&settings.target_alias);
        let writer = OffsetSyncWriter::new(
            &BTreeMap::from([(
                "bootstrap.servers".to_string(),
                settings.source_bootstrap.clone(),
            )]),
            &syncs_topic,
            &settings.writer,
        )?;
        Ok(Mirror {
            consumer,
            producer,
            delivered,
            writer,
            topic: settings.topic.clone(),
            remote_topic: policy.format_remote_topic(&settings.source_alias, &settings.topic),
            partitions,
            in_flight: 0,
            records_mirrored: 0,
        })
    }

    /// Mirrors until every partition has reached its end and every copied record was confirmed
    /// and reported to the offset-sync writer.
    pub fn run_until_caught_up(&mut self, timeout: Duration) -> Result<MirrorStats, BoxError> {
        let deadline = Instant::now() + timeout;
        let mut at_end: BTreeSet<i32> = BTreeSet::new();
        while at_end.len() < self.partitions.len() || self.in_flight > 0 {
            if Instant::now() >= deadline {
                return Err(format!(
                    "not caught up within {timeout:?}: {} of {} partitions at their end, {} \
                     records unconfirmed",
                    at_end.len(),
                    self.partitions.len(),
                    self.in_flight
                )
                .into());
            }
            match self.consumer.poll(Duration::from_millis(20)) {
                Some(Ok(m)) => {
                    at_end.remove(&m.partition());
                    self.copy(m.partition(), m.offset(), m.key(), m.payload())?;
                    drop(m);
                    self.in_flight += 1;
                }
                Some(Err(KafkaError::PartitionEOF(p))) => {
                    at_end.insert(p);
                }
                Some(Err(e)) => return Err(e.into()),
                None => {}
            }
            self.producer.poll(Duration::ZERO);
            self.report_deliveries()?;
            self.writer.tick();
        }
        Ok(self.stats())
    }

    fn copy(
        &self,
        partition: i32,
        offset: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Result<(), BoxError> {
        let mut record =
            BaseRecord::with_opaque_to(&self.remote_topic, Box::new((partition, offset)))
                .partition(partition);
        if let Some(k) = key {
            record = record.key(k);
        }
        if let Some(v) = value {
            record = record.payload(v);
        }
        loop {
            match self.producer.send(record) {
                Ok(()) => return Ok(()),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    record = back;
                    // Serves delivery callbacks; their reports are handed on by the run loop.
                    self.producer.poll(Duration::from_millis(10));
                }
                Err((e, _)) => return Err(e.into()),
            }
        }
    }

    /// Hands confirmed records to the writer, in delivery order (which is offset order within a
    /// partition, as the writer needs).
    fn report_deliveries(&mut self) -> Result<(), BoxError> {
        let done = std::mem::take(&mut *self.delivered.lock().unwrap_or_else(|e| e.into_inner()));
        for (partition, upstream, downstream) in done {
            self.in_flight -= 1;
            let downstream = downstream.map_err(|e| {
                format!(
                    "mirroring {}-{partition} offset {upstream}: {e}",
                    self.topic
                )
            })?;
            let tp = TopicPartition::new(self.topic.clone(), partition);
            // Back-pressure instead of MM2's coalescing: a due sync never waits behind ten
            // outstanding ones (and gets replaced), so syncs stay at most offset.lag.max apart.
            if !self.writer.has_capacity() {
                self.writer.wait_for_capacity(Duration::from_secs(30))?;
            }
            self.writer.report(&tp, upstream, downstream);
            self.records_mirrored += 1;
        }
        Ok(())
    }

    /// Counters so far.
    pub fn stats(&self) -> MirrorStats {
        MirrorStats {
            records_mirrored: self.records_mirrored,
            writer: self.writer.stats(),
        }
    }

    /// Promotes and delivers every remaining offset sync (as MM2 does on its final offset
    /// commit), then closes the clients.
    pub fn close(mut self, timeout: Duration) -> Result<MirrorStats, BoxError> {
        self.producer.flush(timeout)?;
        self.report_deliveries()?;
        let records_mirrored = self.records_mirrored;
        let writer = self.writer.close(timeout)?;
        Ok(MirrorStats {
            records_mirrored,
            writer,
        })
    }
}

fn main() -> Result<(), BoxError> {
    use mm2_checkpoint::embedded::{EmbeddedClusters, Side};

    let args: Vec<String> = std::env::args().skip(1).collect();
    let lag = |i: usize| -> Result<i64, BoxError> {
        Ok(args.get(i).map(|s| s.parse()).transpose()?.unwrap_or(100))
    };
    let embedded;
    let settings = match args.as_slice() {
        [source, target, topic, ..] => MirrorSettings {
            source_bootstrap: source.clone(),
            target_bootstrap: target.clone(),
            source_alias: "source".into(),
            target_alias: "target".into(),
            topic: topic.clone(),
            writer: OffsetSyncWriterConfig {
                offset_lag_max: lag(3)?,
                ..OffsetSyncWriterConfig::default()
            },
        },
        [] => {
            embedded = EmbeddedClusters::new()?;
            embedded.create_topic(Side::Source, "orders", 2)?;
            embedded.create_topic(Side::Source, "mm2-offset-syncs.target.internal", 1)?;
            embedded.create_topic(Side::Target, "source.orders", 2)?;
            for p in 0..2 {
                embedded.produce_data(Side::Source, "orders", p, 1000)?;
            }
            println!("embedded clusters: 2000 records in `orders` (2 partitions) on the source");
            MirrorSettings {
                source_bootstrap: embedded.bootstrap(Side::Source),
                target_bootstrap: embedded.bootstrap(Side::Target),
                source_alias: "source".into(),
                target_alias: "target".into(),
                topic: "orders".into(),
                writer: OffsetSyncWriterConfig::default(),
            }
        }
        _ => return Err("usage: mirror [SOURCE TARGET TOPIC [OFFSET_LAG_MAX]]".into()),
    };
    let began = Instant::now();
    let mut mirror = Mirror::new(&settings)?;
    mirror.run_until_caught_up(Duration::from_secs(120))?;
    let stats = mirror.close(Duration::from_secs(30))?;
    println!(
        "mirrored {} records to `{}.{}` in {:?}; offset syncs: {} sent, {} delivered, {} failed \
         (offset.lag.max {})",
        stats.records_mirrored,
        settings.source_alias,
        settings.topic,
        began.elapsed(),
        stats.writer.syncs_sent,
        stats.writer.syncs_delivered,
        stats.writer.syncs_failed,
        settings.writer.offset_lag_max
    );
    Ok(())
}
