//! One checkpoint cycle, run on the polling thread: fetch the groups' committed offsets on the
//! source, translate them through the offset-sync store, and write the checkpoints. Each group
//! is decided and its checkpoints handed to the producer as soon as its offsets arrive, so the
//! writes overlap the remaining fetches; the cycle ends once every write is confirmed.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Instant;

use super::decisions::{self, GroupVerdict};
use super::faults::ErrorPoint;
use super::group_fetch_failures::{classify, FetchJob, RunFailures};
use super::other_writers::{self, OtherWriters};
use super::task_metrics::{CycleEnd, Delivered};
use super::{
    now_ms, stream_source, PartitionStatus, Poller, Shared, MAX_OFFSET_FETCHES_IN_FLIGHT,
    OFFSET_FETCH_CONNECTIONS,
};
use mm2_checkpoint_core::checkpoint::Checkpoint;
use mm2_checkpoint_core::checkpoint_rules::{checkpoints_for_group_both_ways, ReverseSyncs};
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::replication_policy::checkpoint_topic_partition;
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::{Admin, GroupOffsetsResult};
use mm2_checkpoint_kafka::checkpoint_producer::{CheckpointProducer, WRITER_HEADER};
use mm2_checkpoint_kafka::librdkafka::NativeError;
use mm2_checkpoint_kafka::mutex::lock;
use mm2_checkpoint_kafka::range_reader::RangeReader;

/// Committed offsets of `groups` on the source, batched. Some brokers (librdkafka's mock among
/// them) answer "all partitions" with nothing; groups that came back empty are asked again for
/// the partitions offset syncs exist for, since only those can be translated anyway.
pub(super) fn fetch_committed(
    shared: &Shared,
    admins: &mut [Admin],
    groups: &[String],
) -> Result<Vec<(String, GroupOffsetsResult)>, Error> {
    let mut committed: Vec<Option<GroupOffsetsResult>> = vec![None; groups.len()];
    fetch_streamed(admins, groups, None, |index, result| {
        committed[index] = Some(result);
        true
    })?;
    let empty = decisions::empty_results(&committed);
    let known = if empty.is_empty() {
        Vec::new()
    } else {
        known_partitions(shared)
    };
    if !known.is_empty() {
        let again: Vec<String> = empty.iter().map(|&i| groups[i].clone()).collect();
        fetch_streamed(admins, &again, Some(&known), |index, result| {
            committed[empty[index]] = Some(result);
            true
        })?;
    }
    Ok(groups
        .iter()
        .cloned()
        .zip(committed.into_iter().map(|r| {
            r.unwrap_or_else(|| {
                Err(NativeError {
                    code: mm2_checkpoint_kafka::ErrorCode::Fail,
                    message: "no result".into(),
                })
            })
        }))
        .collect())
}

/// The partitions offset syncs exist for, on topics that are replicated; with reverse
/// checkpoints, also the source's replicas of the target partitions the reverse flow has syncs
/// for.
fn known_partitions(shared: &Shared) -> Vec<TopicPartition> {
    let c = &shared.config;
    let filter = &c.topic_filter;
    let mut known = decisions::known_partitions(
        shared.read_syncs().partitions().map(|(t, p, _)| (t, p)),
        |t| filter.should_replicate_topic(t),
    );
    if c.emit_reverse_checkpoints_enabled {
        let reverse = shared.read_reverse_syncs();
        let replicas: Vec<(String, i32)> = reverse
            .partitions()
            .map(|(t, p, _)| {
                (
                    shared
                        .policy
                        .format_remote_topic(&c.target_cluster_alias, t),
                    p,
                )
            })
            .collect();
        known.extend(decisions::known_partitions(
            replicas.iter().map(|(t, p)| (t.as_str(), *p)),
            |t| filter.should_replicate_topic(t),
        ));
    }
    known
}

/// Fetches `groups`' committed offsets, split into one contiguous share per admin client, each
/// share on its own thread, [`MAX_OFFSET_FETCHES_IN_FLIGHT`] outstanding in all, and hands each
/// result (with the group's index in `groups`) to `each` on the calling thread as it arrives.
/// A broker serves one connection's requests one after another, and librdkafka asks one group
/// per request (and looks its coordinator up first), so more connections are what make a large
/// cycle faster. When `each` returns false the fetches end early. The first error of a share (a
/// stop among them) is returned once every share ended.
fn fetch_streamed(
    admins: &mut [Admin],
    groups: &[String],
    partitions: Option<&[TopicPartition]>,
    mut each: impl FnMut(usize, GroupOffsetsResult) -> bool,
) -> Result<(), Error> {
    let used = admins.len().min(groups.len()).max(1);
    let per_admin = (MAX_OFFSET_FETCHES_IN_FLIGHT / used).max(1);
    let Some(first) = admins.first_mut() else {
        return Err(Error::InvalidState(
            "no admin client to fetch offsets".into(),
        ));
    };
    if used == 1 {
        return first.each_group_offsets(groups, partitions, per_admin, each);
    }
    let share = groups.len().div_ceil(used);
    let (tx, rx) = mpsc::channel::<(usize, GroupOffsetsResult)>();
    std::thread::scope(|s| {
        let shares: Vec<_> = admins
            .iter_mut()
            .zip(groups.chunks(share).enumerate())
            .map(|(admin, (k, chunk))| {
                let tx = tx.clone();
                s.spawn(move || {
                    admin.each_group_offsets(chunk, partitions, per_admin, |i, result| {
                        // A closed channel: the caller stopped taking results.
                        tx.send((k * share + i, result)).is_ok()
                    })
                })
            })
            .collect();
        drop(tx);
        for (index, result) in &rx {
            if !each(index, result) {
                break;
            }
        }
        drop(rx);
        let mut out = Ok(());
        for share in shares {
            let ended = match share.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            if let (Ok(()), Err(e)) = (&out, ended) {
                out = Err(e);
            }
        }
        out
    })
}

/// One checkpoint cycle on the polling thread.
pub(super) fn run_cycle(shared: &Shared, poller: &mut Poller) -> Result<Vec<Checkpoint>, Error> {
    let began = Instant::now();
    let cycle = shared.begin_cycle();
    let writes_failed_before = shared.metrics.writes_failed_so_far();
    let result = run_cycle_inner(shared, poller);
    drop(cycle);
    match &result {
        // A cycle that could not read some group's offsets (a source that answers nothing,
        // a coordinator moving) or write some checkpoint (a target that answers nothing) leaves
        // `since_last_successful_cycle` growing.
        Ok(_)
            if shared.group_retries.has_retries(FetchJob::Cycle)
                || shared.metrics.writes_failed_so_far() > writes_failed_before =>
        {
            shared.metrics.cycle_ended(CycleEnd::Partial)
        }
        Ok(_) => shared.metrics.cycle_ended(CycleEnd::Done),
        Err(Error::Stopped) => {}
        Err(Error::Fatal { .. }) => shared.metrics.cycle_ended(CycleEnd::Fatal),
        Err(_) => shared.metrics.cycle_ended(CycleEnd::Retried),
    }
    shared
        .counters
        .last_cycle_us
        .store(began.elapsed().as_micros().max(1) as u64, Ordering::SeqCst);
    shared.note_fetches_in_flight(&poller.source_admins);
    result
}

pub(super) fn run_cycle_inner(
    shared: &Shared,
    poller: &mut Poller,
) -> Result<Vec<Checkpoint>, Error> {
    let c = &shared.config;
    shared.counters.cycles.fetch_add(1, Ordering::SeqCst);
    let streamed = poller.stream.take_groups();
    let from_stream = streamed.is_some();
    let full_stream_cycle = streamed.as_ref().is_some_and(|s| s.full);
    // The stream keeps every group the filter takes; a fixed `task.assigned.groups` list or
    // this task's share of them is applied here, as discovery applies it to the listing.
    let held = poller
        .stream
        .usable()
        .filter(|s| from_stream && s.held_partitions() > 0);
    let groups = decisions::cycle_groups(
        streamed.map_or_else(
            || shared.groups_snapshot(),
            |s| {
                let mut groups = s.groups;
                // Groups whose commits an open transaction keeps from the stream: a full cycle
                // covers the discovered ones too, since the stream may not know them yet.
                if let Some(stream) = held.filter(|_| s.full) {
                    groups.extend(
                        shared
                            .groups_snapshot()
                            .into_iter()
                            .filter(|g| stream.held_by_transaction(g)),
                    );
                    groups.sort();
                    groups.dedup();
                }
                groups
                    .into_iter()
                    .filter(|g| shared.accepts_group(g))
                    .collect()
            },
        ),
        c.assigned_groups.is_some(),
        |g| shared.should_handle_group(g),
        |g| shared.cycle_may_emit(g),
    );
    if groups.is_empty() {
        shared
            .group_retries
            .finish(FetchJob::Cycle, RunFailures::default());
        return Ok(Vec::new());
    }
    while poller.source_admins.len() < OFFSET_FETCH_CONNECTIONS {
        poller.source_admins.push(
            Admin::open(
                &c.source_admin_config(),
                &c.source_cluster_alias,
                "checkpoint-source-admin",
                c.admin_timeout,
                &shared.signal,
            )?
            .report_slow_answers(shared.slow_answer.clone()),
        );
    }
    if poller.producer.is_none() {
        poller.producer = Some(
            CheckpointProducer::open(
                &c.target_producer_config(),
                &c.checkpoints_topic(),
                &shared.writer,
                &shared.signal,
            )?
            .report_slow_writes(&c.target_cluster_alias, shared.slow_answer.clone()),
        );
    }
    let Poller {
        source_admins,
        producer: Some(producer),
        stream,
        other_writers,
    } = poller
    else {
        return Err(Error::InvalidState("poll clients missing".into()));
    };
    let others = other_writers.get_or_insert_with(|| OtherWriters::new(shared.writer.clone()));
    let mut write = CycleWrite::new(shared, producer);
    let mut injected = shared.faults.injected_error(ErrorPoint::CycleGroupOffsets);
    let mut empty = Vec::new();
    let mut failed = None;
    let mut each = |index: usize, result: GroupOffsetsResult| {
        let result = match injected.take() {
            Some(e) => Err(e),
            None => result,
        };
        if matches!(&result, Ok(m) if m.is_empty()) {
            empty.push(groups[index].clone());
            return true;
        }
        match write.take(&groups[index], result) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    };
    let fetched = match stream.usable().filter(|_| from_stream) {
        Some(stream) => {
            // Groups on a partition an open transaction holds are asked of their coordinator.
            let (mut asked, mut kept): (Vec<usize>, Vec<usize>) =
                (0..groups.len()).partition(|&i| stream.held_by_transaction(&groups[i]));
            // A full cycle asks at least one group of its coordinator: the stream's consumer
            // sees neither data nor an error from a source that answers nothing, and this one
            // request per interval is what tells (a retry reason, no successful cycle).
            if full_stream_cycle && asked.is_empty() && !kept.is_empty() {
                asked.push(kept.remove(0));
            }
            let kept_groups: Vec<String> = kept.iter().map(|&i| groups[i].clone()).collect();
            let mut going = true;
            for (k, result) in stream_source::committed(stream, &kept_groups)
                .into_iter()
                .enumerate()
            {
                if !each(kept[k], result) {
                    going = false;
                    break;
                }
            }
            log::debug!(
                "cycle: {} groups from the stream, {} asked of their coordinator",
                kept.len(),
                asked.len()
            );
            if going && !asked.is_empty() {
                let asked_groups: Vec<String> = asked.iter().map(|&i| groups[i].clone()).collect();
                fetch_streamed(source_admins, &asked_groups, None, |k, result| {
                    each(asked[k], result)
                })
            } else {
                Ok(())
            }
        }
        None => fetch_streamed(source_admins, &groups, None, &mut each),
    };
    if let Some(e) = failed {
        return Err(e);
    }
    fetched?;
    // A group the stream keeps nothing for has no commits: asking the source again for it (as
    // for a listing that came back empty) would only repeat that.
    if from_stream {
        for group in std::mem::take(&mut empty) {
            write.take(&group, Ok(BTreeMap::new()))?;
        }
    }
    if !empty.is_empty() {
        let known = known_partitions(shared);
        if known.is_empty() {
            for group in &empty {
                write.take(group, Ok(BTreeMap::new()))?;
            }
        } else {
            let fetched =
                fetch_streamed(
                    source_admins,
                    &empty,
                    Some(&known),
                    |index, result| match write.take(&empty[index], result) {
                        Ok(()) => true,
                        Err(e) => {
                            failed = Some(e);
                            false
                        }
                    },
                );
            if let Some(e) = failed {
                return Err(e);
            }
            fetched?;
        }
    }
    let (batch, own) = write.finish()?;
    others.wrote(&own);
    // Only the elastic mode moves groups between tasks while they run; a task's filter and
    // static share of the groups are fixed, so it never wrote a group they exclude.
    if shared.coordination.is_some() {
        others.keep_groups(|g| shared.owns_group_now(g));
    }
    if others.has_gaps() {
        let opened = || {
            RangeReader::open(
                &c.checkpoints_consumer_config(),
                &c.checkpoints_topic(),
                WRITER_HEADER,
                "checkpoints-readback-consumer",
                &shared.signal,
            )
        };
        match others.check(other_writers::READ_BUDGET, opened) {
            Ok(found) => {
                shared
                    .metrics
                    .other_writers_found(found, others.me(), &c.checkpoints_topic())
            }
            Err(Error::Stopped) => return Err(Error::Stopped),
            // Only a consumer that cannot be made or assigned: the check waits for the next cycle.
            Err(e) => log::debug!("reading back `{}`: {e}", c.checkpoints_topic()),
        }
    }
    Ok(batch)
}

/// The group and offset of each checkpoint record a cycle delivered.
type OwnRecords = Vec<(String, i64)>;

/// A checkpoint sent in a cycle, waiting for its delivery.
struct Pending {
    checkpoint: Checkpoint,
    upstream: TopicPartition,
    /// The upstream offset of the sync it was translated through (for the replay bound).
    sync_upstream: Option<i64>,
    /// When its group's committed offsets arrived (for freshness).
    read_at: Instant,
    /// Its record timestamp (for MM2's latency).
    decided_ms: i64,
}

/// A cycle's writes: each group's checkpoints handed to the producer as its offsets arrive,
/// recorded once delivered.
struct CycleWrite<'a> {
    shared: &'a Shared,
    producer: &'a mut CheckpointProducer,
    /// Sent checkpoints, by record index.
    pending: Vec<Pending>,
    processed_groups: Vec<String>,
    no_longer_replicated: Vec<String>,
    failures: RunFailures,
    writing: bool,
}

impl<'a> CycleWrite<'a> {
    fn new(shared: &'a Shared, producer: &'a mut CheckpointProducer) -> Self {
        producer.begin();
        CycleWrite {
            shared,
            producer,
            pending: Vec::new(),
            processed_groups: Vec::new(),
            no_longer_replicated: Vec::new(),
            failures: RunFailures::default(),
            writing: false,
        }
    }

    /// Decides `group`'s checkpoints from its fetch result and sends them. Errs only when the
    /// cycle must end: a stop, or a failure that ends the task.
    fn take(&mut self, group: &str, result: GroupOffsetsResult) -> Result<(), Error> {
        let read_at = Instant::now();
        let shared = self.shared;
        let c = &shared.config;
        if !self.writing {
            self.writing = true;
            if let Some(hook) = &shared.hooks.cycle_writing {
                hook(&shared.signal);
            }
        }
        let verdict = decisions::group_verdict(
            shared.cycle_may_emit(group),
            c.assigned_groups.is_none(),
            result,
            |t| c.topic_filter.should_replicate_topic(t),
        );
        let offsets = match verdict {
            GroupVerdict::Checkpoint(offsets) => offsets,
            GroupVerdict::Abandoned => {
                // Revoked while its offsets were fetched: abandoned, so the revocation can be
                // acknowledged as soon as this cycle's writes are confirmed.
                log::debug!("group `{group}` moved to another process during the cycle; abandoned");
                return Ok(());
            }
            GroupVerdict::FetchFailed(e) => {
                let failure = classify(&c.source_cluster_alias, group, &e);
                return self
                    .failures
                    .note(FetchJob::Cycle, &shared.group_retries, group, failure);
            }
            GroupVerdict::NoLongerReplicated => {
                // Discovered groups must keep a commit on a replicated topic (MM2's refresh
                // drops them otherwise); the next discovery re-checks it.
                self.no_longer_replicated.push(group.to_string());
                return Ok(());
            }
        };
        log::debug!(
            "group `{group}`: {} committed partitions on the source",
            offsets.len()
        );
        let rename = |tp: &TopicPartition| {
            checkpoint_topic_partition(
                &shared.policy,
                &c.source_cluster_alias,
                &c.target_cluster_alias,
                tp,
            )
        };
        let ts = now_ms();
        let record = shared.metrics.recording();
        let (decided, emitted_from) = {
            let last = lock(&shared.checkpoints);
            let syncs = shared.read_syncs();
            let reverse_syncs = c
                .emit_reverse_checkpoints_enabled
                .then(|| shared.read_reverse_syncs());
            let original_topic = |topic: &str| shared.original_of_target_replica(topic);
            let reverse = reverse_syncs.as_deref().map(|store| ReverseSyncs {
                store,
                original_topic: &original_topic,
            });
            let decided = checkpoints_for_group_both_ways(
                group,
                &offsets,
                &c.topic_filter,
                &syncs,
                reverse.as_ref(),
                &rename,
                last.get(group),
            );
            // Each committed partition renamed once, to find an emitted checkpoint's upstream;
            // the sync it went through is looked up under the same lock as the translation.
            let emitted_from: Vec<(TopicPartition, Option<i64>)> = if decided.emitted.is_empty() {
                Vec::new()
            } else {
                let renamed: Vec<(TopicPartition, &TopicPartition)> =
                    offsets.keys().map(|tp| (rename(tp), tp)).collect();
                decided
                    .checkpoints()
                    .map(|cp| {
                        let upstream = decisions::upstream_of(&renamed, &cp.topic_partition);
                        let sync = record
                            .then(|| syncs.sync_upstream_offset(&upstream, cp.upstream_offset))
                            .flatten();
                        (upstream, sync)
                    })
                    .collect()
            };
            (decided, emitted_from)
        };
        let unknown = if record {
            shared
                .metrics
                .group_read(group, &offsets, &decided.skipped, read_at)
        } else {
            Vec::new()
        };
        if !unknown.is_empty() {
            self.known_checkpoints(group, &unknown, &rename, read_at);
        }
        let news = lock(&shared.skip_explanations).news(group, offsets.keys(), &decided.skipped);
        for (upstream, reason) in news {
            let committed = offsets
                .get(&upstream)
                .and_then(|o| o.as_ref())
                .map_or_else(String::new, |o| format!(" at offset {}", o.offset));
            log::info!(
                "no checkpoint for group `{group}` on {upstream} (committed{committed}): {} [{}]",
                decisions::explanation(reason),
                reason.as_str()
            );
        }
        if !decided.skipped.is_empty() {
            let mut statuses = lock(&shared.statuses);
            for (upstream, reason) in decided.skipped {
                let entry = statuses
                    .entry((group.to_string(), upstream.clone()))
                    .or_insert_with(|| PartitionStatus {
                        group: group.to_string(),
                        topic_partition: upstream,
                        last_checkpoint: None,
                        reason: None,
                    });
                entry.reason = Some(reason.as_str().to_string());
            }
        }
        for ((cp, _why), (upstream, sync_upstream)) in
            decided.emitted.into_values().zip(emitted_from)
        {
            match (cp.encode_key(), cp.encode_value()) {
                (Ok(k), Ok(v)) => {
                    self.producer.send(self.pending.len(), &k, &v, ts)?;
                    self.pending.push(Pending {
                        checkpoint: cp,
                        upstream,
                        sync_upstream,
                        read_at,
                        decided_ms: ts,
                    });
                }
                (Err(e), _) | (_, Err(e)) => log::error!("cannot encode checkpoint {cp:?}: {e}"),
            }
        }
        self.processed_groups.push(group.to_string());
        Ok(())
    }

    /// Tells the metrics the newest checkpoints of `partitions` (read back from the
    /// checkpoints topic at start, so not written by this task yet) and the syncs they were
    /// translated through, while the store still keeps those (else none: the replay bound is
    /// then unknown rather than measured from another sync).
    fn known_checkpoints(
        &self,
        group: &str,
        partitions: &[TopicPartition],
        rename: &dyn Fn(&TopicPartition) -> TopicPartition,
        read_at: Instant,
    ) {
        let shared = self.shared;
        let store = lock(&shared.checkpoints);
        let syncs = shared.read_syncs();
        let Some(last) = store.get(group) else {
            return;
        };
        for upstream in partitions {
            if let Some(cp) = last.get(&rename(upstream)) {
                let sync =
                    syncs.sync_of_checkpoint(upstream, cp.upstream_offset, cp.downstream_offset);
                shared.metrics.known_checkpoint(
                    group,
                    upstream,
                    (cp.upstream_offset, cp.downstream_offset),
                    sync,
                    read_at,
                );
            }
        }
    }

    /// Waits for every write, records what was delivered, and returns it with each delivered
    /// record's group and offset.
    fn finish(self) -> Result<(Vec<Checkpoint>, OwnRecords), Error> {
        let shared = self.shared;
        if !self.no_longer_replicated.is_empty() {
            shared.drop_groups(&self.no_longer_replicated);
        }
        let outcomes = if self.pending.is_empty() {
            Vec::new()
        } else {
            self.producer.finish(self.pending.len())?
        };
        shared.group_retries.finish(FetchJob::Cycle, self.failures);
        if shared.signal.is_stopped() {
            // The records are written; what is left is this task's bookkeeping of them (its
            // statuses, store and metrics: 100 ms and more for 100,000 checkpoints), which a
            // stopped task no longer needs. Only the count of what it wrote stays.
            let written = outcomes.iter().filter(|o| o.is_ok()).count();
            shared
                .counters
                .checkpoints_emitted
                .fetch_add(written as u64, Ordering::SeqCst);
            return Err(Error::Stopped);
        }
        let mut delivered: BTreeMap<String, Vec<Checkpoint>> = self
            .processed_groups
            .into_iter()
            .map(|g| (g, Vec::new()))
            .collect();
        let mut confirmed = Vec::with_capacity(self.pending.len());
        let mut failed = 0;
        for (pending, outcome) in self.pending.into_iter().zip(outcomes) {
            match outcome {
                Ok(delivery) => confirmed.push((pending, delivery)),
                Err(e) => {
                    failed += 1;
                    log::warn!(
                        "checkpoint for group `{}` {} not delivered: {e}; will retry next cycle",
                        pending.checkpoint.consumer_group_id,
                        pending.checkpoint.topic_partition
                    )
                }
            }
        }
        shared.metrics.writes_failed(failed);
        if shared.metrics.recording() {
            shared
                .metrics
                .delivered(confirmed.iter().map(|(p, delivery)| Delivered {
                    group: &p.checkpoint.consumer_group_id,
                    upstream: &p.upstream,
                    checkpointed: &p.checkpoint.topic_partition,
                    upstream_offset: p.checkpoint.upstream_offset,
                    downstream_offset: p.checkpoint.downstream_offset,
                    sync_upstream: p.sync_upstream,
                    read_at: p.read_at,
                    decided_ms: p.decided_ms,
                    delivered_ms: delivery.at_ms,
                }));
        }
        let own: OwnRecords = confirmed
            .iter()
            .map(|(p, delivery)| (p.checkpoint.consumer_group_id.clone(), delivery.offset))
            .collect();
        let mut batch = Vec::with_capacity(confirmed.len());
        let mut statuses = lock(&shared.statuses);
        for (
            Pending {
                checkpoint: cp,
                upstream,
                ..
            },
            _,
        ) in confirmed
        {
            let status = statuses
                .entry((cp.consumer_group_id.clone(), upstream.clone()))
                .or_insert_with(|| PartitionStatus {
                    group: cp.consumer_group_id.clone(),
                    topic_partition: upstream,
                    last_checkpoint: None,
                    reason: None,
                });
            status.last_checkpoint = Some(cp.clone());
            status.reason = None;
            delivered
                .entry(cp.consumer_group_id.clone())
                .or_default()
                .push(cp.clone());
            batch.push(cp);
        }
        drop(statuses);
        // Recorded only once delivered, so a failed write is retried (MM2 records before sending).
        let mut store = lock(&shared.checkpoints);
        for (group, cps) in delivered {
            store.update(&group, cps);
        }
        drop(store);
        shared
            .counters
            .checkpoints_emitted
            .fetch_add(batch.len() as u64, Ordering::SeqCst);
        Ok((batch, own))
    }
}
