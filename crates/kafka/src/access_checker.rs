//! The Rust counterpart of the Java consumer's single-thread check (the check that exposed
//! KAFKA-21435): every call into a client goes through [`Owned::call`], which notes the thread
//! inside the client and counts any call that overlaps one from another thread. Destroying the
//! client counts as a call too, so a close racing a poll is caught. Two atomics per call.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::diagnostics;
use crate::stop_signal::StopSignal;

static NEXT_THREAD_TOKEN: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD_TOKEN: Cell<u64> = const { Cell::new(0) };
}

fn thread_token() -> u64 {
    THREAD_TOKEN.with(|t| {
        if t.get() == 0 {
            t.set(NEXT_THREAD_TOKEN.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    })
}

/// A Kafka client with its one-thread-at-a-time check and its place in the live-client count.
///
/// `Send` (a client moves between threads by value) but not `Sync`: no two threads can hold a
/// `&Owned` at once, so the compiler enforces what the run-time check counts. The run-time
/// check stays as a second line of defence for the tests.
pub struct Owned<T> {
    // `None` only while being dropped.
    client: Option<T>,
    inside: AtomicU64,
    role: &'static str,
    signal: StopSignal,
    _not_sync: PhantomData<Cell<()>>,
}

/// Marks a thread as inside the client until dropped, also when the call unwinds: a panic in a
/// client call must not leave the marker set, or the stopper's close would count as an overlap.
struct Inside<'a> {
    marker: &'a AtomicU64,
    entered: bool,
}

impl Drop for Inside<'_> {
    fn drop(&mut self) {
        if self.entered {
            self.marker.store(0, Ordering::SeqCst);
        }
    }
}

impl<T> Owned<T> {
    /// Wraps a freshly created client; `role` names it in logs and lifecycle observations.
    pub fn new(client: T, role: &'static str, signal: &StopSignal) -> Self {
        diagnostics::client_created(signal.counts());
        Owned {
            client: Some(client),
            inside: AtomicU64::new(0),
            role,
            signal: signal.clone(),
            _not_sync: PhantomData,
        }
    }

    /// Runs `f` on the client, recording an overlap if another thread is inside it.
    pub fn call<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let _inside = self.enter();
        let Some(client) = self.client.as_ref() else {
            unreachable!("a client is only taken out while it is dropped")
        };
        f(client)
    }

    fn enter(&self) -> Inside<'_> {
        Inside {
            marker: &self.inside,
            entered: self.try_enter(),
        }
    }

    fn try_enter(&self) -> bool {
        let me = thread_token();
        match self
            .inside
            .compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => true,
            Err(other) if other == me => false,
            Err(_) => {
                diagnostics::concurrent_access_seen(self.signal.counts());
                log::error!(
                    "concurrent use of the {} Kafka client from two threads (library bug)",
                    self.role
                );
                false
            }
        }
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        let entered = self.try_enter();
        drop(self.client.take());
        if entered {
            self.inside.store(0, Ordering::SeqCst);
        }
        diagnostics::client_destroyed(self.signal.counts());
        self.signal.observe(&format!("closed {}", self.role));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn a_panicking_call_releases_the_inside_marker() {
        let signal = StopSignal::new();
        let owned = Owned::new((), "test client", &signal);
        let panicked = catch_unwind(AssertUnwindSafe(|| owned.call(|_| panic!("injected"))));
        assert!(panicked.is_err());
        assert_eq!(owned.inside.load(Ordering::SeqCst), 0, "marker left set");
        // Another thread closes the client, as the stopper does after a join.
        std::thread::spawn(move || drop(owned)).join().unwrap();
        assert_eq!(
            signal.counts().snapshot(),
            diagnostics::Diagnostics::default()
        );
    }
}
