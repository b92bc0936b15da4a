//! The librdkafka calls rust-rdkafka does not wrap, behind small safe functions.
//!
//! Three needs drive this module:
//! - **Wake**: `rd_kafka_queue_yield` makes a blocked poll on a queue return at once. rust-rdkafka's
//!   `BaseConsumer::poll` keeps waiting after a yield, so consumer polls here poll the consumer
//!   queue directly (`rd_kafka_queue_poll`), which returns on a yield.
//! - **Cached watermarks**: the high watermark the last Fetch response carried (a Fetch is right on
//!   brokers whose ListOffsets "latest" lags behind the log).
//! - **Consumer-group admin API** (list/describe groups, list/alter group offsets, create topics),
//!   submitted on a queue we own so a stop can yield it.
//!
//! Every pointer handed to librdkafka here is either owned by this module for the length of one
//! call, or is a handle whose lifetime the safe wrapper ties to a Rust value.

use std::ffi::{c_void, CStr, CString};
use std::ptr;
use std::time::{Duration, Instant};

use rdkafka::client::{Client, ClientContext};
use rdkafka::config::NativeClientConfig;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka_sys as rd;

/// What librdkafka's log line says when the broker closed a connection before answering the
/// first request (ApiVersion): a plaintext client on a TLS listener, typically. Defined here,
/// with the log routing that watches for it, so that this module needs none of the others.
pub const CLOSED_BEFORE_API_VERSION: &str = "in state APIVERSION_QUERY";

/// The coordination consumer's group calls (`task.assignment=group`).
pub mod group;

/// Batch reads of a consumer queue, lending the records' bytes (the internal-topic reader).
pub mod batch;

fn timeout_ms(timeout: Duration) -> i32 {
    i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX)
}

fn c_string(s: &str) -> CString {
    // Kafka names never contain NUL; if one does, the request fails broker-side instead of here.
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// Copies a C string owned by librdkafka; NULL becomes "".
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string that outlives this call.
unsafe fn owned_str(p: *const libc::c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn err_string(code: rd::rd_kafka_resp_err_t) -> String {
    // SAFETY: rd_kafka_err2str returns a static string for every code.
    unsafe { owned_str(rd::rd_kafka_err2str(code)) }
}

/// A librdkafka error code and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeError {
    /// The error code, as rust-rdkafka names it.
    pub code: RDKafkaErrorCode,
    /// Human-readable text from librdkafka.
    pub message: String,
}

impl NativeError {
    fn from_code(code: rd::rd_kafka_resp_err_t) -> Option<Self> {
        if code == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
            return None;
        }
        Some(NativeError {
            code: code.into(),
            message: err_string(code),
        })
    }

    /// # Safety
    /// `e` is NULL or a valid `rd_kafka_error_t` that outlives this call.
    unsafe fn from_error_t(e: *const rd::rd_kafka_error_t) -> Option<Self> {
        if e.is_null() {
            return None;
        }
        Some(NativeError {
            code: rd::rd_kafka_error_code(e).into(),
            message: owned_str(rd::rd_kafka_error_string(e)),
        })
    }
}

impl NativeError {
    /// Whether librdkafka gave up waiting itself (its request or operation timeout ran out),
    /// as opposed to a broker's answer.
    pub fn is_local_timeout(&self) -> bool {
        matches!(
            self.code,
            RDKafkaErrorCode::OperationTimedOut | RDKafkaErrorCode::MessageTimedOut
        )
    }
}

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.message, self.code)
    }
}

/// A reference to one of a client's librdkafka queues. Thread-safe by librdkafka's contract; used
/// from other threads only to [`wake`](QueueHandle::wake) a poller.
///
/// Must be dropped before the client it came from is destroyed, so taking one needs a
/// [`QueueGrant`], whose constructor is `unsafe`: in the crate (`#![deny(unsafe_code)]` outside
/// this module and the C layer) only [`WakeableClient`](crate::WakeableClient) makes one,
/// and it owns every queue it takes together with the client, releasing the queues first
/// whatever the order of the fields around it (the benchmarks' `RawAdmin` does the same).
pub struct QueueHandle(*mut rd::rd_kafka_queue_t);

/// Permission to take queue references from a client (docs/TYPE_GUARANTEES.md).
pub struct QueueGrant(());

impl QueueGrant {
    /// A grant for one owner of a client.
    ///
    /// # Safety
    /// Every [`QueueHandle`] taken with it must be dropped before the client it came from is
    /// destroyed: librdkafka's queue references point into the client.
    pub unsafe fn new() -> Self {
        QueueGrant(())
    }
}

// SAFETY: librdkafka queues are thread-safe; the handle is only a counted reference.
unsafe impl Send for QueueHandle {}
// SAFETY: see above; `wake` and `poll` may run concurrently by librdkafka's contract.
unsafe impl Sync for QueueHandle {}

impl QueueHandle {
    /// The queue `rd_kafka_consumer_poll` waits on (the consumer-group queue).
    pub fn consumer_queue<C: ClientContext>(client: &Client<C>, _: &QueueGrant) -> Option<Self> {
        // SAFETY: native_ptr is a live client for the duration of the borrow.
        let q = unsafe { rd::rd_kafka_queue_get_consumer(client.native_ptr()) };
        (!q.is_null()).then_some(QueueHandle(q))
    }

    /// A new private queue on `client`, for admin results.
    pub fn new_queue<C: ClientContext>(client: &Client<C>, _: &QueueGrant) -> Self {
        // SAFETY: native_ptr is a live client; rd_kafka_queue_new never returns NULL.
        QueueHandle(unsafe { rd::rd_kafka_queue_new(client.native_ptr()) })
    }

    /// Makes a poll blocked on this queue (now or next) return at once.
    pub fn wake(&self) {
        // SAFETY: self.0 is a live queue reference.
        unsafe { rd::rd_kafka_queue_yield(self.0) }
    }
}

impl Drop for QueueHandle {
    fn drop(&mut self) {
        // SAFETY: we own exactly one reference.
        unsafe { rd::rd_kafka_queue_destroy(self.0) }
    }
}

/// An admin client with a private result queue, for the benchmarks' same-run baselines: the
/// queue is released before the client is destroyed.
#[cfg(feature = "internals")]
pub struct RawAdmin {
    queue: Option<QueueHandle>,
    client: Option<rdkafka::producer::BaseProducer>,
}

#[cfg(feature = "internals")]
impl RawAdmin {
    /// Wraps an admin-capable client and gives it a private queue.
    pub fn new(client: rdkafka::producer::BaseProducer) -> Self {
        // SAFETY: Drop below releases the queue before the client.
        let grant = unsafe { QueueGrant::new() };
        RawAdmin {
            queue: Some(QueueHandle::new_queue(
                rdkafka::producer::Producer::client(&client),
                &grant,
            )),
            client: Some(client),
        }
    }

    /// The client.
    pub fn client(&self) -> &Client<rdkafka::producer::DefaultProducerContext> {
        match &self.client {
            Some(c) => rdkafka::producer::Producer::client(c),
            None => unreachable!("taken only in drop"),
        }
    }

    /// The result queue.
    pub fn queue(&self) -> &QueueHandle {
        match &self.queue {
            Some(q) => q,
            None => unreachable!("taken only in drop"),
        }
    }
}

#[cfg(feature = "internals")]
impl Drop for RawAdmin {
    fn drop(&mut self) {
        drop(self.queue.take());
        drop(self.client.take());
    }
}

/// One result of `consumer_poll`.
// Some fields are read only by the benchmarks (feature `internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[derive(Debug)]
pub enum Polled {
    /// A record, with owned copies of its key and value (`None` = null).
    Record {
        /// Partition.
        partition: i32,
        /// Offset.
        offset: i64,
        /// Key bytes.
        key: Option<Vec<u8>>,
        /// Value bytes.
        value: Option<Vec<u8>>,
    },
    /// The consumer reached the end of a partition (the Fetch high watermark).
    PartitionEof {
        /// Partition.
        partition: i32,
        /// The end offset reached.
        offset: i64,
    },
    /// A consumer error event.
    Error(NativeError),
    /// The timeout passed, or the queue was woken.
    Nothing,
}

/// Assigns one partition of `topic`, from offset 0, to a consumer-type client, and forwards the
/// client's main queue (errors, logs, statistics) to the consumer queue so [`consumer_poll`]
/// serves them all. The client must have a `group.id`: librdkafka assigns only through a group
/// handle (the group is never joined; nothing is committed).
///
/// Offset 0, not "beginning": a logical offset needs a ListOffsets lookup, which librdkafka first
/// tries before it knows the partition leader and then retries only after a fixed 500 ms. A log
/// that no longer starts at 0 answers "out of range", and `auto.offset.reset=earliest` moves to
/// its start, as "beginning" would.
///
/// A plain `Client` is used instead of rust-rdkafka's `BaseConsumer` because the latter's drop
/// waits for the close in 100 ms steps; destroying the client closes the consumer at once.
// For the mock clusters and the tests' own readers only.
#[cfg(any(feature = "embedded", feature = "internals"))]
pub fn consumer_assign_from_start<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partition: i32,
) -> Result<(), NativeError> {
    // SAFETY: live client.
    unsafe { rd::rd_kafka_poll_set_consumer(client.native_ptr()) };
    batch::assign_from_start_apart(client, topic, partition)
}

/// Longest wait for a consumer group that never joined to close (it needs one turn of
/// librdkafka's main thread): only a hang guard.
const UNUSED_GROUP_CLOSE_LIMIT: Duration = Duration::from_secs(10);

/// Closes the consumer group of a consumer-type client that has never subscribed, assigned or
/// committed, so there is nothing to wait for: afterwards the group takes no part in the
/// client's life and librdkafka drops whatever is queued for it. Admin requests keep working.
pub fn close_unused_group<C: ClientContext>(client: &Client<C>) -> Result<(), NativeError> {
    // SAFETY: live client; the reply queue is ours and destroyed before returning, which
    // discards the close's reply if it is still on it.
    unsafe {
        let rk = client.native_ptr();
        let replies = rd::rd_kafka_queue_new(rk);
        let result = (|| {
            let e = rd::rd_kafka_consumer_close_queue(rk, replies);
            if let Some(err) = NativeError::from_error_t(e) {
                rd::rd_kafka_error_destroy(e);
                return Err(err);
            }
            let began = Instant::now();
            while rd::rd_kafka_consumer_closed(rk) == 0 {
                if began.elapsed() >= UNUSED_GROUP_CLOSE_LIMIT {
                    return Err(NativeError {
                        code: RDKafkaErrorCode::OperationTimedOut,
                        message: "the unused consumer group did not close".into(),
                    });
                }
                let ev = rd::rd_kafka_queue_poll(replies, 10);
                if !ev.is_null() {
                    rd::rd_kafka_event_destroy(ev);
                }
            }
            Ok(())
        })();
        rd::rd_kafka_queue_destroy(replies);
        result
    }
}

/// Makes a client built from `config` by rust-rdkafka's `Client::new` with context `C` hand the
/// log lines librdkafka serves itself to `C::log`, instead of printing them to stderr.
///
/// rust-rdkafka sets no log callback: it reads log lines as events from the client's queues,
/// and librdkafka's default callback (its stderr printer, `%3|…`) stays in place for the lines
/// librdkafka serves outside the event API. That happens when `rd_kafka_destroy` closes a
/// consumer that has a group handle: the close serves whatever errors and log lines are still
/// queued (e.g. "1/1 brokers are down" from a client whose broker never answered). Call on the
/// native config before the client is created.
pub fn route_served_logs<C: ClientContext>(config: &NativeClientConfig) {
    // SAFETY: the config is live and not yet owned by a client; the callback reads the opaque
    // that `Client::new` sets to its context `C`, which outlives the native handle.
    unsafe { rd::rd_kafka_conf_set_log_cb(config.ptr(), Some(served_log_line::<C>)) }
}

/// librdkafka's log callback for [`route_served_logs`].
///
/// # Safety
/// `rk` is NULL or a live client whose opaque is a `C` (rust-rdkafka's `Client::new` sets it to
/// its context, which is dropped only after the native handle); `fac` and `buf` are NULL or
/// NUL-terminated strings valid for the call.
unsafe extern "C" fn served_log_line<C: ClientContext>(
    rk: *const rd::rd_kafka_t,
    level: libc::c_int,
    fac: *const libc::c_char,
    buf: *const libc::c_char,
) {
    let (fac, text) = (owned_str(fac), owned_str(buf));
    let level = super::client_log::syslog_level(level);
    // Called from C: nothing may unwind out of here.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let context = if rk.is_null() {
            ptr::null()
        } else {
            rd::rd_kafka_opaque(rk) as *const C
        };
        match context.as_ref() {
            Some(context) => context.log(level, &fac, &text),
            // A line about a configuration before any client exists.
            None => super::client_log::unattributed_line(level, &fac, &text),
        }
    }));
}

/// Polls `consumer` for up to `timeout`; returns early when the consumer queue is woken.
/// The consumer must have a `group.id` (its consumer queue is the group queue).
///
/// Uses the event API on the consumer queue, as rust-rdkafka does, rather than
/// `rd_kafka_consumer_poll`: that call serves librdkafka's log lines and client errors (e.g. "all
/// brokers are down") internally and, since rust-rdkafka routes logs through the queue instead of
/// a log callback, prints them to stderr. Here client errors come back as [`Polled::Error`] and
/// log lines go to the `log` crate (target `librdkafka`), like every other client's.
// For the mock clusters and the tests' own readers only.
#[cfg(any(feature = "embedded", feature = "internals"))]
pub fn consumer_poll<C: ClientContext>(consumer: &Client<C>, timeout: Duration) -> Polled {
    // SAFETY: each event handed over is live for the call.
    poll_consumer_events(consumer, timeout, |ev| unsafe {
        read_consumer_event(ev, consumer.context().as_ref())
    })
    .unwrap_or(Polled::Nothing)
}

/// Serves `client`'s consumer queue for up to `timeout`: each event goes to `read` (then is
/// destroyed) until `read` makes something of one. `None` on timeout or when the queue is woken.
/// `read` gets a live event and must copy out whatever it keeps.
fn poll_consumer_events<C: ClientContext, T>(
    client: &Client<C>,
    timeout: Duration,
    mut read: impl FnMut(*mut rd::rd_kafka_event_t) -> Option<T>,
) -> Option<T> {
    // A zero timeout (taking what is already queued, once per record while a topic is read)
    // needs no clock: each poll below then waits 0 ms.
    let deadline = (!timeout.is_zero()).then(|| Instant::now() + timeout);
    // SAFETY: the client is live for the borrow; the queue reference taken here is released
    // before returning; each event is destroyed right after `read` has seen it.
    unsafe {
        let queue = rd::rd_kafka_queue_get_consumer(client.native_ptr());
        if queue.is_null() {
            return None;
        }
        let polled = loop {
            let remaining = deadline.map_or(Duration::ZERO, |d| {
                d.saturating_duration_since(Instant::now())
            });
            // NULL on timeout and when the queue is yielded (the stop's wake).
            let ev = rd::rd_kafka_queue_poll(queue, timeout_ms(remaining));
            if ev.is_null() {
                break None;
            }
            let made = read(ev);
            rd::rd_kafka_event_destroy(ev);
            match made {
                Some(p) => break Some(p),
                None if remaining.is_zero() => break None,
                None => {}
            }
        };
        rd::rd_kafka_queue_destroy(queue);
        polled
    }
}

/// What a consumer-queue event means to [`consumer_poll`]; `None` for events served here (log
/// lines) or not used (statistics).
///
/// # Safety
/// `ev` is a live event.
unsafe fn read_consumer_event<C: ClientContext>(
    ev: *mut rd::rd_kafka_event_t,
    context: &C,
) -> Option<Polled> {
    match rd::rd_kafka_event_type(ev) {
        rd::RD_KAFKA_EVENT_FETCH => {
            let m = rd::rd_kafka_event_message_next(ev);
            (!m.is_null()).then(|| polled_message(&*m))
        }
        rd::RD_KAFKA_EVENT_ERROR => {
            let code = rd::rd_kafka_event_error(ev);
            if code == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF {
                let tp = rd::rd_kafka_event_topic_partition(ev);
                if tp.is_null() {
                    return Some(Polled::PartitionEof {
                        partition: 0,
                        offset: -1,
                    });
                }
                let eof = Polled::PartitionEof {
                    partition: (*tp).partition,
                    offset: (*tp).offset,
                };
                rd::rd_kafka_topic_partition_destroy(tp);
                return Some(eof);
            }
            let mut e = NativeError::from_code(code)?;
            let detail = owned_str(rd::rd_kafka_event_error_string(ev));
            if !detail.is_empty() {
                e.message = detail;
            }
            Some(Polled::Error(e))
        }
        rd::RD_KAFKA_EVENT_LOG => {
            let (mut fac, mut text, mut level) = (ptr::null(), ptr::null(), 0);
            if rd::rd_kafka_event_log(ev, &mut fac, &mut text, &mut level) == 0 {
                let (fac, text) = (owned_str(fac), owned_str(text));
                // Through the client's context, as rust-rdkafka serves the lines of its other
                // queues: the library's clients collapse repeats there (kafka::client_log).
                context.log(super::client_log::syslog_level(level), &fac, &text);
                // librdkafka reports a connection the broker closed before answering the first
                // request only as this log line; the failure classification needs to see it.
                if fac.trim() == "FAIL" && text.contains(CLOSED_BEFORE_API_VERSION) {
                    return Some(Polled::Error(NativeError {
                        code: RDKafkaErrorCode::BrokerTransportFailure,
                        message: text.trim().to_string(),
                    }));
                }
            }
            None
        }
        _ => None,
    }
}

/// A fetched message (or a per-message error) as [`Polled`], with its bytes copied.
///
/// # Safety
/// `msg` is a live message whose key and payload pointers are valid for their lengths.
unsafe fn polled_message(msg: &rd::rd_kafka_message_t) -> Polled {
    match msg.err {
        rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR => Polled::Record {
            partition: msg.partition,
            offset: msg.offset,
            key: copy_bytes(msg.key, msg.key_len),
            value: copy_bytes(msg.payload, msg.len),
        },
        rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF => Polled::PartitionEof {
            partition: msg.partition,
            offset: msg.offset,
        },
        code => {
            let mut e = NativeError::from_code(code).unwrap_or(NativeError {
                code: code.into(),
                message: String::new(),
            });
            // For error messages librdkafka puts its detailed text in the payload.
            if let Some(text) = copy_bytes(msg.payload, msg.len) {
                e.message = String::from_utf8_lossy(&text).into_owned();
            }
            Polled::Error(e)
        }
    }
}

/// # Safety
/// `p` is NULL or points to `len` readable bytes.
unsafe fn copy_bytes(p: *const c_void, len: usize) -> Option<Vec<u8>> {
    if p.is_null() {
        None
    } else {
        Some(std::slice::from_raw_parts(p as *const u8, len).to_vec())
    }
}

/// The high watermark from the last Fetch response for this partition, without a request.
pub fn cached_high_watermark<C: ClientContext>(
    consumer: &Client<C>,
    topic: &str,
    partition: i32,
) -> Option<i64> {
    let topic = c_string(topic);
    let (mut low, mut high) = (-1i64, -1i64);
    // SAFETY: live consumer; out-pointers valid for the call.
    let err = unsafe {
        rd::rd_kafka_get_watermark_offsets(
            consumer.native_ptr(),
            topic.as_ptr(),
            partition,
            &mut low,
            &mut high,
        )
    };
    (err == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0).then_some(high)
}

/// A committed or requested offset of one partition in an admin result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionOffset {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset; negative means "no committed offset".
    pub offset: i64,
    /// Commit metadata (empty when none).
    pub metadata: String,
    /// Per-partition error.
    pub error: Option<NativeError>,
}

/// One group's part of a group-offsets result.
// Some fields are read only by the benchmarks (feature `internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[derive(Clone, Debug)]
pub struct GroupOffsets {
    /// Group id.
    pub group: String,
    /// Group-level error.
    pub error: Option<NativeError>,
    /// Partitions.
    pub partitions: Vec<PartitionOffset>,
}

/// A consumer group's state as DescribeConsumerGroups reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeGroupState {
    /// Unknown state.
    Unknown,
    /// Rebalancing.
    PreparingRebalance,
    /// Rebalancing.
    CompletingRebalance,
    /// Active with members.
    Stable,
    /// Does not exist.
    Dead,
    /// Exists, no members.
    Empty,
}

/// One group's description.
#[derive(Clone, Debug)]
pub struct GroupDescription {
    /// Group id.
    pub group: String,
    /// State.
    pub state: NativeGroupState,
    /// Per-group error.
    pub error: Option<NativeError>,
}

/// What an admin request returned.
#[derive(Debug)]
pub enum AdminOutcome {
    /// The whole request failed.
    Failed(NativeError),
    /// Result of list/alter group offsets.
    GroupOffsets(Vec<GroupOffsets>),
    /// Result of describe groups.
    GroupDescriptions(Vec<GroupDescription>),
    /// Result of list groups: group ids, and errors from brokers that did not answer.
    GroupListing {
        /// Group ids.
        groups: Vec<String>,
        /// Per-broker errors.
        errors: Vec<NativeError>,
    },
    /// Result of create topics: per topic, an error or none.
    CreatedTopics(Vec<(String, Option<NativeError>)>),
    /// An event this module does not read.
    Other,
}

/// An admin result and the tag its request was submitted with.
#[derive(Debug)]
pub struct AdminResult {
    /// The tag given at submission.
    pub tag: u64,
    /// The outcome.
    pub outcome: AdminOutcome,
}

struct Options(*mut rd::rd_kafka_AdminOptions_t);

impl Options {
    fn new<C: ClientContext>(
        client: &Client<C>,
        op: rd::rd_kafka_admin_op_t,
        tag: u64,
        timeout: Duration,
    ) -> Self {
        // SAFETY: live client; the options are destroyed in Drop; the opaque is a plain integer.
        unsafe {
            let o = rd::rd_kafka_AdminOptions_new(client.native_ptr(), op);
            let mut errbuf = [0 as libc::c_char; 256];
            rd::rd_kafka_AdminOptions_set_request_timeout(
                o,
                timeout_ms(timeout).max(1),
                errbuf.as_mut_ptr(),
                errbuf.len(),
            );
            rd::rd_kafka_AdminOptions_set_opaque(o, tag as usize as *mut c_void);
            Options(o)
        }
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        // SAFETY: owned options; librdkafka copied what it needs at submission.
        unsafe { rd::rd_kafka_AdminOptions_destroy(self.0) }
    }
}

/// Submits ListConsumerGroupOffsets for one group: all its committed partitions, or only
/// `partitions` when given. librdkafka accepts one group per request, so callers batch by keeping
/// several in flight.
pub fn submit_list_group_offsets<C: ClientContext>(
    client: &Client<C>,
    queue: &QueueHandle,
    group: &str,
    partitions: Option<&[(String, i32)]>,
    tag: u64,
    timeout: Duration,
) {
    let g = c_string(group);
    let opts = Options::new(
        client,
        rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS,
        tag,
        timeout,
    );
    // SAFETY: the list and request are destroyed after submission (librdkafka copies them).
    unsafe {
        let list = match partitions {
            Some(ps) => {
                let list = rd::rd_kafka_topic_partition_list_new(ps.len() as libc::c_int);
                for (topic, partition) in ps {
                    let t = c_string(topic);
                    rd::rd_kafka_topic_partition_list_add(list, t.as_ptr(), *partition);
                }
                list
            }
            None => ptr::null_mut(),
        };
        let mut req = rd::rd_kafka_ListConsumerGroupOffsets_new(g.as_ptr(), list);
        rd::rd_kafka_ListConsumerGroupOffsets(client.native_ptr(), &mut req, 1, opts.0, queue.0);
        rd::rd_kafka_ListConsumerGroupOffsets_destroy(req);
        if !list.is_null() {
            rd::rd_kafka_topic_partition_list_destroy(list);
        }
    }
}

/// Submits AlterConsumerGroupOffsets for one group.
pub fn submit_alter_group_offsets<C: ClientContext>(
    client: &Client<C>,
    queue: &QueueHandle,
    group: &str,
    offsets: &[(String, i32, i64, String)],
    tag: u64,
    timeout: Duration,
) {
    let g = c_string(group);
    let opts = Options::new(
        client,
        rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS,
        tag,
        timeout,
    );
    // SAFETY: the list and request are owned here and destroyed after submission; metadata is
    // malloc'ed because librdkafka frees it with the list.
    unsafe {
        let list = rd::rd_kafka_topic_partition_list_new(offsets.len() as libc::c_int);
        for (topic, partition, offset, metadata) in offsets {
            let t = c_string(topic);
            let tp = rd::rd_kafka_topic_partition_list_add(list, t.as_ptr(), *partition);
            (*tp).offset = *offset;
            if !metadata.is_empty() {
                let buf = libc::malloc(metadata.len());
                if !buf.is_null() {
                    ptr::copy_nonoverlapping(metadata.as_ptr(), buf as *mut u8, metadata.len());
                    (*tp).metadata = buf;
                    (*tp).metadata_size = metadata.len();
                }
            }
        }
        let mut req = rd::rd_kafka_AlterConsumerGroupOffsets_new(g.as_ptr(), list);
        rd::rd_kafka_AlterConsumerGroupOffsets(client.native_ptr(), &mut req, 1, opts.0, queue.0);
        rd::rd_kafka_AlterConsumerGroupOffsets_destroy(req);
        rd::rd_kafka_topic_partition_list_destroy(list);
    }
}

/// Submits DescribeConsumerGroups for `groups`.
pub fn submit_describe_groups<C: ClientContext>(
    client: &Client<C>,
    queue: &QueueHandle,
    groups: &[String],
    tag: u64,
    timeout: Duration,
) {
    let owned: Vec<CString> = groups.iter().map(|g| c_string(g)).collect();
    let mut ptrs: Vec<*const libc::c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    let opts = Options::new(
        client,
        rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS,
        tag,
        timeout,
    );
    // SAFETY: the group name array lives until the call returns; librdkafka copies it.
    unsafe {
        rd::rd_kafka_DescribeConsumerGroups(
            client.native_ptr(),
            ptrs.as_mut_ptr(),
            ptrs.len(),
            opts.0,
            queue.0,
        );
    }
}

/// Submits ListConsumerGroups (every group on every broker).
pub fn submit_list_groups<C: ClientContext>(
    client: &Client<C>,
    queue: &QueueHandle,
    tag: u64,
    timeout: Duration,
) {
    let opts = Options::new(
        client,
        rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS,
        tag,
        timeout,
    );
    // SAFETY: live client and queue.
    unsafe { rd::rd_kafka_ListConsumerGroups(client.native_ptr(), opts.0, queue.0) }
}

/// Submits CreateTopics for one topic with the given configs.
#[allow(clippy::too_many_arguments)]
pub fn submit_create_topic<C: ClientContext>(
    client: &Client<C>,
    queue: &QueueHandle,
    topic: &str,
    partitions: i32,
    replication_factor: i32,
    configs: &[(&str, &str)],
    tag: u64,
    timeout: Duration,
) -> Result<(), String> {
    let t = c_string(topic);
    let opts = Options::new(
        client,
        rd::rd_kafka_admin_op_t::RD_KAFKA_ADMIN_OP_CREATETOPICS,
        tag,
        timeout,
    );
    // SAFETY: the NewTopic is owned here and destroyed after submission.
    unsafe {
        let mut errbuf = [0 as libc::c_char; 512];
        let mut nt = rd::rd_kafka_NewTopic_new(
            t.as_ptr(),
            partitions,
            replication_factor,
            errbuf.as_mut_ptr(),
            errbuf.len(),
        );
        if nt.is_null() {
            return Err(owned_str(errbuf.as_ptr()));
        }
        for (k, v) in configs {
            let (k, v) = (c_string(k), c_string(v));
            rd::rd_kafka_NewTopic_set_config(nt, k.as_ptr(), v.as_ptr());
        }
        rd::rd_kafka_CreateTopics(client.native_ptr(), &mut nt, 1, opts.0, queue.0);
        rd::rd_kafka_NewTopic_destroy(nt);
    }
    Ok(())
}

/// Waits up to `timeout` for the next admin result on `queue`; `None` on timeout or wake.
pub fn poll_admin_result(queue: &QueueHandle, timeout: Duration) -> Option<AdminResult> {
    // SAFETY: the event is read and destroyed here; all strings are copied out first.
    unsafe {
        let ev = rd::rd_kafka_queue_poll(queue.0, timeout_ms(timeout));
        if ev.is_null() {
            return None;
        }
        let tag = rd::rd_kafka_event_opaque(ev) as usize as u64;
        let outcome = read_admin_event(ev);
        rd::rd_kafka_event_destroy(ev);
        Some(AdminResult { tag, outcome })
    }
}

/// # Safety
/// `ev` is a live event.
unsafe fn read_admin_event(ev: *mut rd::rd_kafka_event_t) -> AdminOutcome {
    let code = rd::rd_kafka_event_error(ev);
    if code != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
        let message = owned_str(rd::rd_kafka_event_error_string(ev));
        return AdminOutcome::Failed(NativeError {
            code: code.into(),
            message,
        });
    }
    let mut cnt = 0usize;
    match rd::rd_kafka_event_type(ev) {
        rd::RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT => {
            let res = rd::rd_kafka_event_ListConsumerGroupOffsets_result(ev);
            let groups = rd::rd_kafka_ListConsumerGroupOffsets_result_groups(res, &mut cnt);
            AdminOutcome::GroupOffsets(read_group_results(groups, cnt))
        }
        rd::RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT => {
            let res = rd::rd_kafka_event_AlterConsumerGroupOffsets_result(ev);
            let groups = rd::rd_kafka_AlterConsumerGroupOffsets_result_groups(res, &mut cnt);
            AdminOutcome::GroupOffsets(read_group_results(groups, cnt))
        }
        rd::RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT => {
            let res = rd::rd_kafka_event_DescribeConsumerGroups_result(ev);
            let descs = rd::rd_kafka_DescribeConsumerGroups_result_groups(res, &mut cnt);
            let mut out = Vec::with_capacity(cnt);
            for i in 0..cnt {
                let d = *descs.add(i);
                out.push(GroupDescription {
                    group: owned_str(rd::rd_kafka_ConsumerGroupDescription_group_id(d)),
                    state: group_state(rd::rd_kafka_ConsumerGroupDescription_state(d)),
                    error: NativeError::from_error_t(rd::rd_kafka_ConsumerGroupDescription_error(
                        d,
                    )),
                });
            }
            AdminOutcome::GroupDescriptions(out)
        }
        rd::RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT => {
            let res = rd::rd_kafka_event_ListConsumerGroups_result(ev);
            let valid = rd::rd_kafka_ListConsumerGroups_result_valid(res, &mut cnt);
            let mut groups = Vec::with_capacity(cnt);
            for i in 0..cnt {
                groups.push(owned_str(rd::rd_kafka_ConsumerGroupListing_group_id(
                    *valid.add(i),
                )));
            }
            let mut ecnt = 0usize;
            let errs = rd::rd_kafka_ListConsumerGroups_result_errors(res, &mut ecnt);
            let errors = (0..ecnt)
                .filter_map(|i| NativeError::from_error_t(*errs.add(i)))
                .collect();
            AdminOutcome::GroupListing { groups, errors }
        }
        rd::RD_KAFKA_EVENT_CREATETOPICS_RESULT => {
            let res = rd::rd_kafka_event_CreateTopics_result(ev);
            let topics = rd::rd_kafka_CreateTopics_result_topics(res, &mut cnt);
            let mut out = Vec::with_capacity(cnt);
            for i in 0..cnt {
                let t = *topics.add(i);
                let err = rd::rd_kafka_topic_result_error(t);
                let error = NativeError::from_code(err).map(|mut e| {
                    let detail = owned_str(rd::rd_kafka_topic_result_error_string(t));
                    if !detail.is_empty() {
                        e.message = detail;
                    }
                    e
                });
                out.push((owned_str(rd::rd_kafka_topic_result_name(t)), error));
            }
            AdminOutcome::CreatedTopics(out)
        }
        _ => AdminOutcome::Other,
    }
}

/// # Safety
/// `groups` points to `cnt` live group results.
unsafe fn read_group_results(
    groups: *mut *const rd::rd_kafka_group_result_t,
    cnt: usize,
) -> Vec<GroupOffsets> {
    let mut out = Vec::with_capacity(cnt);
    for i in 0..cnt {
        let g = *groups.add(i);
        let mut partitions = Vec::new();
        let list = rd::rd_kafka_group_result_partitions(g);
        if !list.is_null() {
            let l = &*list;
            for j in 0..usize::try_from(l.cnt).unwrap_or(0) {
                let e = &*l.elems.add(j);
                let metadata = copy_bytes(e.metadata, e.metadata_size)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                partitions.push(PartitionOffset {
                    topic: owned_str(e.topic),
                    partition: e.partition,
                    offset: e.offset,
                    metadata,
                    error: NativeError::from_code(e.err),
                });
            }
        }
        out.push(GroupOffsets {
            group: owned_str(rd::rd_kafka_group_result_name(g)),
            error: NativeError::from_error_t(rd::rd_kafka_group_result_error(g)),
            partitions,
        });
    }
    out
}

fn group_state(s: rd::rd_kafka_consumer_group_state_t) -> NativeGroupState {
    use rd::rd_kafka_consumer_group_state_t as S;
    match s {
        S::RD_KAFKA_CONSUMER_GROUP_STATE_PREPARING_REBALANCE => {
            NativeGroupState::PreparingRebalance
        }
        S::RD_KAFKA_CONSUMER_GROUP_STATE_COMPLETING_REBALANCE => {
            NativeGroupState::CompletingRebalance
        }
        S::RD_KAFKA_CONSUMER_GROUP_STATE_STABLE => NativeGroupState::Stable,
        S::RD_KAFKA_CONSUMER_GROUP_STATE_DEAD => NativeGroupState::Dead,
        S::RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY => NativeGroupState::Empty,
        _ => NativeGroupState::Unknown,
    }
}

/// Test support: makes broker `broker` of the mock cluster `client` runs
/// (`test.mock.num.brokers`) answer its next `count` requests with API key `api` with `error`,
/// while the other brokers answer normally (rust-rdkafka's mock API injects errors only
/// cluster-wide).
#[cfg(test)]
pub fn push_mock_broker_errors<C: ClientContext>(
    client: &Client<C>,
    broker: i32,
    api: rd::types::RDKafkaApiKey,
    error: RDKafkaErrorCode,
    count: usize,
) {
    // SAFETY: the mock cluster belongs to the live client; the variadic arguments are one
    // (error code, round-trip time in ms) pair of C ints, as `cnt` = 1 says.
    unsafe {
        let mock = rd::rd_kafka_handle_mock_cluster(client.native_ptr());
        assert!(!mock.is_null(), "the client runs no mock cluster");
        for _ in 0..count {
            let err = rd::rd_kafka_mock_broker_push_request_error_rtts(
                mock,
                broker,
                api as i16,
                1,
                error as libc::c_int,
                0 as libc::c_int,
            );
            assert_eq!(err, rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR);
        }
    }
}
