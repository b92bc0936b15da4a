//! `CommittedOffsets`: the newest committed offset of every group × partition, kept from the
//! stream of `__consumer_offsets` records (`group.offsets.source = consumer-offsets-topic`).
//!
//! The coordinator writes all records of one group to the same partition of `__consumer_offsets`,
//! in the order it accepted them, so the record applied last for a key is the newest commit. A
//! tombstone removes the entry; a group whose last entry goes is gone (deleted or expired), and
//! is reported as changed so that its checkpoints stop.
//!
//! Only what the task checkpoints is kept: records of groups or topics the filters reject cost
//! no memory. Topic names are interned, so 100,000 groups committing for the same topic keep
//! one copy of its name; [`CommittedOffsets::approx_bytes`] reports the memory an entry takes.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::consumer_offsets::ConsumerOffsetsRecord;
use crate::topic_partition::TopicPartition;

/// A group's newest commit for one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The committed offset.
    pub offset: i64,
    /// The client's commit metadata, which checkpoints carry (empty allocates nothing).
    pub metadata: Box<str>,
    /// When the coordinator accepted the commit (ms since the epoch); what the commit →
    /// checkpoint latency is measured from.
    pub commit_timestamp: i64,
}

/// What applying one record did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A commit stored; `changed` is false when it repeated the stored offset.
    Committed {
        /// Whether the stored offset changed (or the entry is new).
        changed: bool,
    },
    /// A tombstone removed an entry (`existed`: there was one to remove).
    Deleted {
        /// Whether an entry was removed.
        existed: bool,
    },
    /// The group or topic is not checkpointed by this task.
    Filtered,
    /// A record that carries no offset (group metadata, KIP-848 group state).
    NotAnOffset,
    /// A record type or value version this library does not know, skipped.
    Unknown,
}

/// Counts of what was applied, for logs and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppliedCounts {
    /// Commits stored.
    pub commits: u64,
    /// Tombstones applied (offset deletion, group deletion, expiry).
    pub deletions: u64,
    /// Records of filtered-out groups or topics.
    pub filtered: u64,
    /// Group-metadata and group-state records skipped.
    pub not_offsets: u64,
    /// Unknown record types and value versions skipped.
    pub unknown: u64,
}

type Partitions = HashMap<(Arc<str>, i32), Committed>;

/// The newest committed offsets; see the module documentation.
#[derive(Debug, Default)]
pub struct CommittedOffsets {
    groups: HashMap<String, Partitions>,
    topics: HashSet<Arc<str>>,
    changed: BTreeSet<String>,
    entries: usize,
    counts: AppliedCounts,
}

impl CommittedOffsets {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one decoded record. `accepts_group` and `accepts_topic` say what this task
    /// checkpoints; a record outside them is not kept, and a tombstone outside them is ignored
    /// (nothing of theirs was kept).
    pub fn apply(
        &mut self,
        record: &ConsumerOffsetsRecord<'_>,
        accepts_group: impl Fn(&str) -> bool,
        accepts_topic: impl Fn(&str) -> bool,
    ) -> Applied {
        let applied = match record {
            ConsumerOffsetsRecord::OffsetCommit { key, value } => {
                if !accepts_group(&key.group) || !accepts_topic(&key.topic) {
                    Applied::Filtered
                } else {
                    match value {
                        Some(value) => self.commit(
                            &key.group,
                            &key.topic,
                            key.partition,
                            Committed {
                                offset: value.offset,
                                metadata: value.metadata.as_ref().into(),
                                commit_timestamp: value.commit_timestamp,
                            },
                        ),
                        None => self.delete(&key.group, &key.topic, key.partition),
                    }
                }
            }
            ConsumerOffsetsRecord::GroupMetadata { .. }
            | ConsumerOffsetsRecord::GroupState { .. } => Applied::NotAnOffset,
            ConsumerOffsetsRecord::UnknownRecordType { .. }
            | ConsumerOffsetsRecord::UnknownValueVersion { .. } => Applied::Unknown,
        };
        match applied {
            Applied::Committed { .. } => self.counts.commits += 1,
            Applied::Deleted { .. } => self.counts.deletions += 1,
            Applied::Filtered => self.counts.filtered += 1,
            Applied::NotAnOffset => self.counts.not_offsets += 1,
            Applied::Unknown => self.counts.unknown += 1,
        }
        applied
    }

    fn intern(&mut self, topic: &str) -> Arc<str> {
        if let Some(known) = self.topics.get(topic) {
            return Arc::clone(known);
        }
        let name: Arc<str> = Arc::from(topic);
        self.topics.insert(Arc::clone(&name));
        name
    }

    fn commit(
        &mut self,
        group: &str,
        topic: &str,
        partition: i32,
        committed: Committed,
    ) -> Applied {
        let topic = self.intern(topic);
        let partitions = match self.groups.get_mut(group) {
            Some(partitions) => partitions,
            None => self.groups.entry(group.to_string()).or_default(),
        };
        let offset = committed.offset;
        let previous = partitions.insert((topic, partition), committed);
        if previous.is_none() {
            self.entries += 1;
        }
        let changed = previous.map(|p| p.offset) != Some(offset);
        if changed {
            self.mark_changed(group);
        }
        Applied::Committed { changed }
    }

    fn delete(&mut self, group: &str, topic: &str, partition: i32) -> Applied {
        let Some(partitions) = self.groups.get_mut(group) else {
            return Applied::Deleted { existed: false };
        };
        // Only an interned topic can be a key; looking the name up there avoids an allocation.
        let existed = match self.topics.get(topic) {
            Some(name) => partitions.remove(&(Arc::clone(name), partition)).is_some(),
            None => false,
        };
        if existed {
            self.entries -= 1;
            if partitions.is_empty() {
                self.groups.remove(group);
            }
            self.mark_changed(group);
        }
        Applied::Deleted { existed }
    }

    fn mark_changed(&mut self, group: &str) {
        if !self.changed.contains(group) {
            self.changed.insert(group.to_string());
        }
    }

    /// The groups whose offsets changed (or that went away) since the last call, in name order;
    /// clears the set. This is what a batched emitter translates.
    pub fn take_changed(&mut self) -> BTreeSet<String> {
        std::mem::take(&mut self.changed)
    }

    /// Whether any group changed since the last [`take_changed`](Self::take_changed).
    pub fn has_changes(&self) -> bool {
        !self.changed.is_empty()
    }

    /// A group's newest commits, by partition; empty when the group has none (never committed,
    /// deleted, expired, or filtered out).
    pub fn group_offsets(&self, group: &str) -> Vec<(TopicPartition, Committed)> {
        let mut offsets: Vec<(TopicPartition, Committed)> = self
            .groups
            .get(group)
            .into_iter()
            .flatten()
            .map(|((topic, partition), c)| {
                (TopicPartition::new(topic.as_ref(), *partition), c.clone())
            })
            .collect();
        offsets.sort_by(|a, b| a.0.cmp(&b.0));
        offsets
    }

    /// The groups with at least one committed offset, in name order.
    pub fn groups(&self) -> Vec<String> {
        let mut groups: Vec<String> = self.groups.keys().cloned().collect();
        groups.sort_unstable();
        groups
    }

    /// How many group × partition entries are kept.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Counts of what was applied so far.
    pub fn counts(&self) -> AppliedCounts {
        self.counts
    }

    /// Memory the store holds, estimated from the tables' capacities (each slot plus hashbrown's
    /// control byte) and the heap bytes of group and topic names. Divided by
    /// [`entries`](Self::entries) it is the memory per entry docs/USER_GUIDE.md reports.
    pub fn approx_bytes(&self) -> usize {
        let slot = |key: usize, value: usize| key + value + 1;
        let mut bytes = self.groups.capacity()
            * slot(
                std::mem::size_of::<String>(),
                std::mem::size_of::<Partitions>(),
            );
        for (group, partitions) in &self.groups {
            bytes += group.capacity();
            bytes += partitions.capacity()
                * slot(
                    std::mem::size_of::<(Arc<str>, i32)>(),
                    std::mem::size_of::<Committed>(),
                );
        }
        bytes += self.topics.capacity() * slot(std::mem::size_of::<Arc<str>>(), 0);
        // An Arc<str>'s heap block: two counters and the bytes.
        bytes += self.topics.iter().map(|t| 16 + t.len()).sum::<usize>();
        bytes += self
            .changed
            .iter()
            .map(|g| g.capacity() + 48)
            .sum::<usize>();
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer_offsets::{OffsetCommitKey, OffsetCommitValue};
    use proptest::prelude::*;
    use std::borrow::Cow;
    use std::collections::BTreeMap;

    fn commit(
        group: &str,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> ConsumerOffsetsRecord<'static> {
        ConsumerOffsetsRecord::OffsetCommit {
            key: OffsetCommitKey {
                record_type: 1,
                group: Cow::Owned(group.to_string()),
                topic: Cow::Owned(topic.to_string()),
                partition,
            },
            value: Some(OffsetCommitValue {
                version: 3,
                offset,
                leader_epoch: Some(0),
                metadata: Cow::Borrowed(""),
                commit_timestamp: 1000 + offset,
                expire_timestamp: None,
                tagged_fields: 0,
            }),
        }
    }

    fn tombstone(group: &str, topic: &str, partition: i32) -> ConsumerOffsetsRecord<'static> {
        let ConsumerOffsetsRecord::OffsetCommit { key, .. } = commit(group, topic, partition, 0)
        else {
            unreachable!()
        };
        ConsumerOffsetsRecord::OffsetCommit { key, value: None }
    }

    fn all(_: &str) -> bool {
        true
    }

    #[test]
    fn keeps_the_newest_commit_and_reports_each_changed_group_once() {
        let mut store = CommittedOffsets::new();
        assert_eq!(
            store.apply(&commit("g", "t", 0, 5), all, all),
            Applied::Committed { changed: true }
        );
        assert_eq!(
            store.apply(&commit("g", "t", 0, 9), all, all),
            Applied::Committed { changed: true }
        );
        assert_eq!(
            store.apply(&commit("g", "t", 1, 2), all, all),
            Applied::Committed { changed: true }
        );
        assert_eq!(
            store.apply(&commit("h", "t", 0, 3), all, all),
            Applied::Committed { changed: true }
        );
        assert_eq!(
            store.take_changed().into_iter().collect::<Vec<_>>(),
            ["g", "h"]
        );
        assert!(!store.has_changes());
        // A rewind is a change too: the newest commit wins, whatever its offset.
        assert_eq!(
            store.apply(&commit("g", "t", 0, 4), all, all),
            Applied::Committed { changed: true }
        );
        assert_eq!(
            store.apply(&commit("h", "t", 0, 3), all, all),
            Applied::Committed { changed: false }
        );
        assert_eq!(store.take_changed().into_iter().collect::<Vec<_>>(), ["g"]);
        assert_eq!(
            store.group_offsets("g"),
            vec![
                (
                    TopicPartition::new("t", 0),
                    Committed {
                        offset: 4,
                        metadata: "".into(),
                        commit_timestamp: 1004
                    }
                ),
                (
                    TopicPartition::new("t", 1),
                    Committed {
                        offset: 2,
                        metadata: "".into(),
                        commit_timestamp: 1002
                    }
                ),
            ]
        );
        assert_eq!(store.entries(), 3);
    }

    #[test]
    fn tombstones_remove_entries_and_the_last_one_removes_the_group() {
        let mut store = CommittedOffsets::new();
        store.apply(&commit("g", "t", 0, 5), all, all);
        store.apply(&commit("g", "t", 1, 6), all, all);
        store.take_changed();
        assert_eq!(
            store.apply(&tombstone("g", "t", 0), all, all),
            Applied::Deleted { existed: true }
        );
        assert_eq!(store.groups(), ["g"]);
        assert_eq!(
            store.apply(&tombstone("g", "t", 1), all, all),
            Applied::Deleted { existed: true }
        );
        assert!(store.groups().is_empty());
        assert!(store.group_offsets("g").is_empty());
        assert_eq!(store.take_changed().into_iter().collect::<Vec<_>>(), ["g"]);
        // A tombstone for what was never kept changes nothing.
        assert_eq!(
            store.apply(&tombstone("g", "t", 1), all, all),
            Applied::Deleted { existed: false }
        );
        assert_eq!(
            store.apply(&tombstone("x", "t", 1), all, all),
            Applied::Deleted { existed: false }
        );
        assert!(!store.has_changes());
        assert_eq!(store.entries(), 0);
    }

    #[test]
    fn filtered_groups_and_topics_are_never_kept() {
        let mut store = CommittedOffsets::new();
        let groups = |g: &str| g != "skip";
        let topics = |t: &str| !t.starts_with("__");
        assert_eq!(
            store.apply(&commit("skip", "t", 0, 1), groups, topics),
            Applied::Filtered
        );
        assert_eq!(
            store.apply(&commit("g", "__x", 0, 1), groups, topics),
            Applied::Filtered
        );
        assert_eq!(
            store.apply(&tombstone("skip", "t", 0), groups, topics),
            Applied::Filtered
        );
        assert_eq!(store.entries(), 0);
        assert!(!store.has_changes());
        assert_eq!(store.counts().filtered, 3);
    }

    #[test]
    fn group_records_and_unknown_records_keep_offsets_untouched() {
        let mut store = CommittedOffsets::new();
        store.apply(&commit("g", "t", 0, 5), all, all);
        store.take_changed();
        let others = [
            (
                ConsumerOffsetsRecord::GroupMetadata {
                    group: Cow::Borrowed("g"),
                    tombstone: true,
                },
                Applied::NotAnOffset,
            ),
            (
                ConsumerOffsetsRecord::GroupState { record_type: 3 },
                Applied::NotAnOffset,
            ),
            (
                ConsumerOffsetsRecord::UnknownRecordType { record_type: 99 },
                Applied::Unknown,
            ),
        ];
        for (record, want) in others {
            assert_eq!(store.apply(&record, all, all), want);
        }
        assert_eq!(store.group_offsets("g").len(), 1);
        assert!(!store.has_changes());
        let counts = store.counts();
        assert_eq!(
            (counts.commits, counts.not_offsets, counts.unknown),
            (1, 2, 1)
        );
    }

    /// The figure docs/USER_GUIDE.md "Offsets source" quotes: at 100,000 groups each committing for one
    /// partition of one of 100 topics, an entry takes about 275 bytes (each group's own table
    /// dominates; groups with more partitions share it).
    #[test]
    fn an_entry_of_100000_single_partition_groups_takes_under_320_bytes() {
        let mut store = CommittedOffsets::new();
        for g in 0..100_000 {
            let group = format!("consumer-group-{g:06}");
            store.apply(
                &commit(&group, &format!("topic-{}", g % 100), 0, g),
                all,
                all,
            );
        }
        store.take_changed();
        let per_entry = store.approx_bytes() / store.entries();
        assert!(
            (60..320).contains(&per_entry),
            "{per_entry} bytes per entry"
        );
    }

    proptest! {
        #[test]
        fn equals_a_reference_map_of_last_writes(
            ops in proptest::collection::vec((0u8..4, 0u8..3, 0i32..3, proptest::option::of(0i64..50)), 0..200)
        ) {
            let mut store = CommittedOffsets::new();
            let mut reference: BTreeMap<(String, TopicPartition), i64> = BTreeMap::new();
            for (g, t, p, offset) in ops {
                let group = format!("g{g}");
                let topic = format!("t{t}");
                match offset {
                    Some(o) => {
                        store.apply(&commit(&group, &topic, p, o), all, all);
                        reference.insert((group, TopicPartition::new(topic, p)), o);
                    }
                    None => {
                        store.apply(&tombstone(&group, &topic, p), all, all);
                        reference.remove(&(group, TopicPartition::new(topic, p)));
                    }
                }
            }
            let mut kept = BTreeMap::new();
            for group in store.groups() {
                let offsets = store.group_offsets(&group);
                prop_assert!(!offsets.is_empty());
                for (tp, c) in offsets {
                    kept.insert((group.clone(), tp), c.offset);
                }
            }
            prop_assert_eq!(store.entries(), reference.len());
            prop_assert_eq!(kept, reference);
        }
    }
}
