//! Elastic scale-out (`task.assignment=group`): the pure rules. Every process joins one Kafka
//! consumer group subscribed to a small coordination topic; each mirrored consumer group maps to
//! one partition of that topic, and a process checkpoints exactly the groups whose partitions it
//! owns. Kafka's group coordinator decides who owns what; this module only says which partition a
//! group belongs to and keeps the handover state of one process ([`Handover`]).
//!
//! The handover protocol (docs/SCALE_OUT.md, "Handover"):
//! - **gain**: an assigned partition is *pending* until a read of the checkpoints topic that
//!   began after the assignment has reached the end and its records for the partition's groups
//!   are in the checkpoint store; only then is it *owned*, and only owned partitions are
//!   checkpointed. The previous owner acknowledged its revocation only after its last
//!   checkpoints were confirmed by the broker, so that read sees all of them and no checkpoint
//!   goes backwards.
//! - **loss**: a revoked partition stops being owned at once (no new cycle picks its groups, and
//!   a running cycle abandons them before it writes), and the revocation is acknowledged only
//!   once no running cycle still holds it (its writes are confirmed or abandoned).

use std::collections::{BTreeMap, BTreeSet};

use crate::group_assignment::owner_of;

/// Default of `task.coordination.partitions`.
pub const DEFAULT_COORDINATION_PARTITIONS: u32 = 64;

/// Most partitions `task.coordination.partitions` accepts.
pub const MAX_COORDINATION_PARTITIONS: u32 = 10_000;

/// How the groups of a flow are split between processes (`task.assignment`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum TaskAssignment {
    /// `static` (default): `task.index`/`task.count` rendezvous split, or one process for all.
    #[default]
    Static,
    /// `group`: Kafka's group coordinator assigns coordination partitions to live processes.
    Group(CoordinationSettings),
}

/// The coordination group of `task.assignment=group`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoordinationSettings {
    /// `task.coordination.group.id` (default `mm2-checkpoint-<source>-<target>`): the consumer
    /// group every process of the flow joins on the target cluster.
    pub group_id: String,
    /// `task.coordination.topic` (default `mm2-checkpoint-coordination.<source>.internal`):
    /// the topic whose partitions stand for shares of the groups; created if missing.
    pub topic: String,
    /// `task.coordination.partitions` (default 64): the number of shares. Must be the same in
    /// every process; it only matters when the topic is created (an existing topic's count wins).
    pub partitions: u32,
}

/// The coordination partition of `group` among `partitions` (0 when `partitions` is 0). The same
/// rendezvous hash as the static split, so it is fixed across versions and platforms and every
/// process computes the same answer.
pub fn coordination_partition(group: &str, partitions: u32) -> i32 {
    i32::try_from(owner_of(group, partitions)).unwrap_or(0)
}

/// A read of the checkpoints topic that adopts the partitions pending when it began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatchUp {
    // Partition → the assignment generation it was pending under when the read began.
    partitions: BTreeMap<i32, u64>,
}

impl CatchUp {
    /// True when the read is for `partition`'s groups.
    pub fn covers(&self, partition: i32) -> bool {
        self.partitions.contains_key(&partition)
    }

    /// The partitions whose groups the read is for.
    pub fn partitions(&self) -> Vec<i32> {
        self.partitions.keys().copied().collect()
    }
}

/// One process's view of its coordination partitions: pending (assigned, not yet caught up),
/// owned (checkpointed), and those the running checkpoint cycle holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handover {
    next_generation: u64,
    pending: BTreeMap<i32, u64>,
    owned: BTreeSet<i32>,
    cycle: Option<BTreeSet<i32>>,
    adopted_since_cycle: bool,
}

impl Handover {
    /// An empty view: nothing assigned.
    pub fn new() -> Self {
        Self::default()
    }

    /// The coordinator assigned `partitions`: they are pending until a catch-up adopts them.
    /// A partition assigned again (after a revoke) needs a new catch-up.
    pub fn assign(&mut self, partitions: impl IntoIterator<Item = i32>) {
        for p in partitions {
            if self.owned.contains(&p) {
                continue;
            }
            self.next_generation += 1;
            self.pending.insert(p, self.next_generation);
        }
    }

    /// The coordinator revoked `partitions` (or they were lost): they are no longer owned or
    /// pending. The revocation may be acknowledged once [`cycle_holds_any`](Self::cycle_holds_any)
    /// is false for them.
    pub fn revoke(&mut self, partitions: &[i32]) {
        for p in partitions {
            self.pending.remove(p);
            self.owned.remove(p);
        }
    }

    /// True while the running cycle still holds one of `partitions` (it may be writing their
    /// checkpoints).
    pub fn cycle_holds_any(&self, partitions: &[i32]) -> bool {
        self.cycle
            .as_ref()
            .is_some_and(|held| partitions.iter().any(|p| held.contains(p)))
    }

    /// Starts a catch-up read for every pending partition, or `None` when nothing is pending.
    pub fn begin_catch_up(&self) -> Option<CatchUp> {
        (!self.pending.is_empty()).then(|| CatchUp {
            partitions: self.pending.clone(),
        })
    }

    /// The catch-up read reached the end and its records are in the store: adopts the partitions
    /// still pending under the same assignment (not revoked, nor revoked and assigned again,
    /// meanwhile). Returns the adopted partitions.
    pub fn finish_catch_up(&mut self, catch_up: CatchUp) -> Vec<i32> {
        let mut adopted = Vec::new();
        for (p, generation) in catch_up.partitions {
            if self.pending.get(&p) == Some(&generation) {
                self.pending.remove(&p);
                self.owned.insert(p);
                adopted.push(p);
            }
        }
        if !adopted.is_empty() {
            self.adopted_since_cycle = true;
        }
        adopted
    }

    /// A checkpoint cycle begins: it holds the partitions owned now until [`end_cycle`].
    ///
    /// [`end_cycle`]: Self::end_cycle
    pub fn begin_cycle(&mut self) {
        self.cycle = Some(self.owned.clone());
        self.adopted_since_cycle = false;
    }

    /// The cycle ended: its checkpoints are written or abandoned.
    pub fn end_cycle(&mut self) {
        self.cycle = None;
    }

    /// True when the running cycle may write checkpoints for groups of `partition`: it held the
    /// partition when it began, and the partition has not been revoked since.
    pub fn cycle_may_emit(&self, partition: i32) -> bool {
        self.owned.contains(&partition)
            && self
                .cycle
                .as_ref()
                .is_some_and(|held| held.contains(&partition))
    }

    /// True when `partition` is owned (adopted and not revoked).
    pub fn owns(&self, partition: i32) -> bool {
        self.owned.contains(&partition)
    }

    /// The owned partitions, sorted.
    pub fn owned(&self) -> Vec<i32> {
        self.owned.iter().copied().collect()
    }

    /// The pending partitions, sorted.
    pub fn pending(&self) -> Vec<i32> {
        self.pending.keys().copied().collect()
    }

    /// True when partitions were adopted since the last cycle began (their groups should get a
    /// cycle soon rather than a full emit interval later).
    pub fn adopted_since_cycle(&self) -> bool {
        self.adopted_since_cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_is_pinned_across_versions() {
        // Processes of different versions must agree; these values must never change.
        let got: Vec<i32> = (0..8)
            .map(|i| coordination_partition(&format!("orders-{i}"), 64))
            .collect();
        assert_eq!(got, PINNED);
        assert_eq!(coordination_partition("any", 0), 0);
        assert_eq!(coordination_partition("any", 1), 0);
    }

    const PINNED: [i32; 8] = [23, 51, 31, 28, 54, 35, 46, 54];

    #[test]
    fn groups_spread_over_partitions() {
        let mut counts = [0u32; 16];
        for g in (0..16_000).map(|i| format!("g{i}")) {
            counts[coordination_partition(&g, 16) as usize] += 1;
        }
        for c in counts {
            assert!((800..1200).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn an_assigned_partition_is_not_owned_before_its_catch_up() {
        let mut h = Handover::new();
        h.assign([3, 4]);
        assert!(!h.owns(3));
        h.begin_cycle();
        assert!(
            !h.cycle_may_emit(3),
            "a cycle must not emit for a pending partition"
        );
        h.end_cycle();
        let c = h.begin_catch_up().unwrap();
        assert_eq!(c.partitions(), [3, 4]);
        assert_eq!(h.finish_catch_up(c), [3, 4]);
        assert!(h.owns(3) && h.owns(4));
        assert!(h.adopted_since_cycle());
        assert!(h.begin_catch_up().is_none());
    }

    #[test]
    fn a_partition_assigned_during_a_catch_up_waits_for_the_next_one() {
        let mut h = Handover::new();
        h.assign([1]);
        let first = h.begin_catch_up().unwrap();
        h.assign([2]);
        assert_eq!(h.finish_catch_up(first), [1]);
        assert_eq!(h.pending(), [2]);
        let second = h.begin_catch_up().unwrap();
        assert_eq!(h.finish_catch_up(second), [2]);
    }

    #[test]
    fn revoked_and_reassigned_during_a_catch_up_is_not_adopted_by_it() {
        let mut h = Handover::new();
        h.assign([5]);
        let stale = h.begin_catch_up().unwrap();
        h.revoke(&[5]);
        h.assign([5]);
        assert!(
            h.finish_catch_up(stale).is_empty(),
            "the read began before this assignment"
        );
        assert_eq!(h.pending(), [5]);
        let fresh = h.begin_catch_up().unwrap();
        assert_eq!(h.finish_catch_up(fresh), [5]);
    }

    #[test]
    fn revoke_while_start_up_is_loading_acknowledges_at_once_and_adopts_nothing() {
        // Start-up still loading: the runtime begins no catch-up, so the partitions stay pending.
        let mut h = Handover::new();
        h.assign([0, 1, 2]);
        h.revoke(&[1]);
        assert!(
            !h.cycle_holds_any(&[1]),
            "nothing holds it: acknowledge now"
        );
        let c = h.begin_catch_up().unwrap();
        assert_eq!(c.partitions(), [0, 2]);
        assert_eq!(h.finish_catch_up(c), [0, 2]);
        assert!(!h.owns(1));
    }

    #[test]
    fn handover_in_the_middle_of_a_cycle_waits_for_the_cycle_and_abandons_its_writes() {
        let mut h = Handover::new();
        h.assign([7, 8]);
        let c = h.begin_catch_up().unwrap();
        h.finish_catch_up(c);
        h.begin_cycle();
        assert!(h.cycle_may_emit(7) && h.cycle_may_emit(8));
        // The coordinator moves 7 to another process while the cycle fetches offsets.
        h.revoke(&[7]);
        assert!(!h.owns(7));
        assert!(
            !h.cycle_may_emit(7),
            "the cycle abandons 7's groups before writing"
        );
        assert!(h.cycle_may_emit(8));
        assert!(
            h.cycle_holds_any(&[7]),
            "the revocation waits: the cycle may be writing"
        );
        h.end_cycle();
        assert!(!h.cycle_holds_any(&[7]), "cycle over: acknowledge");
        // The next cycle no longer holds it.
        h.begin_cycle();
        assert!(!h.cycle_holds_any(&[7]));
        assert!(!h.cycle_may_emit(7));
        h.end_cycle();
    }

    #[test]
    fn a_partition_adopted_during_a_cycle_is_left_to_the_next_cycle() {
        let mut h = Handover::new();
        h.begin_cycle();
        h.assign([9]);
        let c = h.begin_catch_up().unwrap();
        h.finish_catch_up(c);
        assert!(
            !h.cycle_may_emit(9),
            "the running cycle did not hold it when it began"
        );
        assert!(!h.cycle_holds_any(&[9]));
        h.end_cycle();
        assert!(h.adopted_since_cycle());
        h.begin_cycle();
        assert!(h.cycle_may_emit(9));
        assert!(!h.adopted_since_cycle());
    }

    #[test]
    fn reassigning_an_owned_partition_keeps_it_owned() {
        let mut h = Handover::new();
        h.assign([4]);
        let c = h.begin_catch_up().unwrap();
        h.finish_catch_up(c);
        h.assign([4]);
        assert!(h.owns(4));
        assert!(h.pending().is_empty());
    }
}
