//! The periodic group offset sync: commit translated offsets into target groups proven idle,
//! never backwards, and report each partition's result.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;

use super::decisions::{self, Activity};
use super::faults::ErrorPoint;
use super::group_fetch_failures::{classify, FetchJob, RunFailures};
use super::Shared;
use crate::runtime::scheduler::JobError;
use mm2_checkpoint_core::checkpoint_rules::{
    target_offset_sync, CommittedOffset, TargetGroupState,
};
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::Admin;
use mm2_checkpoint_kafka::mutex::lock;

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
        shared
            .metrics
            .group_sync_ran(&decisions::SyncSummary::default());
        return Ok(());
    }
    let groups: Vec<String> = converted.keys().cloned().collect();
    let activities: BTreeMap<String, Activity> = match admin.describe_groups(&groups) {
        Ok(descs) => decisions::activities(descs),
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
    let mut ahead: BTreeSet<(String, TopicPartition)> = BTreeSet::new();
    for (group, offsets) in converted {
        let state = match activities.get(&group).copied().unwrap_or(Activity::Unknown) {
            Activity::Idle => {
                let target = admin.list_group_offsets(std::slice::from_ref(&group), None, 1)?;
                let fetched = target.into_iter().next().map(|(_, r)| r);
                match injected.take().map(Err).or(fetched) {
                    Some(Ok(map)) => TargetGroupState::Empty {
                        committed: decisions::committed_on_target(map),
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
            Activity::Absent => TargetGroupState::Absent,
            Activity::Active => TargetGroupState::Active,
            Activity::Unknown => TargetGroupState::Unknown,
        };
        ahead.extend(
            decisions::ahead_of_translation(&offsets, &state)
                .into_iter()
                .map(|tp| (group.clone(), tp)),
        );
        let (writes, skipped) =
            decisions::split_decisions(&group, target_offset_sync(&offsets, &state));
        results.extend(skipped);
        if writes.is_empty() {
            continue;
        }
        let request: Vec<(TopicPartition, CommittedOffset)> = writes
            .iter()
            .map(|(tp, o, _)| (tp.clone(), o.clone()))
            .collect();
        let written = match admin.alter_group_offsets(&group, &request) {
            Ok(per_partition) => decisions::write_results(&group, writes, Ok(&per_partition)),
            Err(Error::Stopped) => return Err(JobError::Stopped),
            Err(e) => decisions::write_results(&group, writes, Err(e.to_string())),
        };
        for (r, (_, offset)) in written.iter().zip(&request) {
            match &r.error {
                None => {
                    shared
                        .counters
                        .group_offsets_written
                        .fetch_add(1, Ordering::SeqCst);
                }
                Some(error) => log::warn!(
                    "writing offset {} for group `{group}` {} on the target failed: {error:?}",
                    offset.offset,
                    r.topic_partition
                ),
            }
        }
        results.extend(written);
    }
    shared.group_retries.finish(FetchJob::OffsetSync, failures);
    let summary = decisions::SyncSummary::of(&results, &ahead);
    shared.metrics.group_sync_ran(&summary);
    let mut last = lock(&shared.last_sync_summary);
    // A write or a refusal is news every time; a group left alone only when that changed.
    let news = summary.written_partitions > 0
        || summary.refused_partitions > 0
        || last.as_ref() != Some(&summary);
    if summary.noteworthy() && news {
        log::info!("{summary}");
    } else {
        log::debug!("{summary}");
    }
    *last = Some(summary);
    drop(last);
    let mut report = lock(&shared.group_sync);
    for r in results {
        report.insert((r.group.clone(), r.topic_partition.clone()), r);
    }
    Ok(())
}
