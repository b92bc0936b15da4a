//! One checkpoint cycle, run on the polling thread: fetch the groups' committed offsets on the
//! source, translate them through the offset-sync store, and write the checkpoints.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::startup::read_syncs;
use super::{
    now_ms, PartitionStatus, Poller, Shared, MAX_OFFSET_FETCHES_IN_FLIGHT, OFFSET_FETCH_CONNECTIONS,
};
use crate::core::checkpoint_rules::{checkpoints_for_group, CommittedOffset};
use crate::core::error::Error;
use crate::core::replication_policy::checkpoint_topic_partition;
use crate::kafka::admin::{Admin, GroupOffsetsResult};
use crate::kafka::checkpoint_producer::CheckpointProducer;
use crate::kafka::stop_signal::lock;
use crate::{Checkpoint, TopicPartition};

/// Committed offsets of `groups` on the source, batched. Some brokers (librdkafka's mock among
/// them) answer "all partitions" with nothing; groups that came back empty are asked again for
/// the partitions offset syncs exist for, since only those can be translated anyway.
pub(super) fn fetch_committed(
    shared: &Shared,
    admins: &mut [Admin],
    groups: &[String],
) -> Result<Vec<(String, GroupOffsetsResult)>, Error> {
    let c = &shared.config;
    let mut committed = fetch_spread(admins, groups, None)?;
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
        .filter(|(topic, _, _)| c.topic_filter.should_replicate_topic(topic))
        .map(|(topic, partition, _)| TopicPartition::new(topic, partition))
        .collect();
    if !known.is_empty() {
        let again = fetch_spread(admins, &empty, Some(&known))?;
        let again: BTreeMap<String, _> = again.into_iter().collect();
        for (group, result) in committed.iter_mut() {
            if let Some(r) = again.get(group) {
                *result = r.clone();
            }
        }
    }
    Ok(committed)
}

/// The fetches of `groups` split into one contiguous share per admin client, each share on its
/// own thread, [`MAX_OFFSET_FETCHES_IN_FLIGHT`] outstanding in all. A broker serves one
/// connection's requests one after another, and librdkafka asks one group per request (and
/// looks its coordinator up first), so more connections are what make a large cycle faster.
/// Results come back in `groups` order; the first error (a stop among them) wins.
fn fetch_spread(
    admins: &mut [Admin],
    groups: &[String],
    partitions: Option<&[TopicPartition]>,
) -> Result<Vec<(String, GroupOffsetsResult)>, Error> {
    let used = admins.len().min(groups.len()).max(1);
    let per_admin = (MAX_OFFSET_FETCHES_IN_FLIGHT / used).max(1);
    let share = groups.len().div_ceil(used).max(1);
    let Some((first, rest)) = admins.split_first_mut() else {
        return Err(Error::InvalidState(
            "no admin client to fetch offsets".into(),
        ));
    };
    if used == 1 {
        return first.list_group_offsets(groups, partitions, per_admin);
    }
    let mut chunks = groups.chunks(share);
    let own = chunks.next().unwrap_or_default();
    std::thread::scope(|s| {
        let others: Vec<_> = rest
            .iter_mut()
            .zip(chunks)
            .map(|(admin, chunk)| {
                s.spawn(move || admin.list_group_offsets(chunk, partitions, per_admin))
            })
            .collect();
        let mut out = first.list_group_offsets(own, partitions, per_admin);
        for other in others {
            let result = match other.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            match (&mut out, result) {
                (Ok(all), Ok(more)) => all.extend(more),
                (Ok(_), Err(e)) => out = Err(e),
                (Err(_), _) => {}
            }
        }
        out
    })
}

/// One checkpoint cycle on the polling thread.
pub(super) fn run_cycle(shared: &Shared, poller: &mut Poller) -> Result<Vec<Checkpoint>, Error> {
    let began = Instant::now();
    let cycle = shared.begin_cycle();
    let result = run_cycle_inner(shared, poller);
    drop(cycle);
    shared
        .counters
        .last_cycle_us
        .store(began.elapsed().as_micros().max(1) as u64, Ordering::SeqCst);
    shared.note_fetches_in_flight(&poller.source_admins);
    result
}

pub(super) fn run_cycle_inner(
    shared: &Shared,
    poller: &mut Poller,
) -> Result<Vec<Checkpoint>, Error> {
    let c = &shared.config;
    shared.counters.cycles.fetch_add(1, Ordering::SeqCst);
    let groups: Vec<String> = shared
        .groups_snapshot()
        .into_iter()
        .filter(|g| c.assigned_groups.is_some() || shared.should_handle_group(g))
        .filter(|g| shared.cycle_may_emit(g))
        .collect();
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    while poller.source_admins.len() < OFFSET_FETCH_CONNECTIONS {
        poller.source_admins.push(Admin::open(
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
    let Some(producer) = poller.producer.as_mut() else {
        return Err(Error::InvalidState("poll clients missing".into()));
    };
    let committed = fetch_committed(shared, &mut poller.source_admins, &groups)?;
    if let Some(hook) = &shared.hooks.cycle_writing {
        hook(&shared.signal);
    }
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
        if !shared.cycle_may_emit(&group) {
            // Revoked while its offsets were fetched: abandoned, so the revocation can be
            // acknowledged as soon as this cycle's writes are confirmed.
            log::debug!("group `{group}` moved to another process during the cycle; abandoned");
            continue;
        }
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

pub(super) fn upstream_of(
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
