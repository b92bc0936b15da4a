//! Two writers of one flow's checkpoints on two embedded (librdkafka mock) clusters: two copies
//! of the same task name each other, once; two tasks sharing a flow's groups between them do not;
//! a writer whose records carry no writer header (Java MM2) is named as such.

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

use support::runtime::{
    assert_task_clean, embedded_task_config, install_logger, serial, warnings_mentioning,
};

const SYNCS: &str = "mm2-offset-syncs.target.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";
const WARNING: &str = "another writer writes this flow's checkpoints";

fn clusters() -> EmbeddedClusters {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 1).unwrap();
    c.create_topic(Side::Source, SYNCS, 1).unwrap();
    c.create_topic(Side::Target, "source.orders", 1).unwrap();
    c.create_topic(Side::Target, CHECKPOINTS, 1).unwrap();
    c
}

fn task(c: &EmbeddedClusters, groups: &str) -> CheckpointTask {
    let task =
        CheckpointTask::new(embedded_task_config(c, &[("task.assigned.groups", groups)])).unwrap();
    task.start().unwrap();
    task
}

/// Round `r`: a newer sync and newer commits of g1 and g2, so every cycle writes both groups.
fn advance(c: &EmbeddedClusters, r: i64) {
    let sync = OffsetSync::new(TopicPartition::new("orders", 0), 100 * r, 90 * r);
    c.produce_offset_syncs(Side::Source, SYNCS, &[sync])
        .unwrap();
    for g in ["g1", "g2"] {
        c.commit_offsets(Side::Source, g, &[("orders", 0, 100 * r + 10, "")])
            .unwrap();
    }
}

/// Polls until a cycle that wrote checkpoints.
fn cycle(task: &CheckpointTask) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        if out.status == PollStatus::CycleDone && !out.checkpoints.is_empty() {
            return;
        }
        assert!(
            !matches!(out.status, PollStatus::Failed | PollStatus::Stopped),
            "{out:?}: {:?}",
            task.fatal_error()
        );
        assert!(Instant::now() < deadline, "no checkpoints written in 30 s");
    }
}

fn writers(task: &CheckpointTask) -> Vec<String> {
    task.metrics().task.other_writers.writers
}

fn names_task(writer: &str, task: &CheckpointTask) -> bool {
    writer.starts_with(&format!("mm2-checkpoint {} on ", env!("CARGO_PKG_VERSION")))
        && writer.ends_with(&format!("(pid {}, task {})", std::process::id(), task.id()))
}

#[test]
fn two_copies_of_one_flow_name_each_other_once() {
    let _serial = serial();
    install_logger();
    let c = clusters();
    let (a, b) = (task(&c, "g1,g2"), task(&c, "g1,g2"));
    let mut round = 1;
    while writers(&a).is_empty() || writers(&b).is_empty() {
        assert!(
            round <= 20,
            "not found after 20 rounds: {:?} / {:?}",
            a.metrics().task.other_writers,
            b.metrics().task.other_writers
        );
        advance(&c, round);
        cycle(&a);
        cycle(&b);
        round += 1;
    }
    // More rounds: more of the other's checkpoints counted, each writer still named once.
    let counted = a.metrics().task.other_writers.checkpoints;
    for r in round..round + 3 {
        advance(&c, r);
        cycle(&a);
        cycle(&b);
    }
    let (wa, wb) = (
        a.metrics().task.other_writers,
        b.metrics().task.other_writers,
    );
    assert_eq!(wa.writers.len(), 1, "{wa:?}");
    assert!(names_task(&wa.writers[0], &b), "a names b: {wa:?}");
    assert!(names_task(&wb.writers[0], &a), "b names a: {wb:?}");
    assert!(
        wa.checkpoints > counted,
        "counted on: {counted} then {wa:?}"
    );
    let warnings: Vec<String> = warnings_mentioning(WARNING)
        .into_iter()
        .map(|l| l.message)
        .filter(|m| {
            m.contains(&format!("task {})", a.id())) || m.contains(&format!("task {})", b.id()))
        })
        .collect();
    assert_eq!(warnings.len(), 2, "one warning per task: {warnings:#?}");
    for w in &warnings {
        assert!(
            w.contains(&format!("task {})", a.id())) && w.contains(&format!("task {})", b.id())),
            "names both: {w}"
        );
        assert!(w.contains("g1") && w.contains(CHECKPOINTS), "{w}");
    }
    println!("{}", warnings[0]);
    a.stop().unwrap();
    b.stop().unwrap();
    // The read-back consumer is closed with the task's other clients.
    assert_task_clean(&a);
    assert_task_clean(&b);
}

#[test]
fn tasks_sharing_a_flows_groups_between_them_are_not_other_writers() {
    let _serial = serial();
    install_logger();
    let c = clusters();
    let (a, b) = (task(&c, "g1"), task(&c, "g2"));
    for r in 1..=5 {
        advance(&c, r);
        cycle(&a);
        cycle(&b);
    }
    assert!(a.stats().checkpoints_emitted >= 5 && b.stats().checkpoints_emitted >= 5);
    assert_eq!(writers(&a), Vec::<String>::new());
    assert_eq!(writers(&b), Vec::<String>::new());
    a.stop().unwrap();
    b.stop().unwrap();
}

#[test]
fn a_writer_without_the_header_is_named_as_one_that_names_none() {
    let _serial = serial();
    install_logger();
    let c = clusters();
    let a = task(&c, "g1");
    let mut round = 1;
    while writers(&a).is_empty() {
        assert!(round <= 20, "not found after 20 rounds");
        advance(&c, round);
        cycle(&a);
        // As Java MM2 writes one: key and value, no header.
        let cp = Checkpoint::new(
            "g1",
            TopicPartition::new("source.orders", 0),
            100 * round,
            90 * round,
            "",
        );
        c.produce(
            Side::Target,
            CHECKPOINTS,
            &[(
                0,
                Some(cp.encode_key().unwrap()),
                Some(cp.encode_value().unwrap()),
            )],
        )
        .unwrap();
        round += 1;
    }
    let w = writers(&a);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("a writer that names none (Java MM2"),
        "{w:?}"
    );
    a.stop().unwrap();
}
