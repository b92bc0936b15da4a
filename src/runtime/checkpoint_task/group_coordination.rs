//! `task.assignment=group`: the coordination thread. It owns the coordination consumer (a member
//! of the coordination group on the target), turns its rebalances into the handover of
//! [`mm2_checkpoint_core::group_coordination::Handover`], and runs the catch-up reads that let it adopt
//! a gained partition without checkpoints going backwards.
//!
//! Why the target cluster: checkpoints are written there, so a process that cannot reach the
//! target cannot do its share anyway; being in the target's group means such a process drops out
//! and its share moves to one that can. The source may be the one that is far away.
//!
//! Thread discipline, as for every client: the consumer and any catch-up reader belong to this
//! thread; the stop wakes its poll (the consumer queue is registered with the stop signal); the
//! stopper joins the thread, waits for a running cycle, and only then leaves the group and
//! destroys the consumer ([`CoordinationThread::close`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::Shared;
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::group_coordination::{
    coordination_partition, CatchUp, CoordinationSettings, Handover, TaskAssignment,
};
use mm2_checkpoint_kafka::admin::{Admin, TopicCreation};
use mm2_checkpoint_kafka::coordination_consumer::{CoordinationConsumer, CoordinationEvent};
use mm2_checkpoint_kafka::kafka_based_log::{each_record, KafkaBasedLog, ReadToEnd};
use mm2_checkpoint_kafka::library_thread::{panic_message, LibraryThread};
use mm2_checkpoint_kafka::mutex::lock;

/// Longest wait of one coordination poll; a stop or a rebalance ends it earlier.
const POLL_SLICE: Duration = Duration::from_millis(500);

/// While start-up is still loading, how often the thread looks whether it may catch up.
const LOADING_POLL: Duration = Duration::from_millis(50);

/// Pause before retrying a failed topic creation, consumer creation or catch-up read.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Longest wait for LeaveGroup during a stop.
const LEAVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Test hook: runs on the coordination thread with the partitions of each rebalance event
/// (`true` = assigned), once the handover state has taken it in and before it is acknowledged
/// (for a revocation: before waiting for the running cycle).
pub type RebalanceHook = std::sync::Arc<dyn Fn(&[i32], bool) + Send + Sync>;

/// The coordination state a task shares between its threads.
pub(super) struct Coordination {
    pub(super) settings: CoordinationSettings,
    handover: Mutex<Handover>,
    thread: Mutex<Option<LibraryThread<Leftover>>>,
}

/// What the coordination thread hands back to the stopper, to close after the join.
#[derive(Default)]
struct Leftover {
    consumer: Option<CoordinationConsumer>,
    reader: Option<KafkaBasedLog>,
}

/// The joined coordination thread's clients, closed by [`close`](Self::close).
pub(super) struct CoordinationThread(Leftover);

impl CoordinationThread {
    /// Leaves the group (so the survivors rebalance at once), then destroys the clients.
    pub(super) fn close(mut self) {
        if let Some(consumer) = self.0.consumer.as_mut() {
            consumer.close(LEAVE_TIMEOUT);
        }
    }
}

impl Coordination {
    /// The coordination state of `task.assignment=group`, or `None` in static mode.
    pub(super) fn for_assignment(assignment: &TaskAssignment) -> Option<Self> {
        match assignment {
            TaskAssignment::Static => None,
            TaskAssignment::Group(settings) => Some(Coordination {
                settings: settings.clone(),
                handover: Mutex::new(Handover::new()),
                thread: Mutex::new(None),
            }),
        }
    }

    pub(super) fn handover(&self) -> MutexGuard<'_, Handover> {
        lock(&self.handover)
    }

    /// The coordination partition of `group`.
    pub(super) fn partition_of(&self, group: &str) -> i32 {
        coordination_partition(group, self.settings.partitions)
    }

    /// Joins the coordination thread (after the stop signal is set).
    pub(super) fn join(&self) -> Option<CoordinationThread> {
        let thread = lock(&self.thread).take()?;
        match thread.join() {
            Ok(leftover) => Some(CoordinationThread(leftover)),
            Err(panic) => {
                log::error!("coordination thread panicked outside its loop: {panic}");
                None
            }
        }
    }
}

/// Starts the coordination thread of a task in group mode.
pub(super) fn start(shared: &std::sync::Arc<Shared>) -> Result<(), Error> {
    let Some(coordination) = shared.coordination.as_ref() else {
        return Ok(());
    };
    let name = shared.threads.of("coord");
    let s = std::sync::Arc::clone(shared);
    let thread = LibraryThread::spawn(name, &shared.signal, move || {
        let mut leftover = Leftover::default();
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&s, &mut leftover))) {
            let message = format!("coordination thread panicked: {}", panic_message(&*panic));
            log::error!("{message}");
            lock(&s.fatal).get_or_insert(message);
            s.signal.nudge();
        }
        leftover
    })
    .map_err(|e| Error::Thread(e.to_string()))?;
    *lock(&coordination.thread) = Some(thread);
    Ok(())
}

fn run(shared: &Shared, leftover: &mut Leftover) {
    let Some(coordination) = shared.coordination.as_ref() else {
        return;
    };
    let settings = &coordination.settings;
    if !create_topic(shared, settings) {
        return;
    }
    let consumer = loop {
        match CoordinationConsumer::open(
            &shared.config.coordination_consumer_config(),
            &settings.group_id,
            &settings.topic,
            &shared.signal,
        ) {
            Ok(c) => break c,
            Err(e @ Error::Fatal { .. }) => {
                // Wrong settings do not fix themselves: the task fails, as for its other clients.
                lock(&shared.fatal).get_or_insert(e.to_string());
                shared.signal.nudge();
                return;
            }
            Err(e) => {
                log::warn!("{e}; retrying");
                if !shared.signal.sleep(RETRY_AFTER) {
                    return;
                }
            }
        }
    };
    log::info!(
        "joining coordination group `{}` on `{}` (topic `{}`)",
        settings.group_id,
        shared.config.target_cluster_alias,
        settings.topic
    );
    let Leftover {
        consumer: kept,
        reader,
    } = leftover;
    let consumer = kept.insert(consumer);
    let mut next_catch_up = Instant::now();
    while !shared.signal.is_stopped() {
        if lock(&shared.fatal).is_some() {
            // This task checkpoints nothing any more: leave the group so the other processes
            // take its share over, instead of holding it until the host stops the task. Closed
            // here, on its owning thread, once no cycle holds a partition any more.
            log::warn!(
                "leaving coordination group `{}`: the task failed",
                settings.group_id
            );
            let held = {
                let h = coordination.handover();
                let mut all = h.owned();
                all.extend(h.pending());
                all
            };
            if !release(shared, coordination, &held, false) {
                return;
            }
            consumer.close(LEAVE_TIMEOUT);
            *kept = None;
            return;
        }
        let loading = !shared.initialized.load(Ordering::SeqCst);
        let waiting = !coordination.handover().pending().is_empty();
        let wait = if waiting && loading {
            LOADING_POLL
        } else if waiting {
            next_catch_up
                .saturating_duration_since(Instant::now())
                .min(POLL_SLICE)
        } else {
            POLL_SLICE
        };
        match consumer.poll(wait) {
            CoordinationEvent::Assigned(partitions) => {
                coordination.handover().assign(partitions.iter().copied());
                if let Some(hook) = &shared.hooks.rebalance {
                    hook(&partitions, true);
                }
                log::info!(
                    "coordination group `{}`: assigned partitions {partitions:?}; adopting them after reading `{}` to its end",
                    settings.group_id,
                    shared.config.checkpoints_topic()
                );
                if let Err(e) = consumer.acknowledge(&partitions, true) {
                    log::warn!("{e}");
                }
            }
            CoordinationEvent::Revoked { partitions, lost } => {
                if !release(shared, coordination, &partitions, lost) {
                    return; // stopped while a cycle held them: the close releases them
                }
                if let Err(e) = consumer.acknowledge(&partitions, false) {
                    log::warn!("{e}");
                }
            }
            CoordinationEvent::Nothing => {}
        }
        if shared.initialized.load(Ordering::SeqCst) && Instant::now() >= next_catch_up {
            let catch_up = coordination.handover().begin_catch_up();
            if let Some(catch_up) = catch_up {
                match catch_up_and_adopt(shared, coordination, catch_up, reader) {
                    Ok(()) => {}
                    Err(Error::Stopped) => return,
                    Err(e) => {
                        log::warn!(
                            "reading `{}` before adopting partitions: {e}; retrying",
                            shared.config.checkpoints_topic()
                        );
                        next_catch_up = Instant::now() + RETRY_AFTER;
                    }
                }
            }
        }
    }
}

/// Creates the coordination topic if it is missing. False when stopped first.
fn create_topic(shared: &Shared, settings: &CoordinationSettings) -> bool {
    let c = &shared.config;
    loop {
        let attempt = Admin::open(
            &c.target_admin_config(),
            &c.target_cluster_alias,
            "coordination-target-admin",
            c.admin_timeout,
            &shared.signal,
        )
        .and_then(|mut admin| {
            admin.create_topic(
                &settings.topic,
                i32::try_from(settings.partitions).unwrap_or(i32::MAX),
                c.checkpoints_topic_replication_factor,
                &[],
            )
        });
        match attempt {
            Ok(TopicCreation::Created) => {
                log::info!(
                    "created coordination topic `{}` with {} partitions",
                    settings.topic,
                    settings.partitions
                );
                return true;
            }
            Ok(TopicCreation::Exists) => return true,
            Ok(TopicCreation::Skipped(why) | TopicCreation::Denied(why)) => {
                log::warn!(
                    "could not create coordination topic `{}` ({why}); assuming it exists",
                    settings.topic
                );
                return true;
            }
            Err(Error::Stopped) => return false,
            Err(e) => {
                log::warn!("{e}; retrying");
                if !shared.signal.sleep(RETRY_AFTER) {
                    return false;
                }
            }
        }
    }
}

/// Gives up `partitions`: no new cycle picks their groups and a running cycle abandons them;
/// returns once no running cycle holds them any more (false when stopped first).
fn release(shared: &Shared, coordination: &Coordination, partitions: &[i32], lost: bool) -> bool {
    coordination.handover().revoke(partitions);
    if let Some(hook) = &shared.hooks.rebalance {
        hook(partitions, false);
    }
    let groups: Vec<String> = shared
        .groups_snapshot()
        .into_iter()
        .filter(|g| partitions.contains(&coordination.partition_of(g)))
        .collect();
    shared.forget_groups(&groups);
    log::info!(
        "coordination group `{}`: {} partitions {partitions:?} ({} known groups)",
        coordination.settings.group_id,
        if lost { "lost" } else { "revoked" },
        groups.len()
    );
    loop {
        let deadline = Instant::now() + POLL_SLICE;
        match shared.signal.wait_until(deadline, || {
            !coordination.handover().cycle_holds_any(partitions)
        }) {
            None => return false,
            Some(true) => return true,
            Some(false) => {}
        }
    }
}

/// Reads the checkpoints topic to its end, puts the records of the catch-up's groups into the
/// checkpoint store, then adopts its partitions.
fn catch_up_and_adopt(
    shared: &Shared,
    coordination: &Coordination,
    catch_up: CatchUp,
    reader_slot: &mut Option<KafkaBasedLog>,
) -> Result<(), Error> {
    let c = &shared.config;
    let topic = c.checkpoints_topic();
    let began = Instant::now();
    let reader = reader_slot.insert(KafkaBasedLog::open(
        &c.checkpoints_consumer_config(),
        &topic,
        "checkpoints-catch-up-consumer",
        &shared.signal,
    )?);
    if let Some(hook) = &shared.hooks.catch_up_reading {
        hook(&shared.signal);
    }
    let mut read = Vec::new();
    let covered =
        |g: &str| catch_up.covers(coordination.partition_of(g)) && shared.accepts_group(g);
    let outcome = reader.read_to_end(&mut each_record(|key, value| {
        match Checkpoint::decode(key, value) {
            Ok(cp) if covered(&cp.consumer_group_id) => read.push(cp),
            Ok(_) => {}
            Err(e) => shared.skipped(&topic, &e),
        }
    }));
    match outcome {
        Ok(ReadToEnd::Reached | ReadToEnd::TopicMissing) => {}
        Err(e) => return Err(e),
    }
    // Closed here, on its owning thread: nothing else can reach it.
    *reader_slot = None;
    {
        let mut store = lock(&shared.checkpoints);
        for cp in read {
            store.load_record(cp, |_| true);
        }
    }
    let adopted = coordination.handover().finish_catch_up(catch_up);
    log::info!(
        "coordination group `{}`: adopted partitions {adopted:?} after reading `{topic}` in {:?}",
        coordination.settings.group_id,
        began.elapsed()
    );
    shared.signal.nudge();
    Ok(())
}
