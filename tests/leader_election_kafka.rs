//! CheckpointTask on a three-node Apache Kafka cluster (every topic with three replicas) while
//! the leaders it depends on are killed one after another, each right after a commit the task
//! has yet to checkpoint: the checkpoints topic's leader (where the task writes), the group
//! coordinator (`__consumer_offsets`' leader, where it reads the group's offsets) and the
//! offset-syncs topic's leader (where it reads the syncs); then, with every node back, the
//! preferred leaders are elected again (leadership moves with no node dying). The cluster is
//! the flow's source and its target at once (two aliases), so one set of nodes carries every
//! role.
//!
//! Checked at every election: the checkpoint of that commit is emitted and in the target's topic
//! within [`RECOVERY_BOUND`]; no checkpoint goes backwards or is ahead of its commit, in what the
//! task emits and in the topic; the topic never holds two checkpoints of one commit with
//! different content. At the end: the stop returns within [`STOP_BOUND`] and leaves no client
//! or thread. Each election prints one `fault-result` line (BENCHMARKS.md "Network faults").

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, StopOutcome};

use support::broker::Cluster;
use support::invariants::{written_once, Invariants};
use support::kafka::{create_replicated_topic, partition_leader};
use support::names::FlowNames;
use support::runtime::{assert_no_leaks, install_logger, produce_syncs};
use support::wait_until;

/// The stop's bound: the same as without a fault.
const STOP_BOUND: Duration = Duration::from_secs(2);
/// A leader's death noticed by the controller (the launcher's `broker.session.timeout.ms`,
/// 3 s), a new leader elected, the clients' metadata refreshed and their retries backed off
/// (up to 10 s), then one emit interval (1 s): up to 10 s measured on an idle machine; three
/// nodes and the test beside CI's other lanes on 2 cores take longer.
const RECOVERY_BOUND: Duration = Duration::from_secs(45);
/// How long a restarted node may take to be back in every in-sync replica set.
const REJOIN_BOUND: Duration = Duration::from_secs(90);
const NODES: i32 = 3;

#[test]
fn leaders_killed_while_checkpoints_are_written_lose_nothing_and_stop_stays_prompt() {
    install_logger();
    let mut cluster = Cluster::start(NODES as usize);
    let bootstrap = cluster.bootstrap();
    let f = FlowNames::on(&bootstrap, &bootstrap);
    create_replicated_topic(&f.s, &f.topic, 1, NODES, &[]);
    create_replicated_topic(&f.s, &f.syncs, 1, NODES, &[("cleanup.policy", "compact")]);
    create_replicated_topic(&f.t, &f.remote, 1, NODES, &[]);
    produce_syncs(&f.s, &f.syncs, &[f.sync(0, 0, 0), f.sync(0, 10, 10)], false);
    f.commit("g", &[(0, 10, "")]);
    let group = f.group("g");
    let task = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", group.as_str()),
        // MM2's default: the task creates its topic with three replicas.
        ("checkpoints.topic.replication.factor", "3"),
        ("admin.timeout.ms", "6000"),
    ]))
    .unwrap();
    task.start().unwrap();
    let mut inv = Invariants::new();
    inv.poll_until(
        &task,
        "first checkpoint",
        &f.cp("g", 0, 10, 10),
        RECOVERY_BOUND,
    );

    let roles: [(&str, &str); 3] = [
        ("checkpoints topic", &f.checkpoints),
        ("group coordinator", "__consumer_offsets"),
        ("offset-syncs topic", &f.syncs),
    ];
    let whole = |cluster_bootstrap: &str| {
        roles.iter().all(|(_, topic)| {
            partition_leader(cluster_bootstrap, topic, 0)
                .is_some_and(|(_, isr)| isr.len() == NODES as usize)
        })
    };
    let mut up = 10;
    for (role, topic) in roles {
        let what = format!("leader of the {role} killed");
        wait_until(REJOIN_BOUND, "every replica in sync", || whole(&bootstrap));
        let (leader, _) = partition_leader(&bootstrap, topic, 0).expect("a leader");
        up += 10;
        produce_syncs(&f.s, &f.syncs, &[f.sync(0, up, up)], false);
        f.commit("g", &[(0, up, "")]);
        let killed = Instant::now();
        cluster.node(leader).kill();
        let wanted = f.cp("g", 0, up, up);
        inv.poll_until(&task, &what, &wanted, RECOVERY_BOUND);
        let emitted = killed.elapsed();
        let remaining = RECOVERY_BOUND.saturating_sub(emitted);
        wait_until(
            remaining,
            &format!("{what}: the checkpoint in the topic"),
            || written_once(&f.t, &f.checkpoints, &what).contains(&wanted),
        );
        let written = killed.elapsed();
        let elected = partition_leader(&bootstrap, topic, 0).map(|(l, _)| l);
        eprintln!(
            "fault-result {what} (node {leader}, now {elected:?}): emitted after {:.2} s, \
             in the topic after {:.2} s; retry reason now {:?}",
            emitted.as_secs_f64(),
            written.as_secs_f64(),
            task.retry_reason()
        );
        cluster.node(leader).restart();
    }

    // A leadership move without a death: the restarted nodes take back the partitions they
    // prefer, as the controller's periodic rebalance would.
    wait_until(REJOIN_BOUND, "every replica in sync", || whole(&bootstrap));
    let before: Vec<_> = roles
        .iter()
        .map(|(_, topic)| partition_leader(&bootstrap, topic, 0).map(|(l, _)| l))
        .collect();
    up += 10;
    produce_syncs(&f.s, &f.syncs, &[f.sync(0, up, up)], false);
    f.commit("g", &[(0, up, "")]);
    let moved = Instant::now();
    cluster.elect_preferred_leaders();
    let what = "preferred leaders elected";
    let wanted = f.cp("g", 0, up, up);
    inv.poll_until(&task, what, &wanted, RECOVERY_BOUND);
    wait_until(RECOVERY_BOUND, "the checkpoint in the topic", || {
        written_once(&f.t, &f.checkpoints, what).contains(&wanted)
    });
    let after: Vec<_> = roles
        .iter()
        .map(|(_, topic)| partition_leader(&bootstrap, topic, 0).map(|(l, _)| l))
        .collect();
    eprintln!(
        "fault-result {what} (leaders {before:?} -> {after:?}): in the topic after {:.2} s",
        moved.elapsed().as_secs_f64()
    );

    let began = Instant::now();
    let outcome = task.stop().unwrap();
    let stop = began.elapsed();
    assert!(matches!(outcome, StopOutcome::Stopped(_)), "{outcome:?}");
    assert!(stop < STOP_BOUND, "stop took {stop:?}");
    eprintln!(
        "fault-result leader elections: stop {:.1} ms, {} checkpoints checked, retries {:?}",
        stop.as_secs_f64() * 1000.0,
        inv.monotonic.checked,
        task.metrics().task.retries
    );
    drop(task);
    assert_no_leaks();
    written_once(&f.t, &f.checkpoints, "after the stop");
}
