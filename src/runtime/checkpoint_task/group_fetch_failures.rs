//! What a failed fetch of one group's committed offsets does to the task, wherever it happens
//! (checkpoint cycle, group discovery, group offset sync), and the per-group retry reasons.
//!
//! Classified as every Kafka failure is (kafka/failure.rs), with one exception: a group's own
//! ACL (GROUP_AUTHORIZATION_FAILED) denies only that group, so the group is logged, counted and
//! skipped while the others go on, as Java's task does. Any other failure retrying cannot fix
//! (authentication, TLS, a cluster-wide denial) ends the task. Everything else (a coordinator
//! loading or moving, a timeout, the network) is retried at the job's next run, its reason
//! visible in the task's retry reason until that group's offsets are fetched again.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mm2_checkpoint_kafka::ErrorCode;

use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_kafka::admin::request_failed;
use mm2_checkpoint_kafka::librdkafka::NativeError;
use mm2_checkpoint_kafka::mutex::lock;

/// Which job fetched the offsets; each job replaces its own retry reasons at every run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum FetchJob {
    /// The checkpoint cycle (source groups).
    Cycle,
    /// Group discovery (source groups not yet adopted).
    Discovery,
    /// The group offset sync (target groups).
    OffsetSync,
}

impl FetchJob {
    fn next_run(self) -> &'static str {
        match self {
            FetchJob::Cycle => "at the next checkpoint cycle",
            FetchJob::Discovery => "at the next group refresh",
            FetchJob::OffsetSync => "at the next group offset sync",
        }
    }
}

/// What one group's failed fetch means.
#[derive(Debug)]
pub(super) enum GroupFailure {
    /// Retrying can fix it: the group is tried again at the job's next run.
    Retry(String),
    /// The group's own ACL denies us: the group is skipped (logged and counted).
    Denied(String),
    /// Retrying cannot fix it and it is not confined to the group: the task ends.
    Fatal(Error),
}

/// Classifies the failure `e` of fetching `group`'s committed offsets on `cluster`.
pub(super) fn classify(cluster: &str, group: &str, e: &NativeError) -> GroupFailure {
    let context = format!("fetching committed offsets of group `{group}` on `{cluster}`");
    match request_failed(context, e) {
        denied @ Error::Fatal { .. } if e.code == ErrorCode::GroupAuthorizationFailed => {
            GroupFailure::Denied(denied.to_string())
        }
        fatal @ Error::Fatal { .. } => GroupFailure::Fatal(fatal),
        retried => GroupFailure::Retry(retried.to_string()),
    }
}

/// Per job, the groups whose last fetch failed retriably and why; and how many group fetches
/// were denied by a group ACL so far.
#[derive(Default)]
pub(super) struct GroupRetries {
    reasons: Mutex<BTreeMap<FetchJob, BTreeMap<String, String>>>,
    denied: AtomicU64,
    /// Group fetches that failed and wait for a retry, so far.
    retried: AtomicU64,
    /// Since when some group has been waiting for a retry without interruption.
    since: Mutex<Option<Instant>>,
}

/// Collects one job run's failures; [`GroupRetries::finish`] publishes them.
#[derive(Default)]
pub(super) struct RunFailures {
    retries: BTreeMap<String, String>,
}

impl RunFailures {
    /// Handles `group`'s failure: logs it, and returns the task-ending error if it is one.
    pub(super) fn note(
        &mut self,
        job: FetchJob,
        retries: &GroupRetries,
        group: &str,
        failure: GroupFailure,
    ) -> Result<(), Error> {
        match failure {
            GroupFailure::Retry(why) => {
                retries.retried.fetch_add(1, Ordering::SeqCst);
                log::warn!("{why}; will retry {}", job.next_run());
                self.retries.insert(group.to_string(), why);
                Ok(())
            }
            GroupFailure::Denied(why) => {
                retries.denied.fetch_add(1, Ordering::SeqCst);
                log::error!(
                    "{why}; this group is skipped and tried again {}",
                    job.next_run()
                );
                Ok(())
            }
            GroupFailure::Fatal(e) => Err(e),
        }
    }
}

impl GroupRetries {
    /// Replaces `job`'s retry reasons with those of the run that just ended: a group fetched
    /// this time (or no longer fetched) has none any more.
    pub(super) fn finish(&self, job: FetchJob, run: RunFailures) {
        let mut reasons = lock(&self.reasons);
        if run.retries.is_empty() {
            reasons.remove(&job);
        } else {
            reasons.insert(job, run.retries);
        }
        let mut since = lock(&self.since);
        if reasons.is_empty() {
            *since = None;
        } else {
            since.get_or_insert_with(Instant::now);
        }
    }

    /// Whether `job`'s last run left some group waiting for a retry.
    pub(super) fn has_retries(&self, job: FetchJob) -> bool {
        lock(&self.reasons).contains_key(&job)
    }

    /// Group fetches that failed for a reason retrying can fix, so far.
    pub(super) fn retried(&self) -> u64 {
        self.retried.load(Ordering::SeqCst)
    }

    /// Since when some group has been waiting for a retry; `None` while none is.
    pub(super) fn since(&self) -> Option<Instant> {
        *lock(&self.since)
    }

    /// Group fetches denied by a group's ACL so far.
    pub(super) fn denied(&self) -> u64 {
        self.denied.load(Ordering::SeqCst)
    }

    /// One line for the retry reason: the first failing group of each job and how many more,
    /// or `None` when no group is waiting for a retry.
    pub(super) fn summary(&self) -> Option<String> {
        let reasons = lock(&self.reasons);
        let parts: Vec<String> = reasons
            .iter()
            .filter_map(|(job, groups)| {
                let (_, why) = groups.iter().next()?;
                let more = match groups.len() - 1 {
                    0 => String::new(),
                    1 => " (and 1 more group)".to_string(),
                    n => format!(" (and {n} more groups)"),
                };
                Some(format!("{why}; retrying {}{more}", job.next_run()))
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(code: ErrorCode) -> NativeError {
        NativeError {
            code,
            message: format!("{code}"),
        }
    }

    #[test]
    fn a_group_acl_denial_skips_the_group_and_other_unfixable_failures_end_the_task() {
        use ErrorCode as C;
        let class = |code| match classify("A", "g", &native(code)) {
            GroupFailure::Retry(_) => "retry",
            GroupFailure::Denied(_) => "denied",
            GroupFailure::Fatal(_) => "fatal",
        };
        assert_eq!(class(C::GroupAuthorizationFailed), "denied");
        assert_eq!(class(C::Authentication), "fatal");
        assert_eq!(class(C::SSL), "fatal");
        assert_eq!(class(C::ClusterAuthorizationFailed), "fatal");
        assert_eq!(class(C::CoordinatorLoadInProgress), "retry");
        assert_eq!(class(C::CoordinatorNotAvailable), "retry");
        assert_eq!(class(C::NotCoordinator), "retry");
        assert_eq!(class(C::RequestTimedOut), "retry");
        assert_eq!(class(C::BrokerTransportFailure), "retry");
    }

    #[test]
    fn a_retry_reason_lasts_until_the_jobs_next_run_fetches_the_group() {
        let retries = GroupRetries::default();
        let mut run = RunFailures::default();
        for g in ["a", "b"] {
            let failure = classify("A", g, &native(ErrorCode::CoordinatorLoadInProgress));
            run.note(FetchJob::Cycle, &retries, g, failure).unwrap();
        }
        retries.finish(FetchJob::Cycle, run);
        assert_eq!(retries.retried(), 2);
        let began = retries.since().expect("retrying");
        let reason = retries.summary().expect("a reason");
        assert!(reason.contains("group `a` on `A`"), "{reason}");
        assert!(reason.contains("CoordinatorLoadInProgress"), "{reason}");
        assert!(reason.contains("(and 1 more group)"), "{reason}");
        // Another job's clean run leaves the cycle's reasons alone; the cycle's own clears them.
        retries.finish(FetchJob::Discovery, RunFailures::default());
        assert!(retries.summary().is_some());
        assert_eq!(retries.since(), Some(began), "still the same episode");
        retries.finish(FetchJob::Cycle, RunFailures::default());
        assert_eq!(retries.summary(), None);
        assert_eq!(retries.since(), None);
        assert_eq!(retries.retried(), 2, "a count, not a state");
    }

    #[test]
    fn a_denied_group_is_counted_and_is_no_retry_reason() {
        let retries = GroupRetries::default();
        let mut run = RunFailures::default();
        let failure = classify("A", "g", &native(ErrorCode::GroupAuthorizationFailed));
        run.note(FetchJob::Cycle, &retries, "g", failure).unwrap();
        retries.finish(FetchJob::Cycle, run);
        assert_eq!(retries.denied(), 1);
        assert_eq!(retries.summary(), None);
        let fatal = classify("A", "g", &native(ErrorCode::Authentication));
        let mut run = RunFailures::default();
        assert!(matches!(
            run.note(FetchJob::Cycle, &retries, "g", fatal),
            Err(Error::Fatal { .. })
        ));
    }
}
