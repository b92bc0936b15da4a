//! Our half of `interop/run.sh cycle` (BENCHMARKS.md, "Against Java MM2", "Checkpoint cycle"):
//! the checkpoint cycle of `CheckpointTask` over G groups × 10 partitions, on the brokers and
//! groups the Java harness (interop's CycleBench.java) seeded and just measured Java's
//! MirrorCheckpointTask on, plus the raw librdkafka floor of the same run.
//!
//! ```text
//! interop_cycle SOURCE_BOOTSTRAP TARGET_BOOTSTRAP SIZES RUNS STEADY
//! ```
//!
//! SIZES is a comma-separated list of group counts (groups `cycle-group-00000` ...). Per size,
//! RUNS times: the floor (every group's OffsetFetch through one raw admin client, 256 in flight),
//! the same spread over four raw admin clients (`floor4`), then a fresh task (its own source alias, so its own empty checkpoints topic) whose first cycle
//! must emit G × 10 checkpoints, then STEADY cycles that find nothing new. Prints one
//! `RESULT groups=G kind=KIND ms=X` line per measurement (read by CycleBench.java).

use std::collections::HashSet;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::librdkafka::{self, AdminOutcome, RawAdmin};
use mm2_checkpoint::MirrorCheckpointConfig;
use rdkafka::config::ClientConfig;

const PARTITIONS: usize = 10;
const TIMEOUT: Duration = Duration::from_secs(120);
/// Requests outstanding per raw client: enough to keep the connection busy, few enough that
/// none waits in librdkafka's queue past its timeout (10,000 at once did on a loaded machine).
const MAX_IN_FLIGHT: usize = 256;

fn group_names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("cycle-group-{i:05}")).collect()
}

fn result(groups: usize, kind: &str, elapsed: Duration) {
    println!(
        "RESULT groups={groups} kind={kind} ms={:.3}",
        elapsed.as_secs_f64() * 1e3
    );
}

/// Every group's committed offsets through one raw admin client, 256 requests in flight: the
/// most one librdkafka client gets out of this broker for the same fetches.
fn raw_floor(source: &str, groups: &[String]) -> Duration {
    let admin = raw_admin(source);
    fetch_all(&admin, groups, &Barrier::new(1))
}

/// The same fetches spread over `clients` raw admin clients (one broker connection each), 256
/// in flight on each: what more connections would buy. Timed from when every client exists to
/// the last result.
fn raw_floor_spread(source: &str, groups: &[String], clients: usize) -> Duration {
    let ready = Barrier::new(clients);
    thread::scope(|s| {
        let workers: Vec<_> = (0..clients)
            .map(|k| {
                let part: Vec<String> = groups.iter().skip(k).step_by(clients).cloned().collect();
                let ready = &ready;
                s.spawn(move || {
                    let admin = raw_admin(source);
                    fetch_all(&admin, &part, ready)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("fetch thread"))
            .max()
            .unwrap_or_default()
    })
}

fn raw_admin(source: &str) -> RawAdmin {
    RawAdmin::new(
        ClientConfig::new()
            .set("bootstrap.servers", source)
            .create()
            .expect("admin client"),
    )
}

/// Fetches every group's offsets once all callers reached `ready`; returns the time taken.
fn fetch_all(admin: &RawAdmin, groups: &[String], ready: &Barrier) -> Duration {
    ready.wait();
    let began = Instant::now();
    let mut next = 0usize;
    let mut pending: HashSet<u64> = HashSet::new();
    let mut partitions = 0usize;
    let deadline = began + TIMEOUT;
    while next < groups.len() || !pending.is_empty() {
        while next < groups.len() && pending.len() < MAX_IN_FLIGHT {
            librdkafka::submit_list_group_offsets(
                admin.client(),
                admin.queue(),
                &groups[next],
                None,
                next as u64,
                TIMEOUT,
            );
            pending.insert(next as u64);
            next += 1;
        }
        assert!(Instant::now() < deadline, "raw fetch did not finish");
        let Some(r) = librdkafka::poll_admin_result(admin.queue(), Duration::from_millis(200))
        else {
            continue;
        };
        if pending.remove(&r.tag) {
            match r.outcome {
                AdminOutcome::GroupOffsets(gs) => {
                    partitions += gs.iter().map(|g| g.partitions.len()).sum::<usize>()
                }
                other => panic!("raw fetch: {other:?}"),
            }
        }
    }
    let elapsed = began.elapsed();
    assert_eq!(
        partitions,
        groups.len() * PARTITIONS,
        "raw fetch partitions"
    );
    elapsed
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [source, target, sizes, runs, steady] = args.as_slice() else {
        eprintln!("usage: interop_cycle SOURCE_BOOTSTRAP TARGET_BOOTSTRAP SIZES RUNS STEADY");
        std::process::exit(2);
    };
    let sizes: Vec<usize> = sizes
        .split(',')
        .map(|s| s.trim().parse().expect("SIZES"))
        .collect();
    let runs: usize = runs.parse().expect("RUNS");
    let steady: usize = steady.parse().expect("STEADY");
    let all = group_names(sizes.iter().copied().max().unwrap_or(0));
    for &g in &sizes {
        let groups = &all[..g];
        let assigned = groups.join(",");
        for run in 0..runs {
            result(g, "floor", raw_floor(source, groups));
            result(g, "floor4", raw_floor_spread(source, groups, 4));
            let alias = format!("r{g}x{run}");
            let props = [
                ("source.cluster.alias", alias.as_str()),
                ("target.cluster.alias", "B"),
                ("source.cluster.bootstrap.servers", source.as_str()),
                ("target.cluster.bootstrap.servers", target.as_str()),
                ("task.assigned.groups", assigned.as_str()),
                ("emit.checkpoints.interval.seconds", "0"),
                ("checkpoints.topic.replication.factor", "1"),
            ];
            let (config, _) = MirrorCheckpointConfig::from_properties(props).expect("config");
            let task = CheckpointTask::new(config).expect("task");
            task.start().expect("start");
            // The first poll waits (on the task's own condition) until both stores are loaded,
            // then runs the cycle; the task times the cycle alone (fetch, decide, write,
            // delivery confirmed), which is what is reported.
            let out = task.poll(TIMEOUT).expect("first poll");
            assert_eq!(
                out.status,
                PollStatus::CycleDone,
                "{:?}",
                task.fatal_error()
            );
            assert_eq!(out.checkpoints.len(), g * PARTITIONS, "first cycle");
            let first = task.stats().last_cycle_time.expect("cycle time");
            result(g, "first", first);
            for _ in 0..steady {
                let began = Instant::now();
                let out = task.poll(TIMEOUT).expect("steady poll");
                let wall = began.elapsed();
                assert_eq!(
                    out.status,
                    PollStatus::CycleDone,
                    "{:?}",
                    task.fatal_error()
                );
                assert!(out.checkpoints.is_empty(), "steady cycle emitted");
                result(g, "steady", wall);
            }
            task.stop().expect("stop");
            eprintln!("interop_cycle: {g} groups, run {run}: first cycle {first:?}");
        }
    }
}
