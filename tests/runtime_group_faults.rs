//! CheckpointTask when group discovery fails, on real Apache Kafka brokers (injected faults): a
//! group listing that fails transiently, and one group's committed offsets denied or failing
//! retriably.

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};

use support::runtime::serial;
use support::runtime::task_config;
use support::{commit_group_offsets, create_topic, create_topic_with_config};

/// Hang detector for anything that should be prompt.
const PROMPT: Duration = Duration::from_secs(2);

/// A group refresh that fails with an error retrying can fix (here injected: the broker
/// unreachable for one refresh) warns, shows its reason in the retry reason until a refresh
/// succeeds, and never fails the task. Real Kafka: the mock cluster cannot list groups at all.
#[test]
fn a_group_refresh_that_fails_transiently_is_retried_with_its_reason_visible_until_one_succeeds() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let b = support::shared().bootstrap();
    let (s, t) = (support::unique("src"), support::unique("tgt"));
    create_topic(&b, &format!("mm2-offset-syncs.{t}.internal"), 1);
    create_topic_with_config(
        &b,
        &format!("{s}.checkpoints.internal"),
        1,
        &[("cleanup.policy", "compact")],
    );
    let task = CheckpointTask::new(task_config(
        &b,
        &b,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("refresh.groups.interval.seconds", "1"),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    support::wait_for(Duration::from_secs(30), "the stores loaded", || {
        task.poll(Duration::from_millis(100)).unwrap();
        task.stats().initialized.then_some(())
    });
    assert_eq!(task.retry_reason(), None);
    task.inject_fault(Fault::GroupListingFails(
        RDKafkaErrorCode::BrokerTransportFailure,
    ));
    let reason = support::wait_for(Duration::from_secs(10), "a retry reason", || {
        task.stats().retry_reason
    });
    assert!(reason.contains("group discovery failed"), "{reason}");
    assert!(reason.contains("BrokerTransportFailure"), "{reason}");
    assert_eq!(task.fatal_error(), None);
    // The next refresh, a second later, lists the groups and clears it; the task kept running.
    support::wait_for(Duration::from_secs(10), "the retry reason cleared", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason().is_none().then_some(())
    });
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// A task on the shared broker over two groups `<tag>-a` and `<tag>-b` (both committed at 10 on
/// one topic, refreshed every 5 s), started with the group-offsets fault `code` armed: start-up's
/// discovery meets it for the first group in name order. Returns the task and the two groups.
fn started_with_two_groups(
    tag: &str,
    code: rdkafka::error::RDKafkaErrorCode,
) -> (CheckpointTask, String, String) {
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    let b = support::shared().bootstrap();
    let (s, t) = (support::unique("src"), support::unique("tgt"));
    let prefix = support::unique(tag);
    let topic = support::unique("orders");
    create_topic(&b, &topic, 1);
    create_topic(&b, &format!("mm2-offset-syncs.{t}.internal"), 1);
    let (first, second) = (format!("{prefix}-a"), format!("{prefix}-b"));
    commit_group_offsets(&b, &first, &[(&topic, 0, 10, "")]);
    commit_group_offsets(&b, &second, &[(&topic, 0, 10, "")]);
    let task = CheckpointTask::new(task_config(
        &b,
        &b,
        &[
            ("source.cluster.alias", &s),
            ("target.cluster.alias", &t),
            ("groups", &format!("{prefix}-.*")),
            ("refresh.groups.interval.seconds", "5"),
        ],
    ))
    .unwrap();
    task.inject_fault(Fault::GroupOffsetsFail(code));
    task.start().unwrap();
    (task, first, second)
}

/// One group whose offsets cannot be read (here injected: GROUP_AUTHORIZATION_FAILED, as its ACL
/// would answer) is skipped, not fatal: the other groups are adopted and checkpointed, the task
/// never fails, and the skipped group is adopted by a later refresh once its fetch succeeds (as
/// Java's task logs such a group and goes on with the rest).
#[test]
fn one_group_whose_offsets_are_denied_is_skipped_and_the_others_go_on() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use rdkafka::error::RDKafkaErrorCode;

    let (task, first, second) =
        started_with_two_groups("denied", RDKafkaErrorCode::GroupAuthorizationFailed);
    let adopted = support::wait_for(Duration::from_secs(30), "a group adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        let groups = task.groups();
        (!groups.is_empty()).then_some(groups)
    });
    assert_eq!(
        adopted,
        vec![second.clone()],
        "the denied group was adopted"
    );
    assert_eq!(task.fatal_error(), None);
    // The next refresh fetches the first group's offsets normally and adopts it.
    support::wait_for(Duration::from_secs(20), "both groups adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        (task.groups() == vec![first.clone(), second.clone()]).then_some(())
    });
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// One group whose offsets fail in a discovery for a reason retrying can fix (here injected:
/// COORDINATOR_NOT_AVAILABLE, as while its coordinator moves) is not adopted yet, its reason
/// visible in the retry reason until the next refresh fetches and adopts it; the other group is
/// adopted at once and the task never fails. Real Kafka: the mock cluster cannot list groups.
#[test]
fn one_group_whose_offsets_fail_retriably_in_discovery_is_the_retry_reason_until_adopted() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use rdkafka::error::RDKafkaErrorCode;

    let (task, first, second) =
        started_with_two_groups("moving", RDKafkaErrorCode::CoordinatorNotAvailable);
    let (adopted, reason) = support::wait_for(Duration::from_secs(30), "a group adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        let groups = task.groups();
        // Read once loaded: until then the retry reason is start-up's.
        (!groups.is_empty() && task.stats().initialized).then(|| (groups, task.retry_reason()))
    });
    assert_eq!(
        adopted,
        vec![second.clone()],
        "the failing group was adopted"
    );
    let reason = reason.expect("a retry reason while the group waits for the next refresh");
    assert!(reason.contains(&format!("group `{first}`")), "{reason}");
    assert!(reason.contains("CoordinatorNotAvailable"), "{reason}");
    assert!(reason.contains("next group refresh"), "{reason}");
    assert_eq!(task.stats().group_fetches_denied, 0);
    // The next refresh fetches the first group's offsets normally, adopts it, and nothing is
    // being retried any more.
    support::wait_for(Duration::from_secs(20), "both groups adopted", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        (task.groups() == vec![first.clone(), second.clone()]).then_some(())
    });
    assert_eq!(task.retry_reason(), None);
    assert_eq!(task.fatal_error(), None);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}
