//! What fault tests check of a checkpoint task while faults come and go: every checkpoint it
//! emits (never backwards, never ahead of its group's commit, since every test flow maps upstream
//! offsets to downstream ones at or below them) and what its target's topic holds.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::Checkpoint;

use super::runtime::{read_checkpoints, Monotonicity};

/// What a task emitted, checked as it comes.
pub struct Invariants {
    /// The order check over everything emitted.
    pub monotonic: Monotonicity,
    /// Everything emitted, in order.
    pub seen: Vec<Checkpoint>,
}

impl Invariants {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Invariants {
            monotonic: Monotonicity::new(),
            seen: Vec::new(),
        }
    }

    /// Checks checkpoints as the task emits them: never backwards, never ahead of the commit.
    pub fn observe(&mut self, what: &str, checkpoints: &[Checkpoint]) {
        self.monotonic.check(what, checkpoints);
        for cp in checkpoints {
            assert!(
                cp.downstream_offset <= cp.upstream_offset,
                "{what}: checkpoint ahead of the group's offset: {cp:?}"
            );
        }
        self.seen.extend_from_slice(checkpoints);
    }

    /// Polls `task` once for up to `wait`: it must not have failed or stopped.
    fn poll_once(&mut self, task: &CheckpointTask, what: &str, wait: Duration) {
        let out = task.poll(wait).unwrap();
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "{what}: {out:?}, fatal {:?}",
            task.fatal_error()
        );
        self.observe(what, &out.checkpoints);
    }

    /// Polls `task` for `how_long`, checking every checkpoint.
    pub fn poll_for(&mut self, task: &CheckpointTask, what: &str, how_long: Duration) {
        let until = Instant::now() + how_long;
        while Instant::now() < until {
            self.poll_once(task, what, Duration::from_millis(250));
        }
    }

    /// Polls until `wanted` has been emitted (panics after `bound`); returns how long it took.
    pub fn poll_until(
        &mut self,
        task: &CheckpointTask,
        what: &str,
        wanted: &Checkpoint,
        bound: Duration,
    ) -> Duration {
        let began = Instant::now();
        while !self.seen.contains(wanted) {
            assert!(
                began.elapsed() < bound,
                "{what}: no {wanted:?} within {bound:?}; seen {:?}; retry reason {:?}",
                self.seen,
                task.retry_reason()
            );
            self.poll_once(task, what, Duration::from_millis(250));
        }
        began.elapsed()
    }
}

impl Default for Invariants {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads the checkpoints `topic` on `bootstrap` holds and checks them: in order per group and
/// partition, none ahead, and never one commit (group, partition, upstream offset) twice with
/// different content. Returns them in log order.
pub fn written_once(bootstrap: &str, topic: &str, what: &str) -> Vec<Checkpoint> {
    let written = read_checkpoints(bootstrap, topic);
    Monotonicity::new().check(&format!("{what} (`{topic}`)"), &written);
    let mut by_commit = BTreeMap::new();
    for cp in &written {
        assert!(
            cp.downstream_offset <= cp.upstream_offset,
            "{what}: ahead in `{topic}`: {cp:?}"
        );
        let commit = (
            cp.consumer_group_id.clone(),
            cp.topic_partition.clone(),
            cp.upstream_offset,
        );
        if let Some(earlier) = by_commit.insert(commit, cp) {
            assert_eq!(earlier, cp, "{what}: one commit written twice, differently");
        }
    }
    written
}
