//! The consumer of `task.assignment=group`: a member of the coordination group on the target
//! cluster, subscribed to the coordination topic with the cooperative-sticky assignor. It reads
//! no records; its assignment is the share of the groups this process checkpoints.
//!
//! Like every client here it belongs to one thread at a time (the coordination thread, then the
//! stopper after the join) and its consumer queue is registered with the stop signal, so a stop
//! wakes a blocked [`poll`](CoordinationConsumer::poll). Rebalances arrive as events and are
//! acknowledged by the owner ([`acknowledge`](CoordinationConsumer::acknowledge)), never inside
//! librdkafka, so a revocation waits until the owner's cycle is done with the partitions.
//! [`close`](CoordinationConsumer::close) leaves the group (LeaveGroup), so the survivors
//! rebalance at once instead of after `session.timeout.ms`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::client::Client;

use super::client_log::ClientLog;
use super::wakeable_client::WakeableClient;
use super::{client_config, consumer_client};
use crate::librdkafka::group::{self as native, GroupPolled};
use crate::librdkafka::QueueHandle;
use crate::stop_signal::StopSignal;
use mm2_checkpoint_core::error::Error;

/// Longest single wait inside [`CoordinationConsumer::close`]'s loop.
const CLOSE_SLICE: Duration = Duration::from_millis(100);

/// What [`CoordinationConsumer::poll`] saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoordinationEvent {
    /// Partitions added to this member; acknowledge with `acknowledge(.., true)`.
    Assigned(Vec<i32>),
    /// Partitions taken away (`lost`: the coordinator already gave up on this member);
    /// acknowledge with `acknowledge(.., false)` once nothing uses them any more.
    Revoked {
        /// The partitions.
        partitions: Vec<i32>,
        /// True when the assignment was lost rather than revoked.
        lost: bool,
    },
    /// Nothing within the wait (or woken).
    Nothing,
}

/// A member of the coordination group.
pub struct CoordinationConsumer {
    consumer: WakeableClient<Client<ClientLog>>,
    topic: String,
    group_id: String,
}

impl CoordinationConsumer {
    /// Creates the consumer and subscribes it to `topic` as a member of `group_id`. Does no
    /// blocking I/O; the join happens in the background and shows up as an `Assigned` event.
    pub fn open(
        settings: &BTreeMap<String, String>,
        group_id: &str,
        topic: &str,
        signal: &StopSignal,
    ) -> Result<Self, Error> {
        let mut config = client_config(settings);
        config
            .set("group.id", group_id)
            // Moving a partition between live members costs a catch-up read: move only those
            // that must move.
            .set("partition.assignment.strategy", "cooperative-sticky")
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "false")
            .set("auto.offset.reset", "latest");
        let creating = || format!("creating the coordination consumer of group `{group_id}`");
        let client = consumer_client(&config, settings, creating, |native| {
            native::enable_rebalance_events(native)
        })?;
        let consumer = WakeableClient::new(
            client,
            "coordination-target-consumer",
            signal,
            QueueHandle::consumer_queue,
        )
        .ok_or_else(|| Error::kafka(format!("joining `{group_id}`"), "no consumer queue"))?;
        consumer
            .call(|c| native::subscribe(c, topic))
            .map_err(|e| Error::kafka(format!("subscribing to `{topic}`"), e))?;
        Ok(CoordinationConsumer {
            consumer,
            topic: topic.to_string(),
            group_id: group_id.to_string(),
        })
    }

    /// Waits up to `max_wait` for a rebalance; returns early when woken. Client errors are
    /// logged (librdkafka retries them itself).
    pub fn poll(&mut self, max_wait: Duration) -> CoordinationEvent {
        let topic = self.topic.as_str();
        match self
            .consumer
            .call(|c| native::poll_group(c, topic, max_wait))
        {
            GroupPolled::Assigned(partitions) => CoordinationEvent::Assigned(partitions),
            GroupPolled::Revoked { partitions, lost } => {
                CoordinationEvent::Revoked { partitions, lost }
            }
            GroupPolled::Error(e) => {
                log::warn!("coordination group `{}`: {e}", self.group_id);
                CoordinationEvent::Nothing
            }
            GroupPolled::Nothing => CoordinationEvent::Nothing,
        }
    }

    /// Acknowledges the last rebalance event: takes `partitions` on (`assign`) or releases them.
    pub fn acknowledge(&mut self, partitions: &[i32], assign: bool) -> Result<(), Error> {
        let topic = self.topic.as_str();
        self.consumer
            .call(|c| native::acknowledge(c, topic, partitions, assign))
            .map_err(|e| {
                Error::kafka(
                    format!(
                        "{} partitions {partitions:?} of `{topic}` in group `{}`",
                        if assign { "taking on" } else { "releasing" },
                        self.group_id
                    ),
                    e,
                )
            })
    }

    /// Leaves the group (LeaveGroup) so the other members rebalance at once, releasing whatever
    /// the close revokes, for at most `timeout`. Call after every thread that used the
    /// partitions has stopped; the consumer is destroyed when this value is dropped.
    pub fn close(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        if let Err(e) = self.consumer.call(native::begin_close) {
            log::warn!("leaving coordination group `{}`: {e}", self.group_id);
            return;
        }
        loop {
            if self.consumer.call(native::closed) {
                log::debug!("left coordination group `{}`", self.group_id);
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                log::warn!(
                    "leaving coordination group `{}` took longer than {timeout:?}; closing anyway",
                    self.group_id
                );
                return;
            }
            if let CoordinationEvent::Revoked { partitions, .. } =
                self.poll(CLOSE_SLICE.min(deadline - now))
            {
                if let Err(e) = self.acknowledge(&partitions, false) {
                    log::debug!("{e}");
                }
            }
        }
    }
}
