//! A Kafka client that a stop can always wake: the client, the librdkafka queue its owner blocks
//! on, and that queue's registration with the task's stop signal, as one value.
//!
//! Constructing one registers it, and it is the only place the library takes a queue from a
//! client, so no blocking wait on a client queue can exist that [`StopSignal::stop`] does not
//! yield. Taking a queue needs a [`QueueGrant`], whose constructor is `unsafe` and so, under the
//! crate's `deny(unsafe_code)`, is called here and nowhere else outside the librdkafka module:
//! every queue the library keeps is owned by the value that owns its client. Dropping it
//! unregisters the queue first (a stop can no longer reach it), then releases the queues, and
//! only then destroys the client they belong to — whatever order the fields of the type holding
//! it are declared in.

use std::sync::Arc;

use super::Owned;
use crate::librdkafka::{QueueGrant, QueueHandle};
use crate::stop_signal::{StopSignal, WakeRegistration};

/// A client, its wakeable queue and their registration. Belongs to one thread at a time.
pub struct WakeableClient<T> {
    // `Some` until dropped; taken one by one in Drop, in the order that keeps every pointer valid.
    registration: Option<WakeRegistration>,
    queue: Option<Arc<QueueHandle>>,
    /// A second queue of the client that is only read without waiting (the main queue of a
    /// reader whose consumer queue is read in batches), so never registered.
    events: Option<QueueHandle>,
    client: Option<Owned<T>>,
}

/// The grant for queues of a client about to be owned by a [`WakeableClient`].
fn grant() -> QueueGrant {
    #[allow(unsafe_code)]
    // SAFETY: every queue taken with it is stored in the WakeableClient that owns its client,
    // whose Drop releases the queues before the client.
    unsafe {
        QueueGrant::new()
    }
}

impl<T> WakeableClient<T> {
    /// Wraps a freshly created client and registers the queue `queue_of` takes from it;
    /// `None` when the client has no such queue.
    pub fn new(
        client: T,
        role: &'static str,
        signal: &StopSignal,
        queue_of: impl FnOnce(&T, &QueueGrant) -> Option<QueueHandle>,
    ) -> Option<Self> {
        let client = Owned::new(client, role, signal);
        let queue = Arc::new(client.call(|c| queue_of(c, &grant()))?);
        let registration = signal.register(Arc::clone(&queue));
        Some(WakeableClient {
            registration: Some(registration),
            queue: Some(queue),
            events: None,
            client: Some(client),
        })
    }

    /// Takes a second queue from the client with `queue_of`, kept (and released before the
    /// client) with the registered one; read it through [`events`](Self::events).
    pub fn with_events(mut self, queue_of: impl FnOnce(&T, &QueueGrant) -> QueueHandle) -> Self {
        let events = self.call(|c| queue_of(c, &grant()));
        self.events = Some(events);
        self
    }

    /// Runs `f` on the client (see [`Owned::call`]).
    pub fn call<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        match &self.client {
            Some(client) => client.call(f),
            None => unreachable!("the client is only taken out while it is dropped"),
        }
    }

    /// The registered queue: a wait on it returns when the task stops.
    pub fn queue(&self) -> &QueueHandle {
        match &self.queue {
            Some(queue) => queue,
            None => unreachable!("the queue is only taken out while it is dropped"),
        }
    }

    /// The queue [`with_events`](Self::with_events) took, if any.
    pub fn events(&self) -> Option<&QueueHandle> {
        self.events.as_ref()
    }
}

impl<T> Drop for WakeableClient<T> {
    fn drop(&mut self) {
        // Unregister under the signal's lock: from here on a stop cannot yield the queue.
        drop(self.registration.take());
        // Release our references to the queues before the client they belong to is destroyed.
        // The signal dropped its clone of the registered queue when unregistering, so ours is
        // the last one.
        if let Some(queue) = self.queue.take() {
            debug_assert_eq!(Arc::strong_count(&queue), 1, "a queue outlives its owner");
            drop(queue);
        }
        drop(self.events.take());
        drop(self.client.take());
    }
}
