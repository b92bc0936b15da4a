//! `mm_task_t`: a checkpoint task (MM2's `MirrorCheckpointTask`) for C: new, start, poll, stop,
//! destroy, its fatal error and its counters.

use std::ffi::c_char;
use std::ptr::NonNull;
use std::time::Duration;

use super::batch::{mm_batch_t, mm_poll_status};
use super::boundary::{
    borrow, copy_out, free_handle, growable, into_handle, mm_result, out, run, sized_out, Failure,
};
use super::conf::mm_conf_t;
use super::log::refuse_in_log_callback;
use mm2_checkpoint::checkpoint_task::{CheckpointTask, StopOutcome};
use mm2_checkpoint::ffi_support::in_listener;

/// `mm_task_poll` timeout meaning "until the next cycle, a stop or a fatal error" (a macro of
/// the same name in the header; tests/ffi_header.rs pins the two together).
pub const MM_TIMEOUT_INFINITE: i32 = -1;

/// What "infinite" waits: long enough never to matter, short enough that a deadline computed
/// from it cannot overflow.
const INFINITE: Duration = Duration::from_secs(365 * 24 * 3600);

/// A checkpoint task. Opaque; made by `mm_task_new` and freed by `mm_task_destroy`, or one
/// flow's task lent by `mm_flows_task` and freed with its `mm_flows_t`.
#[allow(non_camel_case_types)]
pub struct mm_task_t {
    slot: TaskSlot,
}

/// Who owns the task behind an `mm_task_t`.
enum TaskSlot {
    /// Made by `mm_task_new`: the handle owns it.
    Own(Box<CheckpointTask>),
    /// A flow's task, owned by an `mm_flows_t` that outlives this handle (the flows free their
    /// lent handles before their tasks).
    Lent(NonNull<CheckpointTask>),
}

impl mm_task_t {
    /// A handle owning `task`.
    pub(crate) fn owning(task: CheckpointTask) -> Self {
        mm_task_t {
            slot: TaskSlot::Own(Box::new(task)),
        }
    }

    /// A handle lending `task`, which its owner keeps alive and in place for as long as the
    /// handle exists.
    pub(crate) fn lending(task: &CheckpointTask) -> Self {
        mm_task_t {
            slot: TaskSlot::Lent(NonNull::from(task)),
        }
    }

    /// The task.
    pub(crate) fn task(&self) -> &CheckpointTask {
        match &self.slot {
            TaskSlot::Own(task) => task,
            // SAFETY: a lent task outlives its handle and never moves (`lending`).
            TaskSlot::Lent(task) => unsafe { task.as_ref() },
        }
    }

    /// True for a flow's task, which only `mm_flows_destroy` frees.
    fn is_lent(&self) -> bool {
        matches!(self.slot, TaskSlot::Lent(_))
    }
}

/// Per-task counters, filled by `mm_task_get_stats`. Set `struct_size` to
/// `sizeof(mm_task_stats)` before the call: the library writes at most that many bytes, so a
/// program built against an older, shorter version of this struct keeps working. Fields are
/// only ever added at the end.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_task_stats {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
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
    pub initialized: u64,
    /// 1 when the checkpoints loaded at start were read successfully (otherwise translation
    /// starts pessimistic, as in MM2), else 0.
    pub checkpoints_load_ok: u64,
    /// Committed-offset fetches a group's own ACL denied (GROUP_AUTHORIZATION_FAILED), in
    /// checkpoint cycles, group discoveries and group offset syncs: each is logged as an error
    /// and skips that group until a later run. Added after `checkpoints_load_ok`: a caller whose
    /// `struct_size` ends before it does not get it.
    pub group_fetches_denied: u64,
}

growable!(unsafe mm_task_stats, 13);

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

/// Refuses a call made from inside the statistics callback (any metrics listener): stop and
/// destroy join the thread the callback runs on.
pub(crate) fn refuse_in_stats_callback(call: &str) -> Result<(), Failure> {
    if in_listener() {
        return Err(Failure::new(
            mm_result::InStatsCallback,
            format!(
                "{call} was called from inside the statistics callback; call it from elsewhere"
            ),
        ));
    }
    Ok(())
}

/// # Safety
/// `task` is NULL or a live task.
pub(crate) unsafe fn task_ref<'a>(task: *const mm_task_t) -> Result<&'a CheckpointTask, Failure> {
    // SAFETY: the caller's contract.
    Ok(unsafe { borrow(task, "task") }?.task())
}

/// Makes a task from a configuration and writes it to `*task_out`. Does no I/O and starts no
/// thread.
///
/// The whole configuration is parsed here; warnings (unknown or ignored keys) are logged at
/// warn level through the log callback. On success the task takes `conf` (do not use or free it
/// again). On failure `conf` stays the caller's, `*task_out` is untouched, and `mm_last_error`
/// says why: `"<key>: <reason>"` with `MM_RESULT_INVALID_CONFIG` for a rejected configuration,
/// including a client setting librdkafka rejects (checked here, without making a client).
/// `MM_RESULT_NULL_PARAMETER` when a pointer is NULL.
///
/// Non-blocking. Any thread; `conf` must not be used by another thread meanwhile.
///
/// # Safety
/// `conf` is NULL or a live conf; `task_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_task_new(
    conf: *mut mm_conf_t,
    task_out: *mut *mut mm_task_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (parsed, task_out) =
            unsafe { (borrow(conf, "conf")?.parse(), out(task_out, "task_out")?) };
        let (config, warnings) = parsed?;
        for w in warnings {
            log::warn!("configuration `{}`: {}", w.key, w.message);
        }
        let task = CheckpointTask::new(config)?;
        // Taken only now that nothing can fail any more.
        // SAFETY: conf is live and ours from here on by this function's contract.
        unsafe { free_handle(conf) };
        task_out.write(into_handle(mm_task_t::owning(task)));
        Ok(())
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
/// `mm_batch_status` says why the poll returned: `CYCLE_DONE` (a cycle ran; its checkpoints, often none),
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
/// `MM_RESULT_ALREADY_STOPPED` once it is done. From inside the log callback it returns
/// `MM_RESULT_IN_LOG_CALLBACK` and does nothing (it would wait for the thread it runs on); from
/// inside the statistics callback, `MM_RESULT_IN_STATS_CALLBACK`, for the same reason.
///
/// # Safety
/// `task` is NULL or a live task.
#[no_mangle]
pub unsafe extern "C" fn mm_task_stop(task: *mut mm_task_t) -> mm_result {
    run(|| {
        refuse_in_log_callback("mm_task_stop")?;
        refuse_in_stats_callback("mm_task_stop")?;
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

/// Stops the task if it is running (blocking as `mm_task_stop`), then frees it. NULL is ignored
/// (`MM_RESULT_OK`). From inside the log callback it returns `MM_RESULT_IN_LOG_CALLBACK` and
/// does nothing: the task stays alive, destroy it later from another place (likewise
/// `MM_RESULT_IN_STATS_CALLBACK` from inside the statistics callback). A flow's task (from
/// `mm_flows_task`) is refused with `MM_RESULT_INVALID_ARGUMENT` and left running:
/// `mm_flows_destroy` frees it. Unlike the other `mm_*_destroy` functions it returns a result,
/// because of these cases.
///
/// Any thread, but no other call may be using `task` during or after it: destroying a task
/// while another thread is inside `mm_task_poll` on it is undefined behaviour (stop it first,
/// join the polling thread, then destroy).
///
/// # Safety
/// `task` is NULL or a task from `mm_task_new` not freed yet, and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn mm_task_destroy(task: *mut mm_task_t) -> mm_result {
    run(|| {
        refuse_in_log_callback("mm_task_destroy")?;
        refuse_in_stats_callback("mm_task_destroy")?;
        // Stopped through a shared reference before the handle is taken back: the statistics
        // callback, which may read the task until the stop joins its thread, never meets a task
        // being freed. (Dropping it would stop it too: CheckpointTask's Drop.)
        // SAFETY: this function's contract.
        if let Some(t) = unsafe { task.as_ref() } {
            if t.is_lent() {
                return Err(Failure::invalid_argument(
                    "this task is a flow's, lent by mm_flows_task: mm_flows_destroy frees it",
                ));
            }
            let _ = t.task().stop();
        }
        // SAFETY: this function's contract.
        unsafe { free_handle(task) };
        Ok(())
    })
}

/// Reads the error that stopped the task's work (a failed or panicked start-up or periodic
/// job) into `dest`, NUL-terminated, as `mm_conf_get` reads a value: `*dest_size` is the
/// capacity of `dest` and receives the size the message needs (length + 1); `dest` NULL asks
/// only for the size; `MM_RESULT_BUFFER_TOO_SMALL` leaves `dest` untouched.
/// `MM_RESULT_NOT_FOUND` when the task has no fatal error (nothing written);
/// `MM_RESULT_NULL_PARAMETER` when `task` or `dest_size` is NULL.
///
/// Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `dest_size` is NULL or valid for reading and writing; `dest`
/// is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_fatal_error(
    task: *const mm_task_t,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, size) = unsafe {
            (
                task_ref(task)?,
                super::boundary::borrow_mut(dest_size, "dest_size")?,
            )
        };
        let message = task
            .fatal_error()
            .ok_or_else(|| Failure::not_found("the task has no fatal error"))?;
        // SAFETY: this function's contract.
        unsafe { copy_out(&message, "the fatal error", dest, size) }
    })
}

/// Reads why start-up is waiting, while it retries an unreachable or slow cluster (e.g. "target
/// cluster `B` unreachable for 30 s: …"), or, once loaded, why a periodic job failed at its
/// last run and waits for its next ("group discovery failed, retrying at its next run: …"),
/// into `dest`, NUL-terminated, as `mm_conf_get` reads a value: `*dest_size` is the capacity
/// of `dest` and receives the size the text needs; `dest` NULL asks only for the size;
/// `MM_RESULT_BUFFER_TOO_SMALL` leaves `dest` untouched. `MM_RESULT_NOT_FOUND` when nothing is
/// being retried (failed, stopped, not yet waiting, or loaded with every periodic job succeeding);
/// `MM_RESULT_NULL_PARAMETER` when `task` or `dest_size` is NULL.
///
/// Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `dest_size` is NULL or valid for reading and writing; `dest`
/// is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_retry_reason(
    task: *const mm_task_t,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, size) = unsafe {
            (
                task_ref(task)?,
                super::boundary::borrow_mut(dest_size, "dest_size")?,
            )
        };
        let reason = task
            .retry_reason()
            .ok_or_else(|| Failure::not_found("the task is not retrying anything"))?;
        // SAFETY: this function's contract.
        unsafe { copy_out(&reason, "the retry reason", dest, size) }
    })
}

/// Writes the task's id to `*id_out`: unique in the process, never 0. The records its threads
/// log, and those logged inside `mm_task_start`, `mm_task_poll` and `mm_task_stop` on it, are
/// delivered while `mm_current_task_id` gives this id, so one log callback serving several
/// tasks can tell their lines apart. `MM_RESULT_NULL_PARAMETER` when a pointer is NULL.
/// Non-blocking. Any thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `id_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_task_id(task: *const mm_task_t, id_out: *mut u64) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, id_out) = unsafe {
            (
                task_ref(task)?,
                super::boundary::borrow_mut(id_out, "id_out")?,
            )
        };
        *id_out = task.id();
        Ok(())
    })
}

/// Fills `*stats_out` with a snapshot of the task's counters, at most `stats_out->struct_size`
/// bytes of it (set that to `sizeof(mm_task_stats)` first; on return it holds the bytes
/// filled). `MM_RESULT_INVALID_ARGUMENT` when `struct_size` is below 8,
/// `MM_RESULT_NULL_PARAMETER` when a pointer is NULL (nothing written). Non-blocking. Any
/// thread, concurrently with every call but `mm_task_destroy`.
///
/// # Safety
/// `task` is NULL or a live task; `stats_out` is NULL or valid for reading and writing
/// `stats_out->struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_task_get_stats(
    task: *const mm_task_t,
    stats_out: *mut mm_task_stats,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (task, stats_out) = unsafe { (task_ref(task)?, sized_out(stats_out, "stats_out")?) };
        let s = task.stats();
        stats_out.write(mm_task_stats {
            struct_size: 0,
            checkpoints_emitted: s.checkpoints_emitted,
            records_skipped: s.records_skipped,
            syncs_loaded: s.syncs_loaded,
            checkpoints_loaded: s.checkpoints_loaded,
            cycles: s.cycles,
            group_offsets_written: s.group_offsets_written,
            groups: s.groups,
            load_time_us: micros(s.load_time),
            last_stop_time_us: micros(s.last_stop_time),
            initialized: u64::from(s.initialized),
            checkpoints_load_ok: u64::from(s.checkpoints_load_ok),
            group_fetches_denied: s.group_fetches_denied,
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::{mm_conf_destroy, mm_conf_load_properties, mm_conf_new};
    use std::ffi::CString;

    #[test]
    fn task_new_rejects_a_client_key_librdkafka_does_not_know_and_names_it() {
        let mut conf = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(unsafe { mm_conf_new(&mut conf) }, mm_result::Ok);
        let text = CString::new(
            "source.cluster.alias=A\nsource.cluster.bootstrap.servers=127.0.0.1:1\n\
             target.cluster.bootstrap.servers=127.0.0.1:1\nconsumer.no.such.property=1\n",
        )
        .unwrap();
        // SAFETY: live conf, C string.
        let r = unsafe { mm_conf_load_properties(conf, text.as_ptr()) };
        assert_eq!(r, mm_result::Ok);
        let mut task = std::ptr::null_mut();
        // SAFETY: as above, and a local out-pointer.
        let r = unsafe { mm_task_new(conf, &mut task) };
        assert_eq!(r, mm_result::InvalidConfig);
        assert!(task.is_null(), "the task was created");
        let msg = crate::boundary::last_error_text();
        assert!(msg.starts_with("consumer.no.such.property: "), "{msg}");
        // SAFETY: the failed mm_task_new left the conf to us.
        unsafe { mm_conf_destroy(conf) };
    }

    /// A group fetch denied by the group's ACL (injected in a checkpoint cycle) reaches C as
    /// `group_fetches_denied`; a caller whose struct ends before that field does not get it.
    #[test]
    fn a_denied_group_fetch_is_counted_in_the_c_stats_for_a_caller_that_has_the_field() {
        use mm2_checkpoint::checkpoint_task::faults::Fault;
        use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
        use rdkafka::error::RDKafkaErrorCode;
        use std::time::Instant;

        let clusters = EmbeddedClusters::new().unwrap();
        clusters
            .create_topic(Side::Source, "mm2-offset-syncs.target.internal", 1)
            .unwrap();
        clusters
            .create_topic(Side::Target, "source.checkpoints.internal", 1)
            .unwrap();
        let mut conf = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(unsafe { mm_conf_new(&mut conf) }, mm_result::Ok);
        let text = CString::new(format!(
            "source.cluster.alias=source\ntarget.cluster.alias=target\n\
             source.cluster.bootstrap.servers={}\ntarget.cluster.bootstrap.servers={}\n\
             emit.checkpoints.interval.seconds=1\ncheckpoints.topic.replication.factor=1\n\
             task.assigned.groups=g1\n",
            clusters.bootstrap(Side::Source),
            clusters.bootstrap(Side::Target)
        ))
        .unwrap();
        // SAFETY: live conf, C string.
        assert_eq!(
            unsafe { mm_conf_load_properties(conf, text.as_ptr()) },
            mm_result::Ok
        );
        let mut task = std::ptr::null_mut();
        // SAFETY: live conf (taken on success), a local out-pointer.
        assert_eq!(unsafe { mm_task_new(conf, &mut task) }, mm_result::Ok);
        // SAFETY: the task just made, alive until mm_task_destroy below.
        let inner = unsafe { (*task).task() };
        inner.inject_fault(Fault::CycleGroupOffsetsFail(
            RDKafkaErrorCode::GroupAuthorizationFailed,
        ));
        // SAFETY: a live task.
        assert_eq!(unsafe { mm_task_start(task) }, mm_result::Ok);
        let deadline = Instant::now() + Duration::from_secs(30);
        while inner.stats().group_fetches_denied == 0 {
            assert!(Instant::now() < deadline, "no denial: {:?}", inner.stats());
            inner.poll(Duration::from_millis(100)).unwrap();
        }
        let mut full = mm_task_stats {
            struct_size: std::mem::size_of::<mm_task_stats>() as u64,
            ..Default::default()
        };
        // SAFETY: a live task, a whole struct.
        assert_eq!(unsafe { mm_task_get_stats(task, &mut full) }, mm_result::Ok);
        assert_eq!(full.group_fetches_denied, 1);
        let before = std::mem::offset_of!(mm_task_stats, group_fetches_denied) as u64;
        let mut old = mm_task_stats {
            struct_size: before,
            group_fetches_denied: 77,
            ..Default::default()
        };
        // SAFETY: a live task; the struct is longer than the size declared.
        assert_eq!(unsafe { mm_task_get_stats(task, &mut old) }, mm_result::Ok);
        assert_eq!(old.struct_size, before);
        assert_eq!(old.group_fetches_denied, 77, "written past struct_size");
        assert_eq!(old.checkpoints_load_ok, full.checkpoints_load_ok);
        // SAFETY: a live task, not used again.
        assert_eq!(unsafe { mm_task_destroy(task) }, mm_result::Ok);
    }
}
