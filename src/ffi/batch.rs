//! `mm_batch_t`: the checkpoints one poll wrote (or that were read back from a checkpoints
//! topic), with per-checkpoint accessors. The batch owns all its text.

use std::ffi::c_char;

use super::boundary::{destroy, item, value, CText};
use crate::runtime::checkpoint_task::PollStatus;
use crate::Checkpoint;

/// Why `mm_task_poll` returned, read with `mm_batch_status`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mm_poll_status {
    /// Not a poll result: a batch from `mm_embedded_read_checkpoints`, or a NULL batch.
    None = 0,
    /// A checkpoint cycle ran; the batch holds the checkpoints it wrote (possibly none).
    Emitted = 1,
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
            PollStatus::Emitted => mm_poll_status::Emitted,
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

/// Number of checkpoints in the batch; 0 for NULL. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_len(batch: *const mm_batch_t) -> usize {
    value(0, || {
        // SAFETY: this function's contract.
        Ok(unsafe { super::boundary::borrow(batch, "batch") }?
            .items
            .len())
    })
}

/// Why the poll that made this batch returned; `MM_POLL_STATUS_NONE` for a batch that is not a
/// poll result, or NULL. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_status(batch: *const mm_batch_t) -> mm_poll_status {
    value(mm_poll_status::None, || {
        // SAFETY: this function's contract.
        Ok(unsafe { super::boundary::borrow(batch, "batch") }?.status)
    })
}

/// Consumer group of checkpoint `index`: NUL-terminated text owned by the batch (valid until
/// `mm_batch_destroy`). When `len_out` is not NULL, the text's length in bytes is written there
/// (it tells text with an embedded NUL from a shorter one). NULL when `batch` is NULL or `index`
/// is not below `mm_batch_len`. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `len_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_group(
    batch: *const mm_batch_t,
    index: usize,
    len_out: *mut usize,
) -> *const c_char {
    value(std::ptr::null(), || {
        // SAFETY: this function's contract.
        unsafe { Ok(checkpoint(batch, index)?.group.lend(len_out)) }
    })
}

/// Target (renamed) topic of checkpoint `index`, as `mm_batch_group` returns text.
///
/// # Safety
/// As `mm_batch_group`.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_topic(
    batch: *const mm_batch_t,
    index: usize,
    len_out: *mut usize,
) -> *const c_char {
    value(std::ptr::null(), || {
        // SAFETY: this function's contract.
        unsafe { Ok(checkpoint(batch, index)?.topic.lend(len_out)) }
    })
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
    len_out: *mut usize,
) -> *const c_char {
    value(std::ptr::null(), || {
        // SAFETY: this function's contract.
        unsafe { Ok(checkpoint(batch, index)?.metadata.lend(len_out)) }
    })
}

/// Target partition of checkpoint `index`; -1 when `batch` is NULL or `index` is out of range.
/// Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_partition(batch: *const mm_batch_t, index: usize) -> i32 {
    // SAFETY: this function's contract.
    value(-1, || Ok(unsafe { checkpoint(batch, index) }?.partition))
}

/// The group's committed offset on the source cluster, for checkpoint `index`; -1 when `batch`
/// is NULL or `index` is out of range. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_upstream_offset(batch: *const mm_batch_t, index: usize) -> i64 {
    // SAFETY: this function's contract.
    value(-1, || {
        Ok(unsafe { checkpoint(batch, index) }?.upstream_offset)
    })
}

/// The translated offset on the target cluster, for checkpoint `index`; -1 when `batch` is NULL
/// or `index` is out of range. Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_downstream_offset(batch: *const mm_batch_t, index: usize) -> i64 {
    // SAFETY: this function's contract.
    value(-1, || {
        Ok(unsafe { checkpoint(batch, index) }?.downstream_offset)
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
