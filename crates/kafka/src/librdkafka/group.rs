//! The consumer-group calls of the coordination consumer (`task.assignment=group`): rebalance
//! events delivered on the consumer queue (so the owning thread, not a librdkafka callback,
//! decides when to acknowledge), incremental assignment for the cooperative protocol, and the
//! asynchronous close that sends LeaveGroup.
//!
//! The application acknowledges a rebalance by calling
//! [`acknowledge`](crate::librdkafka::group::acknowledge); librdkafka does not start
//! the next one before that, which is what lets the owner finish its cycle before a revoked
//! partition moves on.

use std::time::Duration;

use rdkafka::client::{Client, ClientContext};
use rdkafka::config::NativeClientConfig;
use rdkafka_sys as rd;

use super::{c_string, owned_str, poll_consumer_events, read_consumer_event, NativeError, Polled};

/// Delivers rebalances as events on the consumer queue instead of acknowledging them inside
/// librdkafka. Call on the native config before the client is created.
pub fn enable_rebalance_events(config: &NativeClientConfig) {
    // SAFETY: the config is live and not yet owned by a client.
    unsafe {
        rd::rd_kafka_conf_set_events(
            config.ptr(),
            rd::RD_KAFKA_EVENT_REBALANCE | rd::RD_KAFKA_EVENT_ERROR,
        )
    }
}

/// One result of [`poll_group`].
#[derive(Debug)]
pub enum GroupPolled {
    /// The coordinator assigned these partitions of the subscribed topic (with the cooperative
    /// protocol: in addition to those already held).
    Assigned(Vec<i32>),
    /// These partitions are taken away; `lost` when the coordinator already considers this
    /// member gone (session expired), so another member may own them already.
    Revoked {
        /// The partitions.
        partitions: Vec<i32>,
        /// True for a lost assignment.
        lost: bool,
    },
    /// A consumer error event.
    Error(NativeError),
    /// The timeout passed or the queue was woken.
    Nothing,
}

/// Subscribes a consumer-type client (with `group.id`) to `topic` and forwards its main queue to
/// the consumer queue, so [`poll_group`] serves rebalances, errors and logs.
pub fn subscribe<C: ClientContext>(client: &Client<C>, topic: &str) -> Result<(), NativeError> {
    let t = c_string(topic);
    // SAFETY: live client; the list is destroyed after subscribe copies it.
    unsafe {
        rd::rd_kafka_poll_set_consumer(client.native_ptr());
        let list = rd::rd_kafka_topic_partition_list_new(1);
        rd::rd_kafka_topic_partition_list_add(list, t.as_ptr(), -1); // RD_KAFKA_PARTITION_UA: a whole-topic entry
        let err = rd::rd_kafka_subscribe(client.native_ptr(), list);
        rd::rd_kafka_topic_partition_list_destroy(list);
        match NativeError::from_code(err) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Polls the consumer queue up to `timeout` for a rebalance or an error; records fetched from
/// the subscribed topic are ignored (it carries none). Returns early when the queue is woken.
pub fn poll_group<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    timeout: Duration,
) -> GroupPolled {
    let rk = client.native_ptr();
    // SAFETY: each event handed over is live for the call; what it carries is copied out.
    poll_consumer_events(client, timeout, |ev| unsafe {
        if rd::rd_kafka_event_type(ev) == rd::RD_KAFKA_EVENT_REBALANCE {
            let partitions = partitions_of(rd::rd_kafka_event_topic_partition_list(ev), topic);
            return Some(match rd::rd_kafka_event_error(ev) {
                rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => {
                    GroupPolled::Assigned(partitions)
                }
                _ => GroupPolled::Revoked {
                    partitions,
                    lost: rd::rd_kafka_assignment_lost(rk) != 0,
                },
            });
        }
        match read_consumer_event(ev, client.context().as_ref()) {
            Some(Polled::Error(e)) => Some(GroupPolled::Error(e)),
            _ => None,
        }
    })
    .unwrap_or(GroupPolled::Nothing)
}

/// # Safety
/// `list` is NULL or a live partition list.
unsafe fn partitions_of(list: *const rd::rd_kafka_topic_partition_list_t, topic: &str) -> Vec<i32> {
    if list.is_null() {
        return Vec::new();
    }
    let l = &*list;
    let mut out = Vec::new();
    for i in 0..usize::try_from(l.cnt).unwrap_or(0) {
        let tp = &*l.elems.add(i);
        if owned_str(tp.topic) == topic {
            out.push(tp.partition);
        }
    }
    out.sort_unstable();
    out
}

/// Acknowledges a rebalance event: takes `partitions` of `topic` on (`assign`) or gives them up.
/// Uses the incremental calls under the cooperative protocol and the full-assignment calls under
/// an eager one (where an assign event carries the whole assignment and a revoke all of it).
pub fn acknowledge<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partitions: &[i32],
    assign: bool,
) -> Result<(), NativeError> {
    let t = c_string(topic);
    // SAFETY: live client; the list is destroyed after the call copies it; an error object
    // returned is read and destroyed here.
    unsafe {
        let rk = client.native_ptr();
        let cooperative = owned_str(rd::rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
        let list = rd::rd_kafka_topic_partition_list_new(partitions.len().max(1) as i32);
        for p in partitions {
            rd::rd_kafka_topic_partition_list_add(list, t.as_ptr(), *p);
        }
        let result = if cooperative {
            let error = if assign {
                rd::rd_kafka_incremental_assign(rk, list)
            } else {
                rd::rd_kafka_incremental_unassign(rk, list)
            };
            let e = NativeError::from_error_t(error);
            if !error.is_null() {
                rd::rd_kafka_error_destroy(error);
            }
            e
        } else {
            let err = rd::rd_kafka_assign(rk, if assign { list } else { std::ptr::null_mut() });
            NativeError::from_code(err)
        };
        rd::rd_kafka_topic_partition_list_destroy(list);
        match result {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Starts leaving the group (LeaveGroup); the revoke it causes arrives on the consumer queue and
/// must be acknowledged; [`closed`] says when the close has finished.
pub fn begin_close<C: ClientContext>(client: &Client<C>) -> Result<(), NativeError> {
    // SAFETY: live client; the queue reference is released after the call; an error object
    // returned is read and destroyed here.
    unsafe {
        let rk = client.native_ptr();
        let queue = rd::rd_kafka_queue_get_consumer(rk);
        if queue.is_null() {
            return Ok(());
        }
        let error = rd::rd_kafka_consumer_close_queue(rk, queue);
        rd::rd_kafka_queue_destroy(queue);
        let e = NativeError::from_error_t(error);
        if !error.is_null() {
            rd::rd_kafka_error_destroy(error);
        }
        match e {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// True once the close begun by [`begin_close`] has finished.
pub fn closed<C: ClientContext>(client: &Client<C>) -> bool {
    // SAFETY: live client.
    unsafe { rd::rd_kafka_consumer_closed(client.native_ptr()) != 0 }
}
