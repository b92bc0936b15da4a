//! The one way this crate takes a mutex. A leaf module, so that every other one can use it
//! without depending on more than this.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex, ignoring poisoning: the data behind our locks stays consistent across a
/// panicking holder (each update is a single assignment or insert).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
