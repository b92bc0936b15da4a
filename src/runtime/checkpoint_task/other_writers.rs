//! Other writers of this task's checkpoints: a second copy of the same flow (or Java MM2's task
//! for it) writing the same groups' checkpoints, so that every checkpoint is written twice and two
//! group offset syncs run.
//!
//! Noticed through the offsets of the task's own checkpoint records (partition 0 of the
//! checkpoints topic): a gap between two of them holds records someone else wrote. Those are
//! read back; one for a group this task writes, lying between this task's own first and latest
//! checkpoint of that group, comes from another writer of the same groups at the same time (a
//! group handed over from or to another task of an elastic flow lies before the first or after
//! the latest; a group this task no longer owns is forgotten, so one that comes back starts
//! afresh). The writer is named by the record's `mm2-checkpoint-writer` header, which every
//! copy of this library writes; a record without one comes from another tool, such as Java MM2.
//! Each writer is warned about once, naming both, and counted in the metrics.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Duration;

use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_kafka::range_reader::{RangeReader, RangeRecord};

/// How long one cycle may spend reading back others' records; the rest waits for the next cycle.
pub(super) const READ_BUDGET: Duration = Duration::from_secs(1);
/// Gaps kept unread at most; older ones are dropped (the writers they hold show again later).
const MAX_GAPS: usize = 1024;
/// Others' checkpoints of this task's groups kept until the task writes the group again.
const MAX_PENDING: usize = 100_000;

/// What a record without the writer header is called.
pub(super) const UNNAMED_WRITER: &str =
    "a writer that names none (Java MM2's MirrorCheckpointTask, or another tool)";

/// This task's name in its records' writer header.
pub(super) fn writer_name(task_id: u64) -> String {
    format!(
        "mm2-checkpoint {} on {} (pid {}, task {task_id})",
        env!("CARGO_PKG_VERSION"),
        host_name(),
        std::process::id()
    )
}

/// The machine's name, as the kernel keeps it.
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unnamed host".into())
}

/// Another writer, found writing checkpoints of this task's groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Found {
    /// Its name (the writer header, or [`UNNAMED_WRITER`]).
    pub(super) writer: String,
    /// The groups found written by it in this check.
    pub(super) groups: BTreeSet<String>,
    /// How many of its checkpoints this check confirmed.
    pub(super) checkpoints: u64,
}

/// The state of the check, kept by the task's polling side.
pub(super) struct OtherWriters {
    me: String,
    /// The offset after the task's latest own record.
    next_own: Option<i64>,
    /// Per group, the offsets of the task's first and latest own checkpoint.
    own: HashMap<String, (i64, i64)>,
    /// Offset ranges holding others' records, not read yet.
    gaps: VecDeque<(i64, i64)>,
    /// Others' checkpoints of groups this task writes: group, offset, writer.
    pending: VecDeque<(String, i64, String)>,
    reader: Option<RangeReader>,
}

impl OtherWriters {
    /// A check for the task whose records name it `me`.
    pub(super) fn new(me: String) -> Self {
        OtherWriters {
            me,
            next_own: None,
            own: HashMap::new(),
            gaps: VecDeque::new(),
            pending: VecDeque::new(),
            reader: None,
        }
    }

    /// This task's name in its records.
    pub(super) fn me(&self) -> &str {
        &self.me
    }

    /// Takes the task's own records of a cycle (group and offset, delivered).
    pub(super) fn wrote(&mut self, records: &[(String, i64)]) {
        let mut offsets: Vec<i64> = records.iter().map(|(_, o)| *o).collect();
        offsets.sort_unstable();
        for o in offsets {
            match self.next_own {
                Some(n) if o > n => {
                    if self.gaps.len() == MAX_GAPS {
                        self.gaps.pop_front();
                    }
                    self.gaps.push_back((n, o));
                }
                _ => {}
            }
            self.next_own = Some(self.next_own.map_or(o + 1, |n| n.max(o + 1)));
        }
        for (group, o) in records {
            let span = self.own.entry(group.clone()).or_insert((*o, *o));
            span.0 = span.0.min(*o);
            span.1 = span.1.max(*o);
        }
    }

    /// Forgets the groups `owned` says this task no longer writes, and others' records of them.
    pub(super) fn keep_groups(&mut self, owned: impl Fn(&str) -> bool) {
        self.own.retain(|g, _| owned(g));
        let own = &self.own;
        self.pending.retain(|(g, _, _)| own.contains_key(g));
    }

    /// Whether a gap waits to be read.
    pub(super) fn has_gaps(&self) -> bool {
        !self.gaps.is_empty()
    }

    /// Reads back the gaps for up to `budget` (opening the reader with `open` the first time)
    /// and returns the writers found since the last call.
    pub(super) fn check(
        &mut self,
        budget: Duration,
        open: impl FnOnce() -> Result<RangeReader, Error>,
    ) -> Result<Vec<Found>, Error> {
        if !self.gaps.is_empty() {
            let mut reader = match self.reader.take() {
                Some(r) => r,
                None => open()?,
            };
            let read = self.read_gaps(&mut reader, budget);
            self.reader = Some(reader);
            read?;
        }
        Ok(self.confirmed())
    }

    /// Reads gaps, oldest first, until none is left or `budget` has passed.
    fn read_gaps(&mut self, reader: &mut RangeReader, budget: Duration) -> Result<(), Error> {
        let began = std::time::Instant::now();
        while let Some(&(from, to)) = self.gaps.front() {
            let left = budget.saturating_sub(began.elapsed());
            if left.is_zero() {
                break;
            }
            let (records, next) = reader.read(from, to, left)?;
            for r in records {
                self.take_other(r);
            }
            if next >= to {
                self.gaps.pop_front();
            } else {
                self.gaps[0].0 = next;
            }
        }
        Ok(())
    }

    /// Keeps a record someone else wrote when it is a checkpoint of a group this task writes.
    fn take_other(&mut self, r: RangeRecord) {
        let writer = match &r.header {
            Some(h) => String::from_utf8_lossy(h).into_owned(),
            None => UNNAMED_WRITER.to_string(),
        };
        if writer == self.me {
            return;
        }
        let Ok(cp) = Checkpoint::decode(r.key.as_deref(), r.value.as_deref()) else {
            return;
        };
        if !self.own.contains_key(&cp.consumer_group_id) {
            return;
        }
        if self.pending.len() == MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending
            .push_back((cp.consumer_group_id, r.offset, writer));
    }

    /// Others' checkpoints lying between this task's first and latest own checkpoint of their
    /// group, by writer; the rest stay pending until the task writes their group again.
    fn confirmed(&mut self) -> Vec<Found> {
        let mut found: Vec<Found> = Vec::new();
        let own = &self.own;
        self.pending.retain(|(group, offset, writer)| {
            let Some(&(first, latest)) = own.get(group) else {
                return false;
            };
            if *offset < first {
                return false;
            }
            if *offset > latest {
                return true;
            }
            match found.iter_mut().find(|f| &f.writer == writer) {
                Some(f) => {
                    f.groups.insert(group.clone());
                    f.checkpoints += 1;
                }
                None => found.push(Found {
                    writer: writer.clone(),
                    groups: BTreeSet::from([group.clone()]),
                    checkpoints: 1,
                }),
            }
            false
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(records: &[(&str, i64)]) -> Vec<(String, i64)> {
        records.iter().map(|(g, o)| (g.to_string(), *o)).collect()
    }

    fn record(group: &str, offset: i64, writer: Option<&str>) -> RangeRecord {
        let cp = Checkpoint {
            consumer_group_id: group.into(),
            topic_partition: mm2_checkpoint_core::topic_partition::TopicPartition::new("A.t", 0),
            upstream_offset: 10,
            downstream_offset: 5,
            metadata: String::new(),
        };
        RangeRecord {
            offset,
            key: Some(cp.encode_key().unwrap()),
            value: Some(cp.encode_value().unwrap()),
            header: writer.map(|w| w.as_bytes().to_vec()),
        }
    }

    #[test]
    fn gaps_between_own_records_are_found_across_and_within_cycles() {
        let mut w = OtherWriters::new("me".into());
        w.wrote(&own(&[("g", 3), ("h", 4)]));
        assert!(
            !w.has_gaps(),
            "nothing before the first own record is a gap"
        );
        w.wrote(&own(&[("h", 9), ("g", 7)]));
        w.wrote(&own(&[("g", 10)]));
        assert_eq!(w.gaps, VecDeque::from([(5, 7), (8, 9)]));
    }

    #[test]
    fn a_writer_is_found_only_between_the_tasks_own_checkpoints_of_the_group() {
        let mut w = OtherWriters::new("me".into());
        w.wrote(&own(&[("g", 10), ("h", 11)]));
        // Before this task's first checkpoint of g (a handover from the group's former owner).
        w.take_other(record("g", 5, Some("other")));
        // A group this task does not write (another task of an elastic flow).
        w.take_other(record("x", 12, Some("other")));
        // This task's own name, and records that are no checkpoint.
        w.take_other(record("g", 13, Some("me")));
        w.take_other(RangeRecord {
            offset: 14,
            key: Some(b"junk".to_vec()),
            value: None,
            header: None,
        });
        // After its latest: found once the task writes g again.
        w.take_other(record("g", 15, Some("other")));
        w.take_other(record("h", 16, None));
        assert_eq!(w.confirmed(), Vec::new());
        w.wrote(&own(&[("g", 20), ("h", 21)]));
        let found = w.confirmed();
        assert_eq!(
            found,
            vec![
                Found {
                    writer: "other".into(),
                    groups: BTreeSet::from(["g".to_string()]),
                    checkpoints: 1
                },
                Found {
                    writer: UNNAMED_WRITER.into(),
                    groups: BTreeSet::from(["h".to_string()]),
                    checkpoints: 1
                },
            ]
        );
        assert!(w.pending.is_empty());
        assert!(w.confirmed().is_empty(), "each found once");
    }

    #[test]
    fn a_group_handed_away_and_back_starts_afresh() {
        let mut w = OtherWriters::new("me".into());
        w.wrote(&own(&[("g", 10)]));
        // g moves to another task, which writes it; then it comes back.
        w.keep_groups(|g| g != "g");
        w.take_other(record("g", 12, Some("elastic peer")));
        w.wrote(&own(&[("g", 14)]));
        w.wrote(&own(&[("g", 16)]));
        assert_eq!(
            w.confirmed(),
            Vec::new(),
            "the peer wrote g while it owned it"
        );
    }

    #[test]
    fn this_task_names_itself_by_version_host_pid_and_task() {
        let name = writer_name(7);
        assert!(name.starts_with(&format!("mm2-checkpoint {} on ", env!("CARGO_PKG_VERSION"))));
        assert!(
            name.ends_with(&format!("(pid {}, task 7)", std::process::id())),
            "{name}"
        );
    }
}
