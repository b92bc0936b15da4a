//! Embedded clusters for examples, demos and tests: a pair of librdkafka mock clusters
//! (in-process brokers on real 127.0.0.1 ports), and the few client operations a demo needs on
//! them — create a topic, write offset syncs as a mirror would, commit a group's offsets, read
//! the checkpoints back. Nothing here is used by the checkpoint task itself.
//!
//! The mock broker has no CreateTopics, DescribeConfigs, ListGroups or DescribeGroups, so topics
//! are created through the mock API and group discovery needs `task.assigned.groups`.

use super::kafka_error;
use std::time::{Duration, Instant};

use rdkafka::client::{Client, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::mocking::MockCluster;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaType;
use rdkafka::{Offset, TopicPartitionList};

use crate::librdkafka::{self, Polled};
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::offset_sync::OffsetSync;

/// A record as `(partition, key, value)`; `None` is a null key or value.
pub type RawRecord = (i32, Option<Vec<u8>>, Option<Vec<u8>>);

/// A read record's key and value.
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Which of the two embedded clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The source (upstream) cluster.
    Source,
    /// The target (downstream) cluster.
    Target,
}

/// Two in-process mock clusters, one per side. Dropping it shuts both down.
pub struct EmbeddedClusters {
    source: MockCluster<'static, rdkafka::producer::DefaultProducerContext>,
    target: MockCluster<'static, rdkafka::producer::DefaultProducerContext>,
}

const IO_TIMEOUT: Duration = Duration::from_secs(30);

impl EmbeddedClusters {
    /// Starts two one-broker mock clusters.
    pub fn new() -> Result<Self, Error> {
        let make = |side: &str| {
            MockCluster::new(1)
                .map_err(|e| kafka_error(format!("starting the embedded {side} cluster"), e))
        };
        Ok(EmbeddedClusters {
            source: make("source")?,
            target: make("target")?,
        })
    }

    /// One side's mock cluster, for the library's own tests of what the embedded API does not
    /// offer (e.g. a slow broker).
    pub fn cluster(
        &self,
        side: Side,
    ) -> &MockCluster<'static, rdkafka::producer::DefaultProducerContext> {
        match side {
            Side::Source => &self.source,
            Side::Target => &self.target,
        }
    }

    /// The `bootstrap.servers` of one side.
    pub fn bootstrap(&self, side: Side) -> String {
        self.cluster(side).bootstrap_servers()
    }

    /// Makes one side's broker answer its next requests of kind `api` with `errors`, one error
    /// per request in order (then normally again): a failover drill's coordinator move, leader
    /// change or outage, on demand.
    pub fn inject_request_errors(
        &self,
        side: Side,
        api: rdkafka_sys::types::RDKafkaApiKey,
        errors: &[rdkafka_sys::types::RDKafkaRespErr],
    ) {
        self.cluster(side).request_errors(api, errors);
    }

    /// Creates a topic through the mock API (the mock broker has no CreateTopics).
    pub fn create_topic(&self, side: Side, topic: &str, partitions: i32) -> Result<(), Error> {
        self.cluster(side)
            .create_topic(topic, partitions, 1)
            .map_err(|e| kafka_error(format!("creating embedded topic `{topic}`"), e))
    }

    /// Produces records `(partition, key, value)` to `topic` and waits for their delivery.
    pub fn produce(&self, side: Side, topic: &str, records: &[RawRecord]) -> Result<(), Error> {
        // lz4: the mock broker keeps at most 5 MiB (and 100,000 batches) per partition and
        // silently drops the oldest beyond that; compressed batches of offset syncs fit ~10x more.
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap(side))
            .set("batch.num.messages", "10000")
            .set("compression.type", "lz4")
            .create()
            .map_err(|e| kafka_error("creating an embedded producer", e))?;
        for (partition, key, value) in records {
            let mut r: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(topic).partition(*partition);
            if let Some(k) = key {
                r = r.key(k.as_slice());
            }
            if let Some(v) = value {
                r = r.payload(v.as_slice());
            }
            let mut r = Some(r);
            while let Some(rec) = r.take() {
                if let Err((e, rec)) = producer.send(rec) {
                    if !matches!(
                        e,
                        rdkafka::error::KafkaError::MessageProduction(
                            rdkafka::types::RDKafkaErrorCode::QueueFull
                        )
                    ) {
                        return Err(kafka_error(format!("producing to `{topic}`"), e));
                    }
                    producer.poll(Duration::from_millis(10));
                    r = Some(rec);
                }
            }
        }
        producer
            .flush(IO_TIMEOUT)
            .map_err(|e| kafka_error(format!("flushing records to `{topic}`"), e))?;
        let mut partitions: Vec<i32> = records.iter().map(|r| r.0).collect();
        partitions.sort_unstable();
        partitions.dedup();
        for p in partitions {
            let (low, high) = producer
                .client()
                .fetch_watermarks(topic, p, IO_TIMEOUT)
                .map_err(|e| kafka_error(format!("reading the offsets of `{topic}`-{p}"), e))?;
            if low > 0 {
                return Err(Error::InvalidState(format!(
                    "the embedded cluster dropped records: librdkafka's mock broker keeps at most \
                     5 MiB or 100000 batches per partition, and `{topic}`-{p} now holds only \
                     offsets {low}..{high} (the {low} oldest records are gone)"
                )));
            }
        }
        Ok(())
    }

    /// Produces `count` small data records to one partition.
    pub fn produce_data(
        &self,
        side: Side,
        topic: &str,
        partition: i32,
        count: usize,
    ) -> Result<(), Error> {
        let records: Vec<_> = (0..count)
            .map(|i| (partition, None, Some(format!("record-{i}").into_bytes())))
            .collect();
        self.produce(side, topic, &records)
    }

    /// Writes offset syncs to `syncs_topic` (partition 0) exactly as MirrorSourceTask encodes them.
    pub fn produce_offset_syncs(
        &self,
        side: Side,
        syncs_topic: &str,
        syncs: &[OffsetSync],
    ) -> Result<(), Error> {
        let mut records = Vec::with_capacity(syncs.len());
        for s in syncs {
            let key = s
                .encode_key()
                .map_err(|e| Error::kafka("encoding an offset sync", e))?;
            records.push((0, Some(key), Some(s.encode_value())));
        }
        self.produce(side, syncs_topic, &records)
    }

    /// Commits `(topic, partition, offset, metadata)` for `group`, without joining it.
    pub fn commit_offsets(
        &self,
        side: Side,
        group: &str,
        offsets: &[(&str, i32, i64, &str)],
    ) -> Result<(), Error> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap(side))
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .map_err(|e| kafka_error("creating an embedded committer", e))?;
        let mut tpl = TopicPartitionList::new();
        for (topic, partition, offset, metadata) in offsets {
            let mut elem = tpl
                .add_partition_offset(topic, *partition, Offset::Offset(*offset))
                .map(|_| tpl.find_partition(topic, *partition));
            if let Ok(Some(e)) = elem.as_mut() {
                e.set_metadata(*metadata);
            }
            drop(elem);
        }
        consumer
            .commit(&tpl, CommitMode::Sync)
            .map_err(|e| kafka_error(format!("committing offsets of group `{group}`"), e))
    }

    /// Reads every record of partition 0 of `topic` (up to the end at the time of reading).
    pub fn read_partition0(&self, side: Side, topic: &str) -> Result<Vec<KeyValue>, Error> {
        let mut config = ClientConfig::new();
        config
            .set("bootstrap.servers", self.bootstrap(side))
            .set("group.id", "mm2-checkpoint-embedded-reader")
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "true")
            .set("fetch.wait.max.ms", "100");
        let native = config
            .create_native_config()
            .map_err(|e| kafka_error("creating an embedded reader", e))?;
        librdkafka::route_served_logs::<DefaultClientContext>(&native);
        let consumer = Client::new(
            &config,
            native,
            RDKafkaType::RD_KAFKA_CONSUMER,
            DefaultClientContext,
        )
        .map_err(|e| kafka_error("creating an embedded reader", e))?;
        librdkafka::consumer_assign_from_start(&consumer, topic, 0)
            .map_err(|e| kafka_error(format!("reading `{topic}`"), e))?;
        let deadline = Instant::now() + IO_TIMEOUT;
        let mut out = Vec::new();
        while Instant::now() < deadline {
            match librdkafka::consumer_poll(&consumer, Duration::from_millis(200)) {
                Polled::Record { key, value, .. } => out.push((key, value)),
                Polled::PartitionEof { .. } => return Ok(out),
                Polled::Error(e) => log::debug!("reading `{topic}`: {e}"),
                Polled::Nothing => {}
            }
        }
        Err(Error::TimedOut(format!("reading `{topic}` to its end")))
    }

    /// Reads and decodes the checkpoints in `topic` on the target (malformed records skipped).
    pub fn read_checkpoints(&self, topic: &str) -> Result<Vec<Checkpoint>, Error> {
        Ok(self
            .read_partition0(Side::Target, topic)?
            .into_iter()
            .filter_map(|(k, v)| Checkpoint::decode(k.as_deref(), v.as_deref()).ok())
            .collect())
    }
}
