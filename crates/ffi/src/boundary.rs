//! The one boundary every exported function runs inside: it checks pointers, catches panics, and
//! turns every failure into an [`mm_result`] (mapped from [`mm2_checkpoint::Error`] in `result_of` only)
//! plus a message kept per thread for [`mm_last_error`].
//!
//! Memory crossing the boundary is either an opaque handle made by `into_handle` and freed by
//! `free_handle`, or NUL-terminated text (`CText`) owned by such a handle.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};

use mm2_checkpoint::ffi_support::panic_message;
use mm2_checkpoint::{ConfigError, Error};

/// Result of every fallible call. `MM_RESULT_OK` is 0; `mm_result_str` names each value and
/// `mm_last_error` gives the message of the calling thread's last failure.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mm_result {
    /// Success.
    Ok = 0,
    /// A required pointer parameter was NULL.
    NullParameter = 1,
    /// The library panicked; the call had no effect that can be relied on. A bug: please report.
    Panic = 2,
    /// A configuration key or value was rejected (the message names the key and why).
    InvalidConfig = 3,
    /// A parameter was out of its documented range (including an index not below the list's
    /// length, or a `struct_size` below 8), or text was not UTF-8.
    InvalidArgument = 4,
    /// The task was not started (poll or stop before `mm_task_start`).
    NotStarted = 5,
    /// `mm_task_start` was called on a running task.
    AlreadyStarted = 6,
    /// The task is already stopped (a second stop, or start after stop).
    AlreadyStopped = 7,
    /// Another thread is inside `mm_task_poll` on this task, or inside a call on this
    /// offset-sync writer.
    Busy = 8,
    /// A Kafka client or request failed (the message names the topic, group or cluster;
    /// `mm_last_error_kafka_code` gives librdkafka's error code).
    Kafka = 9,
    /// A bounded wait ended before the broker answered.
    TimedOut = 10,
    /// The destination buffer is too small; the size it needs was written to the size parameter.
    BufferTooSmall = 11,
    /// The key asked for is not set, or the entry has no such value (e.g. no reason because a
    /// checkpoint was written). Nothing is written to the outputs.
    NotFound = 12,
    /// The task hit a fatal error (`mm_task_fatal_error` returns it).
    Fatal = 13,
    /// The task was stopped while the call was waiting.
    Stopped = 14,
    /// A library thread could not be started.
    Thread = 15,
    /// The call is not valid in the object's current state (none of the more precise results),
    /// e.g. a report to a closed offset-sync writer.
    InvalidState = 16,
    /// The process already has a `log` logger that is not this library's (a Rust host installed
    /// its own), so a log callback cannot be installed.
    LoggerTaken = 17,
    /// Called from inside the log callback, where it could deadlock: `mm_task_stop`,
    /// `mm_task_destroy` and `mm_set_log_callback` refuse it and do nothing.
    InLogCallback = 18,
    /// Called from inside the statistics callback, where it would wait for the thread the
    /// callback runs on: `mm_task_stop` and `mm_task_destroy` refuse it and do nothing.
    InStatsCallback = 19,
}

/// The one mapping from the library's errors to C results.
pub(crate) fn result_of(e: &Error) -> mm_result {
    match e {
        Error::Config(_) => mm_result::InvalidConfig,
        Error::Kafka { .. } => mm_result::Kafka,
        Error::Fatal { .. } => mm_result::Fatal,
        Error::Stopped => mm_result::Stopped,
        Error::TimedOut(_) => mm_result::TimedOut,
        Error::Thread(_) => mm_result::Thread,
        Error::NotStarted => mm_result::NotStarted,
        Error::AlreadyStarted => mm_result::AlreadyStarted,
        Error::AlreadyStopped => mm_result::AlreadyStopped,
        Error::Busy => mm_result::Busy,
        Error::InvalidState(_) => mm_result::InvalidState,
    }
}

/// Why an exported call failed: its result, a message for [`mm_last_error`] and, for a Kafka
/// error, librdkafka's code for [`mm_last_error_kafka_code`].
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) result: mm_result,
    pub(crate) message: String,
    pub(crate) kafka_code: i32,
}

impl Failure {
    pub(crate) fn new(result: mm_result, message: impl Into<String>) -> Self {
        Failure {
            result,
            message: message.into(),
            kafka_code: 0,
        }
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Failure::new(mm_result::InvalidArgument, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Failure::new(mm_result::NotFound, message)
    }

    fn null(name: &str) -> Self {
        Failure::new(mm_result::NullParameter, format!("`{name}` is NULL"))
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let message = match &e {
            // librdkafka's errstr convention: the key first, then why.
            Error::Config(c) if c.key.is_empty() => c.reason.clone(),
            Error::Config(c) => format!("{}: {}", c.key, c.reason),
            other => other.to_string(),
        };
        let mut f = Failure::new(result_of(&e), message);
        if let Error::Kafka {
            code: Some(code), ..
        } = e
        {
            f.kafka_code = code;
        }
        f
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        Error::Config(e).into()
    }
}

/// The calling thread's last result other than OK: its message and librdkafka code.
struct LastError {
    message: String,
    kafka_code: i32,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = const {
        RefCell::new(LastError { message: String::new(), kafka_code: 0 })
    };
}

/// Runs the body of every exported function that returns an [`mm_result`]: catches panics,
/// and sets the calling thread's last error on failure or clears it on success (so
/// `mm_last_error` always describes the latest such call on the thread).
pub(crate) fn run(body: impl FnOnce() -> Result<(), Failure>) -> mm_result {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        Err(Failure::new(
            mm_result::Panic,
            format!("panic: {}", panic_message(&*payload)),
        ))
    });
    LAST_ERROR.with(|last| {
        let mut last = last.borrow_mut();
        match &outcome {
            Ok(()) => {
                last.message.clear();
                last.kafka_code = 0;
            }
            Err(f) => {
                f.message.clone_into(&mut last.message);
                last.kafka_code = f.kafka_code;
            }
        }
    });
    match outcome {
        Ok(()) => mm_result::Ok,
        Err(f) => f.result,
    }
}

/// Borrows a handle or struct the caller passed.
///
/// # Safety
/// `p` is NULL or points to a live `T` that outlives `'a` and is not mutated meanwhile except
/// through interior mutability.
pub(crate) unsafe fn borrow<'a, T>(p: *const T, name: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::null(name))
}

/// Borrows a handle mutably.
///
/// # Safety
/// `p` is NULL or points to a live `T` that outlives `'a` and no other reference to it exists
/// meanwhile.
pub(crate) unsafe fn borrow_mut<'a, T>(p: *mut T, name: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { p.as_mut() }.ok_or_else(|| Failure::null(name))
}

/// Reads a C string parameter as UTF-8.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn text<'a>(p: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: non-NULL, and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|e| Failure::invalid_argument(format!("`{name}` is not UTF-8: {e}")))
}

/// An output parameter, checked for NULL before any work is done and written only on success.
pub(crate) struct Out<'a, T>(&'a mut MaybeUninit<T>);

impl<T> Out<'_, T> {
    pub(crate) fn write(self, v: T) {
        self.0.write(v);
    }
}

/// Checks an output pointer.
///
/// # Safety
/// `p` is NULL or valid for writing one `T` for `'a`.
pub(crate) unsafe fn out<'a, T>(p: *mut T, name: &str) -> Result<Out<'a, T>, Failure> {
    // SAFETY: the caller's contract; MaybeUninit<T> has T's layout, and writing through it does
    // not drop whatever (possibly uninitialised) value was there.
    unsafe { p.cast::<MaybeUninit<T>>().as_mut() }
        .map(Out)
        .ok_or_else(|| Failure::null(name))
}

/// The body of a text accessor: checks `text_out` (required) and `len_out` (may be NULL),
/// finds the text, then writes a pointer to it (owned by the handle) and its length in bytes
/// without the NUL.
///
/// # Safety
/// `text_out` is NULL or valid for writing a pointer; `len_out` is NULL or valid for writing.
pub(crate) unsafe fn lend<'a>(
    text_out: *mut *const c_char,
    len_out: *mut usize,
    find: impl FnOnce() -> Result<&'a CText, Failure>,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let text_out = unsafe { out(text_out, "text_out") }?;
    let text = find()?;
    text_out.write(text.as_ptr());
    // SAFETY: the caller's contract.
    if let Some(len) = unsafe { len_out.as_mut() } {
        *len = text.len();
    }
    Ok(())
}

/// The body of a value accessor: checks `value_out`, finds the value, then writes it.
///
/// # Safety
/// `value_out` is NULL or valid for writing a `T`.
pub(crate) unsafe fn give<T>(
    value_out: *mut T,
    name: &str,
    find: impl FnOnce() -> Result<T, Failure>,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let value_out = unsafe { out(value_out, name) }?;
    value_out.write(find()?);
    Ok(())
}

/// A struct the library fills that may grow in later versions.
///
/// # Safety
/// Implementors are `#[repr(C)]`, start with a `u64` `struct_size` field, and have no padding
/// (every field is 64 bits wide: an integer, or a text pointer of a list row, which `ffi/mod.rs`
/// keeps to 64-bit targets), so their bytes may be copied as they are.
pub(crate) unsafe trait Growable: Copy {}

/// `growable!(unsafe T, N)`: declares the library-filled struct `T` [`Growable`] and proves at
/// compile time that it is exactly `N` 64-bit words, so that with `N` fields no padding can hide
/// in it. `unsafe` at the call site: the caller still vouches for `#[repr(C)]` and the leading
/// `u64 struct_size`, which the struct's definition beside it shows.
macro_rules! growable {
    (unsafe $ty:ty, $fields:expr) => {
        // SAFETY: repr(C) and the u64 size first, as the call site vouches; every field 64 bits
        // wide, as the size check proves.
        unsafe impl $crate::boundary::Growable for $ty {}
        const _: () = assert!(::std::mem::size_of::<$ty>() == $fields * 8);
    };
}
pub(crate) use growable;

/// The output of a growable struct: at most `size` bytes (the caller's `struct_size`, capped at
/// the library's own size) are written.
pub(crate) struct SizedOut<'a, T> {
    p: *mut u8,
    size: usize,
    _out: std::marker::PhantomData<&'a mut T>,
}

impl<T: Growable> SizedOut<'_, T> {
    /// Writes what fits of `v`, then `struct_size` = the number of bytes written, so a caller
    /// built against a newer header learns which fields an older library filled.
    pub(crate) fn write(self, v: T) {
        // SAFETY: `Growable` promises plain bytes without padding; `self.p` is valid for
        // `self.size` bytes (checked in `sized_out`), and 8 <= size <= size_of::<T>().
        unsafe {
            let bytes = std::slice::from_raw_parts((&v as *const T).cast::<u8>(), self.size);
            std::ptr::copy_nonoverlapping(bytes.as_ptr().add(8), self.p.add(8), self.size - 8);
            self.p.cast::<u64>().write_unaligned(self.size as u64);
        }
    }
}

/// Checks the output of a growable struct: not NULL, and its `struct_size` (set by the caller to
/// `sizeof` of the struct it was compiled with) covers at least that field.
///
/// # Safety
/// `p` is NULL or valid for reading 8 bytes and writing `struct_size` bytes, for `'a`.
pub(crate) unsafe fn sized_out<'a, T: Growable>(
    p: *mut T,
    name: &str,
) -> Result<SizedOut<'a, T>, Failure> {
    if p.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: the caller's contract: the struct starts with its u64 size.
    let declared = unsafe { p.cast::<u64>().read_unaligned() };
    if declared < 8 {
        return Err(Failure::invalid_argument(format!(
            "`{name}->struct_size` is {declared}: set it to sizeof the struct before the call"
        )));
    }
    let size = usize::try_from(declared).map_or(std::mem::size_of::<T>(), |d| {
        d.min(std::mem::size_of::<T>())
    });
    Ok(SizedOut {
        p: p.cast(),
        size,
        _out: std::marker::PhantomData,
    })
}

/// The output half of `mm_conf_get`, `mm_task_fatal_error` and `mm_task_retry_reason`: writes
/// the size `text` needs to `*size`, and the text to `dest` when it is not NULL and large
/// enough.
///
/// # Safety
/// `dest` is NULL or valid for writing the capacity `*size` held on entry.
pub(crate) unsafe fn copy_out(
    text: &str,
    what: &str,
    dest: *mut c_char,
    size: &mut usize,
) -> Result<(), Failure> {
    let needed = text.len() + 1;
    let capacity = *size;
    *size = needed;
    if dest.is_null() {
        return Ok(());
    }
    if capacity < needed {
        return Err(Failure::new(
            mm_result::BufferTooSmall,
            format!("{what} needs {needed} bytes, the buffer has {capacity}"),
        ));
    }
    // SAFETY: the caller's contract; needed <= capacity.
    unsafe { write_text(dest, needed, text) };
    Ok(())
}

/// Copies `s` into `dest` as NUL-terminated text, cut to `size - 1` bytes at a UTF-8 character
/// boundary. Does nothing when `dest` is NULL or `size` is 0.
///
/// # Safety
/// `dest` is NULL or valid for writing `size` bytes.
pub(crate) unsafe fn write_text(dest: *mut c_char, size: usize, s: &str) {
    if dest.is_null() || size == 0 {
        return;
    }
    let mut n = s.len().min(size - 1);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    // SAFETY: n + 1 <= size bytes of dest are written; s holds at least n bytes; the two never
    // overlap (s is Rust-owned).
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), dest.cast::<u8>(), n);
        dest.add(n).write(0);
    }
}

/// Moves a value to the heap and hands C an owning pointer to it.
pub(crate) fn into_handle<T>(v: T) -> *mut T {
    Box::into_raw(Box::new(v))
}

/// Takes back and drops a handle made by [`into_handle`]; NULL is ignored.
///
/// # Safety
/// `p` is NULL or came from [`into_handle`] for the same `T` and was not freed yet.
pub(crate) unsafe fn free_handle<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// Frees a handle inside the boundary: a panic in a destructor is caught like any other.
///
/// # Safety
/// As for [`free_handle`].
pub(crate) unsafe fn destroy<T>(p: *mut T) {
    // Not through `run`: a destroy returns nothing, so it leaves the last error alone.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller's contract.
        unsafe { free_handle(p) }
    }));
}

/// Text owned by a handle and lent to C: UTF-8 followed by one NUL. Text with an embedded NUL
/// keeps it; C sees it cut there unless it reads the length the accessors give.
#[derive(Clone, Debug)]
pub(crate) struct CText(Box<[u8]>);

impl CText {
    pub(crate) fn new(s: &str) -> Self {
        let mut bytes = Vec::with_capacity(s.len() + 1);
        bytes.extend_from_slice(s.as_bytes());
        bytes.push(0);
        CText(bytes.into_boxed_slice())
    }

    pub(crate) fn as_ptr(&self) -> *const c_char {
        self.0.as_ptr().cast()
    }

    /// Length in bytes, without the NUL.
    pub(crate) fn len(&self) -> usize {
        self.0.len() - 1
    }
}

/// Text of a list row: a pointer to NUL-terminated UTF-8 owned by the list (valid until the
/// list is destroyed) and its length in bytes without the NUL; NULL and 0 for a value the entry
/// does not have.
pub(crate) fn row_text(text: Option<&CText>) -> (*const c_char, u64) {
    text.map_or((std::ptr::null(), 0), |t| (t.as_ptr(), t.len() as u64))
}

/// The body of every `mm_<list>_row`: checks `row_out` (a growable struct), finds item `index`
/// of the list, and copies what fits of its row. Nothing is written on failure.
///
/// # Safety
/// `list` as for [`borrow`]; `row_out` as for [`sized_out`].
pub(crate) unsafe fn copy_row<'a, L, T, R: Growable>(
    list: *const L,
    name: &str,
    index: usize,
    items: impl FnOnce(&'a L) -> &'a [T],
    row_of: impl FnOnce(&T) -> R,
    row_out: *mut R,
) -> Result<(), Failure>
where
    L: 'a,
    T: 'a,
{
    // SAFETY: the caller's contract.
    let row_out = unsafe { sized_out(row_out, "row_out") }?;
    // SAFETY: the caller's contract.
    let item = unsafe { item(list, name, index, items) }?;
    row_out.write(row_of(item));
    Ok(())
}

/// Looks up item `index` of a list handle.
///
/// # Safety
/// As for [`borrow`].
pub(crate) unsafe fn item<'a, L, T>(
    list: *const L,
    name: &str,
    index: usize,
    items: impl FnOnce(&'a L) -> &'a [T],
) -> Result<&'a T, Failure>
where
    L: 'a,
{
    // SAFETY: the caller's contract.
    let items = items(unsafe { borrow(list, name) }?);
    items.get(index).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "index {index} is out of range: `{name}` has {} items",
            items.len()
        ))
    })
}

impl mm_result {
    /// Every result, indexed by its value.
    const ALL: [mm_result; 20] = [
        mm_result::Ok,
        mm_result::NullParameter,
        mm_result::Panic,
        mm_result::InvalidConfig,
        mm_result::InvalidArgument,
        mm_result::NotStarted,
        mm_result::AlreadyStarted,
        mm_result::AlreadyStopped,
        mm_result::Busy,
        mm_result::Kafka,
        mm_result::TimedOut,
        mm_result::BufferTooSmall,
        mm_result::NotFound,
        mm_result::Fatal,
        mm_result::Stopped,
        mm_result::Thread,
        mm_result::InvalidState,
        mm_result::LoggerTaken,
        mm_result::InLogCallback,
        mm_result::InStatsCallback,
    ];

    /// The constant's name and a short meaning (the header test checks the names).
    fn text(self) -> &'static CStr {
        match self {
            mm_result::Ok => c"MM_RESULT_OK: success",
            mm_result::NullParameter => {
                c"MM_RESULT_NULL_PARAMETER: a required pointer parameter was NULL"
            }
            mm_result::Panic => c"MM_RESULT_PANIC: the library panicked (a bug)",
            mm_result::InvalidConfig => {
                c"MM_RESULT_INVALID_CONFIG: a configuration key or value was rejected"
            }
            mm_result::InvalidArgument => {
                c"MM_RESULT_INVALID_ARGUMENT: a parameter was out of range or not UTF-8"
            }
            mm_result::NotStarted => c"MM_RESULT_NOT_STARTED: the task was not started",
            mm_result::AlreadyStarted => c"MM_RESULT_ALREADY_STARTED: the task is already started",
            mm_result::AlreadyStopped => c"MM_RESULT_ALREADY_STOPPED: the task is already stopped",
            mm_result::Busy => c"MM_RESULT_BUSY: another call is in progress",
            mm_result::Kafka => c"MM_RESULT_KAFKA: a Kafka client or request failed",
            mm_result::TimedOut => c"MM_RESULT_TIMED_OUT: the broker did not answer in time",
            mm_result::BufferTooSmall => {
                c"MM_RESULT_BUFFER_TOO_SMALL: the destination buffer is too small"
            }
            mm_result::NotFound => c"MM_RESULT_NOT_FOUND: no such key or item",
            mm_result::Fatal => c"MM_RESULT_FATAL: the task hit a fatal error",
            mm_result::Stopped => c"MM_RESULT_STOPPED: the task was stopped during the call",
            mm_result::Thread => c"MM_RESULT_THREAD: a library thread could not be started",
            mm_result::InvalidState => c"MM_RESULT_INVALID_STATE: not valid in the current state",
            mm_result::LoggerTaken => {
                c"MM_RESULT_LOGGER_TAKEN: another logger is installed in this process"
            }
            mm_result::InLogCallback => {
                c"MM_RESULT_IN_LOG_CALLBACK: not allowed from inside the log callback"
            }
            mm_result::InStatsCallback => {
                c"MM_RESULT_IN_STATS_CALLBACK: not allowed from inside the statistics callback"
            }
        }
    }
}

/// Names a result: static, NUL-terminated text that starts with the constant's name, e.g.
/// `"MM_RESULT_OK: success"`. Never NULL: a value that is no result gives
/// `"MM_RESULT_UNKNOWN"`. Any thread, non-blocking.
#[no_mangle]
pub extern "C" fn mm_result_str(result: c_int) -> *const c_char {
    usize::try_from(result)
        .ok()
        .and_then(|i| mm_result::ALL.get(i))
        .map_or(c"MM_RESULT_UNKNOWN", |r| r.text())
        .as_ptr()
}

/// Copies the message of the calling thread's last failed call into `errstr`, NUL-terminated
/// and cut to `errstr_size - 1` bytes, and returns the message's full length in bytes (as
/// `snprintf` does: a result >= `errstr_size` means it was cut). Every call that returns an
/// `mm_result` sets this message when it fails and clears it (to `""`) when it returns
/// `MM_RESULT_OK`; other calls (`mm_*_destroy` except `mm_task_destroy`, `mm_result_str`,
/// `mm_version*`, `mm_last_error*`) leave it alone. Each thread has its own.
///
/// `errstr` may be NULL (only the length is returned). Non-blocking, any thread.
///
/// # Safety
/// `errstr` is NULL or valid for writing `errstr_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_last_error(errstr: *mut c_char, errstr_size: usize) -> usize {
    // Not through `run`: reading the message must not replace it.
    catch_unwind(|| {
        LAST_ERROR.with(|last| {
            let last = last.borrow();
            // SAFETY: the caller's contract.
            unsafe { write_text(errstr, errstr_size, &last.message) };
            last.message.len()
        })
    })
    .unwrap_or(0)
}

/// librdkafka's error code (`rd_kafka_resp_err_t`, e.g. `RD_KAFKA_RESP_ERR__TRANSPORT` = -195)
/// of the calling thread's last failed call when it failed with `MM_RESULT_KAFKA` and the
/// client reported a code; 0 (`RD_KAFKA_RESP_ERR_NO_ERROR`) otherwise. Set and cleared with
/// `mm_last_error`. Non-blocking, any thread.
#[no_mangle]
pub extern "C" fn mm_last_error_kafka_code() -> i32 {
    catch_unwind(|| LAST_ERROR.with(|last| last.borrow().kafka_code)).unwrap_or(0)
}

/// The library version, e.g. `"0.2.0"`: static, NUL-terminated, never NULL. Equal to
/// `MM2_CHECKPOINT_VERSION` when header and library match. Any thread, non-blocking.
#[no_mangle]
pub extern "C" fn mm_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The library version as one integer, `(major << 16) | (minor << 8) | patch` (0x000200 for
/// 0.2.0): equal to `MM2_CHECKPOINT_VERSION_NUM` when header and library match. Any thread,
/// non-blocking.
#[no_mangle]
pub extern "C" fn mm_version_num() -> u32 {
    version_num(
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    )
}

fn version_num(major: &str, minor: &str, patch: &str) -> u32 {
    let n = |s: &str| s.parse::<u32>().unwrap_or(0) & 0xff;
    (n(major) << 16) | (n(minor) << 8) | n(patch)
}

/// The calling thread's last error message, for the unit tests of the ffi modules.
#[cfg(test)]
pub(crate) fn last_error_text() -> String {
    LAST_ERROR.with(|last| last.borrow().message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mm2_checkpoint::checkpoint_task::CheckpointTask;
    use mm2_checkpoint::MirrorCheckpointConfig;

    fn last_error() -> String {
        let mut buf = [0 as c_char; 256];
        // SAFETY: a local buffer of the size given.
        let len = unsafe { mm_last_error(buf.as_mut_ptr(), buf.len()) };
        assert_eq!(len, last_error_text().len());
        // SAFETY: mm_last_error NUL-terminates.
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn panics_become_the_panic_result_and_a_message() {
        let r = run(|| panic!("boom in a test"));
        assert_eq!(r, mm_result::Panic);
        assert_eq!(last_error(), "panic: boom in a test");
        // A success clears it, and a Kafka failure keeps librdkafka's code.
        assert_eq!(run(|| Ok(())), mm_result::Ok);
        assert_eq!(last_error(), "");
        let r = run(|| Err(Error::kafka_code("reading `t`", "broker down", Some(-195)).into()));
        assert_eq!(r, mm_result::Kafka);
        assert_eq!(mm_last_error_kafka_code(), -195);
        assert_eq!(last_error(), "reading `t`: broker down");
        assert_eq!(run(|| Ok(())), mm_result::Ok);
        assert_eq!(mm_last_error_kafka_code(), 0);
    }

    #[test]
    fn every_error_variant_maps_to_its_result() {
        let cases = [
            (
                Error::Config(ConfigError::new("k", "r")),
                mm_result::InvalidConfig,
            ),
            (Error::kafka("ctx", "msg"), mm_result::Kafka),
            (Error::Stopped, mm_result::Stopped),
            (Error::TimedOut("x".into()), mm_result::TimedOut),
            (Error::Thread("x".into()), mm_result::Thread),
            (Error::NotStarted, mm_result::NotStarted),
            (Error::AlreadyStarted, mm_result::AlreadyStarted),
            (Error::AlreadyStopped, mm_result::AlreadyStopped),
            (Error::Busy, mm_result::Busy),
            (
                Error::InvalidState("anything else".into()),
                mm_result::InvalidState,
            ),
        ];
        for (e, expected) in cases {
            assert_eq!(result_of(&e), expected, "{e:?}");
        }
    }

    /// Pins the lifecycle texts of the real task, so a reworded message cannot silently turn a
    /// precise result into `MM_RESULT_INVALID_STATE`.
    #[test]
    fn lifecycle_misuse_of_the_real_task_maps_to_precise_results() {
        let (config, _) = MirrorCheckpointConfig::from_properties([
            ("source.cluster.alias", "a"),
            ("source.cluster.bootstrap.servers", "127.0.0.1:1"),
            ("target.cluster.bootstrap.servers", "127.0.0.1:1"),
        ])
        .unwrap();
        let task = CheckpointTask::new(config).unwrap();
        let r = |e: Error| result_of(&e);
        assert_eq!(
            r(task.poll(Default::default()).unwrap_err()),
            mm_result::NotStarted
        );
        assert_eq!(r(task.stop().unwrap_err()), mm_result::NotStarted);
        task.start().unwrap();
        assert_eq!(r(task.start().unwrap_err()), mm_result::AlreadyStarted);
        task.stop().unwrap();
        assert_eq!(r(task.start().unwrap_err()), mm_result::AlreadyStopped);
    }

    #[test]
    fn config_errors_read_key_colon_reason() {
        let f = Failure::from(ConfigError::new("admin.timeout.ms", "must be positive"));
        assert_eq!(f.result, mm_result::InvalidConfig);
        assert_eq!(f.message, "admin.timeout.ms: must be positive");
    }

    #[test]
    fn version_num_packs_major_minor_patch() {
        assert_eq!(version_num("0", "1", "0"), 0x000100);
        assert_eq!(version_num("1", "2", "3"), 0x010203);
        assert_eq!(mm_version_num(), 0x000200);
    }

    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Grows {
        struct_size: u64,
        a: u64,
        b: u64,
    }
    // SAFETY: repr(C), u64 size first, no padding.
    unsafe impl Growable for Grows {}

    #[test]
    fn growable_structs_are_written_only_as_far_as_the_caller_said() {
        let full = Grows {
            struct_size: 0,
            a: 1,
            b: 2,
        };
        // An older caller whose struct ends after `a`, followed by a guard word.
        let mut old = [16u64, 0, 0x5555];
        // SAFETY: old holds 24 bytes; struct_size says 16.
        let r = run(|| {
            unsafe { sized_out(old.as_mut_ptr().cast::<Grows>(), "s") }.map(|o| o.write(full))
        });
        assert_eq!(r, mm_result::Ok);
        assert_eq!(old, [16, 1, 0x5555]);
        // A newer caller's larger struct: the library fills what it has and says how much.
        let mut new = [32u64, 0, 0, 0x5555];
        // SAFETY: new holds 32 bytes.
        let r = run(|| {
            unsafe { sized_out(new.as_mut_ptr().cast::<Grows>(), "s") }.map(|o| o.write(full))
        });
        assert_eq!(r, mm_result::Ok);
        assert_eq!(new, [24, 1, 2, 0x5555]);
        let mut unset = [0u64, 7, 7];
        // SAFETY: 24 bytes.
        let r = run(|| {
            unsafe { sized_out(unset.as_mut_ptr().cast::<Grows>(), "s") }.map(|o| o.write(full))
        });
        assert_eq!(r, mm_result::InvalidArgument);
        assert_eq!(unset, [0, 7, 7]);
    }

    #[test]
    fn a_list_row_is_copied_as_far_as_the_caller_said_and_only_for_an_index_in_range() {
        struct List(Vec<u64>);
        let list = List(vec![10, 20]);
        let fill = |index: usize, out: &mut [u64]| {
            // SAFETY: `list` is live; `out` holds at least `out[0]` bytes.
            run(|| unsafe {
                copy_row(
                    &list,
                    "list",
                    index,
                    |l: &List| l.0.as_slice(),
                    |v| Grows {
                        struct_size: 0,
                        a: *v,
                        b: v + 1,
                    },
                    out.as_mut_ptr().cast::<Grows>(),
                )
            })
        };
        let mut full = [24u64, 0, 0, 0x5555];
        assert_eq!(fill(1, &mut full), mm_result::Ok);
        assert_eq!(full, [24, 20, 21, 0x5555]);
        // An older caller whose row ends after `a`.
        let mut old = [16u64, 0, 0x5555];
        assert_eq!(fill(0, &mut old), mm_result::Ok);
        assert_eq!(old, [16, 10, 0x5555]);
        // Past the end, or a NULL list: nothing written.
        let mut past = [24u64, 7, 7];
        assert_eq!(fill(2, &mut past), mm_result::InvalidArgument);
        assert_eq!(past, [24, 7, 7]);
        assert!(last_error_text().contains("index 2 is out of range: `list` has 2 items"));
        // SAFETY: a NULL list is refused before anything is read.
        let r = run(|| unsafe {
            copy_row(
                std::ptr::null::<List>(),
                "list",
                0,
                |l: &List| l.0.as_slice(),
                |v| Grows {
                    struct_size: 0,
                    a: *v,
                    b: 0,
                },
                past.as_mut_ptr().cast::<Grows>(),
            )
        });
        assert_eq!(r, mm_result::NullParameter);
        assert_eq!(past, [24, 7, 7]);
    }

    #[test]
    fn write_text_truncates_at_a_character_boundary_and_terminates() {
        let cases: [(&str, usize, &[u8]); 6] = [
            ("hello", 6, b"hello\0"),
            ("hello", 3, b"he\0"),
            ("hello", 1, b"\0"),
            ("é!", 2, b"\0"),
            ("é!", 3, b"\xc3\xa9\0"),
            ("", 4, b"\0"),
        ];
        for (s, size, expected) in cases {
            let mut buf = vec![0x55 as c_char; size + 1];
            // SAFETY: buf holds size + 1 bytes.
            unsafe { write_text(buf.as_mut_ptr(), size, s) };
            let written: Vec<u8> = buf[..expected.len()].iter().map(|b| *b as u8).collect();
            assert_eq!(written, expected, "{s:?} in {size}");
            assert_eq!(buf[size], 0x55, "wrote past {size} for {s:?}");
        }
        // Size 0 and NULL write nothing (and do not crash).
        let mut byte = 0x55 as c_char;
        // SAFETY: size 0 writes nothing.
        unsafe { write_text(&mut byte, 0, "x") };
        assert_eq!(byte, 0x55);
        // SAFETY: NULL is accepted.
        unsafe { write_text(std::ptr::null_mut(), 10, "x") };
    }

    #[test]
    fn null_parameters_are_named_in_the_message() {
        let r = run(|| {
            // SAFETY: NULL is what is being tested.
            unsafe { borrow::<u8>(std::ptr::null(), "conf") }.map(|_| ())
        });
        assert_eq!(r, mm_result::NullParameter);
        assert_eq!(last_error(), "`conf` is NULL");
    }

    #[test]
    fn results_are_listed_by_value_and_unknown_values_have_a_name() {
        for (i, r) in mm_result::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
        let name = |code| {
            // SAFETY: mm_result_str returns static NUL-terminated text.
            unsafe { CStr::from_ptr(mm_result_str(code)) }
                .to_str()
                .unwrap()
                .to_string()
        };
        assert!(name(8).starts_with("MM_RESULT_BUSY:"));
        assert!(name(18).starts_with("MM_RESULT_IN_LOG_CALLBACK:"));
        assert!(name(19).starts_with("MM_RESULT_IN_STATS_CALLBACK:"));
        for unknown in [-1, 20, c_int::MAX] {
            assert_eq!(name(unknown), "MM_RESULT_UNKNOWN");
        }
    }
}
