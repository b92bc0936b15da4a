//! Which task the current thread works for. A task's own calls (start, poll, stop) run in its
//! scope, and every library thread takes the scope of the thread that spawned it; so a log
//! record, librdkafka's relayed lines included, can be attributed to its task
//! ([`current_task_id`]) by a logger that serves several tasks.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// The next task id; ids start at 1, so 0 means "no task".
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// A new task id: unique in the process, never 0.
pub fn new_task_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// The id of the task the calling thread works for (its threads, and its calls while they run),
/// or 0 when none: what a `log` logger calls to tell which task a record comes from.
pub fn current_task_id() -> u64 {
    CURRENT.with(Cell::get)
}

/// The current thread works for a task until this is dropped, which restores the scope before.
pub struct TaskScope {
    previous: u64,
    /// Dropped on the thread that entered it.
    _not_send: PhantomData<*const ()>,
}

impl TaskScope {
    /// Enters the scope of task `id` on the calling thread.
    pub fn enter(id: u64) -> Self {
        TaskScope {
            previous: CURRENT.with(|c| c.replace(id)),
            _not_send: PhantomData,
        }
    }
}

impl Drop for TaskScope {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore_and_a_thread_starts_in_none() {
        assert_eq!(current_task_id(), 0);
        let a = new_task_id();
        let b = new_task_id();
        assert!(a != 0 && b != a);
        {
            let _outer = TaskScope::enter(a);
            assert_eq!(current_task_id(), a);
            {
                let _inner = TaskScope::enter(b);
                assert_eq!(current_task_id(), b);
                std::thread::spawn(|| assert_eq!(current_task_id(), 0))
                    .join()
                    .unwrap();
            }
            assert_eq!(current_task_id(), a);
        }
        assert_eq!(current_task_id(), 0);
    }
}
