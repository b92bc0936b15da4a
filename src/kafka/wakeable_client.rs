//! A Kafka client that a stop can always wake: the client, the librdkafka queue its owner blocks
//! on, and that queue's registration with the task's stop signal, as one value.
//!
//! Constructing one registers it, and it is the only place the library takes a queue from a
//! client, so no blocking wait on a client queue can exist that [`StopSignal::stop`] does not
//! yield. Dropping it unregisters the queue first (a stop can no longer reach it), then releases
//! the queue, and only then destroys the client the queue belongs to.

use std::sync::Arc;

use super::Owned;
use crate::kafka::librdkafka::QueueHandle;
use crate::kafka::stop_signal::{StopSignal, WakeRegistration};

/// A client, its wakeable queue and their registration. Belongs to one thread at a time.
pub struct WakeableClient<T> {
    // `Some` until dropped; taken one by one in Drop, in the order that keeps every pointer valid.
    registration: Option<WakeRegistration>,
    queue: Option<Arc<QueueHandle>>,
    client: Option<Owned<T>>,
}

impl<T> WakeableClient<T> {
    /// Wraps a freshly created client and registers the queue `queue_of` takes from it;
    /// `None` when the client has no such queue.
    pub(crate) fn new(
        client: T,
        role: &'static str,
        signal: &StopSignal,
        queue_of: impl FnOnce(&T) -> Option<QueueHandle>,
    ) -> Option<Self> {
        let client = Owned::new(client, role, signal);
        let queue = Arc::new(client.call(queue_of)?);
        let registration = signal.register(Arc::clone(&queue));
        Some(WakeableClient {
            registration: Some(registration),
            queue: Some(queue),
            client: Some(client),
        })
    }

    /// Runs `f` on the client (see [`Owned::call`]).
    pub(crate) fn call<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        match &self.client {
            Some(client) => client.call(f),
            None => unreachable!("the client is only taken out while it is dropped"),
        }
    }

    /// The registered queue: a wait on it returns when the task stops.
    pub(crate) fn queue(&self) -> &QueueHandle {
        match &self.queue {
            Some(queue) => queue,
            None => unreachable!("the queue is only taken out while it is dropped"),
        }
    }
}

impl<T> Drop for WakeableClient<T> {
    fn drop(&mut self) {
        // Unregister under the signal's lock: from here on a stop cannot yield the queue.
        drop(self.registration.take());
        // Release our reference to the queue before the client it belongs to is destroyed.
        drop(self.queue.take());
        drop(self.client.take());
    }
}
