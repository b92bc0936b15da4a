//! What MirrorCheckpointTask decides, without any I/O: which checkpoints to emit for a group
//! (its `checkpointsForGroup`: per committed partition, filter, translate, rename, and keep only
//! what moves forward) and which translated offsets to commit into the target group (its
//! `syncGroupOffset`, run for the groups the idle-group refresh found idle on the target).
//!
//! Every skipped partition carries a reason, so the runtime can report *why* nothing was emitted.
//! Two deliberate departures from Java: two upstream partitions renamed onto one target
//! partition keep the first instead of failing the whole poll, and offsets are written only into
//! target groups that are provably idle or absent (Java also writes into groups it merely did
//! not see as idle, relying on the broker to refuse).

use std::collections::BTreeMap;

use crate::checkpoint::Checkpoint;
use crate::filters::TopicFilter;
use crate::offset_sync_store::{OffsetSyncStore, Translation};
use crate::reverse_translation::{translate_back, ReverseTranslation};
use crate::topic_partition::TopicPartition;

/// A committed consumer-group offset with its metadata, as the admin API returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommittedOffset {
    /// Next offset the group will read.
    pub offset: i64,
    /// Free-form metadata committed with the offset (Java's `null` is the empty string).
    pub metadata: String,
}

impl CommittedOffset {
    /// Makes a committed offset.
    pub fn new(offset: i64, metadata: impl Into<String>) -> Self {
        CommittedOffset {
            offset,
            metadata: metadata.into(),
        }
    }
}

/// Why no checkpoint was emitted for an upstream partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// The topic filter rejects the upstream topic.
    TopicFiltered,
    /// The group has no committed offset for the partition.
    NoCommittedOffset,
    /// The initial read of the offset-syncs topic has not finished.
    NotReadToEnd,
    /// No offset sync was ever seen for the partition.
    NoOffsetSync,
    /// The committed offset is older than every sync still kept (Java's `-1`).
    OlderThanEveryKeptSync,
    /// The translation came out negative although a sync was found (only with corrupt syncs);
    /// Java drops it with the same `downstream < 0` filter as the `-1` sentinel.
    NegativeTranslation,
    /// The translation would repeat or lower the last checkpoint's downstream offset while the
    /// upstream offset did not rewind.
    NotNewerThanLastCheckpoint,
    /// Another upstream partition of this group already produced a checkpoint for the same
    /// renamed target partition (Java throws and loses the whole poll).
    RenamedPartitionCollides,
}

impl SkipReason {
    /// Every reason, in declaration order (reports list them all, zero or not).
    pub const ALL: [SkipReason; 8] = [
        SkipReason::TopicFiltered,
        SkipReason::NoCommittedOffset,
        SkipReason::NotReadToEnd,
        SkipReason::NoOffsetSync,
        SkipReason::OlderThanEveryKeptSync,
        SkipReason::NegativeTranslation,
        SkipReason::NotNewerThanLastCheckpoint,
        SkipReason::RenamedPartitionCollides,
    ];

    /// Stable snake_case name for logs, diagnostics and the C API.
    pub fn as_str(&self) -> &'static str {
        match self {
            SkipReason::TopicFiltered => "topic_filtered",
            SkipReason::NoCommittedOffset => "no_committed_offset",
            SkipReason::NotReadToEnd => "not_read_to_end",
            SkipReason::NoOffsetSync => "no_offset_sync",
            SkipReason::OlderThanEveryKeptSync => "older_than_every_kept_sync",
            SkipReason::NegativeTranslation => "negative_translation",
            SkipReason::NotNewerThanLastCheckpoint => "not_newer_than_last_checkpoint",
            SkipReason::RenamedPartitionCollides => "renamed_partition_collides",
        }
    }
}

/// Why a checkpoint was emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EmitReason {
    /// No earlier checkpoint is known for the group or for this partition.
    FirstCheckpoint,
    /// The downstream offset moved past the last checkpoint's.
    DownstreamAdvanced,
    /// The upstream offset went below the last checkpoint's (e.g. an offset reset); MM2 then
    /// lets the downstream offset go backwards too.
    UpstreamRewound,
}

impl EmitReason {
    /// Stable snake_case name for logs, diagnostics and the C API.
    pub fn as_str(&self) -> &'static str {
        match self {
            EmitReason::FirstCheckpoint => "first_checkpoint",
            EmitReason::DownstreamAdvanced => "downstream_advanced",
            EmitReason::UpstreamRewound => "upstream_rewound",
        }
    }
}

/// The outcome of one group's emission pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupCheckpoints {
    /// Checkpoints to emit, keyed by **target** (renamed) partition.
    pub emitted: BTreeMap<TopicPartition, (Checkpoint, EmitReason)>,
    /// Committed **upstream** partitions that produced no checkpoint, in upstream order.
    pub skipped: Vec<(TopicPartition, SkipReason)>,
}

impl GroupCheckpoints {
    /// The emitted checkpoints, in target-partition order.
    pub fn checkpoints(&self) -> impl Iterator<Item = &Checkpoint> {
        self.emitted.values().map(|(cp, _)| cp)
    }

    /// The emitted checkpoints by value, e.g. for `CheckpointStore::update`.
    pub fn into_checkpoints(self) -> impl Iterator<Item = Checkpoint> {
        self.emitted.into_values().map(|(cp, _)| cp)
    }
}

/// Java's `checkpointsForGroup`: for each committed upstream partition, filter by topic,
/// translate, drop negative translations, and keep only checkpoints newer than `last` (the
/// group's last stored checkpoints, `None` if the store never saw the group).
///
/// `rename` maps an upstream partition to its target partition (the replication policy's
/// rename). Partitions are processed in upstream order, so on a rename collision the lowest
/// upstream partition wins.
pub fn checkpoints_for_group(
    group: &str,
    committed: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
    topic_filter: &TopicFilter,
    syncs: &OffsetSyncStore,
    rename: &dyn Fn(&TopicPartition) -> TopicPartition,
    last: Option<&BTreeMap<TopicPartition, Checkpoint>>,
) -> GroupCheckpoints {
    checkpoints_for_group_both_ways(group, committed, topic_filter, syncs, None, rename, last)
}

/// The reverse flow's offset syncs, for reverse checkpoints: in the task of the flow B->A, the
/// syncs of the flow A->B, and which of B's topics are replicas of A's (`A.orders` → `orders`).
pub struct ReverseSyncs<'a> {
    /// The A->B flow's offset syncs (keyed by A's topics).
    pub store: &'a OffsetSyncStore,
    /// The topic on A a topic of B replicates, one hop up; `None` for a topic that is not a
    /// replica of A's.
    pub original_topic: &'a dyn Fn(&str) -> Option<String>,
}

/// [`checkpoints_for_group`], with reverse checkpoints when `reverse` is given: a commit on a
/// replica of a target topic (`A.orders` on B, in the task of the flow B->A) is translated back
/// to that target topic (`orders` on A) with the reverse flow's syncs
/// ([`translate_back`]: never ahead), and its
/// checkpoint names the target topic itself, with the group's offset on B as its upstream
/// offset. Every other partition is decided as by [`checkpoints_for_group`].
pub fn checkpoints_for_group_both_ways(
    group: &str,
    committed: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
    topic_filter: &TopicFilter,
    syncs: &OffsetSyncStore,
    reverse: Option<&ReverseSyncs<'_>>,
    rename: &dyn Fn(&TopicPartition) -> TopicPartition,
    last: Option<&BTreeMap<TopicPartition, Checkpoint>>,
) -> GroupCheckpoints {
    let mut out = GroupCheckpoints::default();
    for (upstream, commit) in committed {
        let decided = checkpoint_for_partition(
            group,
            upstream,
            commit.as_ref(),
            topic_filter,
            Translator { syncs, reverse },
            rename,
            last,
        );
        match decided {
            Ok((checkpoint, reason)) => {
                if let Some((kept, _)) = out.emitted.get(&checkpoint.topic_partition) {
                    log::warn!(
                        "group {group}: {upstream} and another upstream partition both rename to {}; keeping {kept:?}",
                        checkpoint.topic_partition
                    );
                    out.skipped
                        .push((upstream.clone(), SkipReason::RenamedPartitionCollides));
                } else {
                    log::trace!(
                        "group {group}: emitting {checkpoint:?} ({})",
                        reason.as_str()
                    );
                    out.emitted
                        .insert(checkpoint.topic_partition.clone(), (checkpoint, reason));
                }
            }
            Err(reason) => {
                log::trace!(
                    "group {group}: no checkpoint for {upstream} ({})",
                    reason.as_str()
                );
                out.skipped.push((upstream.clone(), reason));
            }
        }
    }
    out
}

/// The offset syncs one partition is translated with: the flow's own, or, for a replica of a
/// target topic with reverse checkpoints on, the reverse flow's.
#[derive(Clone, Copy)]
struct Translator<'a> {
    syncs: &'a OffsetSyncStore,
    reverse: Option<&'a ReverseSyncs<'a>>,
}

impl Translator<'_> {
    /// The target partition and offset `upstream` at `offset` translates to.
    fn translate(
        self,
        upstream: &TopicPartition,
        offset: i64,
        rename: &dyn Fn(&TopicPartition) -> TopicPartition,
    ) -> Result<(TopicPartition, i64), SkipReason> {
        let original = self
            .reverse
            .and_then(|r| (r.original_topic)(&upstream.topic).map(|topic| (r, topic)));
        if let Some((reverse, topic)) = original {
            let target = TopicPartition::new(topic, upstream.partition);
            return match translate_back(reverse.store, &target, offset) {
                ReverseTranslation::Offset { upstream: o, .. } if o < 0 => {
                    Err(SkipReason::NegativeTranslation)
                }
                ReverseTranslation::Offset { upstream: o, .. } => Ok((target, o)),
                ReverseTranslation::NotReadToEnd => Err(SkipReason::NotReadToEnd),
                ReverseTranslation::NoOffsetSync => Err(SkipReason::NoOffsetSync),
                ReverseTranslation::OlderThanEveryKeptSync => {
                    Err(SkipReason::OlderThanEveryKeptSync)
                }
            };
        }
        match self.syncs.translate(upstream, offset) {
            Translation::NotReadToEnd => Err(SkipReason::NotReadToEnd),
            Translation::NoOffsetSync => Err(SkipReason::NoOffsetSync),
            Translation::OlderThanEveryKeptSync => Err(SkipReason::OlderThanEveryKeptSync),
            Translation::Offset(d) if d < 0 => Err(SkipReason::NegativeTranslation),
            Translation::Offset(d) => Ok((rename(upstream), d)),
        }
    }
}

/// Steps 1–4 of the emission pipeline for one upstream partition.
fn checkpoint_for_partition(
    group: &str,
    upstream: &TopicPartition,
    commit: Option<&CommittedOffset>,
    topic_filter: &TopicFilter,
    translator: Translator<'_>,
    rename: &dyn Fn(&TopicPartition) -> TopicPartition,
    last: Option<&BTreeMap<TopicPartition, Checkpoint>>,
) -> Result<(Checkpoint, EmitReason), SkipReason> {
    if !topic_filter.should_replicate_topic(&upstream.topic) {
        return Err(SkipReason::TopicFiltered);
    }
    let commit = commit.ok_or(SkipReason::NoCommittedOffset)?;
    let (target, downstream) = translator.translate(upstream, commit.offset, rename)?;
    let checkpoint = Checkpoint::new(
        group,
        target,
        commit.offset,
        downstream,
        commit.metadata.clone(),
    );
    let previous = last.and_then(|m| m.get(&checkpoint.topic_partition));
    let reason =
        emit_reason(&checkpoint, previous).ok_or(SkipReason::NotNewerThanLastCheckpoint)?;
    Ok((checkpoint, reason))
}

/// Java's `checkpointIsMoreRecent`. Metadata changes alone never emit.
fn emit_reason(new: &Checkpoint, last: Option<&Checkpoint>) -> Option<EmitReason> {
    let Some(last) = last else {
        return Some(EmitReason::FirstCheckpoint);
    };
    if new.upstream_offset < last.upstream_offset {
        Some(EmitReason::UpstreamRewound)
    } else if new.downstream_offset > last.downstream_offset {
        Some(EmitReason::DownstreamAdvanced)
    } else {
        None
    }
}

/// What the target cluster says about a consumer group, as seen just before an offset sync.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetGroupState {
    /// The group exists with no members (Kafka's `EMPTY`); its committed offsets per partition,
    /// `None` where the offset is `-1` (reset, e.g. by Sarama).
    Empty {
        /// Committed target offsets.
        committed: BTreeMap<TopicPartition, Option<i64>>,
    },
    /// The group does not exist on the target (Kafka's `DEAD`).
    Absent,
    /// The group has members or is rebalancing; its consumers own its offsets.
    Active,
    /// The state could not be determined (lookup failed or not refreshed yet).
    Unknown,
}

/// Why a translated offset is written into the target group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteReason {
    /// The group does not exist on the target yet.
    GroupAbsentAtTarget,
    /// The idle target group has no offset for this partition.
    PartitionNewAtTarget,
    /// The idle target group's offset is `-1` (reset); MM2 overwrites it.
    TargetOffsetReset,
    /// The idle target group is behind the translated offset.
    TargetBehind,
}

impl WriteReason {
    /// Stable snake_case name for logs, diagnostics and the C API.
    pub fn as_str(&self) -> &'static str {
        match self {
            WriteReason::GroupAbsentAtTarget => "group_absent_at_target",
            WriteReason::PartitionNewAtTarget => "partition_new_at_target",
            WriteReason::TargetOffsetReset => "target_offset_reset",
            WriteReason::TargetBehind => "target_behind",
        }
    }
}

/// Why a translated offset is not written into the target group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoWriteReason {
    /// The target group is in use; writing would fight its consumers.
    GroupActive,
    /// The target group's state is unknown, so it cannot be proven idle.
    GroupStateUnknown,
    /// The idle target group is already at or past the translated offset (never rewind it).
    TargetAtOrAhead,
}

impl NoWriteReason {
    /// Stable snake_case name for logs, diagnostics and the C API.
    pub fn as_str(&self) -> &'static str {
        match self {
            NoWriteReason::GroupActive => "group_active",
            NoWriteReason::GroupStateUnknown => "group_state_unknown",
            NoWriteReason::TargetAtOrAhead => "target_at_or_ahead",
        }
    }
}

/// The offset-sync decision for one target partition of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OffsetSyncDecision {
    /// Commit `offset` for `partition` in the target group.
    Write {
        /// Target partition.
        partition: TopicPartition,
        /// Translated offset and the source metadata.
        offset: CommittedOffset,
        /// Why it is written.
        reason: WriteReason,
    },
    /// Leave `partition` alone.
    Skip {
        /// Target partition.
        partition: TopicPartition,
        /// Why it is left alone.
        reason: NoWriteReason,
    },
}

impl OffsetSyncDecision {
    /// The target partition the decision is about.
    pub fn partition(&self) -> &TopicPartition {
        match self {
            OffsetSyncDecision::Write { partition, .. }
            | OffsetSyncDecision::Skip { partition, .. } => partition,
        }
    }
}

/// Decides, per target partition, whether to commit a group's translated offsets (`converted`,
/// from the checkpoint store) into the target group.
///
/// Stricter than Java's `syncGroupOffset`, which writes everything into any group it did not
/// see as `EMPTY`: only an absent group gets everything; an active or unknown group gets
/// nothing; an idle group gets a partition only if it is new, reset, or behind — never rewound.
pub fn target_offset_sync(
    converted: &BTreeMap<TopicPartition, CommittedOffset>,
    state: &TargetGroupState,
) -> Vec<OffsetSyncDecision> {
    converted
        .iter()
        .map(|(partition, offset)| {
            let verdict = match state {
                TargetGroupState::Absent => Ok(WriteReason::GroupAbsentAtTarget),
                TargetGroupState::Active => Err(NoWriteReason::GroupActive),
                TargetGroupState::Unknown => Err(NoWriteReason::GroupStateUnknown),
                TargetGroupState::Empty { committed } => match committed.get(partition) {
                    None => Ok(WriteReason::PartitionNewAtTarget),
                    Some(None) => Ok(WriteReason::TargetOffsetReset),
                    Some(Some(target)) if *target >= offset.offset => {
                        Err(NoWriteReason::TargetAtOrAhead)
                    }
                    Some(Some(_)) => Ok(WriteReason::TargetBehind),
                },
            };
            match verdict {
                Ok(reason) => OffsetSyncDecision::Write {
                    partition: partition.clone(),
                    offset: offset.clone(),
                    reason,
                },
                Err(reason) => OffsetSyncDecision::Skip {
                    partition: partition.clone(),
                    reason,
                },
            }
        })
        .collect()
}

/// The offsets to commit from a list of decisions (empty when nothing is to be written, in
/// which case no alter call should be made at all).
pub fn offsets_to_write(
    decisions: &[OffsetSyncDecision],
) -> BTreeMap<TopicPartition, CommittedOffset> {
    decisions
        .iter()
        .filter_map(|d| match d {
            OffsetSyncDecision::Write {
                partition, offset, ..
            } => Some((partition.clone(), offset.clone())),
            OffsetSyncDecision::Skip { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offset_sync::OffsetSync;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition::new(topic, partition)
    }

    /// DefaultReplicationPolicy renaming for source `east` replicated to `west`: topics that came
    /// from `west` lose their prefix, everything else gains `east.`.
    fn rename(upstream: &TopicPartition) -> TopicPartition {
        match upstream.topic.strip_prefix("west.") {
            Some(original) => tp(original, upstream.partition),
            None => tp(&format!("east.{}", upstream.topic), upstream.partition),
        }
    }

    fn store_with(syncs: &[(&TopicPartition, i64, i64)]) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(true);
        store.mark_read_to_end();
        for &(p, up, down) in syncs {
            store.handle_sync(&OffsetSync::new(p.clone(), up, down));
        }
        store
    }

    fn commits(
        entries: &[(&TopicPartition, Option<i64>)],
    ) -> BTreeMap<TopicPartition, Option<CommittedOffset>> {
        entries
            .iter()
            .map(|&(p, off)| (p.clone(), off.map(|o| CommittedOffset::new(o, "meta"))))
            .collect()
    }

    fn run(
        group: &str,
        committed: &BTreeMap<TopicPartition, Option<CommittedOffset>>,
        store: &OffsetSyncStore,
        last: Option<&BTreeMap<TopicPartition, Checkpoint>>,
    ) -> GroupCheckpoints {
        checkpoints_for_group(
            group,
            committed,
            &TopicFilter::default(),
            store,
            &rename,
            last,
        )
    }

    fn by_target(checkpoints: &GroupCheckpoints) -> BTreeMap<TopicPartition, Checkpoint> {
        checkpoints
            .checkpoints()
            .map(|c| (c.topic_partition.clone(), c.clone()))
            .collect()
    }

    /// The task of the flow east->west with reverse checkpoints: `west.orders` on east
    /// replicates `orders` on west, and the west->east flow's syncs translate commits on it back.
    #[test]
    fn with_reverse_syncs_a_commit_on_a_replica_of_a_target_topic_is_checkpointed_back_to_it() {
        let (local, replica0, replica1, unsynced) = (
            tp("payments", 0),
            tp("west.orders", 0),
            tp("west.orders", 1),
            tp("west.unsynced", 0),
        );
        let forward = store_with(&[(&local, 10, 20)]);
        // The west->east syncs are keyed by west's topics.
        let reverse_store = store_with(&[
            (&tp("orders", 0), 0, 0),
            (&tp("orders", 0), 100, 90),
            (&tp("orders", 1), 50, 40),
        ]);
        let original = |topic: &str| topic.strip_prefix("west.").map(str::to_string);
        let reverse = ReverseSyncs {
            store: &reverse_store,
            original_topic: &original,
        };
        let committed = commits(&[
            (&local, Some(10)),
            (&replica0, Some(95)),
            (&replica1, Some(40)),
            (&unsynced, Some(5)),
        ]);
        let both = checkpoints_for_group_both_ways(
            "g",
            &committed,
            &TopicFilter::default(),
            &forward,
            Some(&reverse),
            &rename,
            None,
        );
        let got = by_target(&both);
        let expected = [
            (tp("east.payments", 0), 10, 20),
            // 95 is past the sync 100 -> 90: one after it, never ahead.
            (tp("orders", 0), 95, 101),
            (tp("orders", 1), 40, 50),
        ];
        assert_eq!(got.len(), expected.len(), "{got:?}");
        for (target, upstream, downstream) in expected {
            let cp = &got[&target];
            assert_eq!(
                (
                    cp.upstream_offset,
                    cp.downstream_offset,
                    cp.metadata.as_str()
                ),
                (upstream, downstream, "meta"),
                "{target}"
            );
        }
        assert_eq!(
            both.skipped,
            vec![(unsynced.clone(), SkipReason::NoOffsetSync)]
        );

        // Without them, as in Java: the replica's commits have no sync of this flow.
        let forward_only = run("g", &committed, &forward, None);
        assert_eq!(by_target(&forward_only).len(), 1);
        let skipped: Vec<_> = forward_only
            .skipped
            .iter()
            .map(|(p, _)| p.clone())
            .collect();
        assert_eq!(skipped, vec![replica0, replica1, unsynced]);
    }

    #[test]
    fn checkpoints_carry_group_renamed_partition_upstream_offset_translation_and_metadata() {
        let local = tp("payments", 1);
        let returning = tp("west.ledger", 4);
        let store = store_with(&[(&local, 20, 31), (&returning, 9, 12)]);
        let committed = BTreeMap::from([
            (local.clone(), Some(CommittedOffset::new(25, "m1"))),
            (returning.clone(), Some(CommittedOffset::new(9, ""))),
        ]);
        let out = run("billing", &committed, &store, None);
        assert!(out.skipped.is_empty());
        let expected = BTreeMap::from([
            (
                tp("east.payments", 1),
                (
                    Checkpoint::new("billing", tp("east.payments", 1), 25, 32, "m1"),
                    EmitReason::FirstCheckpoint,
                ),
            ),
            (
                tp("ledger", 4),
                (
                    Checkpoint::new("billing", tp("ledger", 4), 9, 12, ""),
                    EmitReason::FirstCheckpoint,
                ),
            ),
        ]);
        assert_eq!(out.emitted, expected);
    }

    #[test]
    fn a_partition_without_syncs_gets_no_checkpoint_while_a_synced_one_does() {
        let synced = tp("payments", 0);
        let unsynced = tp("payments", 1);
        let store = store_with(&[(&synced, 3, 4)]);
        let committed = commits(&[(&synced, Some(10)), (&unsynced, Some(10))]);
        let out = run("g", &committed, &store, None);
        assert_eq!(out.skipped, vec![(unsynced, SkipReason::NoOffsetSync)]);
        assert_eq!(
            out.checkpoints()
                .map(|c| c.downstream_offset)
                .collect::<Vec<_>>(),
            vec![5]
        );
    }

    #[test]
    fn a_partition_without_a_committed_offset_gets_no_checkpoint() {
        let p = tp("payments", 0);
        let store = store_with(&[(&p, 1, 3)]);
        let out = run("g", &commits(&[(&p, None)]), &store, None);
        assert!(out.emitted.is_empty());
        assert_eq!(out.skipped, vec![(p, SkipReason::NoCommittedOffset)]);
    }

    #[test]
    fn checkpoints_stay_monotonic_when_the_store_evicts_the_sync_used_before() {
        let p = tp("payments", 0);
        let target = tp("east.payments", 0);
        let mut store = store_with(&[(&p, 500, 20), (&p, 501, 21)]);
        let g = 502;
        let first = run("g", &commits(&[(&p, Some(g))]), &store, None);
        assert_eq!(store.translate_downstream(&p, g), Some(22));
        let last = by_target(&first);
        assert_eq!(last[&target].downstream_offset, 22);

        for (up, down) in [(502, 22), (503, 23), (504, 24), (505, 25), (506, 26)] {
            store.handle_sync(&OffsetSync::new(p.clone(), up, down));
        }
        let fallen = store.translate_downstream(&p, g);
        assert!(fallen.is_some_and(|d| (0..22).contains(&d)), "{fallen:?}");
        let again = run("g", &commits(&[(&p, Some(g))]), &store, Some(&last));
        assert!(again.emitted.is_empty());
        assert_eq!(
            again.skipped,
            vec![(p.clone(), SkipReason::NotNewerThanLastCheckpoint)]
        );

        // The group itself moved back upstream: emitted even though downstream goes back too.
        let rewound = run("g", &commits(&[(&p, Some(g - 1))]), &store, Some(&last));
        assert_eq!(
            rewound
                .emitted
                .get(&target)
                .map(|(c, r)| (c.upstream_offset, *r)),
            Some((g - 1, EmitReason::UpstreamRewound))
        );
    }

    /// An optimistic start over `(u, u)` syncs, as after a task restart.
    fn restarted_store(p: &TopicPartition, upstreams: &[i64]) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(false);
        for &u in upstreams {
            store.handle_sync(&OffsetSync::new(p.clone(), u, u));
        }
        store.mark_read_to_end();
        store
    }

    #[test]
    fn a_restarted_task_does_not_emit_below_checkpoints_loaded_from_before() {
        let p = tp("t1", 0);
        let target = tp("east.t1", 0);
        let before = restarted_store(&p, &[100, 200, 300]);
        let committed = |g| BTreeMap::from([(p.clone(), Some(CommittedOffset::new(g, "")))]);
        let first = run("group1", &committed(250), &before, None);
        let loaded = by_target(&first);
        assert_eq!(
            loaded.get(&target),
            Some(&Checkpoint::new("group1", target.clone(), 250, 201, ""))
        );

        let after = restarted_store(&p, &[175, 275, 375, 475]);
        for g in [250, 370] {
            assert_eq!(after.translate_downstream(&p, g), Some(176));
            let out = run("group1", &committed(g), &after, Some(&loaded));
            assert!(out.emitted.is_empty(), "{g} must not go below 201");
            assert_eq!(
                out.skipped,
                vec![(p.clone(), SkipReason::NotNewerThanLastCheckpoint)]
            );
        }
        let out = run("group1", &committed(400), &after, Some(&loaded));
        assert_eq!(
            out.emitted.get(&target),
            Some(&(
                Checkpoint::new("group1", target.clone(), 400, 376, ""),
                EmitReason::DownstreamAdvanced
            ))
        );
    }

    #[test]
    fn every_skip_reason_of_the_emission_pipeline() {
        let p = tp("payments", 0);
        let internal = tp("mm2-offset-syncs.west.internal", 0);
        let target = tp("east.payments", 0);
        let normal = store_with(&[(&p, 100, 1000), (&internal, 0, 0)]);
        let corrupt = store_with(&[(&p, 100, -7)]);
        let mut loading = OffsetSyncStore::new();
        loading.handle_sync(&OffsetSync::new(p.clone(), 100, 1000));
        let last = BTreeMap::from([(target.clone(), Checkpoint::new("g", target, 150, 1001, ""))]);
        let cases: Vec<(
            &str,
            &TopicPartition,
            Option<i64>,
            &OffsetSyncStore,
            SkipReason,
        )> = vec![
            (
                "excluded topic",
                &internal,
                Some(5),
                &normal,
                SkipReason::TopicFiltered,
            ),
            (
                "no commit",
                &p,
                None,
                &normal,
                SkipReason::NoCommittedOffset,
            ),
            (
                "still loading",
                &p,
                Some(150),
                &loading,
                SkipReason::NotReadToEnd,
            ),
            (
                "older than syncs",
                &p,
                Some(99),
                &normal,
                SkipReason::OlderThanEveryKeptSync,
            ),
            (
                "corrupt sync",
                &p,
                Some(101),
                &corrupt,
                SkipReason::NegativeTranslation,
            ),
            (
                "repeat",
                &p,
                Some(160),
                &normal,
                SkipReason::NotNewerThanLastCheckpoint,
            ),
        ];
        for (name, part, offset, store, reason) in cases {
            let out = run("g", &commits(&[(part, offset)]), store, Some(&last));
            assert!(out.emitted.is_empty(), "{name}");
            assert_eq!(out.skipped, vec![(part.clone(), reason)], "{name}");
        }
        let unsynced = tp("payments", 9);
        let out = run("g", &commits(&[(&unsynced, Some(1))]), &normal, Some(&last));
        assert_eq!(out.skipped, vec![(unsynced, SkipReason::NoOffsetSync)]);
    }

    #[test]
    fn every_emit_reason_against_the_last_checkpoint() {
        let p = tp("payments", 0);
        let target = tp("east.payments", 0);
        let store = store_with(&[(&p, 100, 1000), (&p, 200, 1100)]);
        let at = |up: i64, down: i64| {
            BTreeMap::from([(
                target.clone(),
                Checkpoint::new("g", target.clone(), up, down, "x"),
            )])
        };
        let empty_group = BTreeMap::new();
        let last_up_150 = at(150, 1001);
        let last_up_300 = at(300, 1200);
        let cases: Vec<(&str, i64, Option<&BTreeMap<_, _>>, Option<EmitReason>)> = vec![
            (
                "group unknown",
                150,
                None,
                Some(EmitReason::FirstCheckpoint),
            ),
            (
                "partition unknown",
                150,
                Some(&empty_group),
                Some(EmitReason::FirstCheckpoint),
            ),
            (
                "downstream advanced",
                200,
                Some(&last_up_150),
                Some(EmitReason::DownstreamAdvanced),
            ),
            (
                "same downstream, upstream advanced",
                160,
                Some(&last_up_150),
                None,
            ),
            ("same offsets, new metadata", 150, Some(&last_up_150), None),
            (
                "upstream rewound",
                120,
                Some(&last_up_300),
                Some(EmitReason::UpstreamRewound),
            ),
        ];
        for (name, g, last, expected) in cases {
            let out = run("g", &commits(&[(&p, Some(g))]), &store, last);
            let reason = out.emitted.get(&target).map(|(_, r)| *r);
            assert_eq!(reason, expected, "{name}");
        }
    }

    #[test]
    fn a_downstream_rewind_without_upstream_rewind_is_blocked() {
        let p = tp("payments", 0);
        let target = tp("east.payments", 0);
        let store = store_with(&[(&p, 100, 1000)]);
        let last = BTreeMap::from([(target.clone(), Checkpoint::new("g", target, 100, 5000, ""))]);
        let out = run("g", &commits(&[(&p, Some(150))]), &store, Some(&last));
        assert_eq!(
            out.skipped,
            vec![(p, SkipReason::NotNewerThanLastCheckpoint)]
        );
    }

    #[test]
    fn two_upstream_partitions_renamed_onto_one_target_keep_the_first_emitted() {
        let a = tp("a", 0);
        let b = tp("b", 0);
        let store = store_with(&[(&a, 0, 10), (&b, 0, 20)]);
        let onto_one = |_: &TopicPartition| tp("merged", 0);
        let cases = [
            (
                "both translate: lowest upstream wins",
                commits(&[(&a, Some(0)), (&b, Some(0))]),
                vec![10],
                vec![(b.clone(), SkipReason::RenamedPartitionCollides)],
            ),
            (
                "a partition that emits nothing does not collide",
                commits(&[(&a, None), (&b, Some(0))]),
                vec![20],
                vec![(a.clone(), SkipReason::NoCommittedOffset)],
            ),
        ];
        for (name, committed, downstream, skipped) in cases {
            let out = checkpoints_for_group(
                "g",
                &committed,
                &TopicFilter::default(),
                &store,
                &onto_one,
                None,
            );
            let got: Vec<i64> = out.checkpoints().map(|c| c.downstream_offset).collect();
            assert_eq!(got, downstream, "{name}");
            assert_eq!(out.skipped, skipped, "{name}");
        }
    }

    #[test]
    fn reason_names_are_stable_and_distinct() {
        let skips = [
            (SkipReason::TopicFiltered, "topic_filtered"),
            (SkipReason::NoCommittedOffset, "no_committed_offset"),
            (SkipReason::NotReadToEnd, "not_read_to_end"),
            (SkipReason::NoOffsetSync, "no_offset_sync"),
            (
                SkipReason::OlderThanEveryKeptSync,
                "older_than_every_kept_sync",
            ),
            (SkipReason::NegativeTranslation, "negative_translation"),
            (
                SkipReason::NotNewerThanLastCheckpoint,
                "not_newer_than_last_checkpoint",
            ),
            (
                SkipReason::RenamedPartitionCollides,
                "renamed_partition_collides",
            ),
        ];
        for (reason, name) in skips {
            assert_eq!(reason.as_str(), name);
        }
        let emits = [
            (EmitReason::FirstCheckpoint, "first_checkpoint"),
            (EmitReason::DownstreamAdvanced, "downstream_advanced"),
            (EmitReason::UpstreamRewound, "upstream_rewound"),
        ];
        for (reason, name) in emits {
            assert_eq!(reason.as_str(), name);
        }
        let writes = [
            (WriteReason::GroupAbsentAtTarget, "group_absent_at_target"),
            (WriteReason::PartitionNewAtTarget, "partition_new_at_target"),
            (WriteReason::TargetOffsetReset, "target_offset_reset"),
            (WriteReason::TargetBehind, "target_behind"),
        ];
        for (reason, name) in writes {
            assert_eq!(reason.as_str(), name);
        }
        let no_writes = [
            (NoWriteReason::GroupActive, "group_active"),
            (NoWriteReason::GroupStateUnknown, "group_state_unknown"),
            (NoWriteReason::TargetAtOrAhead, "target_at_or_ahead"),
        ];
        for (reason, name) in no_writes {
            assert_eq!(reason.as_str(), name);
        }
    }

    fn converted(entries: &[(&TopicPartition, i64)]) -> BTreeMap<TopicPartition, CommittedOffset> {
        entries
            .iter()
            .map(|&(p, o)| (p.clone(), CommittedOffset::new(o, "src-meta")))
            .collect()
    }

    #[test]
    fn idle_target_groups_behind_the_checkpoints_get_the_checkpoint_offsets() {
        let t1 = tp("topic1", 0);
        let t2 = tp("topic2", 0);
        let group_a = target_offset_sync(
            &converted(&[(&t1, 101)]),
            &TargetGroupState::Empty {
                committed: BTreeMap::from([(t1.clone(), Some(100))]),
            },
        );
        let group_b = target_offset_sync(
            &converted(&[(&t2, 51)]),
            &TargetGroupState::Empty {
                committed: BTreeMap::from([(t2.clone(), Some(50))]),
            },
        );
        assert_eq!(
            offsets_to_write(&group_a),
            BTreeMap::from([(t1, CommittedOffset::new(101, "src-meta"))])
        );
        assert_eq!(
            offsets_to_write(&group_b),
            BTreeMap::from([(t2, CommittedOffset::new(51, "src-meta"))])
        );
    }

    #[test]
    fn a_reset_target_offset_is_overwritten_with_the_checkpoint_offset() {
        let p = tp("topic", 0);
        let decisions = target_offset_sync(
            &converted(&[(&p, 101)]),
            &TargetGroupState::Empty {
                committed: BTreeMap::from([(p.clone(), None)]),
            },
        );
        assert_eq!(
            decisions,
            vec![OffsetSyncDecision::Write {
                partition: p,
                offset: CommittedOffset::new(101, "src-meta"),
                reason: WriteReason::TargetOffsetReset,
            }]
        );
    }

    #[test]
    fn every_offset_sync_decision() {
        let p = tp("t", 0);
        let idle = |target: Option<Option<i64>>| TargetGroupState::Empty {
            committed: target.map(|t| (p.clone(), t)).into_iter().collect(),
        };
        let write = |reason| Ok::<WriteReason, NoWriteReason>(reason);
        let cases: Vec<(&str, TargetGroupState, Result<WriteReason, NoWriteReason>)> = vec![
            (
                "absent",
                TargetGroupState::Absent,
                write(WriteReason::GroupAbsentAtTarget),
            ),
            (
                "active",
                TargetGroupState::Active,
                Err(NoWriteReason::GroupActive),
            ),
            (
                "unknown",
                TargetGroupState::Unknown,
                Err(NoWriteReason::GroupStateUnknown),
            ),
            (
                "new partition",
                idle(None),
                write(WriteReason::PartitionNewAtTarget),
            ),
            (
                "reset",
                idle(Some(None)),
                write(WriteReason::TargetOffsetReset),
            ),
            (
                "behind",
                idle(Some(Some(49))),
                write(WriteReason::TargetBehind),
            ),
            (
                "equal",
                idle(Some(Some(50))),
                Err(NoWriteReason::TargetAtOrAhead),
            ),
            (
                "ahead",
                idle(Some(Some(51))),
                Err(NoWriteReason::TargetAtOrAhead),
            ),
        ];
        for (name, state, expected) in cases {
            let decisions = target_offset_sync(&converted(&[(&p, 50)]), &state);
            let got = match decisions.as_slice() {
                [OffsetSyncDecision::Write { offset, reason, .. }] => {
                    assert_eq!(offset.offset, 50, "{name}");
                    Ok(*reason)
                }
                [OffsetSyncDecision::Skip { reason, .. }] => Err(*reason),
                other => panic!("{name}: {other:?}"),
            };
            assert_eq!(got, expected, "{name}");
            assert_eq!(decisions[0].partition(), &p, "{name}");
        }
    }

    #[test]
    fn an_idle_group_is_decided_partition_by_partition() {
        let (a, b, c) = (tp("t", 0), tp("t", 1), tp("t", 2));
        let decisions = target_offset_sync(
            &converted(&[(&a, 10), (&b, 10), (&c, 10)]),
            &TargetGroupState::Empty {
                committed: BTreeMap::from([(a.clone(), Some(12)), (b.clone(), Some(3))]),
            },
        );
        let writes = offsets_to_write(&decisions);
        assert_eq!(writes.keys().cloned().collect::<Vec<_>>(), vec![b, c]);
        assert_eq!(decisions.len(), 3);
    }

    #[test]
    fn nothing_to_decide_for_a_group_without_checkpoints() {
        assert!(target_offset_sync(&BTreeMap::new(), &TargetGroupState::Absent).is_empty());
        assert!(offsets_to_write(&[]).is_empty());
    }
}
