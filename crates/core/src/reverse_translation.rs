//! Reverse translation, for failback: from a group's committed offset on a replica topic of the
//! target (`A.orders` on B) back to an offset on the original topic of the source (`orders` on
//! A), with the offset syncs of the forward flow (A->B).
//!
//! An offset sync `(u, d)` says that the record at upstream offset `u` was written at
//! downstream offset `d`. A mirror writes a partition's records in order, so a record after
//! downstream `d` came from an upstream offset after `u`. A group committed at downstream `D`
//! has read every record before `D` and none from `D` on. With the newest kept sync `(u, d)` at
//! or before `D`:
//!
//! | case | resume upstream at | re-read at most |
//! |---|---|---|
//! | `d == D` | `u`: the record at `D` is the one at `u` | 0 |
//! | `d < D` | `u + 1`: the record at `d` was read, those after it may or may not have been | `D - d - 1` records |
//! | every kept sync after `D` | no answer: the history no longer reaches back that far | - |
//! | no sync for the partition | no answer | - |
//! | the syncs are still being read | no answer yet | - |
//!
//! The answer is never ahead: every upstream record the group had not read on the target is at
//! or after it, so a consumer failing back skips nothing. The re-reads are the records between
//! the sync and the group's position, so they shrink as syncs get denser (`offset.lag.max`).
//!
//! Which replica topic maps to which original topic is the replication policy's: a remote topic
//! of the source's alias under [`ReplicationPolicy::Default`]; under the identity policy a topic
//! on the target has the original's name and cannot be told apart from the target's own topics,
//! so reverse translation is refused.

use std::collections::HashMap;

use crate::offset_sync_store::{OffsetSyncStore, PartitionSyncs};
use crate::replication_policy::ReplicationPolicy;
use crate::topic_partition::TopicPartition;

/// The upstream offset a group committed at a downstream offset resumes from, or why there is
/// none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReverseTranslation {
    /// Resume on the upstream partition at `upstream`, re-reading at most `rereads_at_most`
    /// records the group had already read on the target.
    Offset {
        /// The offset to commit on the upstream (original) partition.
        upstream: i64,
        /// The most records a consumer resuming there reads a second time.
        rereads_at_most: i64,
    },
    /// Every kept sync of the partition is after the committed offset.
    OlderThanEveryKeptSync,
    /// The partition has no offset sync.
    NoOffsetSync,
    /// The offset syncs are still being read to their end.
    NotReadToEnd,
}

/// Translates a committed downstream offset back with one partition's sync history (the pure
/// rule of the module's table).
pub fn translate_upstream(syncs: &PartitionSyncs, committed_downstream: i64) -> ReverseTranslation {
    // The sync nearest at or before the committed offset; of two with the same downstream
    // offset, the lower upstream one (never ahead).
    let mut best: Option<(i64, i64)> = None;
    for i in 0.. {
        let Some((up, down)) = syncs.slot(i) else {
            break;
        };
        if down > committed_downstream {
            continue;
        }
        best = match best {
            Some((best_up, best_down))
                if best_down > down || (best_down == down && best_up <= up) =>
            {
                Some((best_up, best_down))
            }
            _ => Some((up, down)),
        };
    }
    from_nearest_sync(best, committed_downstream)
}

/// The module table's rule, given the nearest sync `(upstream, downstream)` at or before the
/// committed offset (`None`: every sync is after it).
fn from_nearest_sync(nearest: Option<(i64, i64)>, committed_downstream: i64) -> ReverseTranslation {
    match nearest {
        None => ReverseTranslation::OlderThanEveryKeptSync,
        Some((up, down)) if down == committed_downstream => ReverseTranslation::Offset {
            upstream: up,
            rereads_at_most: 0,
        },
        Some((up, down)) => ReverseTranslation::Offset {
            upstream: up.saturating_add(1),
            rereads_at_most: committed_downstream - down - 1,
        },
    }
}

/// True when sync `a` is a better answer than `b` for an offset both are at or before: the
/// later downstream offset, and of two at the same one the lower upstream offset.
fn nearer(a: (i64, i64), b: (i64, i64)) -> bool {
    a.1 > b.1 || (a.1 == b.1 && a.0 < b.0)
}

/// One committed offset asked about, and the nearest sync at or before it seen so far.
#[derive(Clone, Debug)]
struct Query {
    committed: i64,
    nearest: Option<(i64, i64)>,
}

/// Reverse translation of a known set of committed offsets against **every** sync read, not
/// only the spaced history an [`OffsetSyncStore`] keeps: ask for the offsets first, then apply
/// each sync as it is read (memory grows with the questions, not with the syncs). A group then
/// re-reads at most the records between the nearest sync the topic still holds and its commit.
#[derive(Clone, Debug, Default)]
pub struct ReverseQueries {
    /// Upstream topic → partition → the questions, ordered by committed offset, and whether
    /// any sync of the partition was seen.
    topics: HashMap<String, HashMap<i32, (Vec<Query>, bool)>>,
}

impl ReverseQueries {
    /// No questions yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks for `committed_downstream` on the replica of `tp` (the upstream partition).
    pub fn ask(&mut self, tp: &TopicPartition, committed_downstream: i64) {
        let (queries, _) = self
            .topics
            .entry(tp.topic.clone())
            .or_default()
            .entry(tp.partition)
            .or_default();
        let at = queries.partition_point(|q| q.committed < committed_downstream);
        if queries.get(at).map(|q| q.committed) != Some(committed_downstream) {
            queries.insert(
                at,
                Query {
                    committed: committed_downstream,
                    nearest: None,
                },
            );
        }
    }

    /// Applies one sync read from the forward flow's offset-syncs topic.
    pub fn apply(&mut self, topic: &str, partition: i32, upstream: i64, downstream: i64) {
        let Some((queries, seen)) = self
            .topics
            .get_mut(topic)
            .and_then(|partitions| partitions.get_mut(&partition))
        else {
            return;
        };
        *seen = true;
        let first = queries.partition_point(|q| q.committed < downstream);
        for q in &mut queries[first..] {
            if q.nearest
                .map_or(true, |n| nearer((upstream, downstream), n))
            {
                q.nearest = Some((upstream, downstream));
            }
        }
    }

    /// The answer for an offset asked about with [`ask`](Self::ask), by the module table.
    pub fn answer(&self, tp: &TopicPartition, committed_downstream: i64) -> ReverseTranslation {
        let Some((queries, seen)) = self
            .topics
            .get(&tp.topic)
            .and_then(|partitions| partitions.get(&tp.partition))
        else {
            return ReverseTranslation::NoOffsetSync;
        };
        if !seen {
            return ReverseTranslation::NoOffsetSync;
        }
        let at = queries.partition_point(|q| q.committed < committed_downstream);
        match queries
            .get(at)
            .filter(|q| q.committed == committed_downstream)
        {
            Some(q) => from_nearest_sync(q.nearest, committed_downstream),
            None => ReverseTranslation::NotReadToEnd,
        }
    }
}

/// Translates a group's committed `downstream_offset` on the replica of `tp` back to an offset
/// on `tp` itself with the forward flow's offset syncs, for failback.
pub fn translate_back(
    syncs: &OffsetSyncStore,
    tp: &TopicPartition,
    downstream_offset: i64,
) -> ReverseTranslation {
    if !syncs.is_read_to_end() {
        return ReverseTranslation::NotReadToEnd;
    }
    match syncs.partition(tp) {
        None => ReverseTranslation::NoOffsetSync,
        Some(history) => translate_upstream(history, downstream_offset),
    }
}

/// Why a topic of the target cannot be translated back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaTopicError {
    /// The identity policy keeps names, so a replica cannot be told from a local topic.
    IdentityPolicy,
    /// The topic is not a replica of the source cluster's topics.
    NotAReplicaOf {
        /// The topic on the target.
        topic: String,
        /// The source cluster's alias.
        source_alias: String,
    },
}

impl std::fmt::Display for ReplicaTopicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplicaTopicError::IdentityPolicy => f.write_str(
                "reverse translation needs DefaultReplicationPolicy: under IdentityReplicationPolicy \
                 a replica topic has its original's name and cannot be told apart from the \
                 target's own topics",
            ),
            ReplicaTopicError::NotAReplicaOf {
                topic,
                source_alias,
            } => write!(f, "`{topic}` is not a replica of a topic of cluster `{source_alias}`"),
        }
    }
}

impl std::error::Error for ReplicaTopicError {}

/// The original topic on the source cluster `source_alias` of `replica_topic` on the target
/// (`A.orders` -> `orders` with the default policy and separator `.`).
pub fn original_of_replica(
    policy: &ReplicationPolicy,
    source_alias: &str,
    replica_topic: &str,
) -> Result<String, ReplicaTopicError> {
    if matches!(policy, ReplicationPolicy::Identity(_)) {
        return Err(ReplicaTopicError::IdentityPolicy);
    }
    let not_a_replica = || ReplicaTopicError::NotAReplicaOf {
        topic: replica_topic.to_string(),
        source_alias: source_alias.to_string(),
    };
    if policy.topic_source(replica_topic).as_deref() != Some(source_alias) {
        return Err(not_a_replica());
    }
    policy
        .upstream_topic(replica_topic)
        .ok_or_else(not_a_replica)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::offset_sync::OffsetSync;

    fn history(syncs: &[(i64, i64)]) -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new();
        store.begin_initial_load(false);
        for &(up, down) in syncs {
            store.handle_sync(&OffsetSync::new(TopicPartition::new("orders", 0), up, down));
        }
        store.mark_read_to_end();
        store
    }

    fn reverse(syncs: &[(i64, i64)], committed: i64) -> ReverseTranslation {
        translate_back(
            &history(syncs),
            &TopicPartition::new("orders", 0),
            committed,
        )
    }

    #[test]
    fn a_group_committed_exactly_at_a_sync_resumes_at_its_upstream_offset() {
        assert_eq!(
            reverse(&[(0, 0), (100, 90), (200, 180)], 90),
            ReverseTranslation::Offset {
                upstream: 100,
                rereads_at_most: 0
            }
        );
    }

    #[test]
    fn a_group_past_a_sync_resumes_one_after_it_and_rereads_at_most_the_records_between() {
        assert_eq!(
            reverse(&[(0, 0), (100, 90), (200, 180)], 150),
            ReverseTranslation::Offset {
                upstream: 101,
                rereads_at_most: 59
            }
        );
        // Past the newest sync.
        assert_eq!(
            reverse(&[(0, 0), (100, 90)], 95),
            ReverseTranslation::Offset {
                upstream: 101,
                rereads_at_most: 4
            }
        );
    }

    #[test]
    fn a_group_before_every_kept_sync_has_no_answer() {
        assert_eq!(
            reverse(&[(100, 90), (200, 180)], 10),
            ReverseTranslation::OlderThanEveryKeptSync
        );
    }

    #[test]
    fn no_sync_or_syncs_not_read_to_end_have_no_answer() {
        let store = history(&[(0, 0)]);
        assert_eq!(
            translate_back(&store, &TopicPartition::new("other", 0), 5),
            ReverseTranslation::NoOffsetSync
        );
        let mut loading = OffsetSyncStore::new();
        loading.begin_initial_load(false);
        assert_eq!(
            translate_back(&loading, &TopicPartition::new("orders", 0), 5),
            ReverseTranslation::NotReadToEnd
        );
    }

    #[test]
    fn replica_topics_map_back_through_the_default_policy_and_its_separator() {
        let default = ReplicationPolicy::default();
        assert_eq!(
            original_of_replica(&default, "A", "A.orders"),
            Ok("orders".to_string())
        );
        assert!(matches!(
            original_of_replica(&default, "A", "orders"),
            Err(ReplicaTopicError::NotAReplicaOf { .. })
        ));
        assert!(matches!(
            original_of_replica(&default, "A", "C.orders"),
            Err(ReplicaTopicError::NotAReplicaOf { .. })
        ));
        let props: BTreeMap<String, String> =
            [("replication.policy.separator".to_string(), "_".to_string())].into();
        let custom = ReplicationPolicy::configure("DefaultReplicationPolicy", &props).unwrap();
        assert_eq!(
            original_of_replica(&custom, "A", "A_orders"),
            Ok("orders".to_string())
        );
        let identity = ReplicationPolicy::configure("IdentityReplicationPolicy", &props).unwrap();
        let refused = original_of_replica(&identity, "A", "orders").unwrap_err();
        assert_eq!(refused, ReplicaTopicError::IdentityPolicy);
        assert!(
            refused.to_string().contains("DefaultReplicationPolicy"),
            "{refused}"
        );
    }

    #[test]
    fn queries_answer_from_every_sync_read_whatever_their_order() {
        let tp = TopicPartition::new("orders", 0);
        let mut q = ReverseQueries::new();
        for committed in [95, 150, 10, 90] {
            q.ask(&tp, committed);
        }
        assert_eq!(
            q.answer(&tp, 150),
            ReverseTranslation::NoOffsetSync,
            "nothing read yet"
        );
        // Out of order, and a sync with the same downstream offset as another (the lower
        // upstream one wins).
        for (up, down) in [(200, 180), (100, 90), (0, 0), (140, 149), (139, 149)] {
            q.apply("orders", 0, up, down);
        }
        q.apply("orders", 1, 5, 5); // not asked about
        q.apply("other", 0, 5, 5);
        let offset = |upstream, rereads_at_most| ReverseTranslation::Offset {
            upstream,
            rereads_at_most,
        };
        assert_eq!(q.answer(&tp, 90), offset(100, 0));
        assert_eq!(q.answer(&tp, 95), offset(101, 4));
        assert_eq!(q.answer(&tp, 150), offset(140, 0));
        assert_eq!(q.answer(&tp, 10), offset(1, 9));
        assert_eq!(
            q.answer(&tp, 11),
            ReverseTranslation::NotReadToEnd,
            "never asked"
        );
        assert_eq!(
            q.answer(&TopicPartition::new("orders", 1), 5),
            ReverseTranslation::NoOffsetSync
        );
        let mut late = ReverseQueries::new();
        late.ask(&tp, 5);
        late.apply("orders", 0, 100, 90);
        assert_eq!(
            late.answer(&tp, 5),
            ReverseTranslation::OlderThanEveryKeptSync
        );
    }

    proptest! {
        /// The queries give what a search over every sync gives.
        #[test]
        fn queries_equal_a_search_over_every_sync(
            syncs in proptest::collection::vec((0i64..500, 0i64..500), 0..60),
            asked in proptest::collection::vec(0i64..500, 1..20),
        ) {
            let tp = TopicPartition::new("orders", 0);
            let mut q = ReverseQueries::new();
            for &committed in &asked {
                q.ask(&tp, committed);
            }
            for &(up, down) in &syncs {
                q.apply("orders", 0, up, down);
            }
            for &committed in &asked {
                let nearest = syncs
                    .iter()
                    .copied()
                    .filter(|&(_, d)| d <= committed)
                    .reduce(|a, b| if nearer(b, a) { b } else { a });
                let expected = if syncs.is_empty() {
                    ReverseTranslation::NoOffsetSync
                } else {
                    from_nearest_sync(nearest, committed)
                };
                prop_assert_eq!(q.answer(&tp, committed), expected);
            }
        }
    }

    proptest! {
        /// A mirror copies upstream records (with gaps: compaction, transaction markers) to
        /// consecutive downstream offsets and emits a sync for some of them; whatever the kept
        /// history and wherever the group committed on the target, the reverse answer is at or
        /// before the first upstream record the group had not read, and re-reads at most the
        /// stated number of records.
        #[test]
        fn the_reverse_translation_is_never_ahead_and_rereads_within_its_bound(
            gaps in proptest::collection::vec(1i64..4, 1..300),
            emitted in proptest::collection::vec(any::<bool>(), 300),
            committed_at in 0usize..300,
        ) {
            // upstream[d]: the upstream offset of the record at downstream offset d.
            let mut upstream = Vec::with_capacity(gaps.len());
            let mut next = 0i64;
            for gap in &gaps {
                upstream.push(next);
                next += gap;
            }
            let syncs: Vec<(i64, i64)> = upstream
                .iter()
                .enumerate()
                .filter(|(d, _)| *d == 0 || emitted[*d])
                .map(|(d, &u)| (u, d as i64))
                .collect();
            let committed = (committed_at % (upstream.len() + 1)) as i64;
            // The first upstream record not read: the one at `committed`, or past the end.
            let first_unread = upstream.get(committed as usize).copied().unwrap_or(next);
            match reverse(&syncs, committed) {
                ReverseTranslation::Offset { upstream: resume, rereads_at_most } => {
                    prop_assert!(resume <= first_unread, "ahead: {resume} > {first_unread}");
                    let reread = upstream[..committed as usize].iter().filter(|&&u| u >= resume).count() as i64;
                    prop_assert!(reread <= rereads_at_most, "{reread} re-read, bound {rereads_at_most}");
                }
                other => prop_assert!(false, "no answer with a sync at 0: {other:?}"),
            }
        }
    }
}
