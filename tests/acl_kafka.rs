//! The checkpoint task as a least-privilege principal on a real Apache Kafka broker with KRaft's
//! StandardAuthorizer (`kafka-broker.sh start --secure --authorizer`): with exactly the ACLs
//! MM2's checkpointing needs it checkpoints end to end; with one of them missing it does what a
//! user needs (fails at once naming what is denied, or skips only the one group denied).
//!
//! One broker plays both clusters, shared by every test here; each test has its own SCRAM
//! principal (so even cluster-wide ACLs are per test), aliases, topics and groups. Setup
//! (topics, offset syncs, source commits) goes through the PLAINTEXT listener, whose principal
//! is the broker's own super user; the task connects over SASL_SSL as its principal only.
//! Since source and target are one broker, a group's source DESCRIBE and target READ are ACLs
//! on the same group resource.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};

use support::acl::{grant, Acl, Operation, Resource};
use support::names::FlowNames;
use support::runtime::{captured_logs, install_logger, task_config};
use support::secure_kafka::{Listener, SecureKafka, ACL_USERS};
use support::{committed_offsets, wait_for};

/// Bound on start-up plus a checkpoint cycle or a group offset sync (a hang detector).
const WAIT: Duration = Duration::from_secs(60);
/// How soon a denied ACL must fail the task: seconds, not a retry loop. Generous for a loaded
/// machine; librdkafka's own request timeouts are longer than this.
const FAIL_WITHIN: Duration = Duration::from_secs(25);

/// The ACL MM2's checkpointing needs; each test leaves out at most one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// READ on the offset-syncs topic (source).
    ReadOffsetSyncs,
    /// READ on the checkpoints topic (target): the start-up load.
    ReadCheckpoints,
    /// WRITE on the checkpoints topic (target).
    WriteCheckpoints,
    /// CREATE on the checkpoints topic (target), only to create it when missing.
    CreateCheckpoints,
    /// DESCRIBE on the cluster (source): listing the consumer groups.
    DescribeCluster,
    /// DESCRIBE on the replicated topic (source): the group's committed offsets on it.
    DescribeSourceTopic,
    /// READ on the remote topic (target): committing a target group's offsets on it.
    ReadRemoteTopic,
}

const ALL_NEEDS: [Need; 7] = [
    Need::ReadOffsetSyncs,
    Need::ReadCheckpoints,
    Need::WriteCheckpoints,
    Need::CreateCheckpoints,
    Need::DescribeCluster,
    Need::DescribeSourceTopic,
    Need::ReadRemoteTopic,
];

/// One test's flow, principal and task.
struct Flow {
    names: FlowNames,
    user: usize,
}

impl Flow {
    /// Fresh names and the next unused principal; the source topic (2 partitions) and the
    /// offset-syncs topic with syncs 0→0 and 50→50 on both partitions, the remote topic, and
    /// the checkpoints topic when `checkpoints_topic`.
    fn new(checkpoints_topic: bool) -> Flow {
        static NEXT_USER: AtomicUsize = AtomicUsize::new(0);
        let user = NEXT_USER.fetch_add(1, Ordering::SeqCst);
        assert!(user < ACL_USERS, "more tests than ACL_USERS principals");
        let kafka = SecureKafka::with_authorizer();
        let plain = kafka.bootstrap(Listener::Plaintext);
        let names = FlowNames::on(&plain, &plain);
        names.create_source_topics(2);
        names.create_target_topics(2, checkpoints_topic);
        names.produce_one_to_one_syncs();
        Flow { names, user }
    }

    /// Commits offset 60 on partition 0 of the source topic for each of `groups`.
    fn commit(&self, groups: &[&str]) {
        for g in groups {
            self.names.commit(g, &[(0, 60, "")]);
        }
    }

    /// Grants this flow's principal every ACL in `needs`, plus, per group in `groups`,
    /// `group_ops` on that group.
    fn grant(&self, needs: &[Need], groups: &[(&str, &[Operation])]) {
        let n = &self.names;
        let mut acls = Vec::new();
        for need in needs {
            let (resource, operation) = match need {
                Need::ReadOffsetSyncs => (Resource::Topic(n.syncs.clone()), Operation::Read),
                Need::ReadCheckpoints => (Resource::Topic(n.checkpoints.clone()), Operation::Read),
                Need::WriteCheckpoints => {
                    (Resource::Topic(n.checkpoints.clone()), Operation::Write)
                }
                Need::CreateCheckpoints => {
                    (Resource::Topic(n.checkpoints.clone()), Operation::Create)
                }
                Need::DescribeCluster => (Resource::Cluster, Operation::Describe),
                Need::DescribeSourceTopic => {
                    (Resource::Topic(n.topic.clone()), Operation::Describe)
                }
                Need::ReadRemoteTopic => (Resource::Topic(n.remote.clone()), Operation::Read),
            };
            acls.push(Acl::new(resource, operation));
        }
        for (g, ops) in groups {
            for op in *ops {
                acls.push(Acl::new(Resource::Group(n.group(g)), *op));
            }
        }
        let kafka = SecureKafka::with_authorizer();
        grant(
            &kafka.admin_settings(),
            &SecureKafka::acl_user(self.user),
            &acls,
        );
    }

    /// The task, connecting to both clusters over SASL_SSL as this flow's principal, taking in
    /// this flow's groups only; `extra` adds properties.
    fn task(&self, extra: &[(&str, &str)]) -> CheckpointTask {
        let kafka = SecureKafka::with_authorizer();
        let settings = kafka.acl_user_settings(self.user);
        let bootstrap = kafka.bootstrap(Listener::SaslSsl(
            support::secure_kafka::Mechanism::ScramSha512,
        ));
        let mut owned: Vec<(String, String)> = Vec::new();
        for (key, value) in settings.iter().filter(|(k, _)| k != "bootstrap.servers") {
            for side in ["source", "target"] {
                owned.push((format!("{side}.cluster.{key}"), value.clone()));
            }
        }
        let n = &self.names;
        owned.push(("source.cluster.alias".into(), n.source_alias.clone()));
        owned.push(("target.cluster.alias".into(), n.target_alias.clone()));
        owned.push(("groups".into(), format!("{}-.*", n.source_alias)));
        owned.push(("topics".into(), n.topic.clone()));
        let mut props: Vec<(&str, &str)> = owned
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        props.extend_from_slice(extra);
        let task = CheckpointTask::new(task_config(&bootstrap, &bootstrap, &props))
            .unwrap_or_else(|e| panic!("task: {e}"));
        task.start().unwrap_or_else(|e| panic!("start: {e}"));
        task
    }

    /// Polls until the checkpoints of `groups` (this flow's names) have all been emitted and
    /// returns every group emitted meanwhile; panics if the task fails or `WAIT` passes.
    fn checkpointed(&self, task: &CheckpointTask, groups: &[&str]) -> BTreeSet<String> {
        let want: BTreeSet<String> = groups.iter().map(|g| self.names.group(g)).collect();
        let mut seen = BTreeSet::new();
        let deadline = Instant::now() + WAIT;
        while !want.is_subset(&seen) {
            let out = task
                .poll(Duration::from_millis(500))
                .unwrap_or_else(|e| panic!("poll: {e}"));
            assert!(
                !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
                "task ended: {out:?}, fatal {:?}",
                task.fatal_error()
            );
            for cp in &out.checkpoints {
                assert_eq!(
                    (
                        cp.topic_partition.partition,
                        cp.upstream_offset,
                        cp.downstream_offset
                    ),
                    (0, 60, 51),
                    "{cp:?}"
                );
                seen.insert(cp.consumer_group_id.clone());
            }
            assert!(
                Instant::now() < deadline,
                "checkpoints for {want:?} within {WAIT:?}: saw {seen:?}; stats {:?}; retry {:?}",
                task.stats(),
                task.retry_reason()
            );
        }
        seen
    }

    /// Polls until the task fails (panicking if it emits, stops, or `FAIL_WITHIN` passes) and
    /// returns its fatal error.
    fn fails(&self, task: &CheckpointTask) -> String {
        let began = Instant::now();
        loop {
            let out = task
                .poll(Duration::from_millis(250))
                .unwrap_or_else(|e| panic!("poll: {e}"));
            match out.status {
                PollStatus::Failed => {
                    return task.fatal_error().expect("a failed task has a fatal error")
                }
                PollStatus::Stopped => panic!("task stopped instead of failing"),
                _ => assert!(out.checkpoints.is_empty(), "emitted while denied: {out:?}"),
            }
            assert!(
                began.elapsed() < FAIL_WITHIN,
                "not failed within {FAIL_WITHIN:?}: last {out:?}; retry reason {:?}; stats {:?}; \
                 warnings {:#?}",
                task.retry_reason(),
                task.stats(),
                self.warnings()
            );
        }
    }

    /// Captured warnings and errors that name one of this flow's topics or groups.
    fn warnings(&self) -> Vec<String> {
        let n = &self.names;
        let needles = [
            &n.syncs,
            &n.checkpoints,
            &n.source_alias,
            &n.topic,
            &n.remote,
        ];
        captured_logs()
            .into_iter()
            .filter(|l| needles.iter().any(|x| l.message.contains(x.as_str())))
            .map(|l| format!("{} {}: {}", l.level, l.target, l.message))
            .collect()
    }

    /// The committed offset of this flow's group `g` on partition 0 of the remote topic.
    fn target_commit(&self, g: &str) -> Option<i64> {
        committed_offsets(
            &self.names.t,
            &self.names.group(g),
            &self.names.remote,
            &[0],
        )
        .first()
        .and_then(|c| c.offset)
    }
}

/// `ALL_NEEDS` without `missing`.
fn all_but(missing: Need) -> Vec<Need> {
    ALL_NEEDS.into_iter().filter(|n| *n != missing).collect()
}

fn assert_names_denial(fatal: &str, resource: &str) {
    assert!(
        fatal.contains(resource),
        "fatal error names `{resource}`: {fatal}"
    );
    assert!(
        fatal.to_lowercase().contains("authoriz"),
        "fatal error says authorization: {fatal}"
    );
}

const DESCRIBE: &[Operation] = &[Operation::Describe];
const DESCRIBE_READ: &[Operation] = &[Operation::Describe, Operation::Read];

#[test]
fn with_exactly_mm2s_acls_the_task_checkpoints_discovered_groups_and_syncs_idle_target_groups() {
    install_logger();
    // The checkpoints topic is missing: the task creates it with its CREATE ACL.
    let f = Flow::new(false);
    f.commit(&["a", "b"]);
    f.grant(&ALL_NEEDS, &[("a", DESCRIBE_READ), ("b", DESCRIBE_READ)]);
    let task = f.task(&[
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
    ]);
    f.checkpointed(&task, &["a", "b"]);
    for g in ["a", "b"] {
        let written = wait_for(
            WAIT,
            "translated offsets committed into the target group",
            || f.target_commit(g),
        );
        assert_eq!(written, 51, "group {g}");
    }
    task.stop().unwrap();
}

#[test]
fn without_read_on_the_offset_syncs_topic_the_task_fails_naming_the_topic() {
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&all_but(Need::ReadOffsetSyncs), &[("a", DESCRIBE)]);
    let task = f.task(&[]);
    let fatal = f.fails(&task);
    assert_names_denial(&fatal, &f.names.syncs);
    task.stop().unwrap();
}

#[test]
fn without_read_on_the_checkpoints_topic_the_task_fails_naming_the_topic() {
    // Java's task logs the failed load and goes on pessimistic; here a denied ACL is fatal,
    // as everywhere at start-up, so the missing grant is seen at once.
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&all_but(Need::ReadCheckpoints), &[("a", DESCRIBE)]);
    let task = f.task(&[]);
    let fatal = f.fails(&task);
    assert_names_denial(&fatal, &f.names.checkpoints);
    task.stop().unwrap();
}

#[test]
fn without_write_on_the_checkpoints_topic_the_task_fails_naming_the_topic() {
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&all_but(Need::WriteCheckpoints), &[("a", DESCRIBE)]);
    let task = f.task(&[]);
    let fatal = f.fails(&task);
    assert_names_denial(&fatal, &f.names.checkpoints);
    task.stop().unwrap();
}

#[test]
fn with_the_checkpoints_topic_missing_and_no_create_the_task_fails_naming_topic_and_permission() {
    install_logger();
    let f = Flow::new(false);
    f.commit(&["a"]);
    f.grant(&all_but(Need::CreateCheckpoints), &[("a", DESCRIBE)]);
    let task = f.task(&[]);
    let fatal = f.fails(&task);
    assert_names_denial(&fatal, &f.names.checkpoints);
    assert!(fatal.contains("CREATE"), "names the permission: {fatal}");
    task.stop().unwrap();
}

#[test]
fn without_describe_on_one_source_group_that_group_is_skipped_with_an_error_and_others_go_on() {
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a", "b", "c"]);
    // No ACL at all on group b.
    f.grant(&ALL_NEEDS, &[("a", DESCRIBE), ("c", DESCRIBE)]);
    let task = f.task(&[]);
    let seen = f.checkpointed(&task, &["a", "c"]);
    let b = f.names.group("b");
    assert!(!seen.contains(&b), "{seen:?}");
    let errors: Vec<String> = captured_logs()
        .into_iter()
        .filter(|l| l.level == log::Level::Error && l.message.contains(&format!("`{b}`")))
        .map(|l| l.message)
        .collect();
    assert!(
        errors.iter().any(|m| m.to_lowercase().contains("authoriz")),
        "an error logged for group {b} saying authorization: {errors:?}"
    );
    assert!(!task.groups().contains(&b), "{:?}", task.groups());
    task.stop().unwrap();
}

#[test]
fn without_describe_on_the_cluster_only_the_groups_the_principal_may_describe_are_listed_and_checkpointed(
) {
    // Kafka does not deny ListGroups without DESCRIBE on the cluster: it lists only the groups
    // the principal may describe. So the task works without that ACL; a group it may not
    // describe is not even listed, hence skipped without an error (with DESCRIBE on the
    // cluster it is listed, and its denied offsets are logged as an error: the test above).
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a", "b"]);
    f.grant(&all_but(Need::DescribeCluster), &[("a", DESCRIBE)]);
    let task = f.task(&[]);
    let seen = f.checkpointed(&task, &["a"]);
    let b = f.names.group("b");
    assert!(!seen.contains(&b), "{seen:?}");
    assert_eq!(task.groups(), vec![f.names.group("a")]);
    let about_b: Vec<String> = f
        .warnings()
        .into_iter()
        .filter(|w| w.contains(&format!("`{b}`")))
        .collect();
    assert!(about_b.is_empty(), "group b was never listed: {about_b:?}");
    task.stop().unwrap();
}

#[test]
fn without_read_on_the_remote_topic_no_target_group_is_committed_and_the_reason_is_visible() {
    // Committing a group's offsets needs READ on the topic too, not only on the group.
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&all_but(Need::ReadRemoteTopic), &[("a", DESCRIBE_READ)]);
    let task = f.task(&[
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
    ]);
    f.checkpointed(&task, &["a"]);
    let result = wait_for(WAIT, "group a's offset sync result", || {
        task.group_offset_sync_results().into_iter().next()
    });
    assert_eq!(result.written_offset, None, "{result:?}");
    let error = result.error.clone().unwrap_or_default();
    assert!(error.contains("TopicAuthorizationFailed"), "{result:?}");
    assert_eq!(f.target_commit("a"), None);
    task.stop().unwrap();
}

#[test]
fn without_read_on_one_target_group_that_group_is_not_committed_with_the_reason_and_others_are() {
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a", "b"]);
    // Group b: DESCRIBE (so that it is listed, read and described) but no READ, which
    // committing its offsets needs.
    f.grant(&ALL_NEEDS, &[("a", DESCRIBE_READ), ("b", DESCRIBE)]);
    let task = f.task(&[
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
    ]);
    f.checkpointed(&task, &["a", "b"]);
    let a = wait_for(WAIT, "translated offsets committed into group a", || {
        f.target_commit("a")
    });
    assert_eq!(a, 51);
    let b = f.names.group("b");
    let result = wait_for(WAIT, "group b's offset sync result", || {
        task.group_offset_sync_results()
            .into_iter()
            .find(|r| r.group == b)
    });
    assert_eq!(result.written_offset, None, "{result:?}");
    let error = result.error.clone().unwrap_or_default();
    assert!(error.to_lowercase().contains("authoriz"), "{result:?}");
    assert_eq!(f.target_commit("b"), None);
    task.stop().unwrap();
}

#[test]
fn with_mm2s_acls_but_none_on_consumer_offsets_the_stream_source_falls_back_to_poll_with_a_warning()
{
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&ALL_NEEDS, &[("a", DESCRIBE)]);
    let task = f.task(&[("group.offsets.source", "consumer-offsets-topic")]);
    // Checkpoints keep coming, from today's path.
    f.checkpointed(&task, &["a"]);
    let warned = support::runtime::warnings_mentioning("falling back to `poll`");
    assert!(
        warned.iter().any(|l| l
            .message
            .contains("READ and DESCRIBE on topic `__consumer_offsets`")
            && l.message.contains(&format!("`{}`", f.names.source_alias))),
        "a warning naming the ACL and this flow's source: {warned:#?}"
    );
    task.stop().unwrap();
}

#[test]
fn with_describe_but_no_read_on_consumer_offsets_the_stream_source_falls_back_once_denied() {
    install_logger();
    let f = Flow::new(true);
    f.commit(&["a"]);
    f.grant(&ALL_NEEDS, &[("a", DESCRIBE)]);
    let kafka = SecureKafka::with_authorizer();
    grant(
        &kafka.admin_settings(),
        &SecureKafka::acl_user(f.user),
        &[Acl::new(
            Resource::Topic("__consumer_offsets".to_owned()),
            Operation::Describe,
        )],
    );
    let task = f.task(&[("group.offsets.source", "consumer-offsets-topic")]);
    // The stream starts (the metadata is allowed), its first Fetch is denied, and the task
    // goes on with today's path.
    f.checkpointed(&task, &["a"]);
    // The task sees the stream's failure at its next cycle (a second apart here), so it is
    // polled until then: the denial may come after the first checkpoints did.
    wait_for(WAIT, "the fallback warning naming the ACL", || {
        let out = task
            .poll(Duration::from_millis(200))
            .unwrap_or_else(|e| panic!("poll: {e}"));
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "task ended: {out:?}, fatal {:?}",
            task.fatal_error()
        );
        support::runtime::warnings_mentioning("falling back to `poll`")
            .into_iter()
            .find(|l| {
                l.message
                    .contains("READ and DESCRIBE on topic `__consumer_offsets`")
                    && l.message.contains(&format!("`{}`", f.names.source_alias))
            })
    });
    task.stop().unwrap();
}
