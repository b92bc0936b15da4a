//! MM2's `Scheduler`: one owned thread that runs a task's start-up job once, then its repeating
//! jobs at a fixed rate. Unlike Java's, it is stopped by the task's [`StopSignal`] and joined
//! without a timeout: every job it runs waits only on things a stop wakes, so the join is prompt.
//! A job that panics or fails fatally is logged and recorded as the task's fatal error. A
//! start-up that fails transiently (a cluster unavailable or slow) is retried with a growing
//! backoff until it succeeds, fails fatally or the task stops; meanwhile its reason is the
//! task's retry status. A repeating job that fails transiently runs again at its next time;
//! until one of its runs succeeds, its reason is the jobs' retry status.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_kafka::failure::{RetryStatus, STARTUP};
use mm2_checkpoint_kafka::library_thread::{panic_message, LibraryThread};
use mm2_checkpoint_kafka::mutex::lock;
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// Clients (or anything else) a job still held when the task stopped; the scheduler thread
/// returns them so the stopper closes them only after the join.
pub(crate) type Leftovers = Vec<Box<dyn Send>>;

/// A job's failure.
#[derive(Debug)]
pub(crate) enum JobError {
    /// Logged; the job runs again at its next time.
    Transient(String),
    /// Logged and recorded as the task's fatal error; the scheduler stops running jobs.
    Fatal(String),
    /// The task is stopping.
    Stopped,
}

impl From<Error> for JobError {
    fn from(e: Error) -> Self {
        match e {
            Error::Stopped => JobError::Stopped,
            Error::Config(_)
            | Error::Fatal { .. }
            | Error::Thread(_)
            | Error::InvalidState(_)
            | Error::NotStarted
            | Error::AlreadyStarted
            | Error::AlreadyStopped
            | Error::Busy => JobError::Fatal(e.to_string()),
            other => JobError::Transient(other.to_string()),
        }
    }
}

/// A job run every `interval`, first after `first_delay`.
pub(crate) struct RepeatingJob {
    /// Name for logs.
    pub(crate) name: &'static str,
    /// Period (fixed rate; late runs start late, runs never overlap).
    pub(crate) interval: Duration,
    /// Delay before the first run.
    pub(crate) first_delay: Duration,
    /// The work.
    pub(crate) run: Box<dyn FnMut() -> Result<(), JobError> + Send>,
}

/// The start-up job: returns the repeating jobs to run after it. Runs again after a transient
/// failure, so it must start from scratch each time.
pub(crate) type StartupJob =
    Box<dyn FnMut(&mut Leftovers) -> Result<Vec<RepeatingJob>, JobError> + Send>;

/// First wait before retrying a start-up that failed transiently; doubles up to the maximum.
const STARTUP_BACKOFF_MIN: Duration = Duration::from_millis(500);
const STARTUP_BACKOFF_MAX: Duration = Duration::from_secs(30);

/// A running scheduler thread.
pub(crate) struct Scheduler {
    thread: LibraryThread<Leftovers>,
}

impl Scheduler {
    /// Starts the thread; `startup` runs first, on that thread.
    pub(crate) fn start(
        name: String,
        signal: StopSignal,
        fatal: Arc<Mutex<Option<String>>>,
        retry: RetryStatus,
        jobs_retry: RetryStatus,
        startup: StartupJob,
    ) -> Result<Self, Error> {
        let thread = LibraryThread::spawn(name.clone(), &signal.clone(), move || {
            run(&name, &signal, &fatal, (&retry, &jobs_retry), startup)
        })
        .map_err(|e| Error::Thread(e.to_string()))?;
        Ok(Scheduler { thread })
    }

    /// Joins the thread (call after the stop signal is set) and returns what it left to close.
    pub(crate) fn join(self) -> Leftovers {
        self.thread.join().unwrap_or_else(|panic| {
            log::error!("scheduler thread panicked outside a job: {panic}");
            Vec::new()
        })
    }
}

/// Records the task's fatal error (the first wins) and wakes a poll waiting for start-up, so
/// that it returns Failed at once rather than at its timeout.
pub(crate) fn record_fatal(fatal: &Mutex<Option<String>>, signal: &StopSignal, message: String) {
    log::error!("{message}");
    lock(fatal).get_or_insert(message);
    signal.nudge();
}

/// How one guarded run of a job ended.
enum Ran<T> {
    Done(T),
    /// Failed transiently (already logged); the reason.
    Retry(String),
    /// Stopped, or failed fatally or panicked (already recorded as the task's fatal error).
    End,
}

fn run_guarded<T>(
    scheduler: &str,
    job: &str,
    signal: &StopSignal,
    fatal: &Mutex<Option<String>>,
    f: impl FnOnce() -> Result<T, JobError>,
) -> Ran<T> {
    let started = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(f));
    log::debug!("{scheduler}: {job} took {:?}", started.elapsed());
    match outcome {
        Ok(Ok(v)) => Ran::Done(v),
        Ok(Err(JobError::Stopped)) => Ran::End,
        Ok(Err(JobError::Transient(e))) => {
            log::warn!("{scheduler}: {job} failed, will retry: {e}");
            Ran::Retry(e)
        }
        Ok(Err(JobError::Fatal(e))) => {
            record_fatal(fatal, signal, format!("{scheduler}: {job} failed: {e}"));
            Ran::End
        }
        Err(panic) => {
            record_fatal(
                fatal,
                signal,
                format!("{scheduler}: {job} panicked: {}", panic_message(&*panic)),
            );
            Ran::End
        }
    }
}

/// Runs start-up until it succeeds, retrying transient failures with backoff; `None` when it
/// failed fatally or the task stopped.
fn run_startup(
    name: &str,
    signal: &StopSignal,
    fatal: &Mutex<Option<String>>,
    retry: &RetryStatus,
    mut startup: StartupJob,
    leftovers: &mut Leftovers,
) -> Option<Vec<RepeatingJob>> {
    let mut backoff = STARTUP_BACKOFF_MIN;
    loop {
        match run_guarded(name, STARTUP, signal, fatal, || startup(leftovers)) {
            Ran::Done(jobs) => {
                retry.clear();
                return Some(jobs);
            }
            Ran::End => return None,
            Ran::Retry(reason) => {
                retry.count_retry(STARTUP);
                retry.set(format!(
                    "start-up failed, retrying in {:.1} s: {reason}",
                    backoff.as_secs_f64()
                ));
                // Not stopping: the clients of the failed attempt are this thread's to close.
                leftovers.clear();
                if !signal.sleep(backoff) {
                    return None;
                }
                backoff = (backoff * 2).min(STARTUP_BACKOFF_MAX);
            }
        }
    }
}

fn is_fatal(fatal: &Mutex<Option<String>>) -> bool {
    lock(fatal).is_some()
}

fn run(
    name: &str,
    signal: &StopSignal,
    fatal: &Mutex<Option<String>>,
    (retry, jobs_retry): (&RetryStatus, &RetryStatus),
    startup: StartupJob,
) -> Leftovers {
    let mut leftovers: Leftovers = Vec::new();
    let jobs = run_startup(name, signal, fatal, retry, startup, &mut leftovers);
    let Some(mut jobs) = jobs else {
        return leftovers;
    };
    let now = Instant::now();
    let mut due: Vec<Instant> = jobs.iter().map(|j| now + j.first_delay).collect();
    // Per job, why its last run failed transiently; the first one failing is the status.
    let mut failing: Vec<Option<String>> = vec![None; jobs.len()];
    while !signal.is_stopped() && !is_fatal(fatal) && !jobs.is_empty() {
        let (i, when) = due
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|(i, t)| (*t, *i))
            .unwrap_or((0, Instant::now()));
        let now = Instant::now();
        if when > now && !signal.sleep(when - now) {
            break;
        }
        let job = &mut jobs[i];
        // A transient failure of a repeating job is retried at its next time.
        match run_guarded(name, job.name, signal, fatal, || (job.run)()) {
            Ran::Done(()) => failing[i] = None,
            Ran::Retry(reason) => {
                jobs_retry.count_retry(job.name);
                failing[i] = Some(format!(
                    "{} failed, retrying at its next run: {reason}",
                    job.name
                ))
            }
            Ran::End => {}
        }
        match failing.iter().flatten().next() {
            Some(reason) => jobs_retry.set(reason.clone()),
            None => jobs_retry.clear(),
        }
        // Fixed rate: one interval after this run was due; a late run starts late, never twice.
        due[i] = (when + job.interval).max(Instant::now());
    }
    // The jobs own clients; hand them to the stopper so they close after the join.
    leftovers.push(Box::new(jobs));
    leftovers
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn fatal() -> Arc<Mutex<Option<String>>> {
        Arc::new(Mutex::new(None))
    }

    #[test]
    fn panicking_startup_is_recorded_as_fatal_and_thread_ends() {
        let f = fatal();
        let s = Scheduler::start(
            "t".into(),
            StopSignal::new(),
            Arc::clone(&f),
            RetryStatus::default(),
            RetryStatus::default(),
            Box::new(|_| panic!("boom")),
        )
        .unwrap();
        let _ = s.join();
        assert!(lock(&f).as_deref().unwrap().contains("boom"));
    }

    #[test]
    fn repeating_job_runs_until_stop_and_panics_become_fatal() {
        let f = fatal();
        let signal = StopSignal::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&runs);
        let s = Scheduler::start(
            "t".into(),
            signal.clone(),
            Arc::clone(&f),
            RetryStatus::default(),
            RetryStatus::default(),
            Box::new(move |_| {
                let r = Arc::clone(&r);
                Ok(vec![RepeatingJob {
                    name: "count",
                    interval: Duration::from_millis(1),
                    first_delay: Duration::ZERO,
                    run: Box::new(move || {
                        if r.fetch_add(1, Ordering::SeqCst) == 3 {
                            panic!("fourth run fails");
                        }
                        Ok(())
                    }),
                }])
            }),
        )
        .unwrap();
        let _ = s.join();
        assert_eq!(runs.load(Ordering::SeqCst), 4);
        assert!(lock(&f).as_deref().unwrap().contains("fourth run fails"));
        assert!(!signal.is_stopped());
    }

    #[test]
    fn stop_ends_a_long_wait_between_runs() {
        let signal = StopSignal::new();
        let s = Scheduler::start(
            "t".into(),
            signal.clone(),
            fatal(),
            RetryStatus::default(),
            RetryStatus::default(),
            Box::new(|_| {
                Ok(vec![RepeatingJob {
                    name: "hourly",
                    interval: Duration::from_secs(3600),
                    first_delay: Duration::from_secs(3600),
                    run: Box::new(|| Ok(())),
                }])
            }),
        )
        .unwrap();
        let t = Instant::now();
        signal.stop();
        let leftovers = s.join();
        assert!(t.elapsed() < Duration::from_secs(5));
        assert_eq!(
            leftovers.len(),
            1,
            "the jobs come back to be closed after the join"
        );
    }

    #[test]
    fn transient_startup_failure_is_retried_with_its_reason_visible_until_it_succeeds() {
        let signal = StopSignal::new();
        let retry = RetryStatus::default();
        let attempts = Arc::new(AtomicUsize::new(0));
        let seen_reason = Arc::new(Mutex::new(None));
        let (a, r, seen) = (
            Arc::clone(&attempts),
            retry.clone(),
            Arc::clone(&seen_reason),
        );
        let f = fatal();
        let s = Scheduler::start(
            "t".into(),
            signal.clone(),
            Arc::clone(&f),
            retry.clone(),
            RetryStatus::default(),
            Box::new(move |_| {
                if a.fetch_add(1, Ordering::SeqCst) == 0 {
                    return Err(JobError::Transient("cluster unreachable".into()));
                }
                // The second attempt runs after the backoff, with the first one's reason set.
                *lock(&seen) = r.get();
                Ok(Vec::new())
            }),
        )
        .unwrap();
        let _ = s.join();
        assert_eq!(attempts.load(Ordering::SeqCst), 2);
        let reason = lock(&seen_reason)
            .clone()
            .expect("no retry reason while retrying");
        assert!(reason.contains("cluster unreachable"), "{reason}");
        assert_eq!(retry.get(), None, "reason kept after success");
        assert_eq!(retry.since(), None, "retrying since, after success");
        assert_eq!(retry.retries(STARTUP), 1, "one failed attempt, one retry");
        assert!(lock(&f).is_none());
    }

    #[test]
    fn stop_ends_a_startup_that_keeps_failing_transiently() {
        let signal = StopSignal::new();
        let retry = RetryStatus::default();
        let attempts = Arc::new(AtomicUsize::new(0));
        let a = Arc::clone(&attempts);
        let stopper = signal.clone();
        let s = Scheduler::start(
            "t".into(),
            signal.clone(),
            fatal(),
            retry.clone(),
            RetryStatus::default(),
            Box::new(move |_| {
                // The third attempt stops the task: the backoff sleep after it must end at once.
                if a.fetch_add(1, Ordering::SeqCst) == 2 {
                    stopper.stop();
                }
                Err(JobError::Transient("down".into()))
            }),
        )
        .unwrap();
        let _ = s.join();
        assert_eq!(attempts.load(Ordering::SeqCst), 3);
        assert!(retry.get().unwrap().contains("down"));
        assert_eq!(retry.retries(STARTUP), 3);
        assert!(retry.since().is_some());
    }

    #[test]
    fn a_repeating_jobs_transient_failure_is_the_jobs_retry_status_until_a_run_succeeds() {
        let signal = StopSignal::new();
        let jobs_retry = RetryStatus::default();
        // What the status said as each run began.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (stopper, status, log) = (signal.clone(), jobs_retry.clone(), Arc::clone(&seen));
        let s = Scheduler::start(
            "t".into(),
            signal.clone(),
            fatal(),
            RetryStatus::default(),
            jobs_retry.clone(),
            Box::new(move |_| {
                let (stopper, status, log) = (stopper.clone(), status.clone(), Arc::clone(&log));
                Ok(vec![RepeatingJob {
                    name: "refresh",
                    interval: Duration::from_millis(1),
                    first_delay: Duration::ZERO,
                    run: Box::new(move || {
                        let mut log = lock(&log);
                        log.push(status.get());
                        match log.len() {
                            1 => Err(JobError::Transient("cluster unreachable".into())),
                            2 => Ok(()),
                            _ => {
                                stopper.stop();
                                Ok(())
                            }
                        }
                    }),
                }])
            }),
        )
        .unwrap();
        let _ = s.join();
        let seen = lock(&seen).clone();
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert_eq!(seen[0], None);
        let reason = seen[1].clone().unwrap_or_default();
        assert!(
            reason.starts_with("refresh failed, retrying at its next run:")
                && reason.contains("cluster unreachable"),
            "{reason}"
        );
        assert_eq!(seen[2], None, "not cleared by the successful run");
        assert_eq!(jobs_retry.retries("refresh"), 1);
        assert_eq!(jobs_retry.retries("another job"), 0);
    }
}
