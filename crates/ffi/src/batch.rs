//! `mm_batch_t`: the checkpoints one poll wrote (or that were read back from a checkpoints
//! topic), read one row at a time (`mm_batch_row`). The batch owns all its text.

use std::ffi::c_char;

use super::boundary::{borrow, copy_row, destroy, give, growable, mm_result, row_text, run, CText};
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

/// One checkpoint of a batch, filled by `mm_batch_row`. Set `struct_size` to
/// `sizeof(mm_checkpoint_row)` first; fields are only ever added at the end. Text is UTF-8,
/// NUL-terminated, owned by the batch (valid until `mm_batch_destroy`), with its length in bytes
/// beside it (it tells text with an embedded NUL from a shorter one).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_checkpoint_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group (same name on both clusters).
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The target (renamed) topic.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The partition, the same number on both clusters.
    pub partition: i64,
    /// The group's committed offset on the source cluster.
    pub upstream_offset: i64,
    /// The translated offset on the target cluster.
    pub downstream_offset: i64,
    /// The source commit's metadata (often empty).
    pub metadata: *const c_char,
    /// Length of `metadata` in bytes.
    pub metadata_len: u64,
}

growable!(unsafe mm_checkpoint_row, 10);

impl Item {
    fn row(&self) -> mm_checkpoint_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        let (metadata, metadata_len) = row_text(Some(&self.metadata));
        mm_checkpoint_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            upstream_offset: self.upstream_offset,
            downstream_offset: self.downstream_offset,
            metadata,
            metadata_len,
        }
    }
}

/// Fills `*row_out` with checkpoint `index`, at most `row_out->struct_size` bytes of it (on
/// return it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the
/// batch's length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL
/// (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `batch` is NULL or a live batch; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_batch_row(
    batch: *const mm_batch_t,
    index: usize,
    row_out: *mut mm_checkpoint_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            batch,
            "batch",
            index,
            |b: &mm_batch_t| b.items.as_slice(),
            Item::row,
            row_out,
        )
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
