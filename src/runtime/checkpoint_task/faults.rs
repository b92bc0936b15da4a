//! Fault injection for the tests of the failure paths: a test arms a fault (feature `internals`
//! only; without it nothing can be armed and every check below finds nothing), and the task
//! meets it the next time it gets to that point: a panic, or a request that fails with a given
//! librdkafka error.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use mm2_checkpoint_kafka::ErrorCode;

use mm2_checkpoint_kafka::librdkafka::NativeError;
use mm2_checkpoint_kafka::mutex::lock;

/// Where an armed fault strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub enum Fault {
    /// The offset-syncs tail thread panics at its next round.
    TailPanics,
    /// The thread inside [`poll`](super::CheckpointTask::poll) panics just before its next cycle.
    PollPanics,
    /// The next listing of the source's consumer groups (start-up's discovery or a periodic
    /// refresh) fails with this error, as if the broker or librdkafka had answered so.
    GroupListingFails(ErrorCode),
    /// At the next discovery that fetches offsets, the first group fetched (in name order)
    /// gets this error instead of its offsets, as a group whose ACL denies us would.
    GroupOffsetsFail(ErrorCode),
    /// At the next checkpoint cycle, the first group fetched (in the cycle's order) gets this
    /// error instead of its offsets, as if its coordinator or its ACL had answered so.
    CycleGroupOffsetsFail(ErrorCode),
    /// At the next group offset sync, the first target group whose committed offsets it reads
    /// (in name order; only groups the target describes as empty are read) gets this error
    /// instead of its offsets, as if the target's coordinator or the group's ACL had answered so.
    SyncGroupOffsetsFail(ErrorCode),
}

/// The points where an armed error replaces a broker's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ErrorPoint {
    /// A group listing ([`Fault::GroupListingFails`]).
    GroupListing,
    /// One group's offsets in a discovery ([`Fault::GroupOffsetsFail`]).
    DiscoveryGroupOffsets,
    /// One group's offsets in a checkpoint cycle ([`Fault::CycleGroupOffsetsFail`]).
    CycleGroupOffsets,
    /// One target group's offsets in a group offset sync ([`Fault::SyncGroupOffsetsFail`]).
    SyncGroupOffsets,
}

#[derive(Default)]
pub(super) struct Faults {
    tail: AtomicBool,
    poll: AtomicBool,
    errors: Mutex<BTreeMap<ErrorPoint, ErrorCode>>,
}

impl Faults {
    fn flag(&self, fault: Fault) -> Option<&AtomicBool> {
        match fault {
            Fault::TailPanics => Some(&self.tail),
            Fault::PollPanics => Some(&self.poll),
            _ => None,
        }
    }

    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub(super) fn arm(&self, fault: Fault) {
        let point = match fault {
            Fault::GroupListingFails(code) => Some((ErrorPoint::GroupListing, code)),
            Fault::GroupOffsetsFail(code) => Some((ErrorPoint::DiscoveryGroupOffsets, code)),
            Fault::CycleGroupOffsetsFail(code) => Some((ErrorPoint::CycleGroupOffsets, code)),
            Fault::SyncGroupOffsetsFail(code) => Some((ErrorPoint::SyncGroupOffsets, code)),
            Fault::TailPanics | Fault::PollPanics => None,
        };
        match point {
            Some((point, code)) => {
                lock(&self.errors).insert(point, code);
            }
            None => {
                if let Some(flag) = self.flag(fault) {
                    flag.store(true, Ordering::SeqCst);
                }
            }
        }
    }

    /// Panics once if `fault` is armed.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub(super) fn hit(&self, fault: Fault) {
        if self
            .flag(fault)
            .is_some_and(|flag| flag.swap(false, Ordering::SeqCst))
        {
            panic!("injected fault: {fault:?}");
        }
    }

    /// The error armed for `point`, once; `None` when none is (always, without `internals`).
    pub(super) fn injected_error(&self, point: ErrorPoint) -> Option<NativeError> {
        lock(&self.errors).remove(&point).map(|code| NativeError {
            code,
            message: format!("injected fault: {code}"),
        })
    }
}
