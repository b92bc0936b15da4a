//! The main job: run the checkpoint task.
//!
//! With no arguments it runs on two embedded mock clusters (no Kafka needed): it creates the
//! topics, produces data, writes offset syncs as a mirror would, commits source consumer groups,
//! runs the task until it has written checkpoints, prints them as a table, then runs a burst of
//! start/stop cycles and prints their stop latencies.
//!
//! With `--config FILE` it runs against real clusters described by an MM2-style properties file
//! and keeps running until interrupted; Ctrl-C or SIGTERM stops it through the same stop path.
//! It prints what it does: the topics it reads and writes, what start-up loaded, and after each
//! cycle the groups checkpointed, the checkpoints and target-group offsets written and when the next cycle runs. `--help`
//! lists the options; the library's log lines go through env_logger (`RUST_LOG`, `--log-level`).
//! `--metrics-addr HOST:PORT` serves the metrics in the Prometheus text format, every flow's
//! from one endpoint (checkpoint/prometheus.rs; docs/OPERATIONS.md).

// A crate root looks for its modules beside it: this one lives in the example's own folder.
#[path = "checkpoint/prometheus.rs"]
mod prometheus;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mm2_checkpoint::checkpoint_flows::CheckpointFlows;
use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StopOutcome};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::metrics::GroupOffsetSyncMetrics;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};
use mm2_checkpoint::{Cluster, GroupOffsetsSource, MirrorCheckpointConfig};

const USAGE: &str = "\
usage: checkpoint [--config FILE] [--metrics-addr HOST:PORT] [--log-level LEVEL]
                  [--status-interval SECONDS] [--fail-fast]

Runs MirrorMaker 2's checkpointing: translates the source cluster's consumer-group offsets
through the offset syncs a mirror wrote, and writes checkpoints to the target cluster.

options:
  --config FILE        an MM2-style properties file (dedicated `mm2.properties` with
                       `clusters`, `A.bootstrap.servers`, `A->B.enabled`, ..., or connector
                       style); runs until Ctrl-C or SIGTERM. Without it, runs a demo on two
                       embedded mock clusters and exits.
  --metrics-addr HOST:PORT
                       with --config: serves the metrics of every flow in the Prometheus
                       text format at http://HOST:PORT/metrics (docs/OPERATIONS.md); port
                       0 picks a free port, printed at start
  --log-level LEVEL    error, warn, info, debug, trace or off (default: warn, or RUST_LOG);
                       takes precedence over RUST_LOG
  --status-interval SECONDS
                       while start-up is still loading, say so every SECONDS (default 30)
  --fail-fast          with a file enabling several flows: when one flow fails for good,
                       stop them all and exit (by default the others go on until Ctrl-C
                       or SIGTERM; either way the exit status says a flow failed)
  -h, --help           prints this help and exits

environment:
  RUST_LOG             env_logger filter for the library's log lines, e.g. `info` or
                       `warn,mm2_checkpoint=debug,mm2_checkpoint_core=debug,librdkafka=info`
                       (the core layer logs under mm2_checkpoint_core)";

/// What the command line asked for.
#[derive(Debug, Default)]
struct Args {
    config: Option<String>,
    metrics_addr: Option<String>,
    log_level: Option<String>,
    status_interval: Option<Duration>,
    fail_fast: bool,
    help: bool,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => parsed.help = true,
            "--fail-fast" => parsed.fail_fast = true,
            "--config" => parsed.config = Some(value("--config")?),
            "--log-level" => parsed.log_level = Some(value("--log-level")?),
            "--metrics-addr" => parsed.metrics_addr = Some(value("--metrics-addr")?),
            "--status-interval" => {
                let seconds = value("--status-interval")?;
                match seconds.parse::<u64>() {
                    Ok(s) if s > 0 => parsed.status_interval = Some(Duration::from_secs(s)),
                    _ => {
                        return Err(format!(
                            "--status-interval `{seconds}`: a whole number of seconds, at least 1"
                        ))
                    }
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(parsed)
}

/// env_logger, filtered by `--log-level`, else `RUST_LOG`, else warnings and errors.
fn init_logging(level: Option<&str>) -> Result<(), String> {
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = level {
        let filter: log::LevelFilter = level.parse().map_err(|_| {
            format!("--log-level `{level}`: use error, warn, info, debug, trace or off")
        })?;
        builder.filter_level(filter);
    }
    builder.init();
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if let Err(e) = init_logging(args.log_level.as_deref()) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let result = match (&args.config, &args.metrics_addr) {
        (None, Some(_)) => Err(Some("--metrics-addr needs --config".to_string())),
        (None, None) => run_embedded().map_err(Some),
        (Some(file), addr) => run_with_config(
            file,
            args.status_interval.unwrap_or(Duration::from_secs(30)),
            addr.as_deref(),
            args.fail_fast,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(e) = e {
                eprintln!("error: {e}");
            }
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

/// "1 group", "2 groups".
fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Runs the job from a properties file; `Err(None)` when the error was already printed (the
/// library logs a task's fatal error when it happens).
fn run_with_config(
    file: &str,
    status_interval: Duration,
    metrics_addr: Option<&str>,
    fail_fast: bool,
) -> Result<(), Option<String>> {
    let text = std::fs::read_to_string(file).map_err(|err| format!("{file}: {err}"))?;
    // The library's own reading of the file: the same as the C API's mm_conf_load_properties.
    let mut flows = MirrorCheckpointConfig::flows_from_properties_text(&text)
        .map_err(|err| format!("{file}: {err}"))?;
    if flows.len() > 1 {
        return run_flows(&text, status_interval, metrics_addr, fail_fast);
    }
    let (config, warnings) = flows.remove(0);
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let interval = config.emit_checkpoints_interval;
    let syncs_topic = config.offset_syncs_topic();
    let checkpoints_topic = config.checkpoints_topic();
    let syncing_groups = config.sync_group_offsets_enabled;
    println!(
        "checkpointing {source}->{target}: offset syncs from `{syncs}` on the {location} cluster, \
         checkpoints to `{checkpoints}` on `{target}`, a cycle every {every}; Ctrl-C or SIGTERM stops",
        source = config.source_cluster_alias,
        target = config.target_cluster_alias,
        syncs = config.offset_syncs_topic(),
        location = match config.offset_syncs_topic_location {
            Cluster::Source => "source",
            Cluster::Target => "target",
        },
        checkpoints = config.checkpoints_topic(),
        every = interval.map_or_else(|| "(disabled)".to_string(), |d| format!("{} s", d.as_secs())),
    );
    if config.group_offsets_source == GroupOffsetsSource::ConsumerOffsetsTopic {
        println!(
            "groups' offsets: streamed from `__consumer_offsets` on `{}` (group.offsets.source = {}): \
             a commit is checkpointed within a second, and the cycle every interval catches up the rest",
            config.source_cluster_alias,
            config.group_offsets_source.name()
        );
    }
    if config.emit_reverse_checkpoints_enabled {
        let cluster = match config.reverse_offset_syncs_cluster() {
            Cluster::Source => &config.source_cluster_alias,
            Cluster::Target => &config.target_cluster_alias,
        };
        println!(
            "reverse checkpoints: commits on `{source}`'s replicas of `{target}`'s topics are \
             translated back with the {target}->{source} flow's offset syncs from `{syncs}` on \
             `{cluster}` and checkpointed under `{target}`'s own topic names",
            source = config.source_cluster_alias,
            target = config.target_cluster_alias,
            syncs = config.reverse_offset_syncs_topic(),
        );
    }
    if let Some(every) = config.statistics_interval {
        eprintln!(
            "warning: statistics.interval.ms = {} does nothing in this job: it sets how often the C \
             statistics callback and the Java listener are called; here, serve the metrics with \
             --metrics-addr HOST:PORT (Prometheus) instead",
            every.as_millis()
        );
    }
    let task = Arc::new(CheckpointTask::new(config).map_err(|err| err.to_string())?);
    // Dropped at the end, after the task stopped: a scrape meanwhile reads a stopped task.
    let _endpoint = match metrics_addr {
        Some(addr) => {
            let endpoint =
                prometheus::Endpoint::serve(addr, prometheus::Tasks::One(Arc::clone(&task)))?;
            println!("serving metrics at http://{}/metrics", endpoint.addr);
            Some(endpoint)
        }
        None => None,
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let (task, interrupted) = (Arc::clone(&task), Arc::clone(&interrupted));
        // With ctrlc's `termination` feature this handles SIGTERM (and SIGHUP) as well as
        // SIGINT, so a service manager's stop is as clean as Ctrl-C.
        ctrlc::set_handler(move || {
            interrupted.store(true, Ordering::SeqCst);
            // The same stop path as everywhere: flag, wake, join, close. The poll below returns.
            let _ = task.stop();
        })
        .map_err(|err| err.to_string())?;
    }
    task.start().map_err(|err| err.to_string())?;
    println!("loading the checkpoints and offset syncs...");
    let began = Instant::now();
    let mut ready = false;
    let mut last_waiting_note = Instant::now();
    let mut owned_before = None;
    let mut group_sync_before = GroupOffsetSyncMetrics::default();
    while !interrupted.load(Ordering::SeqCst) {
        let out = task
            .poll(Duration::from_secs(5))
            .map_err(|err| err.to_string())?;
        // With task.assignment=group: say which coordination partitions this process owns
        // whenever that changes (scripts and tests watch these lines).
        let (owned, _pending) = task.coordination_partitions();
        let group_mode_news = !owned.is_empty() || owned_before.is_some();
        if group_mode_news && owned_before.as_ref() != Some(&owned) {
            let list: Vec<String> = owned.iter().map(i32::to_string).collect();
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0);
            println!("owned-partitions {ms} [{}]", list.join(","));
            owned_before = Some(owned);
        }
        match out.status {
            PollStatus::CycleDone => {
                let stats = task.stats();
                if !ready {
                    ready = true;
                    println!(
                        "loaded {} offset syncs and {} checkpoints in {:.1?}{}",
                        stats.syncs_loaded,
                        stats.checkpoints_loaded,
                        stats.load_time.unwrap_or_default(),
                        if stats.checkpoints_load_ok {
                            ""
                        } else {
                            " (checkpoints unreadable: newest offset sync per partition only)"
                        }
                    );
                }
                let written = out.checkpoints.len();
                if written > 0 {
                    let mut checkpoints = out.checkpoints;
                    print_table(&mut checkpoints);
                }
                let groups = match (stats.groups, &stats.filter_miss) {
                    (0, Some(why)) => format!("no group to checkpoint: {why}"),
                    (n, _) => count(n, "group", "groups"),
                };
                let group_offsets = if syncing_groups {
                    let now = task.metrics().task.group_offset_sync;
                    let line = group_sync_line(&group_sync_before, &now);
                    group_sync_before = now;
                    line
                } else {
                    String::new()
                };
                println!(
                    "cycle {}: {groups}, {} written ({} since this process started){group_offsets}, \
                     {} loaded; next cycle {}",
                    stats.cycles,
                    count(written as u64, "checkpoint", "checkpoints"),
                    stats.checkpoints_emitted,
                    count(stats.syncs_loaded, "offset sync", "offset syncs"),
                    match (interval, task.next_cycle_in()) {
                        (None, _) => "never".to_string(),
                        (Some(_), Some(due)) => next_cycle_at(due),
                        (Some(interval), None) => next_cycle_at(interval),
                    },
                );
            }
            PollStatus::NotReady => {
                if last_waiting_note.elapsed() >= status_interval {
                    last_waiting_note = Instant::now();
                    let stats = task.stats();
                    println!(
                        "still loading after {} s: reading `{checkpoints_topic}` and \
                         `{syncs_topic}` to their end ({} applied so far); {}",
                        began.elapsed().as_secs(),
                        count(stats.syncs_loaded, "offset sync", "offset syncs"),
                        stats.retry_reason.map_or_else(
                            || "no error so far, the clusters answer".to_string(),
                            |why| format!("waiting because {why}")
                        ),
                    );
                }
            }
            // The library logged the fatal error when it happened; print it only when the
            // logger hides the library's errors.
            PollStatus::Failed => {
                let error = task.fatal_error().unwrap_or_default();
                let logged = log::log_enabled!(target: "mm2_checkpoint", log::Level::Error);
                return Err((!logged).then_some(error));
            }
            PollStatus::Stopped => break,
            PollStatus::NotDue => {}
        }
    }
    let outcome = task.stop().map_err(|err| err.to_string())?;
    match (outcome, task.stats().last_stop_time) {
        (StopOutcome::Stopped(took), _) | (StopOutcome::AlreadyStopped, Some(took)) => {
            println!("stopped in {took:.1?}")
        }
        (StopOutcome::AlreadyStopped, None) => println!("stopped"),
    }
    Ok(())
}

/// Every flow of a file that enables several, each on a thread of its own that prints its lines
/// prefixed with the flow (`[A->B] `). A flow that fails is reported and the others go on
/// (with `fail_fast`, they are all stopped); one Ctrl-C or SIGTERM stops them all. Fails when
/// any flow failed. With `metrics_addr`, one endpoint serves every flow's metrics, told apart by
/// their `source` and `target` labels.
fn run_flows(
    text: &str,
    status_interval: Duration,
    metrics_addr: Option<&str>,
    fail_fast: bool,
) -> Result<(), Option<String>> {
    let (flows, warnings) =
        CheckpointFlows::from_properties_text(text).map_err(|err| err.to_string())?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let flows = Arc::new(flows);
    let names: Vec<String> = flows.flows().map(|(name, _)| name.to_string()).collect();
    println!(
        "checkpointing {} flows in this process: {}; Ctrl-C or SIGTERM stops them all",
        names.len(),
        names.join(", ")
    );
    // Dropped at the end, after the flows stopped: a scrape meanwhile reads stopped tasks.
    let _endpoint = match metrics_addr {
        Some(addr) => {
            let endpoint =
                prometheus::Endpoint::serve(addr, prometheus::Tasks::Flows(Arc::clone(&flows)))?;
            println!("serving metrics at http://{}/metrics", endpoint.addr);
            Some(endpoint)
        }
        None => None,
    };
    {
        let flows = Arc::clone(&flows);
        ctrlc::set_handler(move || {
            // Every flow's stop flag first, then each joined and closed.
            let _ = flows.stop();
        })
        .map_err(|err| err.to_string())?;
    }
    flows
        .start()
        .map_err(|(flow, err)| format!("starting flow {flow}: {err}"))?;
    let followers: Vec<_> = names
        .iter()
        .map(|name| {
            let (flows, name) = (Arc::clone(&flows), name.clone());
            std::thread::spawn(move || {
                let followed = follow_flow(&flows, &name, status_interval);
                if let Err(e) = &followed {
                    println!("[{name}] failed: {e}");
                    if fail_fast {
                        println!("[{name}] --fail-fast: stopping every flow");
                        // The same stop as Ctrl-C's: the other flows' polls return STOPPED.
                        let _ = flows.stop();
                    }
                }
                followed
            })
        })
        .collect();
    let mut failed = Vec::new();
    for (name, follower) in names.iter().zip(followers) {
        match follower.join() {
            Ok(Ok(())) => {}
            // Reported by the flow's own thread when it happened.
            Ok(Err(_)) => failed.push(name.clone()),
            Err(_) => {
                println!("[{name}] failed: its thread panicked");
                failed.push(name.clone());
            }
        }
    }
    for (name, outcome) in flows.stop() {
        match outcome {
            Ok(StopOutcome::Stopped(took)) => println!("[{name}] stopped in {took:.1?}"),
            Ok(StopOutcome::AlreadyStopped) => println!("[{name}] stopped"),
            Err(e) => println!("[{name}] stop: {e}"),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Some(format!("flows failed: {}", failed.join(", "))))
    }
}

/// Polls one flow of `flows` until it stops or fails, printing its checkpoints and cycle lines.
fn follow_flow(
    flows: &CheckpointFlows,
    name: &str,
    status_interval: Duration,
) -> Result<(), String> {
    let task = flows.task(name).ok_or("no such flow")?;
    let began = Instant::now();
    let mut last_note = Instant::now();
    loop {
        let out = task
            .poll(Duration::from_secs(5))
            .map_err(|err| err.to_string())?;
        match out.status {
            PollStatus::CycleDone => {
                let stats = task.stats();
                if !out.checkpoints.is_empty() {
                    let mut checkpoints = out.checkpoints.clone();
                    checkpoints.sort_by(|a, b| {
                        (&a.consumer_group_id, &a.topic_partition)
                            .cmp(&(&b.consumer_group_id, &b.topic_partition))
                    });
                    for cp in &checkpoints {
                        println!(
                            "[{name}] {} {}: {} -> {}",
                            cp.consumer_group_id,
                            cp.topic_partition,
                            cp.upstream_offset,
                            cp.downstream_offset
                        );
                    }
                }
                println!(
                    "[{name}] cycle {}: {}, {} written ({} since this process started), {} loaded{}",
                    stats.cycles,
                    count(stats.groups, "group", "groups"),
                    count(out.checkpoints.len() as u64, "checkpoint", "checkpoints"),
                    stats.checkpoints_emitted,
                    count(stats.syncs_loaded, "offset sync", "offset syncs"),
                    if stats.reverse_syncs_loaded > 0 {
                        format!(" and {} of the reverse flow", stats.reverse_syncs_loaded)
                    } else {
                        String::new()
                    },
                );
            }
            PollStatus::NotReady if last_note.elapsed() >= status_interval => {
                last_note = Instant::now();
                println!(
                    "[{name}] still loading after {} s; {}",
                    began.elapsed().as_secs(),
                    task.stats().retry_reason.map_or_else(
                        || "no error so far, the clusters answer".to_string(),
                        |why| format!("waiting because {why}")
                    ),
                );
            }
            PollStatus::Failed => return Err(task.fatal_error().unwrap_or_default()),
            PollStatus::Stopped => return Ok(()),
            PollStatus::NotReady | PollStatus::NotDue => {}
        }
    }
}

/// What the group offset sync did since the last cycle line: ", group offset sync (N runs): N
/// offsets written into target groups, N refused, left alone: N active, N state unknown, N up to
/// date, N ahead, since the last cycle" (the task's own info line names the groups).
fn group_sync_line(before: &GroupOffsetSyncMetrics, now: &GroupOffsetSyncMetrics) -> String {
    let runs = now.runs - before.runs;
    format!(
        ", group offset sync ({}): {} written into target groups, {} refused, left alone: {} active, {} state unknown, {} up to date, {} ahead, since the last cycle",
        count(runs, "run", "runs"),
        count(now.written - before.written, "offset", "offsets"),
        now.refused - before.refused,
        now.left_active - before.left_active,
        now.left_unknown_state - before.left_unknown_state,
        now.left_up_to_date - before.left_up_to_date,
        now.left_ahead - before.left_ahead,
    )
}

/// "at HH:MM:SS UTC (in N s)", `interval` from now.
fn next_cycle_at(interval: Duration) -> String {
    let at = SystemTime::now() + interval;
    let secs = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!(
        "at {:02}:{:02}:{:02} UTC (in {} s)",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        interval.as_secs()
    )
}
