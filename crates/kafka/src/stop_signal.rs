//! The stop flag of a task and everything that must notice it promptly.
//!
//! Stopping is "set flag → wake → join → close". This type does the first two: [`StopSignal::stop`]
//! sets the flag, yields every registered librdkafka queue (so blocked consumer polls and admin
//! waits return at once) and wakes every thread sleeping in [`StopSignal::sleep`]. Joining and
//! closing are the owner's job, after this returns.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::diagnostics::Counts;
use crate::librdkafka::QueueHandle;
use crate::mutex::lock;

#[derive(Default)]
struct Inner {
    stopped: AtomicBool,
    next_id: AtomicU64,
    // Registered queues; yielded under this lock so that a queue is never yielded after its
    // owner unregistered it (and then destroyed the client it belongs to).
    queues: Mutex<BTreeMap<u64, Arc<QueueHandle>>>,
    sleepers: Mutex<()>,
    wake_sleepers: Condvar,
    #[allow(clippy::type_complexity)]
    observer: Mutex<Option<Arc<dyn Fn(&str) + Send + Sync>>>,
    counts: Counts,
}

/// A shared stop flag with wakers. Cheap to clone; all clones are the same signal.
#[derive(Clone, Default)]
pub struct StopSignal {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for StopSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopSignal")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

/// Keeps a queue registered for waking; unregisters on drop (before the client is destroyed).
/// Only [`WakeableClient`](crate::WakeableClient) holds one.
pub struct WakeRegistration {
    signal: StopSignal,
    id: u64,
}

impl Drop for WakeRegistration {
    fn drop(&mut self) {
        lock(&self.signal.inner.queues).remove(&self.id);
    }
}

impl StopSignal {
    /// A new, unset signal.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once [`stop`](Self::stop) was called.
    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// Sets the flag, then wakes every registered queue and sleeper. Idempotent.
    pub fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        self.observe("stop flag set");
        {
            let queues = lock(&self.inner.queues);
            for q in queues.values() {
                q.wake();
            }
        }
        {
            let _g = lock(&self.inner.sleepers);
            self.inner.wake_sleepers.notify_all();
        }
        self.observe("woken");
    }

    /// Registers `queue` to be yielded by [`stop`](Self::stop). If the signal is already set,
    /// the queue is yielded at once, so a poll that starts later still returns immediately.
    pub(crate) fn register(&self, queue: Arc<QueueHandle>) -> WakeRegistration {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut queues = lock(&self.inner.queues);
            queues.insert(id, Arc::clone(&queue));
            if self.is_stopped() {
                queue.wake();
            }
        }
        WakeRegistration {
            signal: self.clone(),
            id,
        }
    }

    /// The live clients and threads of the task this signal stops.
    #[doc(hidden)] // For the layers of this library; not part of mm2-checkpoint's API.
    pub fn counts(&self) -> &Counts {
        &self.inner.counts
    }

    /// Sleeps up to `duration`; returns `false` at once when stopped (before or during the sleep).
    pub fn sleep(&self, duration: Duration) -> bool {
        let deadline = Instant::now() + duration;
        let mut guard = lock(&self.inner.sleepers);
        loop {
            if self.is_stopped() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            guard = self
                .inner
                .wake_sleepers
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits until `ready()` holds, the deadline passes or the signal is set, re-checking
    /// whenever [`nudge`](Self::nudge) is called. Returns `Some(true)` when ready,
    /// `Some(false)` on the deadline and `None` when stopped.
    pub fn wait_until(&self, deadline: Instant, mut ready: impl FnMut() -> bool) -> Option<bool> {
        let mut guard = lock(&self.inner.sleepers);
        loop {
            if self.is_stopped() {
                return None;
            }
            if ready() {
                return Some(true);
            }
            let now = Instant::now();
            if now >= deadline {
                return Some(false);
            }
            guard = self
                .inner
                .wake_sleepers
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Wakes sleepers without stopping (used when new work becomes ready).
    pub fn nudge(&self) {
        let _g = lock(&self.inner.sleepers);
        self.inner.wake_sleepers.notify_all();
    }

    /// Installs a hook that sees the lifecycle steps of a stop ("stop flag set", "woken", and the
    /// task's own "joined …"/"closed …" steps). For tests that pin the stop order (feature
    /// `internals`).
    #[cfg(feature = "internals")]
    pub fn set_observer(&self, observer: Arc<dyn Fn(&str) + Send + Sync>) {
        *lock(&self.inner.observer) = Some(observer);
    }

    /// Reports a lifecycle step to the observer, if any.
    #[doc(hidden)] // For the layers of this library; not part of mm2-checkpoint's API.
    pub fn observe(&self, step: &str) {
        let observer = lock(&self.inner.observer).clone();
        if let Some(o) = observer {
            o(step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    #[test]
    fn sleep_returns_false_promptly_when_stopped_from_another_thread() {
        let s = StopSignal::new();
        let s2 = s.clone();
        let t = thread::spawn(move || s2.sleep(Duration::from_secs(30)));
        // The sleeper may or may not be waiting yet; either way it must see the flag.
        s.stop();
        assert!(!t.join().unwrap());
    }

    #[test]
    fn sleep_completes_when_not_stopped() {
        assert!(StopSignal::new().sleep(Duration::from_millis(1)));
    }

    #[test]
    fn stop_is_idempotent_and_visible_to_clones() {
        let s = StopSignal::new();
        let c = s.clone();
        s.stop();
        s.stop();
        assert!(c.is_stopped());
        assert!(!c.sleep(Duration::from_secs(5)));
    }
}
