//! What the task tells its operator at info, on the embedded mock clusters: what each group
//! offset sync did, and why a group's partition gets no checkpoint, explained once.

use std::time::Duration;

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{OffsetSync, TopicPartition};
use support::runtime::{
    assert_task_clean, captured_logs, embedded_task_config, install_logger, poll_until_emitted,
    LogLine,
};
use support::wait_until;

const SYNCS: &str = "mm2-offset-syncs.target.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";
const EMIT_WAIT: Duration = Duration::from_secs(30);

fn clusters() -> EmbeddedClusters {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c
}

fn config(c: &EmbeddedClusters, extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
    embedded_task_config(c, extra)
}

/// The captured Info lines that mention every one of `needles`.
fn infos_with(needles: &[&str]) -> Vec<LogLine> {
    captured_logs()
        .into_iter()
        .filter(|l| l.level == log::Level::Info)
        .filter(|l| needles.iter().all(|n| l.message.contains(n)))
        .collect()
}

/// The mock cluster cannot describe groups, so the target group's state is unknown and the
/// sync must leave it alone: the operator sees that at info, with the group's name and why.
#[test]
fn a_group_offset_sync_says_at_info_which_group_it_left_alone_and_why() {
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(
        Side::Source,
        SYNCS,
        &[OffsetSync::new(TopicPartition::new("orders", 0), 100, 90)],
    )
    .unwrap();
    c.commit_offsets(Side::Source, "sync-feedback", &[("orders", 0, 150, "")])
        .unwrap();
    let task = CheckpointTask::new(config(
        &c,
        &[
            ("task.assigned.groups", "sync-feedback"),
            ("sync.group.offsets.enabled", "true"),
            ("sync.group.offsets.interval.seconds", "1"),
        ],
    ))
    .unwrap();
    task.start().unwrap();
    assert_eq!(poll_until_emitted(&task, EMIT_WAIT).len(), 1);
    wait_until(EMIT_WAIT, "the group offset sync's info line", || {
        !infos_with(&["group offset sync:", "`sync-feedback`"]).is_empty()
    });
    let line = &infos_with(&["group offset sync:", "`sync-feedback`"])[0].message;
    assert_eq!(
        line,
        "group offset sync: left 1 group alone: state on the target unknown (`sync-feedback`)"
    );
    task.stop().unwrap();
    assert_task_clean(&task);
}

/// A commit older than every offset sync kept for its partition cannot be translated: the
/// operator is told at info, naming the group, the partition and the reason, once however many
/// cycles pass.
#[test]
fn an_untranslatable_partition_is_explained_at_info_once_naming_group_partition_and_reason() {
    install_logger();
    let c = clusters();
    c.produce_offset_syncs(
        Side::Source,
        SYNCS,
        &[
            OffsetSync::new(TopicPartition::new("orders", 0), 100, 90),
            OffsetSync::new(TopicPartition::new("orders", 1), 10, 10),
        ],
    )
    .unwrap();
    c.commit_offsets(
        Side::Source,
        "explained-once",
        &[("orders", 0, 50, ""), ("orders", 1, 20, "")],
    )
    .unwrap();
    let task =
        CheckpointTask::new(config(&c, &[("task.assigned.groups", "explained-once")])).unwrap();
    task.start().unwrap();
    // orders-1 translates and is written in the first cycle; orders-0 never is.
    assert_eq!(poll_until_emitted(&task, EMIT_WAIT).len(), 1);
    let cycles = task.stats().cycles;
    // Three more cycles, each skipping orders-0 again.
    wait_until(EMIT_WAIT, "three more cycles", || {
        task.poll(Duration::from_millis(200)).unwrap();
        task.stats().cycles >= cycles + 3
    });
    let explained = infos_with(&["`explained-once`"]);
    assert_eq!(explained.len(), 1, "{explained:?}");
    let line = &explained[0].message;
    for needle in ["orders-0", "offset 50", "older_than_every_kept_sync"] {
        assert!(line.contains(needle), "{needle} missing: {line}");
    }
    task.stop().unwrap();
    assert_task_clean(&task);
}
