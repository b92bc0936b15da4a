//! The offsets-source differential: on one broker pair, with the same data, the two offsets sources
//! (`group.offsets.source = poll` and `consumer-offsets-topic`) end with identical checkpoints and
//! identical synced target offsets. 1,000 classic groups, then churn while both run: rewinds,
//! deletions, new groups, a KIP-848 consumer group, and a transactional committer with a
//! committed and an aborted transaction.
//!
//! Both tasks read the same source (offset syncs, committed offsets). The poll task writes to the
//! target broker; the stream task writes to the source broker as its target (the remote topic and
//! the checkpoints topic exist there too), so that each has target groups of its own to sync.
//! The topic filter takes exactly the replicated topic, so the stream task's writes into the
//! source broker's groups (on the remote topic) are invisible to both.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::producer::{BaseProducer, Producer};
use rdkafka::{Offset, TopicPartitionList};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::librdkafka::{self, AdminOutcome, GroupOffsets, RawAdmin};
use mm2_checkpoint::{Checkpoint, TopicPartition};

use support::kafka::client_config;
use support::names::FlowNames;
use support::*;

const GROUPS: usize = 1000;
const WAIT: Duration = Duration::from_secs(180);

type Latest = BTreeMap<(String, TopicPartition), Checkpoint>;

/// One task and what it emitted: the latest checkpoint per group and partition.
struct Side {
    task: CheckpointTask,
    latest: Latest,
    cycles: u64,
}

impl Side {
    fn start(names: &FlowNames, target: &str, source: &str) -> Side {
        let groups = format!("{}-.*", names.source_alias);
        let topics = names.topic.clone();
        let task = CheckpointTask::new(support::runtime::task_config(
            &names.s,
            target,
            &[
                ("source.cluster.alias", names.source_alias.as_str()),
                ("target.cluster.alias", names.target_alias.as_str()),
                ("group.offsets.source", source),
                ("groups", &groups),
                ("topics", &topics),
                ("refresh.groups.interval.seconds", "1"),
                ("sync.group.offsets.enabled", "true"),
                ("sync.group.offsets.interval.seconds", "1"),
            ],
        ))
        .unwrap();
        task.start().unwrap();
        Side {
            task,
            latest: BTreeMap::new(),
            cycles: 0,
        }
    }

    fn poll(&mut self) {
        let out = self.task.poll(Duration::from_millis(100)).unwrap();
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "task ended: {out:?}, fatal {:?}",
            self.task.fatal_error()
        );
        if out.status == PollStatus::CycleDone {
            self.cycles += 1;
        }
        for cp in out.checkpoints {
            self.latest.insert(
                (cp.consumer_group_id.clone(), cp.topic_partition.clone()),
                cp,
            );
        }
    }
}

/// Notes a step on stderr at once, past libtest's capture (which shows a test's output only when
/// the test ends), so that a run that dies (a crash leaves nothing in the log) shows how far it
/// got.
fn phase(step: &str) {
    static STARTED: OnceLock<Instant> = OnceLock::new();
    let at = STARTED.get_or_init(Instant::now).elapsed().as_secs_f64();
    let _ = writeln!(std::io::stderr(), "[differential {at:6.1} s] {step}");
}

/// Polls both sides until both ran `cycles` more cycles and `done` holds for both; panics
/// with the difference when `WAIT` passes.
fn settle(poll: &mut Side, stream: &mut Side, what: &str, done: impl Fn(&Latest) -> bool) {
    phase(&format!("{what}: waiting for identical checkpoints"));
    let (p0, s0) = (poll.cycles, stream.cycles);
    let deadline = Instant::now() + WAIT;
    loop {
        poll.poll();
        stream.poll();
        if poll.cycles >= p0 + 2
            && stream.cycles >= s0 + 2
            && done(&poll.latest)
            && poll.latest == stream.latest
        {
            phase(&format!(
                "{what}: identical ({} entries)",
                poll.latest.len()
            ));
            return;
        }
        if Instant::now() > deadline {
            let only_poll: Vec<_> = poll
                .latest
                .iter()
                .filter(|(k, v)| stream.latest.get(*k) != Some(*v))
                .take(10)
                .collect();
            let only_stream: Vec<_> = stream
                .latest
                .iter()
                .filter(|(k, v)| poll.latest.get(*k) != Some(*v))
                .take(10)
                .collect();
            phase(&format!("{what}: not identical within {WAIT:?}, failing"));
            panic!(
                "{what}: not identical within {WAIT:?} ({} vs {} entries, done {}); poll only {only_poll:#?}; stream only {only_stream:#?}",
                poll.latest.len(),
                stream.latest.len(),
                done(&poll.latest)
            );
        }
    }
}

/// Group requests one admin client keeps in flight.
const IN_FLIGHT: usize = 64;

/// An admin client on `bootstrap` with a result queue of its own.
fn raw_admin(bootstrap: &str) -> RawAdmin {
    RawAdmin::new(client_config(bootstrap).create().expect("admin client"))
}

/// Sends `count` one-group requests on `admin` (`submit(i)` sends the i-th with tag `i`),
/// `IN_FLIGHT` at a time, and returns the answers in that order. One client for all of them:
/// a consumer client per group takes about 31 s for the 1,000 commits on CI machines, and much
/// of the broker's work.
fn each_group(
    admin: &RawAdmin,
    count: usize,
    what: &str,
    submit: impl Fn(usize),
) -> Vec<GroupOffsets> {
    let mut answers: Vec<Option<GroupOffsets>> = (0..count).map(|_| None).collect();
    let (mut next, mut pending) = (0, 0);
    // Requests to send again, and when: their group's coordinator was not ready yet.
    let mut again: Vec<(Instant, usize)> = Vec::new();
    let deadline = Instant::now() + WAIT;
    while next < count || pending > 0 || !again.is_empty() {
        let now = Instant::now();
        while pending < IN_FLIGHT {
            let i = match again.iter().position(|(due, _)| *due <= now) {
                Some(at) => again.swap_remove(at).1,
                None if next < count => {
                    next += 1;
                    next - 1
                }
                None => break,
            };
            submit(i);
            pending += 1;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: no answer within {WAIT:?}"
        );
        let Some(answer) = librdkafka::poll_admin_result(admin.queue(), Duration::from_millis(200))
        else {
            continue;
        };
        match answer.outcome {
            AdminOutcome::GroupOffsets(mut groups) if groups.len() == 1 => {
                pending -= 1;
                let group = groups.remove(0);
                if coordinator_not_ready(&group) {
                    // As Kafka's clients do (retry.backoff.ms): a freshly started broker answers
                    // CoordinatorLoadInProgress while it loads its group metadata.
                    again.push((
                        Instant::now() + Duration::from_millis(100),
                        answer.tag as usize,
                    ));
                } else {
                    answers[answer.tag as usize] = Some(group);
                }
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    answers
        .into_iter()
        .map(|a| a.expect("every request was answered"))
        .collect()
}

/// Whether `answer` says to ask the group's coordinator again: it is loading the group, moved,
/// or not known yet (for the group, or for any of its partitions).
fn coordinator_not_ready(answer: &GroupOffsets) -> bool {
    use rdkafka::error::RDKafkaErrorCode as C;
    let not_ready = |e: &Option<librdkafka::NativeError>| {
        e.as_ref().is_some_and(|e| {
            matches!(
                e.code,
                C::CoordinatorLoadInProgress | C::NotCoordinator | C::CoordinatorNotAvailable
            )
        })
    };
    not_ready(&answer.error) || answer.partitions.iter().any(|p| not_ready(&p.error))
}

/// Commits `offsets` for each of `groups` (this flow's names) with AlterConsumerGroupOffsets,
/// which commits as a consumer outside the group does.
fn commit_all(names: &FlowNames, groups: &[(String, Vec<(i32, i64)>)]) {
    let admin = raw_admin(&names.s);
    let answers = each_group(&admin, groups.len(), "committing", |i| {
        let (group, offsets) = &groups[i];
        let offsets: Vec<(String, i32, i64, String)> = offsets
            .iter()
            .map(|&(p, o)| (names.topic.clone(), p, o, String::new()))
            .collect();
        librdkafka::submit_alter_group_offsets(
            admin.client(),
            admin.queue(),
            &names.group(group),
            &offsets,
            i as u64,
            WAIT,
        );
    });
    for answer in answers {
        assert!(
            answer.error.is_none() && answer.partitions.iter().all(|p| p.error.is_none()),
            "commit for {}: {answer:?}",
            answer.group
        );
    }
}

/// The offsets synced into each of `groups` on `admin`'s broker, for both remote partitions
/// (`None`: none committed).
fn synced(admin: &RawAdmin, names: &FlowNames, groups: &[String]) -> Vec<Vec<Option<i64>>> {
    let partitions = [(names.remote.clone(), 0), (names.remote.clone(), 1)];
    let answers = each_group(admin, groups.len(), "reading synced offsets", |i| {
        librdkafka::submit_list_group_offsets(
            admin.client(),
            admin.queue(),
            &names.group(&groups[i]),
            Some(&partitions),
            i as u64,
            WAIT,
        );
    });
    answers
        .into_iter()
        .map(|answer| {
            assert!(
                answer.error.is_none(),
                "OffsetFetch for {}: {answer:?}",
                answer.group
            );
            [0, 1]
                .iter()
                .map(|&p| {
                    let found = answer
                        .partitions
                        .iter()
                        .find(|x| x.topic == names.remote && x.partition == p)
                        .unwrap_or_else(|| {
                            panic!("OffsetFetch for {}: no partition {p}", answer.group)
                        });
                    assert!(
                        found.error.is_none(),
                        "OffsetFetch for {}: {found:?}",
                        answer.group
                    );
                    (found.offset >= 0).then_some(found.offset)
                })
                .collect()
        })
        .collect()
}

#[test]
fn both_offsets_sources_give_identical_checkpoints_and_synced_offsets() {
    support::runtime::install_logger();
    phase("creating topics and offset syncs");
    let names = FlowNames::shared();
    names.create_source_topics(2);
    names.create_target_topics(2, true);
    // The stream task's target is the source broker.
    create_topic(&names.s, &names.remote, 2);
    create_topic_with_config(
        &names.s,
        &names.checkpoints,
        1,
        &[("cleanup.policy", "compact")],
    );
    names.produce_one_to_one_syncs();

    // 1,000 classic groups, each on one partition, below, at and past the second sync.
    let first: Vec<(String, Vec<(i32, i64)>)> = (0..GROUPS)
        .map(|i| (format!("g{i}"), vec![((i % 2) as i32, [10, 60, 70][i % 3])]))
        .collect();
    phase("committing 1,000 groups");
    commit_all(&names, &first);

    phase("starting both tasks");
    let mut poll = Side::start(&names, &names.t, "poll");
    let mut stream = Side::start(&names, &names.s, "consumer-offsets-topic");
    settle(&mut poll, &mut stream, "1,000 groups", |l| {
        l.len() == GROUPS
    });

    // Churn while both run.
    phase("churn: rewinds, deletions, new groups, KIP-848, transactions");
    let rewound: Vec<(String, Vec<(i32, i64)>)> = (0..20)
        .map(|i| (format!("g{}", i * 3 + 1), vec![((i * 3 + 1) % 2, 5)]))
        .collect();
    commit_all(&names, &rewound);
    let deleted: Vec<String> = (0..20)
        .map(|i| names.group(&format!("g{}", i * 3 + 2)))
        .collect();
    let admin: AdminClient<DefaultClientContext> = client_config(&names.s).create().unwrap();
    let refs: Vec<&str> = deleted.iter().map(String::as_str).collect();
    let answers = block_on(
        admin.delete_groups(&refs, &AdminOptions::new()),
        Duration::from_secs(30),
        "deleting groups",
    )
    .unwrap();
    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    let fresh: Vec<(String, Vec<(i32, i64)>)> = (0..20)
        .map(|i| (format!("new{i}"), vec![(0, 55), (1, 65)]))
        .collect();
    commit_all(&names, &fresh);
    kip848_commit(&names, "kip848", 66);
    transactional(&names, "txn");

    let remote = |p| TopicPartition::new(&names.remote, p);
    let (kip848, txn) = (names.group("kip848"), names.group("txn"));
    settle(&mut poll, &mut stream, "after churn", |l| {
        l.get(&(kip848.clone(), remote(0)))
            .is_some_and(|c| c.upstream_offset == 66)
            && l.get(&(txn.clone(), remote(0)))
                .is_some_and(|c| c.upstream_offset == 61)
            && l.get(&(txn.clone(), remote(1)))
                .is_some_and(|c| c.upstream_offset == 52)
            && (0..20).all(|i| l.contains_key(&(names.group(&format!("new{i}")), remote(1))))
    });
    assert_eq!(
        poll.latest
            .get(&(txn.clone(), remote(0)))
            .map(|c| c.upstream_offset),
        Some(61)
    );

    // Identical synced offsets on both targets, for a sample of every kind of group.
    let mut sample: Vec<String> = (0..30).map(|i| format!("g{}", i * 33)).collect();
    sample.extend(["new0", "new19", "kip848", "txn", "g1", "g4"].map(String::from));
    phase("comparing synced target offsets");
    // Each round polls both tasks once, then reads the groups still pending on both targets
    // (the poll task's is the target broker, the stream task's the source broker).
    let (on_target, on_source) = (raw_admin(&names.t), raw_admin(&names.s));
    let mut pending = sample;
    let deadline = Instant::now() + WAIT;
    while !pending.is_empty() {
        poll.poll();
        stream.poll();
        let by_poll = synced(&on_target, &names, &pending);
        let by_stream = synced(&on_source, &names, &pending);
        pending = pending
            .into_iter()
            .zip(by_poll.into_iter().zip(by_stream))
            .filter(|(_, (p, s))| !(p.iter().any(Option::is_some) && p == s))
            .map(|(group, _)| group)
            .collect();
        assert!(
            pending.is_empty() || Instant::now() < deadline,
            "synced offsets not identical within {WAIT:?} for {pending:?}"
        );
    }
    // The stream task did read the stream, and never fell back to `poll`.
    let logs = support::runtime::captured_logs();
    assert!(
        logs.iter()
            .any(|l| l.message.contains("read `__consumer_offsets` to its end")),
        "the stream caught up"
    );
    let fell_back = support::runtime::warnings_mentioning("falling back to `poll`");
    assert!(fell_back.is_empty(), "{fell_back:#?}");
    phase("stopping both tasks");
    poll.task.stop().unwrap();
    stream.task.stop().unwrap();
    phase("stopped");
}

/// A KIP-848 member of this flow's `group` commits `offset` on partition 0 and leaves.
fn kip848_commit(names: &FlowNames, group: &str, offset: i64) {
    let consumer: BaseConsumer = client_config(&names.s)
        .set("group.id", names.group(group))
        .set("group.protocol", "consumer")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    consumer.subscribe(&[names.topic.as_str()]).unwrap();
    wait_until(WAIT, "the KIP-848 member's assignment", || {
        let _ = consumer.poll(Duration::from_millis(100));
        consumer.assignment().is_ok_and(|a| a.count() > 0)
    });
    let mut list = TopicPartitionList::new();
    list.add_partition_offset(&names.topic, 0, Offset::Offset(offset))
        .unwrap();
    consumer.commit(&list, CommitMode::Sync).unwrap();
    consumer.unsubscribe();
}

/// A transactional committer for this flow's `group`: commits 61 on partition 0 in a committed
/// transaction, 99 in an aborted one, then (outside transactions) 52 on partition 1.
fn transactional(names: &FlowNames, group: &str) {
    let producer: BaseProducer = client_config(&names.s)
        .set("transactional.id", unique("diff-txn"))
        .create()
        .unwrap();
    let timeout = Duration::from_secs(30);
    producer.init_transactions(timeout).unwrap();
    let member: BaseConsumer = client_config(&names.s)
        .set("group.id", names.group(group))
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let metadata = member.group_metadata().unwrap();
    for (offset, commit) in [(61, true), (99, false)] {
        producer.begin_transaction().unwrap();
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(&names.topic, 0, Offset::Offset(offset))
            .unwrap();
        producer
            .send_offsets_to_transaction(&list, &metadata, timeout)
            .unwrap();
        if commit {
            producer.commit_transaction(timeout).unwrap();
        } else {
            producer.abort_transaction(timeout).unwrap();
        }
    }
    names.commit(group, &[(1, 52, "")]);
}
