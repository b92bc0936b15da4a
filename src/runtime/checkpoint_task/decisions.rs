//! The task's decisions, as pure functions over what the jobs fetched: which groups a cycle
//! checkpoints, which groups a refresh adopts and drops, which partitions a second fetch asks
//! for, what a group's fetch result means for the cycle, which target groups are idle, and
//! what a group offset sync reports per partition. The jobs (checkpoint_cycle.rs,
//! group_discovery.rs, group_offset_sync.rs) do the I/O around them; the checkpoints themselves
//! and the offsets to write are core's (`checkpoint_rules`), as in Java's
//! `checkpointsForGroup` and `syncGroupOffset`.

use std::collections::{BTreeMap, BTreeSet};

use super::GroupOffsetSyncResult;
use crate::core::checkpoint_rules::{CommittedOffset, OffsetSyncDecision};
use crate::kafka::admin::GroupOffsetsResult;
use crate::kafka::librdkafka::{GroupDescription, NativeError, NativeGroupState};
use crate::TopicPartition;

/// A group's committed offsets on one cluster: partition → offset (`None` = no commit).
pub(super) type Committed = BTreeMap<TopicPartition, Option<CommittedOffset>>;

/// The groups a checkpoint cycle fetches: of the adopted ones, those this task handles (a fixed
/// list is handled as given) and whose checkpoints it may write now (group mode).
pub(super) fn cycle_groups(
    adopted: Vec<String>,
    fixed_list: bool,
    handles: impl Fn(&str) -> bool,
    may_emit: impl Fn(&str) -> bool,
) -> Vec<String> {
    adopted
        .into_iter()
        .filter(|g| fixed_list || handles(g))
        .filter(|g| may_emit(g))
        .collect()
}

/// MM2's `findConsumerGroups` test: some partition has a commit and its topic is replicated.
pub(super) fn has_replicated_commit(
    offsets: &Committed,
    replicates_topic: impl Fn(&str) -> bool,
) -> bool {
    offsets
        .iter()
        .any(|(tp, o)| o.is_some() && replicates_topic(&tp.topic))
}

/// The listing half of MM2's group refresh: the listed groups this task handles, sorted and
/// once each, and of those the ones not adopted yet (`adopted` is sorted), whose offsets the
/// refresh must fetch.
pub(super) fn discovery_candidates(
    listed: Vec<String>,
    handles: impl Fn(&str) -> bool,
    adopted: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut candidates: Vec<String> = listed.into_iter().filter(|g| handles(g)).collect();
    candidates.sort();
    candidates.dedup();
    let unknown = candidates
        .iter()
        .filter(|g| adopted.binary_search(g).is_err())
        .cloned()
        .collect();
    (candidates, unknown)
}

/// What a group refresh ends with.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Refreshed {
    /// The groups checkpointed from now on, sorted.
    pub(super) groups: Vec<String>,
    /// Groups checkpointed before and no longer.
    pub(super) gone: Vec<String>,
}

/// The groups after a refresh: the candidates that are still adopted now (`current`, sorted: a
/// cycle may have dropped one meanwhile) or were adopted by this refresh. A listed group that
/// this refresh could not check stays out until one can.
pub(super) fn refreshed_groups(
    candidates: Vec<String>,
    current: &[String],
    newly_adopted: &BTreeSet<String>,
) -> Refreshed {
    let groups: Vec<String> = candidates
        .into_iter()
        .filter(|g| current.binary_search(g).is_ok() || newly_adopted.contains(g))
        .collect();
    let gone = current
        .iter()
        .filter(|g| groups.binary_search(g).is_err())
        .cloned()
        .collect();
    Refreshed { groups, gone }
}

/// The indices of fetch results that came back with no partition at all: some brokers
/// (librdkafka's mock among them) answer "all partitions" with nothing, so these groups are
/// asked again for the partitions offset syncs exist for.
pub(super) fn empty_results(results: &[Option<GroupOffsetsResult>]) -> Vec<usize> {
    results
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Some(Ok(m)) if m.is_empty()))
        .map(|(i, _)| i)
        .collect()
}

/// The partitions offset syncs exist for (`synced`, as the store lists them) on topics that are
/// replicated: the only ones a checkpoint can be translated for.
pub(super) fn known_partitions<'a>(
    synced: impl Iterator<Item = (&'a str, i32)>,
    replicates_topic: impl Fn(&str) -> bool,
) -> Vec<TopicPartition> {
    synced
        .filter(|(topic, _)| replicates_topic(topic))
        .map(|(topic, partition)| TopicPartition::new(topic, partition))
        .collect()
}

/// What a cycle does with one group's fetch result.
#[derive(Debug, PartialEq)]
pub(super) enum GroupVerdict {
    /// Revoked while its offsets were fetched (group mode): nothing is written for it.
    Abandoned,
    /// The fetch failed; classified by the caller.
    FetchFailed(NativeError),
    /// A discovered group without a commit on a replicated topic: MM2's refresh drops it.
    NoLongerReplicated,
    /// Its checkpoints are decided from these offsets.
    Checkpoint(Committed),
}

/// What a cycle does with `result`, the fetch of one group: `may_emit` says whether the group
/// is still this process's, `discovered` whether it came from discovery (a fixed list is kept
/// whatever it committed).
pub(super) fn group_verdict(
    may_emit: bool,
    discovered: bool,
    result: GroupOffsetsResult,
    replicates_topic: impl Fn(&str) -> bool,
) -> GroupVerdict {
    if !may_emit {
        return GroupVerdict::Abandoned;
    }
    match result {
        Err(e) => GroupVerdict::FetchFailed(e),
        Ok(offsets) if discovered && !has_replicated_commit(&offsets, replicates_topic) => {
            GroupVerdict::NoLongerReplicated
        }
        Ok(offsets) => GroupVerdict::Checkpoint(offsets),
    }
}

/// The source partition a checkpoint for `target` was translated from, given each committed
/// partition with its renamed target; `target` itself when none renames to it.
pub(super) fn upstream_of(
    renamed: &[(TopicPartition, &TopicPartition)],
    target: &TopicPartition,
) -> TopicPartition {
    renamed
        .iter()
        .find(|(t, _)| t == target)
        .map_or_else(|| target.clone(), |(_, up)| (*up).clone())
}

/// A target group's activity, from its described state (MM2's idle-group refresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Activity {
    /// No members (`EMPTY`): offsets may be written once its committed ones are read.
    Idle,
    /// The group does not exist (`DEAD`): offsets may be written.
    Absent,
    /// Members, or rebalancing: its consumers own its offsets.
    Active,
    /// Not described, or described with an error.
    Unknown,
}

/// The activity of each described group; a group described with an error is unknown.
pub(super) fn activities(described: Vec<GroupDescription>) -> BTreeMap<String, Activity> {
    described
        .into_iter()
        .map(|d| {
            let activity = match (d.error, d.state) {
                (Some(_), _) | (None, NativeGroupState::Unknown) => Activity::Unknown,
                (None, NativeGroupState::Empty) => Activity::Idle,
                (None, NativeGroupState::Dead) => Activity::Absent,
                (
                    None,
                    NativeGroupState::Stable
                    | NativeGroupState::PreparingRebalance
                    | NativeGroupState::CompletingRebalance,
                ) => Activity::Active,
            };
            (d.group, activity)
        })
        .collect()
}

/// An idle target group's committed offsets, as the sync rules take them.
pub(super) fn committed_on_target(fetched: Committed) -> BTreeMap<TopicPartition, Option<i64>> {
    fetched
        .into_iter()
        .map(|(tp, o)| (tp, o.map(|o| o.offset)))
        .collect()
}

/// One offset to write into a target group, and why.
pub(super) type Write = (TopicPartition, CommittedOffset, &'static str);

/// Splits a group's sync decisions into the writes to send and the results of the skipped
/// partitions.
pub(super) fn split_decisions(
    group: &str,
    decisions: Vec<OffsetSyncDecision>,
) -> (Vec<Write>, Vec<GroupOffsetSyncResult>) {
    let mut writes = Vec::new();
    let mut skipped = Vec::new();
    for d in decisions {
        match d {
            OffsetSyncDecision::Write {
                partition,
                offset,
                reason,
            } => writes.push((partition, offset, reason.as_str())),
            OffsetSyncDecision::Skip { partition, reason } => skipped.push(GroupOffsetSyncResult {
                group: group.to_string(),
                topic_partition: partition,
                written_offset: None,
                reason: reason.as_str().to_string(),
                error: None,
            }),
        }
    }
    (writes, skipped)
}

/// The results of `writes` into `group`, given the broker's answer: per partition an error or
/// none, or one error for the whole request.
pub(super) fn write_results(
    group: &str,
    writes: Vec<Write>,
    answer: Result<&[(TopicPartition, Option<String>)], String>,
) -> Vec<GroupOffsetSyncResult> {
    let errors: BTreeMap<&TopicPartition, Option<String>> = match answer {
        Ok(per_partition) => per_partition
            .iter()
            .map(|(tp, e)| (tp, e.clone()))
            .collect(),
        Err(e) => writes
            .iter()
            .map(|(tp, _, _)| (tp, Some(e.clone())))
            .collect(),
    };
    let errors: BTreeMap<TopicPartition, Option<String>> =
        errors.into_iter().map(|(tp, e)| (tp.clone(), e)).collect();
    writes
        .into_iter()
        .map(|(tp, offset, reason)| {
            let error = errors.get(&tp).cloned().flatten();
            GroupOffsetSyncResult {
                group: group.to_string(),
                written_offset: error.is_none().then_some(offset.offset),
                topic_partition: tp,
                reason: reason.to_string(),
                error,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checkpoint_rules::{target_offset_sync, TargetGroupState};
    use rdkafka::error::RDKafkaErrorCode;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition::new(topic, partition)
    }

    fn offset(o: i64) -> CommittedOffset {
        CommittedOffset {
            offset: o,
            metadata: String::new(),
        }
    }

    fn committed(entries: &[(&str, i32, Option<i64>)]) -> Committed {
        entries
            .iter()
            .map(|&(t, p, o)| (tp(t, p), o.map(offset)))
            .collect()
    }

    fn error(code: RDKafkaErrorCode) -> NativeError {
        NativeError {
            code,
            message: "injected".into(),
        }
    }

    /// Topics starting with `mm2-` are internal here, as the default topic filter's are.
    fn replicated(topic: &str) -> bool {
        !topic.starts_with("mm2-")
    }

    #[test]
    fn a_cycle_fetches_the_groups_handled_and_still_owned() {
        let adopted = names(&["a", "b", "c", "d"]);
        let handles = |g: &str| g != "b";
        let may_emit = |g: &str| g != "c";
        // (fixed list, expected)
        let cases: &[(bool, &[&str])] = &[(false, &["a", "d"]), (true, &["a", "b", "d"])];
        for &(fixed, expected) in cases {
            assert_eq!(
                cycle_groups(adopted.clone(), fixed, handles, may_emit),
                names(expected),
                "fixed list: {fixed}"
            );
        }
        assert!(cycle_groups(Vec::new(), false, handles, may_emit).is_empty());
    }

    #[test]
    fn a_group_is_replicated_by_a_commit_on_a_replicated_topic() {
        type Entries<'a> = &'a [(&'a str, i32, Option<i64>)];
        // (committed, replicated?)
        let cases: &[(Entries, bool)] = &[
            (&[], false),
            (&[("orders", 0, None)], false),
            (&[("mm2-offsets", 0, Some(5))], false),
            (&[("mm2-offsets", 0, Some(5)), ("orders", 1, None)], false),
            (&[("mm2-offsets", 0, Some(5)), ("orders", 1, Some(0))], true),
        ];
        for &(entries, expected) in cases {
            assert_eq!(
                has_replicated_commit(&committed(entries), replicated),
                expected,
                "{entries:?}"
            );
        }
    }

    #[test]
    fn discovery_fetches_only_handled_groups_not_adopted_yet() {
        let listed = names(&["c", "a", "x-skip", "b", "a"]);
        let handles = |g: &str| !g.starts_with("x-");
        let (candidates, unknown) = discovery_candidates(listed, handles, &names(&["a", "z"]));
        assert_eq!(candidates, names(&["a", "b", "c"]));
        assert_eq!(unknown, names(&["b", "c"]));
        let (candidates, unknown) = discovery_candidates(Vec::new(), handles, &names(&["a"]));
        assert!(candidates.is_empty() && unknown.is_empty());
    }

    #[test]
    fn a_refresh_keeps_adopted_and_new_groups_and_names_the_gone() {
        // (candidates, current, newly adopted, groups after, gone)
        type Case<'a> = (
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
        );
        let cases: &[Case] = &[
            // Steady: nothing changes.
            (&["a", "b"], &["a", "b"], &[], &["a", "b"], &[]),
            // A new group with a replicated commit is adopted.
            (&["a", "b", "c"], &["a", "b"], &["c"], &["a", "b", "c"], &[]),
            // A listed group whose commits are not replicated stays out.
            (&["a", "b", "c"], &["a", "b"], &[], &["a", "b"], &[]),
            // A group no longer listed (deleted, or filtered out) is gone.
            (&["a"], &["a", "b"], &[], &["a"], &["b"]),
            // A group a cycle dropped meanwhile stays dropped.
            (&["a", "b"], &["a"], &[], &["a"], &[]),
            (&[], &["a"], &[], &[], &["a"]),
        ];
        for &(candidates, current, new, groups, gone) in cases {
            let new: BTreeSet<String> = names(new).into_iter().collect();
            assert_eq!(
                refreshed_groups(names(candidates), &names(current), &new),
                Refreshed {
                    groups: names(groups),
                    gone: names(gone)
                },
                "candidates {candidates:?}, current {current:?}"
            );
        }
    }

    #[test]
    fn only_groups_answered_with_no_partition_are_asked_again() {
        let results = vec![
            Some(Ok(committed(&[]))),
            Some(Ok(committed(&[("orders", 0, None)]))),
            Some(Err(error(RDKafkaErrorCode::GroupAuthorizationFailed))),
            None,
            Some(Ok(committed(&[]))),
        ];
        assert_eq!(empty_results(&results), [0, 4]);
    }

    #[test]
    fn the_second_fetch_asks_for_synced_partitions_of_replicated_topics() {
        let synced = [("orders", 0), ("orders", 1), ("mm2-offsets", 0), ("pay", 3)];
        assert_eq!(
            known_partitions(synced.into_iter(), replicated),
            [tp("orders", 0), tp("orders", 1), tp("pay", 3)]
        );
        assert!(known_partitions(std::iter::empty(), replicated).is_empty());
    }

    #[test]
    fn a_cycle_decides_each_group_from_its_fetch() {
        let replicated_commit = || Ok(committed(&[("orders", 0, Some(7))]));
        let internal_commit = || Ok(committed(&[("mm2-offsets", 0, Some(7))]));
        let failed = || Err(error(RDKafkaErrorCode::RequestTimedOut));
        // (may emit, discovered, result, verdict)
        let cases: Vec<(bool, bool, GroupOffsetsResult, GroupVerdict)> = vec![
            (false, true, replicated_commit(), GroupVerdict::Abandoned),
            (false, false, failed(), GroupVerdict::Abandoned),
            (
                true,
                true,
                failed(),
                GroupVerdict::FetchFailed(error(RDKafkaErrorCode::RequestTimedOut)),
            ),
            (
                true,
                true,
                internal_commit(),
                GroupVerdict::NoLongerReplicated,
            ),
            (
                true,
                false,
                internal_commit(),
                GroupVerdict::Checkpoint(internal_commit().unwrap()),
            ),
            (
                true,
                true,
                replicated_commit(),
                GroupVerdict::Checkpoint(replicated_commit().unwrap()),
            ),
        ];
        for (may_emit, discovered, result, verdict) in cases {
            assert_eq!(
                group_verdict(may_emit, discovered, result, replicated),
                verdict,
                "may emit {may_emit}, discovered {discovered}"
            );
        }
    }

    #[test]
    fn a_checkpoint_reports_the_partition_it_was_translated_from() {
        let (up0, up1) = (tp("orders", 0), tp("orders", 1));
        let renamed = vec![(tp("A.orders", 0), &up0), (tp("A.orders", 1), &up1)];
        assert_eq!(upstream_of(&renamed, &tp("A.orders", 1)), up1);
        assert_eq!(upstream_of(&renamed, &tp("A.pay", 0)), tp("A.pay", 0));
    }

    #[test]
    fn target_groups_are_idle_absent_active_or_unknown() {
        let describe = |state, error: Option<NativeError>| GroupDescription {
            group: format!("{state:?}-{}", error.is_some()),
            state,
            error,
        };
        let cases = [
            (NativeGroupState::Empty, None, Activity::Idle),
            (NativeGroupState::Dead, None, Activity::Absent),
            (NativeGroupState::Stable, None, Activity::Active),
            (NativeGroupState::PreparingRebalance, None, Activity::Active),
            (
                NativeGroupState::CompletingRebalance,
                None,
                Activity::Active,
            ),
            (NativeGroupState::Unknown, None, Activity::Unknown),
            (
                NativeGroupState::Empty,
                Some(error(RDKafkaErrorCode::GroupAuthorizationFailed)),
                Activity::Unknown,
            ),
        ];
        for (state, e, expected) in cases {
            let d = describe(state, e);
            let group = d.group.clone();
            assert_eq!(activities(vec![d])[&group], expected, "{group}");
        }
    }

    #[test]
    fn an_idle_groups_reset_offsets_count_as_no_commit() {
        assert_eq!(
            committed_on_target(committed(&[
                ("A.orders", 0, Some(4)),
                ("A.orders", 1, None)
            ])),
            BTreeMap::from([(tp("A.orders", 0), Some(4)), (tp("A.orders", 1), None)])
        );
    }

    #[test]
    fn the_sync_writes_ahead_offsets_and_reports_every_partition() {
        let converted = BTreeMap::from([
            (tp("A.orders", 0), offset(10)),
            (tp("A.orders", 1), offset(10)),
            (tp("A.orders", 2), offset(10)),
        ]);
        let state = TargetGroupState::Empty {
            committed: BTreeMap::from([
                (tp("A.orders", 0), Some(4)),
                (tp("A.orders", 1), Some(12)),
                (tp("A.orders", 2), None),
            ]),
        };
        let (writes, skipped) = split_decisions("g", target_offset_sync(&converted, &state));
        let written: Vec<&TopicPartition> = writes.iter().map(|(tp, _, _)| tp).collect();
        // Never backwards: partition 1 is ahead on the target.
        assert_eq!(written, [&tp("A.orders", 0), &tp("A.orders", 2)]);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].topic_partition, tp("A.orders", 1));
        assert_eq!(skipped[0].written_offset, None);

        let answer = [
            (tp("A.orders", 0), None),
            (tp("A.orders", 2), Some("NOT_COORDINATOR".to_string())),
        ];
        let results = write_results("g", writes.clone(), Ok(&answer));
        let outcome: Vec<(i32, Option<i64>, Option<&str>)> = results
            .iter()
            .map(|r| {
                (
                    r.topic_partition.partition,
                    r.written_offset,
                    r.error.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            outcome,
            [(0, Some(10), None), (2, None, Some("NOT_COORDINATOR"))]
        );
        // A request that failed as a whole fails each of its partitions.
        let results = write_results("g", writes, Err("timed out".into()));
        assert!(results
            .iter()
            .all(|r| r.written_offset.is_none() && r.error.as_deref() == Some("timed out")));
    }

    #[test]
    fn an_active_group_is_never_written() {
        let converted = BTreeMap::from([(tp("A.orders", 0), offset(10))]);
        let (writes, skipped) = split_decisions(
            "g",
            target_offset_sync(&converted, &TargetGroupState::Active),
        );
        assert!(writes.is_empty());
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].group, "g");
    }
}
