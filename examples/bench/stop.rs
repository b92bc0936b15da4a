//! Item 4: how long `CheckpointTask::stop` takes, as a distribution over many stops, in four
//! situations, beside the time a raw librdkafka consumer takes to close in the same situation
//! (the floor any library that owns a Kafka client pays).

use std::net::{Ipv4Addr, TcpListener};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks};
use mm2_checkpoint::{OffsetSync, TopicPartition};

use crate::cycle::{group_names, TARGET};
use crate::load::{produce_records, raw_consumer, target_alias};
use crate::stats::{millis, ms, tail, Dist, Table};
use crate::workload::SplitMix;
use crate::{task_config, Cluster, Opts};

/// What a scenario measured.
pub struct StopResult {
    pub scenario: &'static str,
    pub stop: Dist,
    pub baseline: Option<(Dist, Dist)>,
    pub note: String,
}

fn wait_initialized(task: &CheckpointTask) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !task.stats().initialized {
        assert!(Instant::now() < deadline, "task did not initialize");
        assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
        thread::sleep(Duration::from_millis(2));
    }
}

/// Times `task.stop()` as the caller sees it.
fn timed_stop(task: &CheckpointTask) -> f64 {
    let began = Instant::now();
    task.stop().expect("stop");
    ms(began.elapsed())
}

/// A raw consumer of `topic` that polls for `busy`, then is closed; returns the close time.
/// `fast = false` closes it by dropping (rust-rdkafka's `Drop` closes the queue, then polls in
/// 100 ms slices until librdkafka reports it closed); `fast = true` closes the queue itself and
/// polls in 1 ms slices first, so the drop finds it already closed.
fn raw_close_after(bootstrap: &str, topic: &str, busy: Duration, fast: bool) -> f64 {
    let consumer = raw_consumer(bootstrap, topic);
    let until = Instant::now() + busy;
    while Instant::now() < until {
        let _ = consumer.poll(Duration::from_millis(1));
    }
    let began = Instant::now();
    if fast && consumer.close_queue().is_ok() {
        while !consumer.closed() {
            let _ = consumer.poll(Duration::from_millis(1));
        }
    }
    drop(consumer);
    ms(began.elapsed())
}

/// Both raw close variants after the same `busy` time.
fn raw_closes(
    bootstrap: &str,
    topic: &str,
    busy: Duration,
    drop_: &mut Vec<f64>,
    fast: &mut Vec<f64>,
) {
    drop_.push(raw_close_after(bootstrap, topic, busy, false));
    fast.push(raw_close_after(bootstrap, topic, busy, true));
}

/// Stops while start-up is reading the `records`-record offset-syncs topic.
fn during_load(
    cluster: &dyn Cluster,
    records: usize,
    load_ms: f64,
    runs: usize,
    rng: &mut SplitMix,
) -> StopResult {
    let bootstrap = cluster.bootstrap();
    let alias = target_alias(records);
    let topic = format!("mm2-offset-syncs.{alias}.internal");
    cluster.create_topic("stopload.checkpoints.internal", 1);
    let (mut stops, mut raw, mut fast) = (vec![], vec![], vec![]);
    let (mut before, mut mid, mut after) = (0usize, 0usize, 0usize);
    for run in 0..runs {
        // Even runs stop anywhere in the load (most land while the consumer connects, which is
        // most of a load's time); odd runs wait for the first record and stop while records
        // stream in.
        let span = if run % 2 == 0 { load_ms } else { load_ms / 2.0 };
        let delay = Duration::from_micros(rng.range(0, (span * 1e3) as u64 + 1));
        let (tx, rx) = mpsc::channel::<()>();
        let hooks = StartupHooks {
            checkpoint_store_reading: None,
            offset_sync_store_reading: Some(Arc::new(move |_| {
                let _ = tx.send(());
            })),
            ..StartupHooks::default()
        };
        let config = task_config("stopload", &alias, &bootstrap, &[]);
        let task = CheckpointTask::with_hooks(config, hooks).expect("task");
        task.start().expect("start");
        rx.recv_timeout(Duration::from_secs(60))
            .expect("offset-sync load began");
        let began = Instant::now();
        if run % 2 == 1 {
            while task.stats().syncs_loaded == 0 && began.elapsed() < Duration::from_secs(60) {
                thread::sleep(Duration::from_micros(200));
            }
        }
        thread::sleep(delay);
        stops.push(timed_stop(&task));
        let stats = task.stats();
        if stats.initialized {
            after += 1;
        } else if stats.syncs_loaded > 0 {
            mid += 1;
        } else {
            before += 1;
        }
        raw_closes(&bootstrap, &topic, began.elapsed(), &mut raw, &mut fast);
    }
    StopResult {
        scenario: "init loading the offset-syncs topic",
        stop: Dist::new(stops),
        baseline: Some((Dist::new(raw), Dist::new(fast))),
        note: format!(
            "{records} records; stop at a random point of the load: {before} before the first record, {mid} mid-read, {after} after it ended"
        ),
    }
}

/// Stops while another thread's `poll` waits for the next cycle.
fn poll_blocked(cluster: &dyn Cluster, runs: usize, rng: &mut SplitMix) -> StopResult {
    let bootstrap = cluster.bootstrap();
    let topic = "mm2-offset-syncs.poll.internal";
    cluster.create_topic(topic, 1);
    let syncs: Vec<OffsetSync> = (0..10)
        .map(|i| OffsetSync::new(TopicPartition::new("orders", 0), i * 100, i * 100))
        .collect();
    produce_records(&bootstrap, topic, &syncs);
    cluster.create_topic("stoppoll.checkpoints.internal", 1);
    let (mut stops, mut returns, mut raw, mut fast) = (vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let config = task_config(
            "stoppoll",
            "poll",
            &bootstrap,
            &[
                ("task.assigned.groups", "bench-group-00000"),
                ("emit.checkpoints.interval.seconds", "3600"),
            ],
        );
        let task = Arc::new(CheckpointTask::new(config).expect("task"));
        task.start().expect("start");
        wait_initialized(&task);
        let first = task.poll(Duration::from_secs(30)).expect("first poll");
        assert_eq!(first.status, PollStatus::CycleDone);
        let poller = Arc::clone(&task);
        let blocked = thread::spawn(move || {
            let out = poller.poll(Duration::from_secs(60)).expect("blocked poll");
            (out.status, Instant::now())
        });
        thread::sleep(Duration::from_micros(rng.range(5_000, 50_000)));
        let began = Instant::now();
        stops.push(timed_stop(&task));
        let (status, returned) = blocked.join().expect("poll thread");
        assert_eq!(status, PollStatus::Stopped);
        returns.push(ms(returned.saturating_duration_since(began)));
        raw_closes(
            &bootstrap,
            topic,
            Duration::from_millis(50),
            &mut raw,
            &mut fast,
        );
    }
    let returns = Dist::new(returns);
    StopResult {
        scenario: "poll blocked waiting for the next cycle",
        stop: Dist::new(stops),
        baseline: Some((Dist::new(raw), Dist::new(fast))),
        note: format!(
            "the blocked poll returned Stopped {} after stop began (p50/p99/max)",
            tail(&returns, millis)
        ),
    }
}

/// Stops a task whose brokers are a closed port, while a poll waits for initialization.
fn unreachable(runs: usize, rng: &mut SplitMix) -> StopResult {
    // Bind then release: nothing listens there afterwards.
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let bootstrap = format!("127.0.0.1:{port}");
    let (mut stops, mut raw, mut fast) = (vec![], vec![], vec![]);
    for _ in 0..runs {
        let config = task_config("stopdown", "down", &bootstrap, &[]);
        let task = Arc::new(CheckpointTask::new(config).expect("task"));
        task.start().expect("start");
        let poller = Arc::clone(&task);
        let blocked = thread::spawn(move || poller.poll(Duration::from_secs(60)));
        let busy = Duration::from_micros(rng.range(0, 500_000));
        thread::sleep(busy);
        stops.push(timed_stop(&task));
        let status = blocked.join().expect("poll thread").expect("poll").status;
        assert_eq!(status, PollStatus::Stopped);
        raw_closes(&bootstrap, "unreachable", busy, &mut raw, &mut fast);
    }
    StopResult {
        scenario: "broker unreachable (closed port)",
        stop: Dist::new(stops),
        baseline: Some((Dist::new(raw), Dist::new(fast))),
        note: format!("stop 0–500 ms after start, a poll waiting; port {port}"),
    }
}

/// Stops while a poll runs a checkpoint cycle over `groups` groups.
fn mid_cycle(
    cluster: &dyn Cluster,
    groups: usize,
    cycle_ms: f64,
    runs: usize,
    rng: &mut SplitMix,
) -> StopResult {
    let bootstrap = cluster.bootstrap();
    let assigned = group_names(groups).join(",");
    let (mut stops, mut interrupted) = (vec![], 0usize);
    for run in 0..runs {
        let alias = format!("sc{run}");
        cluster.create_topic(&format!("{alias}.checkpoints.internal"), 1);
        let config = task_config(
            &alias,
            TARGET,
            &bootstrap,
            &[
                ("task.assigned.groups", assigned.as_str()),
                ("emit.checkpoints.interval.seconds", "0"),
            ],
        );
        let task = Arc::new(CheckpointTask::new(config).expect("task"));
        task.start().expect("start");
        wait_initialized(&task);
        let poller = Arc::clone(&task);
        let cycle = thread::spawn(move || poller.poll(Duration::from_secs(300)));
        thread::sleep(Duration::from_micros(
            rng.range(0, (cycle_ms * 1e3) as u64 + 1),
        ));
        stops.push(timed_stop(&task));
        let status = cycle.join().expect("poll thread").expect("poll").status;
        if status == PollStatus::Stopped {
            interrupted += 1;
        }
    }
    StopResult {
        scenario: "poll inside a checkpoint cycle",
        stop: Dist::new(stops),
        baseline: None,
        note: format!("{groups} groups × 10; {interrupted}/{runs} stops interrupted the cycle"),
    }
}

/// Inputs the stop benchmark takes from the earlier sections.
pub struct StopInputs {
    pub load_records: usize,
    pub load_ms: f64,
    pub cycle_groups: Option<(usize, f64)>,
}

pub fn run(
    opts: &Opts,
    cluster: &dyn Cluster,
    inputs: &StopInputs,
    table: &mut Table,
) -> Vec<StopResult> {
    let runs = if opts.quick { 6 } else { 50 };
    let mut rng = SplitMix(99);
    let mut results = Vec::new();
    eprintln!("[stop] during load");
    // Each of these runs waits up to a whole load (seconds for 1M records) three
    // times, so they are fewer.
    results.push(during_load(
        cluster,
        inputs.load_records,
        inputs.load_ms,
        if opts.quick { runs } else { 20 },
        &mut rng,
    ));
    eprintln!("[stop] poll blocked");
    results.push(poll_blocked(cluster, runs, &mut rng));
    eprintln!("[stop] broker unreachable");
    results.push(unreachable(runs * 2, &mut rng));
    if let Some((groups, cycle_ms)) = inputs.cycle_groups {
        eprintln!("[stop] mid cycle");
        results.push(mid_cycle(
            cluster,
            groups,
            cycle_ms,
            (runs / 2).max(5),
            &mut rng,
        ));
    }
    for r in &results {
        table.row(vec![
            format!("stop latency: {}", r.scenario),
            format!("n = {}", r.stop.len()),
            format!("p50/p99/max {}", tail(&r.stop, millis)),
            match &r.baseline {
                Some((b, f)) => format!(
                    "raw consumer close by drop: {}; closed with close_queue + 1 ms polls: {}",
                    tail(b, millis),
                    tail(f, millis)
                ),
                None => "—".into(),
            },
            format!(
                "{}; {}",
                if r.stop.pct(99.0) <= 50.0 {
                    "p99 ≤ 50 ms: met"
                } else {
                    "p99 ≤ 50 ms: MISSED"
                },
                r.note
            ),
        ]);
    }
    results
}
