//! The task's decisions, as pure functions over what the jobs fetched: which groups a cycle
//! checkpoints, which groups a refresh adopts and drops, which partitions a second fetch asks
//! for, what a group's fetch result means for the cycle, which target groups are idle, and
//! what a group offset sync reports per partition. The jobs (checkpoint_cycle.rs,
//! group_discovery.rs, group_offset_sync.rs) do the I/O around them; the checkpoints themselves
//! and the offsets to write are core's (`checkpoint_rules`), as in Java's
//! `checkpointsForGroup` and `syncGroupOffset`.

use std::collections::{BTreeMap, BTreeSet};

use super::GroupOffsetSyncResult;
use crate::runtime::metrics::GroupOffsetSyncRun;
use mm2_checkpoint_core::checkpoint_rules::{
    CommittedOffset, OffsetSyncDecision, SkipReason, TargetGroupState,
};
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::GroupOffsetsResult;
use mm2_checkpoint_kafka::librdkafka::{GroupDescription, NativeError, NativeGroupState};

/// A group's committed offsets on one cluster: partition → offset (`None` = no commit).
pub(crate) type Committed = BTreeMap<TopicPartition, Option<CommittedOffset>>;

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
pub(crate) enum Activity {
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
pub(crate) fn activities(described: Vec<GroupDescription>) -> BTreeMap<String, Activity> {
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
pub(crate) fn committed_on_target(fetched: Committed) -> BTreeMap<TopicPartition, Option<i64>> {
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

/// The partitions whose idle target group is past the translated offset (of those the sync
/// leaves alone as at or ahead): its consumers went on on the target, and are never rewound.
pub(super) fn ahead_of_translation(
    converted: &BTreeMap<TopicPartition, CommittedOffset>,
    state: &TargetGroupState,
) -> BTreeSet<TopicPartition> {
    let TargetGroupState::Empty { committed } = state else {
        return BTreeSet::new();
    };
    converted
        .iter()
        .filter(|(tp, offset)| matches!(committed.get(*tp), Some(Some(t)) if *t > offset.offset))
        .map(|(tp, _)| tp.clone())
        .collect()
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

/// `n` and the noun, singular for one ("1 group", "2 groups").
pub(crate) fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Whether a skipped partition needs explaining to the operator: its offset cannot be
/// translated. A filtered topic, a store still loading or nothing newer to write are the
/// normal course of a cycle, and the partition status already says so.
fn needs_explaining(reason: SkipReason) -> bool {
    matches!(
        reason,
        SkipReason::NoOffsetSync
            | SkipReason::OlderThanEveryKeptSync
            | SkipReason::NegativeTranslation
            | SkipReason::RenamedPartitionCollides
    )
}

/// What a skip reason means for the operator, in words.
pub(super) fn explanation(reason: SkipReason) -> &'static str {
    match reason {
        SkipReason::NoOffsetSync => {
            "no offset sync was ever seen for this partition, so its offset cannot be translated \
             (is the mirror replicating it and writing offset syncs?)"
        }
        SkipReason::OlderThanEveryKeptSync => {
            "the committed offset is older than every offset sync still kept for this partition, \
             so it cannot be translated until the group commits past one (as in Java MM2)"
        }
        SkipReason::NegativeTranslation => {
            "the translation came out negative (the offset syncs for this partition look corrupt)"
        }
        SkipReason::RenamedPartitionCollides => {
            "another source partition of this group renames to the same target partition"
        }
        other => other.as_str(),
    }
}

/// The skips explained so far, per group and source partition, so that a partition that stays
/// untranslatable is explained once, not at every cycle.
#[derive(Debug, Default)]
pub(super) struct SkipExplanations {
    /// Group → source partition → the reason explained last.
    explained: BTreeMap<String, BTreeMap<TopicPartition, SkipReason>>,
}

impl SkipExplanations {
    /// Of one cycle's outcome for `group` (its committed source partitions and the skipped
    /// ones with their reasons), the skips to explain now: those that need explaining and were
    /// not explained for that partition with that reason yet. A partition that translates again
    /// is forgotten, so that a later skip is explained anew.
    pub(super) fn news<'a>(
        &mut self,
        group: &str,
        committed: impl IntoIterator<Item = &'a TopicPartition>,
        skipped: &[(TopicPartition, SkipReason)],
    ) -> Vec<(TopicPartition, SkipReason)> {
        let reasons: BTreeMap<&TopicPartition, SkipReason> =
            skipped.iter().map(|(tp, r)| (tp, *r)).collect();
        if let Some(explained) = self.explained.get_mut(group) {
            for tp in committed {
                if matches!(
                    reasons.get(tp),
                    None | Some(SkipReason::NotNewerThanLastCheckpoint)
                ) {
                    explained.remove(tp);
                }
            }
            if explained.is_empty() {
                self.explained.remove(group);
            }
        }
        let news: Vec<(TopicPartition, SkipReason)> = skipped
            .iter()
            .filter(|(_, r)| needs_explaining(*r))
            .filter(|(tp, r)| self.explained.get(group).and_then(|e| e.get(tp)) != Some(r))
            .cloned()
            .collect();
        if !news.is_empty() {
            let explained = self.explained.entry(group.to_string()).or_default();
            for (tp, r) in &news {
                explained.insert(tp.clone(), *r);
            }
        }
        news
    }

    /// Forgets the groups no longer checkpointed.
    pub(super) fn forget_groups(&mut self, gone: &[String]) {
        for g in gone {
            self.explained.remove(g);
        }
    }
}

/// At most this many group names are listed in a group offset sync's log line.
const NAMES_LISTED: usize = 5;

/// What one group offset sync did, for its log line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SyncSummary {
    /// Groups with at least one offset written, sorted.
    pub(super) written_groups: BTreeSet<String>,
    /// Offsets written (group × partition).
    pub(super) written_partitions: usize,
    /// Groups left alone because their consumers are active on the target.
    pub(super) active_groups: BTreeSet<String>,
    /// Offsets of those groups left alone.
    pub(super) active_partitions: usize,
    /// Groups left alone because their state on the target is unknown.
    pub(super) unknown_groups: BTreeSet<String>,
    /// Offsets of those groups left alone.
    pub(super) unknown_partitions: usize,
    /// Groups with an offset the broker refused, and how many offsets.
    pub(super) refused_groups: BTreeSet<String>,
    /// Offsets the broker refused.
    pub(super) refused_partitions: usize,
    /// Partitions already at or past the translated offset on the target (`ahead` included).
    pub(super) up_to_date: usize,
    /// Groups with a partition already at the translated offset.
    pub(super) up_to_date_groups: BTreeSet<String>,
    /// Partitions past the translated offset on the target, and their groups.
    pub(super) ahead: usize,
    /// Groups with a partition past the translated offset.
    pub(super) ahead_groups: BTreeSet<String>,
    /// The first offsets written, as `` `group` topic-partition=offset ``, for the log line.
    pub(super) written_offsets: Vec<String>,
}

impl SyncSummary {
    /// Counts one sync's per-partition results; `ahead` names the (group, partition) pairs
    /// whose target group is past the translated offset ([`ahead_of_translation`]).
    pub(super) fn of(
        results: &[GroupOffsetSyncResult],
        ahead: &BTreeSet<(String, TopicPartition)>,
    ) -> SyncSummary {
        let mut s = SyncSummary::default();
        for r in results {
            if r.error.is_some() {
                s.refused_groups.insert(r.group.clone());
                s.refused_partitions += 1;
            } else if let Some(offset) = r.written_offset {
                s.written_groups.insert(r.group.clone());
                s.written_partitions += 1;
                if s.written_offsets.len() < NAMES_LISTED {
                    s.written_offsets
                        .push(format!("`{}` {}={offset}", r.group, r.topic_partition));
                }
            } else if r.reason == "group_active" {
                s.active_groups.insert(r.group.clone());
                s.active_partitions += 1;
            } else if r.reason == "group_state_unknown" {
                s.unknown_groups.insert(r.group.clone());
                s.unknown_partitions += 1;
            } else {
                s.up_to_date += 1;
                if ahead.contains(&(r.group.clone(), r.topic_partition.clone())) {
                    s.ahead += 1;
                    s.ahead_groups.insert(r.group.clone());
                } else {
                    s.up_to_date_groups.insert(r.group.clone());
                }
            }
        }
        s
    }

    /// The run's counts, in group × partitions, for the task's metrics.
    pub(super) fn run(&self) -> GroupOffsetSyncRun {
        GroupOffsetSyncRun {
            written: self.written_partitions as u64,
            left_active: self.active_partitions as u64,
            refused: self.refused_partitions as u64,
            unknown_state: self.unknown_partitions as u64,
            up_to_date: self.up_to_date as u64,
            ahead: self.ahead as u64,
        }
    }

    /// Whether the sync wrote, was refused or left a group alone for a reason other than being
    /// current: what an operator should see at info. Otherwise every partition was already up
    /// to date.
    pub(super) fn noteworthy(&self) -> bool {
        self.written_partitions > 0
            || self.refused_partitions > 0
            || !self.active_groups.is_empty()
            || !self.unknown_groups.is_empty()
            || self.ahead > 0
    }
}

/// `groups` named, at most [`NAMES_LISTED`] of them.
fn named(groups: &BTreeSet<String>) -> String {
    let mut names: Vec<String> = groups
        .iter()
        .take(NAMES_LISTED)
        .map(|g| format!("`{g}`"))
        .collect();
    if groups.len() > NAMES_LISTED {
        names.push(format!("{} more", groups.len() - NAMES_LISTED));
    }
    names.join(", ")
}

impl std::fmt::Display for SyncSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.written_partitions > 0 {
            let mut listed = self.written_offsets.join(", ");
            if self.written_partitions > self.written_offsets.len() {
                listed.push_str(&format!(
                    ", {} more",
                    self.written_partitions - self.written_offsets.len()
                ));
            }
            parts.push(format!(
                "wrote {} into {} ({listed})",
                count(self.written_partitions, "offset", "offsets"),
                count(self.written_groups.len(), "target group", "target groups"),
            ));
        }
        if !self.active_groups.is_empty() {
            parts.push(format!(
                "left {} alone: active on the target ({})",
                count(self.active_groups.len(), "group", "groups"),
                named(&self.active_groups)
            ));
        }
        if !self.unknown_groups.is_empty() {
            parts.push(format!(
                "left {} alone: state on the target unknown ({})",
                count(self.unknown_groups.len(), "group", "groups"),
                named(&self.unknown_groups)
            ));
        }
        if self.refused_partitions > 0 {
            parts.push(format!(
                "the target refused {} ({})",
                count(self.refused_partitions, "offset", "offsets"),
                named(&self.refused_groups)
            ));
        }
        if self.ahead > 0 {
            parts.push(format!(
                "left {} of {} alone: past the translated offset on the target, never rewound ({})",
                count(self.ahead, "partition", "partitions"),
                count(self.ahead_groups.len(), "group", "groups"),
                named(&self.ahead_groups)
            ));
        }
        let current = self.up_to_date - self.ahead;
        if current > 0 || parts.is_empty() {
            let groups = if self.up_to_date_groups.is_empty() {
                String::new()
            } else {
                format!(" ({})", named(&self.up_to_date_groups))
            };
            parts.push(format!(
                "{} already up to date{groups}",
                count(current, "partition", "partitions")
            ));
        }
        write!(f, "group offset sync: {}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mm2_checkpoint_core::checkpoint_rules::{target_offset_sync, TargetGroupState};
    use mm2_checkpoint_kafka::ErrorCode;

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

    fn error(code: ErrorCode) -> NativeError {
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
            Some(Err(error(ErrorCode::GroupAuthorizationFailed))),
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
        let failed = || Err(error(ErrorCode::RequestTimedOut));
        // (may emit, discovered, result, verdict)
        let cases: Vec<(bool, bool, GroupOffsetsResult, GroupVerdict)> = vec![
            (false, true, replicated_commit(), GroupVerdict::Abandoned),
            (false, false, failed(), GroupVerdict::Abandoned),
            (
                true,
                true,
                failed(),
                GroupVerdict::FetchFailed(error(ErrorCode::RequestTimedOut)),
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
                Some(error(ErrorCode::GroupAuthorizationFailed)),
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

    fn orders(p: i32) -> TopicPartition {
        TopicPartition::new("orders", p)
    }

    #[test]
    fn a_skip_is_explained_once_per_group_partition_and_reason_and_again_when_the_reason_changes() {
        let mut e = SkipExplanations::default();
        let committed = [orders(0), orders(1)];
        let older = vec![(orders(0), SkipReason::OlderThanEveryKeptSync)];
        assert_eq!(e.news("g", &committed, &older), older);
        assert_eq!(e.news("g", &committed, &older), vec![], "same reason again");
        assert_eq!(e.news("h", &committed, &older), older, "another group");
        let none = vec![(orders(0), SkipReason::NoOffsetSync)];
        assert_eq!(e.news("g", &committed, &none), none, "the reason changed");
        assert_eq!(e.news("g", &committed, &none), vec![]);
    }

    #[test]
    fn a_partition_that_translates_again_is_explained_anew_when_it_is_skipped_later() {
        let mut e = SkipExplanations::default();
        let committed = [orders(0)];
        let skip = vec![(orders(0), SkipReason::NoOffsetSync)];
        assert_eq!(e.news("g", &committed, &skip), skip);
        // Translated (a checkpoint written), then untranslatable again.
        assert_eq!(e.news("g", &committed, &[]), vec![]);
        assert_eq!(e.news("g", &committed, &skip), skip);
        // Nothing newer to write still translates; a loading store or a filter forgets nothing.
        let not_newer = vec![(orders(0), SkipReason::NotNewerThanLastCheckpoint)];
        assert_eq!(e.news("g", &committed, &not_newer), vec![]);
        assert_eq!(e.news("g", &committed, &skip), skip);
        let loading = vec![(orders(0), SkipReason::NotReadToEnd)];
        assert_eq!(e.news("g", &committed, &loading), vec![]);
        assert_eq!(e.news("g", &committed, &skip), vec![]);
    }

    #[test]
    fn only_untranslatable_partitions_are_explained_and_forgotten_groups_are_explained_anew() {
        let mut e = SkipExplanations::default();
        let committed = [orders(0), orders(1), orders(2)];
        let skipped = vec![
            (orders(0), SkipReason::TopicFiltered),
            (orders(1), SkipReason::NotNewerThanLastCheckpoint),
            (orders(2), SkipReason::NotReadToEnd),
        ];
        assert_eq!(e.news("g", &committed, &skipped), vec![]);
        let older = vec![(orders(0), SkipReason::OlderThanEveryKeptSync)];
        assert_eq!(e.news("g", &committed, &older), older);
        e.forget_groups(&names(&["g"]));
        assert_eq!(e.news("g", &committed, &older), older);
    }

    fn result(
        group: &str,
        p: i32,
        written: Option<i64>,
        reason: &str,
        error: Option<&str>,
    ) -> GroupOffsetSyncResult {
        GroupOffsetSyncResult {
            group: group.to_string(),
            topic_partition: orders(p),
            written_offset: written,
            reason: reason.to_string(),
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn a_sync_summary_names_the_groups_and_offsets_written_left_alone_and_refused_with_singulars() {
        let ahead = BTreeSet::from([("f".to_string(), tp("orders", 0))]);
        let s = SyncSummary::of(
            &[
                result("a", 0, Some(5), "target_behind", None),
                result("a", 1, Some(6), "partition_new_at_target", None),
                result("b", 0, Some(1), "group_absent_at_target", None),
                result("c", 0, None, "group_active", None),
                result("d", 0, None, "target_at_or_ahead", None),
                result("e", 0, None, "group_absent_at_target", Some("denied")),
                result("f", 0, None, "target_at_or_ahead", None),
            ],
            &ahead,
        );
        assert!(s.noteworthy());
        assert_eq!(
            s.to_string(),
            "group offset sync: wrote 3 offsets into 2 target groups (`a` orders-0=5, `a` \
             orders-1=6, `b` orders-0=1); left 1 group alone: active on the target (`c`); the \
             target refused 1 offset (`e`); left 1 partition of 1 group alone: past the \
             translated offset on the target, never rewound (`f`); 1 partition already up to \
             date (`d`)"
        );
        let run = s.run();
        assert_eq!(
            (run.written, run.up_to_date, run.ahead, run.refused),
            (3, 2, 1, 1)
        );
        let quiet = SyncSummary::of(
            &[result("d", 0, None, "target_at_or_ahead", None)],
            &BTreeSet::new(),
        );
        assert!(!quiet.noteworthy());
        assert_eq!(
            quiet.to_string(),
            "group offset sync: 1 partition already up to date (`d`)"
        );
    }

    #[test]
    fn ahead_of_translation_is_an_idle_target_group_past_the_translated_offset() {
        let converted: BTreeMap<TopicPartition, CommittedOffset> = [
            (tp("orders", 0), offset(50)),
            (tp("orders", 1), offset(50)),
            (tp("orders", 2), offset(50)),
            (tp("orders", 3), offset(50)),
        ]
        .into_iter()
        .collect();
        let state = TargetGroupState::Empty {
            committed: [
                (tp("orders", 0), Some(60)),
                (tp("orders", 1), Some(50)),
                (tp("orders", 2), Some(40)),
                (tp("orders", 3), None),
            ]
            .into_iter()
            .collect(),
        };
        assert_eq!(
            ahead_of_translation(&converted, &state),
            BTreeSet::from([tp("orders", 0)])
        );
        for other in [
            TargetGroupState::Active,
            TargetGroupState::Absent,
            TargetGroupState::Unknown,
        ] {
            assert!(ahead_of_translation(&converted, &other).is_empty());
        }
    }

    #[test]
    fn a_sync_summary_lists_at_most_five_group_names() {
        let results: Vec<_> = (0..7)
            .map(|i| result(&format!("g{i}"), 0, Some(1), "target_behind", None))
            .collect();
        assert_eq!(
            SyncSummary::of(&results, &BTreeSet::new()).to_string(),
            "group offset sync: wrote 7 offsets into 7 target groups (`g0` orders-0=1, `g1` \
             orders-0=1, `g2` orders-0=1, `g3` orders-0=1, `g4` orders-0=1, 2 more)"
        );
    }
}
