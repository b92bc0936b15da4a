//! MM2's `MirrorCheckpointTask`, as a blocking-thread runtime whose stop cannot race its start-up.
//!
//! Threads and what they own (each Kafka client has exactly one owner at a time):
//! - the **scheduler thread** runs the start-up job (create the checkpoints topic, load the
//!   checkpoint store, load the offset-sync store) and then the periodic group-offset sync; it
//!   owns the start-up consumers and the target admin client;
//! - the **offset-syncs tail thread** owns the offset-syncs consumer after the initial load;
//! - the **caller of [`CheckpointTask::poll`]** owns the source admin and the checkpoint producer,
//!   behind a lock that admits one poll at a time.
//!
//! Threads share only data: the offset-sync store, the checkpoint store, counters and reports.
//! [`CheckpointTask::stop`] sets the stop flag, wakes every blocked client call, joins every
//! thread, and only then closes the clients (KAFKA-21435 cannot happen: there is no moment at
//! which a client is closed while a thread may be inside it).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::core::checkpoint_rules::{
    checkpoints_for_group, target_offset_sync, CommittedOffset, OffsetSyncDecision,
    TargetGroupState,
};
use crate::core::checkpoint_store::CheckpointStore;
use crate::core::error::{ConfigError, Error, RecordError};
use crate::core::group_assignment::owns_group;
use crate::core::mirror_checkpoint_config::MirrorCheckpointConfig;
use crate::core::offset_sync_store::OffsetSyncStore;
use crate::core::replication_policy::{checkpoint_topic_partition, ReplicationPolicy};
use crate::kafka::admin::{Admin, GroupOffsetsResult, TopicCreation};
use crate::kafka::checkpoint_producer::CheckpointProducer;
use crate::kafka::diagnostics::LibraryThread;
use crate::kafka::kafka_based_log::{KafkaBasedLog, ReadToEnd};
use crate::kafka::librdkafka::NativeGroupState;
use crate::kafka::stop_signal::{lock, StopSignal};
use crate::runtime::scheduler::{JobError, Leftovers, RepeatingJob, Scheduler};
use crate::{Checkpoint, OffsetSync, TopicPartition};

/// A period long enough to mean "not again".
const NEVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Committed-offset requests kept in flight at once during a checkpoint cycle or a group
/// discovery (librdkafka takes one group per request).
pub const MAX_OFFSET_FETCHES_IN_FLIGHT: usize = 64;

/// Result of one [`CheckpointTask::poll`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PollStatus {
    /// A checkpoint cycle ran; the batch holds what it wrote (possibly nothing new).
    Emitted,
    /// The stores are still loading; nothing was written.
    NotReady,
    /// The timeout passed before the next cycle was due.
    NotDue,
    /// The task is stopped (or was stopped during the poll).
    Stopped,
    /// The task hit a fatal error ([`CheckpointTask::fatal_error`] says which).
    Failed,
}

/// What a poll returns: a status and the checkpoints written in this call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollOutcome {
    /// Why the poll returned.
    pub status: PollStatus,
    /// Checkpoints written to the target and confirmed by the broker.
    pub checkpoints: Vec<Checkpoint>,
}

impl PollOutcome {
    fn status(status: PollStatus) -> Self {
        PollOutcome {
            status,
            checkpoints: Vec::new(),
        }
    }
}

/// How a call to [`CheckpointTask::stop`] went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// This call stopped the task; it took this long.
    Stopped(Duration),
    /// The task was already stopped; nothing was done.
    AlreadyStopped,
}

/// Per-task counters (see also [`crate::kafka::diagnostics`] for process-wide ones).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskStats {
    /// True once both stores finished loading.
    pub initialized: bool,
    /// Checkpoints written and confirmed.
    pub checkpoints_emitted: u64,
    /// Malformed records skipped in the offset-syncs and checkpoints topics.
    pub records_skipped: u64,
    /// Offset syncs applied (initial load and tailing).
    pub syncs_loaded: u64,
    /// Checkpoints read back from the target at start.
    pub checkpoints_loaded: u64,
    /// Whether those checkpoints loaded successfully (otherwise translation starts pessimistic).
    pub checkpoints_load_ok: bool,
    /// Time from start to both stores loaded.
    pub load_time: Option<Duration>,
    /// How long the last stop took.
    pub last_stop_time: Option<Duration>,
    /// Checkpoint cycles run.
    pub cycles: u64,
    /// Offsets committed into target groups.
    pub group_offsets_written: u64,
    /// Groups currently handled by this task.
    pub groups: u64,
    /// How long the last checkpoint cycle took (fetching offsets, deciding, writing).
    pub last_cycle_time: Option<Duration>,
    /// The most committed-offset requests this task ever had in flight at once (bounded by
    /// [`MAX_OFFSET_FETCHES_IN_FLIGHT`]).
    pub max_offset_fetches_in_flight: u64,
}

/// Per group and upstream partition: the last checkpoint written, or why none was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionStatus {
    /// Consumer group.
    pub group: String,
    /// Upstream (source) topic-partition.
    pub topic_partition: TopicPartition,
    /// The last checkpoint written for it, if any.
    pub last_checkpoint: Option<Checkpoint>,
    /// When the last cycle wrote nothing for it, why (e.g. `no_offset_sync`).
    pub reason: Option<String>,
}

/// Per target group and partition: what the last group-offset sync did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOffsetSyncResult {
    /// Consumer group on the target.
    pub group: String,
    /// Target topic-partition.
    pub topic_partition: TopicPartition,
    /// The offset written, when one was.
    pub written_offset: Option<i64>,
    /// Why it was written or not (e.g. `target_behind`, `group_active`).
    pub reason: String,
    /// The broker's error when the write failed.
    pub error: Option<String>,
}

/// Test hooks run on the scheduler thread at fixed points of start-up; each gets the task's stop
/// signal so it can hold start-up until a stop arrives (the deterministic race tests).
/// A start-up hook: gets the task's stop signal.
#[doc(hidden)]
pub type StartupHook = Arc<dyn Fn(&StopSignal) + Send + Sync>;

/// Test hooks run on the scheduler thread at fixed points of start-up.
#[doc(hidden)]
#[derive(Clone, Default)]
pub struct StartupHooks {
    /// Runs after the checkpoints consumer is created, before it reads.
    pub checkpoint_store_reading: Option<StartupHook>,
    /// Runs after the offset-syncs consumer is created, before it reads.
    pub offset_sync_store_reading: Option<StartupHook>,
}

#[derive(Default)]
struct Counters {
    checkpoints_emitted: AtomicU64,
    records_skipped: AtomicU64,
    syncs_loaded: AtomicU64,
    checkpoints_loaded: AtomicU64,
    checkpoints_load_ok: AtomicBool,
    load_time_us: AtomicU64,
    last_stop_us: AtomicU64,
    cycles: AtomicU64,
    group_offsets_written: AtomicU64,
    last_cycle_us: AtomicU64,
    max_fetches_in_flight: AtomicU64,
}

struct Shared {
    config: MirrorCheckpointConfig,
    emit_interval: Duration,
    policy: ReplicationPolicy,
    signal: StopSignal,
    syncs: RwLock<OffsetSyncStore>,
    checkpoints: Mutex<CheckpointStore>,
    initialized: AtomicBool,
    fatal: Arc<Mutex<Option<String>>>,
    counters: Counters,
    groups: RwLock<Vec<String>>,
    statuses: Mutex<BTreeMap<(String, TopicPartition), PartitionStatus>>,
    group_sync: Mutex<BTreeMap<(String, TopicPartition), GroupOffsetSyncResult>>,
    tail: Mutex<Option<LibraryThread<KafkaBasedLog>>>,
    skip_causes_logged: Mutex<BTreeSet<String>>,
    hooks: StartupHooks,
}

enum Lifecycle {
    Created,
    Running(Scheduler),
    Stopped,
}

#[derive(Default)]
struct Poller {
    source_admin: Option<Admin>,
    producer: Option<CheckpointProducer>,
    next_cycle: Option<Instant>,
}

/// A checkpoint task: `start`, then `poll` repeatedly, then `stop`. All methods take `&self`;
/// `stop` may be called from any thread, also while another thread is inside `poll`.
pub struct CheckpointTask {
    shared: Arc<Shared>,
    lifecycle: Mutex<Lifecycle>,
    stopped: AtomicBool,
    started: AtomicBool,
    poller: Mutex<Poller>,
}

impl std::fmt::Debug for CheckpointTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointTask")
            .field("source", &self.shared.config.source_cluster_alias)
            .field("target", &self.shared.config.target_cluster_alias)
            .finish()
    }
}

impl CheckpointTask {
    /// Makes a task from a validated config. Does no I/O and starts no thread.
    pub fn new(config: MirrorCheckpointConfig) -> Result<Self, Error> {
        Self::with_hooks(config, StartupHooks::default())
    }

    /// Like [`new`](Self::new), with start-up hooks for tests.
    #[doc(hidden)]
    pub fn with_hooks(config: MirrorCheckpointConfig, hooks: StartupHooks) -> Result<Self, Error> {
        let policy = ReplicationPolicy::configure(
            &config.replication_policy_class,
            &config.policy_properties(),
        )?;
        let Some(emit_interval) = config.emit_checkpoints_interval else {
            return Err(ConfigError::new(
                "emit.checkpoints.enabled",
                "checkpoint emission is disabled (or its interval is negative): a checkpoint task would do nothing",
            )
            .into());
        };
        let groups = config.assigned_groups.clone().unwrap_or_default();
        let shared = Arc::new(Shared {
            config,
            emit_interval,
            policy,
            signal: StopSignal::new(),
            syncs: RwLock::new(OffsetSyncStore::new()),
            checkpoints: Mutex::new(CheckpointStore::new()),
            initialized: AtomicBool::new(false),
            fatal: Arc::new(Mutex::new(None)),
            counters: Counters::default(),
            groups: RwLock::new(groups),
            statuses: Mutex::new(BTreeMap::new()),
            group_sync: Mutex::new(BTreeMap::new()),
            tail: Mutex::new(None),
            skip_causes_logged: Mutex::new(BTreeSet::new()),
            hooks,
        });
        Ok(CheckpointTask {
            shared,
            lifecycle: Mutex::new(Lifecycle::Created),
            stopped: AtomicBool::new(false),
            started: AtomicBool::new(false),
            poller: Mutex::new(Poller::default()),
        })
    }

    /// The task's stop signal (for observing the stop sequence in tests).
    #[doc(hidden)]
    pub fn stop_signal(&self) -> &StopSignal {
        &self.shared.signal
    }

    /// Starts the scheduler thread, which loads the stores; returns at once (MM2's KAFKA-17242
    /// fix: start never blocks on Kafka). A task starts once; start after stop is an error.
    pub fn start(&self) -> Result<(), Error> {
        let mut lc = lock(&self.lifecycle);
        match &*lc {
            Lifecycle::Created => {}
            Lifecycle::Running(_) => return Err(Error::AlreadyStarted),
            Lifecycle::Stopped => return Err(Error::AlreadyStopped),
        }
        let shared = Arc::clone(&self.shared);
        let name = format!(
            "mm2-checkpoint {}->{}",
            shared.config.source_cluster_alias, shared.config.target_cluster_alias
        );
        let scheduler = Scheduler::start(
            name,
            shared.signal.clone(),
            Arc::clone(&shared.fatal),
            Box::new(move |leftovers| startup(&shared, leftovers)),
        )?;
        *lc = Lifecycle::Running(scheduler);
        self.started.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Waits up to `timeout` for the next checkpoint cycle (due every
    /// `emit.checkpoints.interval.seconds`, the first as soon as the stores are loaded), runs it,
    /// and returns the checkpoints it wrote. Blocks; returns promptly with
    /// [`PollStatus::Stopped`] when another thread stops the task. One poll at a time.
    pub fn poll(&self, timeout: Duration) -> Result<PollOutcome, Error> {
        if !self.started.load(Ordering::SeqCst) {
            return Err(Error::NotStarted);
        }
        // Checked before the poll lock too: `stop` holds that lock while it closes the clients,
        // and a poll arriving then must say Stopped, not "already running".
        if self.stopped.load(Ordering::SeqCst) {
            return Ok(PollOutcome::status(PollStatus::Stopped));
        }
        let Ok(mut poller) = self.poller.try_lock() else {
            return Err(Error::Busy);
        };
        if self.stopped.load(Ordering::SeqCst) {
            return Ok(PollOutcome::status(PollStatus::Stopped));
        }
        let shared = &self.shared;
        let deadline = Instant::now() + timeout;
        let fatal = || lock(&shared.fatal).is_some();
        let ready = shared.signal.wait_until(deadline, || {
            shared.initialized.load(Ordering::SeqCst) || fatal()
        });
        match ready {
            None => return Ok(PollOutcome::status(PollStatus::Stopped)),
            Some(_) if fatal() => return Ok(PollOutcome::status(PollStatus::Failed)),
            Some(false) => return Ok(PollOutcome::status(PollStatus::NotReady)),
            Some(true) => {}
        }
        let due = *poller.next_cycle.get_or_insert_with(Instant::now);
        match shared.signal.wait_until(deadline.min(due), || false) {
            None => return Ok(PollOutcome::status(PollStatus::Stopped)),
            Some(_) if Instant::now() < due => return Ok(PollOutcome::status(PollStatus::NotDue)),
            Some(_) => {}
        }
        poller.next_cycle = Some(Instant::now() + shared.emit_interval);
        match run_cycle(shared, &mut poller) {
            Ok(checkpoints) => Ok(PollOutcome {
                status: PollStatus::Emitted,
                checkpoints,
            }),
            Err(Error::Stopped) => Ok(PollOutcome::status(PollStatus::Stopped)),
            Err(e) => Err(e),
        }
    }

    /// Stops the task: sets the stop flag, wakes every blocked client call and sleeper, joins
    /// every library thread, waits for a running poll to return, and only then closes the Kafka
    /// clients. When it returns, no thread of this task is alive and all its clients are
    /// destroyed. Idempotent; callable from any thread. Errors only when the task never started.
    pub fn stop(&self) -> Result<StopOutcome, Error> {
        let began = Instant::now();
        let mut lc = lock(&self.lifecycle);
        let scheduler = match std::mem::replace(&mut *lc, Lifecycle::Stopped) {
            Lifecycle::Running(s) => s,
            Lifecycle::Stopped => return Ok(StopOutcome::AlreadyStopped),
            Lifecycle::Created => {
                *lc = Lifecycle::Created;
                return Err(Error::NotStarted);
            }
        };
        let shared = &self.shared;
        self.stopped.store(true, Ordering::SeqCst);
        shared.signal.stop();
        let leftovers = scheduler.join();
        shared.signal.observe("joined scheduler");
        let tail = lock(&shared.tail).take().map(|t| t.join());
        shared.signal.observe("joined tail");
        let mut poller = lock(&self.poller);
        shared.signal.observe("poll returned");
        drop(leftovers);
        drop(tail);
        poller.source_admin = None;
        poller.producer = None;
        let took = began.elapsed();
        shared
            .counters
            .last_stop_us
            .store(took.as_micros() as u64, Ordering::SeqCst);
        log::info!("checkpoint task stopped in {took:?}");
        Ok(StopOutcome::Stopped(took))
    }

    /// The error that stopped the task's work, if any (a job failure or panic).
    pub fn fatal_error(&self) -> Option<String> {
        lock(&self.shared.fatal).clone()
    }

    /// A snapshot of the task's counters.
    pub fn stats(&self) -> TaskStats {
        let c = &self.shared.counters;
        let us = |a: &AtomicU64| match a.load(Ordering::SeqCst) {
            0 => None,
            v => Some(Duration::from_micros(v)),
        };
        TaskStats {
            initialized: self.shared.initialized.load(Ordering::SeqCst),
            checkpoints_emitted: c.checkpoints_emitted.load(Ordering::SeqCst),
            records_skipped: c.records_skipped.load(Ordering::SeqCst),
            syncs_loaded: c.syncs_loaded.load(Ordering::SeqCst),
            checkpoints_loaded: c.checkpoints_loaded.load(Ordering::SeqCst),
            checkpoints_load_ok: c.checkpoints_load_ok.load(Ordering::SeqCst),
            load_time: us(&c.load_time_us),
            last_stop_time: us(&c.last_stop_us),
            cycles: c.cycles.load(Ordering::SeqCst),
            group_offsets_written: c.group_offsets_written.load(Ordering::SeqCst),
            groups: self.shared.groups.read().map(|g| g.len()).unwrap_or(0) as u64,
            last_cycle_time: us(&c.last_cycle_us),
            max_offset_fetches_in_flight: c.max_fetches_in_flight.load(Ordering::SeqCst),
        }
    }

    /// Per group and upstream partition, the last checkpoint or why there is none.
    pub fn partition_statuses(&self) -> Vec<PartitionStatus> {
        lock(&self.shared.statuses).values().cloned().collect()
    }

    /// What the last group-offset sync did, per target group and partition.
    pub fn group_offset_sync_results(&self) -> Vec<GroupOffsetSyncResult> {
        lock(&self.shared.group_sync).values().cloned().collect()
    }

    /// The groups this task currently checkpoints, sorted. With live discovery these are the
    /// listed groups that pass the group filter, fall to this task's index, and have a committed
    /// offset on a topic that passes the topic filter (MM2's `findConsumerGroups`).
    pub fn groups(&self) -> Vec<String> {
        self.shared
            .groups
            .read()
            .map(|g| g.clone())
            .unwrap_or_default()
    }

    /// Benchmark entry point: runs start-up's offset-sync load (consumer creation, read to the
    /// end, decoding, the store lock per record) on the calling thread of a task that was never
    /// started, and returns the records read and the time from consumer creation to the end.
    /// Closing the consumer afterwards is not timed. Optimistic load, as after a good
    /// checkpoint load.
    #[doc(hidden)]
    pub fn bench_load_offset_syncs(&self) -> Result<(u64, Duration), Error> {
        if self.started.load(Ordering::SeqCst) {
            return Err(Error::InvalidState(
                "bench_load_offset_syncs needs a task that was never started".into(),
            ));
        }
        let began = Instant::now();
        let mut leftovers = Leftovers::new();
        let loaded = load_offset_syncs(&self.shared, false, &mut leftovers);
        let elapsed = began.elapsed();
        drop(leftovers);
        match loaded {
            Ok(log) => Ok((log.records_read, elapsed)),
            Err(JobError::Stopped) => Err(Error::Stopped),
            Err(JobError::Transient(e) | JobError::Fatal(e)) => {
                Err(Error::kafka("loading offset syncs", e))
            }
        }
    }
}

impl Drop for CheckpointTask {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Shared {
    /// Counts a malformed record; logs the first one of each kind per topic.
    fn skipped(&self, topic: &str, error: &RecordError) {
        self.counters.records_skipped.fetch_add(1, Ordering::SeqCst);
        let kind = match error {
            RecordError::Truncated { .. } => "truncated",
            RecordError::NegativeStringLength { .. } => "negative string length",
            RecordError::StringTooLong { .. } => "string too long",
            RecordError::Tombstone { .. } => "tombstone",
        };
        if lock(&self.skip_causes_logged).insert(format!("{topic}: {kind}")) {
            log::warn!(
                "skipping malformed record in `{topic}`: {error} (further {kind} records are skipped silently)"
            );
        }
    }

    /// A group this task checkpoints: in the fixed list when one is configured, otherwise any
    /// group passing the group filter and hashed to this task index.
    fn accepts_group(&self, group: &str) -> bool {
        match &self.config.assigned_groups {
            Some(fixed) => fixed.iter().any(|g| g == group),
            None => self.should_handle_group(group),
        }
    }

    fn groups_snapshot(&self) -> Vec<String> {
        self.groups.read().map(|g| g.clone()).unwrap_or_default()
    }

    /// MM2's `findConsumerGroups` test: some partition has a commit and its topic is replicated.
    fn has_replicated_commit(
        &self,
        offsets: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
    ) -> bool {
        offsets.iter().any(|(tp, o)| {
            o.is_some() && self.config.topic_filter.should_replicate_topic(&tp.topic)
        })
    }

    fn note_fetches_in_flight(&self, admin: &Admin) {
        self.counters
            .max_fetches_in_flight
            .fetch_max(admin.max_in_flight_seen() as u64, Ordering::SeqCst);
    }

    /// Stops checkpointing `gone` until a discovery adopts them again.
    fn drop_groups(&self, gone: &[String]) {
        let mut current = self
            .groups
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = current.len();
        current.retain(|g| !gone.contains(g));
        if current.len() != before {
            log::info!(
                "dropped {} groups without a commit on a replicated topic; now checkpointing {}",
                before - current.len(),
                current.len()
            );
        }
        drop(current);
        self.forget_groups(gone);
    }

    /// Forgets the per-partition reports of groups no longer checkpointed. Their last checkpoints
    /// stay in the checkpoint store, as they would after an MM2 task restart reloads the topic.
    fn forget_groups(&self, gone: &[String]) {
        if gone.is_empty() {
            return;
        }
        lock(&self.statuses).retain(|(g, _), _| !gone.contains(g));
    }

    fn should_handle_group(&self, group: &str) -> bool {
        let c = &self.config;
        c.group_filter.should_replicate_group(group)
            && match (c.task_index, c.task_count) {
                (Some(i), Some(n)) => owns_group(group, i, n),
                _ => true,
            }
    }
}

/// The start-up job (scheduler thread): MM2's order — checkpoints first, then offset syncs,
/// pessimistic when the checkpoints failed to load.
fn startup(shared: &Arc<Shared>, leftovers: &mut Leftovers) -> Result<Vec<RepeatingJob>, JobError> {
    let began = Instant::now();
    let c = &shared.config;
    let signal = &shared.signal;
    let mut target_admin = Admin::open(
        &c.target_admin_config(),
        &c.target_cluster_alias,
        "checkpoint-target-admin",
        c.admin_timeout,
        signal,
    )?;
    let checkpoints_topic = c.checkpoints_topic();
    log::debug!("loading checkpoints from `{checkpoints_topic}`");
    let load_ok = match load_checkpoints(shared, &mut target_admin, leftovers) {
        Ok(ok) => ok,
        Err(e) => {
            leftovers.push(Box::new(target_admin));
            return Err(e);
        }
    };
    shared
        .counters
        .checkpoints_load_ok
        .store(load_ok, Ordering::SeqCst);

    log::debug!("loading offset syncs (pessimistic: {})", !load_ok);
    let log = match load_offset_syncs(shared, !load_ok, leftovers) {
        Ok(log) => log,
        Err(e) => {
            leftovers.push(Box::new(target_admin));
            return Err(e);
        }
    };
    shared
        .counters
        .load_time_us
        .store(began.elapsed().as_micros().max(1) as u64, Ordering::SeqCst);
    shared.initialized.store(true, Ordering::SeqCst);
    signal.nudge();
    log::info!(
        "checkpoint task ready in {:?}: {} checkpoints (load ok: {load_ok}), {} offset syncs",
        began.elapsed(),
        shared.counters.checkpoints_loaded.load(Ordering::SeqCst),
        shared.counters.syncs_loaded.load(Ordering::SeqCst)
    );

    let tail_shared = Arc::clone(shared);
    let tail = LibraryThread::spawn(
        format!("mm2-offset-syncs-tail {}", log.topic()),
        move || tail_offset_syncs(&tail_shared, log),
    )
    .map_err(|e| JobError::Fatal(format!("starting the offset-syncs tail thread: {e}")))?;
    *lock(&shared.tail) = Some(tail);

    let mut jobs = Vec::new();
    if c.assigned_groups.is_none() {
        let mut source_admin = Admin::open(
            &c.source_admin_config(),
            &c.source_cluster_alias,
            "checkpoint-source-admin",
            c.admin_timeout,
            signal,
        )?;
        let shared = Arc::clone(shared);
        jobs.push(RepeatingJob {
            name: "group discovery",
            // Without periodic refresh, groups are discovered once, at start.
            interval: c
                .refresh_groups_interval
                .filter(|_| c.refresh_groups_enabled)
                .unwrap_or(NEVER),
            first_delay: Duration::ZERO,
            run: Box::new(move || discover_groups(&shared, &mut source_admin)),
        });
    }
    if let Some(interval) = c
        .sync_group_offsets_interval
        .filter(|_| c.sync_group_offsets_enabled)
    {
        let shared = Arc::clone(shared);
        jobs.push(RepeatingJob {
            name: "group offset sync",
            interval,
            first_delay: interval,
            run: Box::new(move || sync_group_offsets(&shared, &mut target_admin)),
        });
    } else {
        drop(target_admin);
    }
    Ok(jobs)
}

/// Loads the checkpoints topic once (MM2's CheckpointStore.start). A missing topic is created
/// (compacted, as MM2's connector creates it) and counts as a failed load, so translation starts
/// pessimistic: nothing proves what an earlier task generation emitted.
fn load_checkpoints(
    shared: &Shared,
    target_admin: &mut Admin,
    leftovers: &mut Leftovers,
) -> Result<bool, JobError> {
    let c = &shared.config;
    let topic = c.checkpoints_topic();
    let mut log = KafkaBasedLog::open(
        &c.checkpoints_consumer_config(),
        &topic,
        "checkpoints-target-consumer",
        &shared.signal,
    )?;
    if let Some(hook) = &shared.hooks.checkpoint_store_reading {
        hook(&shared.signal);
    }
    let mut loaded = Vec::new();
    let outcome = log.read_to_end(&mut |key, value| match Checkpoint::decode(key, value) {
        Ok(cp) => loaded.push(cp),
        Err(e) => shared.skipped(&topic, &e),
    });
    let ok = match outcome {
        Ok(ReadToEnd::Reached) => true,
        Ok(ReadToEnd::TopicMissing) => {
            log::info!(
                "checkpoints topic `{topic}` does not exist; creating it, starting pessimistic"
            );
            match target_admin
                .create_compacted_topic(&topic, c.checkpoints_topic_replication_factor)
            {
                Ok(TopicCreation::Created) => log::info!("created checkpoints topic `{topic}`"),
                Ok(TopicCreation::Exists) => {}
                Ok(TopicCreation::Skipped(why)) => {
                    log::warn!("could not create `{topic}` ({why}); assuming it will exist")
                }
                Err(Error::Stopped) => {
                    leftovers.push(Box::new(log));
                    return Err(JobError::Stopped);
                }
                Err(e) => log::warn!("creating `{topic}`: {e}"),
            }
            false
        }
        Err(Error::Stopped) => {
            leftovers.push(Box::new(log));
            return Err(JobError::Stopped);
        }
        Err(e) => {
            log::info!("loading checkpoints from `{topic}` failed: {e}; starting pessimistic");
            false
        }
    };
    let mut store = lock(&shared.checkpoints);
    for cp in loaded {
        shared
            .counters
            .checkpoints_loaded
            .fetch_add(1, Ordering::SeqCst);
        store.load_record(cp, |g| shared.accepts_group(g));
    }
    // Read once, as MM2 does: later checkpoints are tracked in memory.
    drop(log);
    Ok(ok)
}

fn load_offset_syncs(
    shared: &Shared,
    pessimistic: bool,
    leftovers: &mut Leftovers,
) -> Result<KafkaBasedLog, JobError> {
    let c = &shared.config;
    let topic = c.offset_syncs_topic();
    let mut log = KafkaBasedLog::open(
        &c.offset_syncs_consumer_config(),
        &topic,
        "offset-syncs-consumer",
        &shared.signal,
    )?;
    if let Some(hook) = &shared.hooks.offset_sync_store_reading {
        hook(&shared.signal);
    }
    write_syncs(shared).begin_initial_load(pessimistic);
    let outcome = log.read_to_end(&mut |key, value| apply_sync(shared, &topic, key, value));
    match outcome {
        Ok(ReadToEnd::Reached) => {}
        Ok(ReadToEnd::TopicMissing) => log::warn!(
            "offset-syncs topic `{topic}` does not exist yet; translating nothing until syncs arrive"
        ),
        Err(Error::Stopped) => {
            leftovers.push(Box::new(log));
            return Err(JobError::Stopped);
        }
        Err(e) => {
            leftovers.push(Box::new(log));
            return Err(e.into());
        }
    }
    write_syncs(shared).mark_read_to_end();
    Ok(log)
}

fn write_syncs(shared: &Shared) -> std::sync::RwLockWriteGuard<'_, OffsetSyncStore> {
    shared
        .syncs
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_syncs(shared: &Shared) -> std::sync::RwLockReadGuard<'_, OffsetSyncStore> {
    shared
        .syncs
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn apply_sync(shared: &Shared, topic: &str, key: Option<&[u8]>, value: Option<&[u8]>) {
    match OffsetSync::decode(key, value) {
        Ok(sync) => {
            write_syncs(shared).handle_sync(&sync);
            shared.counters.syncs_loaded.fetch_add(1, Ordering::SeqCst);
        }
        Err(e) => shared.skipped(topic, &e),
    }
}

/// The offset-syncs tail thread: applies new syncs until stopped, then hands the log back so the
/// stopper closes its consumer after the join.
fn tail_offset_syncs(shared: &Shared, mut log: KafkaBasedLog) -> KafkaBasedLog {
    let topic = log.topic().to_string();
    while !shared.signal.is_stopped() {
        log.poll_once(Duration::from_secs(1), &mut |key, value| {
            apply_sync(shared, &topic, key, value)
        });
    }
    log
}

/// MM2's group refresh, live: list the groups, keep those passing the group filter and hashed to
/// this task, and of those keep the ones with a committed offset on a replicated topic. Only
/// groups not yet adopted have their offsets fetched here; adopted groups are re-checked by every
/// checkpoint cycle (which fetches their offsets anyway), so a steady group costs no extra
/// request per refresh. Adopting or dropping a group needs no restart and no store reload.
fn discover_groups(shared: &Shared, admin: &mut Admin) -> Result<(), JobError> {
    let listed = admin.list_groups()?;
    let mut candidates: Vec<String> = listed
        .into_iter()
        .filter(|g| shared.should_handle_group(g))
        .collect();
    candidates.sort();
    candidates.dedup();
    let adopted_before = shared.groups_snapshot();
    let unknown: Vec<String> = candidates
        .iter()
        .filter(|g| adopted_before.binary_search(g).is_err())
        .cloned()
        .collect();
    let mut newly_adopted = BTreeSet::new();
    if !unknown.is_empty() {
        let fetched = fetch_committed(shared, admin, &unknown);
        shared.note_fetches_in_flight(admin);
        for (group, result) in fetched? {
            match result {
                Ok(offsets) if shared.has_replicated_commit(&offsets) => {
                    newly_adopted.insert(group);
                }
                Ok(_) => log::debug!(
                    "group `{group}` has no committed offset on a replicated topic; not checkpointing it"
                ),
                Err(e) => log::warn!(
                    "fetching committed offsets of group `{group}` on `{}`: {e}; will retry at the next refresh",
                    shared.config.source_cluster_alias
                ),
            }
        }
    }
    let mut current = shared
        .groups
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Decided against the list as it is now: a cycle may have dropped a group meanwhile.
    let groups: Vec<String> = candidates
        .into_iter()
        .filter(|g| current.binary_search(g).is_ok() || newly_adopted.contains(g))
        .collect();
    if *current != groups {
        let gone: Vec<String> = current
            .iter()
            .filter(|g| groups.binary_search(g).is_err())
            .cloned()
            .collect();
        log::info!(
            "now checkpointing {} groups (was {}; {} adopted, {} dropped)",
            groups.len(),
            current.len(),
            newly_adopted.len(),
            gone.len()
        );
        *current = groups;
        drop(current);
        shared.forget_groups(&gone);
    }
    Ok(())
}

/// Committed offsets of `groups` on the source, batched. Some brokers (librdkafka's mock among
/// them) answer "all partitions" with nothing; groups that came back empty are asked again for
/// the partitions offset syncs exist for, since only those can be translated anyway.
fn fetch_committed(
    shared: &Shared,
    admin: &mut Admin,
    groups: &[String],
) -> Result<Vec<(String, GroupOffsetsResult)>, Error> {
    let c = &shared.config;
    let mut committed = admin.list_group_offsets(groups, None, MAX_OFFSET_FETCHES_IN_FLIGHT)?;
    let empty: Vec<String> = committed
        .iter()
        .filter(|(_, r)| r.as_ref().is_ok_and(|m| m.is_empty()))
        .map(|(g, _)| g.clone())
        .collect();
    if empty.is_empty() {
        return Ok(committed);
    }
    let known: Vec<TopicPartition> = read_syncs(shared)
        .partitions()
        .map(|(tp, _)| tp.clone())
        .filter(|tp| c.topic_filter.should_replicate_topic(&tp.topic))
        .collect();
    if !known.is_empty() {
        let again = admin.list_group_offsets(&empty, Some(&known), MAX_OFFSET_FETCHES_IN_FLIGHT)?;
        let again: BTreeMap<String, _> = again.into_iter().collect();
        for (group, result) in committed.iter_mut() {
            if let Some(r) = again.get(group) {
                *result = r.clone();
            }
        }
    }
    Ok(committed)
}

/// One checkpoint cycle on the polling thread.
fn run_cycle(shared: &Shared, poller: &mut Poller) -> Result<Vec<Checkpoint>, Error> {
    let began = Instant::now();
    let result = run_cycle_inner(shared, poller);
    shared
        .counters
        .last_cycle_us
        .store(began.elapsed().as_micros().max(1) as u64, Ordering::SeqCst);
    if let Some(admin) = poller.source_admin.as_ref() {
        shared.note_fetches_in_flight(admin);
    }
    result
}

fn run_cycle_inner(shared: &Shared, poller: &mut Poller) -> Result<Vec<Checkpoint>, Error> {
    let c = &shared.config;
    shared.counters.cycles.fetch_add(1, Ordering::SeqCst);
    let groups: Vec<String> = shared
        .groups_snapshot()
        .into_iter()
        .filter(|g| c.assigned_groups.is_some() || shared.should_handle_group(g))
        .collect();
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    if poller.source_admin.is_none() {
        poller.source_admin = Some(Admin::open(
            &c.source_admin_config(),
            &c.source_cluster_alias,
            "checkpoint-source-admin",
            c.admin_timeout,
            &shared.signal,
        )?);
    }
    if poller.producer.is_none() {
        poller.producer = Some(CheckpointProducer::open(
            &c.target_producer_config(),
            &c.checkpoints_topic(),
            &shared.signal,
        )?);
    }
    let (Some(admin), Some(producer)) = (poller.source_admin.as_mut(), poller.producer.as_mut())
    else {
        return Err(Error::InvalidState("poll clients missing".into()));
    };
    let committed = fetch_committed(shared, admin, &groups)?;
    let rename = |tp: &TopicPartition| {
        checkpoint_topic_partition(
            &shared.policy,
            &c.source_cluster_alias,
            &c.target_cluster_alias,
            tp,
        )
    };
    let mut pending: Vec<(Checkpoint, TopicPartition)> = Vec::new();
    let mut records = Vec::new();
    let mut processed_groups = Vec::new();
    let mut no_longer_replicated = Vec::new();
    for (group, result) in committed {
        let offsets = match result {
            Ok(o) => o,
            Err(e) => {
                log::error!(
                    "fetching committed offsets of group `{group}` on `{}`: {e}",
                    c.source_cluster_alias
                );
                continue;
            }
        };
        if c.assigned_groups.is_none() && !shared.has_replicated_commit(&offsets) {
            // Discovered groups must keep a commit on a replicated topic (MM2's refresh drops
            // them otherwise); the next discovery re-checks it.
            no_longer_replicated.push(group);
            continue;
        }
        log::debug!(
            "group `{group}`: {} committed partitions on the source",
            offsets.len()
        );
        let ts = now_ms();
        let last = lock(&shared.checkpoints).get(&group).cloned();
        let decided = {
            let syncs = read_syncs(shared);
            checkpoints_for_group(
                &group,
                &offsets,
                &c.topic_filter,
                &syncs,
                &rename,
                last.as_ref(),
            )
        };
        let mut statuses = lock(&shared.statuses);
        for (upstream, reason) in decided.skipped {
            let key = (group.clone(), upstream.clone());
            let entry = statuses.entry(key).or_insert_with(|| PartitionStatus {
                group: group.clone(),
                topic_partition: upstream,
                last_checkpoint: None,
                reason: None,
            });
            entry.reason = Some(reason.as_str().to_string());
        }
        drop(statuses);
        for (_target, (cp, _why)) in decided.emitted {
            let key = cp.encode_key();
            let value = cp.encode_value();
            match (key, value) {
                (Ok(k), Ok(v)) => {
                    let upstream = upstream_of(&offsets, &cp, &rename);
                    records.push((k, v, ts));
                    pending.push((cp, upstream));
                }
                (Err(e), _) | (_, Err(e)) => log::error!("cannot encode checkpoint {cp:?}: {e}"),
            }
        }
        processed_groups.push(group);
    }
    if !no_longer_replicated.is_empty() {
        shared.drop_groups(&no_longer_replicated);
    }
    let outcomes = if records.is_empty() {
        Vec::new()
    } else {
        producer.send_all(&records)?
    };
    let mut delivered: BTreeMap<String, Vec<Checkpoint>> = BTreeMap::new();
    for g in processed_groups {
        delivered.entry(g).or_default();
    }
    let mut batch = Vec::new();
    let mut statuses = lock(&shared.statuses);
    for ((cp, upstream), outcome) in pending.into_iter().zip(outcomes) {
        match outcome {
            Ok(()) => {
                let status = statuses
                    .entry((cp.consumer_group_id.clone(), upstream.clone()))
                    .or_insert_with(|| PartitionStatus {
                        group: cp.consumer_group_id.clone(),
                        topic_partition: upstream,
                        last_checkpoint: None,
                        reason: None,
                    });
                status.last_checkpoint = Some(cp.clone());
                status.reason = None;
                delivered
                    .entry(cp.consumer_group_id.clone())
                    .or_default()
                    .push(cp.clone());
                batch.push(cp);
            }
            Err(e) => log::warn!(
                "checkpoint for group `{}` {} not delivered: {e}; will retry next cycle",
                cp.consumer_group_id,
                cp.topic_partition
            ),
        }
    }
    drop(statuses);
    // Recorded only once delivered, so a failed write is retried (MM2 records before sending).
    let mut store = lock(&shared.checkpoints);
    for (group, cps) in delivered {
        store.update(&group, cps);
    }
    shared
        .counters
        .checkpoints_emitted
        .fetch_add(batch.len() as u64, Ordering::SeqCst);
    Ok(batch)
}

fn upstream_of(
    offsets: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
    cp: &Checkpoint,
    rename: &dyn Fn(&TopicPartition) -> TopicPartition,
) -> TopicPartition {
    offsets
        .keys()
        .find(|tp| rename(tp) == cp.topic_partition)
        .cloned()
        .unwrap_or_else(|| cp.topic_partition.clone())
}

/// MM2's idle-group refresh and group offset sync, in one job on the scheduler thread. Writes
/// only into groups proven EMPTY (or absent) on the target, never backwards, and waits for the
/// broker's answer (MM2 fires and forgets).
fn sync_group_offsets(shared: &Shared, admin: &mut Admin) -> Result<(), JobError> {
    let converted = lock(&shared.checkpoints).converted_upstream_offsets();
    if converted.is_empty() {
        return Ok(());
    }
    let groups: Vec<String> = converted.keys().cloned().collect();
    let states: BTreeMap<String, NativeGroupState> = match admin.describe_groups(&groups) {
        Ok(descs) => descs
            .into_iter()
            .map(|d| {
                let state = if d.error.is_some() {
                    NativeGroupState::Unknown
                } else {
                    d.state
                };
                (d.group, state)
            })
            .collect(),
        Err(Error::Stopped) => return Err(JobError::Stopped),
        Err(e) => {
            log::warn!("cannot describe target groups ({e}); not syncing group offsets this cycle");
            BTreeMap::new()
        }
    };
    let mut results = Vec::new();
    for (group, offsets) in converted {
        let state = match states
            .get(&group)
            .copied()
            .unwrap_or(NativeGroupState::Unknown)
        {
            NativeGroupState::Empty => {
                let target = admin.list_group_offsets(std::slice::from_ref(&group), None, 1)?;
                match target.into_iter().next().map(|(_, r)| r) {
                    Some(Ok(map)) => TargetGroupState::Empty {
                        committed: map
                            .into_iter()
                            .map(|(tp, o)| (tp, o.map(|o| o.offset)))
                            .collect(),
                    },
                    _ => TargetGroupState::Unknown,
                }
            }
            NativeGroupState::Dead => TargetGroupState::Absent,
            NativeGroupState::Stable
            | NativeGroupState::PreparingRebalance
            | NativeGroupState::CompletingRebalance => TargetGroupState::Active,
            NativeGroupState::Unknown => TargetGroupState::Unknown,
        };
        let decisions = target_offset_sync(&offsets, &state);
        let mut writes = Vec::new();
        for d in decisions {
            match d {
                OffsetSyncDecision::Write {
                    partition,
                    offset,
                    reason,
                } => {
                    writes.push((partition, offset, reason.as_str()));
                }
                OffsetSyncDecision::Skip { partition, reason } => {
                    results.push(GroupOffsetSyncResult {
                        group: group.clone(),
                        topic_partition: partition,
                        written_offset: None,
                        reason: reason.as_str().to_string(),
                        error: None,
                    })
                }
            }
        }
        if writes.is_empty() {
            continue;
        }
        let request: Vec<(TopicPartition, CommittedOffset)> = writes
            .iter()
            .map(|(tp, o, _)| (tp.clone(), o.clone()))
            .collect();
        let answer = admin.alter_group_offsets(&group, &request);
        let errors: BTreeMap<TopicPartition, Option<String>> = match &answer {
            Ok(per_partition) => per_partition.iter().cloned().collect(),
            Err(Error::Stopped) => return Err(JobError::Stopped),
            Err(e) => writes
                .iter()
                .map(|(tp, _, _)| (tp.clone(), Some(e.to_string())))
                .collect(),
        };
        for (tp, offset, reason) in writes {
            let error = errors.get(&tp).cloned().flatten();
            if error.is_none() {
                shared
                    .counters
                    .group_offsets_written
                    .fetch_add(1, Ordering::SeqCst);
            } else {
                log::warn!(
                    "writing offset {} for group `{group}` {tp} on the target failed: {error:?}",
                    offset.offset
                );
            }
            results.push(GroupOffsetSyncResult {
                group: group.clone(),
                topic_partition: tp,
                written_offset: error.is_none().then_some(offset.offset),
                reason: reason.to_string(),
                error,
            });
        }
    }
    let mut report = lock(&shared.group_sync);
    for r in results {
        report.insert((r.group.clone(), r.topic_partition.clone()), r);
    }
    Ok(())
}
