//! Counters that prove there are no leaks and no shared clients: live Kafka clients, live
//! library threads, and overlapping client calls seen by the access checker. Kept process-wide
//! and per task (per stop signal), so that tests running tasks in parallel can each check their
//! own.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;

use crate::kafka::stop_signal::StopSignal;

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

/// The same counters for one task: its clients and threads, and overlaps on its clients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    /// Kafka clients of the task not yet destroyed.
    pub live_clients: usize,
    /// Library threads of the task started and not yet joined.
    pub live_threads: usize,
    /// Calls on the task's clients that overlapped a call from another thread.
    pub concurrent_client_access: u64,
}

/// The live counters behind [`Diagnostics`]; one per stop signal.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    live_clients: AtomicUsize,
    live_threads: AtomicUsize,
    concurrent_access: AtomicU64,
}

impl Counts {
    pub(crate) fn snapshot(&self) -> Diagnostics {
        Diagnostics {
            live_clients: self.live_clients.load(Ordering::SeqCst),
            live_threads: self.live_threads.load(Ordering::SeqCst),
            concurrent_client_access: self.concurrent_access.load(Ordering::SeqCst),
        }
    }
}

pub(crate) fn client_created(task: &Counts) {
    LIVE_CLIENTS.fetch_add(1, Ordering::SeqCst);
    task.live_clients.fetch_add(1, Ordering::SeqCst);
}

pub(crate) fn client_destroyed(task: &Counts) {
    LIVE_CLIENTS.fetch_sub(1, Ordering::SeqCst);
    task.live_clients.fetch_sub(1, Ordering::SeqCst);
}

pub(crate) fn concurrent_access_seen(task: &Counts) {
    CONCURRENT_ACCESS.fetch_add(1, Ordering::SeqCst);
    task.concurrent_access.fetch_add(1, Ordering::SeqCst);
}

fn thread_started(task: &Counts) {
    LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
    task.live_threads.fetch_add(1, Ordering::SeqCst);
}

fn thread_ended(task: &Counts) {
    LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
    task.live_threads.fetch_sub(1, Ordering::SeqCst);
}

/// A library thread: counted from spawn until joined.
pub(crate) struct LibraryThread<T> {
    handle: Option<JoinHandle<T>>,
    /// Whose thread it is (counted there too).
    owner: StopSignal,
}

impl<T: Send + 'static> LibraryThread<T> {
    /// Spawns a named thread and counts it as live, also for the task of `owner`.
    pub(crate) fn spawn(
        name: String,
        owner: &StopSignal,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        thread_started(owner.counts());
        match std::thread::Builder::new().name(name).spawn(f) {
            Ok(handle) => Ok(LibraryThread {
                handle: Some(handle),
                owner: owner.clone(),
            }),
            Err(e) => {
                thread_ended(owner.counts());
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
        thread_ended(self.owner.counts());
        result
    }
}

impl<T> Drop for LibraryThread<T> {
    fn drop(&mut self) {
        // Every owner joins explicitly after signalling a stop; this is the backstop that keeps
        // the count honest if an owner is dropped during a panic.
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
            thread_ended(self.owner.counts());
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
