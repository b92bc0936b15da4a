//! `mm_flows_t`: every enabled flow of one MM2 properties text in one object for C (A->B and
//! B->A, say): one task per flow, started together and stopped together, each flow's task lent
//! out as an `mm_task_t` for polling, counters, metrics and errors.

use std::ffi::{c_char, CString};

use super::boundary::{borrow, borrow_mut, copy_out, free_handle, into_handle, out, run, text};
use super::boundary::{mm_result, result_of, Failure};
use super::log::refuse_in_log_callback;
use super::task::{mm_task_t, refuse_in_stats_callback};
use mm2_checkpoint::checkpoint_flows::CheckpointFlows;
use mm2_checkpoint::checkpoint_task::StopOutcome;

/// The flows of one configuration. Opaque; made by `mm_flows_new`, freed by
/// `mm_flows_destroy`.
#[allow(non_camel_case_types)]
pub struct mm_flows_t {
    /// One lent handle per flow, in order (never added to, so each stays where it is);
    /// declared first, so dropped before the tasks.
    lent: Vec<mm_task_t>,
    /// Each flow's name (`A->B`), in order.
    names: Vec<CString>,
    flows: CheckpointFlows,
}

impl mm_flows_t {
    fn new(flows: CheckpointFlows) -> Self {
        let mut lent = Vec::new();
        let mut names = Vec::new();
        for (name, task) in flows.flows() {
            // Tasks stay where they are: `CheckpointFlows` never adds or removes one.
            lent.push(mm_task_t::lending(task));
            // An alias holds no NUL (the configuration refuses one).
            names.push(CString::new(name).unwrap_or_default());
        }
        mm_flows_t { lent, names, flows }
    }

    fn index(&self, index: usize) -> Result<usize, Failure> {
        if index < self.lent.len() {
            Ok(index)
        } else {
            Err(Failure::invalid_argument(format!(
                "flow index {index} is out of range: there are {} flows",
                self.lent.len()
            )))
        }
    }
}

/// Makes one task per enabled flow of an MM2 properties text and writes them to `*flows_out`.
/// Does no I/O and starts no thread.
///
/// `properties` is an `mm2.properties` file's text. In MM2's dedicated mode (`clusters = A, B`
/// with `A->B.enabled = true` and `B->A.enabled = true`) every enabled flow gets a task, in
/// the order of `clusters`, with the flow's own overrides (`A->B.emit.checkpoints.interval.seconds`,
/// `B->A.emit.reverse.checkpoints.enabled`, ...); a text naming `source.cluster.alias` and
/// `target.cluster.alias` is one flow. Warnings (unknown or ignored keys) are logged at warn
/// level through the log callback.
///
/// `MM_RESULT_INVALID_CONFIG` when the text enables no flow or a flow's configuration is
/// rejected (`mm_last_error` names the key, and the flow), `MM_RESULT_NULL_PARAMETER`,
/// `MM_RESULT_INVALID_ARGUMENT` when `properties` is not UTF-8. On failure `*flows_out` is
/// untouched. Non-blocking. Any thread.
///
/// # Safety
/// `properties` is NULL or a NUL-terminated string; `flows_out` is NULL or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_new(
    properties: *const c_char,
    flows_out: *mut *mut mm_flows_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (properties, flows_out) = unsafe {
            (
                text(properties, "properties")?,
                out(flows_out, "flows_out")?,
            )
        };
        let (flows, warnings) = CheckpointFlows::from_properties_text(properties)?;
        for w in warnings {
            log::warn!("configuration `{}`: {}", w.key, w.message);
        }
        flows_out.write(into_handle(mm_flows_t::new(flows)));
        Ok(())
    })
}

/// Writes the number of flows to `*count_out` (at least 1). `MM_RESULT_NULL_PARAMETER` when a
/// pointer is NULL. Non-blocking. Any thread, concurrently with every call but
/// `mm_flows_destroy`.
///
/// # Safety
/// `flows` is NULL or live; `count_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_count(
    flows: *const mm_flows_t,
    count_out: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (flows, count_out) = unsafe { (borrow(flows, "flows")?, out(count_out, "count_out")?) };
        count_out.write(flows.lent.len());
        Ok(())
    })
}

/// Reads flow `index`'s name (`source->target`, e.g. `A->B`) into `dest`, NUL-terminated, as
/// `mm_conf_get` reads a value: `*dest_size` is the capacity of `dest` and receives the size
/// the name needs (length + 1); `dest` NULL asks only for the size;
/// `MM_RESULT_BUFFER_TOO_SMALL` leaves `dest` untouched. `MM_RESULT_INVALID_ARGUMENT` when
/// `index` is not below the count, `MM_RESULT_NULL_PARAMETER` when `flows` or `dest_size` is
/// NULL. Non-blocking. Any thread, concurrently with every call but `mm_flows_destroy`.
///
/// # Safety
/// `flows` is NULL or live; `dest_size` is NULL or valid for reading and writing; `dest` is
/// NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_name(
    flows: *const mm_flows_t,
    index: usize,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (flows, size) =
            unsafe { (borrow(flows, "flows")?, borrow_mut(dest_size, "dest_size")?) };
        let name = flows.names[flows.index(index)?].to_string_lossy();
        // SAFETY: this function's contract.
        unsafe { copy_out(&name, "the flow's name", dest, size) }
    })
}

/// Lends flow `index`'s task: `*task_out` works with every `mm_task_*` function (poll, stats,
/// metrics, fatal error, retry reason, statistics callback, even a stop of that flow alone)
/// until `mm_flows_destroy`, which frees it; `mm_task_destroy` refuses it. Asking again gives
/// the same pointer. `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the count,
/// `MM_RESULT_NULL_PARAMETER`. Non-blocking. Any thread, concurrently with every call but
/// `mm_flows_destroy`.
///
/// # Safety
/// `flows` is NULL or live; `task_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_task(
    flows: *const mm_flows_t,
    index: usize,
    task_out: *mut *mut mm_task_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (flows, task_out) = unsafe { (borrow(flows, "flows")?, out(task_out, "task_out")?) };
        let lent: &mm_task_t = &flows.lent[flows.index(index)?];
        // C may call the mutating task functions through it; they take `&CheckpointTask` only.
        task_out.write(std::ptr::from_ref(lent).cast_mut());
        Ok(())
    })
}

/// Starts every flow, in order, as `mm_task_start` starts one. When one cannot start, the ones
/// already started are stopped and its error is returned with the flow's name first in
/// `mm_last_error` (`"flow B->A: ..."`). `MM_RESULT_ALREADY_STARTED` / `MM_RESULT_ALREADY_STOPPED`
/// as for a task (a flow starts once), `MM_RESULT_NULL_PARAMETER`. Returns at once. Any thread.
///
/// # Safety
/// `flows` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_start(flows: *mut mm_flows_t) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let flows = unsafe { borrow(flows, "flows") }?;
        flows.flows.start().map_err(|(name, e)| of_flow(&name, e))
    })
}

/// A flow's error, its name first.
fn of_flow(name: &str, e: mm2_checkpoint::Error) -> Failure {
    let inner = Failure::from(e);
    Failure {
        message: format!("flow {name}: {}", inner.message),
        ..inner
    }
}

/// Stops every flow with `mm_task_stop`'s guarantees, and as promptly as the slowest flow:
/// every flow's stop flag is set and its blocked calls woken first, then each flow's threads
/// are joined and only then its clients closed. When it returns `MM_RESULT_OK`, no thread and
/// no client of any flow exists.
///
/// `MM_RESULT_OK` when it stopped at least one flow, `MM_RESULT_ALREADY_STOPPED` when every
/// flow was already stopped, `MM_RESULT_NOT_STARTED` when no flow was started (they can still
/// be started), `MM_RESULT_NULL_PARAMETER`; `MM_RESULT_IN_LOG_CALLBACK` /
/// `MM_RESULT_IN_STATS_CALLBACK` from inside those callbacks (nothing done). **Blocks** until
/// done. Any thread, also while others poll the flows' tasks (those polls return `STOPPED`).
///
/// # Safety
/// `flows` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_stop(flows: *mut mm_flows_t) -> mm_result {
    run(|| {
        refuse_in_log_callback("mm_flows_stop")?;
        refuse_in_stats_callback("mm_flows_stop")?;
        // SAFETY: this function's contract.
        let flows = unsafe { borrow(flows, "flows") }?;
        stop_all(&flows.flows)
    })
}

/// Stops every flow and says what `mm_flows_stop` returns.
fn stop_all(flows: &CheckpointFlows) -> Result<(), Failure> {
    let outcomes = flows.stop();
    let mut any_stopped = false;
    let mut first_error = None;
    for (name, outcome) in outcomes {
        match outcome {
            Ok(StopOutcome::Stopped(_)) => any_stopped = true,
            Ok(StopOutcome::AlreadyStopped) => {}
            Err(e) => {
                first_error.get_or_insert((name, e));
            }
        }
    }
    match (any_stopped, first_error) {
        (true, _) => Ok(()),
        (false, Some((_, e))) if result_of(&e) == mm_result::NotStarted => {
            Err(Failure::new(mm_result::NotStarted, "no flow was started"))
        }
        (false, Some((name, e))) => Err(of_flow(&name, e)),
        (false, None) => Err(Failure::new(
            mm_result::AlreadyStopped,
            "every flow is already stopped",
        )),
    }
}

/// Stops every running flow (blocking as `mm_flows_stop`), then frees the flows, their tasks
/// and the handles `mm_flows_task` lent. NULL is ignored (`MM_RESULT_OK`). From inside the log
/// or statistics callback it returns `MM_RESULT_IN_LOG_CALLBACK` / `MM_RESULT_IN_STATS_CALLBACK`
/// and does nothing. Any thread, but no other call may be using `flows` or a task it lent
/// during or after it (stop first, join the polling threads, then destroy).
///
/// # Safety
/// `flows` is NULL or from `mm_flows_new`, not freed yet, and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn mm_flows_destroy(flows: *mut mm_flows_t) -> mm_result {
    run(|| {
        refuse_in_log_callback("mm_flows_destroy")?;
        refuse_in_stats_callback("mm_flows_destroy")?;
        // Stopped through a shared reference first, as mm_task_destroy does: a statistics
        // callback still running reads a live task.
        // SAFETY: this function's contract.
        if let Some(f) = unsafe { flows.as_ref() } {
            let _ = f.flows.stop();
        }
        // SAFETY: this function's contract.
        unsafe { free_handle(flows) };
        Ok(())
    })
}
