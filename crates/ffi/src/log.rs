//! The log callback: C receives the library's `log` records (and librdkafka's, which
//! rust-rdkafka forwards to `log`). The library never installs a logger by itself; the first
//! `mm_set_log_callback` with a callback installs one for the process.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, RwLock};

use super::boundary::{mm_result, run, Failure};

/// Log levels as passed to the callback (`level`) and accepted as `max_level`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // Only C uses it: cbindgen writes it into the header.
pub enum mm_log_level {
    /// As `max_level`: deliver nothing.
    Off = 0,
    /// The task cannot do its work (e.g. a failed Kafka request it will retry).
    Error = 1,
    /// Something is wrong but handled (unknown configuration keys, skipped records).
    Warn = 2,
    /// Lifecycle: ready, stopped, group changes.
    Info = 3,
    /// Per-cycle detail.
    Debug = 4,
    /// Everything.
    Trace = 5,
}

/// A log callback: `level` is an `mm_log_level` value (1 = error … 5 = trace), `target` the
/// emitting module (e.g. `"mm2_checkpoint::runtime::checkpoint_task"`, or `"librdkafka"`), `message` the
/// text. Both strings are NUL-terminated and valid only during the call. `opaque` is the pointer
/// given to `mm_set_log_callback`.
#[allow(non_camel_case_types)]
pub type mm_log_cb = Option<
    unsafe extern "C" fn(
        opaque: *mut c_void,
        level: c_int,
        target: *const c_char,
        message: *const c_char,
    ),
>;

struct Sink {
    callback: unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char),
    opaque: *mut c_void,
}

// SAFETY: `mm_set_log_callback` requires the callback and its opaque pointer to be usable from
// any thread; the library only passes the pointer back to the callback.
unsafe impl Send for Sink {}
// SAFETY: as above.
unsafe impl Sync for Sink {}

/// Held for reading during every callback invocation, so replacing the callback waits for calls
/// in progress: after `mm_set_log_callback` returns, the old callback is never called again.
static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Whether our logger is the process's `log` logger (set once; `log` cannot uninstall).
static INSTALLED: Mutex<bool> = Mutex::new(false);

thread_local! {
    /// Set while this thread runs the callback: a record logged from inside it (e.g. by a
    /// library call the callback makes) is dropped instead of re-entering.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

struct CallbackLogger;

static LOGGER: CallbackLogger = CallbackLogger;

impl log::Log for CallbackLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) || IN_CALLBACK.with(Cell::get) {
            return;
        }
        // Logging runs on library and librdkafka threads, where an unwinding panic would abort.
        let _ = catch_unwind(AssertUnwindSafe(|| deliver(record)));
    }

    fn flush(&self) {}
}

fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

/// The target a log callback sees: the module path under the `mm2_checkpoint` root, whichever
/// crate of the library logged, so that `mm2_checkpoint` names every message of the library for a C
/// filter, a Java logger or a log4j category: `mm2_checkpoint_core::x` is reported as
/// `mm2_checkpoint::core::x`, `mm2_checkpoint_kafka::x` as `mm2_checkpoint::kafka::x`,
/// `mm2_checkpoint_ffi::x` as `mm2_checkpoint::ffi::x`.
fn reported_target(target: &str) -> String {
    for (krate, layer) in [
        ("mm2_checkpoint_core", "mm2_checkpoint::core"),
        ("mm2_checkpoint_kafka", "mm2_checkpoint::kafka"),
        ("mm2_checkpoint_ffi", "mm2_checkpoint::ffi"),
    ] {
        if let Some(rest) = target.strip_prefix(krate) {
            if rest.is_empty() || rest.starts_with("::") {
                return format!("{layer}{rest}");
            }
        }
    }
    target.to_string()
}

fn deliver(record: &log::Record<'_>) {
    let sink = SINK
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(sink) = sink.as_ref() else {
        return;
    };
    let target = c_text(&reported_target(record.target()));
    let message = c_text(&record.args().to_string());
    IN_CALLBACK.with(|f| f.set(true));
    // SAFETY: a callback the user installed with the contract of `mm_set_log_callback`; both
    // strings live until after the call.
    unsafe {
        (sink.callback)(
            sink.opaque,
            record.level() as c_int,
            target.as_ptr(),
            message.as_ptr(),
        )
    };
    IN_CALLBACK.with(|f| f.set(false));
}

/// Refuses a call made from inside the log callback on this thread: stop, destroy and
/// replacing the callback would wait for work that waits for the callback to return.
pub(crate) fn refuse_in_log_callback(call: &str) -> Result<(), Failure> {
    if IN_CALLBACK.with(Cell::get) {
        return Err(Failure::new(
            mm_result::InLogCallback,
            format!("{call} was called from inside the log callback; call it from elsewhere"),
        ));
    }
    Ok(())
}

fn level_filter(max_level: c_int) -> Result<log::LevelFilter, Failure> {
    Ok(match max_level {
        0 => log::LevelFilter::Off,
        1 => log::LevelFilter::Error,
        2 => log::LevelFilter::Warn,
        3 => log::LevelFilter::Info,
        4 => log::LevelFilter::Debug,
        5 => log::LevelFilter::Trace,
        other => {
            return Err(Failure::invalid_argument(format!(
                "max_level {other} is not an mm_log_level (0 = off … 5 = trace)"
            )))
        }
    })
}

/// Installs, replaces (`cb` not NULL) or removes (`cb` NULL) the process-wide log callback, which
/// receives records up to `max_level` (an `mm_log_level`: 0 = off … 5 = trace; ignored when
/// removing). Nothing is logged anywhere until a callback is installed.
///
/// **Which thread calls it**: whichever thread logs — the task's scheduler thread (start-up
/// loading and periodic jobs), its offset-syncs tail thread, and the application thread inside
/// `mm_task_new` (configuration warnings), `mm_task_poll` (checkpoint cycles), `mm_task_stop` /
/// `mm_task_destroy` (the stop) or an `mm_embedded_*` call. librdkafka's own lines (target
/// `"librdkafka"`) are queued by librdkafka and delivered on whichever of these threads serves
/// that client, never on librdkafka's internal threads. Calls can therefore be concurrent: the
/// callback and `opaque` must be thread-safe. The callback must not block for long (it delays
/// that thread's work). From inside it, `mm_set_log_callback`, `mm_task_stop` and
/// `mm_task_destroy` return `MM_RESULT_IN_LOG_CALLBACK` and do nothing; records logged by
/// library calls made from inside the callback are dropped.
///
/// When this returns, the previous callback is not running and will not be called again (the
/// call waits for invocations in progress on other threads), so its `opaque` may be freed.
///
/// The first call with a callback registers the library's logger with Rust's `log` crate for
/// the rest of the process. `MM_RESULT_LOGGER_TAKEN` when the process already has another `log`
/// logger (a Rust host installed its own: its logger then receives the library's records);
/// `MM_RESULT_INVALID_ARGUMENT` for a `max_level` out of range when installing (the previous
/// callback then stays); `MM_RESULT_IN_LOG_CALLBACK` when called from inside the callback.
/// Blocks only while callbacks run. Any thread.
///
/// # Safety
/// `cb` is NULL or a function that may be called from any thread with `opaque` until this
/// function is next called and returns.
#[no_mangle]
pub unsafe extern "C" fn mm_set_log_callback(
    cb: mm_log_cb,
    opaque: *mut c_void,
    max_level: c_int,
) -> mm_result {
    run(|| {
        refuse_in_log_callback("mm_set_log_callback")?;
        let mut installed = INSTALLED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Removal ignores `max_level`: a caller tearing down must never keep a callback whose
        // opaque it is about to free.
        let Some(callback) = cb else {
            *SINK
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
            if *installed {
                log::set_max_level(log::LevelFilter::Off);
            }
            return Ok(());
        };
        let level = level_filter(max_level)?;
        if !*installed {
            log::set_logger(&LOGGER).map_err(|_| {
                Failure::new(
                    mm_result::LoggerTaken,
                    "the process already has a `log` logger (installed by the Rust host); it receives this library's records",
                )
            })?;
            *installed = true;
        }
        *SINK
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Sink { callback, opaque });
        log::set_max_level(level);
        Ok(())
    })
}

/// Writes to `*id_out` the id (`mm_task_id`) of the task the calling thread works for, or 0
/// when none. Inside the log callback that is the task whose record is being delivered (0 for
/// records of no task, such as configuration warnings of `mm_task_new`); inside the statistics
/// callback, that callback's task. `MM_RESULT_NULL_PARAMETER` when `id_out` is NULL.
/// Non-blocking. Any thread, inside the callbacks too.
///
/// # Safety
/// `id_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_current_task_id(id_out: *mut u64) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let id_out = unsafe { super::boundary::borrow_mut(id_out, "id_out") }?;
        *id_out = mm2_checkpoint::current_task_id();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_layer_crates_report_their_targets_under_mm2_checkpoint() {
        use super::reported_target;
        assert_eq!(
            reported_target("mm2_checkpoint_core::mirror_checkpoint_config"),
            "mm2_checkpoint::core::mirror_checkpoint_config"
        );
        assert_eq!(
            reported_target("mm2_checkpoint_core"),
            "mm2_checkpoint::core"
        );
        assert_eq!(
            reported_target("mm2_checkpoint_kafka::admin"),
            "mm2_checkpoint::kafka::admin"
        );
        assert_eq!(
            reported_target("mm2_checkpoint_ffi::task"),
            "mm2_checkpoint::ffi::task"
        );
        assert_eq!(
            reported_target("mm2_checkpoint::runtime::checkpoint_task"),
            "mm2_checkpoint::runtime::checkpoint_task"
        );
        assert_eq!(
            reported_target("mm2_checkpoint_corex"),
            "mm2_checkpoint_corex"
        );
        assert_eq!(reported_target("librdkafka"), "librdkafka");
    }

    use super::*;
    use std::ffi::CStr;

    static SEEN: Mutex<Vec<(c_int, String, String)>> = Mutex::new(Vec::new());

    unsafe extern "C" fn collect(
        opaque: *mut c_void,
        level: c_int,
        target: *const c_char,
        message: *const c_char,
    ) {
        assert_eq!(opaque as usize, 42);
        // SAFETY: the library passes NUL-terminated strings live during the call.
        let (t, m) = unsafe { (CStr::from_ptr(target), CStr::from_ptr(message)) };
        SEEN.lock().unwrap().push((
            level,
            t.to_string_lossy().into_owned(),
            m.to_string_lossy().into_owned(),
        ));
        // Re-entering from the callback is refused, and logging from it is dropped.
        // SAFETY: NULL callback.
        let r = unsafe { mm_set_log_callback(None, std::ptr::null_mut(), 0) };
        assert_eq!(r, mm_result::InLogCallback);
        log::error!("from inside the callback");
    }

    /// One test: the logger is process-wide, and the crate's unit tests install no other.
    #[test]
    fn callback_receives_records_up_to_max_level_and_can_be_removed() {
        let opaque = 42usize as *mut c_void;
        // SAFETY: `collect` is thread-safe and ignores opaque beyond checking it.
        let r = unsafe { mm_set_log_callback(Some(collect), opaque, mm_log_level::Info as c_int) };
        assert_eq!(r, mm_result::Ok);
        log::info!(target: "t1", "shown {}", 1);
        log::debug!(target: "t1", "hidden");
        log::warn!(target: "t2", "nul\0inside");
        // SAFETY: removal, with a level out of range that removal ignores.
        let r = unsafe { mm_set_log_callback(None, std::ptr::null_mut(), 99) };
        assert_eq!(r, mm_result::Ok);
        log::error!(target: "t1", "after removal");
        // SAFETY: as above; 6 is out of range.
        let r = unsafe { mm_set_log_callback(Some(collect), opaque, 6) };
        assert_eq!(r, mm_result::InvalidArgument);
        let seen: Vec<_> = SEEN
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, t, _)| t.starts_with('t'))
            .cloned()
            .collect();
        assert_eq!(
            seen,
            vec![
                (3, "t1".to_string(), "shown 1".to_string()),
                (2, "t2".to_string(), "nul\\0inside".to_string()),
            ]
        );
    }
}
