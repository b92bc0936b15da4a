//! The main job: run the checkpoint task.
//!
//! With no arguments it runs on two embedded mock clusters (no Kafka needed): it creates the
//! topics, produces data, writes offset syncs as a mirror would, commits source consumer groups,
//! runs the task until it has written checkpoints, prints them as a table, then runs a burst of
//! start/stop cycles and prints their stop latencies.
//!
//! With `--config FILE` it runs against real clusters described by an MM2-style properties file
//! and keeps running until interrupted; Ctrl-C stops it through the same stop path.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::mirror_checkpoint_config::MirrorCheckpointConfig;
use mm2_checkpoint::properties::parse_properties;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};

/// Prints library log records at `info` and above to stderr.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::max_level()
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            eprintln!("[{:<5}] {}: {}", r.level(), r.target(), r.args());
        }
    }
    fn flush(&self) {}
}

fn main() -> ExitCode {
    let _ = log::set_logger(&StderrLogger);
    log::set_max_level(if std::env::var_os("MM2_DEBUG").is_some() {
        log::LevelFilter::Debug
    } else {
        log::LevelFilter::Warn
    });
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => run_embedded(),
        [flag, file] if flag == "--config" => run_with_config(file),
        _ => Err("usage: checkpoint [--config mm2.properties]".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

const GROUPS: [&str; 3] = ["billing", "analytics", "audit"];
const PARTITIONS: i32 = 3;

fn run_embedded() -> Result<(), String> {
    let e = |err: mm2_checkpoint::Error| err.to_string();
    println!("Starting two embedded clusters (librdkafka mock brokers on 127.0.0.1)...");
    let clusters = EmbeddedClusters::new().map_err(e)?;
    let syncs_topic = "mm2-offset-syncs.target.internal";
    clusters
        .create_topic(Side::Source, "orders", PARTITIONS)
        .map_err(e)?;
    clusters
        .create_topic(Side::Source, syncs_topic, 1)
        .map_err(e)?;
    clusters
        .create_topic(Side::Target, "source.orders", PARTITIONS)
        .map_err(e)?;
    clusters
        .create_topic(Side::Target, "source.checkpoints.internal", 1)
        .map_err(e)?;

    // A mirror that copied 1,000 records per partition, where the target partition already
    // held 100 * (p + 1) older records, and wrote an offset sync every 100 records
    // (MirrorSourceTask's offset.lag.max = 100).
    let mut syncs = Vec::new();
    for p in 0..PARTITIONS {
        clusters
            .produce_data(Side::Source, "orders", p, 1000)
            .map_err(e)?;
        let shift = 100 * i64::from(p + 1);
        for up in (0..1000).step_by(100) {
            syncs.push(OffsetSync::new(
                TopicPartition::new("orders", p),
                up,
                up + shift,
            ));
        }
    }
    clusters
        .produce_offset_syncs(Side::Source, syncs_topic, &syncs)
        .map_err(e)?;
    for (i, group) in GROUPS.iter().enumerate() {
        let offsets: Vec<(&str, i32, i64, &str)> = (0..PARTITIONS)
            .map(|p| ("orders", p, 150 + 300 * i as i64 + 7 * i64::from(p), ""))
            .collect();
        clusters
            .commit_offsets(Side::Source, group, &offsets)
            .map_err(e)?;
    }

    let source = clusters.bootstrap(Side::Source);
    let target = clusters.bootstrap(Side::Target);
    let groups = GROUPS.join(",");
    let props = [
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", source.as_str()),
        ("target.cluster.bootstrap.servers", target.as_str()),
        ("task.assigned.groups", groups.as_str()),
        ("emit.checkpoints.interval.seconds", "1"),
    ];
    let config = || {
        MirrorCheckpointConfig::from_properties(props)
            .map(|(c, _)| c)
            .map_err(|err| err.to_string())
    };

    let task = CheckpointTask::new(config()?).map_err(e)?;
    task.start().map_err(e)?;
    let mut checkpoints = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while checkpoints.is_empty() && Instant::now() < deadline {
        let out = task.poll(Duration::from_secs(5)).map_err(e)?;
        if out.status == PollStatus::Failed {
            return Err(task.fatal_error().unwrap_or_default());
        }
        checkpoints = out.checkpoints;
    }
    let stats = task.stats();
    task.stop().map_err(e)?;
    if checkpoints.is_empty() {
        return Err("no checkpoints within 60 s".into());
    }
    print_table(&mut checkpoints);
    println!(
        "\nloaded {} offset syncs in {:?}; wrote {} checkpoints to `source.checkpoints.internal`",
        stats.syncs_loaded,
        stats.load_time.unwrap_or_default(),
        stats.checkpoints_emitted
    );

    println!("\nStart/stop burst: 50 cycles, stop at 0-50 ms after start (KAFKA-21435's trigger):");
    let mut latencies = Vec::new();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..50 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let task = CheckpointTask::new(config()?).map_err(e)?;
        task.start().map_err(e)?;
        std::thread::sleep(Duration::from_millis(seed % 51));
        if let StopOutcome::Stopped(took) = task.stop().map_err(e)? {
            latencies.push(took);
        }
    }
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!(
        "stop latency p50 {:?}, p99 {:?}, max {:?}; live clients {}, live threads {}, overlapping client calls {}",
        pick(0.5),
        pick(0.99),
        latencies[latencies.len() - 1],
        diagnostics::live_clients(),
        diagnostics::live_threads(),
        diagnostics::concurrent_client_access()
    );
    if diagnostics::live_clients() != 0 || diagnostics::live_threads() != 0 {
        return Err("clients or threads outlived their task".into());
    }
    Ok(())
}

fn print_table(checkpoints: &mut [Checkpoint]) {
    checkpoints.sort_by(|a, b| {
        (&a.consumer_group_id, &a.topic_partition).cmp(&(&b.consumer_group_id, &b.topic_partition))
    });
    println!(
        "\n{:<10} {:<18} {:>9}    {:>10}",
        "group", "topic-partition", "upstream", "downstream"
    );
    for c in checkpoints.iter() {
        println!(
            "{:<10} {:<18} {:>9} -> {:>10}",
            c.consumer_group_id,
            c.topic_partition.to_string(),
            c.upstream_offset,
            c.downstream_offset
        );
    }
}

fn run_with_config(file: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|err| format!("{file}: {err}"))?;
    let props = parse_properties(&text).map_err(|err| format!("{file}: {err}"))?;
    let (config, warnings) = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .map_err(|err| format!("{file}: {err}"))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let task = Arc::new(CheckpointTask::new(config).map_err(|err| err.to_string())?);
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let (task, interrupted) = (Arc::clone(&task), Arc::clone(&interrupted));
        ctrlc::set_handler(move || {
            interrupted.store(true, Ordering::SeqCst);
            // The same stop path as everywhere: flag, wake, join, close. The poll below returns.
            let _ = task.stop();
        })
        .map_err(|err| err.to_string())?;
    }
    task.start().map_err(|err| err.to_string())?;
    eprintln!("running; Ctrl-C stops");
    while !interrupted.load(Ordering::SeqCst) {
        let out = task
            .poll(Duration::from_secs(5))
            .map_err(|err| err.to_string())?;
        match out.status {
            PollStatus::Emitted if !out.checkpoints.is_empty() => {
                let mut checkpoints = out.checkpoints;
                print_table(&mut checkpoints);
            }
            PollStatus::Emitted => {}
            PollStatus::Failed => return Err(task.fatal_error().unwrap_or_default()),
            PollStatus::Stopped => break,
            PollStatus::NotReady | PollStatus::NotDue => {}
        }
    }
    task.stop().map_err(|err| err.to_string())?;
    eprintln!("stopped");
    Ok(())
}
