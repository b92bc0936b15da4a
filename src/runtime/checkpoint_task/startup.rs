//! Start-up loading: create the checkpoints topic if missing, read the checkpoints topic into
//! the checkpoint store, read the offset-syncs topic into the offset-sync store, then hand the
//! offset-syncs consumer to the tail thread that applies new syncs until the stop.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::group_discovery::discover_groups;
use super::group_offset_sync::sync_group_offsets;
use super::{Shared, NEVER};
use crate::core::error::Error;
use crate::core::offset_sync_store::OffsetSyncStore;
use crate::kafka::admin::{Admin, TopicCreation};
use crate::kafka::diagnostics::LibraryThread;
use crate::kafka::kafka_based_log::{KafkaBasedLog, ReadToEnd};
use crate::kafka::stop_signal::lock;
use crate::runtime::scheduler::{JobError, Leftovers, RepeatingJob};
use crate::{Checkpoint, OffsetSync};

/// The start-up job (scheduler thread): MM2's order — checkpoints first, then offset syncs,
/// pessimistic when the checkpoints failed to load.
pub(super) fn startup(
    shared: &Arc<Shared>,
    leftovers: &mut Leftovers,
) -> Result<Vec<RepeatingJob>, JobError> {
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
pub(super) fn load_checkpoints(
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

pub(super) fn write_syncs(shared: &Shared) -> std::sync::RwLockWriteGuard<'_, OffsetSyncStore> {
    shared
        .syncs
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) fn read_syncs(shared: &Shared) -> std::sync::RwLockReadGuard<'_, OffsetSyncStore> {
    shared
        .syncs
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) fn apply_sync(shared: &Shared, topic: &str, key: Option<&[u8]>, value: Option<&[u8]>) {
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
pub(super) fn tail_offset_syncs(shared: &Shared, mut log: KafkaBasedLog) -> KafkaBasedLog {
    let topic = log.topic().to_string();
    while !shared.signal.is_stopped() {
        log.poll_once(Duration::from_secs(1), &mut |key, value| {
            apply_sync(shared, &topic, key, value)
        });
    }
    log
}
