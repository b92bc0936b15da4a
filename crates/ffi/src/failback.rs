//! Failback for C: `mm_translate_offsets_back` translates groups' commits on a replica cluster's
//! replica topics back to the original topics with the forward flow's offset syncs;
//! `mm_failback_report` is its dry run against the original cluster, and
//! `mm_commit_failback_offsets` / `mm_commit_translated_offsets` commit a translation into the
//! groups idle on the cluster it is for (failback and failover).
//!
//! The flow conf is the forward flow's (A->B) own checkpoint configuration, the `mm_conf_t` its
//! `mm_task_new` would take: its aliases, clusters, offset-syncs location and replication policy
//! say where everything is.

use std::ffi::{c_char, c_int};

use super::boundary::{
    borrow, copy_row, destroy, give, growable, into_handle, mm_result, out, row_text, run, CText,
    Failure,
};
use super::conf::mm_conf_t;
use super::remote_cluster_utils::{
    group_selector, mm_failover_report_t, mm_translated_offsets_t, split_target_conf,
};
use super::task::timeout_of;
use mm2_checkpoint::failback::{
    commit_failback_offsets, failback_report, translate_offsets_back, FailbackOffsets, ForwardFlow,
};
use mm2_checkpoint::remote_cluster_utils::{
    commit_translated_offsets, CommitOutcome, CommitReport,
};
use mm2_checkpoint::ReverseTranslation;

/// The forward flow a flow conf describes (its warnings logged).
fn flow_of(conf: &mm_conf_t) -> Result<ForwardFlow, Failure> {
    let (config, warnings) = conf.parse()?;
    for w in warnings {
        log::warn!("configuration `{}`: {}", w.key, w.message);
    }
    Ok(ForwardFlow::of(&config)?)
}

/// One entry of a failback translation with its text ready for C.
struct Entry {
    group: CText,
    topic: CText,
    partition: i32,
    offset: i64,
    rereads_at_most: i64,
    replica_topic: CText,
    replica_offset: i64,
    metadata: CText,
    untranslated_reason: CText,
}

/// Groups' positions translated back to the original cluster: one entry per group and
/// original topic-partition, then one per commit that could not be translated. Made by
/// `mm_translate_offsets_back`, freed by `mm_failback_offsets_destroy`. Opaque, immutable; any
/// number of threads may read it at once.
#[allow(non_camel_case_types)]
pub struct mm_failback_offsets_t {
    entries: Vec<Entry>,
    translated: FailbackOffsets,
}

impl mm_failback_offsets_t {
    fn new(translated: FailbackOffsets) -> Self {
        let mut entries = Vec::new();
        for (group, offsets) in &translated.groups {
            for (tp, o) in offsets {
                entries.push(Entry {
                    group: CText::new(group),
                    topic: CText::new(&tp.topic),
                    partition: tp.partition,
                    offset: o.offset,
                    rereads_at_most: o.rereads_at_most,
                    replica_topic: CText::new(&o.replica_topic),
                    replica_offset: o.replica_offset,
                    metadata: CText::new(&o.metadata),
                    untranslated_reason: CText::new(""),
                });
            }
        }
        for u in &translated.untranslated {
            let reason = match u.reason {
                ReverseTranslation::NoOffsetSync => "no_offset_sync",
                ReverseTranslation::OlderThanEveryKeptSync => "older_than_every_sync",
                ReverseTranslation::NotReadToEnd => "offset_syncs_not_read_to_end",
                ReverseTranslation::Offset { .. } => "",
            };
            entries.push(Entry {
                group: CText::new(&u.group),
                topic: CText::new(""),
                partition: u.replica_partition.partition,
                offset: -1,
                rereads_at_most: -1,
                replica_topic: CText::new(&u.replica_partition.topic),
                replica_offset: u.replica_offset,
                metadata: CText::new(""),
                untranslated_reason: CText::new(reason),
            });
        }
        mm_failback_offsets_t {
            entries,
            translated,
        }
    }
}

/// Reads the selected groups' committed offsets on the forward flow's **target** (B, the
/// replica cluster), keeps those on replica topics of its source (A), and translates each back
/// to the original topic on A with the flow's offset syncs, read from their start to their end
/// now; writes the answer to `*failback_out` (free it with `mm_failback_offsets_destroy`).
///
/// `flow_conf` is the forward flow's (A->B) checkpoint configuration, as `mm_task_new` takes it:
/// `source.cluster.alias` A, `target.cluster.alias` B, both clusters' settings, and, where they
/// differ from MM2's defaults, `offset-syncs.topic.location` and the replication policy. It is
/// only read. `kind` and `groups` select the groups as for `mm_translate_offsets` (a regex lists
/// B's groups first).
///
/// A translation is never ahead: a consumer resuming at it on A skips no record, and re-reads at
/// most `rereads_at_most` records (the distance to the nearest sync the topic still holds). A
/// commit without a translation is an entry with offset -1 and its reason, never a guess.
///
/// **Blocks** up to `timeout_ms` (`MM_TIMEOUT_INFINITE` = no limit) for the whole call:
/// `MM_RESULT_TIMED_OUT` when it is reached, never a partial answer. `MM_RESULT_INVALID_CONFIG`
/// for a configuration `mm_task_new` would refuse and under `IdentityReplicationPolicy` (a
/// replica cannot be told from B's own topics); `MM_RESULT_KAFKA` for a missing offset-syncs
/// topic (named) or a group whose offsets cannot be read; `MM_RESULT_INVALID_ARGUMENT` for a bad
/// `kind`, group text or timeout; `MM_RESULT_NULL_PARAMETER`. On failure `*failback_out` is
/// untouched. Any thread; concurrent calls are fine.
///
/// # Safety
/// `flow_conf` is NULL or a live conf; `groups` is NULL or NUL-terminated; `failback_out` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_translate_offsets_back(
    flow_conf: *const mm_conf_t,
    kind: c_int,
    groups: *const c_char,
    timeout_ms: i32,
    failback_out: *mut *mut mm_failback_offsets_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, groups, failback_out) = unsafe {
            (
                borrow(flow_conf, "flow_conf")?,
                super::boundary::text(groups, "groups")?,
                out(failback_out, "failback_out")?,
            )
        };
        let selector = group_selector(kind, groups)?;
        let timeout = timeout_of(timeout_ms)?;
        let flow = flow_of(conf)?;
        let translated = translate_offsets_back(&flow, &selector, timeout)?;
        failback_out.write(into_handle(mm_failback_offsets_t::new(translated)));
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `failback` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_failback_offsets_len(
    failback: *const mm_failback_offsets_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(failback, "failback")?.entries.len())
        })
    })
}

/// One entry of a failback translation, filled by `mm_failback_offsets_row`. Set `struct_size`
/// to `sizeof(mm_failback_row)` first; fields are only ever added at the end. Text is UTF-8,
/// NUL-terminated, owned by the list (valid until it is destroyed), with its length in bytes
/// beside it.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_failback_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group.
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The original topic on the source cluster of the forward flow; empty when untranslated.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The partition (the same on both clusters).
    pub partition: i64,
    /// Where the group resumes on the original topic; -1 when untranslated.
    pub offset: i64,
    /// The most records a consumer resuming there reads a second time; -1 when untranslated.
    pub rereads_at_most: i64,
    /// The replica topic the group committed on.
    pub replica_topic: *const c_char,
    /// Length of `replica_topic` in bytes.
    pub replica_topic_len: u64,
    /// The group's committed offset on the replica topic.
    pub replica_offset: i64,
    /// The metadata committed with it.
    pub metadata: *const c_char,
    /// Length of `metadata` in bytes.
    pub metadata_len: u64,
    /// Empty when translated; else why not: `no_offset_sync` (the flow has no sync for the
    /// partition) or `older_than_every_sync` (every sync is after the commit).
    pub untranslated_reason: *const c_char,
    /// Length of `untranslated_reason` in bytes.
    pub untranslated_reason_len: u64,
}

growable!(unsafe mm_failback_row, 15);

impl Entry {
    fn row(&self) -> mm_failback_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        let (replica_topic, replica_topic_len) = row_text(Some(&self.replica_topic));
        let (metadata, metadata_len) = row_text(Some(&self.metadata));
        let (untranslated_reason, untranslated_reason_len) =
            row_text(Some(&self.untranslated_reason));
        mm_failback_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            offset: self.offset,
            rereads_at_most: self.rereads_at_most,
            replica_topic,
            replica_topic_len,
            replica_offset: self.replica_offset,
            metadata,
            metadata_len,
            untranslated_reason,
            untranslated_reason_len,
        }
    }
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's
/// length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL
/// (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `failback` is NULL or a live list; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_failback_offsets_row(
    failback: *const mm_failback_offsets_t,
    index: usize,
    row_out: *mut mm_failback_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            failback,
            "failback",
            index,
            |l: &mm_failback_offsets_t| l.entries.as_slice(),
            Entry::row,
            row_out,
        )
    })
}

/// Frees a failback translation and its text. NULL is ignored. No other call may use it during
/// or after.
///
/// # Safety
/// `failback` is NULL or a list from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_failback_offsets_destroy(failback: *mut mm_failback_offsets_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(failback) };
}

/// The dry run of a failback: compares each translated entry of `failback` with its group's
/// committed offset on the forward flow's source (A) now, and writes the report to
/// `*report_out` (read and free it as a failover report; `mm_failover_report_caught_up` says
/// per group whether its position on B is already reflected on A). Changes nothing. Untranslated
/// entries are not in the report. Results and blocking as for `mm_failover_report`.
///
/// # Safety
/// `flow_conf` is NULL or a live conf; `failback` is NULL or a live list; `report_out` is NULL
/// or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_failback_report(
    flow_conf: *const mm_conf_t,
    failback: *const mm_failback_offsets_t,
    timeout_ms: i32,
    report_out: *mut *mut mm_failover_report_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, list, report_out) = unsafe {
            (
                borrow(flow_conf, "flow_conf")?,
                borrow(failback, "failback")?,
                out(report_out, "report_out")?,
            )
        };
        let timeout = timeout_of(timeout_ms)?;
        let flow = flow_of(conf)?;
        let report = failback_report(&flow, &list.translated, timeout)?;
        report_out.write(into_handle(mm_failover_report_t::new(&report)));
        Ok(())
    })
}

/// One partition of a commit, with its text ready for C.
struct Commit {
    group: CText,
    topic: CText,
    partition: i32,
    offset: i64,
    outcome: CText,
    reason: CText,
}

/// What committing a translation did: one entry per group and partition, ordered by group,
/// then topic and partition. Made by `mm_commit_failback_offsets` or
/// `mm_commit_translated_offsets`, freed by `mm_commit_report_destroy`. Opaque, immutable; any
/// number of threads may read it at once.
#[allow(non_camel_case_types)]
pub struct mm_commit_report_t {
    rows: Vec<Commit>,
}

impl mm_commit_report_t {
    fn new(report: &CommitReport) -> Self {
        let rows = report
            .partitions
            .iter()
            .map(|p| {
                let (outcome, reason) = match &p.outcome {
                    CommitOutcome::Written(why) => ("written", why.as_str().to_string()),
                    CommitOutcome::Left(why) => ("left", why.as_str().to_string()),
                    CommitOutcome::Failed(error) => ("failed", error.clone()),
                };
                Commit {
                    group: CText::new(&p.group),
                    topic: CText::new(&p.topic_partition.topic),
                    partition: p.topic_partition.partition,
                    offset: p.offset,
                    outcome: CText::new(outcome),
                    reason: CText::new(&reason),
                }
            })
            .collect();
        mm_commit_report_t { rows }
    }
}

/// Commits the translated entries of `failback` into the groups on the forward flow's source
/// (A), by the group offset sync's rules: only into a group absent there or without members,
/// never moving a partition backwards, nothing into a group whose state cannot be read. Writes
/// what happened per partition to `*report_out` (free it with `mm_commit_report_destroy`); a
/// partition the broker refused is an entry with outcome `failed`, not a failed call.
///
/// **Blocks** up to `timeout_ms` (`MM_TIMEOUT_INFINITE` = no limit) for the whole call
/// (`MM_RESULT_TIMED_OUT`). `MM_RESULT_KAFKA` when the groups cannot be described;
/// `MM_RESULT_INVALID_CONFIG`, `MM_RESULT_INVALID_ARGUMENT` and `MM_RESULT_NULL_PARAMETER` as
/// for `mm_translate_offsets_back`. On failure `*report_out` is untouched. Any thread.
///
/// # Safety
/// `flow_conf` is NULL or a live conf; `failback` is NULL or a live list; `report_out` is NULL
/// or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_commit_failback_offsets(
    flow_conf: *const mm_conf_t,
    failback: *const mm_failback_offsets_t,
    timeout_ms: i32,
    report_out: *mut *mut mm_commit_report_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, list, report_out) = unsafe {
            (
                borrow(flow_conf, "flow_conf")?,
                borrow(failback, "failback")?,
                out(report_out, "report_out")?,
            )
        };
        let timeout = timeout_of(timeout_ms)?;
        let flow = flow_of(conf)?;
        let report = commit_failback_offsets(&flow, &list.translated, timeout)?;
        report_out.write(into_handle(mm_commit_report_t::new(&report)));
        Ok(())
    })
}

/// Commits the entries of `translated` (a failover's, from `mm_translate_offsets` or built by
/// hand) into the groups on the cluster `target_conf` reaches (read as by
/// `mm_translate_offsets`), by the rules of `mm_commit_failback_offsets`. Results as there.
///
/// # Safety
/// `target_conf` is NULL or a live conf; `translated` is NULL or a live list; `report_out` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_commit_translated_offsets(
    target_conf: *const mm_conf_t,
    translated: *const mm_translated_offsets_t,
    timeout_ms: i32,
    report_out: *mut *mut mm_commit_report_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, list, report_out) = unsafe {
            (
                borrow(target_conf, "target_conf")?,
                borrow(translated, "translated")?,
                out(report_out, "report_out")?,
            )
        };
        let timeout = timeout_of(timeout_ms)?;
        let (_, settings) = split_target_conf(conf)?;
        let report = commit_translated_offsets(&settings, &list.to_translated(), timeout)?;
        report_out.write(into_handle(mm_commit_report_t::new(&report)));
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_commit_report_len(
    report: *const mm_commit_report_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(report, "report")?.rows.len())
        })
    })
}

/// One entry of a commit report, filled by `mm_commit_report_row`. Set `struct_size` to
/// `sizeof(mm_commit_row)` first; fields are only ever added at the end. Text is UTF-8,
/// NUL-terminated, owned by the report (valid until it is destroyed), with its length in bytes
/// beside it.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_commit_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group.
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The topic committed on.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The partition.
    pub partition: i64,
    /// The translated offset.
    pub offset: i64,
    /// `written`, `left` (on purpose) or `failed` (the broker refused it).
    pub outcome: *const c_char,
    /// Length of `outcome` in bytes.
    pub outcome_len: u64,
    /// Why: for `written` `group_absent_at_target`, `partition_new_at_target`,
    /// `target_offset_reset` or `target_behind`; for `left` `group_active`,
    /// `group_state_unknown` or `target_at_or_ahead`; for `failed` the broker's error.
    pub reason: *const c_char,
    /// Length of `reason` in bytes.
    pub reason_len: u64,
}

growable!(unsafe mm_commit_row, 11);

impl Commit {
    fn row(&self) -> mm_commit_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        let (outcome, outcome_len) = row_text(Some(&self.outcome));
        let (reason, reason_len) = row_text(Some(&self.reason));
        mm_commit_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            offset: self.offset,
            outcome,
            outcome_len,
            reason,
            reason_len,
        }
    }
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the
/// report's length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is
/// NULL (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_commit_report_row(
    report: *const mm_commit_report_t,
    index: usize,
    row_out: *mut mm_commit_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            report,
            "report",
            index,
            |r: &mm_commit_report_t| r.rows.as_slice(),
            Commit::row,
            row_out,
        )
    })
}

/// Frees a commit report and its text. NULL is ignored. No other call may use it during or
/// after.
///
/// # Safety
/// `report` is NULL or a report from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_commit_report_destroy(report: *mut mm_commit_report_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(report) };
}
