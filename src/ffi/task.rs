//! `mm_task_t`: a checkpoint task (MM2's `MirrorCheckpointTask`) for C: new, start, poll, stop,
//! destroy, its fatal error and its counters.

use std::ffi::c_char;
use std::time::Duration;

use super::batch::{mm_batch_t, mm_poll_status};
use super::boundary::{
    borrow, destroy, free_handle, into_handle, mm_result, out, run, run_errstr, value_errstr,
    write_text, Failure,
};
use super::conf::mm_conf_t;
use crate::runtime::checkpoint_task::{CheckpointTask, StopOutcome};

/// `mm_task_poll` timeout meaning "until the next cycle, a stop or a fatal error" (a macro of
/// the same name in the header; tests/ffi_header.rs pins the two together).
pub const MM_TIMEOUT_INFINITE: i32 = -1;

/// What "infinite" waits: long enough never to matter, short enough that a deadline computed
/// from it cannot overflow.
const INFINITE: Duration = Duration::from_secs(365 * 24 * 3600);

/// A checkpoint task. Opaque; made by `mm_task_new`, freed by `mm_task_destroy`.
#[allow(non_camel_case_types)]
pub struct mm_task_t {
    pub(crate) task: CheckpointTask,
}

/// Per-task counters, filled by `mm_task_get_stats`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_task_stats {
    /// Checkpoints written and confirmed by the target.
    pub checkpoints_emitted: u64,
    /// Malformed records skipped in the offset-syncs and checkpoints topics.
    pub records_skipped: u64,
    /// Offset syncs applied (initial load and tailing).
    pub syncs_loaded: u64,
    /// Checkpoints read back from the target at start.
    pub checkpoints_loaded: u64,
    /// Checkpoint cycles run.
    pub cycles: u64,
    /// Offsets committed into target groups by the group offset sync.
    pub group_offsets_written: u64,
    /// Groups this task currently checkpoints.
    pub groups: u64,
    /// Microseconds from start to both stores loaded; -1 until then.
    pub load_time_us: i64,
    /// Microseconds the last `mm_task_stop` took; -1 before the first stop.
    pub last_stop_time_us: i64,
    /// 1 once both stores finished loading, else 0.
    pub initialized: u8,
    /// 1 when the checkpoints loaded at start were read successfully (otherwise translation
    /// starts pessimistic, as in MM2), else 0.
    pub checkpoints_load_ok: u8,
}

fn micros(d: Option<Duration>) -> i64 {
    d.map_or(-1, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// A `timeout_ms` parameter as a duration: 0 or more milliseconds, or `MM_TIMEOUT_INFINITE`.
pub(crate) fn timeout_of(timeout_ms: i32) -> Result<Duration, Failure> {
    match timeout_ms {
        MM_TIMEOUT_INFINITE => Ok(INFINITE),
        ms => u64::try_from(ms).map(Duration::from_millis).map_err(|_| {
            Failure::invalid_argument(format!(
                "timeout_ms {ms} is negative (use 0 to not wait, -1 to wait without limit)"
            ))
        }),
    }
}

/// # Safety
/// `task` is NULL or a live task.
unsafe fn task_ref<'a>(task: *const mm_task_t) -> Result<&'a CheckpointTask, Failure> {
    // SAFETY: the caller's contract.
    Ok(&unsafe { borrow(task, "task") }?.task)
}

/// Makes a task from a configuration. Does no I/O and starts no thread.
///
/// The whole configuration is parsed here; warnings (unknown or ignored keys) are logged at
/// warn level through the log callback. On success the task takes `conf` (do not use or free it
/// again) and a task is returned. On failure NULL is returned, `conf` stays the caller's, and
/// `errstr` receives why: `"<key>: <reason>"` for a rejected configuration, `"`conf` is NULL"`
/// for NULL. `errstr` may be NULL; it is NUL-terminated and cut to `errstr_size - 1` bytes, and
/// untouched on success. `mm_last_error` also has the message.
///
/// Non-blocking. Any thread; `conf` must not be used by another thread meanwhile.
///
/// # Safety
/// `conf` is NULL or a live conf; `errstr` is NULL or valid for `errstr_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_new(
    conf: *mut mm_conf_t,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut mm_task_t {
    value_errstr(std::ptr::null_mut(), errstr, errstr_size, || {
        // SAFETY: this function's contract.
        let parsed = unsafe { borrow(conf, "conf") }?.parse()?;
        let (config, warnings) = parsed;
        for w in warnings {
            log::warn!("configuration `{}`: {}", w.key, w.message);
        }
        let task = CheckpointTask::new(config)?;
        // Taken only now that nothing can fail any more.
        // SAFETY: conf is live and ours from here on by this function's contract.
        unsafe { free_handle(conf) };
        Ok(into_handle(mm_task_t { task }))
    })
}

/// Starts the task: one scheduler thread begins loading the checkpoints and offset-syncs topics.
/// Returns at once (never blocks on Kafka); poll to learn when loading is done.
///
/// `MM_RESULT_ALREADY_STARTED` when running, `MM_RESULT_ALREADY_STOPPED` after a stop (a task
/// starts once), `MM_RESULT_THREAD` when the thread cannot start, `MM_RESULT_NULL_PARAMETER`.
/// Any thread. May race with `mm_task_stop`: the stop then either stops the started task or
/// returns `MM_RESULT_NOT_STARTED`, leaving the task startable.
///
/// # Safety
/// `task` is NULL or a live task.
#[no_mangle]
pub unsafe extern "C" fn mm_task_start(task: *mut mm_task_t) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        unsafe { task_ref(task) }?.start()?;
        Ok(())
    })
}

/// Waits up to `timeout_ms` for the next checkpoint cycle (the first runs as soon as the stores
/// are loaded, then one every `emit.checkpoints.interval.seconds`), runs it, and hands back the
/// checkpoints it wrote.
///
/// **Blocks** up to `timeout_ms` (0 = do not wait, `MM_TIMEOUT_INFINITE` = until a cycle, a stop
/// or a fatal error) plus the cycle's own Kafka requests, which a stop interrupts. Returns
/// promptly when another thread calls `mm_task_stop`.
///
/// On `MM_RESULT_OK`, `*batch_out` receives a new batch (free it with `mm_batch_destroy`) whose
/// `mm_batch_status` says why the poll returned: `EMITTED` (checkpoints written, maybe none),
/// `NOT_READY`, `NOT_DUE`, `STOPPED` or `FAILED` (stop polling after the last two). On any other
/// result `*batch_out` is untouched: `MM_RESULT_NOT_STARTED` before `mm_task_start`,
/// `MM_RESULT_BUSY` when another thread is inside `mm_task_poll` on this task,
/// `MM_RESULT_KAFKA` / `MM_RESULT_TIMED_OUT` when the cycle failed (the next poll retries),
/// `MM_RESULT_INVALID_ARGUMENT` for a timeout below -1, `MM_RESULT_NULL_PARAMETER`.
///
/// One thread at a time polls a task; `mm_task_stop` and the read-only calls may run
/// concurrently with it from other threads. `mm_task_destroy` may not.
///
/// # Safety
/// `task` is NULL or a live task; `batch_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_task_poll(
    task: *mut mm_task_t,
    timeout_ms: i32,
    batch_out: *mut *mut mm_batch_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, batch_out) = unsafe { (task_ref(task)?, out(batch_out, "batch_out")?) };
        let outcome = task.poll(timeout_of(timeout_ms)?)?;
        batch_out.write(into_handle(mm_batch_t::new(
            mm_poll_status::from(&outcome.status),
            &outcome.checkpoints,
        )));
        Ok(())
    })
}

/// Stops the task: sets the stop flag, wakes every blocked Kafka call, joins every library
/// thread, waits for a poll in progress on another thread to return, then closes every Kafka
/// client. When it returns `MM_RESULT_OK`, no thread of this task is alive and no client of it
/// exists.
///
/// **Blocks** until that is done (typically milliseconds; bounded by the longest single Kafka
/// call that cannot be woken). `MM_RESULT_ALREADY_STOPPED` when already stopped (nothing done),
/// `MM_RESULT_NOT_STARTED` when never started (the task can still be started),
/// `MM_RESULT_NULL_PARAMETER`.
///
/// Any thread, including while another thread is inside `mm_task_poll` on this task (that poll
/// returns with status `STOPPED`). Concurrent stops are safe: one stops, the others return
/// `MM_RESULT_ALREADY_STOPPED` once it is done. Must not be called from the log callback.
///
/// # Safety
/// `task` is NULL or a live task.
#[no_mangle]
pub unsafe extern "C" fn mm_task_stop(task: *mut mm_task_t) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        match unsafe { task_ref(task) }?.stop()? {
            StopOutcome::Stopped(_) => Ok(()),
            StopOutcome::AlreadyStopped => Err(Failure::new(
                mm_result::AlreadyStopped,
                "the task is already stopped",
            )),
        }
    })
}

/// Stops the task if it is running (blocking as `mm_task_stop`), then frees it. NULL is ignored.
///
/// Any thread, but no other call may be using `task` during or after it: destroying a task
/// while another thread is inside `mm_task_poll` on it is undefined behaviour (stop it first,
/// join the polling thread, then destroy). Must not be called from the log callback.
///
/// # Safety
/// `task` is NULL or a task from `mm_task_new` not freed yet, and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn mm_task_destroy(task: *mut mm_task_t) {
    // Dropping the task stops it first (CheckpointTask's Drop).
    // SAFETY: this function's contract.
    unsafe { destroy(task) };
}

/// Reads the error that stopped the task's work, if any (a failed or panicked start-up or
/// periodic job). Returns `MM_RESULT_FATAL` and writes the message into `errstr` when there is
/// one; returns `MM_RESULT_OK` and writes `""` when there is none. `MM_RESULT_NULL_PARAMETER`
/// when `task` is NULL. `errstr` may be NULL; it is NUL-terminated and cut to
/// `errstr_size - 1` bytes.
///
/// Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `errstr` is NULL or valid for `errstr_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_fatal_error(
    task: *const mm_task_t,
    errstr: *mut c_char,
    errstr_size: usize,
) -> mm_result {
    run_errstr(errstr, errstr_size, || {
        // SAFETY: this function's contract.
        match unsafe { task_ref(task) }?.fatal_error() {
            Some(message) => Err(Failure::new(mm_result::Fatal, message)),
            None => {
                // SAFETY: this function's contract.
                unsafe { write_text(errstr, errstr_size, "") };
                Ok(())
            }
        }
    })
}

/// Reads why start-up is waiting, while it retries an unreachable or slow cluster (e.g. "target
/// cluster `B` unreachable for 30 s: …"). Writes it into `errstr` (`""` when nothing is being
/// retried: loaded, failed, or not yet waiting) and returns `MM_RESULT_OK`;
/// `MM_RESULT_NULL_PARAMETER` when `task` is NULL. `errstr` may be NULL; it is NUL-terminated
/// and cut to `errstr_size - 1` bytes.
///
/// Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `errstr` is NULL or valid for `errstr_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_retry_reason(
    task: *const mm_task_t,
    errstr: *mut c_char,
    errstr_size: usize,
) -> mm_result {
    run_errstr(errstr, errstr_size, || {
        // SAFETY: this function's contract.
        let reason = unsafe { task_ref(task) }?
            .retry_reason()
            .unwrap_or_default();
        // SAFETY: this function's contract.
        unsafe { write_text(errstr, errstr_size, &reason) };
        Ok(())
    })
}

/// Fills `*stats_out` with a snapshot of the task's counters. `MM_RESULT_NULL_PARAMETER` when a
/// pointer is NULL (nothing written). Non-blocking. Any thread, concurrently with every call but
/// `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `stats_out` is NULL or valid for writing an `mm_task_stats`.
#[no_mangle]
pub unsafe extern "C" fn mm_task_get_stats(
    task: *const mm_task_t,
    stats_out: *mut mm_task_stats,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, stats_out) = unsafe { (task_ref(task)?, out(stats_out, "stats_out")?) };
        let s = task.stats();
        stats_out.write(mm_task_stats {
            checkpoints_emitted: s.checkpoints_emitted,
            records_skipped: s.records_skipped,
            syncs_loaded: s.syncs_loaded,
            checkpoints_loaded: s.checkpoints_loaded,
            cycles: s.cycles,
            group_offsets_written: s.group_offsets_written,
            groups: s.groups,
            load_time_us: micros(s.load_time),
            last_stop_time_us: micros(s.last_stop_time),
            initialized: u8::from(s.initialized),
            checkpoints_load_ok: u8::from(s.checkpoints_load_ok),
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::conf::{mm_conf_destroy, mm_conf_load_properties, mm_conf_new};
    use std::ffi::{CStr, CString};

    #[test]
    fn task_new_rejects_a_client_key_librdkafka_does_not_know_and_names_it() {
        let conf = mm_conf_new();
        let text = CString::new(
            "source.cluster.alias=A\nsource.cluster.bootstrap.servers=127.0.0.1:1\n\
             target.cluster.bootstrap.servers=127.0.0.1:1\nconsumer.no.such.property=1\n",
        )
        .unwrap();
        let mut err = [0 as c_char; 256];
        // SAFETY: live conf, C string, local buffer.
        let r = unsafe { mm_conf_load_properties(conf, text.as_ptr(), err.as_mut_ptr(), 256) };
        assert_eq!(r, mm_result::Ok);
        // SAFETY: as above.
        let task = unsafe { mm_task_new(conf, err.as_mut_ptr(), 256) };
        assert!(task.is_null(), "the task was created");
        // SAFETY: NUL-terminated by the failing call.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) }.to_str().unwrap();
        assert!(msg.starts_with("consumer.no.such.property: "), "{msg}");
        // SAFETY: the failed mm_task_new left the conf to us.
        unsafe { mm_conf_destroy(conf) };
    }
}
