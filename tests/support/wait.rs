//! Deadline-bounded waiting: polling a condition, and driving a future without an async runtime.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// Longest pause between two polls: short enough to keep tests fast, long enough not to
/// hammer a broker.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Polls `cond` until it returns true; panics naming `what` if `timeout` passes first.
pub fn wait_until(timeout: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    wait_for(timeout, what, || cond().then_some(()))
}

/// Polls `probe` until it yields a value and returns it; panics naming `what` if `timeout`
/// passes first.
pub fn wait_for<T>(timeout: Duration, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        let now = Instant::now();
        if now >= deadline {
            panic!("timed out after {timeout:?} waiting until {what}");
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// Wakes the thread that is blocked in [`block_on`].
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion on the current thread; panics naming `what` after `timeout`.
///
/// rdkafka's admin calls return futures, but their completion is driven by rdkafka's own
/// background thread, so a park/unpark loop is all the "runtime" they need (the crate is
/// built without its tokio feature).
pub fn block_on<F: Future>(future: F, timeout: Duration, what: &str) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let deadline = Instant::now() + timeout;
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        let now = Instant::now();
        if now >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        // Bounded park: a spurious or missed unpark only costs one pause.
        thread::park_timeout((deadline - now).min(MAX_PAUSE));
    }
}
