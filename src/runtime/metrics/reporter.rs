//! The statistics thread: every `statistics.interval.ms` it takes a metrics snapshot and hands
//! it to the listener, until the task stops. One thread per task with a listener and a non-zero
//! interval; the task's stop wakes and joins it like its other threads.
//!
//! The listener runs on this thread with no lock of the task held, so it may call any read-only
//! method of the task. It may not stop the task: stop joins this thread, which would wait for
//! itself; `CheckpointTask::stop` refuses that call ([`in_listener`]).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::MetricsSnapshot;
use mm2_checkpoint_kafka::library_thread::{panic_message, LibraryThread};
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// What receives a snapshot every interval.
pub type MetricsListener = Arc<dyn Fn(&MetricsSnapshot) + Send + Sync>;

thread_local! {
    static IN_LISTENER: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is inside a metrics listener.
pub fn in_listener() -> bool {
    IN_LISTENER.with(Cell::get)
}

/// Starts the statistics thread of a task, named `name`.
pub(crate) fn start(
    name: String,
    interval: Duration,
    signal: &StopSignal,
    snapshot: impl Fn() -> MetricsSnapshot + Send + 'static,
    listener: MetricsListener,
) -> std::io::Result<LibraryThread<()>> {
    let stop = signal.clone();
    LibraryThread::spawn(name, signal, move || {
        let mut next = Instant::now() + interval;
        loop {
            let now = Instant::now();
            if !stop.sleep(next.saturating_duration_since(now)) {
                return;
            }
            // A listener slower than the interval: the next call comes a whole interval after
            // this one, not at once.
            next = (next + interval).max(Instant::now() + interval / 2);
            deliver(&snapshot, &listener);
        }
    })
}

fn deliver(snapshot: &impl Fn() -> MetricsSnapshot, listener: &MetricsListener) {
    IN_LISTENER.with(|f| f.set(true));
    // A panicking listener must not end the thread (nor abort the process through C): logged,
    // and the next interval calls it again.
    let outcome = catch_unwind(AssertUnwindSafe(|| listener(&snapshot())));
    IN_LISTENER.with(|f| f.set(false));
    if let Err(panic) = outcome {
        log::error!("the metrics listener panicked: {}", panic_message(&*panic));
    }
}
