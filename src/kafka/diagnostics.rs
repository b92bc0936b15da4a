//! Process-wide counters that prove there are no leaks and no shared clients: live Kafka clients,
//! live library threads, and overlapping client calls seen by the access checker.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;

static LIVE_CLIENTS: AtomicUsize = AtomicUsize::new(0);
static LIVE_THREADS: AtomicUsize = AtomicUsize::new(0);
static CONCURRENT_ACCESS: AtomicU64 = AtomicU64::new(0);

/// Kafka clients (consumers, producers, admin handles) created by this library and not yet
/// destroyed, in the whole process.
pub fn live_clients() -> usize {
    LIVE_CLIENTS.load(Ordering::SeqCst)
}

/// Library threads started and not yet joined, in the whole process.
pub fn live_threads() -> usize {
    LIVE_THREADS.load(Ordering::SeqCst)
}

/// Client calls that overlapped a call on the same client from another thread, since the process
/// started. Zero unless the one-owner-per-client rule was broken (what KAFKA-21435 broke in Java).
pub fn concurrent_client_access() -> u64 {
    CONCURRENT_ACCESS.load(Ordering::SeqCst)
}

pub(crate) fn client_created() {
    LIVE_CLIENTS.fetch_add(1, Ordering::SeqCst);
}

pub(crate) fn client_destroyed() {
    LIVE_CLIENTS.fetch_sub(1, Ordering::SeqCst);
}

pub(crate) fn concurrent_access_seen() {
    CONCURRENT_ACCESS.fetch_add(1, Ordering::SeqCst);
}

/// A library thread: counted from spawn until joined.
pub(crate) struct LibraryThread<T> {
    handle: Option<JoinHandle<T>>,
}

impl<T: Send + 'static> LibraryThread<T> {
    /// Spawns a named thread and counts it as live.
    pub(crate) fn spawn(
        name: String,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        match std::thread::Builder::new().name(name).spawn(f) {
            Ok(handle) => Ok(LibraryThread {
                handle: Some(handle),
            }),
            Err(e) => {
                LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
                Err(e)
            }
        }
    }

    /// Joins the thread; `Err` carries a panic message if it panicked.
    pub(crate) fn join(mut self) -> Result<T, String> {
        self.join_inner()
    }

    fn join_inner(&mut self) -> Result<T, String> {
        let Some(handle) = self.handle.take() else {
            return Err("thread already joined".into());
        };
        let result = handle.join().map_err(|p| panic_message(&*p));
        LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        result
    }
}

impl<T> Drop for LibraryThread<T> {
    fn drop(&mut self) {
        // Every owner joins explicitly after signalling a stop; this is the backstop that keeps
        // the count honest if an owner is dropped during a panic.
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
            LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Text of a panic payload.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
