//! Counters that prove there are no leaks and no shared clients: live Kafka clients, live
//! library threads, and overlapping client calls seen by the access checker. Kept process-wide
//! and per task (per stop signal), so that tests running tasks in parallel can each check their
//! own.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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
pub struct Counts {
    live_clients: AtomicUsize,
    live_threads: AtomicUsize,
    concurrent_access: AtomicU64,
}

impl Counts {
    /// The counts as they are now.
    pub fn snapshot(&self) -> Diagnostics {
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

pub(crate) fn thread_started(task: &Counts) {
    LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
    task.live_threads.fetch_add(1, Ordering::SeqCst);
}

pub(crate) fn thread_ended(task: &Counts) {
    LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
    task.live_threads.fetch_sub(1, Ordering::SeqCst);
}
