//! `group.offsets.source = consumer-offsets-topic` in the checkpoint task: the groups' committed
//! offsets come from a [`GroupOffsetsStream`] instead of one listing per group and interval.
//!
//! - The stream starts with the task's first poll. Until it has read `__consumer_offsets` to its
//!   end, cycles take today's path (`poll`), so checkpoints never wait for the stream's load.
//! - Once caught up, a commit wakes the polling thread (the stream nudges the task's stop
//!   signal), and the next poll runs a cycle over the changed groups only: translated and written
//!   within a poll's latency of the commit instead of up to an interval later. The full cycle at
//!   each `emit.checkpoints.interval.seconds` still runs, over every group the stream keeps. Both
//!   decide with the same checkpoint rules, so checkpoints stay monotonic.
//! - A partition of `__consumer_offsets` held below its end by an open transaction (the stream
//!   reads `read_committed` and cannot pass the transaction's first record) would hold every
//!   later commit of the groups it coordinates, plain ones included, which their coordinator has
//!   applied already. The stream must mean what the coordinator means (a plain commit counts at
//!   once, a transactional one at its commit marker), so while the hold lasts, cycles take those
//!   groups' offsets from their coordinator (an OffsetFetch that does not require stable
//!   offsets, as `poll` does: it answers the applied commits and leaves pending transactional
//!   ones out), and full cycles add the discovered groups that partition coordinates. The other
//!   groups still come from the stream.
//! - Each full cycle asks at least one group of its coordinator, as `poll` does: a source that
//!   answers nothing shows no error on the stream's consumer, and this request's failure is what
//!   puts the cluster in the retry reason and keeps the cycle from counting as successful.
//! - The group offset sync reads the checkpoints these cycles record, so it follows the stream.
//! - When the stream cannot start (no DESCRIBE on the topic) or fails later (no READ), the task
//!   warns once, naming the ACL, and goes on with `poll`: opting into the faster source never
//!   costs a running task its checkpoints.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::Shared;
use crate::runtime::group_offsets_stream::GroupOffsetsStream;
use mm2_checkpoint_core::checkpoint_rules::CommittedOffset;
use mm2_checkpoint_core::consumer_offsets::CONSUMER_OFFSETS_TOPIC;
use mm2_checkpoint_core::mirror_checkpoint_config::GroupOffsetsSource;
use mm2_checkpoint_kafka::admin::GroupOffsetsResult;

/// The task's stream, once tried, and what the next cycle takes from it.
#[derive(Default)]
pub(super) struct StreamSource {
    tried: bool,
    stream: Option<GroupOffsetsStream>,
    /// The source cluster's alias, named in the fallback warning.
    source: String,
    /// The next cycle covers only the groups changed since the last one.
    partial: bool,
}

/// What a cycle takes from the stream.
pub(super) struct Streamed {
    /// The groups the cycle covers (before the task's own assignment checks).
    pub(super) groups: Vec<String>,
    /// Whether the cycle covers every group (not only the changed ones).
    pub(super) full: bool,
}

impl StreamSource {
    /// Starts the stream on the first call when the configuration asks for it; on failure warns
    /// and stays on the `poll` path.
    pub(super) fn ensure_started(&mut self, shared: &Arc<Shared>) {
        if self.tried
            || shared.config.group_offsets_source != GroupOffsetsSource::ConsumerOffsetsTopic
        {
            return;
        }
        self.tried = true;
        self.source = shared.config.source_cluster_alias.clone();
        let signal = shared.signal.clone();
        // The group filter applies inside the stream; the task's own share of the groups is
        // checked per cycle, since it can change while the stream runs.
        match GroupOffsetsStream::start_notifying(&shared.config, |_| true, move || signal.nudge())
        {
            Ok(stream) => {
                shared.metrics.offsets_stream_started(stream.holds());
                self.stream = Some(stream);
            }
            Err(e) => fall_back(&self.source, &e),
        }
    }

    /// Whether a commit is waiting for a partial cycle.
    pub(super) fn has_changes(&self) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|s| s.caught_up() && s.has_changes())
    }

    /// Sets whether the next cycle is partial (changed groups only) or full.
    pub(super) fn set_partial(&mut self, partial: bool) {
        self.partial = partial;
    }

    /// The stream, when its offsets can be used: caught up and not failed. A failed stream is
    /// stopped and closed here, with a warning, and the task is back on `poll`.
    pub(super) fn usable(&mut self) -> Option<&GroupOffsetsStream> {
        if let Some(e) = self.stream.as_ref().and_then(GroupOffsetsStream::failure) {
            fall_back(&self.source, &e);
            self.stream = None;
        }
        self.stream.as_ref().filter(|s| s.caught_up())
    }

    /// The groups the next cycle covers when the stream is usable: the changed ones for a
    /// partial cycle, every kept one for a full cycle. `None` means: take today's path.
    pub(super) fn take_groups(&mut self) -> Option<Streamed> {
        let partial = std::mem::take(&mut self.partial);
        let stream = self.usable()?;
        let changed = stream.take_changes();
        let groups = if partial {
            changed.into_iter().collect()
        } else {
            let mut all: BTreeSet<String> =
                stream.with_offsets(|o| o.groups().into_iter().collect());
            // Deleted groups are covered too, so their checkpoints stop as in a poll cycle.
            all.extend(changed);
            all.into_iter().collect()
        };
        Some(Streamed {
            groups,
            full: !partial,
        })
    }

    /// Stops and closes the stream (flag, wake, join, close).
    pub(super) fn close(&mut self) {
        self.stream = None;
    }
}

fn fall_back(source: &str, e: &mm2_checkpoint_core::error::Error) {
    log::warn!(
        "group.offsets.source = consumer-offsets-topic: cannot read `{CONSUMER_OFFSETS_TOPIC}` of cluster `{source}` ({e}); falling back to `poll`, listing every group's committed offsets once per interval"
    );
}

/// The committed offsets of `groups` as the stream keeps them, in the form a fetch returns.
pub(super) fn committed(stream: &GroupOffsetsStream, groups: &[String]) -> Vec<GroupOffsetsResult> {
    stream.with_offsets(|o| {
        groups
            .iter()
            .map(|g| {
                Ok(o.group_offsets(g)
                    .into_iter()
                    .map(|(tp, c)| (tp, Some(CommittedOffset::new(c.offset, c.metadata))))
                    .collect())
            })
            .collect()
    })
}
