//! A minimal one-topic mirror that writes MM2 offset syncs, so that MM2's checkpointing (this
//! crate's `CheckpointTask`, or Java MM2's checkpoint connector) can translate consumer offsets
//! for it, exactly as for MirrorMaker's own mirroring.
//!
//! It creates the replication policy's remote topic on the target (`<source alias>.<topic>`)
//! with the source topic's partition count when it is missing, consumes every partition of
//! `topic` on the source, produces each record to the same partition of the remote topic, and,
//! once the target confirms a record's offset, reports `(upstream partition, upstream offset,
//! downstream offset)` to an [`OffsetSyncWriter`] and commits the upstream position in a
//! consumer group on the source. A rerun resumes from those commits instead of copying the
//! topic again from offset 0.
//!
//! ```text
//! cargo run --example mirror                       # two embedded mock clusters, demo data
//! cargo run --example mirror -- --source A:9092 --target B:9092 --topic orders
//! cargo run --example mirror -- --help             # every option
//! ```
//!
//! With options it mirrors the topic until it has caught up, then exits. The offset syncs go to
//! `mm2-offset-syncs.<target alias>.internal` on the source cluster (MM2's default
//! `offset-syncs.topic.location`), which must exist or be auto-created by the broker.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
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

impl MirrorSettings {
    /// The consumer group on the source in which a mirror of these settings commits how far it
    /// got. `connect-` because MM2's default `groups.exclude` (`connect-.*`) leaves such groups
    /// out, so the checkpoint job does not checkpoint the mirror's own position.
    pub fn resume_group(&self) -> String {
        format!(
            "connect-mm2-example-mirror-{}-{}",
            self.source_alias, self.topic
        )
    }
}

/// How often confirmed positions are committed while mirroring (and once more at the end).
const COMMIT_EVERY: Duration = Duration::from_secs(1);

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
    /// Per source partition, the next offset to mirror once everything before it is confirmed.
    confirmed: BTreeMap<i32, i64>,
    committed: BTreeMap<i32, i64>,
    last_commit: Instant,
    /// Where each partition started (the committed position of an earlier run, or 0).
    pub resumed_from: BTreeMap<i32, i64>,
}

impl Mirror {
    /// Connects to both clusters, creates the remote topic on the target when it is missing,
    /// and assigns every partition of the topic from where an earlier run got to (its commits in
    /// [`MirrorSettings::resume_group`]), or from the beginning.
    pub fn new(settings: &MirrorSettings) -> Result<Mirror, BoxError> {
        Mirror::with_group(settings, &settings.resume_group())
    }

    /// Like [`new`](Self::new), recording the position in consumer group `group`.
    pub fn with_group(settings: &MirrorSettings, group: &str) -> Result<Mirror, BoxError> {
        let policy = ReplicationPolicy::default();
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &settings.source_bootstrap)
            .set("group.id", group)
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
        let remote_topic = policy.format_remote_topic(&settings.source_alias, &settings.topic);
        ensure_remote_topic(&settings.target_bootstrap, &remote_topic, partitions.len())?;

        let mut wanted = TopicPartitionList::new();
        for p in &partitions {
            wanted.add_partition(&settings.topic, *p);
        }
        let stored = consumer.committed_offsets(wanted, Duration::from_secs(10))?;
        let mut assignment = TopicPartitionList::new();
        let mut resumed_from = BTreeMap::new();
        for p in &partitions {
            let from = match stored
                .find_partition(&settings.topic, *p)
                .map(|e| e.offset())
            {
                Some(Offset::Offset(o)) if o >= 0 => o,
                _ => 0,
            };
            resumed_from.insert(*p, from);
            // An explicit offset, not Offset::Stored: a commit past a truncated log start would
            // otherwise be reset by auto.offset.reset, and this way the start is printed as used.
            assignment.add_partition_offset(
                &settings.topic,
                *p,
                if from == 0 {
                    Offset::Beginning
                } else {
                    Offset::Offset(from)
                },
            )?;
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
            remote_topic,
            partitions,
            in_flight: 0,
            records_mirrored: 0,
            confirmed: BTreeMap::new(),
            committed: resumed_from.clone(),
            last_commit: Instant::now(),
            resumed_from,
        })
    }

    /// Commits the confirmed positions that moved since the last commit. `sync` waits for the
    /// broker's answer (at the end of a run); otherwise the commit is sent in the background.
    fn commit_confirmed(&mut self, mode: CommitMode) -> Result<(), BoxError> {
        self.last_commit = Instant::now();
        let mut list = TopicPartitionList::new();
        for (p, next) in &self.confirmed {
            if self.committed.get(p) != Some(next) {
                list.add_partition_offset(&self.topic, *p, Offset::Offset(*next))?;
            }
        }
        if list.count() == 0 {
            return Ok(());
        }
        self.consumer.commit(&list, mode)?;
        self.committed
            .extend(self.confirmed.iter().map(|(p, o)| (*p, *o)));
        Ok(())
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
            if self.last_commit.elapsed() >= COMMIT_EVERY {
                self.commit_confirmed(CommitMode::Async)?;
            }
        }
        self.commit_confirmed(CommitMode::Sync)?;
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
            // Deliveries of a partition arrive in offset order (one request in flight), so
            // everything before this offset is on the target too.
            self.confirmed.insert(partition, upstream + 1);
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
        self.commit_confirmed(CommitMode::Sync)?;
        let records_mirrored = self.records_mirrored;
        let writer = self.writer.close(timeout)?;
        Ok(MirrorStats {
            records_mirrored,
            writer,
        })
    }
}

/// Creates `topic` on the target with `partitions` partitions (replication factor: the broker's
/// default) unless it exists; an existing topic must have at least that many, since each record
/// goes to the partition it came from.
fn ensure_remote_topic(bootstrap: &str, topic: &str, partitions: usize) -> Result<(), BoxError> {
    // A consumer's metadata request never auto-creates the topic it asks about.
    let probe: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()?;
    let metadata = probe.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let existing = metadata
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())
        .map(|t| t.partitions().len())
        .filter(|n| *n > 0);
    match existing {
        Some(n) if n >= partitions => return Ok(()),
        Some(n) => {
            return Err(format!(
                "target topic `{topic}` has {n} partitions, the source topic {partitions}: \
                 records of the higher partitions have nowhere to go"
            )
            .into())
        }
        None => {}
    }
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()?;
    let count = i32::try_from(partitions)?;
    let new_topic = NewTopic::new(topic, count, TopicReplication::Fixed(-1));
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results = block_on(
        admin.create_topics([&new_topic], &options),
        Duration::from_secs(60),
    )??;
    for result in results {
        match result {
            Ok(_) => println!("created `{topic}` on the target with {partitions} partitions"),
            Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((name, code)) => {
                return Err(format!("creating `{name}` on the target: {code}").into())
            }
        }
    }
    Ok(())
}

/// Waits for one of rdkafka's admin futures (they are completed by rdkafka's own thread, so
/// parking until woken is all the executor they need).
fn block_on<F: Future>(future: F, timeout: Duration) -> Result<F::Output, BoxError> {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let deadline = Instant::now() + timeout;
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Ok(out);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(format!("no answer within {timeout:?}").into());
        }
        std::thread::park_timeout(deadline - now);
    }
}

const USAGE: &str = "\
usage: mirror [--source BOOTSTRAP --target BOOTSTRAP --topic TOPIC] [options]
       mirror SOURCE TARGET TOPIC [OFFSET_LAG_MAX] [options]     (the same, positionally)

Mirrors one topic from the source cluster to `<source alias>.<topic>` on the target, writing
MM2 offset syncs, until it has caught up; then exits. A rerun resumes where the last one
stopped. Without --source/--target/--topic it runs a demo on two embedded mock clusters.

options:
  --source BOOTSTRAP       bootstrap.servers of the source cluster
  --target BOOTSTRAP       bootstrap.servers of the target cluster
  --topic TOPIC            the source topic to mirror
  --source-alias ALIAS     the source cluster's alias (default `source`): names the remote
                           topic `<ALIAS>.<topic>` and, for the checkpoint job, the
                           checkpoints topic `<ALIAS>.checkpoints.internal`
  --target-alias ALIAS     the target cluster's alias (default `target`): names the
                           offset-syncs topic
  --offset-lag-max N       write an offset sync at least every N records (default 100)
  --group GROUP            the consumer group on the source that records how far the mirror
                           got (default `connect-mm2-example-mirror-<source alias>-<topic>`)
  -h, --help               prints this help and exits

Offset syncs go to `mm2-offset-syncs.<target alias>.internal` on the source cluster, where the
checkpoint job reads them by default; that topic must exist or be auto-created by the broker.
The remote topic is created with the source topic's partition count when it is missing.";

/// The command line: `None` fields take their defaults.
#[derive(Debug, Default)]
struct Args {
    source: Option<String>,
    target: Option<String>,
    topic: Option<String>,
    source_alias: Option<String>,
    target_alias: Option<String>,
    offset_lag_max: Option<i64>,
    group: Option<String>,
    help: bool,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut positional = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if !arg.starts_with('-') {
            positional.push(arg);
            continue;
        }
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => parsed.help = true,
            "--source" => parsed.source = Some(value("--source")?),
            "--target" => parsed.target = Some(value("--target")?),
            "--topic" => parsed.topic = Some(value("--topic")?),
            "--source-alias" => parsed.source_alias = Some(value("--source-alias")?),
            "--target-alias" => parsed.target_alias = Some(value("--target-alias")?),
            "--group" => parsed.group = Some(value("--group")?),
            "--offset-lag-max" => {
                let v = value("--offset-lag-max")?;
                parsed.offset_lag_max = Some(
                    v.parse()
                        .map_err(|e| format!("--offset-lag-max `{v}`: {e}"))?,
                );
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let mut positional = positional.into_iter();
    for slot in [&mut parsed.source, &mut parsed.target, &mut parsed.topic] {
        if let Some(value) = positional.next() {
            slot.get_or_insert(value);
        }
    }
    if let Some(lag) = positional.next() {
        let lag = lag
            .parse()
            .map_err(|e| format!("OFFSET_LAG_MAX `{lag}`: {e}"))?;
        parsed.offset_lag_max.get_or_insert(lag);
    }
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument `{extra}`"));
    }
    Ok(parsed)
}

fn main() -> std::process::ExitCode {
    use std::process::ExitCode;
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), BoxError> {
    use mm2_checkpoint::embedded::{EmbeddedClusters, Side};

    let embedded;
    let writer = OffsetSyncWriterConfig {
        offset_lag_max: args.offset_lag_max.unwrap_or(100),
        ..OffsetSyncWriterConfig::default()
    };
    let source_alias = args.source_alias.unwrap_or_else(|| "source".into());
    let target_alias = args.target_alias.unwrap_or_else(|| "target".into());
    let settings = match (args.source, args.target, args.topic) {
        (Some(source), Some(target), Some(topic)) => MirrorSettings {
            source_bootstrap: source,
            target_bootstrap: target,
            source_alias,
            target_alias,
            topic,
            writer,
        },
        (None, None, None) => {
            embedded = EmbeddedClusters::new()?;
            let syncs = format!("mm2-offset-syncs.{target_alias}.internal");
            embedded.create_topic(Side::Source, "orders", 2)?;
            embedded.create_topic(Side::Source, &syncs, 1)?;
            // The mock cluster has no CreateTopics: the remote topic is made here.
            embedded.create_topic(Side::Target, &format!("{source_alias}.orders"), 2)?;
            for p in 0..2 {
                embedded.produce_data(Side::Source, "orders", p, 1000)?;
            }
            println!("embedded clusters: 2000 records in `orders` (2 partitions) on the source");
            MirrorSettings {
                source_bootstrap: embedded.bootstrap(Side::Source),
                target_bootstrap: embedded.bootstrap(Side::Target),
                source_alias,
                target_alias,
                topic: "orders".into(),
                writer,
            }
        }
        _ => return Err("--source, --target and --topic go together (see --help)".into()),
    };
    let group = args.group.unwrap_or_else(|| settings.resume_group());
    let began = Instant::now();
    let mut mirror = Mirror::with_group(&settings, &group)?;
    let resumed: Vec<String> = mirror
        .resumed_from
        .iter()
        .filter(|(_, o)| **o > 0)
        .map(|(p, o)| format!("{}-{p} at {o}", settings.topic))
        .collect();
    if !resumed.is_empty() {
        println!("resuming (group `{group}`): {}", resumed.join(", "));
    }
    mirror.run_until_caught_up(Duration::from_secs(120))?;
    let stats = mirror.close(Duration::from_secs(30))?;
    println!(
        "mirrored {} records to `{}.{}` in {:?}; offset syncs to `mm2-offset-syncs.{}.internal` \
         on the source: {} sent, {} delivered, {} failed (offset.lag.max {})",
        stats.records_mirrored,
        settings.source_alias,
        settings.topic,
        began.elapsed(),
        settings.target_alias,
        stats.writer.syncs_sent,
        stats.writer.syncs_delivered,
        stats.writer.syncs_failed,
        settings.writer.offset_lag_max
    );
    Ok(())
}
