//! Commit → checkpoint latency, for each offsets source, on Kafka. Commits are spread
//! evenly over one emission interval (so they fall at every phase of it), each moving one
//! group's translated offset; the latency of a commit is from the moment its OffsetCommit was
//! acknowledged to the poll that returned its checkpoint (poll granularity 100 ms).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::OffsetSync;
use mm2_checkpoint::TopicPartition;

use crate::stats::{millis, Dist, Table};
use crate::{task_config, Cluster, Opts};

/// One measured configuration: its label, `group.offsets.source` and interval (seconds).
const RUNS: [(&str, &str, u64); 3] = [
    (
        "consumer-offsets-topic, interval 60 s",
        "consumer-offsets-topic",
        60,
    ),
    ("poll, interval 1 s", "poll", 1),
    ("poll, interval 60 s (MM2's default)", "poll", 60),
];

/// Runs every configuration and adds one row each to `table`.
pub fn run(opts: &Opts, kafka: &dyn Cluster, table: &mut Table) {
    let samples = if opts.quick { 20 } else { 60 };
    for (i, (label, source, interval)) in RUNS.into_iter().enumerate() {
        eprintln!("latency: {label}, {samples} commits");
        let d = measure(kafka, &format!("lat{i}"), source, interval, samples);
        table.row(vec![
            "commit → checkpoint latency".into(),
            format!("{label}, {} commits", d.len()),
            format!(
                "p50 {}, p99 {}, max {}",
                millis(d.median()),
                millis(d.pct(99.0)),
                millis(d.max())
            ),
            "—".into(),
            "—".into(),
        ]);
    }
}

fn measure(kafka: &dyn Cluster, alias: &str, source: &str, interval: u64, samples: usize) -> Dist {
    let bootstrap = kafka.bootstrap();
    let topic = format!("{alias}-orders");
    let syncs = format!("mm2-offset-syncs.{alias}t.internal");
    kafka.create_topic(&topic, 1);
    kafka.create_topic(&syncs, 1);
    let records: Vec<(Vec<u8>, Vec<u8>)> = [(0, 0), (50, 50)]
        .into_iter()
        .map(|(up, down)| {
            let s = OffsetSync::new(TopicPartition::new(&topic, 0), up, down);
            (s.encode_key().unwrap(), s.encode_value())
        })
        .collect();
    let refs: Vec<support::Record<'_>> = records
        .iter()
        .map(|(k, v)| (Some(k.as_slice()), Some(v.as_slice())))
        .collect();
    support::produce_many(&bootstrap, &syncs, 0, &refs);
    let groups: Vec<String> = (0..samples).map(|i| format!("{alias}-g{i:03}")).collect();
    // Known to both sources from the start: a first commit whose checkpoint (1) is emitted
    // before the measured commit (60 → 51) moves it.
    for g in &groups {
        support::commit_group_offsets(&bootstrap, g, &[(&topic, 0, 10, "")]);
    }
    let interval_text = interval.to_string();
    let pattern = format!("{alias}-.*");
    let task = CheckpointTask::new(task_config(
        alias,
        &format!("{alias}t"),
        &bootstrap,
        &[
            ("task.assigned.groups", &groups.join(",")),
            ("groups", &pattern),
            ("group.offsets.source", source),
            ("emit.checkpoints.interval.seconds", &interval_text),
            ("checkpoints.topic.replication.factor", "1"),
            ("offset-syncs.topic.replication.factor", "1"),
        ],
    ))
    .expect("latency task");
    task.start().expect("start");
    let mut first = 0;
    while first < samples {
        let out = task.poll(Duration::from_millis(100)).expect("poll");
        assert!(
            !matches!(out.status, PollStatus::Failed),
            "{:?}",
            task.fatal_error()
        );
        first += out
            .checkpoints
            .iter()
            .filter(|c| c.upstream_offset == 10)
            .count();
    }
    let committed: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let spacing = Duration::from_secs(interval).max(Duration::from_secs(20)) / samples as u32;
    let committer = {
        let committed = Arc::clone(&committed);
        let groups = groups.clone();
        let (bootstrap, topic) = (bootstrap.clone(), topic.clone());
        std::thread::spawn(move || {
            let start = Instant::now();
            for (i, g) in groups.iter().enumerate() {
                let at = start + spacing * i as u32;
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                // Noted before the request, so a checkpoint can never be seen before its commit.
                committed.lock().unwrap().insert(g.clone(), Instant::now());
                support::commit_group_offsets(&bootstrap, g, &[(&topic, 0, 60, "")]);
            }
        })
    };
    let mut latencies = Vec::new();
    let deadline =
        Instant::now() + spacing * samples as u32 + Duration::from_secs(interval * 2 + 30);
    while latencies.len() < samples && Instant::now() < deadline {
        let out = task.poll(Duration::from_millis(100)).expect("poll");
        let seen = Instant::now();
        for cp in out.checkpoints.iter().filter(|c| c.upstream_offset == 60) {
            if let Some(at) = committed.lock().unwrap().get(&cp.consumer_group_id) {
                latencies.push(seen.duration_since(*at).as_secs_f64() * 1e3);
            }
        }
    }
    committer.join().expect("committer");
    task.stop().expect("stop");
    Dist::new(latencies)
}
