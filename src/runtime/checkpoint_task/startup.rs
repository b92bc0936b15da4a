//! Start-up loading: create the checkpoints topic if missing, read the checkpoints topic into
//! the checkpoint store, read the offset-syncs topic into the offset-sync store, discover the
//! groups once (unless they are assigned), then hand the offset-syncs consumer to the tail
//! thread that applies new syncs until the stop. With reverse checkpoints on, the reverse
//! flow's offset syncs are read and tailed the same way, into a store of their own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::group_discovery::discover_groups;
use super::group_offset_sync::sync_group_offsets;
use super::{Shared, GROUP_DISCOVERY, GROUP_OFFSET_SYNC, NEVER};
use crate::runtime::scheduler::{JobError, Leftovers, RepeatingJob};
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::checkpoint_store::CheckpointStore;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::mirror_checkpoint_config::Cluster;
use mm2_checkpoint_core::offset_sync::OffsetSyncRef;
use mm2_checkpoint_core::offset_sync_store::OffsetSyncStore;
use mm2_checkpoint_kafka::admin::{Admin, TopicCreation};
use mm2_checkpoint_kafka::kafka_based_log::{each_record, KafkaBasedLog, ReadToEnd, RecordRef};
use mm2_checkpoint_kafka::library_thread::{panic_message, LibraryThread};
use mm2_checkpoint_kafka::mutex::lock;

/// What start-up's read of the checkpoints topic found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CheckpointsLoad {
    /// The topic was read to its end: the store holds everything emitted before.
    Loaded,
    /// The topic was missing and this task created it just now: nothing can have been emitted
    /// before, so the (empty) store is complete, as after Java's read of the empty topic its
    /// connector created before starting the task.
    CreatedNow,
    /// The topic exists but could not be read, or was missing and could not be created here:
    /// nothing proves what an earlier task generation emitted.
    Failed,
}

impl CheckpointsLoad {
    /// Whether the checkpoint store is known to be complete (MM2's `checkpointsLoaded`).
    pub(super) fn is_complete(self) -> bool {
        match self {
            CheckpointsLoad::Loaded | CheckpointsLoad::CreatedNow => true,
            CheckpointsLoad::Failed => false,
        }
    }

    /// Whether the offset syncs load pessimistically (keeping only the newest sync per
    /// partition, so no checkpoint can go below one an earlier generation emitted). Only an
    /// incomplete checkpoint store needs that; otherwise the full sync history is kept, and
    /// groups behind the newest sync get their checkpoints in the first cycle.
    pub(super) fn pessimistic_sync_load(self) -> bool {
        !self.is_complete()
    }
}

/// The start-up job (scheduler thread): MM2's order — checkpoints first, then offset syncs,
/// pessimistic when the checkpoints could not be loaded.
pub(super) fn startup(
    shared: &Arc<Shared>,
    leftovers: &mut Leftovers,
) -> Result<Vec<RepeatingJob>, JobError> {
    let began = Instant::now();
    let c = &shared.config;
    let signal = &shared.signal;
    begin_attempt(shared);
    let mut target_admin = Admin::open(
        &c.target_admin_config(),
        &c.target_cluster_alias,
        "checkpoint-target-admin",
        c.admin_timeout,
        signal,
    )?;
    let checkpoints_topic = c.checkpoints_topic();
    log::debug!("loading checkpoints from `{checkpoints_topic}`");
    let load = match load_checkpoints(shared, &mut target_admin, leftovers) {
        Ok(load) => load,
        Err(e) => {
            leftovers.push(Box::new(target_admin));
            return Err(e);
        }
    };
    shared
        .counters
        .checkpoints_load_ok
        .store(load.is_complete(), Ordering::SeqCst);

    let pessimistic = load.pessimistic_sync_load();
    log::debug!("loading offset syncs (checkpoints {load:?}, pessimistic: {pessimistic})");
    let log = match load_offset_syncs(shared, pessimistic, leftovers) {
        Ok(log) => log,
        Err(e) => {
            leftovers.push(Box::new(target_admin));
            return Err(e);
        }
    };
    let reverse_log = if c.emit_reverse_checkpoints_enabled {
        match load_reverse_offset_syncs(shared, leftovers) {
            Ok(reverse) => Some(reverse),
            Err(e) => {
                leftovers.push(Box::new(log));
                leftovers.push(Box::new(target_admin));
                return Err(e);
            }
        }
    } else {
        None
    };
    let log = TailedLogs {
        flow: log,
        reverse: reverse_log,
    };
    // The first discovery runs before the first cycle may: MM2's connector finds the groups
    // before it starts its tasks, so their first cycle already checkpoints every group.
    let mut discovery = None;
    if c.assigned_groups.is_none() {
        let opened = Admin::open(
            &c.source_admin_config(),
            &c.source_cluster_alias,
            "checkpoint-source-admin",
            c.admin_timeout,
            signal,
        );
        let mut source_admin = match opened {
            Ok(admin) => admin,
            Err(e) => {
                leftovers.push(Box::new(log));
                leftovers.push(Box::new(target_admin));
                return Err(e.into());
            }
        };
        let first_delay = match discover_groups(shared, &mut source_admin) {
            Ok(()) => None,
            Err(ended @ (JobError::Stopped | JobError::Fatal(_))) => {
                leftovers.push(Box::new(log));
                leftovers.push(Box::new(target_admin));
                leftovers.push(Box::new(source_admin));
                return Err(match ended {
                    JobError::Fatal(e) => JobError::Fatal(format!(
                        "discovering the consumer groups on `{}`: {e}",
                        c.source_cluster_alias
                    )),
                    other => other,
                });
            }
            // Retried by the refresh job, which runs at once.
            Err(JobError::Transient(e)) => {
                log::warn!(
                    "discovering the consumer groups on `{}`: {e}; retrying in the background",
                    c.source_cluster_alias
                );
                Some(Duration::ZERO)
            }
        };
        discovery = Some((source_admin, first_delay));
    }
    shared
        .counters
        .load_time_us
        .store(began.elapsed().as_micros().max(1) as u64, Ordering::SeqCst);
    shared.initialized.store(true, Ordering::SeqCst);
    signal.nudge();
    log::info!(
        "checkpoint task ready in {:?}: {} checkpoints ({load:?}), {} offset syncs{}{}",
        began.elapsed(),
        shared.counters.checkpoints_loaded.load(Ordering::SeqCst),
        shared.counters.syncs_loaded.load(Ordering::SeqCst),
        if pessimistic {
            " (pessimistic: newest sync per partition only)"
        } else {
            ""
        },
        if c.emit_reverse_checkpoints_enabled {
            format!(
                "; reverse checkpoints from {} offset syncs of `{}` on `{}`",
                shared.counters.reverse_syncs_loaded.load(Ordering::SeqCst),
                c.reverse_offset_syncs_topic(),
                cluster_alias(shared, c.reverse_offset_syncs_cluster()),
            )
        } else {
            String::new()
        }
    );

    let tail_shared = Arc::clone(shared);
    let tail = LibraryThread::spawn(shared.threads.of("tail"), signal, move || {
        tail_offset_syncs(&tail_shared, log)
    })
    .map_err(|e| JobError::Fatal(format!("starting the offset-syncs tail thread: {e}")))?;
    *lock(&shared.tail) = Some(tail);

    let mut jobs = Vec::new();
    if let Some((mut source_admin, first_delay)) = discovery {
        let shared = Arc::clone(shared);
        // Without periodic refresh, groups are discovered once, at start.
        let interval = c
            .refresh_groups_interval
            .filter(|_| c.refresh_groups_enabled)
            .unwrap_or(NEVER);
        jobs.push(RepeatingJob {
            name: GROUP_DISCOVERY,
            interval,
            first_delay: first_delay.unwrap_or(interval),
            run: Box::new(move || discover_groups(&shared, &mut source_admin)),
        });
    }
    if let Some(interval) = c
        .sync_group_offsets_interval
        .filter(|_| c.sync_group_offsets_enabled)
    {
        let shared = Arc::clone(shared);
        jobs.push(RepeatingJob {
            name: GROUP_OFFSET_SYNC,
            interval,
            first_delay: interval,
            run: Box::new(move || sync_group_offsets(&shared, &mut target_admin)),
        });
    } else {
        drop(target_admin);
    }
    Ok(jobs)
}

/// Start-up runs again after a transient failure: forget what an earlier attempt loaded.
fn begin_attempt(shared: &Shared) {
    *lock(&shared.checkpoints) = CheckpointStore::new();
    *shared.write_syncs() = OffsetSyncStore::new();
    *shared.write_store(SyncsOf::Reverse) = OffsetSyncStore::new();
    shared
        .counters
        .checkpoints_loaded
        .store(0, Ordering::SeqCst);
    shared.counters.syncs_loaded.store(0, Ordering::SeqCst);
    shared
        .counters
        .reverse_syncs_loaded
        .store(0, Ordering::SeqCst);
}

/// The alias of one of the flow's clusters.
fn cluster_alias(shared: &Shared, cluster: Cluster) -> &str {
    match cluster {
        Cluster::Source => &shared.config.source_cluster_alias,
        Cluster::Target => &shared.config.target_cluster_alias,
    }
}

/// The words naming a cluster in a retry reason: "source cluster `A`".
fn cluster_words(shared: &Shared, cluster: Cluster) -> String {
    let alias = match cluster {
        Cluster::Source => &shared.config.source_cluster_alias,
        Cluster::Target => &shared.config.target_cluster_alias,
    };
    format!("{} cluster `{alias}`", cluster.name())
}

/// Loads the checkpoints topic once (MM2's CheckpointStore.start). A missing topic is created
/// (compacted, as MM2's connector creates it before its tasks start). Created here, it is known
/// empty; if it cannot be created (or someone else created it meanwhile), the load counts as
/// failed and translation starts pessimistic.
pub(super) fn load_checkpoints(
    shared: &Shared,
    target_admin: &mut Admin,
    leftovers: &mut Leftovers,
) -> Result<CheckpointsLoad, JobError> {
    let c = &shared.config;
    let topic = c.checkpoints_topic();
    let mut log = KafkaBasedLog::open(
        &c.checkpoints_consumer_config(),
        &topic,
        "checkpoints-target-consumer",
        &shared.signal,
    )?;
    log.report_retries(&shared.retry, cluster_words(shared, Cluster::Target));
    if let Some(hook) = &shared.hooks.checkpoint_store_reading {
        hook(&shared.signal);
    }
    let mut loaded = Vec::new();
    let outcome = log.read_to_end(&mut each_record(|key, value| {
        match Checkpoint::decode(key, value) {
            Ok(cp) => loaded.push(cp),
            Err(e) => shared.skipped(&topic, &e),
        }
    }));
    let load = match outcome {
        Ok(ReadToEnd::Reached) => CheckpointsLoad::Loaded,
        Ok(ReadToEnd::TopicMissing) => {
            log::info!("checkpoints topic `{topic}` does not exist; creating it");
            match target_admin
                .create_compacted_topic(&topic, c.checkpoints_topic_replication_factor)
            {
                Ok(TopicCreation::Created) => {
                    log::info!(
                        "created checkpoints topic `{topic}`; nothing was emitted before, so the \
                         full offset-sync history is loaded"
                    );
                    CheckpointsLoad::CreatedNow
                }
                Ok(TopicCreation::Exists) => {
                    log::info!(
                        "checkpoints topic `{topic}` was created meanwhile by someone else; \
                         starting pessimistic"
                    );
                    CheckpointsLoad::Failed
                }
                Ok(TopicCreation::Skipped(why)) => {
                    log::warn!(
                        "could not create `{topic}` ({why}); assuming it will exist, starting \
                         pessimistic"
                    );
                    CheckpointsLoad::Failed
                }
                // Java's connector assumes the topic exists then, and its task retries writing
                // into a topic that never appears. Nothing but someone else creating it can
                // help, so say what is missing instead of retrying for ever.
                Ok(TopicCreation::Denied(why)) => {
                    leftovers.push(Box::new(log));
                    return Err(Error::fatal(
                        format!("creating the missing checkpoints topic `{topic}`"),
                        format!(
                            "{why}: grant this principal CREATE on the topic (or the cluster), \
                             or create it (one partition, cleanup.policy=compact)"
                        ),
                    )
                    .into());
                }
                Err(Error::Stopped) => {
                    leftovers.push(Box::new(log));
                    return Err(JobError::Stopped);
                }
                Err(Error::Fatal { context, message }) => {
                    leftovers.push(Box::new(log));
                    return Err(Error::fatal(
                        context,
                        format!(
                            "{message} (asked with checkpoints.topic.replication.factor={})",
                            c.checkpoints_topic_replication_factor
                        ),
                    )
                    .into());
                }
                Err(e) => {
                    log::warn!("creating `{topic}`: {e}; starting pessimistic");
                    CheckpointsLoad::Failed
                }
            }
        }
        Err(Error::Stopped) => {
            leftovers.push(Box::new(log));
            return Err(JobError::Stopped);
        }
        Err(e @ Error::Fatal { .. }) => {
            leftovers.push(Box::new(log));
            return Err(e.into());
        }
        Err(e) => {
            log::info!("loading checkpoints from `{topic}` failed: {e}; starting pessimistic");
            CheckpointsLoad::Failed
        }
    };
    let mut store = lock(&shared.checkpoints);
    for cp in loaded {
        store.load_record(cp, |g| shared.accepts_group(g));
    }
    // The checkpoints now known, one per group and partition (the topic is compacted, and holds
    // every earlier record of a partition until the cleaner runs), not the records read.
    shared
        .counters
        .checkpoints_loaded
        .store(store.checkpoint_count() as u64, Ordering::SeqCst);
    // Read once, as MM2 does: later checkpoints are tracked in memory.
    drop(log);
    Ok(load)
}

pub(super) fn load_offset_syncs(
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
    log.report_retries(
        &shared.retry,
        cluster_words(shared, c.offset_syncs_topic_location),
    );
    if let Some(hook) = &shared.hooks.offset_sync_store_reading {
        hook(&shared.signal);
    }
    shared.write_syncs().begin_initial_load(pessimistic);
    let outcome =
        log.read_to_end(&mut |records| apply_syncs(shared, SyncsOf::Flow, &topic, records));
    let log = settle_load(outcome, log, leftovers, || {
        log::warn!(
            "offset-syncs topic `{topic}` does not exist yet; translating nothing until syncs arrive"
        )
    })?;
    shared.write_syncs().mark_read_to_end();
    shared.metrics.offset_sync_lag(log.lag());
    Ok(log)
}

/// Reads the reverse flow's offset syncs to their end into the reverse store, for reverse
/// checkpoints. Any sync translates a commit back safely, so the load keeps every partition's
/// history whatever the checkpoints load found; a missing topic is warned about and the store
/// fills as syncs arrive.
pub(super) fn load_reverse_offset_syncs(
    shared: &Shared,
    leftovers: &mut Leftovers,
) -> Result<KafkaBasedLog, JobError> {
    let c = &shared.config;
    let topic = c.reverse_offset_syncs_topic();
    let cluster = c.reverse_offset_syncs_cluster();
    let mut log = KafkaBasedLog::open(
        &c.reverse_offset_syncs_consumer_config(),
        &topic,
        "reverse-offset-syncs-consumer",
        &shared.signal,
    )?;
    log.report_retries(&shared.retry, cluster_words(shared, cluster));
    shared
        .write_store(SyncsOf::Reverse)
        .begin_initial_load(false);
    let outcome =
        log.read_to_end(&mut |records| apply_syncs(shared, SyncsOf::Reverse, &topic, records));
    let log = settle_load(outcome, log, leftovers, || {
        log::warn!(
            "the reverse flow's offset-syncs topic `{topic}` does not exist on `{}` yet; no reverse checkpoint until syncs arrive (is `reverse.offset-syncs.topic.location` the reverse flow's `offset-syncs.topic.location`?)",
            cluster_alias(shared, cluster)
        )
    })?;
    shared.write_store(SyncsOf::Reverse).mark_read_to_end();
    Ok(log)
}

/// The end of an offset-syncs load: the log back when it read to the end (`missing` says so
/// when the topic does not exist yet), else the log handed to the leftovers, which close it
/// after the join, and the load's error.
fn settle_load(
    outcome: Result<ReadToEnd, Error>,
    log: KafkaBasedLog,
    leftovers: &mut Leftovers,
    missing: impl FnOnce(),
) -> Result<KafkaBasedLog, JobError> {
    match outcome {
        Ok(ReadToEnd::Reached) => Ok(log),
        Ok(ReadToEnd::TopicMissing) => {
            missing();
            Ok(log)
        }
        Err(e) => {
            leftovers.push(Box::new(log));
            Err(match e {
                Error::Stopped => JobError::Stopped,
                e => e.into(),
            })
        }
    }
}

/// Which offset-sync store a reader fills: the flow's own, or the reverse flow's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SyncsOf {
    /// This flow's offset syncs (`offset-syncs.topic.location`).
    Flow,
    /// The reverse flow's, for reverse checkpoints (`reverse.offset-syncs.topic.location`).
    Reverse,
}

/// Applies one batch of offset-sync records under one write lock of the store, decoding each in
/// place (the topic borrowed from the record). The loaded-syncs counter moves once per batch,
/// after the store holds the batch.
pub(super) fn apply_syncs(
    shared: &Shared,
    which: SyncsOf,
    topic: &str,
    records: &mut dyn Iterator<Item = RecordRef<'_>>,
) {
    let mut applied = 0u64;
    {
        let mut store = shared.write_store(which);
        for (key, value) in records {
            match OffsetSyncRef::decode(key, value) {
                Ok(sync) => {
                    store.handle_record(
                        &sync.topic,
                        sync.partition,
                        sync.upstream_offset,
                        sync.downstream_offset,
                    );
                    applied += 1;
                }
                // Counts and logs; takes no lock on the store.
                Err(e) => shared.skipped(topic, &e),
            }
        }
    }
    let counter = match which {
        SyncsOf::Flow => &shared.counters.syncs_loaded,
        SyncsOf::Reverse => &shared.counters.reverse_syncs_loaded,
    };
    counter.fetch_add(applied, Ordering::SeqCst);
}

/// The offset-syncs consumers the tail thread reads: the flow's, and the reverse flow's when
/// reverse checkpoints are on. Dropped (closed) by the stopper after the join.
pub(super) struct TailedLogs {
    flow: KafkaBasedLog,
    reverse: Option<KafkaBasedLog>,
}

/// The offset-syncs tail thread: applies new syncs until stopped, then hands the log back so the
/// stopper closes its consumer after the join.
/// A panic or a failure retrying cannot fix ends the thread and fails the task: translating
/// from a store that no longer follows the topic would emit stale checkpoints.
///
/// With reverse checkpoints on, the thread reads both topics in turn, waiting at most half a
/// second on each, so a sync of either reaches its store within about a second.
pub(super) fn tail_offset_syncs(shared: &Shared, mut logs: TailedLogs) -> TailedLogs {
    let topic = logs.flow.topic().to_string();
    let reverse_topic = logs.reverse.as_ref().map(|r| r.topic().to_string());
    let wait = if logs.reverse.is_some() {
        Duration::from_millis(500)
    } else {
        Duration::from_secs(1)
    };
    let tailed = catch_unwind(AssertUnwindSafe(|| -> Result<(), (&str, Error)> {
        while !shared.signal.is_stopped() {
            #[cfg(feature = "internals")]
            shared.faults.hit(super::faults::Fault::TailPanics);
            logs.flow
                .poll_once(wait, &mut |records| {
                    apply_syncs(shared, SyncsOf::Flow, &topic, records)
                })
                .map_err(|e| (topic.as_str(), e))?;
            shared.metrics.offset_sync_lag(logs.flow.lag());
            if let (Some(reverse), Some(reverse_topic)) = (&mut logs.reverse, &reverse_topic) {
                reverse
                    .poll_once(wait, &mut |records| {
                        apply_syncs(shared, SyncsOf::Reverse, reverse_topic, records)
                    })
                    .map_err(|e| (reverse_topic.as_str(), e))?;
            }
        }
        Ok(())
    }));
    match tailed {
        Ok(Ok(())) => {}
        Ok(Err((failed, e))) => shared.record_fatal(format!("tailing `{failed}` failed: {e}")),
        Err(panic) => shared.record_fatal(format!(
            "the offset-syncs tail thread panicked: {}",
            panic_message(&*panic)
        )),
    }
    logs
}

#[cfg(test)]
mod tests {
    use super::CheckpointsLoad;

    #[test]
    fn offset_syncs_load_pessimistically_only_when_the_checkpoints_are_not_known_complete() {
        let table = [
            (CheckpointsLoad::Loaded, true, false),
            (CheckpointsLoad::CreatedNow, true, false),
            (CheckpointsLoad::Failed, false, true),
        ];
        for (load, complete, pessimistic) in table {
            assert_eq!(load.is_complete(), complete, "{load:?}");
            assert_eq!(load.pessimistic_sync_load(), pessimistic, "{load:?}");
        }
    }
}
