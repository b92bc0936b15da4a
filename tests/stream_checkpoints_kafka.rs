//! The checkpoint task with `group.offsets.source = consumer-offsets-topic` on real brokers: a
//! commit is translated and checkpointed as it arrives, not at the next interval, and the values
//! are those of MM2's rules. (The commit → checkpoint latency is measured by the benchmark,
//! BENCHMARKS.md "Offsets source"; this test pins correctness only.)

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, Producer};
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::{Checkpoint, TopicPartition};

use support::kafka::{client_config, partition_count};
use support::names::FlowNames;
use support::unique;

const WAIT: Duration = Duration::from_secs(60);

/// A flow with offset syncs 0 → 0 and 50 → 50 on both partitions of its topic.
fn flow() -> FlowNames {
    let names = FlowNames::shared();
    names.create_source_topics(2);
    names.create_target_topics(2, true);
    names.produce_one_to_one_syncs();
    names
}

/// Polls `task` until `done` holds for the checkpoints seen so far (latest per group and
/// partition); panics if the task ends or `WAIT` passes.
fn poll_until(
    task: &CheckpointTask,
    seen: &mut BTreeMap<(String, TopicPartition), Checkpoint>,
    what: &str,
    done: impl Fn(&BTreeMap<(String, TopicPartition), Checkpoint>) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !done(seen) {
        let out = task.poll(Duration::from_millis(200)).unwrap();
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "task ended: {out:?}, fatal {:?}",
            task.fatal_error()
        );
        for cp in out.checkpoints {
            seen.insert(
                (cp.consumer_group_id.clone(), cp.topic_partition.clone()),
                cp,
            );
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {WAIT:?}: saw {seen:?}"
        );
    }
}

#[test]
fn commits_are_checkpointed_as_they_arrive_not_at_the_next_interval() {
    let names = flow();
    let before = names.group("before");
    names.commit("before", &[(0, 60, "")]);
    let groups = format!("{}-.*", names.source_alias);
    // An hour between full cycles: after the first, only the stream can trigger one.
    let task = CheckpointTask::new(names.config(&[
        ("group.offsets.source", "consumer-offsets-topic"),
        ("emit.checkpoints.interval.seconds", "3600"),
        ("groups", &groups),
    ]))
    .unwrap();
    task.start().unwrap();
    let mut seen = BTreeMap::new();
    let remote0 = TopicPartition::new(&names.remote, 0);
    let remote1 = TopicPartition::new(&names.remote, 1);
    assert_eq!(task.next_cycle_in(), None, "no cycle yet");
    poll_until(&task, &mut seen, "the first cycle's checkpoint", |s| {
        s.contains_key(&(before.clone(), remote0.clone()))
    });
    let first_cycle_seen = Instant::now();
    assert_eq!(
        seen[&(before.clone(), remote0.clone())],
        names.cp("before", 0, 60, 51)
    );

    names.commit("live", &[(0, 70, "meta"), (1, 10, "")]);
    let live = names.group("live");
    poll_until(&task, &mut seen, "the live group's checkpoints", |s| {
        s.contains_key(&(live.clone(), remote0.clone()))
            && s.contains_key(&(live.clone(), remote1.clone()))
    });
    let mut with_meta = names.cp("live", 0, 70, 51);
    with_meta.metadata = "meta".into();
    assert_eq!(seen[&(live.clone(), remote0.clone())], with_meta);
    assert_eq!(
        seen[&(live.clone(), remote1.clone())],
        names.cp("live", 1, 10, 1)
    );

    // A newer commit of the same group that moves its translated offset is checkpointed too,
    // through the same rules.
    names.commit("live", &[(1, 55, "")]);
    poll_until(&task, &mut seen, "the newer commit's checkpoint", |s| {
        s.get(&(live.clone(), remote1.clone()))
            .is_some_and(|cp| cp.upstream_offset == 55)
    });
    assert_eq!(
        seen[&(live.clone(), remote1.clone())],
        names.cp("live", 1, 55, 51)
    );
    // The cycles the commits triggered covered the changed groups only: the next full cycle is
    // still an hour after the first, not an hour after the last.
    let next = task.next_cycle_in().expect("a full cycle is scheduled");
    assert!(
        next <= Duration::from_secs(3600).saturating_sub(first_cycle_seen.elapsed()),
        "{next:?}"
    );
    task.stop().unwrap();
    assert_eq!(task.next_cycle_in(), None, "stopped");
}

#[test]
fn a_fixed_group_list_limits_what_the_stream_checkpoints() {
    let names = flow();
    names.commit("other", &[(0, 60, "")]);
    names.commit("mine", &[(0, 60, "")]);
    let groups = format!("{}-.*", names.source_alias);
    let task = CheckpointTask::new(names.config(&[
        ("group.offsets.source", "consumer-offsets-topic"),
        ("groups", &groups),
        ("task.assigned.groups", &names.group("mine")),
    ]))
    .unwrap();
    task.start().unwrap();
    let mut seen = BTreeMap::new();
    let remote0 = TopicPartition::new(&names.remote, 0);
    let mine = names.group("mine");
    poll_until(&task, &mut seen, "the assigned group's checkpoint", |s| {
        s.contains_key(&(mine.clone(), remote0.clone()))
    });
    // Five more full cycles (1 s interval): by then the stream, which keeps the other group
    // too, drives the cycles; the other group is still never checkpointed.
    let mut cycles = 0;
    while cycles < 5 {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        if out.status == PollStatus::CycleDone {
            cycles += 1;
        }
        assert!(
            out.checkpoints.iter().all(|c| c.consumer_group_id == mine),
            "{out:?}"
        );
    }
    task.stop().unwrap();
}

/// The `__consumer_offsets` partition coordinating `group`, computed here as Kafka's coordinator
/// does (abs of Java's `String.hashCode`, modulo the partition count), independently of the
/// library's own function.
fn coordinator_partition(group: &str, partitions: i32) -> i32 {
    let mut hash: i32 = 0;
    for unit in group.encode_utf16() {
        hash = hash.wrapping_mul(31).wrapping_add(i32::from(unit));
    }
    if hash == i32::MIN {
        0
    } else {
        hash.abs() % partitions
    }
}

/// A transaction holding offsets of one group, left open until [`commit`](Self::commit); aborted
/// when dropped uncommitted, so a failed test does not hold the shared broker's
/// `__consumer_offsets` until the transaction times out.
struct OpenTransaction {
    producer: BaseProducer,
    open: bool,
}

impl OpenTransaction {
    /// Begins a transaction and sends `offset` of partition `partition` for `group` in it.
    fn begin(names: &FlowNames, group: &str, partition: i32, offset: i64) -> Self {
        let timeout = Duration::from_secs(30);
        let producer: BaseProducer = client_config(&names.s)
            .set("transactional.id", unique("held-txn"))
            .set("transaction.timeout.ms", "60000")
            .create()
            .unwrap();
        producer.init_transactions(timeout).unwrap();
        let member: BaseConsumer = client_config(&names.s)
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        producer.begin_transaction().unwrap();
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(&names.topic, partition, Offset::Offset(offset))
            .unwrap();
        producer
            .send_offsets_to_transaction(&list, &member.group_metadata().unwrap(), timeout)
            .unwrap();
        OpenTransaction {
            producer,
            open: true,
        }
    }

    fn commit(mut self) {
        self.producer
            .commit_transaction(Duration::from_secs(30))
            .unwrap();
        self.open = false;
    }
}

impl Drop for OpenTransaction {
    fn drop(&mut self) {
        if self.open {
            let _ = self.producer.abort_transaction(Duration::from_secs(10));
        }
    }
}

/// Polls every task once per round, keeping each one's latest checkpoints, until `done` holds
/// for all of them and they are identical; panics with what each saw when `within` passes.
/// Pending transactional commits of `held` must never be checkpointed.
fn settle(
    tasks: &[&CheckpointTask],
    seen: &mut [BTreeMap<(String, TopicPartition), Checkpoint>],
    held: &str,
    within: Duration,
    what: &str,
    done: impl Fn(&BTreeMap<(String, TopicPartition), Checkpoint>) -> bool,
) -> Duration {
    let began = Instant::now();
    loop {
        for (task, seen) in tasks.iter().zip(seen.iter_mut()) {
            let out = task.poll(Duration::from_millis(100)).unwrap();
            assert!(
                !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
                "task ended: {out:?}, fatal {:?}",
                task.fatal_error()
            );
            for cp in out.checkpoints {
                assert!(
                    !(cp.consumer_group_id == held && what.contains("open")),
                    "{what}: a pending transactional commit was checkpointed: {cp:?}"
                );
                seen.insert(
                    (cp.consumer_group_id.clone(), cp.topic_partition.clone()),
                    cp,
                );
            }
        }
        if seen.iter().all(&done) && seen.windows(2).all(|w| w[0] == w[1]) {
            return began.elapsed();
        }
        assert!(
            began.elapsed() < within,
            "{what}: not done and identical within {within:?}: {seen:#?}"
        );
    }
}

#[test]
fn a_plain_commit_is_checkpointed_while_a_transaction_holds_its_coordinator_partition() {
    let names = flow();
    // The stream task writes to the source broker as its target, so that its checkpoints and
    // the poll task's are each emitted from an empty checkpoints topic.
    support::kafka::create_topic(&names.s, &names.remote, 2);
    support::kafka::create_topic_with_config(
        &names.s,
        &names.checkpoints,
        1,
        &[("cleanup.policy", "compact")],
    );
    // A first commit makes sure `__consumer_offsets` exists.
    names.commit("first", &[(0, 60, "")]);
    let partitions = partition_count(&names.s, "__consumer_offsets").unwrap() as i32;
    let held = names.group("held");
    let target = coordinator_partition(&held, partitions);
    // A plain committer whose group the same partition coordinates.
    let plain_name = (0..)
        .map(|i| format!("plain-{i}"))
        .find(|n| coordinator_partition(&names.group(n), partitions) == target)
        .unwrap();
    let plain = names.group(&plain_name);
    names.commit(&plain_name, &[(0, 40, "")]);
    let groups = format!("{}-.*", names.source_alias);
    let interval = Duration::from_secs(2);
    let task_on = |target: &str, source: &str| {
        let task = CheckpointTask::new(support::runtime::task_config(
            &names.s,
            target,
            &[
                ("source.cluster.alias", names.source_alias.as_str()),
                ("target.cluster.alias", names.target_alias.as_str()),
                ("group.offsets.source", source),
                ("emit.checkpoints.interval.seconds", "2"),
                // The poll task learns of a new group (`held`) at its next refresh.
                ("refresh.groups.interval.seconds", "1"),
                ("groups", &groups),
            ],
        ))
        .unwrap();
        task.start().unwrap();
        task
    };
    let stream = task_on(&names.s, "consumer-offsets-topic");
    let poll = task_on(&names.t, "poll");
    let tasks = [&stream, &poll];
    let mut seen = [BTreeMap::new(), BTreeMap::new()];
    let remote0 = TopicPartition::new(&names.remote, 0);
    let at = |group: &str, offset: i64| {
        let key = (group.to_string(), remote0.clone());
        move |s: &BTreeMap<(String, TopicPartition), Checkpoint>| {
            s.get(&key).is_some_and(|c| c.upstream_offset == offset)
        }
    };
    settle(
        &tasks,
        &mut seen,
        &held,
        WAIT,
        "first checkpoints",
        at(&plain, 40),
    );

    // The transaction's offset record is the first record `read_committed` cannot pass; the
    // plain commit after it is one the coordinator applies at once (and one that moves the
    // translated offset, 1 → 51, so that it is checkpointed).
    let transaction = OpenTransaction::begin(&names, &held, 0, 70);
    names.commit(&plain_name, &[(0, 80, "")]);
    let took = settle(
        &tasks,
        &mut seen,
        &held,
        interval * 3,
        "the plain commit behind an open transaction",
        at(&plain, 80),
    );
    eprintln!("plain commit behind an open transaction: checkpointed by both in {took:?}");
    // The stream task shows the hold in its metrics; the poll task has no stream.
    let holds = |task: &CheckpointTask| task.metrics().task.offsets_stream;
    let deadline = Instant::now() + WAIT;
    while holds(&stream).is_none_or(|s| s.held_partitions == 0) {
        assert!(
            Instant::now() < deadline,
            "no hold in the metrics: {:?}",
            holds(&stream)
        );
        stream.poll(Duration::from_millis(200)).unwrap();
    }
    let during = holds(&stream).unwrap();
    assert!(
        during.held_partitions >= 1 && during.longest_hold.is_some(),
        "{during:?}"
    );
    assert_eq!(holds(&poll), None);
    eprintln!("while the transaction is open, the stream task's metrics: {during:?}");
    assert_eq!(
        seen[0][&(plain.clone(), remote0.clone())],
        names.cp(&plain_name, 0, 80, 51)
    );
    // Once committed, the transactional commit counts, for both alike.
    transaction.commit();
    settle(
        &tasks,
        &mut seen,
        &held,
        WAIT,
        "the committed transaction",
        at(&held, 70),
    );
    assert_eq!(
        seen[0][&(held.clone(), remote0.clone())],
        names.cp("held", 0, 70, 51)
    );
    let deadline = Instant::now() + WAIT;
    while holds(&stream).is_some_and(|s| s.held_partitions > 0) {
        assert!(
            Instant::now() < deadline,
            "the hold stayed: {:?}",
            holds(&stream)
        );
        stream.poll(Duration::from_millis(200)).unwrap();
    }
    assert_eq!(holds(&stream).map(|s| s.longest_hold), Some(None));
    stream.stop().unwrap();
    poll.stop().unwrap();
}
