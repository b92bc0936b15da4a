//! The statistics of a task for C, as librdkafka's `statistics.interval.ms` + `stats_cb`: one
//! JSON document (docs/OPERATIONS.md, `"schema_version": 1`) every `statistics.interval.ms`,
//! delivered to a callback on a library thread, and the same document on demand.

use std::ffi::{c_char, c_void, CString};

use super::boundary::{borrow_mut, copy_out, mm_result, run};
use super::task::{mm_task_t, task_ref};
use mm2_checkpoint::metrics::{MetricsListener, MetricsSnapshot};

/// A statistics callback: `json` is one metrics document (NUL-terminated, `json_len` bytes
/// without the NUL), valid only during the call; `task` is the task it describes; `opaque` is
/// the pointer given to `mm_task_set_stats_cb`.
#[allow(non_camel_case_types)]
pub type mm_stats_cb = Option<
    unsafe extern "C" fn(
        opaque: *mut c_void,
        task: *const mm_task_t,
        json: *const c_char,
        json_len: usize,
    ),
>;

/// The callback with its opaque pointer and its task, moved to the statistics thread.
struct Sink {
    callback: unsafe extern "C" fn(*mut c_void, *const mm_task_t, *const c_char, usize),
    opaque: *mut c_void,
    task: *const mm_task_t,
}

// SAFETY: `mm_task_set_stats_cb` requires the callback and its opaque pointer to be usable from
// the library's statistics thread; `task` outlives that thread (stop, and so destroy, joins it)
// and is only passed back.
unsafe impl Send for Sink {}
// SAFETY: as above; the sink is only ever called from one thread.
unsafe impl Sync for Sink {}

impl Sink {
    fn deliver(&self, snapshot: &MetricsSnapshot) {
        // The document never holds a NUL: JSON escapes control characters in strings.
        let Ok(json) = CString::new(snapshot.to_json()) else {
            return;
        };
        // SAFETY: a callback the user set with the contract of `mm_task_set_stats_cb`; `json`
        // lives until after the call.
        unsafe { (self.callback)(self.opaque, self.task, json.as_ptr(), json.as_bytes().len()) };
    }
}

/// Sets (`cb` not NULL) or removes (`cb` NULL) the task's statistics callback, as librdkafka's
/// `rd_kafka_conf_set_stats_cb`: once the task is started, every `statistics.interval.ms`
/// (a configuration key; 0, the default, means never) the callback receives one JSON document
/// of the task's metrics (docs/OPERATIONS.md; the same text `mm_task_metrics_json` returns).
///
/// **Which thread calls it**: a statistics thread of the task's own (named `mm2-checkpoint
/// <source>-><target> stats`), never an application thread, and never two calls at once for one
/// task; the first call comes one interval after `mm_task_start`, the last before
/// `mm_task_stop` returns. No lock of the library is held during the call: the callback may call
/// the read-only functions (`mm_task_metrics_json`, `mm_task_get_stats`, …) on `task`.
/// `mm_task_stop` and `mm_task_destroy` from inside it return `MM_RESULT_IN_STATS_CALLBACK` and
/// do nothing (they wait for this thread). The callback must not block for long: the next
/// document waits for it. The JSON text is valid only during the call.
///
/// Only before `mm_task_start`: `MM_RESULT_ALREADY_STARTED` on a running task,
/// `MM_RESULT_ALREADY_STOPPED` on a stopped one (the callback is not changed);
/// `MM_RESULT_NULL_PARAMETER` when `task` is NULL. Non-blocking. Any thread, but not
/// concurrently with `mm_task_start` or `mm_task_destroy` on the same task.
///
/// # Safety
/// `task` is NULL or a live task. `cb` is NULL or a function that may be called from the
/// library's statistics thread with `opaque` until `mm_task_stop` or `mm_task_destroy` returns.
#[no_mangle]
pub unsafe extern "C" fn mm_task_set_stats_cb(
    task: *mut mm_task_t,
    cb: mm_stats_cb,
    opaque: *mut c_void,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let inner = unsafe { task_ref(task) }?;
        let listener = cb.map(|callback| {
            let sink = Sink {
                callback,
                opaque,
                task,
            };
            std::sync::Arc::new(move |s: &MetricsSnapshot| sink.deliver(s)) as MetricsListener
        });
        inner.set_metrics_listener(listener)?;
        Ok(())
    })
}

/// Reads the task's metrics now, as the JSON document the statistics callback receives
/// (docs/OPERATIONS.md, `"schema_version": 1`), into `dest`, NUL-terminated, as `mm_conf_get`
/// reads a value: `*dest_size` is the capacity of `dest` and receives the size the document
/// needs (length + 1); `dest` NULL asks only for the size; `MM_RESULT_BUFFER_TOO_SMALL` leaves
/// `dest` untouched. The document can grow between two calls (a new group or partition): on
/// `MM_RESULT_BUFFER_TOO_SMALL`, retry with the size returned. Works in every state of the task,
/// also before start and after stop. `MM_RESULT_NULL_PARAMETER` when `task` or `dest_size` is
/// NULL.
///
/// Non-blocking (no Kafka call). Any thread, including the statistics callback, concurrently
/// with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `dest_size` is NULL or valid for reading and writing; `dest`
/// is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_metrics_json(
    task: *const mm_task_t,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, size) = unsafe { (task_ref(task)?, borrow_mut(dest_size, "dest_size")?) };
        let json = task.metrics().to_json();
        // SAFETY: this function's contract.
        unsafe { copy_out(&json, "the metrics document", dest, size) }
    })
}
