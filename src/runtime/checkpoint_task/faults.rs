//! Fault injection for the tests of the failure paths (feature `internals` only): a test arms a
//! fault, and the task meets it the next time it gets to that point: a panic, or a request that
//! fails with a given librdkafka error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rdkafka::error::RDKafkaErrorCode;

use crate::kafka::librdkafka::NativeError;
use crate::kafka::stop_signal::lock;

/// Where an armed fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The offset-syncs tail thread panics at its next round.
    TailPanics,
    /// The thread inside [`poll`](super::CheckpointTask::poll) panics just before its next cycle.
    PollPanics,
    /// The next listing of the source's consumer groups (start-up's discovery or a periodic
    /// refresh) fails with this error, as if the broker or librdkafka had answered so.
    GroupListingFails(RDKafkaErrorCode),
    /// At the next discovery that fetches offsets, the first group fetched (in name order)
    /// gets this error instead of its offsets, as a group whose ACL denies us would.
    GroupOffsetsFail(RDKafkaErrorCode),
}

#[derive(Default)]
pub(super) struct Faults {
    tail: AtomicBool,
    poll: AtomicBool,
    group_listing: Mutex<Option<RDKafkaErrorCode>>,
    group_offsets: Mutex<Option<RDKafkaErrorCode>>,
}

impl Faults {
    fn flag(&self, fault: Fault) -> Option<&AtomicBool> {
        match fault {
            Fault::TailPanics => Some(&self.tail),
            Fault::PollPanics => Some(&self.poll),
            Fault::GroupListingFails(_) | Fault::GroupOffsetsFail(_) => None,
        }
    }

    pub(super) fn arm(&self, fault: Fault) {
        match fault {
            Fault::GroupListingFails(code) => *lock(&self.group_listing) = Some(code),
            Fault::GroupOffsetsFail(code) => *lock(&self.group_offsets) = Some(code),
            other => {
                if let Some(flag) = self.flag(other) {
                    flag.store(true, Ordering::SeqCst);
                }
            }
        }
    }

    /// Panics once if `fault` is armed.
    pub(super) fn hit(&self, fault: Fault) {
        if self
            .flag(fault)
            .is_some_and(|flag| flag.swap(false, Ordering::SeqCst))
        {
            panic!("injected fault: {fault:?}");
        }
    }

    /// The error the next group listing fails with, once, if one is armed.
    pub(super) fn group_listing_error(&self) -> Option<NativeError> {
        lock(&self.group_listing).take().map(|code| NativeError {
            code,
            message: format!("injected fault: {code}"),
        })
    }

    /// The error one group's offset fetch fails with, once, if one is armed.
    pub(super) fn group_offsets_error(&self) -> Option<NativeError> {
        lock(&self.group_offsets).take().map(|code| NativeError {
            code,
            message: format!("injected fault: {code}"),
        })
    }
}
