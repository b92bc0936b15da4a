//! One replication flow end to end, over whatever client settings a test gives each cluster
//! (plain, TLS, SASL) and with offset syncs compressed by any codec: the scenario the codec
//! tests (mock cluster and real broker) and the security tests (real broker) share.
//!
//! Setup goes through the [`super::kafka`] helpers at each side's `setup_bootstrap`; the task
//! itself gets only the MM2-style keys `source.cluster.<setting>` / `target.cluster.<setting>`
//! built from each side's `client` settings, so a wrong or missing setting fails the flow.

use std::time::Duration;

use mm2_checkpoint::checkpoint_task::{CheckpointTask, StopOutcome};
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

use super::runtime::{poll_until_emitted, produce_syncs_with, read_checkpoints, sorted};

/// Partitions of the flow's source topic.
const PARTITIONS: i32 = 4;
/// Offset syncs written per partition: 1,000 records, so producer batches hold many records
/// and a codec has something to compress.
const SYNCS_PER_PARTITION: i64 = 250;
/// Bound on start-up plus the first checkpoint cycle (a hang detector, not a pace).
const EMIT_WAIT: Duration = Duration::from_secs(60);

/// How a flow reaches one of its clusters.
pub struct Side<'a> {
    /// Address the setup helpers connect to (settings registered for it apply).
    pub setup_bootstrap: String,
    /// The task's client settings for this cluster, librdkafka names, `bootstrap.servers`
    /// included; given to the task as `<side>.cluster.<name>`.
    pub client: Vec<(String, String)>,
    /// Creates a topic with that many partitions on this cluster.
    pub create_topic: &'a dyn Fn(&str, i32),
}

/// What a flow produced, for checks beyond the ones [`run`] makes.
pub struct FlowOutcome {
    /// The offset-syncs topic (on the source cluster).
    pub syncs_topic: String,
    /// The checkpoints topic (on the target cluster).
    pub checkpoints_topic: String,
}

fn sync(topic: &str, partition: i32, i: i64) -> OffsetSync {
    let p = i64::from(partition);
    OffsetSync::new(TopicPartition::new(topic, partition), 10 * i + p, 7 * i + p)
}

/// Runs the flow named `tag` (unique per test: it names the aliases, topics and group, so
/// flows can share a broker) and asserts that the task loaded every offset sync and emitted
/// exactly the translated checkpoints, both in its poll batch and in the checkpoints topic.
/// `codec` sets the offset-sync producer's `compression.type`.
pub fn run(tag: &str, source: &Side<'_>, target: &Side<'_>, codec: Option<&str>) -> FlowOutcome {
    let (source_alias, target_alias) = (format!("src-{tag}"), format!("tgt-{tag}"));
    let topic = format!("orders-{tag}");
    let group = format!("group-{tag}");
    let syncs_topic = format!("mm2-offset-syncs.{target_alias}.internal");
    let checkpoints_topic = format!("{source_alias}.checkpoints.internal");
    let remote_topic = format!("{source_alias}.{topic}");
    (source.create_topic)(&topic, PARTITIONS);
    (source.create_topic)(&syncs_topic, 1);
    (target.create_topic)(&remote_topic, PARTITIONS);
    (target.create_topic)(&checkpoints_topic, 1);

    let syncs: Vec<OffsetSync> = (1..=SYNCS_PER_PARTITION)
        .flat_map(|i| (0..PARTITIONS).map(move |p| (p, i)))
        .map(|(p, i)| sync(&topic, p, i))
        .collect();
    // The producer connects as the task will (same listener, same mechanism).
    let mut producer: Vec<(&str, &str)> = source
        .client
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if let Some(codec) = codec {
        producer.push(("compression.type", codec));
    }
    produce_syncs_with(&source.setup_bootstrap, &syncs_topic, &syncs, &producer);

    let last = |p: i32| sync(&topic, p, SYNCS_PER_PARTITION);
    // Partition 0 at a sync's upstream offset translates to its downstream offset exactly,
    // partition 1 past it to one more (MM2's rule), partition 3 has no committed offset.
    super::commit_group_offsets(
        &source.setup_bootstrap,
        &group,
        &[
            (topic.as_str(), 0, last(0).upstream_offset, "meta-0"),
            (topic.as_str(), 1, last(1).upstream_offset + 5, ""),
            (topic.as_str(), 2, last(2).upstream_offset, ""),
        ],
    );
    let checkpoint = |p: i32, upstream: i64, downstream: i64, meta: &str| {
        Checkpoint::new(
            &group,
            TopicPartition::new(&remote_topic, p),
            upstream,
            downstream,
            meta,
        )
    };
    let expected = vec![
        checkpoint(
            0,
            last(0).upstream_offset,
            last(0).downstream_offset,
            "meta-0",
        ),
        checkpoint(
            1,
            last(1).upstream_offset + 5,
            last(1).downstream_offset + 1,
            "",
        ),
        checkpoint(2, last(2).upstream_offset, last(2).downstream_offset, ""),
    ];

    let mut props: Vec<(String, String)> = vec![
        ("source.cluster.alias".into(), source_alias.clone()),
        ("target.cluster.alias".into(), target_alias),
        ("task.assigned.groups".into(), group.clone()),
        ("emit.checkpoints.interval.seconds".into(), "1".into()),
    ];
    for (prefix, side) in [("source.cluster.", source), ("target.cluster.", target)] {
        props.extend(
            side.client
                .iter()
                .map(|(k, v)| (format!("{prefix}{k}"), v.clone())),
        );
    }
    let config = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .unwrap_or_else(|e| panic!("flow {tag}: config {props:?}: {e}"))
    .0;
    let task = CheckpointTask::new(config).unwrap_or_else(|e| panic!("flow {tag}: task: {e}"));
    task.start()
        .unwrap_or_else(|e| panic!("flow {tag}: start: {e}"));
    let emitted = sorted(poll_until_emitted(&task, EMIT_WAIT));
    let stats = task.stats();
    assert!(matches!(task.stop(), Ok(StopOutcome::Stopped(_))));

    assert_eq!(emitted, expected, "flow {tag}: checkpoints emitted");
    assert_eq!(
        stats.syncs_loaded,
        syncs.len() as u64,
        "flow {tag}: offset syncs loaded"
    );
    assert_eq!(stats.records_skipped, 0, "flow {tag}: records skipped");
    assert_eq!(
        sorted(read_checkpoints(
            &target.setup_bootstrap,
            &checkpoints_topic
        )),
        expected,
        "flow {tag}: checkpoints in {checkpoints_topic}"
    );
    FlowOutcome {
        syncs_topic,
        checkpoints_topic,
    }
}
