//! Every flow of one configuration in one object: a [`CheckpointTask`] per enabled flow of an
//! `mm2.properties` (A->B and B->A, say, the second with reverse checkpoints for failback),
//! started together and stopped together.
//!
//! The stop keeps each task's guarantees and takes about as long as the slowest flow, not the
//! sum: every flow's stop flag is set and its blocked calls woken first, then each flow's
//! threads are joined and only then its clients closed. A flow that fails does not stop the
//! others; [`CheckpointFlows::failed`] names it with its error.

use crate::runtime::checkpoint_task::{CheckpointTask, StopOutcome};
use mm2_checkpoint_core::error::{ConfigError, Error};
use mm2_checkpoint_core::mirror_checkpoint_config::{ConfigWarning, MirrorCheckpointConfig};

/// One task per flow, each named `source->target`.
pub struct CheckpointFlows {
    flows: Vec<(String, CheckpointTask)>,
}

impl CheckpointFlows {
    /// A task per configuration, in order. Refuses an empty list and two configurations of one
    /// flow (key `source.cluster.alias`), and whatever [`CheckpointTask::new`] refuses.
    pub fn new(configs: Vec<MirrorCheckpointConfig>) -> Result<Self, Error> {
        if configs.is_empty() {
            return Err(ConfigError::new("clusters", "no flow to run").into());
        }
        let mut flows: Vec<(String, CheckpointTask)> = Vec::with_capacity(configs.len());
        for config in configs {
            let name = format!(
                "{}->{}",
                config.source_cluster_alias, config.target_cluster_alias
            );
            if flows.iter().any(|(n, _)| *n == name) {
                return Err(ConfigError::new(
                    "source.cluster.alias",
                    format!("the flow {name} is given twice"),
                )
                .into());
            }
            flows.push((name, CheckpointTask::new(config)?));
        }
        Ok(CheckpointFlows { flows })
    }

    /// Every enabled flow of an `mm2.properties` text
    /// ([`MirrorCheckpointConfig::flows_from_properties_text`]), with each flow's warnings.
    pub fn from_properties_text(text: &str) -> Result<(Self, Vec<ConfigWarning>), Error> {
        let parsed = MirrorCheckpointConfig::flows_from_properties_text(text)?;
        let mut warnings = Vec::new();
        let mut configs = Vec::with_capacity(parsed.len());
        for (config, flow_warnings) in parsed {
            for w in flow_warnings {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            configs.push(config);
        }
        Ok((Self::new(configs)?, warnings))
    }

    /// The flows' names (`A->B`) and tasks, in order.
    pub fn flows(&self) -> impl Iterator<Item = (&str, &CheckpointTask)> {
        self.flows.iter().map(|(name, task)| (name.as_str(), task))
    }

    /// The task of flow `name` (`A->B`).
    pub fn task(&self, name: &str) -> Option<&CheckpointTask> {
        self.flows.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// Starts every flow, in order. When one cannot start, the ones already started are
    /// stopped and that flow's name is returned with its error.
    pub fn start(&self) -> Result<(), (String, Error)> {
        for (i, (name, task)) in self.flows.iter().enumerate() {
            if let Err(e) = task.start() {
                for (_, started) in &self.flows[..i] {
                    started.begin_stop();
                }
                for (_, started) in &self.flows[..i] {
                    // Already stopped ones just say so; nothing else can fail here.
                    let _ = started.stop();
                }
                return Err((name.clone(), e));
            }
        }
        Ok(())
    }

    /// The flows whose task failed for good, with their error.
    pub fn failed(&self) -> Vec<(String, String)> {
        self.flows
            .iter()
            .filter_map(|(name, task)| task.fatal_error().map(|e| (name.clone(), e)))
            .collect()
    }

    /// Stops every flow: all stop flags set and blocked calls woken first, then each flow
    /// joined and closed. Returns each flow's outcome, in order.
    pub fn stop(&self) -> Vec<(String, Result<StopOutcome, Error>)> {
        for (_, task) in &self.flows {
            task.begin_stop();
        }
        self.flows
            .iter()
            .map(|(name, task)| (name.clone(), task.stop()))
            .collect()
    }
}
