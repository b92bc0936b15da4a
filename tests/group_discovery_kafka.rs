//! Live group discovery, scale-out over several processes and batched offset fetching, on two
//! real Kafka brokers (librdkafka's mock cluster has no ListGroups, so discovery needs a real broker).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, MAX_OFFSET_FETCHES_IN_FLIGHT};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::owner_of;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

use support::kafka::{client_config, ActiveMember};
use support::*;

const WAIT: Duration = Duration::from_secs(60);

/// Tests here assert process-wide counters, so they run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// One test's flow on the binary's shared source and target brokers: its topic `orders-<alias>`
/// (2 partitions) with offset syncs for both of its partitions, upstream 0 → 0 and 50 → 50: a
/// commit below 50 translates to 1, one at or past 50 to 50 or 51. Also `audit-<alias>.replica`,
/// a topic the default topic filter excludes. The cluster alias names the internal topics, and
/// the task's group filter `groups` takes in only this test's groups, so that the tests sharing
/// the brokers never see each other's groups.
struct Clusters {
    source: String,
    target: String,
    alias: String,
    groups: String,
    topic: String,
    audit: String,
    remote: String,
    checkpoints: String,
}

impl Clusters {
    fn start(alias: &str, groups: &str) -> Clusters {
        let (source, target) = shared_pair();
        let clusters = Clusters {
            source: source.bootstrap(),
            target: target.bootstrap(),
            alias: alias.to_owned(),
            groups: groups.to_owned(),
            topic: format!("orders-{alias}"),
            audit: format!("audit-{alias}.replica"),
            remote: format!("{alias}.orders-{alias}"),
            checkpoints: format!("{alias}.checkpoints.internal"),
        };
        let src = &clusters.source;
        let syncs_topic = format!("mm2-offset-syncs.{alias}.internal");
        create_topic(src, &clusters.topic, 2);
        create_topic(src, &clusters.audit, 1);
        create_topic_with_config(src, &syncs_topic, 1, &[("cleanup.policy", "compact")]);
        create_topic_with_config(
            &clusters.target,
            &clusters.checkpoints,
            1,
            &[("cleanup.policy", "compact")],
        );
        let syncs: Vec<(Vec<u8>, Vec<u8>)> = [(0, 0), (1, 0), (0, 50), (1, 50)]
            .into_iter()
            .map(|(p, o)| {
                let s = OffsetSync::new(TopicPartition::new(&clusters.topic, p), o, o);
                (s.encode_key().unwrap(), s.encode_value())
            })
            .collect();
        let records: Vec<Record<'_>> = syncs
            .iter()
            .map(|(k, v)| (Some(k.as_slice()), Some(v.as_slice())))
            .collect();
        produce_many(src, &syncs_topic, 0, &records);
        clusters
    }

    fn commit(&self, group: &str, topic: &str, partition: i32, offset: i64) {
        commit_group_offsets(&self.source, group, &[(topic, partition, offset, "")]);
    }

    fn delete_groups(&self, groups: &[&str]) {
        let admin: AdminClient<DefaultClientContext> =
            client_config(&self.source).create().unwrap();
        let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
        let answer = block_on(
            admin.delete_groups(groups, &options),
            Duration::from_secs(20),
            "DeleteGroups",
        )
        .unwrap();
        for r in answer {
            r.unwrap_or_else(|e| panic!("deleting a group: {e:?}"));
        }
    }

    fn task(&self, extra: &[(&str, &str)]) -> CheckpointTask {
        let mut props = vec![
            ("source.cluster.alias", self.alias.as_str()),
            ("target.cluster.alias", self.alias.as_str()),
            ("source.cluster.bootstrap.servers", self.source.as_str()),
            ("target.cluster.bootstrap.servers", self.target.as_str()),
            ("groups", self.groups.as_str()),
            ("emit.checkpoints.interval.seconds", "1"),
            ("refresh.groups.interval.seconds", "1"),
            ("checkpoints.topic.replication.factor", "1"),
        ];
        props.extend_from_slice(extra);
        let config = MirrorCheckpointConfig::from_properties(props).unwrap().0;
        let task = CheckpointTask::new(config).unwrap();
        task.start().unwrap();
        task
    }
}

fn sorted(groups: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
    v.sort();
    v
}

/// Polls `task` until `done` holds for the checkpoints gathered so far; returns them.
fn poll_until(
    task: &CheckpointTask,
    what: &str,
    mut done: impl FnMut(&[Checkpoint]) -> bool,
) -> Vec<Checkpoint> {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        seen.extend(out.checkpoints);
        if done(&seen) {
            return seen;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within {WAIT:?}; groups {:?}, checkpoints {seen:?}",
            task.groups()
        );
    }
}

fn groups_of(checkpoints: &[Checkpoint]) -> BTreeSet<String> {
    checkpoints
        .iter()
        .map(|c| c.consumer_group_id.clone())
        .collect()
}

fn assert_no_leaks() {
    assert_eq!(diagnostics::live_clients(), 0, "live Kafka clients");
    assert_eq!(diagnostics::live_threads(), 0, "live library threads");
    assert_eq!(
        diagnostics::concurrent_client_access(),
        0,
        "overlapping calls"
    );
}

#[test]
fn discovery_adopts_and_drops_groups_while_running_without_reloading_the_stores() {
    let _g = serial();
    // The group filter names this test's groups (console-consumer-1 too: the default exclude
    // list, not the include list, is what must keep it out).
    let c = Clusters::start("disc", "g[0-9]+, audit, members-only, console-consumer-1");
    c.commit("g1", &c.topic, 0, 10);
    c.commit("g2", &c.topic, 1, 20);
    // Commits only on a topic the topic filter excludes: MM2 does not checkpoint it.
    c.commit("audit", &c.audit, 0, 5);
    // Excluded by the default group filter.
    c.commit("console-consumer-1", &c.topic, 0, 3);

    let task = c.task(&[]);
    wait_until(WAIT, "g1 and g2 adopted", || {
        task.groups() == sorted(&["g1", "g2"])
    });
    poll_until(&task, "first checkpoints", |cps| {
        groups_of(cps) == ["g1", "g2"].map(String::from).into()
    });
    let loaded = task.stats();
    assert!(loaded.initialized && loaded.load_time.is_some());
    assert_eq!(loaded.syncs_loaded, 4);

    // A group with a live member but no commit yet: Kafka's ListGroups shows it (tansu did
    // not), and the task lists it but does not adopt it, since nothing can be translated.
    let member = ActiveMember::join(&c.source, "members-only", &c.topic);
    let state = group_state(&c.source, "members-only");
    assert!(
        matches!(state.as_deref(), Some("Stable" | "CompletingRebalance")),
        "ListGroups/DescribeGroups on Kafka: {state:?}"
    );

    // A new group appears: adopted and checkpointed by the running task.
    c.commit("g3", &c.topic, 0, 7);
    wait_until(WAIT, "g3 adopted", || {
        task.groups() == sorted(&["g1", "g2", "g3"])
    });
    // The refresh that adopted g3 also saw members-only, and left it out.
    assert!(!task.groups().contains(&"members-only".to_string()));
    drop(member);
    // A commit from outside the group's generation is accepted only once the group is Empty.
    wait_until(WAIT, "members-only is Empty after its member left", || {
        group_state(&c.source, "members-only").as_deref() == Some("Empty")
    });
    // Once it commits, it is adopted.
    c.commit("members-only", &c.topic, 1, 9);
    wait_until(WAIT, "members-only adopted once it committed", || {
        task.groups() == sorted(&["g1", "g2", "g3", "members-only"])
    });
    c.delete_groups(&["members-only"]);
    let cps = poll_until(&task, "g3 checkpointed", |cps| {
        groups_of(cps).contains("g3")
    });
    assert!(cps.contains(&Checkpoint::new(
        "g3",
        TopicPartition::new(&c.remote, 0),
        7,
        1,
        ""
    )));

    // The excluded-topic group commits on a replicated topic: now it qualifies.
    c.commit("audit", &c.topic, 1, 4);
    wait_until(WAIT, "audit adopted", || {
        task.groups() == sorted(&["audit", "g1", "g2", "g3"])
    });

    // Groups disappear from the broker: dropped without a restart.
    c.delete_groups(&["g1", "audit"]);
    wait_until(WAIT, "g1 and audit dropped", || {
        task.groups() == sorted(&["g2", "g3"])
    });
    assert!(task
        .partition_statuses()
        .iter()
        .all(|s| s.group != "g1" && s.group != "audit"));
    // Keep cycling: the dropped groups get no more checkpoints, the others still work.
    c.commit("g2", &c.topic, 1, 60);
    let cps = poll_until(&task, "g2's new offset checkpointed", |cps| {
        cps.iter().any(|c| c.consumer_group_id == "g2")
    });
    assert!(groups_of(&cps).is_subset(&["g2", "g3"].map(String::from).into()));

    // One task lifetime throughout: the stores were loaded once and never again.
    let now = task.stats();
    assert_eq!(now.load_time, loaded.load_time);
    assert_eq!(now.syncs_loaded, loaded.syncs_loaded);
    assert_eq!(now.checkpoints_loaded, loaded.checkpoints_loaded);
    assert_eq!(now.groups, 2);
    task.stop().unwrap();
    assert_no_leaks();
}

/// Polls every task in turn until `done` holds for what each has emitted so far.
fn poll_all_until(
    tasks: &[CheckpointTask],
    emitted: &mut [Vec<Checkpoint>],
    what: &str,
    mut done: impl FnMut(&[Vec<Checkpoint>]) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !done(emitted) {
        assert!(Instant::now() < deadline, "{what}: not within {WAIT:?}");
        for (task, out) in tasks.iter().zip(emitted.iter_mut()) {
            let polled = task.poll(Duration::from_millis(100)).unwrap();
            assert_ne!(
                polled.status,
                PollStatus::Failed,
                "{:?}",
                task.fatal_error()
            );
            out.extend(polled.checkpoints);
        }
    }
}

/// Which task indexes emitted a checkpoint for each group.
fn emitters(emitted: &[Vec<Checkpoint>]) -> BTreeMap<String, BTreeSet<u32>> {
    let mut by_group: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for (index, cps) in emitted.iter().enumerate() {
        for cp in cps {
            by_group
                .entry(cp.consumer_group_id.clone())
                .or_default()
                .insert(index as u32);
        }
    }
    by_group
}

/// The groups task `index` of `tasks.len()` must own among `live`.
fn share(live: &BTreeSet<String>, index: usize, count: usize) -> Vec<String> {
    live.iter()
        .filter(|g| owner_of(g, count as u32) == index as u32)
        .cloned()
        .collect()
}

/// Waits until every task's `groups()` is exactly its rendezvous share of `live`.
fn wait_for_split(tasks: &[CheckpointTask], live: &BTreeSet<String>, what: &str) {
    let n = tasks.len();
    wait_until(WAIT, what, || {
        tasks
            .iter()
            .enumerate()
            .all(|(i, t)| t.groups() == share(live, i, n))
    });
}

#[test]
fn three_processes_checkpoint_every_group_exactly_once_before_and_after_churn() {
    let _g = serial();
    let c = Clusters::start("split", "orders-app-.*, late-app-.*");
    let mut live: BTreeSet<String> = BTreeSet::new();
    for i in 0..12 {
        let g = format!("orders-app-{i}");
        c.commit(&g, &c.topic, i % 2, 10 + i64::from(i));
        live.insert(g);
    }
    let tasks: Vec<CheckpointTask> = (0..3)
        .map(|i| c.task(&[("task.index", &i.to_string()), ("task.count", "3")]))
        .collect();
    // Each task takes a non-empty share (the rendezvous split of these 12 names).
    for i in 0..3 {
        assert!(!share(&live, i, 3).is_empty(), "task {i} owns nothing");
    }
    wait_for_split(&tasks, &live, "every task adopted its share");
    let mut emitted = vec![Vec::new(); 3];
    poll_all_until(&tasks, &mut emitted, "every group checkpointed", |e| {
        emitters(e).keys().cloned().collect::<BTreeSet<_>>() == live
    });
    for (g, who) in emitters(&emitted) {
        assert_eq!(who, BTreeSet::from([owner_of(&g, 3)]), "emitters of {g}");
    }

    // Churn: four groups leave, five arrive, two move their commits forward.
    let leaving = [
        "orders-app-0",
        "orders-app-3",
        "orders-app-7",
        "orders-app-10",
    ];
    c.delete_groups(&leaving);
    for g in leaving {
        live.remove(g);
    }
    for i in 0..5 {
        let g = format!("late-app-{i}");
        c.commit(&g, &c.topic, i % 2, 40 + i64::from(i));
        live.insert(g);
    }
    c.commit("orders-app-1", &c.topic, 1, 50);
    c.commit("orders-app-8", &c.topic, 0, 51);
    wait_for_split(&tasks, &live, "every task follows the churn");
    let mut after = vec![Vec::new(); 3];
    let expected_new: BTreeSet<String> = live
        .iter()
        .filter(|g| g.starts_with("late-app-") || *g == "orders-app-1" || *g == "orders-app-8")
        .cloned()
        .collect();
    poll_all_until(
        &tasks,
        &mut after,
        "new and moved groups checkpointed",
        |e| emitters(e).keys().cloned().collect::<BTreeSet<_>>() == expected_new,
    );
    for (g, who) in emitters(&after) {
        assert_eq!(who, BTreeSet::from([owner_of(&g, 3)]), "emitters of {g}");
    }

    // The topic agrees: no checkpoint was written twice (two owners would each write one).
    let written: Vec<Checkpoint> = read_all(&c.target, &c.checkpoints, 0)
        .into_iter()
        .map(|(k, v)| Checkpoint::decode(k.as_deref(), v.as_deref()).unwrap())
        .collect();
    let distinct: BTreeSet<_> = written
        .iter()
        .map(|c| {
            (
                c.consumer_group_id.clone(),
                c.topic_partition.clone(),
                c.upstream_offset,
            )
        })
        .collect();
    assert_eq!(distinct.len(), written.len(), "{written:?}");
    assert_eq!(written.len(), 12 + expected_new.len());
    for t in &tasks {
        t.stop().unwrap();
    }
    assert_no_leaks();
}

#[test]
fn a_cycle_over_500_groups_keeps_at_most_the_bounded_number_of_offset_fetches_in_flight() {
    let _g = serial();
    let c = Clusters::start("bulk", "bulk-.*");
    const GROUPS: usize = 500;
    let began = Instant::now();
    let src = c.source.clone();
    std::thread::scope(|s| {
        for part in 0..4 {
            let (src, topic) = (src.as_str(), c.topic.as_str());
            s.spawn(move || {
                for i in (part..GROUPS).step_by(4) {
                    let g = format!("bulk-{i:03}");
                    commit_group_offsets(src, &g, &[(topic, (i % 2) as i32, 100, "")]);
                }
            });
        }
    });
    eprintln!("committed {GROUPS} groups in {:?}", began.elapsed());

    let task = c.task(&[]);
    wait_until(WAIT, "all groups adopted", || task.groups().len() == GROUPS);
    let adopted = Instant::now();
    let cps = poll_until(&task, "every group checkpointed", |cps| {
        groups_of(cps).len() == GROUPS
    });
    let emitted_after = adopted.elapsed();
    assert_eq!(cps.len(), GROUPS);
    let first = task.stats();
    // Nothing changed: the second cycle fetches every group's offsets again and writes nothing.
    let out = loop {
        let out = task.poll(Duration::from_secs(5)).unwrap();
        if out.status == PollStatus::CycleDone {
            break out;
        }
    };
    assert!(out.checkpoints.is_empty());
    let second = task.stats();
    eprintln!(
        "500 groups: cycles to emit all {}, last of them {:?} ({:?} after adoption), idle cycle {:?}, \
         max offset fetches in flight {}",
        first.cycles,
        first.last_cycle_time.unwrap(),
        emitted_after,
        second.last_cycle_time.unwrap(),
        second.max_offset_fetches_in_flight
    );
    // The batch is bounded, and really batched (more than one request at a time).
    assert_eq!(
        second.max_offset_fetches_in_flight,
        MAX_OFFSET_FETCHES_IN_FLIGHT as u64
    );
    assert!(second.last_cycle_time.unwrap() < Duration::from_secs(30));
    task.stop().unwrap();
    assert_no_leaks();
}
