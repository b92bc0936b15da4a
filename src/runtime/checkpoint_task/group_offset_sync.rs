//! The periodic group offset sync: commit translated offsets into target groups proven idle,
//! never backwards, and report each partition's result.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use super::faults::ErrorPoint;
use super::group_fetch_failures::{classify, FetchJob, RunFailures};
use super::{GroupOffsetSyncResult, Shared};
use crate::core::checkpoint_rules::{
    target_offset_sync, CommittedOffset, OffsetSyncDecision, TargetGroupState,
};
use crate::core::error::Error;
use crate::kafka::admin::Admin;
use crate::kafka::librdkafka::NativeGroupState;
use crate::kafka::mutex::lock;
use crate::runtime::scheduler::JobError;
use crate::TopicPartition;

/// MM2's idle-group refresh and group offset sync, in one job on the scheduler thread. Writes
/// only into groups proven EMPTY (or absent) on the target, never backwards, and waits for the
/// broker's answer (MM2 fires and forgets). A target group whose committed offsets cannot be
/// read is classified as in the checkpoint cycle (group_fetch_failures.rs): skipped this time
/// (retried, with its reason in the retry reason, or denied by its ACL), or, when retrying cannot
/// fix it and it is not the group's own ACL, the end of the task.
pub(super) fn sync_group_offsets(shared: &Shared, admin: &mut Admin) -> Result<(), JobError> {
    let mut converted = lock(&shared.checkpoints).converted_upstream_offsets();
    // In group mode the store also holds other processes' groups (read at start-up); their
    // target offsets are theirs to write.
    converted.retain(|g, _| shared.owns_group_now(g));
    if converted.is_empty() {
        shared
            .group_retries
            .finish(FetchJob::OffsetSync, RunFailures::default());
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
        Err(e @ Error::Fatal { .. }) => return Err(e.into()),
        Err(Error::Stopped) => return Err(JobError::Stopped),
        Err(e) => {
            log::warn!("cannot describe target groups ({e}); not syncing group offsets this cycle");
            BTreeMap::new()
        }
    };
    let cluster = &shared.config.target_cluster_alias;
    let mut failures = RunFailures::default();
    let mut injected = shared.faults.injected_error(ErrorPoint::SyncGroupOffsets);
    let mut results = Vec::new();
    for (group, offsets) in converted {
        let state = match states
            .get(&group)
            .copied()
            .unwrap_or(NativeGroupState::Unknown)
        {
            NativeGroupState::Empty => {
                let target = admin.list_group_offsets(std::slice::from_ref(&group), None, 1)?;
                let fetched = target.into_iter().next().map(|(_, r)| r);
                match injected.take().map(Err).or(fetched) {
                    Some(Ok(map)) => TargetGroupState::Empty {
                        committed: map
                            .into_iter()
                            .map(|(tp, o)| (tp, o.map(|o| o.offset)))
                            .collect(),
                    },
                    Some(Err(e)) => {
                        let failure = classify(cluster, &group, &e);
                        failures.note(
                            FetchJob::OffsetSync,
                            &shared.group_retries,
                            &group,
                            failure,
                        )?;
                        TargetGroupState::Unknown
                    }
                    None => TargetGroupState::Unknown,
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
    shared.group_retries.finish(FetchJob::OffsetSync, failures);
    let mut report = lock(&shared.group_sync);
    for r in results {
        report.insert((r.group.clone(), r.topic_partition.clone()), r);
    }
    Ok(())
}
