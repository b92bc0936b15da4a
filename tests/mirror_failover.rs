//! The whole failover pipeline with nothing but this crate: a mirror (examples/mirror.rs) copies
//! a topic and writes offset syncs with `OffsetSyncWriter`; a consumer group consumes part of the
//! topic on the source and commits; a `CheckpointTask` emits its checkpoint; then the group fails
//! over: `translate_offsets` gives its position on the target, a consumer reads from there, and
//! we count what it missed (must be nothing) and what it read again. Then the groups move on
//! on the target and fail back: `translate_offsets_back` gives their positions on the source from
//! their commits on the replica topic and the flow's offset syncs, the dry run compares them with
//! the source's, and `commit_failback_offsets` commits them into the idle source groups.
//!
//! The re-read bound: a position at distance `h` behind the newest offset sync re-reads at most
//! `offset.lag.max + 2h` records. Near the head that is `offset.lag.max`; further back, MM2's
//! offset-sync store keeps only exponentially spaced syncs (KAFKA-14666), so precision falls
//! with age. (Checked by simulation over lags 0..1000 and up to 20000 records with this crate's
//! store: no position exceeds it.)

#[path = "../examples/mirror.rs"]
#[allow(dead_code)]
mod mirror;

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, GroupOffsetSyncResult, PollStatus};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::failback::{
    commit_failback_offsets, failback_report, translate_offsets_back, ForwardFlow,
};
use mm2_checkpoint::metrics::GroupOffsetSyncMetrics;
use mm2_checkpoint::offset_sync_writer::OffsetSyncWriterConfig;
use mm2_checkpoint::remote_cluster_utils::{
    failover_report, translate_offsets, CommitOutcome, GroupSelector,
};
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::ReverseTranslation;
use mm2_checkpoint::{Checkpoint, OffsetSync, ReplicationPolicy, TopicPartition};
use mm2_checkpoint::{NoWriteReason, WriteReason};

use mirror::{Mirror, MirrorSettings};
use support::kafka::{client_config, commit_group_offsets, committed_offsets, ActiveMember};
use support::*;

const WAIT: Duration = Duration::from_secs(60);

/// Records per source partition, and records already in each target partition before
/// mirroring (so downstream offsets differ from upstream ones).
const SOURCE_RECORDS: [usize; 2] = [600, 400];
const TARGET_FILLER: [usize; 2] = [37, 5];

/// Groups and their committed positions per partition: fully caught up, close behind, far behind.
const GROUPS: [(&str, [i64; 2]); 3] = [
    ("caught-up", [600, 400]),
    ("live", [570, 330]),
    ("billing", [437, 123]),
];

/// Tests here assert process-wide counters, so they run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Two clusters, whichever kind.
enum Pair {
    Mock(EmbeddedClusters),
    Kafka {
        source: &'static Broker,
        target: &'static Broker,
    },
}

/// The names of one failover run: the cluster aliases (which name the internal topics), the
/// replicated topic and a prefix for the groups. Runs on the shared brokers each have their own.
struct Names {
    source_alias: String,
    target_alias: String,
    topic: String,
    group_prefix: String,
}

impl Names {
    /// MM2's example names: `source`, `target`, `orders`, unprefixed groups.
    fn plain() -> Names {
        Names {
            source_alias: "source".into(),
            target_alias: "target".into(),
            topic: "orders".into(),
            group_prefix: String::new(),
        }
    }

    /// Names of their own for the run with `lag`, on brokers that other runs share.
    fn for_lag(lag: i64) -> Names {
        Names {
            source_alias: format!("source{lag}"),
            target_alias: format!("target{lag}"),
            topic: format!("orders{lag}"),
            group_prefix: format!("lag{lag}-"),
        }
    }

    fn syncs(&self) -> String {
        format!("mm2-offset-syncs.{}.internal", self.target_alias)
    }

    fn checkpoints(&self) -> String {
        format!("{}.checkpoints.internal", self.source_alias)
    }

    /// The replicated topic's name on the target.
    fn remote(&self) -> String {
        format!("{}.{}", self.source_alias, self.topic)
    }

    /// This run's name for the group `group` of [`GROUPS`].
    fn group(&self, group: &str) -> String {
        format!("{}{group}", self.group_prefix)
    }
}

impl Pair {
    fn bootstrap(&self, side: Side) -> String {
        match (self, side) {
            (Pair::Mock(c), side) => c.bootstrap(side),
            (Pair::Kafka { source, .. }, Side::Source) => source.bootstrap(),
            (Pair::Kafka { target, .. }, Side::Target) => target.bootstrap(),
        }
    }

    fn create_topic(&self, side: Side, topic: &str, partitions: i32) {
        match self {
            Pair::Mock(c) => c.create_topic(side, topic, partitions).unwrap(),
            Pair::Kafka { .. } if topic.ends_with(".internal") => create_topic_with_config(
                &self.bootstrap(side),
                topic,
                partitions,
                &[("cleanup.policy", "compact")],
            ),
            Pair::Kafka { .. } => create_topic(&self.bootstrap(side), topic, partitions),
        }
    }
}

fn value(partition: usize, i: usize) -> String {
    format!("orders-{partition}-{i}")
}

/// Consumes the first `committed[p]` records of each partition as `group` and commits that
/// position, as an application would before the source cluster fails.
fn consume_part_and_commit(source: &str, topic: &str, group: &str, committed: [i64; 2]) {
    let consumer: BaseConsumer = client_config(source)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    let mut assignment = TopicPartitionList::new();
    for p in 0..2 {
        assignment
            .add_partition_offset(topic, p, Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&assignment).unwrap();
    let mut consumed = [0i64; 2];
    let deadline = Instant::now() + WAIT;
    while consumed.iter().zip(committed).any(|(c, want)| *c < want) {
        assert!(Instant::now() < deadline, "consumed only {consumed:?}");
        if let Some(m) = consumer.poll(Duration::from_millis(100)) {
            let m = m.unwrap();
            let p = m.partition() as usize;
            if m.offset() < committed[p] {
                assert_eq!(m.payload(), Some(value(p, m.offset() as usize).as_bytes()));
                consumed[p] += 1;
            }
        }
    }
    let mut commit = TopicPartitionList::new();
    for (p, offset) in committed.iter().enumerate() {
        commit
            .add_partition_offset(topic, p as i32, Offset::Offset(*offset))
            .unwrap();
    }
    consumer.commit(&commit, CommitMode::Sync).unwrap();
}

/// Runs a checkpoint task until it has written every group's checkpoint for both partitions.
fn checkpoint_group(pair: &Pair, names: &Names) -> Vec<Checkpoint> {
    let (source, target) = (pair.bootstrap(Side::Source), pair.bootstrap(Side::Target));
    let groups: Vec<String> = GROUPS.iter().map(|(g, _)| names.group(g)).collect();
    let groups = groups.join(",");
    let props = flow_props(
        (&names.source_alias, &source),
        (&names.target_alias, &target),
        &groups,
        &[],
    );
    run_until_checkpoints(&props, 2 * GROUPS.len())
}

/// The settings of a task checkpointing `groups` from `from` to `to` (each an alias and a
/// bootstrap address) every second, with `extra` settings on top.
fn flow_props(
    from: (&str, &str),
    to: (&str, &str),
    groups: &str,
    extra: &[(&'static str, &str)],
) -> Vec<(&'static str, String)> {
    let mut props = vec![
        ("source.cluster.alias", from.0.to_string()),
        ("target.cluster.alias", to.0.to_string()),
        ("source.cluster.bootstrap.servers", from.1.to_string()),
        ("target.cluster.bootstrap.servers", to.1.to_string()),
        ("task.assigned.groups", groups.to_string()),
        ("emit.checkpoints.interval.seconds", "1".to_string()),
        ("checkpoints.topic.replication.factor", "1".to_string()),
    ];
    props.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    props
}

/// Runs a checkpoint task on `props`, polling it once a second and handing `done` each poll's
/// checkpoints, until `done` has its answer; fails after [`WAIT`] with what `state` says of the
/// task then.
fn run_task_until<T>(
    props: &[(&'static str, String)],
    mut done: impl FnMut(&CheckpointTask, Vec<Checkpoint>) -> Option<T>,
    state: impl Fn(&CheckpointTask) -> String,
) -> T {
    let config =
        MirrorCheckpointConfig::from_properties(props.iter().map(|(k, v)| (*k, v.as_str())))
            .unwrap()
            .0;
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let out = task.poll(Duration::from_secs(1)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        if let Some(answer) = done(&task, out.checkpoints) {
            task.stop().unwrap();
            return answer;
        }
        assert!(Instant::now() < deadline, "{}", state(&task));
    }
}

/// Runs a checkpoint task on `props` until it has written `expected` checkpoints.
fn run_until_checkpoints(props: &[(&'static str, String)], expected: usize) -> Vec<Checkpoint> {
    let emitted = std::cell::RefCell::new(Vec::new());
    run_task_until(
        props,
        |_, checkpoints| {
            let mut all = emitted.borrow_mut();
            all.extend(checkpoints);
            (all.len() >= expected).then(|| std::mem::take(&mut *all))
        },
        |task| {
            format!(
                "{} of {expected} checkpoints: {:?}",
                emitted.borrow().len(),
                task.partition_statuses()
            )
        },
    )
}

/// What a failed-over consumer saw on one partition.
#[derive(Debug)]
struct PartitionOutcome {
    group: &'static str,
    partition: usize,
    committed: i64,
    translated: i64,
    /// Distance of the committed position behind the newest offset sync.
    behind_newest_sync: i64,
    /// Source records at or after the committed position that it never saw.
    missed: usize,
    /// Source records before the committed position that it saw again.
    reread: usize,
}

/// The whole pipeline; returns per group and partition what the failed-over consumer saw.
fn failover(pair: &Pair, names: &Names, lag: i64) -> Vec<PartitionOutcome> {
    let (source, target) = (pair.bootstrap(Side::Source), pair.bootstrap(Side::Target));
    let (topic, remote) = (names.topic.as_str(), names.remote());
    pair.create_topic(Side::Source, topic, 2);
    pair.create_topic(Side::Source, &names.syncs(), 1);
    pair.create_topic(Side::Target, &remote, 2);
    pair.create_topic(Side::Target, &names.checkpoints(), 1);
    for p in 0..2 {
        let filler: Vec<String> = (0..TARGET_FILLER[p])
            .map(|i| format!("filler-{i}"))
            .collect();
        let records: Vec<Record<'_>> = filler.iter().map(|v| (None, Some(v.as_bytes()))).collect();
        produce_many(&target, &remote, p as i32, &records);
        let values: Vec<String> = (0..SOURCE_RECORDS[p]).map(|i| value(p, i)).collect();
        let records: Vec<Record<'_>> = values.iter().map(|v| (None, Some(v.as_bytes()))).collect();
        produce_many(&source, topic, p as i32, &records);
    }

    // 1. Mirror, writing offset syncs.
    let settings = MirrorSettings {
        source_bootstrap: source.clone(),
        target_bootstrap: target.clone(),
        source_alias: names.source_alias.clone(),
        target_alias: names.target_alias.clone(),
        topic: topic.into(),
        writer: OffsetSyncWriterConfig {
            offset_lag_max: lag,
            ..OffsetSyncWriterConfig::default()
        },
        job: None,
    };
    let mut m = Mirror::new(&settings).unwrap();
    m.run_until_caught_up(WAIT).unwrap();
    let stats = m.close(Duration::from_secs(30)).unwrap();
    assert_eq!(
        stats.records_mirrored,
        SOURCE_RECORDS.iter().sum::<usize>() as u64
    );
    assert_eq!(stats.writer.syncs_failed, 0);
    assert_eq!(stats.writer.syncs_delivered, stats.writer.syncs_sent);
    // The syncs reached the topic in report order: per partition, upstream offsets only grow
    // (this mirror never rewinds), and every downstream offset is past the filler.
    let mut last: BTreeMap<i32, i64> = BTreeMap::new();
    let syncs = read_all(&source, &names.syncs(), 0);
    assert_eq!(syncs.len() as u64, stats.writer.syncs_delivered);
    for (k, v) in &syncs {
        let s = OffsetSync::decode(k.as_deref(), v.as_deref()).unwrap();
        let p = s.topic_partition.partition;
        assert!(
            last.get(&p).map_or(true, |prev| *prev < s.upstream_offset),
            "{s:?} after {last:?}"
        );
        assert_eq!(
            s.downstream_offset,
            s.upstream_offset + TARGET_FILLER[p as usize] as i64,
            "{s:?}"
        );
        last.insert(p, s.upstream_offset);
    }

    // 2. The applications consume part of the topic on the source and commit.
    for (group, committed) in GROUPS {
        consume_part_and_commit(&source, topic, &names.group(group), committed);
    }

    // 3. The checkpoint task translates the commit and writes the checkpoint.
    let emitted = checkpoint_group(pair, names);

    // 4. Failover: translate on the target, then read from the translated position.
    let target_settings = BTreeMap::from([("bootstrap.servers".to_string(), target.clone())]);
    let translated = translate_offsets(
        &target_settings,
        &names.source_alias,
        &ReplicationPolicy::default(),
        &GroupSelector::list(GROUPS.map(|(g, _)| names.group(g))),
        Duration::from_secs(30),
    )
    .unwrap();
    for cp in &emitted {
        let t = &translated.group(&cp.consumer_group_id).unwrap()[&cp.topic_partition];
        assert_eq!(t.offset, cp.downstream_offset, "{cp:?}");
    }
    // No group has a commit on the target yet: the dry run has nothing to compare.
    let report = failover_report(&target_settings, &translated, Duration::from_secs(30)).unwrap();
    assert_eq!(report.partitions.len(), 2 * GROUPS.len());
    assert!(report.partitions.iter().all(|p| p.current_offset.is_none()));

    let on_target: Vec<Vec<(i64, String)>> = (0..2)
        .map(|p| {
            read_records(&target, &remote, p)
                .into_iter()
                .map(|r| {
                    (
                        r.offset,
                        String::from_utf8(r.value.unwrap_or_default()).unwrap(),
                    )
                })
                .collect()
        })
        .collect();
    let mut outcomes = Vec::new();
    for (group, committed) in GROUPS {
        let offsets = translated.group(&names.group(group)).unwrap();
        assert_eq!(offsets.len(), 2, "{group}: {offsets:?}");
        for p in 0..2 {
            let from = offsets[&TopicPartition::new(remote.as_str(), p as i32)].offset;
            let read: Vec<&String> = on_target[p]
                .iter()
                .filter(|(offset, _)| *offset >= from)
                .map(|(_, v)| v)
                .collect();
            assert!(
                read.iter().all(|v| !v.starts_with("filler")),
                "{group} partition {p}: resumed inside the filler at {from}"
            );
            let c = committed[p] as usize;
            let missed = (c..SOURCE_RECORDS[p])
                .filter(|i| !read.contains(&&value(p, *i)))
                .count();
            let reread = (0..c).filter(|i| read.contains(&&value(p, *i))).count();
            outcomes.push(PartitionOutcome {
                group,
                partition: p,
                committed: committed[p],
                translated: from,
                behind_newest_sync: (SOURCE_RECORDS[p] as i64 - 1 - committed[p]).max(0),
                missed,
                reread,
            });
        }
    }
    outcomes
}

/// Where each group is on the target when it fails back, as the index of the next source record
/// it would read (the same units as [`GROUPS`]): fully caught up, moved on, moved a little; and a
/// group that only ever consumed on the target.
const ON_TARGET: [(&str, [i64; 2]); 4] = [
    ("caught-up", [600, 400]),
    ("live", [590, 380]),
    ("billing", [500, 200]),
    ("replica-only", [250, 399]),
];

/// The groups of [`ON_TARGET`] as a list.
fn groups_selector(names: &Names) -> GroupSelector {
    GroupSelector::list(ON_TARGET.map(|(g, _)| names.group(g)))
}

/// What a group failing back gets on one source partition.
#[derive(Debug)]
struct FailbackOutcome {
    group: &'static str,
    partition: usize,
    /// Index of the next record the group would have read on the target.
    on_target: i64,
    /// Its translated offset on the source.
    translated: i64,
    /// Records the translation says it reads again at most.
    rereads_at_most: i64,
    /// Distance of its target position behind the newest offset sync.
    behind_newest_sync: i64,
}

/// The groups move on on the target and commit there, then fail back to the source.
fn failback(pair: &Pair, names: &Names) -> Vec<FailbackOutcome> {
    let (source, target) = (pair.bootstrap(Side::Source), pair.bootstrap(Side::Target));
    let remote = names.remote();
    // A replica topic the mirror never wrote a sync for.
    let unmirrored = format!("{}.unmirrored", names.source_alias);
    pair.create_topic(Side::Target, &unmirrored, 1);
    for (group, at) in ON_TARGET {
        let offsets: Vec<(&str, i32, i64, &str)> = (0..2)
            .map(|p| {
                (
                    remote.as_str(),
                    p as i32,
                    at[p] + TARGET_FILLER[p] as i64,
                    "on-target",
                )
            })
            .chain(std::iter::once((unmirrored.as_str(), 0, 3, "")))
            .collect();
        commit_group_offsets(&target, &names.group(group), &offsets);
    }
    let settings = |bootstrap: &str| {
        BTreeMap::from([("bootstrap.servers".to_string(), bootstrap.to_string())])
    };
    let flow = ForwardFlow {
        original_alias: names.source_alias.clone(),
        policy: ReplicationPolicy::default(),
        original_settings: settings(&source),
        replica_settings: settings(&target),
        offset_syncs_settings: settings(&source),
        offset_syncs_topic: names.syncs(),
    };
    // Kafka lists the target's groups for a regex; the mock cannot list groups.
    let groups = match pair {
        Pair::Mock(_) => GroupSelector::list(ON_TARGET.map(|(g, _)| names.group(g))),
        Pair::Kafka { .. } => {
            let pattern = ON_TARGET.map(|(g, _)| names.group(g)).join("|");
            GroupSelector::regex(&pattern).unwrap()
        }
    };
    let back = translate_offsets_back(&flow, &groups, WAIT).unwrap();
    assert!(back.syncs_read > 0 && back.malformed_syncs == 0, "{back:?}");
    // The partition without syncs is named, per group, never answered. The mock answers a
    // group's "all partitions" with nothing, and the groups are then asked for the replicas of
    // the synced partitions only.
    let expected = match pair {
        Pair::Mock(_) => 0,
        Pair::Kafka { .. } => ON_TARGET.len(),
    };
    assert_eq!(back.untranslated.len(), expected, "{back:?}");
    for u in &back.untranslated {
        assert_eq!(
            u.replica_partition,
            TopicPartition::new(unmirrored.as_str(), 0)
        );
        assert_eq!(
            (u.replica_offset, u.reason),
            (3, ReverseTranslation::NoOffsetSync)
        );
    }

    // The dry run against the source, before anything moves: the groups of GROUPS still sit
    // where they committed before failing over; the replica-only group has no commit there.
    let report = failback_report(&flow, &back, WAIT).unwrap();
    assert_eq!(report.partitions.len(), 2 * ON_TARGET.len(), "{report:?}");
    for (group, committed) in GROUPS {
        for p in report.group(&names.group(group)) {
            let i = p.topic_partition.partition as usize;
            assert_eq!(p.current_offset, Some(committed[i]), "{p:?}");
        }
    }
    assert!(report.caught_up(&names.group("caught-up")));
    assert!(!report.caught_up(&names.group("replica-only")));
    assert!(report
        .group(&names.group("replica-only"))
        .all(|p| p.current_offset.is_none()));

    // Commit into the idle source groups: forwards only, so a partition already at or past its
    // translation is left alone; a group the source does not know (described as dead) gets
    // everything. The mock describes every group as unknown, so nothing is written there.
    let mock = matches!(pair, Pair::Mock(_));
    let commits = commit_failback_offsets(&flow, &back, WAIT).unwrap();
    assert_eq!(commits.failed(), 0, "{commits:?}");
    assert_eq!(commits.partitions.len(), report.partitions.len());
    for (c, before) in commits.partitions.iter().zip(&report.partitions) {
        assert_eq!(
            (&c.group, &c.topic_partition),
            (&before.group, &before.topic_partition)
        );
        let expected = match before.current_offset {
            _ if mock => CommitOutcome::Left(NoWriteReason::GroupStateUnknown),
            Some(o) if o >= c.offset => CommitOutcome::Left(NoWriteReason::TargetAtOrAhead),
            Some(_) => CommitOutcome::Written(WriteReason::TargetBehind),
            None => CommitOutcome::Written(WriteReason::GroupAbsentAtTarget),
        };
        assert_eq!(c.outcome, expected, "{c:?} {before:?}");
        let now = committed_offsets(
            &source,
            &c.group,
            &names.topic,
            &[c.topic_partition.partition],
        );
        let written = matches!(c.outcome, CommitOutcome::Written(_));
        let expected = if written {
            Some(c.offset)
        } else {
            before.current_offset
        };
        assert_eq!(now[0].offset, expected, "{c:?}");
    }
    let after = failback_report(&flow, &back, WAIT).unwrap();
    for (group, _) in ON_TARGET {
        let caught_up = after.caught_up(&names.group(group));
        let expected = !mock || report.caught_up(&names.group(group));
        assert_eq!(caught_up, expected, "{group}: {after:?}");
    }

    // The reverse flow's task with reverse checkpoints (target -> source, the forward flow's
    // syncs read where it keeps them): a checkpoint on the source per group and partition, never
    // ahead of where the group was on the target, and never ahead of the tool's answer either
    // (the task keeps a spaced history of the syncs, the tool reads them all).
    let groups = ON_TARGET.map(|(g, _)| names.group(g)).join(",");
    let reverse_props = flow_props(
        (&names.target_alias, &target),
        (&names.source_alias, &source),
        &groups,
        &[("emit.reverse.checkpoints.enabled", "true")],
    );
    // Created beforehand, as for the forward flow (the mock's topic creation times out).
    let reverse_checkpoints = format!("{}.checkpoints.internal", names.target_alias);
    pair.create_topic(Side::Source, &reverse_checkpoints, 1);
    let reversed = run_until_checkpoints(&reverse_props, 2 * ON_TARGET.len());
    assert_eq!(reversed.len(), 2 * ON_TARGET.len(), "{reversed:?}");
    for cp in &reversed {
        let tool = &back.group(&cp.consumer_group_id).unwrap()[&cp.topic_partition];
        assert_eq!(cp.upstream_offset, tool.replica_offset, "{cp:?}");
        assert!(
            cp.downstream_offset <= tool.offset,
            "{cp:?} ahead of {tool:?}"
        );
        if cp.consumer_group_id == names.group("caught-up") {
            assert_eq!(cp.downstream_offset, tool.offset, "{cp:?}");
        }
    }
    // What Java's RemoteClusterUtils reads on the source for the target's groups.
    let on_source = translate_offsets(
        &settings(&source),
        &names.target_alias,
        &ReplicationPolicy::default(),
        &groups_selector(names),
        WAIT,
    )
    .unwrap();
    for cp in &reversed {
        let read = &on_source.group(&cp.consumer_group_id).unwrap()[&cp.topic_partition];
        assert_eq!(read.offset, cp.downstream_offset, "{cp:?}");
    }

    let mut outcomes = Vec::new();
    for (group, at) in ON_TARGET {
        let offsets = back.group(&names.group(group)).unwrap();
        assert_eq!(offsets.len(), 2, "{group}: {offsets:?}");
        for p in 0..2 {
            let o = &offsets[&TopicPartition::new(names.topic.as_str(), p as i32)];
            assert_eq!(o.replica_offset, at[p] + TARGET_FILLER[p] as i64);
            assert_eq!(o.metadata, "on-target");
            outcomes.push(FailbackOutcome {
                group,
                partition: p,
                on_target: at[p],
                translated: o.offset,
                rereads_at_most: o.rereads_at_most,
                behind_newest_sync: (SOURCE_RECORDS[p] as i64 - 1 - at[p]).max(0),
            });
        }
    }
    outcomes
}

fn check_failback(outcomes: &[FailbackOutcome], lag: i64, broker: &str) {
    for o in outcomes {
        eprintln!(
            "{broker}, offset.lag.max {lag}: failback {} p{} at {} on the target -> source {} \
             ({} behind the newest sync): re-reads {} (at most {} said)",
            o.group,
            o.partition,
            o.on_target,
            o.translated,
            o.behind_newest_sync,
            o.on_target - o.translated,
            o.rereads_at_most
        );
    }
    for o in outcomes {
        // Source record i sits at offset i: resuming at `translated` skips nothing the group
        // had not read on the target, and re-reads exactly what the translation bounds.
        assert!(o.translated <= o.on_target, "skips records: {o:?}");
        assert_eq!(o.on_target - o.translated, o.rereads_at_most, "{o:?}");
        // Every sync the mirror wrote is still in the (uncompacted) topic and the translation
        // uses them all, so the nearest is at most the sync spacing away: `offset.lag.max`.
        let bound = lag.max(0);
        assert!(
            o.rereads_at_most <= bound,
            "re-reads more than {bound}: {o:?}"
        );
        if o.group == "caught-up" {
            assert_eq!(
                o.rereads_at_most, 0,
                "a caught-up group re-reads nothing: {o:?}"
            );
        }
    }
}

fn check(outcomes: &[PartitionOutcome], lag: i64, broker: &str) {
    for o in outcomes {
        eprintln!(
            "{broker}, offset.lag.max {lag}: {} p{} committed {} -> target {} ({} behind the \
             newest sync): missed {}, re-read {}",
            o.group,
            o.partition,
            o.committed,
            o.translated,
            o.behind_newest_sync,
            o.missed,
            o.reread
        );
    }
    for o in outcomes {
        assert_eq!(o.missed, 0, "missed records: {o:?}");
        let bound = lag.max(0) + 2 * o.behind_newest_sync;
        assert!(o.reread as i64 <= bound, "re-read more than {bound}: {o:?}");
        if o.group == "caught-up" {
            assert_eq!(o.reread, 0, "a caught-up group re-reads nothing: {o:?}");
        }
    }
}

/// A member of KIP-848's consumer protocol in `group`: subscribes to `topic`, resumes where the
/// group committed, reads until its position on partition `p` reaches `until[p]`, commits there
/// and leaves. Returns the index (in [`value`]'s numbering) of the first source record it read
/// on each partition; `None` for a partition where it started at or past `until[p]`. A group
/// without a commit starts at the beginning, which on the target is filler: `new_group` allows
/// that, and then the first mirrored record counts as its first.
fn resume_as_kip848_member(
    bootstrap: &str,
    topic: &str,
    group: &str,
    until: [i64; 2],
    new_group: bool,
) -> [Option<i64>; 2] {
    let consumer: BaseConsumer = client_config(bootstrap)
        .set("group.id", group)
        .set("group.protocol", "consumer")
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let mut first: [Option<i64>; 2] = [None, None];
    let mut done = [false; 2];
    let deadline = Instant::now() + WAIT;
    while done.iter().any(|d| !d) {
        assert!(
            Instant::now() < deadline,
            "{group} on {topic}: done {done:?}"
        );
        let Some(m) = consumer.poll(Duration::from_millis(100)) else {
            continue;
        };
        let m = m.unwrap();
        let p = m.partition() as usize;
        if done[p] {
            continue;
        }
        let text = std::str::from_utf8(m.payload().unwrap_or_default()).unwrap();
        if m.offset() < until[p] {
            if first[p].is_none() && !(new_group && text.starts_with("filler")) {
                // The filler before the mirrored records is never a place to resume.
                let index = text
                    .strip_prefix(&format!("orders-{p}-"))
                    .unwrap_or_else(|| panic!("{group} resumed at `{text}` on {topic}-{p}"));
                first[p] = Some(index.parse().unwrap());
            }
        } else {
            done[p] = true;
        }
        if m.offset() >= until[p] - 1 {
            done[p] = true;
        }
    }
    let mut commit = TopicPartitionList::new();
    for (p, offset) in until.iter().enumerate() {
        commit
            .add_partition_offset(topic, p as i32, Offset::Offset(*offset))
            .unwrap();
    }
    consumer.commit(&commit, CommitMode::Sync).unwrap();
    consumer.unsubscribe();
    drop(consumer);
    first
}

/// Runs a checkpoint task on `props` until `done` holds for the counters of its group offset
/// syncs since it started (every run's, so none is missed between two polls) and the results
/// of its last run; returns those results.
fn run_until_group_sync(
    props: &[(&'static str, String)],
    done: impl Fn(&GroupOffsetSyncMetrics, &[GroupOffsetSyncResult]) -> bool,
) -> Vec<GroupOffsetSyncResult> {
    run_task_until(
        props,
        |task, _| {
            let counts = task.metrics().task.group_offset_sync;
            let results = task.group_offset_sync_results();
            assert_eq!(counts.refused, 0, "{results:?}");
            done(&counts, &results).then_some(results)
        },
        |task| {
            format!(
                "{:?} {:?}",
                task.metrics().task.group_offset_sync,
                task.group_offset_sync_results()
            )
        },
    )
}

/// The reason of the last group offset sync for `group` on every partition of `topic`, when it
/// is the same on both.
fn sync_reason(results: &[GroupOffsetSyncResult], group: &str, topic: &str) -> Option<String> {
    let reasons: Vec<&str> = results
        .iter()
        .filter(|r| r.group == group && r.topic_partition.topic == topic)
        .map(|r| r.reason.as_str())
        .collect();
    (reasons.len() == 2 && reasons[0] == reasons[1]).then(|| reasons[0].to_string())
}

/// KIP-848 groups (`group.protocol=consumer`) fail over and back through the tasks' group
/// offset syncs alone, after `failover` mirrored the topic with `lag`: a group that consumed on
/// the source, and one that only ever consumed on the target. While a member is in the group
/// on the source, the reverse sync leaves it alone; once it left, the sync writes. Returns per
/// group and source partition: (where it was on the target, where it resumed on the source).
fn kip848_round_trip(pair: &Pair, names: &Names) -> Vec<(&'static str, usize, i64, i64)> {
    let (source, target) = (pair.bootstrap(Side::Source), pair.bootstrap(Side::Target));
    let (topic, remote) = (names.topic.as_str(), names.remote());
    let (k848, replica_only) = (names.group("k848"), names.group("k848-replica-only"));
    let groups = format!("{k848},{replica_only}");

    // On the source: consume part of the topic and commit, as a KIP-848 member.
    let committed = [450, 300];
    resume_as_kip848_member(&source, topic, &k848, committed, true);

    // Failover through the forward task's group offset sync: the group is new on the target.
    let sync_every_second = [
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
    ];
    let forward = flow_props(
        (&names.source_alias, &source),
        (&names.target_alias, &target),
        &k848,
        &sync_every_second,
    );
    // Written on both partitions; a later run finds them there.
    let results = run_until_group_sync(&forward, |counts, _| counts.written >= 2);
    let reason = sync_reason(&results, &k848, &remote);
    assert!(
        matches!(
            reason.as_deref(),
            Some("group_absent_at_target" | "target_at_or_ahead")
        ),
        "{results:?}"
    );
    assert!(results.iter().all(|r| r.error.is_none()), "{results:?}");
    // The failed-over member resumes at or before its commit: nothing skipped.
    let on_target = ON_TARGET[1].1; // "live": [590, 380]
    let until = [0, 1].map(|p| on_target[p] + TARGET_FILLER[p] as i64);
    let resumed = resume_as_kip848_member(&target, &remote, &k848, until, false);
    for p in 0..2 {
        let at = resumed[p].expect("records between the commit and `until`");
        assert!(
            at <= committed[p],
            "{k848} skipped on {remote}-{p}: {at} > {}",
            committed[p]
        );
    }
    // A group that only ever consumed on the target.
    let replica_only_at = ON_TARGET[3].1;
    let until = [0, 1].map(|p| replica_only_at[p] + TARGET_FILLER[p] as i64);
    resume_as_kip848_member(&target, &remote, &replica_only, until, true);

    // Failback through the reverse task's group offset sync. A KIP-848 member still in the
    // group on the source: left alone.
    // (The reverse checkpoints topic is there: `failback` created it.)
    let reverse = flow_props(
        (&names.target_alias, &target),
        (&names.source_alias, &source),
        &groups,
        &[
            ("emit.reverse.checkpoints.enabled", "true"),
            sync_every_second[0],
            sync_every_second[1],
        ],
    );
    {
        let _member = ActiveMember::join_consumer_protocol(&source, &k848, topic);
        // The group new on the source is written (both partitions); the attached one is left
        // alone, run after run.
        let results = run_until_group_sync(&reverse, |counts, r| {
            counts.written >= 2 && sync_reason(r, &k848, topic).is_some()
        });
        assert_eq!(
            sync_reason(&results, &k848, topic).as_deref(),
            Some("group_active"),
            "{results:?}"
        );
        let reason = sync_reason(&results, &replica_only, topic);
        assert!(
            matches!(
                reason.as_deref(),
                Some("group_absent_at_target" | "target_at_or_ahead")
            ),
            "{results:?}"
        );
    }
    // The member left: the group is idle and behind its position on the target, so written (the
    // other group is already where its translation says).
    let results = run_until_group_sync(&reverse, |counts, _| counts.written >= 2);
    assert!(results.iter().all(|r| r.error.is_none()), "{results:?}");
    let reason = sync_reason(&results, &k848, topic);
    assert!(
        matches!(
            reason.as_deref(),
            Some("target_behind" | "target_at_or_ahead")
        ),
        "{results:?}"
    );

    // Both groups resume on the source where the reverse sync put them.
    let mut out = Vec::new();
    for (group, name, at) in [
        ("k848", &k848, on_target),
        ("k848-replica-only", &replica_only, replica_only_at),
    ] {
        let ends = SOURCE_RECORDS.map(|n| n as i64);
        let resumed = resume_as_kip848_member(&source, topic, name, ends, false);
        for p in 0..2 {
            let from = resumed[p].expect("records after the failback position");
            out.push((group, p, at[p], from));
        }
    }
    out
}

#[test]
fn failover_and_failback_on_mock_clusters_miss_nothing_and_reread_within_the_sync_spacing() {
    let _g = serial();
    for lag in [100, 10, 0] {
        let pair = Pair::Mock(EmbeddedClusters::new().unwrap());
        check(&failover(&pair, &Names::plain(), lag), lag, "mock");
        check_failback(&failback(&pair, &Names::plain()), lag, "mock");
    }
    assert_eq!(diagnostics::live_clients(), 0);
}

#[test]
fn failover_and_failback_on_kafka_miss_nothing_and_reread_within_the_sync_spacing() {
    let _g = serial();
    // One broker pair for both runs, each with its own names.
    let (source, target) = shared_pair();
    let pair = Pair::Kafka { source, target };
    for lag in [100, 10] {
        check(&failover(&pair, &Names::for_lag(lag), lag), lag, "kafka");
        check_failback(&failback(&pair, &Names::for_lag(lag)), lag, "kafka");
    }
    // KIP-848 groups, over and back through the group offset syncs, on the lag-10 topic.
    let lag = 10;
    for (group, p, on_target, from) in kip848_round_trip(&pair, &Names::for_lag(lag)) {
        let behind_newest_sync = (SOURCE_RECORDS[p] as i64 - 1 - on_target).max(0);
        let bound = lag + 2 * behind_newest_sync;
        eprintln!(
            "kafka, offset.lag.max {lag}: KIP-848 group {group} p{p} failed back from {on_target} \
             on the target, resumed at {from} on the source (re-reads {}, bound {bound})",
            on_target - from
        );
        assert!(
            from <= on_target,
            "{group} p{p} skipped records: {from} > {on_target}"
        );
        assert!(
            on_target - from <= bound,
            "{group} p{p} re-read more than {bound}"
        );
    }
    assert_eq!(diagnostics::live_clients(), 0);
}
