//! `CheckpointStore`: the last checkpoint emitted per group and target partition, so emission
//! stays monotonic across task restarts (KAFKA-15905) and offset sync knows what to commit.
//!
//! The pure half of MM2's class. The runtime reads the checkpoints topic once at start-up and
//! hands each decoded record to [`CheckpointStore::load_record`] with the task's group filter
//! (the store owns the "only my groups" rule; decoding errors stay with the runtime), calls
//! [`CheckpointStore::clear`] if the read fails the way Java's consumer-error callback does, and
//! guards the store with a lock: Java shares its plain maps between two threads unguarded.

use std::collections::BTreeMap;

use crate::checkpoint::Checkpoint;
use crate::checkpoint_rules::CommittedOffset;
use crate::topic_partition::TopicPartition;

/// Per group, the last checkpoint per **target** partition. Ordered maps keep reports stable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointStore {
    groups: BTreeMap<String, BTreeMap<TopicPartition, Checkpoint>>,
}

impl CheckpointStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one record read from the checkpoints topic: kept (overriding any earlier record
    /// for the same group and partition) when `is_assigned` accepts its group, ignored otherwise.
    /// Returns whether it was kept.
    pub fn load_record(
        &mut self,
        checkpoint: Checkpoint,
        is_assigned: impl Fn(&str) -> bool,
    ) -> bool {
        if !is_assigned(&checkpoint.consumer_group_id) {
            return false;
        }
        self.groups
            .entry(checkpoint.consumer_group_id.clone())
            .or_default()
            .insert(checkpoint.topic_partition.clone(), checkpoint);
        true
    }

    /// The group's last checkpoints by target partition, or `None` if the group was never seen.
    pub fn get(&self, group: &str) -> Option<&BTreeMap<TopicPartition, Checkpoint>> {
        self.groups.get(group)
    }

    /// Records a poll's emitted checkpoints for `group`, keyed by each checkpoint's target
    /// partition. Creates the group's entry even when `checkpoints` is empty, as Java does, so
    /// the group takes part in offset sync from then on.
    pub fn update(&mut self, group: &str, checkpoints: impl IntoIterator<Item = Checkpoint>) {
        let entry = match self.groups.get_mut(group) {
            Some(entry) => entry,
            None => self.groups.entry(group.to_owned()).or_default(),
        };
        for checkpoint in checkpoints {
            entry.insert(checkpoint.topic_partition.clone(), checkpoint);
        }
    }

    /// Java's `computeConvertedUpstreamOffset`: for every known group (including groups without
    /// checkpoints), the offsets to commit on the target, i.e. each checkpoint's downstream
    /// offset with its source metadata. Java throws on a negative downstream offset (possible
    /// only from a bad record in the checkpoints topic) and so loses the whole sync cycle; we
    /// leave that partition out and log it.
    pub fn converted_upstream_offsets(
        &self,
    ) -> BTreeMap<String, BTreeMap<TopicPartition, CommittedOffset>> {
        self.groups
            .iter()
            .map(|(group, checkpoints)| {
                let offsets = checkpoints
                    .iter()
                    .filter(|(tp, cp)| {
                        let usable = cp.downstream_offset >= 0;
                        if !usable {
                            log::warn!(
                                "group {group}: stored checkpoint for {tp} has negative downstream offset {}; not syncing it",
                                cp.downstream_offset
                            );
                        }
                        usable
                    })
                    .map(|(tp, cp)| {
                        let offset = CommittedOffset::new(cp.downstream_offset, cp.metadata.clone());
                        (tp.clone(), offset)
                    })
                    .collect();
                (group.clone(), offsets)
            })
            .collect()
    }

    /// Forgets everything, as Java does when reading the checkpoints topic fails.
    pub fn clear(&mut self) {
        self.groups.clear();
    }

    /// Number of groups known to the store (with or without checkpoints).
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Number of stored checkpoints over all groups.
    pub fn checkpoint_count(&self) -> usize {
        self.groups.values().map(BTreeMap::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition::new(topic, partition)
    }

    fn cp(group: &str, p: &TopicPartition, up: i64, down: i64) -> Checkpoint {
        Checkpoint::new(group, p.clone(), up, down, format!("m{up}"))
    }

    fn mine(group: &str) -> bool {
        group == "g1" || group == "g2"
    }

    #[test]
    fn loading_keeps_assigned_groups_and_the_last_record_per_partition() {
        let (p0, p1) = (tp("east.t", 0), tp("east.t", 1));
        let mut store = CheckpointStore::new();
        let records = [
            (cp("g1", &p0, 10, 100), true),
            (cp("other", &p0, 11, 110), false),
            (cp("g1", &p1, 12, 120), true),
            (cp("g1", &p0, 13, 130), true),
            (cp("g2", &p0, 5, 50), true),
        ];
        for (record, kept) in records {
            assert_eq!(store.load_record(record, mine), kept);
        }
        let g1 = store.get("g1").expect("g1 loaded");
        assert_eq!(g1.get(&p0), Some(&cp("g1", &p0, 13, 130)));
        assert_eq!(g1.get(&p1), Some(&cp("g1", &p1, 12, 120)));
        assert_eq!(store.get("g2").map(BTreeMap::len), Some(1));
        assert!(store.get("other").is_none());
        assert_eq!((store.group_count(), store.checkpoint_count()), (2, 3));
    }

    #[test]
    fn a_failed_load_clears_everything() {
        let mut store = CheckpointStore::new();
        store.load_record(cp("g1", &tp("t", 0), 1, 2), mine);
        store.clear();
        assert_eq!((store.group_count(), store.checkpoint_count()), (0, 0));
        assert!(store.get("g1").is_none());
    }

    #[test]
    fn update_creates_the_group_even_without_checkpoints() {
        let mut store = CheckpointStore::new();
        assert!(store.get("g1").is_none());
        store.update("g1", Vec::new());
        assert_eq!(store.get("g1").map(BTreeMap::len), Some(0));
        assert_eq!((store.group_count(), store.checkpoint_count()), (1, 0));
    }

    #[test]
    fn update_overwrites_per_partition_and_keeps_the_rest() {
        let (p0, p1) = (tp("t", 0), tp("t", 1));
        let mut store = CheckpointStore::new();
        store.update("g1", [cp("g1", &p0, 1, 10), cp("g1", &p1, 2, 20)]);
        store.update("g1", [cp("g1", &p0, 3, 30)]);
        let g1 = store.get("g1").expect("present");
        assert_eq!(g1.get(&p0).map(|c| c.downstream_offset), Some(30));
        assert_eq!(g1.get(&p1).map(|c| c.downstream_offset), Some(20));
    }

    #[test]
    fn converted_offsets_cover_every_group_and_use_downstream_offset_and_metadata() {
        let p = tp("east.t", 0);
        let mut store = CheckpointStore::new();
        store.update("g1", [cp("g1", &p, 200, 101)]);
        store.update("quiet", Vec::new());
        let converted = store.converted_upstream_offsets();
        let expected = BTreeMap::from([
            (
                "g1".to_owned(),
                BTreeMap::from([(p, CommittedOffset::new(101, "m200"))]),
            ),
            ("quiet".to_owned(), BTreeMap::new()),
        ]);
        assert_eq!(converted, expected);
    }

    #[test]
    fn converted_offsets_leave_out_negative_downstream_offsets_without_failing() {
        let (bad, good) = (tp("t", 0), tp("t", 1));
        let mut store = CheckpointStore::new();
        store.load_record(cp("g1", &bad, 5, -1), mine);
        store.load_record(cp("g1", &good, 5, 0), mine);
        let converted = store.converted_upstream_offsets();
        let g1 = converted.get("g1").expect("group kept");
        assert_eq!(g1.keys().collect::<Vec<_>>(), vec![&good]);
        // The bad checkpoint still counts for monotonicity, as in Java.
        assert_eq!(store.checkpoint_count(), 2);
    }
}
