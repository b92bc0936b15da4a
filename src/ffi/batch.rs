//! `mm_batch_t`: the checkpoints one poll wrote (or that were read back from a checkpoints
//! topic), with per-checkpoint accessors. The batch owns all its text.

use std::ffi::c_char;

use super::boundary::{borrow, destroy, give, item, lend, mm_result, run, CText};
use mm2_checkpoint::checkpoint_task::PollStatus;
use mm2_checkpoint::Checkpoint;

/// Why `mm_task_poll` returned, read with `mm_batch_status`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mm_poll_status {
    /// Not a poll result: a batch from `mm_embedded_read_checkpoints`, or a NULL batch.
    None = 0,
    /// A checkpoint cycle ran; the batch holds the checkpoints it wrote, often none (a quiet
    /// cycle: no group moved).
    CycleDone = 1,
    /// The stores are still loading; nothing was written.
    NotReady = 2,
    /// The timeout passed before the next cycle was due.
    NotDue = 3,
    /// The task is stopped, or was stopped during the poll: stop polling.
    Stopped = 4,
    /// The task hit a fatal error (`mm_task_fatal_error` says which): stop polling.
    Failed = 5,
}

impl From<&PollStatus> for mm_poll_status {
    fn from(s: &PollStatus) -> Self {
        match s {
            PollStatus::CycleDone => mm_poll_status::CycleDone,
            PollStatus::NotReady => mm_poll_status::NotReady,
            PollStatus::NotDue => mm_poll_status::NotDue,
            PollStatus::Stopped => mm_poll_status::Stopped,
            PollStatus::Failed => mm_poll_status::Failed,
        }
    }
}

/// One checkpoint with its text ready for C.
struct Item {
    group: CText,
    topic: CText,
    partition: i32,
    upstream_offset: i64,
    downstream_offset: i64,
    metadata: CText,
}

/// A list of checkpoints and, for a poll result, the poll's status. Opaque; freed with
/// `mm_batch_destroy`. Immutable: any number of threads may read one batch at once.
#[allow(non_camel_case_types)]
pub struct mm_batch_t {
    status: mm_poll_status,
    items: Vec<Item>,
}

impl mm_batch_t {
    pub(crate) fn new(status: mm_poll_status, checkpoints: &[Checkpoint]) -> Self {
        let items = checkpoints
            .iter()
            .map(|c| Item {
                group: CText::new(&c.consumer_group_id),
                topic: CText::new(&c.topic_partition.topic),
                partition: c.topic_partition.partition,
                upstream_offset: c.upstream_offset,
                downstream_offset: c.downstream_offset,
                metadata: CText::new(&c.metadata),
            })
            .collect();
        mm_batch_t { status, items }
    }
}

/// # Safety
/// `batch` is NULL or a live batch.
unsafe fn checkpoint<'a>(
    batch: *const mm_batch_t,
    index: usize,
) -> Result<&'a Item, super::boundary::Failure> {
    // SAFETY: the caller's contract.
    unsafe {
        item(batch, "batch", index, |b: &'a mm_batch_t| {
            b.items.as_slice()
        })
    }
}

/// Writes the number of checkpoints in the batch to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `len_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_len(batch: *const mm_batch_t, len_out: *mut usize) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(batch, "batch")?.items.len())
        })
    })
}

/// Writes why the poll that made this batch returned to `*status_out` (`MM_POLL_STATUS_NONE`
/// for a batch that is not a poll result). Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `status_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_status(
    batch: *const mm_batch_t,
    status_out: *mut mm_poll_status,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(status_out, "status_out", || {
            Ok(borrow(batch, "batch")?.status)
        })
    })
}

/// Consumer group of checkpoint `index`: writes to `*text_out` NUL-terminated text owned by the
/// batch (valid until `mm_batch_destroy`) and, when `len_out` is not NULL, its length in bytes
/// to `*len_out` (it tells text with an embedded NUL from a shorter one).
/// `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the batch's length. Non-blocking, any
/// thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `text_out` is NULL or valid for writing a pointer;
/// `len_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_group(
    batch: *const mm_batch_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe { lend(text_out, len_out, || Ok(&checkpoint(batch, index)?.group)) })
}

/// Target (renamed) topic of checkpoint `index`, as `mm_batch_group` returns text.
///
/// # Safety
/// As `mm_batch_group`.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_topic(
    batch: *const mm_batch_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe { lend(text_out, len_out, || Ok(&checkpoint(batch, index)?.topic)) })
}

/// The source commit's metadata of checkpoint `index` (often empty), as `mm_batch_group`
/// returns text.
///
/// # Safety
/// As `mm_batch_group`.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_metadata(
    batch: *const mm_batch_t,
    index: usize,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(
            text_out,
            len_out,
            || Ok(&checkpoint(batch, index)?.metadata),
        )
    })
}

/// Writes the target partition of checkpoint `index` to `*partition_out`.
/// `MM_RESULT_INVALID_ARGUMENT` when `index` is out of range. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `partition_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_partition(
    batch: *const mm_batch_t,
    index: usize,
    partition_out: *mut i32,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(partition_out, "partition_out", || {
            Ok(checkpoint(batch, index)?.partition)
        })
    })
}

/// Writes the group's committed offset on the source cluster, for checkpoint `index`, to
/// `*offset_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is out of range. Non-blocking, any
/// thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `offset_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_upstream_offset(
    batch: *const mm_batch_t,
    index: usize,
    offset_out: *mut i64,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(offset_out, "offset_out", || {
            Ok(checkpoint(batch, index)?.upstream_offset)
        })
    })
}

/// Writes the translated offset on the target cluster, for checkpoint `index`, to
/// `*offset_out`. `MM_RESULT_INVALID_ARGUMENT` when `index` is out of range. Non-blocking, any
/// thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `offset_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_downstream_offset(
    batch: *const mm_batch_t,
    index: usize,
    offset_out: *mut i64,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(offset_out, "offset_out", || {
            Ok(checkpoint(batch, index)?.downstream_offset)
        })
    })
}

/// Frees a batch and all its text. NULL is ignored. No other call may use the batch during or
/// after it.
///
/// # Safety
/// `batch` is NULL or a batch from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_destroy(batch: *mut mm_batch_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(batch) };
}
