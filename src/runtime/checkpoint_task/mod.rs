//! MM2's `MirrorCheckpointTask`, as a blocking-thread runtime whose stop cannot race its start-up.
//!
//! Threads and what they own (each Kafka client has exactly one owner at a time):
//! - the **scheduler thread** runs the start-up job (create the checkpoints topic, load the
//!   checkpoint store, load the offset-sync store, discover the groups once) and then the
//!   periodic group discovery and group-offset sync; it owns the start-up consumers and the
//!   admin clients;
//! - the **offset-syncs tail thread** owns the offset-syncs consumer after the initial load;
//! - the **caller of [`CheckpointTask::poll`]** owns the source admin and the checkpoint producer,
//!   behind a lock that admits one poll at a time.
//!
//! Threads share only data: the offset-sync store, the checkpoint store, counters and reports.
//! [`CheckpointTask::stop`] sets the stop flag, wakes every blocked client call, joins every
//! thread, and only then closes the clients (KAFKA-21435 cannot happen: there is no moment at
//! which a client is closed while a thread may be inside it).

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, TryLockError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::runtime::metrics::reporter::{self, MetricsListener};
use crate::runtime::metrics::MetricsSnapshot;
use crate::runtime::scheduler::{record_fatal, Scheduler};
use crate::runtime::thread_names::{ThreadNames, ROLES};
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::checkpoint_rules::CommittedOffset;
use mm2_checkpoint_core::checkpoint_store::CheckpointStore;
use mm2_checkpoint_core::error::{ConfigError, Error, RecordError};
use mm2_checkpoint_core::group_assignment::owns_group;
use mm2_checkpoint_core::mirror_checkpoint_config::{
    check_client_files, client_setting_conflict, ClientKind, Cluster, MirrorCheckpointConfig,
};
use mm2_checkpoint_core::offset_sync_store::OffsetSyncStore;
use mm2_checkpoint_core::replication_policy::ReplicationPolicy;
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::Admin;
use mm2_checkpoint_kafka::checkpoint_producer::CheckpointProducer;
use mm2_checkpoint_kafka::diagnostics::Diagnostics;
use mm2_checkpoint_kafka::failure::{check_client_settings, RetryStatus};
use mm2_checkpoint_kafka::library_thread::{panic_message, LibraryThread};
use mm2_checkpoint_kafka::mutex::lock;
use mm2_checkpoint_kafka::stop_signal::StopSignal;
use mm2_checkpoint_kafka::task_scope::{new_task_id, TaskScope};

mod checkpoint_cycle;
pub(crate) mod decisions;
#[cfg(feature = "internals")]
pub mod faults;
#[cfg(not(feature = "internals"))]
mod faults;
mod group_coordination;
mod group_discovery;
mod group_fetch_failures;
mod group_offset_sync;
mod other_writers;
mod startup;
mod stream_source;
mod task_metrics;

use checkpoint_cycle::run_cycle;
use group_coordination::Coordination;
use group_fetch_failures::GroupRetries;
mod hooks;
#[cfg(not(feature = "internals"))]
use hooks::StartupHooks;
#[cfg(feature = "internals")]
pub use hooks::{RebalanceHook, StartupHook, StartupHooks};
use startup::startup;

/// The periodic jobs' names (their retries are counted under them).
const GROUP_DISCOVERY: &str = "group discovery";
const GROUP_OFFSET_SYNC: &str = "group offset sync";

/// A period long enough to mean "not again".
const NEVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Committed-offset requests kept in flight at once during a checkpoint cycle or a group
/// discovery (librdkafka takes one group per request).
pub const MAX_OFFSET_FETCHES_IN_FLIGHT: usize = 64;

/// Admin clients (broker connections) a checkpoint cycle spreads its committed-offset fetches
/// over: a broker answers one connection's requests one at a time.
const OFFSET_FETCH_CONNECTIONS: usize = 4;

/// Result of one [`CheckpointTask::poll`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PollStatus {
    /// A checkpoint cycle ran; the outcome holds the checkpoints it wrote, often none (a quiet
    /// cycle: no group moved).
    CycleDone,
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

/// Per-task counters (see also [`mm2_checkpoint_kafka::diagnostics`] for process-wide ones).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskStats {
    /// True once both stores finished loading (and, without assigned groups, the first group
    /// discovery ran).
    pub initialized: bool,
    /// Checkpoints written and confirmed.
    pub checkpoints_emitted: u64,
    /// Malformed records skipped in the offset-syncs and checkpoints topics.
    pub records_skipped: u64,
    /// Offset syncs applied (initial load and tailing).
    pub syncs_loaded: u64,
    /// Offset syncs of the reverse flow applied, for reverse checkpoints (0 when they are off).
    pub reverse_syncs_loaded: u64,
    /// Checkpoints read back from the target at start: one per group and partition of this
    /// task's groups (the last record of each), however many records the topic held.
    pub checkpoints_loaded: u64,
    /// Whether those checkpoints loaded successfully (otherwise translation starts pessimistic).
    pub checkpoints_load_ok: bool,
    /// Time from start to [`initialized`](Self::initialized).
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
    /// While start-up is waiting on a cluster, why (e.g. "target cluster `B` unreachable for
    /// 30 s: …" or "start-up failed, retrying in 2.0 s: …"); once loaded, why a periodic job
    /// (group discovery, group offset sync) failed at its last run, until a run succeeds
    /// ("group discovery failed, retrying at its next run: …"), and groups whose committed
    /// offsets could not be fetched for a reason retrying can fix (a coordinator loading or
    /// moving, a timeout, the network), until their next fetch succeeds ("fetching committed
    /// offsets of group `g` on `A`: …; retrying at the next checkpoint cycle"); `None` while
    /// nothing is being retried. A failure that retrying cannot fix is a fatal error instead.
    pub retry_reason: Option<String>,
    /// Group offset fetches the group's own ACL denied (GROUP_AUTHORIZATION_FAILED), in
    /// checkpoint cycles, discoveries and group offset syncs: each is logged as an error and
    /// skips that group until a later run, as Java's task does.
    pub group_fetches_denied: u64,
    /// When the last group discovery found no group to checkpoint because a filter matched
    /// nothing, which filter and what it was offered (e.g. "the topic filter (…) matched none
    /// of the topics the groups on `A` committed offsets on (1 seen)"); `None` otherwise.
    pub filter_miss: Option<String>,
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

#[derive(Default)]
struct Counters {
    checkpoints_emitted: AtomicU64,
    records_skipped: AtomicU64,
    syncs_loaded: AtomicU64,
    reverse_syncs_loaded: AtomicU64,
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
    /// This task's name in the writer header of its checkpoint records.
    writer: String,
    config: MirrorCheckpointConfig,
    /// The names of the task's threads.
    threads: ThreadNames,
    /// When the next full cycle is due: the polling thread's schedule, which any thread may read.
    next_full_cycle: Mutex<Option<Instant>>,
    emit_interval: Duration,
    policy: ReplicationPolicy,
    signal: StopSignal,
    syncs: RwLock<OffsetSyncStore>,
    /// The reverse flow's offset syncs, for reverse checkpoints (empty unless they are on).
    reverse_syncs: RwLock<OffsetSyncStore>,
    checkpoints: Mutex<CheckpointStore>,
    initialized: AtomicBool,
    fatal: Arc<Mutex<Option<String>>>,
    retry: RetryStatus,
    /// Why a periodic job (group discovery, group offset sync) failed at its last run, until
    /// it succeeds again.
    jobs_retry: RetryStatus,
    /// A checkpoint cycle's request left unanswered for long ("cluster `A`: no answer to
    /// OffsetFetch … for N s"), while the wait lasts.
    slow_answer: RetryStatus,
    counters: Counters,
    groups: RwLock<Vec<String>>,
    statuses: Mutex<BTreeMap<(String, TopicPartition), PartitionStatus>>,
    group_sync: Mutex<BTreeMap<(String, TopicPartition), GroupOffsetSyncResult>>,
    tail: Mutex<Option<LibraryThread<startup::TailedLogs>>>,
    coordination: Option<Coordination>,
    skip_causes_logged: Mutex<BTreeSet<String>>,
    /// Whether the group filter, resp. the topic filter, matched nothing at the last discovery
    /// (so the warning is logged once per episode, not at every refresh).
    group_filter_missed: AtomicBool,
    topic_filter_missed: AtomicBool,
    /// Why the last group discovery found no group to checkpoint, when a filter matched nothing.
    filter_miss: Mutex<Option<String>>,
    /// The untranslatable partitions already explained at info, so each is explained once.
    skip_explanations: Mutex<decisions::SkipExplanations>,
    /// What the last group offset sync did, so an unchanged outcome is not repeated at info.
    last_sync_summary: Mutex<Option<decisions::SyncSummary>>,
    hooks: StartupHooks,
    /// Groups whose committed offsets could not be fetched, per job, and why.
    group_retries: GroupRetries,
    faults: faults::Faults,
    /// What the cycles and jobs record for [`CheckpointTask::metrics`].
    metrics: task_metrics::MetricsRecorder,
}

enum Lifecycle {
    Created,
    Running(Scheduler),
    Stopped,
}

#[derive(Default)]
struct Poller {
    source_admins: Vec<Admin>,
    producer: Option<CheckpointProducer>,
    /// The `__consumer_offsets` stream (`group.offsets.source = consumer-offsets-topic`).
    stream: stream_source::StreamSource,
    /// The check for other writers of the same checkpoints, made with the producer.
    other_writers: Option<other_writers::OtherWriters>,
}

/// A checkpoint task: `start`, then `poll` repeatedly, then `stop`. All methods take `&self`;
/// `stop` may be called from any thread, also while another thread is inside `poll`.
pub struct CheckpointTask {
    /// The task's id in the process ([`CheckpointTask::id`]).
    id: u64,
    shared: Arc<Shared>,
    lifecycle: Mutex<Lifecycle>,
    stopped: AtomicBool,
    started: AtomicBool,
    poller: Mutex<Poller>,
    /// Set before start; taken by the statistics thread at start.
    listener: Mutex<Option<MetricsListener>>,
    stats_thread: Mutex<Option<LibraryThread<()>>>,
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
        Self::build(config, StartupHooks::default())
    }

    /// Like [`new`](Self::new), with start-up hooks for tests (feature `internals`).
    #[cfg(feature = "internals")]
    pub fn with_hooks(config: MirrorCheckpointConfig, hooks: StartupHooks) -> Result<Self, Error> {
        Self::build(config, hooks)
    }

    fn build(config: MirrorCheckpointConfig, hooks: StartupHooks) -> Result<Self, Error> {
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
        check_client_configs(&config)?;
        let groups = config.assigned_groups.clone().unwrap_or_default();
        let id = new_task_id();
        let shared = Arc::new(Shared {
            writer: other_writers::writer_name(id),
            coordination: Coordination::for_assignment(&config.task_assignment),
            threads: ThreadNames::new(&config.source_cluster_alias, &config.target_cluster_alias),
            next_full_cycle: Mutex::new(None),
            config,
            emit_interval,
            policy,
            signal: StopSignal::new(),
            syncs: RwLock::new(OffsetSyncStore::new()),
            reverse_syncs: RwLock::new(OffsetSyncStore::new()),
            checkpoints: Mutex::new(CheckpointStore::new()),
            initialized: AtomicBool::new(false),
            fatal: Arc::new(Mutex::new(None)),
            retry: RetryStatus::default(),
            jobs_retry: RetryStatus::default(),
            slow_answer: RetryStatus::default(),
            counters: Counters::default(),
            groups: RwLock::new(groups),
            statuses: Mutex::new(BTreeMap::new()),
            group_sync: Mutex::new(BTreeMap::new()),
            tail: Mutex::new(None),
            skip_causes_logged: Mutex::new(BTreeSet::new()),
            group_filter_missed: AtomicBool::new(false),
            filter_miss: Mutex::new(None),
            skip_explanations: Mutex::new(decisions::SkipExplanations::default()),
            last_sync_summary: Mutex::new(None),
            topic_filter_missed: AtomicBool::new(false),
            hooks,
            group_retries: GroupRetries::default(),
            faults: faults::Faults::default(),
            metrics: task_metrics::MetricsRecorder::default(),
        });
        Ok(CheckpointTask {
            id,
            shared,
            lifecycle: Mutex::new(Lifecycle::Created),
            stopped: AtomicBool::new(false),
            started: AtomicBool::new(false),
            poller: Mutex::new(Poller::default()),
            listener: Mutex::new(None),
            stats_thread: Mutex::new(None),
        })
    }

    /// The task's id: unique in the process, never 0. Records logged by the task's threads, and
    /// inside its `start`, `poll` and `stop`, are logged while [`current_task_id`] returns it,
    /// so a logger serving several tasks can tell them apart (a Connect worker puts each
    /// connector's context on its lines this way).
    ///
    /// [`current_task_id`]: crate::current_task_id
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The task's stop signal (for observing the stop sequence in tests; feature `internals`).
    #[cfg(feature = "internals")]
    pub fn stop_signal(&self) -> &StopSignal {
        &self.shared.signal
    }

    /// Starts the scheduler thread, which loads the stores; returns at once (MM2's KAFKA-17242
    /// fix: start never blocks on Kafka). A task starts once; start after stop is an error.
    pub fn start(&self) -> Result<(), Error> {
        let _scope = TaskScope::enter(self.id);
        let mut lc = lock(&self.lifecycle);
        match &*lc {
            Lifecycle::Created => {}
            Lifecycle::Running(_) => return Err(Error::AlreadyStarted),
            Lifecycle::Stopped => return Err(Error::AlreadyStopped),
        }
        let shared = Arc::clone(&self.shared);
        if let Some(legend) = shared.threads.legend(&ROLES) {
            log::info!("{legend}");
        }
        let scheduler = Scheduler::start(
            shared.threads.of("cycle"),
            shared.signal.clone(),
            Arc::clone(&shared.fatal),
            shared.retry.clone(),
            shared.jobs_retry.clone(),
            Box::new(move |leftovers| startup(&shared, leftovers)),
        )?;
        if let Err(e) = group_coordination::start(&self.shared).and_then(|()| self.start_reporter())
        {
            // Half started: stop what did start, in the usual order; the task stays stopped.
            self.shared.signal.stop();
            let stats = lock(&self.stats_thread).take().map(|t| t.join());
            let leftovers = scheduler.join();
            let tail = lock(&self.shared.tail).take().map(|t| t.join());
            drop((stats, leftovers, tail));
            *lc = Lifecycle::Stopped;
            self.stopped.store(true, Ordering::SeqCst);
            return Err(e);
        }
        *lc = Lifecycle::Running(scheduler);
        self.started.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Starts the statistics thread when a listener is set and `statistics.interval.ms` is not 0.
    fn start_reporter(&self) -> Result<(), Error> {
        let (Some(interval), Some(listener)) = (
            self.shared.config.statistics_interval,
            lock(&self.listener).take(),
        ) else {
            return Ok(());
        };
        let shared = Arc::clone(&self.shared);
        let name = shared.threads.of("stats");
        let thread = reporter::start(
            name,
            interval,
            &self.shared.signal,
            move || shared.metrics(),
            listener,
        )
        .map_err(|e| Error::Thread(format!("starting the statistics thread: {e}")))?;
        *lock(&self.stats_thread) = Some(thread);
        Ok(())
    }

    /// Sets (or, with `None`, removes) the listener that receives a [`MetricsSnapshot`] every
    /// `statistics.interval.ms` once the task starts, on a thread of the task's own, until the
    /// task stops. The listener holds no lock of the task and may call its read-only methods
    /// ([`metrics`](Self::metrics), [`stats`](Self::stats), …); [`stop`](Self::stop) called from
    /// it is refused (stop waits for that thread). A panic in the listener is logged and the
    /// next interval calls it again. With `statistics.interval.ms = 0` (the default) the
    /// listener is never called.
    ///
    /// Only before [`start`](Self::start): [`Error::AlreadyStarted`] on a running task,
    /// [`Error::AlreadyStopped`] on a stopped one.
    pub fn set_metrics_listener(&self, listener: Option<MetricsListener>) -> Result<(), Error> {
        let lc = lock(&self.lifecycle);
        match &*lc {
            Lifecycle::Created => {}
            Lifecycle::Running(_) => return Err(Error::AlreadyStarted),
            Lifecycle::Stopped => return Err(Error::AlreadyStopped),
        }
        *lock(&self.listener) = listener;
        Ok(())
    }

    /// A reading of the task's metrics (see [`crate::metrics`]): MM2's `checkpoint-latency-ms`,
    /// freshness and replay bound per group and partition, and the task-wide counts.
    /// Non-blocking (it takes the task's report locks briefly, never a Kafka call); any thread,
    /// at any time, also before start and after stop.
    pub fn metrics(&self) -> MetricsSnapshot {
        self.shared.metrics()
    }

    /// Waits up to `timeout` for the next checkpoint cycle (due every
    /// `emit.checkpoints.interval.seconds`, the first as soon as the stores are loaded), runs it,
    /// and returns the checkpoints it wrote. Blocks; returns promptly with
    /// [`PollStatus::Stopped`] when another thread stops the task. One poll at a time.
    pub fn poll(&self, timeout: Duration) -> Result<PollOutcome, Error> {
        let _scope = TaskScope::enter(self.id);
        if !self.started.load(Ordering::SeqCst) {
            return Err(Error::NotStarted);
        }
        // Checked before the poll lock too: `stop` holds that lock while it closes the clients,
        // and a poll arriving then must say Stopped, not "already running".
        if self.stopped.load(Ordering::SeqCst) {
            return Ok(PollOutcome::status(PollStatus::Stopped));
        }
        let mut poller = match self.poller.try_lock() {
            Ok(poller) => poller,
            Err(TryLockError::WouldBlock) => return Err(Error::Busy),
            // A poll panicked while holding the clients: the task is failed, not busy.
            Err(TryLockError::Poisoned(_)) => {
                self.shared
                    .record_fatal("an earlier poll panicked; the task cannot go on".into());
                return Ok(PollOutcome::status(PollStatus::Failed));
            }
        };
        if self.stopped.load(Ordering::SeqCst) {
            return Ok(PollOutcome::status(PollStatus::Stopped));
        }
        // A panic inside the poll fails the task; the poller lock is left poisoned, so later
        // polls say Failed too.
        match catch_unwind(AssertUnwindSafe(|| self.poll_locked(&mut poller, timeout))) {
            Ok(outcome) => outcome,
            Err(panic) => {
                self.shared
                    .record_fatal(format!("poll panicked: {}", panic_message(&*panic)));
                drop(poller);
                Ok(PollOutcome::status(PollStatus::Failed))
            }
        }
    }

    fn poll_locked(&self, poller: &mut Poller, timeout: Duration) -> Result<PollOutcome, Error> {
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
        poller.stream.ensure_started(shared);
        let due = *lock(&shared.next_full_cycle).get_or_insert_with(Instant::now);
        // Groups just adopted from another process get their cycle now, not an interval later;
        // so do commits the stream brought (a cycle over the changed groups only).
        let adopted = || shared.adopted_since_cycle();
        let committed = || poller.stream.has_changes();
        match shared
            .signal
            .wait_until(deadline.min(due), || adopted() || committed())
        {
            None => return Ok(PollOutcome::status(PollStatus::Stopped)),
            Some(_) if Instant::now() < due && !adopted() && !committed() => {
                return Ok(PollOutcome::status(PollStatus::NotDue))
            }
            Some(_) => {}
        }
        let full = Instant::now() >= due || adopted();
        poller.stream.set_partial(!full);
        if full {
            *lock(&shared.next_full_cycle) = Some(Instant::now() + shared.emit_interval);
        }
        #[cfg(feature = "internals")]
        shared.faults.hit(faults::Fault::PollPanics);
        match run_cycle(shared, poller) {
            Ok(checkpoints) => Ok(PollOutcome {
                status: PollStatus::CycleDone,
                checkpoints,
            }),
            Err(Error::Stopped) => Ok(PollOutcome::status(PollStatus::Stopped)),
            Err(e @ Error::Fatal { .. }) => {
                shared.record_fatal(format!("checkpoint cycle failed: {e}"));
                Ok(PollOutcome::status(PollStatus::Failed))
            }
            Err(e) => Err(e),
        }
    }

    /// How long until the next full checkpoint cycle is due (zero when it is due now): every
    /// `emit.checkpoints.interval.seconds` from the last full one. A cycle run early (groups
    /// adopted, or commits the offsets stream brought, which cover only the changed groups)
    /// does not move it. `None` before the first cycle and after the stop. Non-blocking; any
    /// thread.
    pub fn next_cycle_in(&self) -> Option<Duration> {
        if self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        let due = (*lock(&self.shared.next_full_cycle))?;
        Some(due.saturating_duration_since(Instant::now()))
    }

    /// Stops the task: sets the stop flag, wakes every blocked client call and sleeper, joins
    /// every library thread, waits for a running poll to return, and only then closes the Kafka
    /// clients. When it returns, no thread of this task is alive and all its clients are
    /// destroyed. Idempotent; callable from any thread. Errors only when the task never started.
    pub fn stop(&self) -> Result<StopOutcome, Error> {
        if reporter::in_listener() {
            return Err(Error::InvalidState(
                "stop was called from the metrics listener, which runs on a thread stop must join; stop the task from another thread".into(),
            ));
        }
        let _scope = TaskScope::enter(self.id);
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
        let stats = lock(&self.stats_thread).take().map(|t| t.join());
        shared.signal.observe("joined stats");
        let leftovers = scheduler.join();
        shared.signal.observe("joined scheduler");
        let tail = lock(&shared.tail).take().map(|t| t.join());
        shared.signal.observe("joined tail");
        let coordination = shared.coordination.as_ref().and_then(|c| c.join());
        shared.signal.observe("joined coordination");
        let mut poller = self.poller.lock().unwrap_or_else(PoisonError::into_inner);
        shared.signal.observe("poll returned");
        drop(stats);
        drop(leftovers);
        drop(tail);
        // Leaves the coordination group only now: no thread of this task can use its
        // partitions any more, so the next owner never overlaps with us.
        if let Some(c) = coordination {
            c.close();
        }
        poller.stream.close();
        poller.source_admins.clear();
        poller.producer = None;
        poller.other_writers = None;
        let took = began.elapsed();
        shared
            .counters
            .last_stop_us
            .store(took.as_micros() as u64, Ordering::SeqCst);
        log::info!("checkpoint task stopped in {took:?}");
        Ok(StopOutcome::Stopped(took))
    }

    /// What [`stop`](Self::stop) does first, without waiting: sets the stop flag and wakes
    /// every blocked call of a started task. `stop` then joins and closes. Lets one stop of
    /// several tasks take as long as the slowest, not the sum.
    pub(crate) fn begin_stop(&self) {
        if self.started.load(Ordering::SeqCst) {
            self.shared.signal.stop();
        }
    }

    /// The error that stopped the task's work, if any (a job failure or panic).
    pub fn fatal_error(&self) -> Option<String> {
        lock(&self.shared.fatal).clone()
    }

    /// This task's live clients and threads, and overlapping calls on its clients (the
    /// process-wide totals are in [`crate::diagnostics`]). After [`stop`](Self::stop) returns,
    /// all are zero.
    pub fn diagnostics(&self) -> Diagnostics {
        self.shared.signal.counts().snapshot()
    }

    /// While start-up waits on a cluster, or a periodic job waits to retry, why (see
    /// [`TaskStats::retry_reason`]).
    /// `None` once [`stop`](Self::stop) has begun: a stopped task retries nothing.
    pub fn retry_reason(&self) -> Option<String> {
        if self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        self.shared.retry_reason()
    }

    /// Benchmark hook (feature `internals`): turns the checkpoint cycles' per-partition metrics
    /// recording off (`false`) or back on, to measure what it costs. On by default.
    #[cfg(feature = "internals")]
    pub fn set_metrics_recording(&self, on: bool) {
        self.shared.metrics.set_recording(on);
    }

    /// Arms `fault`: the task meets it the next time it gets there (tests of the failure
    /// paths).
    #[cfg(feature = "internals")]
    pub fn inject_fault(&self, fault: faults::Fault) {
        self.shared.faults.arm(fault);
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
            reverse_syncs_loaded: c.reverse_syncs_loaded.load(Ordering::SeqCst),
            checkpoints_loaded: c.checkpoints_loaded.load(Ordering::SeqCst),
            checkpoints_load_ok: c.checkpoints_load_ok.load(Ordering::SeqCst),
            load_time: us(&c.load_time_us),
            last_stop_time: us(&c.last_stop_us),
            cycles: c.cycles.load(Ordering::SeqCst),
            group_offsets_written: c.group_offsets_written.load(Ordering::SeqCst),
            groups: self.groups().len() as u64,
            last_cycle_time: us(&c.last_cycle_us),
            max_offset_fetches_in_flight: c.max_fetches_in_flight.load(Ordering::SeqCst),
            retry_reason: self.retry_reason(),
            group_fetches_denied: self.shared.group_retries.denied(),
            filter_miss: lock(&self.shared.filter_miss).clone(),
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
    /// With `task.assignment=group`, only the groups of the coordination partitions this
    /// process owns now.
    pub fn groups(&self) -> Vec<String> {
        self.shared.current_groups()
    }

    /// With `task.assignment=group`: the coordination partitions this process owns (adopted)
    /// and those assigned but still being caught up, both sorted. Empty in static mode.
    pub fn coordination_partitions(&self) -> (Vec<i32>, Vec<i32>) {
        match &self.shared.coordination {
            None => (Vec::new(), Vec::new()),
            Some(c) => {
                let handover = c.handover();
                (handover.owned(), handover.pending())
            }
        }
    }

    /// Benchmark entry point: runs start-up's offset-sync load (consumer creation, read to the
    /// end, decoding, the store lock per record) on the calling thread of a task that was never
    /// started, and returns the records read and the time from consumer creation to the end.
    /// Closing the consumer afterwards is not timed. Optimistic load, as after a good
    /// checkpoint load. Feature `internals`.
    #[cfg(feature = "internals")]
    pub fn bench_load_offset_syncs(&self) -> Result<(u64, Duration), Error> {
        use crate::runtime::scheduler::{JobError, Leftovers};
        use startup::load_offset_syncs;
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

/// Checks the config of every client the task will create, as librdkafka will read it, so that a
/// typo in a client key or value fails here, naming the key the user wrote, instead of in
/// start-up on the scheduler thread.
fn check_client_configs(c: &MirrorCheckpointConfig) -> Result<(), ConfigError> {
    let location = c.offset_syncs_topic_location;
    let clients = [
        (Cluster::Target, ClientKind::Admin, c.target_admin_config()),
        (
            Cluster::Target,
            ClientKind::Consumer,
            c.checkpoints_consumer_config(),
        ),
        (
            location,
            ClientKind::Consumer,
            c.offset_syncs_consumer_config(),
        ),
        (Cluster::Source, ClientKind::Admin, c.source_admin_config()),
        (
            Cluster::Target,
            ClientKind::Producer,
            c.target_producer_config(),
        ),
    ];
    for (cluster, kind, settings) in clients {
        let written = |setting: &str| {
            c.clients
                .written_key(cluster, kind, setting)
                .map(str::to_string)
        };
        let rejected = check_client_settings(&settings)
            .map_err(|r| (r.key, r.reason))
            .and_then(|()| check_client_files(&settings))
            .and_then(|()| match client_setting_conflict(&settings, &written) {
                Some(conflict) => Err(conflict),
                None => Ok(()),
            });
        if let Err((key, reason)) = rejected {
            let written = c.clients.written_key(cluster, kind, &key).unwrap_or(&key);
            return Err(ConfigError::new(written, reason));
        }
    }
    Ok(())
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Shared {
    /// Records the task's fatal error (the first one wins), and wakes a poll waiting for start-up
    /// so that it returns Failed at once.
    fn record_fatal(&self, message: String) {
        record_fatal(&self.fatal, &self.signal, message);
    }

    /// Counts a malformed record; logs the first one of each kind per topic.
    fn skipped(&self, topic: &str, error: &RecordError) {
        self.counters.records_skipped.fetch_add(1, Ordering::SeqCst);
        let kind = match error {
            RecordError::Truncated { .. } => "truncated",
            RecordError::NegativeStringLength { .. } => "negative string length",
            RecordError::StringTooLong { .. } => "string too long",
            RecordError::Tombstone { .. } => "tombstone",
            RecordError::Malformed { .. } => "malformed field",
        };
        if lock(&self.skip_causes_logged).insert(format!("{topic}: {kind}")) {
            log::warn!(
                "skipping malformed record in `{topic}`: {error} (further {kind} records are skipped silently)"
            );
        }
    }

    /// Publishes what the last discovery's filters matched: the stats first (the group
    /// filter's miss before the topic filter's), then a warning for each filter that starts
    /// matching nothing, so whoever reads a warning finds its reason in the stats.
    fn publish_filter_misses(&self, group_miss: Option<String>, topic_miss: Option<String>) {
        *lock(&self.filter_miss) = group_miss.clone().or_else(|| topic_miss.clone());
        self.note_filter_miss(&self.group_filter_missed, group_miss);
        self.note_filter_miss(&self.topic_filter_missed, topic_miss);
    }

    /// Warns when a filter starts matching nothing (`miss` holds the reason), once until it
    /// matches again.
    fn note_filter_miss(&self, missed: &AtomicBool, miss: Option<String>) {
        match miss {
            Some(why) => {
                if !missed.swap(true, Ordering::SeqCst) {
                    log::warn!("{why}: nothing to checkpoint until that changes");
                }
            }
            None => missed.store(false, Ordering::SeqCst),
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

    /// The offset-sync store, for writing (start-up and the tail thread).
    fn write_syncs(&self) -> std::sync::RwLockWriteGuard<'_, OffsetSyncStore> {
        self.syncs
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The offset-sync store, for translating.
    /// The store a reader of `which` syncs fills, for writing.
    fn write_store(
        &self,
        which: startup::SyncsOf,
    ) -> std::sync::RwLockWriteGuard<'_, OffsetSyncStore> {
        match which {
            startup::SyncsOf::Flow => &self.syncs,
            startup::SyncsOf::Reverse => &self.reverse_syncs,
        }
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The reverse flow's offset-sync store, for reading (checkpoint cycles).
    fn read_reverse_syncs(&self) -> std::sync::RwLockReadGuard<'_, OffsetSyncStore> {
        self.reverse_syncs
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn read_syncs(&self) -> std::sync::RwLockReadGuard<'_, OffsetSyncStore> {
        self.syncs
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// See [`CheckpointTask::retry_reason`]; `None` once the stop signal is set.
    fn retry_reason(&self) -> Option<String> {
        if lock(&self.fatal).is_some() || self.signal.is_stopped() {
            return None;
        }
        if self.initialized.load(Ordering::SeqCst) {
            let reasons: Vec<String> = [
                self.slow_answer.get(),
                self.jobs_retry.get(),
                self.group_retries.summary(),
            ]
            .into_iter()
            .flatten()
            .collect();
            return (!reasons.is_empty()).then(|| reasons.join("; "));
        }
        self.retry.get()
    }

    /// See [`CheckpointTask::groups`].
    fn current_groups(&self) -> Vec<String> {
        let groups = self.groups_snapshot();
        match &self.coordination {
            None => groups,
            Some(c) => {
                let handover = c.handover();
                groups
                    .into_iter()
                    .filter(|g| handover.owns(c.partition_of(g)))
                    .collect()
            }
        }
    }

    fn groups_snapshot(&self) -> Vec<String> {
        self.groups.read().map(|g| g.clone()).unwrap_or_default()
    }

    /// The target topic `topic` (a topic of the source) replicates, one hop up, when it is a
    /// replica of one of the target's topics (`A.orders` on B in the flow B->A): what a reverse
    /// checkpoint names.
    fn original_of_target_replica(&self, topic: &str) -> Option<String> {
        let target = &self.config.target_cluster_alias;
        if self.policy.topic_source(topic).as_deref() != Some(target.as_str()) {
            return None;
        }
        self.policy.upstream_topic(topic)
    }

    /// MM2's `findConsumerGroups` test: some partition has a commit and its topic is replicated.
    fn has_replicated_commit(
        &self,
        offsets: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
    ) -> bool {
        decisions::has_replicated_commit(offsets, |t| {
            self.config.topic_filter.should_replicate_topic(t)
        })
    }

    /// Records the most fetches these clients had outstanding (their maxima, summed: the shares
    /// of a cycle start together).
    fn note_fetches_in_flight(&self, admins: &[Admin]) {
        let most: usize = admins.iter().map(Admin::max_in_flight_seen).sum();
        self.counters
            .max_fetches_in_flight
            .fetch_max(most as u64, Ordering::SeqCst);
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
                "dropped {} without a commit on a replicated topic; now checkpointing {}",
                decisions::count(before - current.len(), "group", "groups"),
                decisions::count(current.len(), "group", "groups")
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
        self.metrics.forget_groups(gone);
        lock(&self.skip_explanations).forget_groups(gone);
    }

    /// In group mode, whether the running checkpoint cycle may write `group`'s checkpoints: its
    /// partition was owned when the cycle began and has not been revoked since. Always true in
    /// static mode.
    fn cycle_may_emit(&self, group: &str) -> bool {
        match &self.coordination {
            None => true,
            Some(c) => c.handover().cycle_may_emit(c.partition_of(group)),
        }
    }

    /// In group mode, whether this process owns `group` now. Always true in static mode.
    fn owns_group_now(&self, group: &str) -> bool {
        match &self.coordination {
            None => true,
            Some(c) => c.handover().owns(c.partition_of(group)),
        }
    }

    fn adopted_since_cycle(&self) -> bool {
        self.coordination
            .as_ref()
            .is_some_and(|c| c.handover().adopted_since_cycle())
    }

    /// Marks the start of a checkpoint cycle; the guard marks its end (also on error), which
    /// lets a revocation waiting for this cycle go on.
    fn begin_cycle(&self) -> CycleGuard<'_> {
        if let Some(c) = &self.coordination {
            c.handover().begin_cycle();
        }
        CycleGuard(self)
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

/// The running checkpoint cycle, for the handover: ends it when dropped.
struct CycleGuard<'a>(&'a Shared);

impl Drop for CycleGuard<'_> {
    fn drop(&mut self) {
        if let Some(c) = &self.0.coordination {
            c.handover().end_cycle();
            self.0.signal.nudge();
        }
    }
}
