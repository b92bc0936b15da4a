//! What the runtime can tell about itself: process-wide counters (`mm_diagnostics`), and per
//! task the status of every group and partition and what the last group offset sync did.

use std::ffi::c_char;

use super::boundary::{
    borrow, destroy, give, into_handle, item, lend, mm_result, out, run, sized_out, CText, Failure,
    Growable,
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

// SAFETY: repr(C), starts with the u64 size, every field 64 bits wide (checked below).
unsafe impl Growable for mm_diagnostics {}
const _: () = assert!(std::mem::size_of::<mm_diagnostics>() == 4 * 8);

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
            .task
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

/// # Safety
/// `list` is NULL or a live list.
unsafe fn status<'a>(
    list: *const mm_partition_statuses_t,
    index: usize,
) -> Result<&'a Status, Failure> {
    // SAFETY: the caller's contract.
    unsafe {
        item(list, "statuses", index, |l: &'a mm_partition_statuses_t| {
            l.items.as_slice()
        })
    }
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

/// Consumer group of entry `index`: writes to `*text_out` NUL-terminated text owned by the list
/// (valid until it is destroyed) and, when `len_out` is not NULL, its length in bytes to
/// `*len_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's length. Non-blocking, any thread.
///
/// # Safety
/// `statuses` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_group(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe { lend(text_out, len_out, || Ok(&status(statuses, index)?.group)) })
}

/// Upstream (source) topic of entry `index`, as `mm_partition_statuses_group` returns text.
///
/// # Safety
/// `statuses` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_topic(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe { lend(text_out, len_out, || Ok(&status(statuses, index)?.topic)) })
}

/// Writes the upstream partition of entry `index` to `*partition_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's length. Non-blocking, any thread.
///
/// # Safety
/// `statuses` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_partition(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    partition_out: *mut i32,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(partition_out, "partition_out", || {
            Ok(status(statuses, index)?.partition)
        })
    })
}

/// Why the last cycle wrote no checkpoint for entry `index` (e.g. `"no_offset_sync"`), as
/// `mm_partition_statuses_group` returns text. `MM_RESULT_NOT_FOUND` (nothing written) when it
/// wrote one: then `mm_partition_statuses_last_checkpoint` has it.
///
/// # Safety
/// `statuses` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_reason(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(text_out, len_out, || {
            status(statuses, index)?.reason.as_ref().ok_or_else(|| {
                Failure::not_found(format!(
                    "entry {index} has no reason: a checkpoint was written"
                ))
            })
        })
    })
}

/// Writes the last checkpoint written for entry `index`: its upstream offset, downstream offset
/// and metadata (text owned by the list; its length goes to `metadata_len_out`). Each output
/// pointer may be NULL when not wanted. `MM_RESULT_NOT_FOUND` (nothing written) when no
/// checkpoint was written for the entry yet; `MM_RESULT_INVALID_ARGUMENT` when `index` is out
/// of range; `MM_RESULT_NULL_PARAMETER` when `statuses` is NULL. Non-blocking, any thread.
///
/// # Safety
/// `statuses` is NULL or a live list; each output is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_partition_statuses_last_checkpoint(
    statuses: *const mm_partition_statuses_t,
    index: usize,
    upstream_offset_out: *mut i64,
    downstream_offset_out: *mut i64,
    metadata_out: *mut *const c_char,
    metadata_len_out: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let s = unsafe { status(statuses, index) }?;
        let Some((up, down, metadata)) = &s.checkpoint else {
            return Err(Failure::not_found(format!(
                "no checkpoint was written for entry {index} yet"
            )));
        };
        // SAFETY: this function's contract: each output is NULL or valid for writing.
        unsafe {
            if let Some(o) = upstream_offset_out.as_mut() {
                *o = *up;
            }
            if let Some(o) = downstream_offset_out.as_mut() {
                *o = *down;
            }
            if let Some(o) = metadata_out.as_mut() {
                *o = metadata.as_ptr();
            }
            if let Some(len) = metadata_len_out.as_mut() {
                *len = metadata.len();
            }
        }
        Ok(())
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
            .task
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

/// # Safety
/// `list` is NULL or a live list.
unsafe fn sync_result<'a>(
    list: *const mm_group_sync_results_t,
    index: usize,
) -> Result<&'a SyncResult, Failure> {
    // SAFETY: the caller's contract.
    unsafe {
        item(list, "results", index, |l: &'a mm_group_sync_results_t| {
            l.items.as_slice()
        })
    }
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

/// Target consumer group of entry `index`: writes to `*text_out` NUL-terminated text owned by
/// the list (valid until it is destroyed) and, when `len_out` is not NULL, its length in bytes to
/// `*len_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's length. Non-blocking, any thread.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_group(
    results: *const mm_group_sync_results_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(
            text_out,
            len_out,
            || Ok(&sync_result(results, index)?.group),
        )
    })
}

/// Target topic of entry `index`, as `mm_group_sync_results_group` returns text.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_topic(
    results: *const mm_group_sync_results_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(
            text_out,
            len_out,
            || Ok(&sync_result(results, index)?.topic),
        )
    })
}

/// Writes the target partition of entry `index` to `*partition_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's length. Non-blocking, any thread.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_partition(
    results: *const mm_group_sync_results_t,
    index: usize,
    partition_out: *mut i32,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(partition_out, "partition_out", || {
            Ok(sync_result(results, index)?.partition)
        })
    })
}

/// Writes the offset committed into the target group for entry `index` to `*offset_out`.
/// `MM_RESULT_NOT_FOUND` (nothing written) when none was written (the reason says why);
/// `MM_RESULT_INVALID_ARGUMENT` when `index` is out of range.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_written_offset(
    results: *const mm_group_sync_results_t,
    index: usize,
    offset_out: *mut i64,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(offset_out, "offset_out", || {
            sync_result(results, index)?.written_offset.ok_or_else(|| {
                Failure::not_found(format!("no offset was written for entry {index}"))
            })
        })
    })
}

/// Why entry `index` was written or not (e.g. `"target_behind"`, `"group_active"`), as
/// `mm_group_sync_results_group` returns text.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_reason(
    results: *const mm_group_sync_results_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(text_out, len_out, || {
            Ok(&sync_result(results, index)?.reason)
        })
    })
}

/// The broker's error when writing entry `index` failed, as `mm_group_sync_results_group`
/// returns text. `MM_RESULT_NOT_FOUND` (nothing written) when the write did not fail.
///
/// # Safety
/// `results` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_group_sync_results_error(
    results: *const mm_group_sync_results_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(text_out, len_out, || {
            sync_result(results, index)?
                .error
                .as_ref()
                .ok_or_else(|| Failure::not_found(format!("entry {index} did not fail")))
        })
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
