//! Test hooks at fixed points of start-up, rebalances and cycles, for the deterministic race
//! tests. Public only with the `internals` feature; otherwise unnameable outside the crate.

use std::sync::Arc;

pub use super::group_coordination::RebalanceHook;
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// A start-up hook: gets the task's stop signal, so it can hold start-up until a stop arrives
/// (the deterministic race tests).
pub type StartupHook = Arc<dyn Fn(&StopSignal) + Send + Sync>;

/// Test hooks run on the scheduler thread at fixed points of start-up.
#[derive(Clone, Default)]
pub struct StartupHooks {
    /// Runs after the checkpoints consumer is created, before it reads.
    pub checkpoint_store_reading: Option<StartupHook>,
    /// Runs after the offset-syncs consumer is created, before it reads.
    pub offset_sync_store_reading: Option<StartupHook>,
    /// Group mode: runs on the coordination thread with each rebalance, once the handover state
    /// has taken it in and before it is acknowledged.
    pub rebalance: Option<RebalanceHook>,
    /// Group mode: runs after a catch-up reader of the checkpoints topic is created, before it
    /// reads.
    pub catch_up_reading: Option<StartupHook>,
    /// Runs on the polling thread in every checkpoint cycle, once the first group's committed
    /// offsets arrived and before any checkpoint is written or any group checked for revocation.
    pub cycle_writing: Option<StartupHook>,
}
