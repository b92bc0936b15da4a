//! Fault injection for the tests of the failure paths (feature `internals` only): a test arms a
//! fault, and the task panics at that point the next time it gets there.

use std::sync::atomic::{AtomicBool, Ordering};

/// Where an armed fault panics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The offset-syncs tail thread, at its next round.
    TailPanics,
    /// The thread inside [`poll`](super::CheckpointTask::poll), just before its next cycle.
    PollPanics,
}

#[derive(Default)]
pub(super) struct Faults {
    tail: AtomicBool,
    poll: AtomicBool,
}

impl Faults {
    fn flag(&self, fault: Fault) -> &AtomicBool {
        match fault {
            Fault::TailPanics => &self.tail,
            Fault::PollPanics => &self.poll,
        }
    }

    pub(super) fn arm(&self, fault: Fault) {
        self.flag(fault).store(true, Ordering::SeqCst);
    }

    /// Panics once if `fault` is armed.
    pub(super) fn hit(&self, fault: Fault) {
        if self.flag(fault).swap(false, Ordering::SeqCst) {
            panic!("injected fault: {fault:?}");
        }
    }
}
