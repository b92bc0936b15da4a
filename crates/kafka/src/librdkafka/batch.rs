//! Batch reads of a consumer queue (`rd_kafka_consume_batch_queue`): one queue lock and one app
//! poll bookkeeping per batch instead of per record, and the records' bytes lent to the caller
//! instead of copied. Used by the internal-topic reader, whose start-up load is a stream of a
//! million small records (BENCHMARKS.md "Start-up load").
//!
//! A batch call serves every operation on its queue that is not a message itself, through
//! callbacks; a client error served that way becomes a log line, its code lost. So a client read
//! in batches keeps its main queue (client errors, log lines) apart from the consumer queue
//! ([`assign_from_start_apart`](crate::librdkafka::batch::assign_from_start_apart)): the
//! consumer queue then holds only the partition's messages, its EOF and its errors, which the
//! batch returns as messages, and the main queue is read through the event API
//! ([`client_events`](crate::librdkafka::batch::client_events)), as
//! `librdkafka::consumer_poll` reads it. An error callback would not do: setting one makes librdkafka turn some of its log lines
//! ("1/1 brokers are down") into error events, changing what a reader sees.
//!
//! A yield of the queue (the stop's wake) makes a waiting batch call return at once, as it makes
//! `rd_kafka_queue_poll` return: librdkafka checks the yield flag of the queue the call waits on
//! (after following forwarding) before every wait, and a yield that came before the wait began
//! is kept until then.

use std::time::Duration;

use rdkafka::client::{Client, ClientContext};
use rdkafka_sys as rd;

use super::{
    c_string, read_consumer_event, timeout_ms, NativeError, Polled, QueueGrant, QueueHandle,
};

/// Assigns one partition of `topic` from offset 0, as
/// `librdkafka::consumer_assign_from_start` does, but leaves the main
/// queue where it is: read it with [`client_events`] on the queue [`main_queue`] returns.
pub fn assign_from_start_apart<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partition: i32,
) -> Result<(), NativeError> {
    assign_partitions_from_start_apart(client, topic, &[partition])
}

/// [`assign_from_start_apart`] for several partitions of `topic` at once (an assignment replaces
/// the previous one, so they must be given together).
pub fn assign_partitions_from_start_apart<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partitions: &[i32],
) -> Result<(), NativeError> {
    let from_start: Vec<(i32, i64)> = partitions.iter().map(|&p| (p, 0)).collect();
    assign_at_apart(client, topic, &from_start)
}

/// Assigns partitions of `topic`, each from the offset given with it (replacing the previous
/// assignment), leaving the main queue where it is, as [`assign_from_start_apart`] does.
pub fn assign_at_apart<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partitions: &[(i32, i64)],
) -> Result<(), NativeError> {
    let t = c_string(topic);
    let size = i32::try_from(partitions.len()).unwrap_or(i32::MAX);
    // SAFETY: live client; the list is destroyed after assign copies it.
    unsafe {
        let list = rd::rd_kafka_topic_partition_list_new(size);
        for &(partition, offset) in partitions {
            let tp = rd::rd_kafka_topic_partition_list_add(list, t.as_ptr(), partition);
            (*tp).offset = offset;
        }
        let err = rd::rd_kafka_assign(client.native_ptr(), list);
        rd::rd_kafka_topic_partition_list_destroy(list);
        match NativeError::from_code(err) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The client's main queue: client errors and, as rust-rdkafka sets it up, its log lines. Must be
/// dropped before the client is destroyed (hence the grant).
pub fn main_queue<C: ClientContext>(client: &Client<C>, _: &QueueGrant) -> QueueHandle {
    // SAFETY: live client; rd_kafka_queue_get_main never returns NULL.
    QueueHandle(unsafe { rd::rd_kafka_queue_get_main(client.native_ptr()) })
}

/// Serves what is already on `main` (a queue of `client`) without waiting: log lines go to the
/// client's context, client errors (and the "closed before answering" log line) are appended to
/// `errors`, as `librdkafka::consumer_poll` returns them.
pub fn client_events<C: ClientContext>(
    client: &Client<C>,
    main: &QueueHandle,
    errors: &mut Vec<NativeError>,
) {
    // SAFETY: live queue of a live client; each event is read, then destroyed.
    unsafe {
        loop {
            let ev = rd::rd_kafka_queue_poll(main.0, 0);
            if ev.is_null() {
                break;
            }
            if let Some(Polled::Error(e)) = read_consumer_event(ev, client.context().as_ref()) {
                errors.push(e);
            }
            rd::rd_kafka_event_destroy(ev);
        }
    }
}

/// One element of a batch, borrowing the message's bytes.
#[derive(Debug)]
pub enum Batched<'a> {
    /// A record (`None` = null key or value).
    Record {
        /// Partition.
        partition: i32,
        /// Offset.
        offset: i64,
        /// Key bytes.
        key: Option<&'a [u8]>,
        /// Value bytes.
        value: Option<&'a [u8]>,
    },
    /// The consumer reached the end of the partition: the Fetch high watermark, or with
    /// `read_committed` the last stable offset.
    PartitionEof {
        /// The partition.
        partition: i32,
        /// The end reached (the offset of the next record, once there is one).
        offset: i64,
    },
    /// A per-partition consumer error.
    Error(NativeError),
}

/// Room for the messages of one batch call; reused from call to call.
pub struct BatchBuffer {
    messages: Vec<*mut rd::rd_kafka_message_t>,
}

impl BatchBuffer {
    /// Room for up to `capacity` (at least 1) messages per call.
    pub fn new(capacity: usize) -> Self {
        BatchBuffer {
            messages: Vec::with_capacity(capacity.max(1)),
        }
    }
}

// SAFETY: between calls the buffer holds no message (each call destroys what it took before it
// returns); only its allocation moves between threads.
unsafe impl Send for BatchBuffer {}

/// What one batch call took: its messages, in queue order.
pub struct Batch<'a> {
    messages: &'a [*mut rd::rd_kafka_message_t],
}

impl Batch<'_> {
    /// How many messages (records, EOFs, partition errors) the call took. Used by the
    /// benchmarks through the `internals` feature only.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether the call took no message.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The messages in queue order.
    pub fn iter(&self) -> impl Iterator<Item = Batched<'_>> + '_ {
        // SAFETY: every pointer is a live message owned by the call until `read` returned.
        self.messages.iter().map(|&m| unsafe { batched(&*m) })
    }

    /// The value of the last header `name` of message `index` (in [`iter`](Self::iter)'s
    /// order), if it has one with a value.
    pub fn header(&self, index: usize, name: &std::ffi::CStr) -> Option<&[u8]> {
        let &m = self.messages.get(index)?;
        let mut headers: *mut rd::rd_kafka_headers_t = std::ptr::null_mut();
        let mut value: *const libc::c_void = std::ptr::null();
        let mut size: usize = 0;
        // SAFETY: a live message owned by the call; librdkafka keeps the headers with the
        // message, so the value lives as long as the batch.
        unsafe {
            if rd::rd_kafka_message_headers(m, &mut headers)
                != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
                || rd::rd_kafka_header_get_last(headers, name.as_ptr(), &mut value, &mut size)
                    != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                return None;
            }
            borrowed(value, size)
        }
    }
}

/// Takes up to `max` (at most the buffer's capacity) messages from `queue`, waiting up to
/// `timeout` for them (a zero timeout takes only what is queued already; having `max` messages
/// or a yield of the queue ends the wait early: to wait only for the first, ask for one), lends them to `read`, then destroys them. Other operations on the queue are
/// served on the way (see the module notes).
pub fn consume_batch<R>(
    queue: &QueueHandle,
    timeout: Duration,
    max: usize,
    buf: &mut BatchBuffer,
    read: impl FnOnce(Batch<'_>) -> R,
) -> R {
    let capacity = max.clamp(1, buf.messages.capacity());
    buf.messages.clear();
    // SAFETY: the queue is a live reference; the array has room for `capacity` pointers, and
    // librdkafka writes only the first `n` it returns.
    let n = unsafe {
        rd::rd_kafka_consume_batch_queue(
            queue.0,
            timeout_ms(timeout),
            buf.messages.as_mut_ptr(),
            capacity,
        )
    };
    // -1 only for an invalid queue; treat as "nothing taken".
    let n = usize::try_from(n).unwrap_or(0).min(capacity);
    // SAFETY: the first n elements were written by librdkafka above.
    unsafe { buf.messages.set_len(n) };
    let batch = Batch {
        messages: &buf.messages,
    };
    // The messages are destroyed even if `read` unwinds: a client cannot be destroyed while
    // messages it handed out are alive.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(batch)));
    for m in buf.messages.drain(..) {
        // SAFETY: each message was returned by the batch call above and is destroyed once.
        unsafe { rd::rd_kafka_message_destroy(m) }
    }
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// # Safety
/// `msg` is a live message whose key and payload pointers are valid for their lengths, for `'a`.
unsafe fn batched<'a>(msg: &'a rd::rd_kafka_message_t) -> Batched<'a> {
    match msg.err {
        rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR => Batched::Record {
            partition: msg.partition,
            offset: msg.offset,
            key: borrowed(msg.key, msg.key_len),
            value: borrowed(msg.payload, msg.len),
        },
        rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF => Batched::PartitionEof {
            partition: msg.partition,
            offset: msg.offset,
        },
        code => {
            let mut e = NativeError::from_code(code).unwrap_or(NativeError {
                code: code.into(),
                message: String::new(),
            });
            // For error messages librdkafka puts its detailed text in the payload.
            if let Some(text) = borrowed(msg.payload, msg.len) {
                e.message = String::from_utf8_lossy(text).into_owned();
            }
            Batched::Error(e)
        }
    }
}

/// # Safety
/// `p` is NULL or points to `len` bytes readable for `'a`.
unsafe fn borrowed<'a>(p: *const libc::c_void, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        Some(std::slice::from_raw_parts(p as *const u8, len))
    }
}
