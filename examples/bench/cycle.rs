//! Item 3 (and part of 5): one checkpoint cycle over G groups × 10 partitions on Kafka, beside
//! raw admin fetches of the same groups' committed offsets in the same run: all requests in
//! flight at once (the I/O floor) and one group at a time (how Java MM2's checkpoint task asks,
//! one blocking `listConsumerGroupOffsets` per group).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::librdkafka::{self, AdminOutcome, QueueHandle, RawAdmin};
use mm2_checkpoint::OffsetSync;
use mm2_checkpoint::TopicPartition;
use rdkafka::client::Client;
use rdkafka::config::ClientConfig;
use rdkafka::producer::DefaultProducerContext;

use crate::load::produce_records;
use crate::stats::{cpu_ms, millis, mmm, ms, Dist, Table};
use crate::{task_config, Cluster, Opts};

/// Partitions per group (the P).
pub const PARTITIONS: i32 = 10;
/// Target alias of the cycle runs (names their offset-syncs topic).
pub const TARGET: &str = "cyc";
const ADMIN_TIMEOUT: Duration = Duration::from_secs(60);

/// The benchmark's consumer group names.
pub fn group_names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("bench-group-{i:05}")).collect()
}

/// Results kept for the growth table.
pub struct CycleResult {
    pub groups: usize,
    pub first: Dist,
    pub steady: Dist,
    pub raw_all: Dist,
    pub raw_seq: Option<Dist>,
    /// CPU cores busy in this process during a steady cycle (median; 1.0 = one core).
    pub client_cpu: f64,
    /// CPU cores busy in the broker process during a steady cycle (median).
    pub broker_cpu: f64,
}

/// Creates `orders` (10 partitions) and the offset syncs for it, and commits offsets for `count`
/// groups with one admin client keeping 64 AlterConsumerGroupOffsets requests in flight.
/// Returns how long the commits took.
pub fn setup(cluster: &dyn Cluster, count: usize) -> Duration {
    let bootstrap = cluster.bootstrap();
    cluster.create_topic("orders", PARTITIONS);
    let syncs_topic = format!("mm2-offset-syncs.{TARGET}.internal");
    cluster.create_topic(&syncs_topic, 1);
    let syncs: Vec<OffsetSync> = (0..PARTITIONS)
        .flat_map(|p| {
            (0..=10).map(move |i| {
                OffsetSync::new(TopicPartition::new("orders", p), i * 100, i * 100 + 5)
            })
        })
        .collect();
    produce_records(&bootstrap, &syncs_topic, &syncs);
    let offsets: Vec<(String, i32, i64, String)> = (0..PARTITIONS)
        .map(|p| {
            (
                "orders".to_string(),
                p,
                500 + i64::from(p) * 10,
                String::new(),
            )
        })
        .collect();
    let began = Instant::now();
    let groups = group_names(count);
    let results = admin_round_complete(
        &bootstrap,
        &groups,
        64,
        |client, queue, group, tag| {
            librdkafka::submit_alter_group_offsets(
                client,
                queue,
                group,
                &offsets,
                tag,
                ADMIN_TIMEOUT,
            )
        },
        |outcome| {
            matches!(outcome, AdminOutcome::GroupOffsets(gs)
            if !gs.iter().any(|g| g.error.is_some() || g.partitions.iter().any(|p| p.error.is_some())))
        },
    );
    for (group, outcome) in groups.iter().zip(results) {
        match outcome {
            AdminOutcome::GroupOffsets(gs) => {
                let bad = gs
                    .iter()
                    .any(|g| g.error.is_some() || g.partitions.iter().any(|p| p.error.is_some()));
                assert!(!bad, "committing offsets of {group}: {gs:?}");
            }
            other => panic!("committing offsets of {group}: {other:?}"),
        }
    }
    began.elapsed()
}

/// Submits one admin request per group with at most `in_flight` outstanding and returns the
/// outcomes in group order.
fn admin_round(
    bootstrap: &str,
    groups: &[String],
    in_flight: usize,
    submit: impl Fn(&Client<DefaultProducerContext>, &QueueHandle, &str, u64),
) -> Vec<AdminOutcome> {
    let admin = RawAdmin::new(
        ClientConfig::new()
            .set("bootstrap.servers", bootstrap)
            .create()
            .expect("admin handle"),
    );
    let (client, queue) = (admin.client(), admin.queue());
    let mut out: Vec<Option<AdminOutcome>> = (0..groups.len()).map(|_| None).collect();
    let mut pending: HashMap<u64, usize> = HashMap::new();
    let (mut next, mut done) = (0usize, 0usize);
    let deadline = Instant::now() + ADMIN_TIMEOUT * 10;
    while done < groups.len() {
        while next < groups.len() && pending.len() < in_flight {
            let tag = next as u64 + 1;
            submit(client, queue, &groups[next], tag);
            pending.insert(tag, next);
            next += 1;
        }
        assert!(Instant::now() < deadline, "admin round did not finish");
        if let Some(r) = librdkafka::poll_admin_result(queue, Duration::from_millis(200)) {
            if let Some(i) = pending.remove(&r.tag) {
                out[i] = Some(r.outcome);
                done += 1;
            }
        }
    }
    out.into_iter().map(|o| o.expect("every outcome")).collect()
}

/// Rounds of [`admin_round`] a group is asked in at most.
const ATTEMPTS: usize = 5;

/// As [`admin_round`], asking again, in up to [`ATTEMPTS`] rounds, for every group whose outcome
/// `complete` refuses: a broker just started answers `CoordinatorLoadInProgress` for a while, and
/// one with thousands of requests queued lets some of them time out. The retries' time counts.
fn admin_round_complete(
    bootstrap: &str,
    groups: &[String],
    in_flight: usize,
    submit: impl Fn(&Client<DefaultProducerContext>, &QueueHandle, &str, u64),
    complete: impl Fn(&AdminOutcome) -> bool,
) -> Vec<AdminOutcome> {
    let mut out = admin_round(bootstrap, groups, in_flight, &submit);
    for _ in 1..ATTEMPTS {
        let again: Vec<usize> = (0..groups.len()).filter(|&i| !complete(&out[i])).collect();
        if again.is_empty() {
            break;
        }
        eprintln!(
            "[cycle] asking {} of {} groups again",
            again.len(),
            groups.len()
        );
        let names: Vec<String> = again.iter().map(|&i| groups[i].clone()).collect();
        for (i, outcome) in again
            .into_iter()
            .zip(admin_round(bootstrap, &names, in_flight, &submit))
        {
            out[i] = outcome;
        }
    }
    out
}

/// Fetches every group's committed offsets with a raw admin client; returns the time taken.
fn raw_fetch(bootstrap: &str, groups: &[String], in_flight: usize) -> Duration {
    let began = Instant::now();
    let results = admin_round_complete(
        bootstrap,
        groups,
        in_flight,
        |client, queue, group, tag| {
            librdkafka::submit_list_group_offsets(client, queue, group, None, tag, ADMIN_TIMEOUT)
        },
        |outcome| {
            matches!(outcome, AdminOutcome::GroupOffsets(gs)
            if gs.iter().map(|g| g.partitions.len()).sum::<usize>() == PARTITIONS as usize)
        },
    );
    let elapsed = began.elapsed();
    let partitions: usize = results
        .iter()
        .map(|r| match r {
            AdminOutcome::GroupOffsets(gs) => gs.iter().map(|g| g.partitions.len()).sum(),
            _ => 0,
        })
        .sum();
    assert_eq!(partitions, groups.len() * PARTITIONS as usize, "raw fetch");
    elapsed
}

pub fn run(opts: &Opts, cluster: &dyn Cluster, table: &mut Table) -> Vec<CycleResult> {
    let sizes: &[usize] = if opts.quick {
        &[100, 1_000]
    } else {
        &[100, 1_000, 10_000]
    };
    let runs = if opts.quick { 2 } else { 3 };
    let steady_polls = 3;
    let max = sizes.iter().copied().max().unwrap_or(0);
    eprintln!("[cycle] committing offsets for {max} groups × {PARTITIONS} partitions");
    let setup_time = setup(cluster, max);
    eprintln!("[cycle] setup took {setup_time:?}");
    table.row(vec![
        "setup: commit offsets".into(),
        format!("{max} groups × {PARTITIONS}"),
        millis(ms(setup_time)),
        "AlterConsumerGroupOffsets, 64 in flight".into(),
        "—".into(),
    ]);
    let bootstrap = cluster.bootstrap();
    let broker = cluster.broker_pid();
    let all = group_names(max);
    let mut results = Vec::new();
    for &g in sizes {
        let groups = &all[..g];
        let (mut first, mut steady, mut raw_all, mut raw_seq) = (vec![], vec![], vec![], vec![]);
        let (mut client_cpu, mut broker_cpu) = (vec![], vec![]);
        for run in 0..runs {
            raw_all.push(ms(raw_fetch(&bootstrap, groups, usize::MAX)));
            // One run of the sequential baseline is enough to show its slope (it is long).
            if run == 0 {
                raw_seq.push(ms(raw_fetch(&bootstrap, groups, 1)));
            }
            let alias = format!("c{g}r{run}");
            cluster.create_topic(&format!("{alias}.checkpoints.internal"), 1);
            let assigned = groups.join(",");
            let config = task_config(
                &alias,
                TARGET,
                &bootstrap,
                &[
                    ("task.assigned.groups", assigned.as_str()),
                    ("emit.checkpoints.interval.seconds", "0"),
                ],
            );
            let task = CheckpointTask::new(config).expect("task");
            task.start().expect("start");
            let deadline = Instant::now() + Duration::from_secs(120);
            while !task.stats().initialized {
                assert!(Instant::now() < deadline, "cycle task did not initialize");
                std::thread::sleep(Duration::from_millis(5));
            }
            let began = Instant::now();
            let out = task.poll(Duration::from_secs(300)).expect("poll");
            let t_first = began.elapsed();
            assert_eq!(
                out.status,
                PollStatus::CycleDone,
                "{:?}",
                task.fatal_error()
            );
            assert_eq!(
                out.checkpoints.len(),
                g * PARTITIONS as usize,
                "first cycle"
            );
            first.push(ms(t_first));
            for _ in 0..steady_polls {
                let cpu_before = (cpu_ms("self"), broker.as_deref().and_then(cpu_ms));
                let began = Instant::now();
                let out = task.poll(Duration::from_secs(300)).expect("poll");
                assert_eq!(out.status, PollStatus::CycleDone);
                let wall = ms(began.elapsed());
                steady.push(wall);
                if let ((Some(a0), Some(b0)), Some(a1), Some(b1)) = (
                    cpu_before,
                    cpu_ms("self"),
                    broker.as_deref().and_then(cpu_ms),
                ) {
                    client_cpu.push((a1 - a0) / wall);
                    broker_cpu.push((b1 - b0) / wall);
                }
            }
            drop(task);
            eprintln!(
                "[cycle] {g} groups run {run}: first {t_first:?}, raw all-in-flight {:.1} ms",
                raw_all.last().copied().unwrap_or(f64::NAN)
            );
        }
        let (first, steady, raw_all) = (Dist::new(first), Dist::new(steady), Dist::new(raw_all));
        let raw_seq = Dist::new(raw_seq);
        table.row(vec![
            "checkpoint cycle, first (emits all)".into(),
            format!("{g} groups × {PARTITIONS}"),
            format!(
                "{} ({:.1} µs/group)",
                mmm(&first, millis),
                first.median() * 1e3 / g as f64
            ),
            format!("raw fetch, all in flight: {}", mmm(&raw_all, millis)),
            format!("{:.2}", raw_all.median() / first.median()),
        ]);
        table.row(vec![
            "checkpoint cycle, steady (nothing new)".into(),
            format!("{g} groups × {PARTITIONS}"),
            format!(
                "{} ({:.1} µs/group)",
                mmm(&steady, millis),
                steady.median() * 1e3 / g as f64
            ),
            format!(
                "raw fetch one group at a time (Java MM2's pattern): {}",
                millis(raw_seq.median())
            ),
            format!("{:.1}× faster", raw_seq.median() / steady.median()),
        ]);
        let (client_cpu, broker_cpu) = (Dist::new(client_cpu), Dist::new(broker_cpu));
        results.push(CycleResult {
            client_cpu: client_cpu.median(),
            broker_cpu: broker_cpu.median(),
            groups: g,
            first,
            steady,
            raw_all,
            raw_seq: Some(raw_seq),
        });
    }
    results
}
