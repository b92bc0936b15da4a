//! CheckpointTask when the group offset sync cannot read a target group, on real Apache Kafka
//! brokers (injected faults): retriably, and denied by its ACL.

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};

use support::names::FlowNames;
use support::runtime::{captured_logs, install_logger, poll_until_emitted, produce_syncs, serial};

/// Hang detector for anything that should be prompt.
const PROMPT: Duration = Duration::from_secs(2);

/// A flow on the shared broker (source and target alike) with groups `a` and `b` committed at
/// 150 on the source (translated to 91 through the syncs 0→0 and 100→90), and a task that
/// checkpoints them and syncs their offsets into the target groups every 5 s, started with
/// `fault` armed. On one broker the target group is the source group itself, which has
/// committed offsets and no member: the target describes it as empty, so the sync reads its
/// committed offsets (where the fault strikes, at `a`, the first in name order) before writing.
fn syncing_task(
    fault: mm2_checkpoint::checkpoint_task::faults::Fault,
) -> (FlowNames, CheckpointTask) {
    let b = support::shared().bootstrap();
    let f = FlowNames::on(&b, &b);
    f.create_source_topics(1);
    f.create_target_topics(1, true);
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 100, 90)],
        false,
    );
    f.commit("a", &[(0, 150, "")]);
    f.commit("b", &[(0, 150, "")]);
    let task = CheckpointTask::new(f.config(&[
        ("task.assigned.groups", &f.groups(&["a", "b"])),
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "5"),
    ]))
    .unwrap();
    task.inject_fault(fault);
    task.start().unwrap();
    let mut emitted = Vec::new();
    while emitted.len() < 2 {
        emitted.extend(poll_until_emitted(&task, Duration::from_secs(30)));
    }
    (f, task)
}

/// The offset group `g` of flow `f` has committed for the remote partition on the target.
fn target_offset(f: &FlowNames, g: &str) -> Option<i64> {
    support::committed_offsets(&f.t, &f.group(g), &f.remote, &[0])[0].offset
}

/// A target group whose committed offsets the group offset sync cannot read for a reason
/// retrying can fix (here injected: COORDINATOR_NOT_AVAILABLE, as while its coordinator moves)
/// is not written in that sync, its reason visible in the retry reason until the next sync
/// reads and writes it; the other group is written in the same sync and the task never fails.
/// Real Kafka: the mock cluster cannot describe groups.
#[test]
fn a_target_group_the_offset_sync_cannot_read_retriably_is_the_retry_reason_until_written() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let (f, task) = syncing_task(Fault::SyncGroupOffsetsFail(
        RDKafkaErrorCode::CoordinatorNotAvailable,
    ));
    let reason = support::wait_for(Duration::from_secs(30), "the sync's retry reason", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason()
            .filter(|r| r.contains("next group offset sync"))
    });
    // The sync that failed `a` went on to `b` (after it, in name order) before publishing the
    // reason; the next sync starts 5 s after that one did, far more than these reads take.
    assert_eq!(target_offset(&f, "b"), Some(91));
    assert_eq!(
        target_offset(&f, "a"),
        None,
        "a was written in the failed sync"
    );
    let a = f.group("a");
    assert!(
        reason.contains(&format!("group `{a}` on `{}`", f.target_alias)),
        "{reason}"
    );
    assert!(reason.contains("CoordinatorNotAvailable"), "{reason}");
    assert_eq!(task.stats().group_fetches_denied, 0);
    // The next sync reads `a` normally and writes it; nothing is being retried any more.
    support::wait_until(Duration::from_secs(30), "a written, reason cleared", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        task.retry_reason().is_none() && target_offset(&f, "a") == Some(91)
    });
    assert_eq!(task.fatal_error(), None);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}

/// A target group whose committed offsets its own ACL denies the group offset sync
/// (GROUP_AUTHORIZATION_FAILED, injected) is logged as an error, counted in
/// `group_fetches_denied` and skipped in that sync; it is no retry reason, the other group is
/// written in the same sync, and a later sync writes the skipped group once it can read it.
#[test]
fn a_target_group_denied_to_the_offset_sync_is_counted_and_skipped_and_the_others_written() {
    // Other tests here assert that no client is alive process-wide.
    let _g = serial();
    install_logger();
    use mm2_checkpoint::checkpoint_task::faults::Fault;
    use rdkafka::error::RDKafkaErrorCode;

    let (f, task) = syncing_task(Fault::SyncGroupOffsetsFail(
        RDKafkaErrorCode::GroupAuthorizationFailed,
    ));
    // Counted when `a` is denied; `b` is written later in the same sync.
    support::wait_until(
        Duration::from_secs(30),
        "the denial counted, b written",
        || {
            let out = task.poll(Duration::from_millis(100)).unwrap();
            assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
            task.stats().group_fetches_denied == 1 && target_offset(&f, "b") == Some(91)
        },
    );
    assert_eq!(
        target_offset(&f, "a"),
        None,
        "a was written in the sync that denied it"
    );
    assert_eq!(task.retry_reason(), None);
    assert_eq!(task.fatal_error(), None);
    let a = f.group("a");
    let logged = captured_logs().into_iter().any(|l| {
        l.level == log::Level::Error
            && l.message.contains(&format!("group `{a}`"))
            && l.message.contains("GroupAuthorizationFailed")
            && l.message.contains("next group offset sync")
    });
    assert!(logged, "no error logged for the denied target group");
    // The fault struck once: a later sync reads `a` and writes it, and counts nothing more.
    support::wait_until(Duration::from_secs(30), "a written by a later sync", || {
        let out = task.poll(Duration::from_millis(100)).unwrap();
        assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
        target_offset(&f, "a") == Some(91)
    });
    assert_eq!(task.stats().group_fetches_denied, 1);
    let began = Instant::now();
    assert!(matches!(task.stop().unwrap(), StopOutcome::Stopped(_)));
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
}
