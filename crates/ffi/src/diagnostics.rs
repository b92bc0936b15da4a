//! What the runtime can tell about itself: process-wide counters (`mm_diagnostics`), and per
//! task the status of every group and partition and what the last group offset sync did.

use std::ffi::c_char;

use super::boundary::{
    borrow, copy_row, destroy, give, growable, into_handle, mm_result, out, row_text, run,
    sized_out, CText,
};
use super::task::mm_task_t;
use mm2_checkpoint::diagnostics;

/// Process-wide counters, filled by `mm_diagnostics_get`. Set `struct_size` to
/// `sizeof(mm_diagnostics)` first; fields are only ever added at the end.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_diagnostics {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// Kafka clients made by the library and not yet destroyed (0 when every task is stopped).
    pub live_clients: u64,
    /// Library threads started and not yet joined (0 when every task is stopped).
    pub live_threads: u64,
    /// Client calls that overlapped another call on the same client since the process started.
    /// Always 0 unless the one-owner-per-client rule was broken (the KAFKA-21435 race).
    pub concurrent_client_access: u64,
}

growable!(unsafe mm_diagnostics, 4);

/// Fills `*diagnostics_out` with the process-wide counters, at most
/// `diagnostics_out->struct_size` bytes of them (on return it holds the bytes filled).
/// `MM_RESULT_INVALID_ARGUMENT` when `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when
/// `diagnostics_out` is NULL. Non-blocking, any thread.
///
/// # Safety
/// `diagnostics_out` is NULL or valid for reading and writing `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_diagnostics_get(diagnostics_out: *mut mm_diagnostics) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let d = unsafe { sized_out(diagnostics_out, "diagnostics_out") }?;
        d.write(mm_diagnostics {
            struct_size: 0,
            live_clients: diagnostics::live_clients() as u64,
            live_threads: diagnostics::live_threads() as u64,
            concurrent_client_access: diagnostics::concurrent_client_access(),
        });
        Ok(())
    })
}

struct Status {
    group: CText,
    topic: CText,
    partition: i32,
    checkpoint: Option<(i64, i64, CText)>,
    reason: Option<CText>,
}

/// Per consumer group and upstream partition: the last checkpoint written, or why none was.
/// A snapshot; opaque; freed with `mm_partition_statuses_destroy`. Immutable: any number of
/// threads may read it at once.
#[allow(non_camel_case_types)]
pub struct mm_partition_statuses_t {
    items: Vec<Status>,
}

/// Takes a snapshot of the task's per-partition statuses into `*statuses_out` (free it with
/// `mm_partition_statuses_destroy`). `MM_RESULT_NULL_PARAMETER` when a pointer is NULL (nothing
/// written). Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `statuses_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_task_partition_statuses(
    task: *const mm_task_t,
    statuses_out: *mut *mut mm_partition_statuses_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, statuses_out) =
            unsafe { (borrow(task, "task")?, out(statuses_out, "statuses_out")?) };
        let items = task
            .task()
            .partition_statuses()
            .into_iter()
            .map(|s| Status {
                group: CText::new(&s.group),
                topic: CText::new(&s.topic_partition.topic),
                partition: s.topic_partition.partition,
                checkpoint: s.last_checkpoint.map(|c| {
                    (
                        c.upstream_offset,
                        c.downstream_offset,
                        CText::new(&c.metadata),
                    )
                }),
                reason: s.reason.as_deref().map(CText::new),
            })
            .collect();
        statuses_out.write(into_handle(mm_partition_statuses_t { items }));
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `statuses` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_len(
    statuses: *const mm_partition_statuses_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(statuses, "statuses")?.items.len())
        })
    })
}

/// One entry of a partition-status list, filled by `mm_partition_statuses_row`. Set
/// `struct_size` to `sizeof(mm_partition_status_row)` first; fields are only ever added at the
/// end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is destroyed), with its
/// length in bytes beside it; NULL (length 0) when the entry has no such value.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_partition_status_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group.
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The upstream (source) topic.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The upstream partition.
    pub partition: i64,
    /// Why the last cycle wrote no checkpoint (e.g. `"no_offset_sync"`); NULL when it wrote one.
    pub reason: *const c_char,
    /// Length of `reason` in bytes.
    pub reason_len: u64,
    /// Upstream offset of the last checkpoint written; -1 when none was written yet.
    pub last_upstream_offset: i64,
    /// Downstream offset of the last checkpoint written; -1 when none was written yet.
    pub last_downstream_offset: i64,
    /// Metadata of the last checkpoint written; NULL when none was written yet.
    pub last_metadata: *const c_char,
    /// Length of `last_metadata` in bytes.
    pub last_metadata_len: u64,
}

growable!(unsafe mm_partition_status_row, 12);

impl Status {
    fn row(&self) -> mm_partition_status_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        let (reason, reason_len) = row_text(self.reason.as_ref());
        let (last_metadata, last_metadata_len) =
            row_text(self.checkpoint.as_ref().map(|(_, _, m)| m));
        mm_partition_status_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            reason,
            reason_len,
            last_upstream_offset: self.checkpoint.as_ref().map_or(-1, |c| c.0),
            last_downstream_offset: self.checkpoint.as_ref().map_or(-1, |c| c.1),
            last_metadata,
            last_metadata_len,
        }
    }
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's
/// length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL
/// (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `statuses` is NULL or a live list; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_row(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    row_out: *mut mm_partition_status_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            statuses,
            "statuses",
            index,
            |l: &mm_partition_statuses_t| l.items.as_slice(),
            Status::row,
            row_out,
        )
    })
}

/// Frees a partition-status list. NULL is ignored. No other call may use it during or after.
///
/// # Safety
/// `statuses` is NULL or a list from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_destroy(statuses: *mut mm_partition_statuses_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(statuses) };
}

struct SyncResult {
    group: CText,
    topic: CText,
    partition: i32,
    written_offset: Option<i64>,
    reason: CText,
    error: Option<CText>,
}

/// Per target group and partition: what the last group offset sync
/// (`sync.group.offsets.enabled`) did. A snapshot; opaque; freed with
/// `mm_group_sync_results_destroy`. Immutable: any number of threads may read it at once.
#[allow(non_camel_case_types)]
pub struct mm_group_sync_results_t {
    items: Vec<SyncResult>,
}

/// Takes a snapshot of the task's group offset sync results into `*results_out` (free it with
/// `mm_group_sync_results_destroy`). `MM_RESULT_NULL_PARAMETER` when a pointer is NULL (nothing
/// written). Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `results_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_task_group_offset_sync_results(
    task: *const mm_task_t,
    results_out: *mut *mut mm_group_sync_results_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, results_out) =
            unsafe { (borrow(task, "task")?, out(results_out, "results_out")?) };
        let items = task
            .task()
            .group_offset_sync_results()
            .into_iter()
            .map(|r| SyncResult {
                group: CText::new(&r.group),
                topic: CText::new(&r.topic_partition.topic),
                partition: r.topic_partition.partition,
                written_offset: r.written_offset,
                reason: CText::new(&r.reason),
                error: r.error.as_deref().map(CText::new),
            })
            .collect();
        results_out.write(into_handle(mm_group_sync_results_t { items }));
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_len(
    results: *const mm_group_sync_results_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(results, "results")?.items.len())
        })
    })
}

/// One entry of a group-sync result list, filled by `mm_group_sync_results_row`. Set
/// `struct_size` to `sizeof(mm_group_sync_result_row)` first; fields are only ever added at the
/// end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is destroyed), with its
/// length in bytes beside it; NULL (length 0) when the entry has no such value.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_group_sync_result_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The target consumer group.
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The target topic.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The target partition.
    pub partition: i64,
    /// The offset committed into the target group; -1 when none was written (`reason` says why).
    pub written_offset: i64,
    /// Why the entry was written or not (e.g. `"target_behind"`, `"group_active"`).
    pub reason: *const c_char,
    /// Length of `reason` in bytes.
    pub reason_len: u64,
    /// The broker's error when the write failed; NULL when it did not fail.
    pub error: *const c_char,
    /// Length of `error` in bytes.
    pub error_len: u64,
}

growable!(unsafe mm_group_sync_result_row, 11);

impl SyncResult {
    fn row(&self) -> mm_group_sync_result_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        let (reason, reason_len) = row_text(Some(&self.reason));
        let (error, error_len) = row_text(self.error.as_ref());
        mm_group_sync_result_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            written_offset: self.written_offset.unwrap_or(-1),
            reason,
            reason_len,
            error,
            error_len,
        }
    }
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's
/// length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL
/// (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `results` is NULL or a live list; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_row(
    results: *const mm_group_sync_results_t,
    index: usize,
    row_out: *mut mm_group_sync_result_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            results,
            "results",
            index,
            |l: &mm_group_sync_results_t| l.items.as_slice(),
            SyncResult::row,
            row_out,
        )
    })
}

/// Frees a group-sync result list. NULL is ignored. No other call may use it during or after.
///
/// # Safety
/// `results` is NULL or a list from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_destroy(results: *mut mm_group_sync_results_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(results) };
}
