//! Admin requests the checkpoint task needs (group offsets, group states, group listing, topic
//! creation), submitted on a private queue so that a stop can wake the wait for their results.
//! Committed-offset fetches are batched: librdkafka takes one group per request, so up to
//! `max_in_flight` requests are kept outstanding at once.
//!
//! Requests to a group's coordinator (committed offsets, offset commits, group descriptions) are
//! never left to time out inside librdkafka: librdkafka 2.12 aborts the process
//! (`rd_kafka_enq_once_del_source_return: Assertion 'eonce->refcnt > 0'`) when such a request
//! times out while it still waits for its coordinator's connection and that connection comes up
//! later, as after a coordinator's broker dies and another takes over. They are submitted with
//! librdkafka's longest timeout instead, the wait for them is bounded here, and a handle with a
//! request given up on is replaced (destroying a handle ends its pending requests safely).
//!
//! A handle is also replaced when a group's coordinator moved (`NotCoordinator`,
//! `CoordinatorNotAvailable`): librdkafka's admin requests keep asking the coordinator in their
//! handle's cache, which a broker that is still up but no longer the coordinator (after a
//! preferred leader election of `__consumer_offsets`) never corrects, and each use keeps the
//! entry from expiring. A new handle looks the coordinator up again, as Java's admin client does
//! on these errors.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use rdkafka::client::{Client, ClientContext};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

use super::client_log::ClientLog;
use super::{consumer_client, unjoined_group_config, WakeableClient};
use crate::failure::{self, RetryStatus};
use crate::librdkafka::{
    self, batch, AdminOutcome, GroupDescription, GroupOffsets, NativeError, QueueHandle,
};
use crate::slow_wait::{self, SlowWait};
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::checkpoint_rules::CommittedOffset;
use mm2_checkpoint_core::error::Error;
use mm2_checkpoint_core::mirror_checkpoint_config::ClientUse;
use mm2_checkpoint_core::topic_partition::TopicPartition;

/// A group's committed offsets: partition → offset (`None` = no commit), or why none came back
/// (with librdkafka's code, for [`failure::classify`]).
pub type GroupOffsetsResult =
    Result<BTreeMap<TopicPartition, Option<CommittedOffset>>, NativeError>;

/// A request that failed as a whole, classified as every Kafka failure is (kafka/failure.rs):
/// authentication, authorization and the like are fatal, the rest retriable.
pub fn request_failed(context: String, e: &NativeError) -> Error {
    failure::kafka_error(context, e.code, &e.message)
}

/// The error of a group-offsets answer the library cannot read (never a broker's verdict).
fn unreadable(what: String) -> NativeError {
    NativeError {
        code: rdkafka::error::RDKafkaErrorCode::Fail,
        message: what,
    }
}

/// Longest wait for a CreateTopics answer.
const TOPIC_CREATION_TIMEOUT: Duration = Duration::from_secs(10);

/// How topic creation ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopicCreation {
    /// Created now.
    Created,
    /// Already there.
    Exists,
    /// The broker cannot create topics through the API (e.g. an embedded mock cluster); MM2
    /// then assumes the topic exists.
    Skipped(String),
    /// The broker's authorizer denied it (no CREATE ACL on the topic or the cluster); MM2 also
    /// assumes the topic exists then. The broker's error.
    Denied(String),
}

/// What coordinator requests are submitted with as librdkafka's own timeout: the longest its
/// `request_timeout` option takes. The wait for them is bounded by the handle's request timeout,
/// and a handle with a request given up on is replaced long before this passes.
const COORDINATOR_REQUEST_LIMIT: Duration = Duration::from_secs(3600);

/// A request's wait for its answer, reported naming the cluster and the call it waits on.
struct SlowAnswer(SlowWait);

impl SlowAnswer {
    fn new(request_timeout: Duration) -> Self {
        SlowAnswer(SlowWait::new(slow_wait::threshold(request_timeout)))
    }

    /// When the warning is due, if it has not gone out yet.
    fn due(&self) -> Option<Instant> {
        self.0.due_at()
    }

    /// Warns (once) when the wait passed its threshold: which cluster, which call, how long;
    /// and, with a `status`, makes it the retry reason while it lasts.
    fn check(&mut self, cluster: &str, call: &dyn Fn() -> String, status: Option<&RetryStatus>) {
        if !self.0.is_due() {
            return;
        }
        let call = call();
        log::warn!(
            "cluster `{cluster}`: no answer to {call} for {:.1} s; still waiting",
            self.0.seconds()
        );
        self.0.tell(
            status,
            || format!("cluster `{cluster}`: no answer to {call} for "),
            " s",
        );
    }

    /// The wait ended (answered, failed or given up): the reason goes, and the watch starts
    /// again for the next wait.
    fn end(&mut self, cluster: &str, status: Option<&RetryStatus>) {
        if let Some(seconds) = self.0.end(status) {
            log::info!("cluster `{cluster}`: the slow request ended after {seconds:.1} s");
        }
    }
}

/// An admin connection to one cluster.
///
/// The handle is a consumer-type client whose consumer group is closed as soon as it exists,
/// never joined. librdkafka (2.12, confluentinc/librdkafka#5040) answers a group-level `NotCoordinator` or
/// `CoordinatorNotAvailable` in a committed-offsets fetch by queueing a coordinator query on the
/// handle's consumer group; a handle without one (a producer, as admin clients usually are)
/// dereferences NULL on librdkafka's own thread and takes the process down, which a broker
/// restart is enough to trigger. A closed group drops that query.
pub struct Admin {
    handle: WakeableClient<Client<ClientLog>>,
    /// What the handle was made from, to replace it.
    settings: BTreeMap<String, String>,
    role: &'static str,
    /// A coordinator request on the handle was given up on: the handle is replaced.
    gave_up: bool,
    /// A group's coordinator moved: the handle (its coordinator cache) is replaced before the
    /// next request.
    coordinator_moved: bool,
    /// Handles replaced so far.
    replaced: u64,
    signal: StopSignal,
    request_timeout: Duration,
    next_tag: u64,
    cluster: String,
    /// When set, no wait goes past it (callers with one overall time budget).
    deadline: Option<Instant>,
    /// The most committed-offset requests ever outstanding at once on this handle.
    max_in_flight_seen: usize,
    /// Where a request left unanswered past its threshold ([`slow_wait::threshold`] of the
    /// request timeout) is reported, when set.
    slow_status: Option<RetryStatus>,
}

/// Committed-offset answers that mean "ask the group's coordinator again": it moved, is
/// starting, or is loading the group. Java's admin client retries these within its API timeout.
fn coordinator_not_ready(e: &NativeError) -> bool {
    use rdkafka::error::RDKafkaErrorCode as C;
    matches!(
        e.code,
        C::NotCoordinator | C::CoordinatorNotAvailable | C::CoordinatorLoadInProgress
    )
}

/// Answers that say the group's coordinator is elsewhere now: its broker is up, so librdkafka
/// keeps the cached coordinator (see the module's comment).
fn coordinator_moved(e: &NativeError) -> bool {
    use rdkafka::error::RDKafkaErrorCode as C;
    matches!(e.code, C::NotCoordinator | C::CoordinatorNotAvailable)
}

/// Wait before asking again after the `attempt`-th coordinator answer (1-based): Java's
/// `retry.backoff.ms` (100 ms), doubling, at most its `retry.backoff.max.ms` (1 s).
fn coordinator_backoff(attempt: u32) -> Duration {
    Duration::from_millis(
        100u64
            .saturating_mul(1 << attempt.saturating_sub(1).min(4))
            .min(1000),
    )
}

/// One committed-offset request of [`Admin::each_group_offsets`]: for which group (its index),
/// which try it is (1-based), and when the group's first try was sent, which bounds its retries.
#[derive(Clone, Copy, Debug)]
struct Attempt {
    group: usize,
    number: u32,
    first_sent: Instant,
    /// When this try was sent.
    sent: Instant,
}

impl Attempt {
    fn first(group: usize, now: Instant) -> Attempt {
        Attempt {
            group,
            number: 1,
            first_sent: now,
            sent: now,
        }
    }

    /// The try after this one, for the same group.
    fn next(self) -> Attempt {
        Attempt {
            number: self.number + 1,
            ..self
        }
    }
}

/// Opens an admin handle: a consumer-type client whose group is closed at once (see [`Admin`]),
/// with its private result queue registered with the stop signal.
fn open_handle(
    settings: &BTreeMap<String, String>,
    cluster: &str,
    role: &'static str,
    signal: &StopSignal,
) -> Result<WakeableClient<Client<ClientLog>>, Error> {
    let creating = || format!("creating the {role} for cluster `{cluster}`");
    // The group only has to exist (see the type's comment); it is closed below, before
    // librdkafka has a broker to look its coordinator up on.
    let config = unjoined_group_config(settings, ClientUse::Admin, role);
    let client = consumer_client(&config, settings, creating, |_| {})?;
    librdkafka::close_unused_group(&client)
        .map_err(|e| Error::kafka(format!("closing the unused group of the {role}"), e))?;
    Ok(WakeableClient::new(client, role, signal, |h, grant| {
        Some(QueueHandle::new_queue(h, grant))
    })
    .ok_or_else(|| Error::kafka(format!("creating the {role}"), "no admin queue"))?
    .with_events(batch::main_queue))
}

impl Admin {
    /// Creates the admin handle (no blocking I/O).
    pub fn open(
        settings: &BTreeMap<String, String>,
        cluster: &str,
        role: &'static str,
        request_timeout: Duration,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let handle = open_handle(settings, cluster, role, signal)?;
        Ok(Admin {
            handle,
            settings: settings.clone(),
            role,
            gave_up: false,
            coordinator_moved: false,
            replaced: 0,
            signal: signal.clone(),
            request_timeout,
            next_tag: 1,
            cluster: cluster.to_string(),
            deadline: None,
            max_in_flight_seen: 0,
            slow_status: None,
        })
    }

    /// Caps every later wait at `deadline`: a call that would wait longer fails with
    /// [`Error::TimedOut`] instead of overrunning the caller's budget.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Reports a request left unanswered past a third of its timeout (10 s at most) into
    /// `status` while the wait lasts ("cluster `A`: no answer to … for N s"); it is warned about
    /// in the log either way.
    pub fn report_slow_answers(mut self, status: RetryStatus) -> Self {
        self.slow_status = Some(status);
        self
    }

    /// The most committed-offset requests that were ever in flight at once.
    pub fn max_in_flight_seen(&self) -> usize {
        self.max_in_flight_seen
    }

    /// Replaces the handle if a coordinator request on it was given up on (destroying the handle
    /// ends that request inside librdkafka before librdkafka's own timeout could) or a group's
    /// coordinator moved (a new handle looks it up again); see the module's comment. Should a
    /// new handle fail to open, the old one stays.
    fn replace_handle_if_due(&mut self) {
        if !(self.gave_up || self.coordinator_moved) || self.signal.is_stopped() {
            return;
        }
        let why = if self.gave_up {
            "it held a coordinator request given up on"
        } else {
            "a group's coordinator moved"
        };
        match open_handle(&self.settings, &self.cluster, self.role, &self.signal) {
            Ok(handle) => {
                self.handle = handle;
                self.replaced += 1;
                log::info!(
                    "cluster `{}`: replaced the {} ({why}; {} replaced so far)",
                    self.cluster,
                    self.role,
                    self.replaced
                );
            }
            Err(e) => log::warn!(
                "cluster `{}`: replacing the {} ({why}): {e}; kept the old one",
                self.cluster,
                self.role
            ),
        }
        // Once: a handle that cannot be replaced now is not retried at every request.
        self.gave_up = false;
        self.coordinator_moved = false;
    }

    fn cap(&self, deadline: Instant) -> Instant {
        self.deadline.map_or(deadline, |d| d.min(deadline))
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// Waits for the result tagged `tag`, bounded by the request timeout and woken by a stop.
    fn wait_for(&mut self, tag: u64, what: &str) -> Result<AdminOutcome, Error> {
        self.wait_for_within(tag, what, self.request_timeout)
    }

    /// Waits for a coordinator request's result, bounded by the request timeout here (librdkafka
    /// was given [`COORDINATOR_REQUEST_LIMIT`]). The handle is replaced after a request given up
    /// on, or an answer saying a group's coordinator moved.
    fn wait_for_coordinator(&mut self, tag: u64, what: &str) -> Result<AdminOutcome, Error> {
        let outcome = self.wait_for_within(tag, what, self.request_timeout);
        let moved = match &outcome {
            Ok(AdminOutcome::Failed(e)) => coordinator_moved(e),
            Ok(AdminOutcome::GroupOffsets(gs)) => gs
                .iter()
                .filter_map(|g| g.error.as_ref())
                .any(coordinator_moved),
            Ok(AdminOutcome::GroupDescriptions(ds)) => ds
                .iter()
                .filter_map(|d| d.error.as_ref())
                .any(coordinator_moved),
            _ => false,
        };
        self.coordinator_moved |= moved;
        self.gave_up |= matches!(outcome, Err(Error::TimedOut(_)));
        self.replace_handle_if_due();
        outcome
    }

    fn wait_for_within(
        &mut self,
        tag: u64,
        what: &str,
        timeout: Duration,
    ) -> Result<AdminOutcome, Error> {
        // librdkafka answers a request that timed out itself, just after its own timeout (for
        // coordinator requests, far later: the wait ends here).
        let deadline = self.cap(Instant::now() + timeout + Duration::from_secs(1));
        let mut slow = SlowAnswer::new(timeout);
        let outcome = loop {
            if self.signal.is_stopped() {
                break Err(Error::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                break Err(Error::TimedOut(format!(
                    "{what} on cluster `{}`",
                    self.cluster
                )));
            }
            slow.check(
                &self.cluster,
                &|| what.to_string(),
                self.slow_status.as_ref(),
            );
            self.serve_events();
            let until = slow.due().map_or(deadline, |due| due.min(deadline));
            let wait = until.saturating_duration_since(now);
            if let Some(r) = librdkafka::poll_admin_result(self.handle.queue(), wait) {
                if r.tag == tag {
                    break Ok(r.outcome);
                }
            }
        };
        slow.end(&self.cluster, self.slow_status.as_ref());
        outcome
    }

    fn serve_events(&self) {
        // Error and log events land on the handle's main queue; serve them so they do not pile
        // up. Client errors (e.g. all brokers down) are logged, as for every client; what they
        // mean for a request shows in its own answer.
        let Some(main) = self.handle.events() else {
            return;
        };
        self.handle.call(|h| {
            let mut errors = Vec::new();
            batch::client_events(h, main, &mut errors);
            for e in errors {
                h.context().error(KafkaError::Global(e.code), &e.message);
            }
        });
    }

    /// Committed offsets of each group (all partitions, or only `partitions`), with at most
    /// `max_in_flight` requests outstanding.
    pub fn list_group_offsets(
        &mut self,
        groups: &[String],
        partitions: Option<&[TopicPartition]>,
        max_in_flight: usize,
    ) -> Result<Vec<(String, GroupOffsetsResult)>, Error> {
        let mut results: Vec<Option<GroupOffsetsResult>> = vec![None; groups.len()];
        self.each_group_offsets(groups, partitions, max_in_flight, |index, result| {
            results[index] = Some(result);
            true
        })?;
        Ok(groups
            .iter()
            .cloned()
            .zip(
                results
                    .into_iter()
                    .map(|r| r.unwrap_or_else(|| Err(unreadable("no result".into())))),
            )
            .collect())
    }

    /// Like [`list_group_offsets`](Self::list_group_offsets), but hands each group's result to
    /// `each` (with the group's index in `groups`) as soon as it arrives. When `each` returns
    /// false, no more requests are sent and the call returns at once (answers still outstanding
    /// are ignored by later calls).
    pub fn each_group_offsets(
        &mut self,
        groups: &[String],
        partitions: Option<&[TopicPartition]>,
        max_in_flight: usize,
        each: impl FnMut(usize, GroupOffsetsResult) -> bool,
    ) -> Result<(), Error> {
        let mut slow = SlowAnswer::new(self.request_timeout);
        let fetched =
            self.each_group_offsets_watched(groups, partitions, max_in_flight, each, &mut slow);
        slow.end(&self.cluster, self.slow_status.as_ref());
        self.replace_handle_if_due();
        fetched
    }

    fn each_group_offsets_watched(
        &mut self,
        groups: &[String],
        partitions: Option<&[TopicPartition]>,
        max_in_flight: usize,
        mut each: impl FnMut(usize, GroupOffsetsResult) -> bool,
        slow: &mut SlowAnswer,
    ) -> Result<(), Error> {
        let raw: Option<Vec<(String, i32)>> = partitions.map(|ps| {
            ps.iter()
                .map(|tp| (tp.topic.clone(), tp.partition))
                .collect()
        });
        let max_in_flight = max_in_flight.max(1);
        // Request tag → the attempt it carries.
        let mut in_flight: HashMap<u64, Attempt> = HashMap::with_capacity(max_in_flight);
        // Groups whose coordinator was not ready, to ask again: (when, the next attempt).
        let mut again: Vec<(Instant, Attempt)> = Vec::new();
        let mut next = 0usize;
        let deadline_per_request = self.request_timeout + Duration::from_secs(1);
        let mut last_progress = Instant::now();
        while next < groups.len() || !in_flight.is_empty() || !again.is_empty() {
            if self.signal.is_stopped() {
                return Err(Error::Stopped);
            }
            let now = Instant::now();
            if self.coordinator_moved && in_flight.is_empty() {
                // Every answer of the old handle is in: ask on a new one.
                self.replace_handle_if_due();
            }
            // After a coordinator moved, nothing more is sent until the handle is replaced.
            while in_flight.len() < max_in_flight && !self.coordinator_moved {
                let due = again.iter().position(|(at, _)| *at <= now);
                let attempt = match due {
                    Some(i) => again.swap_remove(i).1,
                    None if next < groups.len() => {
                        next += 1;
                        Attempt::first(next - 1, now)
                    }
                    None => break,
                };
                let tag = self.tag();
                let timeout = COORDINATOR_REQUEST_LIMIT;
                let group = groups[attempt.group].as_str();
                let queue = self.handle.queue();
                self.handle.call(|h| {
                    librdkafka::submit_list_group_offsets(
                        h,
                        queue,
                        group,
                        raw.as_deref(),
                        tag,
                        timeout,
                    )
                });
                in_flight.insert(
                    tag,
                    Attempt {
                        sent: now,
                        ..attempt
                    },
                );
                self.max_in_flight_seen = self.max_in_flight_seen.max(in_flight.len());
            }
            // Requests unanswered for the request timeout are given up on (librdkafka's own
            // timeout is far later, see the module's comment), as librdkafka would have failed
            // them: the group's result is a timeout, and the handle is replaced afterwards.
            let expired: Vec<u64> = in_flight
                .iter()
                .filter(|(_, a)| now.duration_since(a.sent) >= self.request_timeout)
                .map(|(tag, _)| *tag)
                .collect();
            for tag in expired {
                let Some(attempt) = in_flight.remove(&tag) else {
                    continue;
                };
                self.gave_up = true;
                last_progress = now;
                let gave_up = NativeError {
                    code: RDKafkaErrorCode::OperationTimedOut,
                    message: format!(
                        "no answer from the group's coordinator within {} ms",
                        self.request_timeout.as_millis()
                    ),
                };
                if !each(attempt.group, Err(gave_up)) {
                    return Ok(());
                }
            }
            let outstanding = in_flight.len() + again.len() + groups.len() - next;
            if self.deadline.is_some_and(|d| now >= d)
                || now.duration_since(last_progress) >= deadline_per_request
            {
                self.gave_up |= !in_flight.is_empty();
                return Err(Error::TimedOut(format!(
                    "fetching committed offsets of {outstanding} groups on cluster `{}`",
                    self.cluster
                )));
            }
            let oldest = || {
                in_flight
                    .values()
                    .min_by_key(|a| a.first_sent)
                    .map_or_else(String::new, |a| {
                        format!(
                            "OffsetFetch (committed offsets of group `{}`, {} requests outstanding)",
                            groups[a.group],
                            in_flight.len()
                        )
                    })
            };
            if !in_flight.is_empty() {
                slow.check(&self.cluster, &oldest, self.slow_status.as_ref());
            }
            self.serve_events();
            let mut wake = now + Duration::from_millis(500);
            if let Some(due) = again.iter().map(|(at, _)| *at).min() {
                wake = wake.min(due);
            }
            if let Some(due) = slow.due() {
                wake = wake.min(due);
            }
            let slice = self.cap(wake).saturating_duration_since(now);
            let Some(r) = librdkafka::poll_admin_result(self.handle.queue(), slice) else {
                continue;
            };
            let Some(attempt) = in_flight.remove(&r.tag) else {
                continue;
            };
            last_progress = Instant::now();
            slow.end(&self.cluster, self.slow_status.as_ref());
            let result = match r.outcome {
                AdminOutcome::GroupOffsets(gs) => committed_from(gs),
                AdminOutcome::Failed(e) => Err(e),
                other => Err(unreadable(format!("unexpected admin result {other:?}"))),
            };
            if let Err(e) = &result {
                self.coordinator_moved |= coordinator_moved(e);
                let due = last_progress + coordinator_backoff(attempt.number);
                let within = due < attempt.first_sent + self.request_timeout
                    && self.deadline.map_or(true, |d| due < d);
                if coordinator_not_ready(e) && within {
                    log::info!(
                        "fetching committed offsets of group `{}` on cluster `{}`: {e}; asking \
                         its coordinator again (attempt {})",
                        groups[attempt.group],
                        self.cluster,
                        attempt.number + 1
                    );
                    again.push((due, attempt.next()));
                    continue;
                }
            }
            if !each(attempt.group, result) {
                // Requests still outstanding stay in librdkafka: the handle is replaced.
                self.gave_up |= !in_flight.is_empty();
                return Ok(());
            }
        }
        Ok(())
    }

    /// Commits `offsets` into `group`; returns, per partition, the broker's error if any.
    pub fn alter_group_offsets(
        &mut self,
        group: &str,
        offsets: &[(TopicPartition, CommittedOffset)],
    ) -> Result<Vec<(TopicPartition, Option<String>)>, Error> {
        let tag = self.tag();
        let raw: Vec<(String, i32, i64, String)> = offsets
            .iter()
            .map(|(tp, o)| (tp.topic.clone(), tp.partition, o.offset, o.metadata.clone()))
            .collect();
        let (queue, timeout) = (self.handle.queue(), COORDINATOR_REQUEST_LIMIT);
        self.handle
            .call(|h| librdkafka::submit_alter_group_offsets(h, queue, group, &raw, tag, timeout));
        match self.wait_for_coordinator(tag, "altering group offsets")? {
            AdminOutcome::GroupOffsets(gs) => {
                let mut out = Vec::new();
                for g in gs {
                    let group_error = g.error.as_ref().map(NativeError::to_string);
                    for p in g.partitions {
                        out.push((
                            TopicPartition::new(p.topic, p.partition),
                            p.error
                                .map(|e| e.to_string())
                                .or_else(|| group_error.clone()),
                        ));
                    }
                    if out.is_empty() {
                        if let Some(e) = group_error {
                            return Err(Error::kafka(
                                format!("altering offsets of group `{group}`"),
                                e,
                            ));
                        }
                    }
                }
                Ok(out)
            }
            AdminOutcome::Failed(e) => Err(request_failed(
                format!("altering offsets of group `{group}`"),
                &e,
            )),
            other => Err(Error::kafka("altering group offsets", format!("{other:?}"))),
        }
    }

    /// Describes `groups` (state per group).
    pub fn describe_groups(&mut self, groups: &[String]) -> Result<Vec<GroupDescription>, Error> {
        let tag = self.tag();
        let (queue, timeout) = (self.handle.queue(), COORDINATOR_REQUEST_LIMIT);
        self.handle
            .call(|h| librdkafka::submit_describe_groups(h, queue, groups, tag, timeout));
        match self.wait_for_coordinator(tag, "describing groups")? {
            AdminOutcome::GroupDescriptions(d) => Ok(d),
            AdminOutcome::Failed(e) => Err(request_failed(
                format!("describing groups on `{}`", self.cluster),
                &e,
            )),
            other => Err(Error::kafka("describing groups", format!("{other:?}"))),
        }
    }

    /// The error of a group listing that failed with `e` (also what an injected listing fault
    /// returns, so the tests go through the same classification).
    pub fn listing_failed(&self, e: &NativeError) -> Error {
        request_failed(format!("listing groups on `{}`", self.cluster), e)
    }

    /// Lists every consumer group on the cluster.
    pub fn list_groups(&mut self) -> Result<Vec<String>, Error> {
        let tag = self.tag();
        let (queue, timeout) = (self.handle.queue(), self.request_timeout);
        self.handle
            .call(|h| librdkafka::submit_list_groups(h, queue, tag, timeout));
        match self.wait_for(tag, "listing groups")? {
            AdminOutcome::GroupListing { groups, errors } => {
                if let (true, Some(e)) = (groups.is_empty(), errors.first()) {
                    return Err(self.listing_failed(e));
                }
                for e in &errors {
                    log::warn!(
                        "listing groups on `{}`: a broker did not answer: {e}",
                        self.cluster
                    );
                }
                Ok(groups)
            }
            AdminOutcome::Failed(e) => Err(self.listing_failed(&e)),
            other => Err(Error::kafka("listing groups", format!("{other:?}"))),
        }
    }

    /// Creates a one-partition compacted topic, as MM2 creates its internal topics.
    pub fn create_compacted_topic(
        &mut self,
        topic: &str,
        replication_factor: i16,
    ) -> Result<TopicCreation, Error> {
        self.create_topic(
            topic,
            1,
            replication_factor,
            &[("cleanup.policy", "compact")],
        )
    }

    /// Creates a topic with `partitions` partitions and the given topic configs.
    pub fn create_topic(
        &mut self,
        topic: &str,
        partitions: i32,
        replication_factor: i16,
        configs: &[(&str, &str)],
    ) -> Result<TopicCreation, Error> {
        let tag = self.tag();
        // Brokers without CreateTopics (the embedded mock) never answer: do not hold start-up
        // for the whole admin timeout.
        let timeout = self.request_timeout.min(TOPIC_CREATION_TIMEOUT);
        let queue = self.handle.queue();
        self.handle
            .call(|h| {
                librdkafka::submit_create_topic(
                    h,
                    queue,
                    topic,
                    partitions,
                    i32::from(replication_factor),
                    configs,
                    tag,
                    timeout,
                )
            })
            .map_err(|e| Error::kafka(format!("creating topic `{topic}`"), e))?;
        let outcome = match self.wait_for_within(tag, "creating a topic", timeout) {
            Err(Error::TimedOut(what)) => {
                return Ok(TopicCreation::Skipped(format!("timed out: {what}")))
            }
            other => other?,
        };
        use rdkafka::error::RDKafkaErrorCode as C;
        let classify = |e: NativeError| match e.code {
            C::TopicAlreadyExists => Ok(TopicCreation::Exists),
            C::TopicAuthorizationFailed | C::ClusterAuthorizationFailed => {
                Ok(TopicCreation::Denied(e.to_string()))
            }
            C::UnsupportedVersion | C::UnsupportedFeature | C::InvalidRequest => {
                Ok(TopicCreation::Skipped(e.to_string()))
            }
            // The broker refuses the request itself (e.g. a replication factor above its broker
            // count): retrying cannot help, and MM2 fails its connector here too.
            C::InvalidReplicationFactor
            | C::InvalidPartitions
            | C::InvalidConfig
            | C::InvalidTopic
            | C::PolicyViolation => Err(Error::fatal(format!("creating topic `{topic}`"), e)),
            _ => Err(request_failed(format!("creating topic `{topic}`"), &e)),
        };
        match outcome {
            AdminOutcome::CreatedTopics(ts) => match ts.into_iter().next() {
                Some((_, None)) => Ok(TopicCreation::Created),
                Some((_, Some(e))) => classify(e),
                None => Ok(TopicCreation::Created),
            },
            AdminOutcome::Failed(e) => classify(e),
            other => Err(Error::kafka("creating a topic", format!("{other:?}"))),
        }
    }
}

fn committed_from(groups: Vec<GroupOffsets>) -> GroupOffsetsResult {
    let Some(g) = groups.into_iter().next() else {
        return Err(unreadable("empty result".into()));
    };
    if let Some(e) = g.error {
        return Err(e);
    }
    let mut out = BTreeMap::new();
    for p in g.partitions {
        if p.error.is_some() {
            continue;
        }
        let tp = TopicPartition::new(p.topic, p.partition);
        // librdkafka reports "no commit" as a negative offset, Java's admin API as null.
        let committed = (p.offset >= 0).then_some(CommittedOffset {
            offset: p.offset,
            metadata: p.metadata,
        });
        out.insert(tp, committed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::error::RDKafkaErrorCode as C;
    use rdkafka::mocking::MockCluster;

    #[test]
    fn a_fetch_whose_coordinator_never_comes_up_is_given_up_and_the_handle_replaced() {
        let mock = MockCluster::new(1).unwrap();
        // The only broker, every group's coordinator, is down from the start: the request waits
        // inside librdkafka for a broker to look its coordinator up on.
        mock.broker_down(1).unwrap();
        let settings =
            BTreeMap::from([("bootstrap.servers".to_string(), mock.bootstrap_servers())]);
        let signal = StopSignal::new();
        let timeout = Duration::from_secs(1);
        let mut admin = Admin::open(&settings, "A", "test-admin", timeout, &signal).unwrap();
        let groups = ["g".to_string()];
        let began = Instant::now();
        let fetched = admin.list_group_offsets(&groups, None, 1).unwrap();
        let took = began.elapsed();
        match &fetched[0].1 {
            Err(e) => assert_eq!(e.code, C::OperationTimedOut, "{e}"),
            Ok(offsets) => panic!("answered while the broker was down: {offsets:?}"),
        }
        assert!(took >= timeout && took < timeout * 3, "{took:?}");
        assert_eq!(admin.replaced, 1);
        // The broker comes up. Had librdkafka timed the request out itself, the request would
        // now be sent and its answer abort the process (librdkafka 2.12); replaced, the handle
        // took the request with it.
        mock.broker_up(1).unwrap();
        let fetched = admin.list_group_offsets(&groups, None, 1).unwrap();
        assert!(fetched[0].1.is_ok(), "{:?}", fetched[0].1);
        assert_eq!(admin.replaced, 1);
    }

    /// The group's coordinator moves while its old broker stays up and answers NotCoordinator
    /// (a preferred leader election of `__consumer_offsets`): the fetch asks the new one.
    #[test]
    fn a_fetch_after_the_groups_coordinator_moved_asks_the_new_coordinator() {
        use rdkafka::config::ClientConfig;
        use rdkafka::mocking::MockCoordinator;
        use rdkafka::producer::{BaseProducer, Producer};
        use rdkafka_sys::types::RDKafkaApiKey;
        let runner: BaseProducer = ClientConfig::new()
            .set("test.mock.num.brokers", "2")
            .create()
            .unwrap();
        let mock = runner.client().mock_cluster().unwrap();
        mock.coordinator(MockCoordinator::Group("g".into()), 1)
            .unwrap();
        let settings =
            BTreeMap::from([("bootstrap.servers".to_string(), mock.bootstrap_servers())]);
        let signal = StopSignal::new();
        let timeout = Duration::from_secs(5);
        let mut admin = Admin::open(&settings, "A", "test-admin", timeout, &signal).unwrap();
        let groups = ["g".to_string()];
        assert!(admin.list_group_offsets(&groups, None, 1).unwrap()[0]
            .1
            .is_ok());
        mock.coordinator(MockCoordinator::Group("g".into()), 2)
            .unwrap();
        librdkafka::push_mock_broker_errors(
            runner.client(),
            1,
            RDKafkaApiKey::OffsetFetch,
            C::NotCoordinator,
            1000,
        );
        let fetched = admin.list_group_offsets(&groups, None, 1).unwrap();
        assert!(fetched[0].1.is_ok(), "{:?}", fetched[0].1);
        assert_eq!(admin.replaced, 1);
    }

    #[test]
    fn coordinator_answers_are_asked_again_after_a_doubling_backoff_capped_at_a_second() {
        let waits: Vec<u64> = (1..=7)
            .map(|a| coordinator_backoff(a).as_millis() as u64)
            .collect();
        assert_eq!(waits, [100, 200, 400, 800, 1000, 1000, 1000]);
        let e = |code| NativeError {
            code,
            message: String::new(),
        };
        for code in [
            C::NotCoordinator,
            C::CoordinatorNotAvailable,
            C::CoordinatorLoadInProgress,
        ] {
            assert!(coordinator_not_ready(&e(code)), "{code:?}");
        }
        for code in [
            C::GroupAuthorizationFailed,
            C::OperationTimedOut,
            C::UnknownTopicOrPartition,
        ] {
            assert!(!coordinator_not_ready(&e(code)), "{code:?}");
        }
    }
}
