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
//! topic again from offset 0, and says per partition where it resumes.
//!
//! Ctrl-C or SIGTERM mid-copy stops consuming, waits for the target to confirm what was sent,
//! commits exactly the confirmed positions and exits 0: a rerun copies no record twice and
//! loses none. With `--config FILE` it takes the checkpoint job's properties file (TLS, SASL,
//! aliases, replication policy), read by the library's own loader; options override it.
//!
//! ```text
//! cargo run --example mirror                       # two embedded mock clusters, demo data
//! cargo run --example mirror -- --source A:9092 --target B:9092 --topic orders
//! cargo run --example mirror -- --config examples/mm2.properties --topic orders
//! cargo run --example mirror -- --help             # every option
//! ```
//!
//! With options it mirrors the topic until it has caught up, then exits. The offset syncs go to
//! `mm2-offset-syncs.<target alias>.internal` on the source cluster (MM2's default
//! `offset-syncs.topic.location`), which must exist or be auto-created by the broker.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{DeliveryResult, Message};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext};
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::offset_sync_writer::{
    OffsetSyncWriter, OffsetSyncWriterConfig, OffsetSyncWriterStats,
};
use mm2_checkpoint::{ClientKind, Cluster, MirrorCheckpointConfig};
use mm2_checkpoint::{ReplicationPolicy, TopicPartition};

/// Errors of this example.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Where and what to mirror.
#[derive(Clone, Debug, Default)]
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
    /// The checkpoint job's configuration, when the mirror shares its properties file: every
    /// client takes its settings from it (TLS, SASL, ...; `bootstrap.servers` above wins), the
    /// remote topic is named by its replication policy and the offset syncs go where
    /// `offset-syncs.topic.location` says. `None`: plain clients, MM2's default policy, syncs
    /// on the source.
    pub job: Option<MirrorCheckpointConfig>,
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

    /// The settings of a client of `cluster` for the mirror's `role`: the job's settings for
    /// that cluster and kind when there is a job config, with this mirror's `bootstrap.servers`.
    fn client_settings(
        &self,
        cluster: Cluster,
        kind: ClientKind,
        role: &str,
    ) -> BTreeMap<String, String> {
        let mut settings = match &self.job {
            Some(job) => job.client_config(cluster, kind, &format!("mirror-{role}")),
            None => BTreeMap::new(),
        };
        let bootstrap = match cluster {
            Cluster::Source => &self.source_bootstrap,
            Cluster::Target => &self.target_bootstrap,
        };
        settings.insert("bootstrap.servers".into(), bootstrap.clone());
        settings
    }

    /// [`client_settings`](Self::client_settings) as an rdkafka client config.
    fn client(&self, cluster: Cluster, kind: ClientKind, role: &str) -> ClientConfig {
        let mut config = ClientConfig::new();
        for (key, value) in self.client_settings(cluster, kind, role) {
            config.set(key, value);
        }
        config
    }

    /// The replication policy naming the remote topic: the job's, or MM2's default.
    fn policy(&self) -> Result<ReplicationPolicy, BoxError> {
        match &self.job {
            Some(job) => Ok(ReplicationPolicy::configure(
                &job.replication_policy_class,
                &job.policy_properties(),
            )?),
            None => Ok(ReplicationPolicy::default()),
        }
    }

    /// The cluster holding the offset-syncs topic.
    pub fn offset_syncs_location(&self) -> Cluster {
        self.job
            .as_ref()
            .map_or(Cluster::Source, |job| job.offset_syncs_topic_location)
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
    /// Whether the run was stopped (Ctrl-C, SIGTERM) before it had caught up.
    pub interrupted: bool,
}

/// A consumer's context that keeps librdkafka's last error report (the broker address and the
/// cause: "Connect to ipv4#127.0.0.1:1 failed: Connection refused", "SASL authentication error:
/// ..."), so that a failed request can say more than its error code.
struct LastError {
    /// "source" or "target".
    cluster: &'static str,
    bootstrap: String,
    last: Mutex<Option<String>>,
}

impl LastError {
    fn new(cluster: &'static str, config: &ClientConfig) -> Self {
        LastError {
            cluster,
            bootstrap: config.get("bootstrap.servers").unwrap_or("?").to_string(),
            last: Mutex::new(None),
        }
    }
}

impl LastError {
    fn keep(&self, text: String) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
    }
}

impl ClientContext for LastError {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        // librdkafka's own reports of a failing connection are its log lines at warning level
        // and above; they are kept, and logged as every client's are.
        if matches!(
            level,
            RDKafkaLogLevel::Emerg
                | RDKafkaLogLevel::Alert
                | RDKafkaLogLevel::Critical
                | RDKafkaLogLevel::Error
                | RDKafkaLogLevel::Warning
        ) {
            self.keep(log_message.to_string());
        }
        DefaultClientContext.log(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        self.keep(format!("{reason} ({error})"));
    }
}

impl ConsumerContext for LastError {}

/// `e` from `what` on `consumer`'s cluster, with the address and librdkafka's last error report
/// (served first: reports reach the context only when the consumer is polled).
fn explained(consumer: &BaseConsumer<LastError>, what: &str, e: KafkaError) -> BoxError {
    let _ = consumer.poll(Duration::ZERO);
    let context = consumer.context();
    let last = context
        .last
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    format!(
        "{what} on the {} cluster (bootstrap.servers {}): {e}{}",
        context.cluster,
        context.bootstrap,
        last.map_or_else(String::new, |l| format!("; last error: {l}"))
    )
    .into()
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

/// Where a partition's copy starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeFrom {
    /// The offset an earlier run committed: everything before it is on the target.
    Committed(i64),
    /// No commit in the group: from the beginning of the partition (the earliest offset).
    Earliest,
}

impl ResumeFrom {
    /// The first offset to copy (0 for the beginning, where a truncated log's start is found).
    pub fn offset(self) -> i64 {
        match self {
            ResumeFrom::Committed(o) => o,
            ResumeFrom::Earliest => 0,
        }
    }
}

/// Errors of the group coordinator that go away by themselves (a coordinator moving or still
/// loading its offsets after a restart, a request that timed out): reading the committed
/// offsets is retried on them.
fn is_transient(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::NotCoordinator
            | RDKafkaErrorCode::CoordinatorLoadInProgress
            | RDKafkaErrorCode::CoordinatorNotAvailable
            | RDKafkaErrorCode::RequestTimedOut
            | RDKafkaErrorCode::OperationTimedOut
    )
}

/// How many times reading the committed offsets is tried before giving up, and the pause
/// before the first retry (doubled each time, at most [`RETRY_PAUSE_MAX`]).
const START_ATTEMPTS: u32 = 8;
const RETRY_PAUSE: Duration = Duration::from_millis(250);
const RETRY_PAUSE_MAX: Duration = Duration::from_secs(4);

/// The committed offsets of `group` for `wanted`, retrying transient coordinator errors (each
/// retry printed with its reason) a bounded number of times.
fn read_committed(
    consumer: &BaseConsumer<LastError>,
    group: &str,
    wanted: &TopicPartitionList,
) -> Result<TopicPartitionList, BoxError> {
    let mut pause = RETRY_PAUSE;
    for attempt in 1..=START_ATTEMPTS {
        let reason = match consumer.committed_offsets(wanted.clone(), Duration::from_secs(10)) {
            Ok(list) => {
                // A partition can carry its own error while the request as a whole succeeded.
                let failed = list
                    .elements()
                    .iter()
                    .find_map(|e| e.error().err().map(|err| (e.partition(), err)));
                match failed {
                    None => return Ok(list),
                    Some((p, err)) => match err.rdkafka_error_code() {
                        Some(code) if is_transient(code) => format!("partition {p}: {code}"),
                        _ => {
                            return Err(format!(
                                "reading the committed offsets of group `{group}`, partition \
                                 {p}: {err}"
                            )
                            .into())
                        }
                    },
                }
            }
            Err(err) => match err.rdkafka_error_code() {
                Some(code) if is_transient(code) => code.to_string(),
                _ => {
                    return Err(
                        format!("reading the committed offsets of group `{group}`: {err}").into(),
                    )
                }
            },
        };
        if attempt == START_ATTEMPTS {
            return Err(format!(
                "reading the committed offsets of group `{group}`: still `{reason}` after \
                 {START_ATTEMPTS} attempts"
            )
            .into());
        }
        println!(
            "reading the committed offsets of group `{group}`: {reason}; retrying in {pause:?} \
             (attempt {attempt} of {START_ATTEMPTS})"
        );
        // A back-off before asking again, not a synchronisation: nothing signals readiness.
        std::thread::sleep(pause);
        pause = (pause * 2).min(RETRY_PAUSE_MAX);
    }
    unreachable!("the last attempt returns")
}

/// A running mirror of one topic.
pub struct Mirror {
    consumer: BaseConsumer<LastError>,
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
    /// Partitions with a failed delivery: their confirmed position no longer moves, so that a
    /// later record's success cannot commit past the lost one.
    failed: BTreeSet<i32>,
    last_commit: Instant,
    /// Where each partition started.
    pub resumed_from: BTreeMap<i32, ResumeFrom>,
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
        let policy = settings.policy()?;
        let mut config = settings.client(Cluster::Source, ClientKind::Consumer, "source-consumer");
        config
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "true")
            .set("auto.offset.reset", "earliest");
        let consumer: BaseConsumer<LastError> =
            config.create_with_context(LastError::new("source", &config))?;
        let metadata = consumer
            .fetch_metadata(Some(&settings.topic), Duration::from_secs(10))
            .map_err(|e| {
                explained(
                    &consumer,
                    &format!("reading the metadata of `{}`", settings.topic),
                    e,
                )
            })?;
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
        ensure_remote_topic(settings, &remote_topic, partitions.len())?;

        let mut wanted = TopicPartitionList::new();
        for p in &partitions {
            wanted.add_partition(&settings.topic, *p);
        }
        let stored = read_committed(&consumer, group, &wanted)?;
        let mut assignment = TopicPartitionList::new();
        let mut resumed_from = BTreeMap::new();
        let mut committed = BTreeMap::new();
        for p in &partitions {
            let from = match stored
                .find_partition(&settings.topic, *p)
                .map(|e| e.offset())
            {
                Some(Offset::Offset(o)) if o >= 0 => ResumeFrom::Committed(o),
                _ => ResumeFrom::Earliest,
            };
            resumed_from.insert(*p, from);
            // An explicit position, not Offset::Stored, so that the start is the one printed.
            let position = match from {
                ResumeFrom::Committed(o) => {
                    committed.insert(*p, o);
                    Offset::Offset(o)
                }
                ResumeFrom::Earliest => Offset::Beginning,
            };
            assignment.add_partition_offset(&settings.topic, *p, position)?;
        }
        consumer.assign(&assignment)?;

        let deliveries = Deliveries::default();
        let delivered = Arc::clone(&deliveries.0);
        // One request in flight keeps each partition's records, and so their offsets, in order;
        // idempotence keeps a retried send from writing a record twice.
        let producer: BaseProducer<Deliveries> = settings
            .client(Cluster::Target, ClientKind::Producer, "target-producer")
            .set("max.in.flight.requests.per.connection", "1")
            .set("enable.idempotence", "true")
            .set("linger.ms", "5")
            .create_with_context(deliveries)?;

        let syncs_topic = policy.offset_syncs_topic(&settings.target_alias);
        let location = settings.offset_syncs_location();
        // Not ClientConfig::config_map: it shows secrets as a placeholder.
        let syncs_client = settings.client_settings(
            location,
            ClientKind::Producer,
            &format!("offset-syncs-{}-producer", location.name()),
        );
        let writer = OffsetSyncWriter::new(&syncs_client, &syncs_topic, &settings.writer)?;
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
            committed,
            failed: BTreeSet::new(),
            last_commit: Instant::now(),
            resumed_from,
        })
    }

    /// Per partition, the position a rerun starts from: the committed one (none for a
    /// partition that has no commit yet).
    pub fn committed(&self, partition: i32) -> Option<i64> {
        self.committed.get(&partition).copied()
    }

    /// The partitions of the source topic.
    pub fn partitions(&self) -> &[i32] {
        &self.partitions
    }

    /// Commits the confirmed positions that moved since the last commit. `Sync` waits for the
    /// broker's answer (at the end of a run); otherwise the commit is sent in the background.
    /// Returns whether anything was committed.
    fn commit_confirmed(&mut self, mode: CommitMode) -> Result<bool, BoxError> {
        self.last_commit = Instant::now();
        let mut list = TopicPartitionList::new();
        for (p, next) in &self.confirmed {
            if self.committed.get(p) != Some(next) {
                list.add_partition_offset(&self.topic, *p, Offset::Offset(*next))?;
            }
        }
        if list.count() == 0 {
            return Ok(false);
        }
        self.consumer.commit(&list, mode)?;
        self.committed
            .extend(self.confirmed.iter().map(|(p, o)| (*p, *o)));
        Ok(true)
    }

    /// Mirrors until every partition has reached its end and every copied record was confirmed
    /// and reported to the offset-sync writer.
    pub fn run_until_caught_up(&mut self, timeout: Duration) -> Result<MirrorStats, BoxError> {
        self.run_until_caught_up_or_stopped(timeout, &AtomicBool::new(false))
    }

    /// Like [`run_until_caught_up`](Self::run_until_caught_up), returning early once `stop` is
    /// set (by a signal handler): it then stops consuming, waits for the target to confirm what
    /// was sent, and commits exactly the confirmed positions (`interrupted` in the stats).
    /// After an error, too, what was confirmed is committed before the error is returned.
    pub fn run_until_caught_up_or_stopped(
        &mut self,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<MirrorStats, BoxError> {
        let outcome = self.copy_until_caught_up(timeout, stop);
        if outcome.is_err() || stop.load(Ordering::SeqCst) {
            // Whatever is in flight is either confirmed now or copied again by the rerun.
            let _ = self.producer.flush(Duration::from_secs(30));
            let reported = self.report_deliveries();
            self.commit_confirmed(CommitMode::Sync)?;
            outcome?;
            reported?;
            return Ok(MirrorStats {
                interrupted: true,
                ..self.stats()
            });
        }
        self.commit_confirmed(CommitMode::Sync)?;
        Ok(self.stats())
    }

    fn copy_until_caught_up(
        &mut self,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<(), BoxError> {
        let deadline = Instant::now() + timeout;
        let mut at_end: BTreeSet<i32> = BTreeSet::new();
        while at_end.len() < self.partitions.len() || self.in_flight > 0 {
            if stop.load(Ordering::SeqCst) {
                return Ok(());
            }
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
            if self.last_commit.elapsed() >= COMMIT_EVERY
                && self.commit_confirmed(CommitMode::Async)?
            {
                println!(
                    "progress: {} records confirmed by the target and committed",
                    self.records_mirrored
                );
            }
        }
        Ok(())
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
    /// partition, as the writer needs). A failed delivery freezes its partition's position and
    /// is returned once every report at hand was taken into account.
    fn report_deliveries(&mut self) -> Result<(), BoxError> {
        let done = std::mem::take(&mut *self.delivered.lock().unwrap_or_else(|e| e.into_inner()));
        let mut first_error = None;
        for (partition, upstream, downstream) in done {
            self.in_flight -= 1;
            let downstream = match downstream {
                Ok(o) if !self.failed.contains(&partition) => o,
                Ok(_) => continue,
                Err(e) => {
                    self.failed.insert(partition);
                    first_error.get_or_insert(format!(
                        "mirroring {}-{partition} offset {upstream}: {e}",
                        self.topic
                    ));
                    continue;
                }
            };
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
        match first_error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> MirrorStats {
        MirrorStats {
            records_mirrored: self.records_mirrored,
            writer: self.writer.stats(),
            interrupted: false,
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
            interrupted: false,
        })
    }
}

/// Creates `topic` on the target with `partitions` partitions (replication factor: the broker's
/// default) unless it exists; an existing topic must have at least that many, since each record
/// goes to the partition it came from.
fn ensure_remote_topic(
    settings: &MirrorSettings,
    topic: &str,
    partitions: usize,
) -> Result<(), BoxError> {
    // A consumer's metadata request never auto-creates the topic it asks about.
    let config = settings.client(Cluster::Target, ClientKind::Consumer, "target-metadata");
    let probe: BaseConsumer<LastError> =
        config.create_with_context(LastError::new("target", &config))?;
    let metadata = probe
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .map_err(|e| explained(&probe, &format!("reading the metadata of `{topic}`"), e))?;
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
    let admin: AdminClient<DefaultClientContext> = settings
        .client(Cluster::Target, ClientKind::Admin, "target-admin")
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
usage: mirror [--config FILE] [--source BOOTSTRAP --target BOOTSTRAP] --topic TOPIC [options]
       mirror SOURCE TARGET TOPIC [OFFSET_LAG_MAX] [options]     (the same, positionally)

Mirrors one topic from the source cluster to `<source alias>.<topic>` on the target, writing
MM2 offset syncs, until it has caught up; then exits. A rerun resumes where the last one
stopped; at start it prints where each partition resumes. Ctrl-C or SIGTERM stops it after
committing exactly what the target confirmed, so a rerun neither copies a record twice nor
loses one. Without --config, --source, --target and --topic it runs a demo on two embedded
mock clusters.

options:
  --config FILE            the checkpoint job's MM2 properties file: the clusters' addresses,
                           aliases, client settings (TLS, SASL, ...), replication policy and
                           `offset-syncs.topic.location` come from it; the options below
                           override it
  --source BOOTSTRAP       bootstrap.servers of the source cluster
  --target BOOTSTRAP       bootstrap.servers of the target cluster
  --topic TOPIC            the source topic to mirror
  --source-alias ALIAS     the source cluster's alias (default `source`): names the remote
                           topic `<ALIAS>.<topic>` and, for the checkpoint job, the
                           checkpoints topic `<ALIAS>.checkpoints.internal`
  --target-alias ALIAS     the target cluster's alias (default `target`): names the
                           offset-syncs topic
  --offset-lag-max N       write an offset sync at least every N records (default 100, or the
                           config's `offset.lag.max`)
  --group GROUP            the consumer group on the source that records how far the mirror
                           got (default `connect-mm2-example-mirror-<source alias>-<topic>`)
  -h, --help               prints this help and exits

Offset syncs go to `mm2-offset-syncs.<target alias>.internal` on the source cluster (or where
the config's `offset-syncs.topic.location` says), where the checkpoint job reads them; that
topic must exist or be auto-created by the broker. The remote topic is created with the source
topic's partition count when it is missing.";

/// The command line: `None` fields take their defaults.
#[derive(Debug, Default)]
struct Args {
    config: Option<String>,
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
            "--config" => parsed.config = Some(value("--config")?),
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
    // The library's and librdkafka's warnings and errors (a failed SASL handshake, ...), but not
    // rdkafka's report of every partition end, which this mirror asks for.
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,rdkafka::client=off"),
    )
    .init();
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

    let job = match &args.config {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
            // The library's own reading of the file, as for the checkpoint job.
            let (job, warnings) = MirrorCheckpointConfig::from_properties_text(&text)
                .map_err(|e| format!("{file}: {e}"))?;
            for w in warnings {
                eprintln!("warning: {w}");
            }
            Some(job)
        }
        None => None,
    };
    // The job's value of a setting of `cluster`'s clients, as the library merges them.
    let from_job = |cluster: Cluster| {
        job.as_ref().and_then(|job| {
            job.client_config(cluster, ClientKind::Consumer, "mirror")
                .remove("bootstrap.servers")
        })
    };
    let embedded;
    let writer = OffsetSyncWriterConfig {
        offset_lag_max: args
            .offset_lag_max
            .or(job.as_ref().map(|j| j.offset_lag_max))
            .unwrap_or(100),
        ..OffsetSyncWriterConfig::default()
    };
    let source_alias = args
        .source_alias
        .or(job.as_ref().map(|j| j.source_cluster_alias.clone()))
        .unwrap_or_else(|| "source".into());
    let target_alias = args
        .target_alias
        .or(job.as_ref().map(|j| j.target_cluster_alias.clone()))
        .unwrap_or_else(|| "target".into());
    let source = args.source.or_else(|| from_job(Cluster::Source));
    let target = args.target.or_else(|| from_job(Cluster::Target));
    let settings = match (source, target, args.topic) {
        (Some(source), Some(target), Some(topic)) => MirrorSettings {
            source_bootstrap: source,
            target_bootstrap: target,
            source_alias,
            target_alias,
            topic,
            writer,
            job,
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
                job: None,
            }
        }
        (_, _, None) => return Err("--topic is missing (see --help)".into()),
        _ => {
            return Err(
                "the source and target clusters come from --source and --target, or from \
                 --config (see --help)"
                    .into(),
            )
        }
    };
    let group = args.group.unwrap_or_else(|| settings.resume_group());
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // With ctrlc's `termination` feature this handles SIGTERM (and SIGHUP) as well as
        // SIGINT; the run loop sees the flag, commits what the target confirmed and returns.
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))?;
    }
    let began = Instant::now();
    let mut mirror = Mirror::with_group(&settings, &group)?;
    for (p, from) in &mirror.resumed_from {
        match from {
            ResumeFrom::Committed(o) => println!(
                "{}-{p}: resuming at offset {o} (committed in group `{group}`)",
                settings.topic
            ),
            ResumeFrom::Earliest => println!(
                "{}-{p}: no commit in group `{group}`: from the beginning (earliest)",
                settings.topic
            ),
        }
    }
    let run = mirror.run_until_caught_up_or_stopped(Duration::from_secs(120), &stop)?;
    let committed: Vec<String> = mirror
        .partitions()
        .iter()
        .map(|p| match mirror.committed(*p) {
            Some(o) => format!("{}-{p} at {o}", settings.topic),
            None => format!("{}-{p} not at all (no record confirmed)", settings.topic),
        })
        .collect();
    let stats = mirror.close(Duration::from_secs(30))?;
    let location = settings.offset_syncs_location().name();
    println!(
        "mirrored {} records to `{}` in {:?}; offset syncs to `{}` on the {location} cluster: {} \
         sent, {} delivered, {} failed (offset.lag.max {})",
        stats.records_mirrored,
        settings
            .policy()?
            .format_remote_topic(&settings.source_alias, &settings.topic),
        began.elapsed(),
        settings
            .policy()?
            .offset_syncs_topic(&settings.target_alias),
        stats.writer.syncs_sent,
        stats.writer.syncs_delivered,
        stats.writer.syncs_failed,
        settings.writer.offset_lag_max
    );
    if run.interrupted {
        println!(
            "interrupted: committed {} in group `{group}`; a rerun resumes there",
            committed.join(", ")
        );
    }
    Ok(())
}
