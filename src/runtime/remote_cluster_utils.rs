//! Failover offset translation, what Java's `RemoteClusterUtils.translateOffsets` (through
//! `MirrorClient.remoteConsumerOffsets`) does: read the checkpoints a checkpoint task wrote on
//! the **target** cluster and return, per consumer group, the target-cluster offsets a consumer
//! should resume from after failing over. Plus a dry run, [`failover_report`], of what switching
//! a group to those offsets would do, and [`commit_translated_offsets`], which commits them into
//! the groups that are idle there. Failback, the other direction, is [`crate::failback`]'s.
//!
//! Plain data in, plain data out: client settings are librdkafka key/value pairs for the target
//! cluster, results are maps and vectors of owned values.
//!
//! Differences from Java, on purpose:
//! - **No silently partial result.** Java returns whatever it has read when its deadline passes;
//!   here reaching the timeout before the end of the checkpoints topic is an
//!   [`Error::TimedOut`]. A missing checkpoints topic is an error too (usually a wrong source
//!   alias), not an empty map.
//! - The timeout bounds the whole call (Java may block for the full timeout on *each* poll).
//! - Several groups in one read (one group, a list, or a regex), instead of one read per group.
//! - Malformed records, tombstones and checkpoints with a negative downstream offset are skipped
//!   and counted (Java throws on the last two).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::runtime::checkpoint_task::decisions::{activities, committed_on_target, Activity};
use crate::runtime::checkpoint_task::MAX_OFFSET_FETCHES_IN_FLIGHT;
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::checkpoint_rules::{
    offsets_to_write, target_offset_sync, CommittedOffset, NoWriteReason, OffsetSyncDecision,
    TargetGroupState, WriteReason,
};
use mm2_checkpoint_core::error::{ConfigError, Error};
use mm2_checkpoint_core::filters::PatternList;
use mm2_checkpoint_core::replication_policy::ReplicationPolicy;
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::Admin;
use mm2_checkpoint_kafka::kafka_based_log::{each_record, KafkaBasedLog, ReadToEnd};
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// Which consumer groups to translate.
#[derive(Clone, Debug)]
pub enum GroupSelector {
    /// Exactly this group (Java's `translateOffsets` argument).
    One(String),
    /// Every group in the set.
    List(BTreeSet<String>),
    /// Every group whose whole id matches (Java regex semantics as in MM2's `groups` setting;
    /// build with [`GroupSelector::regex`]).
    Pattern(PatternList),
}

impl GroupSelector {
    /// One group.
    pub fn one(group: impl Into<String>) -> Self {
        GroupSelector::One(group.into())
    }

    /// A list of groups.
    pub fn list<I, S>(groups: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        GroupSelector::List(groups.into_iter().map(Into::into).collect())
    }

    /// One group from its text, exactly as given; the error (key `groups`) refuses an empty id.
    pub fn parse_one(group: &str) -> Result<Self, ConfigError> {
        if group.is_empty() {
            return Err(ConfigError::new("groups", "is empty"));
        }
        Ok(GroupSelector::one(group))
    }

    /// A list of groups from MM2's list syntax (comma-separated, each trimmed, empty items
    /// dropped); the error (key `groups`) refuses a text that lists no group.
    pub fn parse_list(groups: &str) -> Result<Self, ConfigError> {
        let list: Vec<String> = mm2_checkpoint_core::filters::split_list(groups)
            .into_iter()
            .filter(|g| !g.is_empty())
            .collect();
        if list.is_empty() {
            return Err(ConfigError::new(
                "groups",
                format!("(`{groups}`) lists no group"),
            ));
        }
        Ok(GroupSelector::list(list))
    }

    /// The groups whose whole id matches `pattern`. The error names the key `groups`.
    pub fn regex(pattern: &str) -> Result<Self, ConfigError> {
        PatternList::compile("groups", &[pattern.to_string()]).map(GroupSelector::Pattern)
    }

    /// True when `group` is selected.
    pub fn matches(&self, group: &str) -> bool {
        match self {
            GroupSelector::One(g) => g == group,
            GroupSelector::List(gs) => gs.contains(group),
            GroupSelector::Pattern(p) => p.matches(group),
        }
    }
}

/// A translated position for one target partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslatedOffset {
    /// Where the consumer should resume on the target (the checkpoint's downstream offset).
    pub offset: i64,
    /// The metadata the group committed on the source.
    pub metadata: String,
    /// The group's committed offset on the source that this translates.
    pub upstream_offset: i64,
}

/// Per group, per **target** topic-partition (already renamed, ready for a consumer's seek or
/// commit), the latest checkpoint; plus what was read and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranslatedOffsets {
    /// The checkpoints topic that was read.
    pub checkpoints_topic: String,
    /// Group → target partition → translated offset.
    pub groups: BTreeMap<String, BTreeMap<TopicPartition, TranslatedOffset>>,
    /// Records read from the checkpoints topic (all groups).
    pub records_read: u64,
    /// Records that failed to decode (including tombstones), skipped.
    pub malformed_records: u64,
    /// Checkpoints of selected groups with a negative downstream offset, skipped.
    pub negative_offset_records: u64,
}

impl TranslatedOffsets {
    /// The translated offsets of `group`, if any checkpoint of it was found.
    pub fn group(&self, group: &str) -> Option<&BTreeMap<TopicPartition, TranslatedOffset>> {
        self.groups.get(group)
    }

    /// Records skipped for any reason.
    pub fn records_skipped(&self) -> u64 {
        self.malformed_records + self.negative_offset_records
    }

    /// Applies one record of the checkpoints topic: the last checkpoint of a group and target
    /// partition wins; bad records are counted, never fatal.
    pub fn apply_record(
        &mut self,
        selector: &GroupSelector,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) {
        self.records_read += 1;
        let cp = match Checkpoint::decode(key, value) {
            Ok(cp) => cp,
            Err(e) => {
                self.malformed_records += 1;
                log::debug!(
                    "skipping a malformed record in `{}`: {e}",
                    self.checkpoints_topic
                );
                return;
            }
        };
        if !selector.matches(&cp.consumer_group_id) {
            return;
        }
        if cp.downstream_offset < 0 {
            self.negative_offset_records += 1;
            log::debug!(
                "skipping a checkpoint with negative downstream offset in `{}`: {cp:?}",
                self.checkpoints_topic
            );
            return;
        }
        self.groups.entry(cp.consumer_group_id).or_default().insert(
            cp.topic_partition,
            TranslatedOffset {
                offset: cp.downstream_offset,
                metadata: cp.metadata,
                upstream_offset: cp.upstream_offset,
            },
        );
    }
}

/// Reads `policy.checkpoints_topic(source_alias)` (partition 0) on the target cluster once, from
/// the beginning to its end, and returns the latest translated offsets of the selected groups.
/// `target_settings` are librdkafka consumer settings for the **target** cluster (at least
/// `bootstrap.servers`). The whole call is bounded by `timeout`; reaching it is an
/// [`Error::TimedOut`], never a partial result.
pub fn translate_offsets(
    target_settings: &BTreeMap<String, String>,
    source_alias: &str,
    policy: &ReplicationPolicy,
    groups: &GroupSelector,
    timeout: Duration,
) -> Result<TranslatedOffsets, Error> {
    let deadline = Instant::now() + timeout;
    let topic = policy.checkpoints_topic(source_alias);
    let signal = StopSignal::new();
    let mut log = KafkaBasedLog::open(target_settings, &topic, "checkpoints-reader", &signal)?;
    let mut out = TranslatedOffsets {
        checkpoints_topic: topic.clone(),
        ..TranslatedOffsets::default()
    };
    let outcome = log.read_to_end_by(
        Some(deadline),
        &mut each_record(|key, value| out.apply_record(groups, key, value)),
    );
    match outcome {
        Ok(ReadToEnd::Reached) => Ok(out),
        Ok(ReadToEnd::TopicMissing) => Err(Error::kafka(
            format!("reading the checkpoints of source `{source_alias}` on the target"),
            format!("topic `{topic}` does not exist (wrong source alias or replication policy?)"),
        )),
        Err(Error::TimedOut(what)) => Err(Error::TimedOut(format!(
            "{what}: the end was not reached within {timeout:?}, so no translation is returned"
        ))),
        Err(e) => Err(e),
    }
}

/// What switching one group's partition to its translated offset would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionFailover {
    /// Consumer group.
    pub group: String,
    /// Target topic-partition.
    pub topic_partition: TopicPartition,
    /// The translated offset.
    pub translated_offset: i64,
    /// The group's committed offset on the target now, if it has one.
    pub current_offset: Option<i64>,
    /// Offsets the consumer would jump over (translated ahead of current).
    pub skipped: u64,
    /// Offsets the consumer would read again (translated behind current).
    pub reread: u64,
}

/// The dry run of a failover: per group and target partition, the effect of moving from the
/// group's current target offset to the translated one. The counts are offset distances, so
/// they bound the records involved (compaction or transaction markers make them smaller).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailoverReport {
    /// One entry per translated group and partition, ordered by group then partition.
    pub partitions: Vec<PartitionFailover>,
}

impl FailoverReport {
    /// Offsets skipped over all partitions (saturating: distances between far-apart offsets
    /// could otherwise overflow the sum).
    pub fn total_skipped(&self) -> u64 {
        self.partitions
            .iter()
            .fold(0, |sum, p| sum.saturating_add(p.skipped))
    }

    /// Offsets re-read over all partitions (saturating).
    pub fn total_reread(&self) -> u64 {
        self.partitions
            .iter()
            .fold(0, |sum, p| sum.saturating_add(p.reread))
    }

    /// Entries of one group.
    pub fn group<'a>(&'a self, group: &'a str) -> impl Iterator<Item = &'a PartitionFailover> {
        self.partitions.iter().filter(move |p| p.group == group)
    }

    /// True when `group` has entries and its committed offset on every one of them is already
    /// at or past the translated offset: the group's position where it committed last is
    /// reflected on this cluster, and a consumer starting here skips nothing by not moving.
    pub fn caught_up(&self, group: &str) -> bool {
        let mut entries = self.group(group).peekable();
        entries.peek().is_some()
            && entries.all(|p| p.current_offset.is_some_and(|c| c >= p.translated_offset))
    }
}

/// `(skipped, reread)` when a consumer at `current` moves to `translated`.
fn distance(translated: i64, current: Option<i64>) -> (u64, u64) {
    let Some(current) = current else {
        return (0, 0);
    };
    let diff = i128::from(translated) - i128::from(current);
    let clamp = |d: i128| u64::try_from(d).unwrap_or(u64::MAX);
    if diff >= 0 {
        (clamp(diff), 0)
    } else {
        (0, clamp(-diff))
    }
}

/// Fetches every translated group's committed offsets on the target (batched, at most
/// [`MAX_OFFSET_FETCHES_IN_FLIGHT`] requests in flight) and reports, per partition, how far the
/// translated offset is from the current one. Changes nothing. Bounded by `timeout` (reaching
/// it, whichever request is waiting, is an [`Error::TimedOut`]); a group whose offsets cannot be
/// fetched fails the whole call (naming the group).
pub fn failover_report(
    target_settings: &BTreeMap<String, String>,
    translated: &TranslatedOffsets,
    timeout: Duration,
) -> Result<FailoverReport, Error> {
    let deadline = Instant::now() + timeout;
    let groups: Vec<String> = translated.groups.keys().cloned().collect();
    if groups.is_empty() {
        return Ok(FailoverReport::default());
    }
    let partitions: Vec<TopicPartition> = translated
        .groups
        .values()
        .flat_map(|m| m.keys().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let signal = StopSignal::new();
    let mut admin = Admin::open(
        target_settings,
        "target",
        "failover-report-admin",
        timeout,
        &signal,
    )?
    .with_deadline(deadline);
    let fetched =
        admin.list_group_offsets(&groups, Some(&partitions), MAX_OFFSET_FETCHES_IN_FLIGHT)?;
    let mut report = FailoverReport::default();
    for (group, result) in fetched {
        let current = result.map_err(|e| {
            let what = format!("fetching the committed offsets of group `{group}` on the target");
            // librdkafka's own request timeout is the caller's budget: running out of it is the
            // documented timeout, not a broker's error.
            if e.is_local_timeout() {
                Error::TimedOut(format!("{what}: {e}"))
            } else {
                Error::kafka(what, e)
            }
        })?;
        let Some(offsets) = translated.groups.get(&group) else {
            continue;
        };
        for (tp, t) in offsets {
            let current_offset = current.get(tp).cloned().flatten().map(|o| o.offset);
            let (skipped, reread) = distance(t.offset, current_offset);
            report.partitions.push(PartitionFailover {
                group: group.clone(),
                topic_partition: tp.clone(),
                translated_offset: t.offset,
                current_offset,
                skipped,
                reread,
            });
        }
    }
    Ok(report)
}

/// What committing one group's translated offset on one partition did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Committed, for this reason.
    Written(WriteReason),
    /// Left alone, for this reason (the group is in use or unknown, or already at or past the
    /// translated offset).
    Left(NoWriteReason),
    /// The broker refused this partition's commit (its error text).
    Failed(String),
}

/// One group's translated offset on one partition, and what committing it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionCommit {
    /// Consumer group.
    pub group: String,
    /// Topic-partition on the cluster committed to.
    pub topic_partition: TopicPartition,
    /// The translated offset.
    pub offset: i64,
    /// What happened.
    pub outcome: CommitOutcome,
}

/// What [`commit_translated_offsets`] did, per group and partition (ordered by group, then
/// partition).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitReport {
    /// One entry per translated group and partition.
    pub partitions: Vec<PartitionCommit>,
}

impl CommitReport {
    /// Partitions committed.
    pub fn written(&self) -> usize {
        self.count(|o| matches!(o, CommitOutcome::Written(_)))
    }

    /// Partitions left alone on purpose.
    pub fn left(&self) -> usize {
        self.count(|o| matches!(o, CommitOutcome::Left(_)))
    }

    /// Partitions whose commit the broker refused.
    pub fn failed(&self) -> usize {
        self.count(|o| matches!(o, CommitOutcome::Failed(_)))
    }

    fn count(&self, f: impl Fn(&CommitOutcome) -> bool) -> usize {
        self.partitions.iter().filter(|p| f(&p.outcome)).count()
    }
}

/// Commits translated offsets (from [`translate_offsets`], or failback's
/// [`translate_offsets_back`](crate::failback::translate_offsets_back)) into the groups on the
/// cluster `settings` reach, by the rules of the task's group offset sync: only into a group
/// that does not exist there or has no members, never moving a partition backwards, and
/// nothing into a group whose state cannot be read. Waits for the broker's answer per group.
///
/// Bounded by `timeout` for the whole call ([`Error::TimedOut`]). A group whose committed
/// offsets cannot be read is left alone (`group_state_unknown`) rather than failing the call; a
/// partition the broker refuses is reported as [`CommitOutcome::Failed`].
pub fn commit_translated_offsets(
    settings: &BTreeMap<String, String>,
    translated: &TranslatedOffsets,
    timeout: Duration,
) -> Result<CommitReport, Error> {
    commit_into_idle_groups(settings, "target", translated, timeout)
}

/// [`commit_translated_offsets`] on the cluster named `cluster` in messages.
pub(crate) fn commit_into_idle_groups(
    settings: &BTreeMap<String, String>,
    cluster: &str,
    translated: &TranslatedOffsets,
    timeout: Duration,
) -> Result<CommitReport, Error> {
    let plan: BTreeMap<&String, BTreeMap<TopicPartition, CommittedOffset>> = translated
        .groups
        .iter()
        .map(|(group, offsets)| {
            let offsets = offsets
                .iter()
                .map(|(tp, t)| {
                    (
                        tp.clone(),
                        CommittedOffset::new(t.offset, t.metadata.clone()),
                    )
                })
                .collect();
            (group, offsets)
        })
        .collect();
    let mut report = CommitReport::default();
    if plan.is_empty() {
        return Ok(report);
    }
    let deadline = Instant::now() + timeout;
    let signal = StopSignal::new();
    let mut admin = Admin::open(settings, cluster, "offset-commit-admin", timeout, &signal)?
        .with_deadline(deadline);
    let groups: Vec<String> = plan.keys().map(|g| (*g).clone()).collect();
    let activities = activities(admin.describe_groups(&groups)?);
    for (&group, offsets) in &plan {
        let state = match activities.get(group).copied().unwrap_or(Activity::Unknown) {
            Activity::Idle => {
                let fetched = admin.list_group_offsets(std::slice::from_ref(group), None, 1)?;
                match fetched.into_iter().next().map(|(_, r)| r) {
                    Some(Ok(committed)) => TargetGroupState::Empty {
                        committed: committed_on_target(committed),
                    },
                    Some(Err(e)) => {
                        log::warn!("cannot read the committed offsets of idle group `{group}`: {e}; leaving it alone");
                        TargetGroupState::Unknown
                    }
                    None => TargetGroupState::Unknown,
                }
            }
            Activity::Absent => TargetGroupState::Absent,
            Activity::Active => TargetGroupState::Active,
            Activity::Unknown => TargetGroupState::Unknown,
        };
        let decisions = target_offset_sync(offsets, &state);
        let writes = offsets_to_write(&decisions);
        let mut refused: BTreeMap<TopicPartition, String> = BTreeMap::new();
        if !writes.is_empty() {
            let entries: Vec<(TopicPartition, CommittedOffset)> = writes.into_iter().collect();
            for (tp, error) in admin.alter_group_offsets(group, &entries)? {
                if let Some(error) = error {
                    refused.insert(tp, error);
                }
            }
        }
        for decision in decisions {
            let (tp, outcome) = match decision {
                OffsetSyncDecision::Write {
                    partition, reason, ..
                } => {
                    let outcome = match refused.remove(&partition) {
                        Some(error) => CommitOutcome::Failed(error),
                        None => CommitOutcome::Written(reason),
                    };
                    (partition, outcome)
                }
                OffsetSyncDecision::Skip { partition, reason } => {
                    (partition, CommitOutcome::Left(reason))
                }
            };
            let offset = offsets.get(&tp).map_or(-1, |o| o.offset);
            report.partitions.push(PartitionCommit {
                group: group.clone(),
                topic_partition: tp,
                offset,
                outcome,
            });
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(group: &str, partition: i32, upstream: i64, downstream: i64) -> (Vec<u8>, Vec<u8>) {
        let cp = Checkpoint::new(
            group,
            TopicPartition::new("source.orders", partition),
            upstream,
            downstream,
            "meta",
        );
        (cp.encode_key().unwrap(), cp.encode_value().unwrap())
    }

    fn apply(out: &mut TranslatedOffsets, sel: &GroupSelector, r: &(Vec<u8>, Vec<u8>)) {
        out.apply_record(sel, Some(&r.0), Some(&r.1));
    }

    #[test]
    fn the_last_checkpoint_of_a_group_and_partition_wins() {
        let sel = GroupSelector::one("g");
        let mut out = TranslatedOffsets::default();
        for r in [
            record("g", 0, 10, 5),
            record("g", 1, 3, 3),
            record("g", 0, 20, 15),
        ] {
            apply(&mut out, &sel, &r);
        }
        let g = out.group("g").unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(
            g[&TopicPartition::new("source.orders", 0)],
            TranslatedOffset {
                offset: 15,
                metadata: "meta".into(),
                upstream_offset: 20
            }
        );
        assert_eq!(out.records_read, 3);
        assert_eq!(out.records_skipped(), 0);
    }

    #[test]
    fn bad_records_are_counted_and_skipped_and_keep_the_previous_value() {
        let sel = GroupSelector::one("g");
        let mut out = TranslatedOffsets::default();
        apply(&mut out, &sel, &record("g", 0, 10, 5));
        let good = record("g", 0, 11, 6);
        type KeyValue<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);
        let cases: &[KeyValue<'_>] = &[
            (None, None),                        // tombstone
            (Some(&good.0), None),               // value tombstone
            (Some(&good.0[..3]), Some(&good.1)), // truncated key
            (Some(&good.0), Some(&good.1[..5])), // truncated value
            (Some(b"\xff\xff"), Some(&good.1)),  // negative string length
        ];
        for (k, v) in cases {
            out.apply_record(&sel, *k, *v);
        }
        apply(&mut out, &sel, &record("g", 0, 12, -1));
        apply(&mut out, &sel, &record("other", 0, 12, -1)); // not selected: not counted
        assert_eq!(out.malformed_records, cases.len() as u64);
        assert_eq!(out.negative_offset_records, 1);
        assert_eq!(
            out.group("g").unwrap()[&TopicPartition::new("source.orders", 0)].offset,
            5
        );
    }

    #[test]
    fn selectors_pick_one_group_a_list_or_whole_regex_matches() {
        let cases: Vec<(GroupSelector, &[&str], &[&str])> = vec![
            (GroupSelector::one("app"), &["app"], &["app2", "ap", ""]),
            (GroupSelector::list(["a", "b"]), &["a", "b"], &["c", "ab"]),
            (
                GroupSelector::regex("app-.*").unwrap(),
                &["app-1", "app-"],
                &["my-app-1", "app"],
            ),
            (GroupSelector::regex("a|b").unwrap(), &["a", "b"], &["ab"]),
        ];
        for (sel, yes, no) in cases {
            for g in yes {
                assert!(sel.matches(g), "{sel:?} should select {g}");
            }
            for g in no {
                assert!(!sel.matches(g), "{sel:?} should not select {g}");
            }
        }
        assert_eq!(GroupSelector::regex("(").unwrap_err().key, "groups");
    }

    #[test]
    fn distance_counts_skips_ahead_and_rereads_behind() {
        let cases = [
            (10, Some(10), (0, 0)),
            (15, Some(10), (5, 0)),
            (7, Some(10), (0, 3)),
            (7, None, (0, 0)),
            (i64::MAX, Some(i64::MIN), (u64::MAX, 0)),
            (0, Some(i64::MAX), (0, i64::MAX as u64)),
        ];
        for (translated, current, expected) in cases {
            assert_eq!(
                distance(translated, current),
                expected,
                "{translated} vs {current:?}"
            );
        }
    }

    #[test]
    fn a_group_is_caught_up_when_every_partition_is_at_or_past_its_translation() {
        let p = |group: &str, partition, translated, current| PartitionFailover {
            group: group.into(),
            topic_partition: TopicPartition::new("t", partition),
            translated_offset: translated,
            current_offset: current,
            skipped: 0,
            reread: 0,
        };
        let r = FailoverReport {
            partitions: vec![
                p("at", 0, 10, Some(10)),
                p("at", 1, 5, Some(9)),
                p("behind", 0, 10, Some(10)),
                p("behind", 1, 5, Some(4)),
                p("never", 0, 10, None),
            ],
        };
        assert!(r.caught_up("at"));
        assert!(!r.caught_up("behind"));
        assert!(!r.caught_up("never"), "no commit at all is not caught up");
    }

    #[test]
    fn report_totals_sum_the_partitions() {
        let p = |group: &str, skipped, reread| PartitionFailover {
            group: group.into(),
            topic_partition: TopicPartition::new("t", 0),
            translated_offset: 0,
            current_offset: None,
            skipped,
            reread,
        };
        let r = FailoverReport {
            partitions: vec![p("a", 5, 0), p("b", 0, 7), p("a", 1, 0)],
        };
        assert_eq!((r.total_skipped(), r.total_reread()), (6, 7));
        assert!(
            !r.caught_up("nobody"),
            "a group without entries is not caught up"
        );
        assert_eq!(r.group("a").count(), 2);
        let huge = FailoverReport {
            partitions: vec![p("a", u64::MAX, 1), p("b", 1, u64::MAX), p("c", 1, 1)],
        };
        assert_eq!(
            (huge.total_skipped(), huge.total_reread()),
            (u64::MAX, u64::MAX),
            "totals saturate instead of overflowing"
        );
    }
}
