//! A newcomer's first run on real Kafka brokers: a fresh target (no checkpoints topic yet) gets
//! every translatable checkpoint in the first cycle, and filters that match nothing on the
//! source say so.

use std::time::Duration;

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::{OffsetSync, TopicPartition};

use support::kafka::partition_count;
use support::runtime::{
    assert_no_leaks, first_cycle, install_logger, produce_syncs, serial, task_config,
    warnings_mentioning,
};
use support::{
    commit_group_offsets, create_topic, create_topic_with_config, shared_pair, topic_config,
    unique, wait_until,
};

const EMIT_WAIT: Duration = Duration::from_secs(60);

#[test]
fn on_a_fresh_target_the_created_checkpoints_topic_lets_every_group_behind_the_newest_sync_be_checkpointed_in_the_first_cycle(
) {
    let _g = serial();
    install_logger();
    let (s, t) = shared_pair();
    let (s, t) = (s.bootstrap(), t.bootstrap());
    // Unique aliases name unique internal topics on the shared brokers.
    let (source, target) = (unique("src"), unique("tgt"));
    let topic = unique("orders");
    let syncs_topic = format!("mm2-offset-syncs.{target}.internal");
    let checkpoints_topic = format!("{source}.checkpoints.internal");
    create_topic(&s, &topic, 2);
    create_topic_with_config(&s, &syncs_topic, 1, &[("cleanup.policy", "compact")]);
    create_topic(&t, &format!("{source}.{topic}"), 2);
    assert_eq!(partition_count(&t, &checkpoints_topic), None);

    // A mirror's syncs every 100 records up to 900; groups behind the newest sync and past it.
    let syncs: Vec<OffsetSync> = (0..2)
        .flat_map(|p| {
            let topic = topic.clone();
            (0..1000)
                .step_by(100)
                .map(move |u| OffsetSync::new(TopicPartition::new(topic.clone(), p), u, u + 10))
        })
        .collect();
    produce_syncs(&s, &syncs_topic, &syncs, false);
    let groups: Vec<(String, i64)> = [("g1", 150), ("g2", 450), ("g3", 950)]
        .iter()
        .map(|(g, at)| (unique(g), *at))
        .collect();
    for (group, at) in &groups {
        commit_group_offsets(&s, group, &[(&topic, 0, *at, ""), (&topic, 1, *at, "")]);
    }
    let assigned = groups
        .iter()
        .map(|(g, _)| g.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let config = task_config(
        &s,
        &t,
        &[
            ("source.cluster.alias", &source),
            ("target.cluster.alias", &target),
            // Discovered (MM2's `groups` filter), not assigned: the first cycle must already
            // know them.
            ("groups", &assigned),
            ("checkpoints.topic.replication.factor", "1"),
        ],
    );
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    let got = first_cycle(&task, EMIT_WAIT);
    // Through the store's exponentially spaced history: 150 via the sync at 0, 450 via 400.
    let mut expected = Vec::new();
    for ((group, up), down) in groups.iter().zip([11, 411, 911]) {
        for p in 0..2 {
            expected.push((group.clone(), p, *up, down));
        }
    }
    assert_eq!(got, expected);
    assert!(task.stats().checkpoints_load_ok);
    task.stop().unwrap();
    assert_eq!(partition_count(&t, &checkpoints_topic), Some(1));
    assert_eq!(
        topic_config(&t, &checkpoints_topic, "cleanup.policy").as_deref(),
        Some("compact")
    );
    assert_no_leaks();
}

#[test]
fn group_and_topic_filters_that_match_nothing_on_the_source_are_warned_about_with_what_they_saw() {
    let _g = serial();
    install_logger();
    let (s, t) = shared_pair();
    let (s, t) = (s.bootstrap(), t.bootstrap());
    let topic = unique("payments");
    create_topic(&s, &topic, 1);
    let group = unique("billing");
    commit_group_offsets(&s, &group, &[(&topic, 0, 5, "")]);

    // `groups = <misspelt>`: none of the source's groups matches.
    let misspelt = group.replacen("billing", "biling", 1);
    let config = task_config(
        &s,
        &t,
        &[
            ("target.cluster.alias", &unique("tgt")),
            ("groups", &misspelt),
            ("checkpoints.topic.replication.factor", "1"),
        ],
    );
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    let needle = format!("`groups = {misspelt}`");
    wait_until(EMIT_WAIT, "the group filter warning", || {
        !warnings_mentioning(&needle).is_empty()
    });
    let warning = &warnings_mentioning(&needle)[0].message;
    assert!(
        warning.contains("matched none of the") && warning.contains("consumer groups on `source`"),
        "{warning}"
    );
    // The same words in the stats, which the example's cycle line shows ("0 groups: ...").
    let miss = task
        .stats()
        .filter_miss
        .expect("the group filter's miss in the stats");
    assert!(miss.contains(&needle), "{miss}");
    task.stop().unwrap();

    // The group matches, but `topics` names none of the topics it committed on.
    let config = task_config(
        &s,
        &t,
        &[
            ("target.cluster.alias", &unique("tgt")),
            ("groups", &group),
            ("topics", "no-such-topic"),
            ("checkpoints.topic.replication.factor", "1"),
        ],
    );
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    let needle = "`topics = no-such-topic`";
    wait_until(EMIT_WAIT, "the topic filter warning", || {
        !warnings_mentioning(needle).is_empty()
    });
    let warning = &warnings_mentioning(needle)[0].message;
    assert!(
        warning.contains(
            "matched none of the topics the groups on `source` committed offsets on (1 seen)"
        ),
        "{warning}"
    );
    let miss = task
        .stats()
        .filter_miss
        .expect("the topic filter's miss in the stats");
    assert!(miss.contains(needle), "{miss}");
    task.stop().unwrap();
    assert_no_leaks();
}
