//! A wait that goes on too long: a hung broker or a stalled network answers nothing, and
//! librdkafka says so only when its own timeout ends the request. Past a threshold the caller
//! warns, and the wait is a retry reason (its seconds counted from the wait's start, as of each
//! reading) until it ends. One watch for the admin client's requests, the reads of internal
//! topics to their end and the checkpoint writes; each says in its own words what waits.

use std::time::{Duration, Instant};

use crate::failure::RetryStatus;

/// The longest a wait goes unreported.
const REPORTED_AFTER: Duration = Duration::from_secs(10);

/// How long a wait bounded by `timeout` may go before it is reported: [`REPORTED_AFTER`], or a
/// third of `timeout` when that is shorter, so that it is said well before the timeout ends it.
pub fn threshold(timeout: Duration) -> Duration {
    REPORTED_AFTER.min(timeout / 3)
}

/// One wait at a time: [`end`](Self::end) closes it and starts the next.
#[derive(Debug)]
pub struct SlowWait {
    after: Duration,
    /// When the wait began: what its reported seconds count from.
    began: Instant,
    /// What the threshold is measured from: the start, or the last thing heard that was not
    /// progress (an error, which is reported on its own).
    quiet_since: Instant,
    /// Whether the wait was reported and is still the reason.
    told: bool,
}

impl SlowWait {
    /// A wait starting now, due to be reported after `after` (see [`threshold`]).
    pub fn new(after: Duration) -> Self {
        let now = Instant::now();
        SlowWait {
            after,
            began: now,
            quiet_since: now,
            told: false,
        }
    }

    /// When the report falls due, while it has not been made.
    pub fn due_at(&self) -> Option<Instant> {
        (!self.told).then_some(self.quiet_since + self.after)
    }

    /// Whether the wait passed its threshold and was not reported yet: the caller warns, then
    /// [`tell`](Self::tell)s.
    pub fn is_due(&self) -> bool {
        !self.told && self.quiet_since.elapsed() >= self.after
    }

    /// Seconds since the wait began.
    pub fn seconds(&self) -> f64 {
        self.began.elapsed().as_secs_f64()
    }

    /// Marks the wait reported and, with a `status`, makes it the retry reason: `head`, the
    /// seconds since the wait began (counted as of each reading), `tail`.
    pub fn tell(
        &mut self,
        status: Option<&RetryStatus>,
        head: impl FnOnce() -> String,
        tail: &str,
    ) {
        self.told = true;
        if let Some(status) = status {
            status.set_counting_from(self.began, head(), tail.to_string());
        }
    }

    /// Something other than progress was heard (an error, which sets its own reason): the
    /// threshold counts again from now, and a later silence is reported anew; the seconds still
    /// count from the wait's start.
    pub fn heard(&mut self) {
        self.quiet_since = Instant::now();
        self.told = false;
    }

    /// The wait ended (answered, progressed, failed or stopped). When it had been reported, the
    /// reason goes and its duration in seconds is returned for the caller's "ended" line. The
    /// next wait starts now.
    pub fn end(&mut self, status: Option<&RetryStatus>) -> Option<f64> {
        let told = std::mem::replace(&mut self.told, false);
        let seconds = self.seconds();
        let now = Instant::now();
        self.began = now;
        self.quiet_since = now;
        if !told {
            return None;
        }
        if let Some(status) = status {
            status.clear();
        }
        Some(seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_ten_seconds_or_a_third_of_the_timeout() {
        assert_eq!(threshold(Duration::from_secs(60)), Duration::from_secs(10));
        assert_eq!(threshold(Duration::from_secs(3)), Duration::from_secs(1));
    }

    #[test]
    fn a_wait_is_due_once_past_its_threshold_and_told_once() {
        let mut wait = SlowWait::new(Duration::ZERO);
        assert!(wait.is_due());
        let status = RetryStatus::default();
        wait.tell(Some(&status), || "cluster `A`: no answer for ".into(), " s");
        assert!(!wait.is_due());
        assert_eq!(wait.due_at(), None);
        let reason = status.get().expect("a reason while the wait lasts");
        assert!(
            reason.starts_with("cluster `A`: no answer for "),
            "{reason}"
        );
        assert!(wait.end(Some(&status)).is_some());
        assert_eq!(status.get(), None, "the reason outlived the wait");
        assert!(
            wait.end(Some(&status)).is_none(),
            "an untold wait ends silently"
        );
    }

    #[test]
    fn something_heard_restarts_the_threshold_but_not_the_count() {
        let mut wait = SlowWait::new(Duration::from_secs(3600));
        let began = wait.began;
        assert!(!wait.is_due());
        wait.told = true;
        wait.heard();
        assert!(!wait.told, "a later silence is reported anew");
        assert_eq!(wait.began, began);
        assert!(wait.due_at().is_some_and(|due| due >= began + wait.after));
    }
}
