//! `GroupOffsetsStream`: the committed offsets of the source's groups, kept current from the
//! source's `__consumer_offsets` topic by a thread of its own (`group.offsets.source =
//! consumer-offsets-topic`).
//!
//! The thread owns the reader's consumer; other threads see only the data it keeps
//! ([`CommittedOffsets`], behind a lock) and are told of changes through a condition variable, so
//! an emitter can translate a commit as soon as it arrives. Stop is flag → wake → join → close:
//! [`GroupOffsetsStream::stop`] sets the stream's own stop signal (which also yields the
//! consumer's queue), joins the thread, and only then drops the consumer the thread hands back.
//!
//! A partition held below its high watermark by an open transaction (see
//! `ConsumerOffsetsReader`) is published as such: the stream's copy of the groups that
//! partition coordinates may then lag the coordinator, which has applied their plain commits
//! already, and [`GroupOffsetsStream::held_by_transaction`] tells the caller to ask the
//! coordinator for those groups instead. The start and the end of a hold are logged at info.
//!
//! A record that does not decode is skipped and counted, as is a record of a type or version
//! this library does not know: neither is ever fatal. A failure that retrying cannot fix (such as
//! a denied READ) ends the thread and is kept for [`GroupOffsetsStream::failure`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::runtime::thread_names::ThreadNames;
use mm2_checkpoint_core::committed_offsets::{Applied, Committed, CommittedOffsets};
use mm2_checkpoint_core::consumer_offsets::{
    coordinator_partition, ConsumerOffsetsRecord, CONSUMER_OFFSETS_TOPIC,
};
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::mirror_checkpoint_config::MirrorCheckpointConfig;
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::consumer_offsets_reader::ConsumerOffsetsReader;
use mm2_checkpoint_kafka::kafka_based_log::RecordRef;
use mm2_checkpoint_kafka::library_thread::LibraryThread;
use mm2_checkpoint_kafka::mutex::lock;
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// How long one poll of the reader waits for records; a stop wakes it earlier.
const POLL_WAIT: Duration = Duration::from_millis(500);

/// Longest wait for the topic's metadata when the stream starts (where a missing DESCRIBE ACL
/// shows).
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// Counters of the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamCounts {
    /// Records read from `__consumer_offsets`.
    pub records: u64,
    /// Records that did not decode (skipped).
    pub malformed: u64,
    /// Records of a type or value version this library does not know (skipped).
    pub unknown: u64,
    /// Commits kept.
    pub commits: u64,
    /// Tombstones applied (offset deletion, group deletion, expiry).
    pub deletions: u64,
    /// Records of groups or topics this task does not checkpoint (skipped).
    pub filtered: u64,
}

/// How long a transaction holds a partition before the hold is logged at info.
const HOLD_LOGGED_AFTER: Duration = Duration::from_secs(5);

/// The partitions of `__consumer_offsets` held by an open transaction.
#[derive(Default)]
struct Held {
    /// The topic's partition count.
    partitions: usize,
    /// Held partitions.
    held: BTreeMap<i32, Hold>,
}

/// The transaction holds of a stream, read from any thread ([`GroupOffsetsStream::holds`]).
pub(crate) struct Holds(Arc<Shared>);

impl Holds {
    /// The partitions held now, and how long the oldest hold has lasted.
    pub(crate) fn now(&self) -> (u64, Option<Duration>) {
        let held = lock(&self.0.held);
        let longest = held.held.values().map(|h| h.since.elapsed()).max();
        (held.held.len() as u64, longest)
    }
}

/// One partition's hold.
struct Hold {
    since: Instant,
    logged: bool,
}

struct Shared {
    offsets: Mutex<CommittedOffsets>,
    held: Mutex<Held>,
    changed: Condvar,
    caught_up: AtomicBool,
    failure: Mutex<Option<Error>>,
    records: AtomicU64,
    malformed: AtomicU64,
}

/// The stream; see the module documentation.
pub struct GroupOffsetsStream {
    signal: StopSignal,
    shared: Arc<Shared>,
    thread: Option<LibraryThread<ConsumerOffsetsReader>>,
}

impl GroupOffsetsStream {
    /// Starts reading the source's `__consumer_offsets` with the consumer the configuration
    /// describes ([`MirrorCheckpointConfig::consumer_offsets_consumer_config`]). Keeps only
    /// groups the configured group filter replicates and `accepts_group` takes (this task's
    /// share of them), and topics the configured topic filter replicates.
    ///
    /// Blocks up to 10 s for the topic's metadata. Fails with [`Error::Fatal`] naming the ACL
    /// when the broker denies the topic to this principal.
    pub fn start(
        config: &MirrorCheckpointConfig,
        accepts_group: impl Fn(&str) -> bool + Send + 'static,
    ) -> Result<Self, Error> {
        Self::start_notifying(config, accepts_group, || {})
    }

    /// [`start`](Self::start), calling `notify` on the reading thread after each batch that
    /// changed some group, and once when the stream has caught up or failed (outside every lock
    /// of the stream, so `notify` may wake a thread that then reads the stream).
    pub fn start_notifying(
        config: &MirrorCheckpointConfig,
        accepts_group: impl Fn(&str) -> bool + Send + 'static,
        notify: impl Fn() + Send + 'static,
    ) -> Result<Self, Error> {
        let signal = StopSignal::new();
        let reader = ConsumerOffsetsReader::open(
            &config.consumer_offsets_consumer_config(),
            &signal,
            OPEN_TIMEOUT.min(config.admin_timeout),
        )?;
        let shared = Arc::new(Shared {
            offsets: Mutex::new(CommittedOffsets::new()),
            held: Mutex::new(Held::default()),
            changed: Condvar::new(),
            caught_up: AtomicBool::new(false),
            failure: Mutex::new(None),
            records: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
        });
        let group_filter = config.group_filter.clone();
        let accepts_group =
            move |group: &str| group_filter.should_replicate_group(group) && accepts_group(group);
        let topic_filter = config.topic_filter.clone();
        let accepts_topic = move |topic: &str| topic_filter.should_replicate_topic(topic);
        let thread_shared = Arc::clone(&shared);
        let thread_signal = signal.clone();
        let name = ThreadNames::new(&config.source_cluster_alias, &config.target_cluster_alias)
            .of("stream");
        let thread = LibraryThread::spawn(name, &signal, move || {
            run(
                reader,
                &thread_signal,
                &thread_shared,
                &accepts_group,
                &accepts_topic,
                &notify,
            )
        })
        .map_err(|e| Error::Thread(e.to_string()))?;
        Ok(GroupOffsetsStream {
            signal,
            shared,
            thread: Some(thread),
        })
    }

    /// Whether every commit made before the stream started has been applied (each partition of
    /// `__consumer_offsets` was read to its end once).
    pub fn caught_up(&self) -> bool {
        self.shared.caught_up.load(Ordering::SeqCst)
    }

    /// Whether the partition of `__consumer_offsets` that coordinates `group` is held below its
    /// high watermark by an open transaction: commits of the group written after the
    /// transaction's first record, plain ones included, are not read yet, so the stream's copy
    /// of the group may lag its coordinator.
    pub fn held_by_transaction(&self, group: &str) -> bool {
        let held = lock(&self.shared.held);
        !held.held.is_empty()
            && held
                .held
                .contains_key(&coordinator_partition(group, held.partitions))
    }

    /// How many partitions of `__consumer_offsets` are held by an open transaction.
    pub fn held_partitions(&self) -> usize {
        lock(&self.shared.held).held.len()
    }

    /// A reading of the transaction holds that any thread may take while the stream runs (and
    /// after: it then reads what the stream last saw).
    pub(crate) fn holds(&self) -> Holds {
        Holds(Arc::clone(&self.shared))
    }

    /// The failure that ended the reading thread, if one did.
    pub fn failure(&self) -> Option<Error> {
        lock(&self.shared.failure).clone()
    }

    /// The groups with kept offsets.
    pub fn groups(&self) -> Vec<String> {
        self.with_offsets(|o| o.groups())
    }

    /// The kept offsets of `group`, by partition.
    pub fn group_offsets(&self, group: &str) -> Vec<(TopicPartition, Committed)> {
        self.with_offsets(|o| o.group_offsets(group))
    }

    /// Runs `f` on the kept offsets, under their lock (keep it short: the reading thread waits).
    pub(crate) fn with_offsets<R>(&self, f: impl FnOnce(&mut CommittedOffsets) -> R) -> R {
        f(&mut lock(&self.shared.offsets))
    }

    /// Takes the groups changed since the last call, waiting up to `timeout` for one when there
    /// is none yet. Returns early, possibly empty, when the stream stops or fails.
    pub fn wait_for_changes(&self, timeout: Duration) -> BTreeSet<String> {
        let deadline = Instant::now() + timeout;
        let mut offsets = lock(&self.shared.offsets);
        loop {
            if offsets.has_changes() {
                return offsets.take_changed();
            }
            let now = Instant::now();
            if now >= deadline || self.signal.is_stopped() || self.failure().is_some() {
                return BTreeSet::new();
            }
            offsets = self
                .shared
                .changed
                .wait_timeout(offsets, deadline - now)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|poison| poison.into_inner().0);
        }
    }

    /// Whether some group changed since the last [`wait_for_changes`](Self::wait_for_changes)
    /// or [`take_changes`](Self::take_changes).
    pub fn has_changes(&self) -> bool {
        lock(&self.shared.offsets).has_changes()
    }

    /// Takes the groups changed since the last call, without waiting.
    pub fn take_changes(&self) -> BTreeSet<String> {
        lock(&self.shared.offsets).take_changed()
    }

    /// Counters of what was read.
    pub fn counts(&self) -> StreamCounts {
        let applied = lock(&self.shared.offsets).counts();
        StreamCounts {
            records: self.shared.records.load(Ordering::SeqCst),
            malformed: self.shared.malformed.load(Ordering::SeqCst),
            unknown: applied.unknown,
            commits: applied.commits,
            deletions: applied.deletions,
            filtered: applied.filtered,
        }
    }

    /// Stops the stream: sets its stop flag, wakes the reading thread, joins it, then closes the
    /// consumer it hands back. Idempotent; also done on drop.
    pub fn stop(&mut self) {
        self.signal.stop();
        {
            // Wake a `wait_for_changes` caller too (under the lock, so the wake is not lost).
            let _offsets = lock(&self.shared.offsets);
            self.shared.changed.notify_all();
        }
        if let Some(thread) = self.thread.take() {
            match thread.join() {
                Ok(reader) => drop(reader),
                Err(panic) => {
                    log::error!("the `{CONSUMER_OFFSETS_TOPIC}` reader panicked: {panic}");
                    *lock(&self.shared.failure) = Some(Error::InvalidState(format!(
                        "the `{CONSUMER_OFFSETS_TOPIC}` reader panicked: {panic}"
                    )));
                }
            }
        }
    }
}

impl Drop for GroupOffsetsStream {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The reading thread: polls until stopped or failed, applying each batch under one lock.
fn run(
    mut reader: ConsumerOffsetsReader,
    signal: &StopSignal,
    shared: &Shared,
    accepts_group: &dyn Fn(&str) -> bool,
    accepts_topic: &dyn Fn(&str) -> bool,
    notify: &dyn Fn(),
) -> ConsumerOffsetsReader {
    let mut logged_unknown = false;
    let mut logged_malformed = false;
    while !signal.is_stopped() {
        let mut changed = false;
        let mut apply = |records: &mut dyn Iterator<Item = RecordRef<'_>>| {
            let mut offsets = lock(&shared.offsets);
            for (key, value) in records {
                shared.records.fetch_add(1, Ordering::Relaxed);
                match ConsumerOffsetsRecord::decode(key, value) {
                    Ok(record) => {
                        if offsets.apply(&record, accepts_group, accepts_topic) == Applied::Unknown
                            && !logged_unknown
                        {
                            logged_unknown = true;
                            log::warn!(
                                "skipping a `{CONSUMER_OFFSETS_TOPIC}` record this library does not know ({record:?}); further ones are skipped and counted silently"
                            );
                        }
                    }
                    Err(e) => {
                        shared.malformed.fetch_add(1, Ordering::Relaxed);
                        if !logged_malformed {
                            logged_malformed = true;
                            log::warn!(
                                "skipping a malformed `{CONSUMER_OFFSETS_TOPIC}` record: {e}; further ones are skipped and counted silently"
                            );
                        }
                    }
                }
            }
            if offsets.has_changes() {
                changed = true;
                shared.changed.notify_all();
            }
        };
        let polled = reader.poll(POLL_WAIT, &mut apply);
        if changed {
            notify();
        }
        note_held(&reader, shared);
        match polled {
            Ok(_) => {
                if reader.caught_up() && !shared.caught_up.swap(true, Ordering::SeqCst) {
                    log::info!(
                        "read `{CONSUMER_OFFSETS_TOPIC}` to its end: {} records",
                        reader.records_read
                    );
                    {
                        let _offsets = lock(&shared.offsets);
                        shared.changed.notify_all();
                    }
                    notify();
                }
            }
            Err(e) => {
                log::error!("{e}");
                *lock(&shared.failure) = Some(e);
                {
                    let _offsets = lock(&shared.offsets);
                    shared.changed.notify_all();
                }
                notify();
                break;
            }
        }
    }
    reader
}

/// Publishes the partitions held by an open transaction. A hold that lasts
/// [`HOLD_LOGGED_AFTER`] is logged, and then its end (shorter ones, as a transactional
/// application committing every 100 ms makes all the time, only at debug).
fn note_held(reader: &ConsumerOffsetsReader, shared: &Shared) {
    let found = reader.held_partitions();
    let mut held = lock(&shared.held);
    held.partitions = reader.partition_count();
    held.held.retain(|partition, hold| {
        if found.contains_key(partition) {
            return true;
        }
        if hold.logged {
            log::info!(
                "`{CONSUMER_OFFSETS_TOPIC}` partition {partition} is no longer held by an open transaction (held {:.1} s): its groups' offsets come from the stream again",
                hold.since.elapsed().as_secs_f64()
            );
        } else {
            log::debug!("`{CONSUMER_OFFSETS_TOPIC}` partition {partition}: transaction hold ended");
        }
        false
    });
    for (partition, (end, high)) in found {
        let hold = held.held.entry(partition).or_insert(Hold {
            since: Instant::now(),
            logged: false,
        });
        if !hold.logged && hold.since.elapsed() >= HOLD_LOGGED_AFTER {
            hold.logged = true;
            log::info!(
                "`{CONSUMER_OFFSETS_TOPIC}` partition {partition} is held at offset {end} below its end {high} by an open transaction (for {:.1} s): the offsets of the groups it coordinates are fetched from their coordinator until the transaction ends",
                hold.since.elapsed().as_secs_f64()
            );
        }
    }
}
