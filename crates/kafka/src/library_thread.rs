//! Library threads, counted as live from spawn until joined (in the whole process and for the
//! task whose stop signal owns them), each working for the task its spawner worked for, and the
//! text of a panic one of them ended with.

use std::thread::JoinHandle;

use crate::diagnostics::{thread_ended, thread_started};
use crate::stop_signal::StopSignal;
use crate::task_scope::{current_task_id, TaskScope};

/// A library thread: counted from spawn until joined.
pub struct LibraryThread<T> {
    handle: Option<JoinHandle<T>>,
    /// Whose thread it is (counted there too).
    owner: StopSignal,
}

impl<T: Send + 'static> LibraryThread<T> {
    /// Spawns a named thread and counts it as live, also for the task of `owner`. The thread
    /// works for the task the calling thread works for (its log records name that task).
    pub fn spawn(
        name: String,
        owner: &StopSignal,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        thread_started(owner.counts());
        let task = current_task_id();
        let body = move || {
            let _scope = TaskScope::enter(task);
            f()
        };
        match std::thread::Builder::new().name(name).spawn(body) {
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
    pub fn join(mut self) -> Result<T, String> {
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
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
