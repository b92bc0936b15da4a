//! The Rust counterpart of the Java consumer's single-thread check (the check that exposed
//! KAFKA-21435): every call into a client goes through [`Owned::call`], which notes the thread
//! inside the client and counts any call that overlaps one from another thread. Destroying the
//! client counts as a call too, so a close racing a poll is caught. Two atomics per call.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::kafka::diagnostics;
use crate::kafka::stop_signal::StopSignal;

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
pub(crate) struct Owned<T> {
    // `None` only while being dropped.
    client: Option<T>,
    inside: AtomicU64,
    role: &'static str,
    signal: StopSignal,
}

impl<T> Owned<T> {
    /// Wraps a freshly created client; `role` names it in logs and lifecycle observations.
    pub(crate) fn new(client: T, role: &'static str, signal: &StopSignal) -> Self {
        diagnostics::client_created();
        Owned {
            client: Some(client),
            inside: AtomicU64::new(0),
            role,
            signal: signal.clone(),
        }
    }

    /// Runs `f` on the client, recording an overlap if another thread is inside it.
    pub(crate) fn call<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let entered = self.enter();
        let Some(client) = self.client.as_ref() else {
            unreachable!("a client is only taken out while it is dropped")
        };
        let r = f(client);
        if entered {
            self.inside.store(0, Ordering::SeqCst);
        }
        r
    }

    fn enter(&self) -> bool {
        let me = thread_token();
        match self
            .inside
            .compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => true,
            Err(other) if other == me => false,
            Err(_) => {
                diagnostics::concurrent_access_seen();
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
        let entered = self.enter();
        drop(self.client.take());
        if entered {
            self.inside.store(0, Ordering::SeqCst);
        }
        diagnostics::client_destroyed();
        self.signal.observe(&format!("closed {}", self.role));
    }
}
