//! Failback: moving consumer groups back to the original cluster after they ran on its replica.
//!
//! A flow A->B mirrors `orders` on A to `A.orders` on B and writes offset syncs. Consumers that
//! failed over to B commit on `A.orders`. Before they return to A, [`translate_offsets_back`]
//! reads those commits on B and the A->B flow's offset syncs, and translates each commit to an
//! offset on `orders` on A with the rules of [`ReverseTranslation`](crate::ReverseTranslation),
//! against every sync the topic still holds: never ahead (a consumer failing back skips no
//! record), re-reading at most the records between the nearest sync at or before the commit and
//! the commit itself. [`failback_report`]
//! is the dry run against the groups' current offsets on A (with a per-group "caught up"), and
//! [`commit_failback_offsets`] commits the translation into the groups that are idle on A.
//!
//! Nothing here writes checkpoints: every call reads what is on the clusters at that moment,
//! so its answer is as fresh as the groups' last commits on B.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::runtime::checkpoint_task::MAX_OFFSET_FETCHES_IN_FLIGHT;
use crate::runtime::remote_cluster_utils::{
    commit_into_idle_groups, failover_report, CommitReport, FailoverReport, GroupSelector,
    TranslatedOffset, TranslatedOffsets,
};
use mm2_checkpoint_core::error::{ConfigError, Error};
use mm2_checkpoint_core::mirror_checkpoint_config::MirrorCheckpointConfig;
use mm2_checkpoint_core::offset_sync::OffsetSyncRef;
use mm2_checkpoint_core::replication_policy::ReplicationPolicy;
use mm2_checkpoint_core::reverse_translation::{
    original_of_replica, ReplicaTopicError, ReverseQueries, ReverseTranslation,
};
use mm2_checkpoint_core::topic_partition::TopicPartition;
use mm2_checkpoint_kafka::admin::Admin;
use mm2_checkpoint_kafka::kafka_based_log::{each_record, KafkaBasedLog, ReadToEnd};
use mm2_checkpoint_kafka::stop_signal::StopSignal;

/// The forward flow (A->B) whose replica topics the groups consumed on B: the clusters, where
/// its offset syncs are, and its replication policy.
#[derive(Clone, Debug)]
pub struct ForwardFlow {
    /// The original cluster's alias (A): the replica topics on B carry it (`A.orders`).
    pub original_alias: String,
    /// The flow's replication policy; reverse translation needs the default policy.
    pub policy: ReplicationPolicy,
    /// librdkafka settings of the original cluster (A): the dry run and the commit go there.
    pub original_settings: BTreeMap<String, String>,
    /// librdkafka settings of the replica cluster (B), where the groups committed.
    pub replica_settings: BTreeMap<String, String>,
    /// librdkafka settings of the cluster that holds the flow's offset syncs (A with MM2's
    /// default `offset-syncs.topic.location = source`, else B).
    pub offset_syncs_settings: BTreeMap<String, String>,
    /// The flow's offset-syncs topic (`mm2-offset-syncs.B.internal` by default).
    pub offset_syncs_topic: String,
}

impl ForwardFlow {
    /// The forward flow described by its checkpoint configuration (the A->B flow's: source A,
    /// target B), with the client settings, offset-syncs location and policy written there.
    pub fn of(config: &MirrorCheckpointConfig) -> Result<Self, Error> {
        let policy = ReplicationPolicy::configure(
            &config.replication_policy_class,
            &config.policy_properties(),
        )?;
        Ok(ForwardFlow {
            original_alias: config.source_cluster_alias.clone(),
            policy,
            original_settings: config.source_admin_config(),
            replica_settings: config.target_admin_config(),
            offset_syncs_settings: config.offset_syncs_consumer_config(),
            offset_syncs_topic: config.offset_syncs_topic(),
        })
    }
}

/// A group's position on an original partition, translated back from its commit on the
/// replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailbackOffset {
    /// Where the group resumes on the original partition.
    pub offset: i64,
    /// The most records a consumer resuming there reads a second time.
    pub rereads_at_most: i64,
    /// The replica topic the group committed on (`A.orders`; same partition).
    pub replica_topic: String,
    /// The group's committed offset on the replica partition, which this translates.
    pub replica_offset: i64,
    /// The metadata the group committed with it on the replica.
    pub metadata: String,
}

/// A commit on a replica partition that has no translation, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untranslated {
    /// Consumer group.
    pub group: String,
    /// The replica partition the group committed on (`A.orders`-0).
    pub replica_partition: TopicPartition,
    /// The committed offset there.
    pub replica_offset: i64,
    /// Why there is no answer (no sync for the partition, or every kept sync after it).
    pub reason: ReverseTranslation,
}

/// Per group, per **original** topic-partition (`orders`-0 on A), the translated position;
/// plus what could not be translated and what was read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailbackOffsets {
    /// The offset-syncs topic that was read.
    pub offset_syncs_topic: String,
    /// Group → original partition → translated offset.
    pub groups: BTreeMap<String, BTreeMap<TopicPartition, FailbackOffset>>,
    /// Commits on replica partitions without a translation (ordered by group, partition).
    pub untranslated: Vec<Untranslated>,
    /// Offset syncs read.
    pub syncs_read: u64,
    /// Offset-sync records that failed to decode, skipped.
    pub malformed_syncs: u64,
}

impl FailbackOffsets {
    /// The translated offsets of `group`, if any of its commits was translated.
    pub fn group(&self, group: &str) -> Option<&BTreeMap<TopicPartition, FailbackOffset>> {
        self.groups.get(group)
    }

    /// The most records all translated groups together read a second time (saturating).
    pub fn total_rereads_at_most(&self) -> u64 {
        self.groups
            .values()
            .flat_map(BTreeMap::values)
            .fold(0u64, |sum, o| {
                sum.saturating_add(u64::try_from(o.rereads_at_most).unwrap_or(0))
            })
    }

    /// The same positions as the failover API's type, for its dry run: the topic-partitions
    /// are the original ones, `upstream_offset` is the group's offset on the replica.
    fn as_translated(&self) -> TranslatedOffsets {
        let groups = self
            .groups
            .iter()
            .map(|(group, offsets)| {
                let offsets = offsets
                    .iter()
                    .map(|(tp, o)| {
                        let t = TranslatedOffset {
                            offset: o.offset,
                            metadata: o.metadata.clone(),
                            upstream_offset: o.replica_offset,
                        };
                        (tp.clone(), t)
                    })
                    .collect();
                (group.clone(), offsets)
            })
            .collect();
        TranslatedOffsets {
            checkpoints_topic: self.offset_syncs_topic.clone(),
            groups,
            ..TranslatedOffsets::default()
        }
    }
}

/// Translates the selected groups' committed offsets on the replica cluster's replica topics
/// of the original cluster back to offsets on the original topics, with the forward flow's
/// offset syncs read from their start to their end now.
///
/// A regex selector lists the replica cluster's groups first. Commits on topics that are not
/// replicas of `flow.original_alias` are not the flow's and are left out. Bounded by `timeout`
/// for the whole call: reaching it is an [`Error::TimedOut`], never a partial answer. A missing
/// offset-syncs topic is an error naming it; so is a group whose offsets cannot be read.
/// Under the identity replication policy the call is refused: a replica topic cannot be told
/// from the replica cluster's own topics.
pub fn translate_offsets_back(
    flow: &ForwardFlow,
    groups: &GroupSelector,
    timeout: Duration,
) -> Result<FailbackOffsets, Error> {
    if matches!(flow.policy, ReplicationPolicy::Identity(_)) {
        return Err(ConfigError::new(
            "replication.policy.class",
            ReplicaTopicError::IdentityPolicy.to_string(),
        )
        .into());
    }
    let deadline = Instant::now() + timeout;
    let signal = StopSignal::new();
    let mut admin = Admin::open(
        &flow.replica_settings,
        "replica",
        "failback-admin",
        timeout,
        &signal,
    )?
    .with_deadline(deadline);
    let group_ids: Vec<String> = match groups {
        GroupSelector::One(g) => vec![g.clone()],
        GroupSelector::List(gs) => gs.iter().cloned().collect(),
        GroupSelector::Pattern(_) => admin
            .list_groups()?
            .into_iter()
            .filter(|g| groups.matches(g))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    let mut fetched = admin.list_group_offsets(&group_ids, None, MAX_OFFSET_FETCHES_IN_FLIGHT)?;
    // Some brokers (librdkafka's mock among them) answer "all partitions" with nothing: those
    // groups are asked again for the replicas of the partitions the flow has syncs for, which
    // takes one more read of the syncs.
    let empty: Vec<String> = fetched
        .iter()
        .filter(|(_, r)| matches!(r, Ok(m) if m.is_empty()))
        .map(|(g, _)| g.clone())
        .collect();
    if !empty.is_empty() {
        let mut synced = BTreeSet::new();
        read_offset_syncs(
            flow,
            deadline,
            timeout,
            &signal,
            |topic, partition, _, _| {
                synced.insert((topic.to_string(), partition));
            },
        )?;
        let replicas: Vec<TopicPartition> = synced
            .into_iter()
            .map(|(topic, partition)| {
                let replica = flow
                    .policy
                    .format_remote_topic(&flow.original_alias, &topic);
                TopicPartition::new(replica, partition)
            })
            .collect();
        if !replicas.is_empty() {
            let again =
                admin.list_group_offsets(&empty, Some(&replicas), MAX_OFFSET_FETCHES_IN_FLIGHT)?;
            for (group, result) in again {
                if let Some(entry) = fetched.iter_mut().find(|(g, _)| *g == group) {
                    entry.1 = result;
                }
            }
        }
    }
    drop(admin);
    // The commits on replica topics of the original cluster, and the questions they ask.
    let mut commits = Vec::new();
    let mut queries = ReverseQueries::new();
    for (group, result) in fetched {
        let committed = result.map_err(|e| {
            let what = format!("fetching the committed offsets of group `{group}` on the replica");
            if e.is_local_timeout() {
                Error::TimedOut(format!("{what}: {e}"))
            } else {
                Error::kafka(what, e)
            }
        })?;
        for (replica_tp, offset) in committed {
            let Some(offset) = offset else { continue };
            let Ok(original) =
                original_of_replica(&flow.policy, &flow.original_alias, &replica_tp.topic)
            else {
                continue;
            };
            let original_tp = TopicPartition::new(original, replica_tp.partition);
            queries.ask(&original_tp, offset.offset);
            commits.push((group.clone(), replica_tp, original_tp, offset));
        }
    }
    // Read after the commits: a sync written meanwhile only makes the answers closer.
    let (syncs_read, malformed_syncs) = read_offset_syncs(
        flow,
        deadline,
        timeout,
        &signal,
        |topic, partition, up, down| queries.apply(topic, partition, up, down),
    )?;
    let mut out = FailbackOffsets {
        offset_syncs_topic: flow.offset_syncs_topic.clone(),
        syncs_read,
        malformed_syncs,
        ..FailbackOffsets::default()
    };
    for (group, replica_tp, original_tp, offset) in commits {
        match queries.answer(&original_tp, offset.offset) {
            ReverseTranslation::Offset {
                upstream,
                rereads_at_most,
            } => {
                out.groups.entry(group).or_default().insert(
                    original_tp,
                    FailbackOffset {
                        offset: upstream,
                        rereads_at_most,
                        replica_topic: replica_tp.topic,
                        replica_offset: offset.offset,
                        metadata: offset.metadata,
                    },
                );
            }
            reason => out.untranslated.push(Untranslated {
                group,
                replica_partition: replica_tp,
                replica_offset: offset.offset,
                reason,
            }),
        }
    }
    Ok(out)
}

/// Reads the flow's offset-syncs topic from its start to its end now, handing each sync to
/// `apply` (topic, partition, upstream offset, downstream offset); returns the records read and
/// the malformed ones skipped.
fn read_offset_syncs(
    flow: &ForwardFlow,
    deadline: Instant,
    timeout: Duration,
    signal: &StopSignal,
    mut apply: impl FnMut(&str, i32, i64, i64),
) -> Result<(u64, u64), Error> {
    let topic = &flow.offset_syncs_topic;
    let mut log = KafkaBasedLog::open(
        &flow.offset_syncs_settings,
        topic,
        "offset-syncs-reader",
        signal,
    )?;
    let (mut read, mut malformed) = (0u64, 0u64);
    let outcome = log.read_to_end_by(
        Some(deadline),
        &mut each_record(|key, value| {
            read += 1;
            match OffsetSyncRef::decode(key, value) {
                Ok(s) => apply(
                    &s.topic,
                    s.partition,
                    s.upstream_offset,
                    s.downstream_offset,
                ),
                Err(e) => {
                    malformed += 1;
                    log::debug!("skipping a malformed record in `{topic}`: {e}");
                }
            }
        }),
    );
    match outcome {
        Ok(ReadToEnd::Reached) => Ok((read, malformed)),
        Ok(ReadToEnd::TopicMissing) => Err(Error::kafka(
            format!(
                "reading the offset syncs of the flow from `{}`",
                flow.original_alias
            ),
            format!(
                "topic `{topic}` does not exist (wrong alias, replication policy or \
                 offset-syncs.topic.location?)"
            ),
        )),
        Err(Error::TimedOut(what)) => Err(Error::TimedOut(format!(
            "{what}: the end was not reached within {timeout:?}, so no translation is returned"
        ))),
        Err(e) => Err(e),
    }
}

/// The dry run of a failback: per group and original partition, the effect of moving from the
/// group's committed offset on the original cluster now to the translated one (changes
/// nothing). [`FailoverReport::caught_up`] says whether a group's latest commit on the replica
/// is already reflected on the original cluster.
pub fn failback_report(
    flow: &ForwardFlow,
    translated: &FailbackOffsets,
    timeout: Duration,
) -> Result<FailoverReport, Error> {
    failover_report(
        &flow.original_settings,
        &translated.as_translated(),
        timeout,
    )
}

/// Commits the translated offsets into the groups on the original cluster, by the rules of
/// [`commit_translated_offsets`](crate::remote_cluster_utils::commit_translated_offsets): only
/// into groups absent or without members there, never backwards.
pub fn commit_failback_offsets(
    flow: &ForwardFlow,
    translated: &FailbackOffsets,
    timeout: Duration,
) -> Result<CommitReport, Error> {
    commit_into_idle_groups(
        &flow.original_settings,
        &flow.original_alias,
        &translated.as_translated(),
        timeout,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset(o: i64, rereads: i64) -> FailbackOffset {
        FailbackOffset {
            offset: o,
            rereads_at_most: rereads,
            replica_topic: "A.t".into(),
            replica_offset: o + 10,
            metadata: "m".into(),
        }
    }

    #[test]
    fn the_failover_types_view_keeps_the_original_partitions_and_the_replica_offsets() {
        let mut f = FailbackOffsets {
            offset_syncs_topic: "mm2-offset-syncs.B.internal".into(),
            ..FailbackOffsets::default()
        };
        f.groups
            .entry("g".into())
            .or_default()
            .insert(TopicPartition::new("orders", 1), offset(5, 3));
        let t = f.as_translated();
        let entry = &t.group("g").unwrap()[&TopicPartition::new("orders", 1)];
        assert_eq!((entry.offset, entry.upstream_offset), (5, 15));
        assert_eq!(entry.metadata, "m");
    }

    #[test]
    fn rereads_add_up_over_groups_and_saturate() {
        let mut f = FailbackOffsets::default();
        f.groups
            .entry("a".into())
            .or_default()
            .insert(TopicPartition::new("t", 0), offset(1, 4));
        f.groups
            .entry("b".into())
            .or_default()
            .insert(TopicPartition::new("t", 0), offset(1, 6));
        assert_eq!(f.total_rereads_at_most(), 10);
        f.groups
            .entry("c".into())
            .or_default()
            .insert(TopicPartition::new("t", 0), offset(1, i64::MAX));
        f.groups
            .entry("d".into())
            .or_default()
            .insert(TopicPartition::new("t", 0), offset(1, i64::MAX));
        assert_eq!(f.total_rereads_at_most(), u64::MAX);
    }
}
