//! What the task's metrics cost a checkpoint cycle. Two tasks on the same groups (G
//! groups × 10 partitions on an embedded mock cluster, so that the broker's noise is small), one
//! recording metrics and one not (`set_metrics_recording(false)`, a benchmark hook), polled in
//! turn in the same run: the first cycle (every checkpoint written) once each, then steady
//! cycles (nothing new, every partition `not_newer_than_last_checkpoint`) alternating. The
//! ratios on / off of wall time and of this process's CPU time are the figures; a snapshot's
//! cost (`metrics()` and its JSON) is measured beside them.

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};

use crate::cycle::{group_names, setup, PARTITIONS, TARGET};
use crate::stats::{cpu_ms, millis, mmm, ms, Dist, Table};
use crate::{task_config, Cluster, Opts};

/// One size's figures, for the growth table.
pub struct MetricsResult {
    pub groups: usize,
    pub steady_wall_ratio: f64,
    pub steady_cpu_ratio: f64,
    pub snapshot_ms: f64,
    pub bytes_per_partition: f64,
}

fn started_task(
    cluster: &dyn Cluster,
    alias: &str,
    groups: &[String],
    record: bool,
) -> CheckpointTask {
    cluster.create_topic(&format!("{alias}.checkpoints.internal"), 1);
    let assigned = groups.join(",");
    let config = task_config(
        alias,
        TARGET,
        &cluster.bootstrap(),
        &[
            ("task.assigned.groups", assigned.as_str()),
            ("emit.checkpoints.interval.seconds", "0"),
        ],
    );
    let task = CheckpointTask::new(config).expect("task");
    task.set_metrics_recording(record);
    task.start().expect("start");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !task.stats().initialized {
        assert!(Instant::now() < deadline, "metrics task did not initialize");
        std::thread::sleep(Duration::from_millis(5));
    }
    task
}

/// One cycle: (wall ms, this process's CPU ms, checkpoints written).
fn cycle(task: &CheckpointTask) -> (f64, f64, usize) {
    let cpu = cpu_ms("self");
    let began = Instant::now();
    let out = task.poll(Duration::from_secs(300)).expect("poll");
    let wall = ms(began.elapsed());
    assert_eq!(
        out.status,
        PollStatus::CycleDone,
        "{:?}",
        task.fatal_error()
    );
    let cpu = cpu.zip(cpu_ms("self")).map_or(f64::NAN, |(a, b)| b - a);
    (wall, cpu, out.checkpoints.len())
}

pub fn run(opts: &Opts, cluster: &dyn Cluster, table: &mut Table) -> Vec<MetricsResult> {
    let sizes: &[usize] = if opts.quick {
        &[1_000]
    } else {
        &[1_000, 10_000]
    };
    let rounds = if opts.quick { 5 } else { 9 };
    let max = sizes.iter().copied().max().unwrap_or(0);
    eprintln!("[metrics] committing offsets for {max} groups × {PARTITIONS} partitions");
    setup(cluster, max);
    let all = group_names(max);
    let mut results = Vec::new();
    for &g in sizes {
        let groups = &all[..g];
        let on = started_task(cluster, &format!("mon{g}"), groups, true);
        let off = started_task(cluster, &format!("moff{g}"), groups, false);
        // What the first cycle leaves allocated (the checkpoint store, the reports and, with
        // metrics on, the per-partition metrics): the difference is the metrics' memory.
        let live = crate::alloc::live_bytes();
        let first_on = cycle(&on);
        let kept_on = crate::alloc::live_bytes() - live;
        let live = crate::alloc::live_bytes();
        let first_off = cycle(&off);
        let kept_off = crate::alloc::live_bytes() - live;
        assert_eq!(
            first_on.2,
            g * PARTITIONS as usize,
            "first cycle, metrics on"
        );
        assert_eq!(
            first_off.2,
            g * PARTITIONS as usize,
            "first cycle, metrics off"
        );
        let (mut wall, mut cpu) = ((vec![], vec![]), (vec![], vec![]));
        for round in 0..rounds {
            // Alternating which goes first, so neither always meets a warmer cache.
            let order: [(&CheckpointTask, bool); 2] = if round % 2 == 0 {
                [(&on, true), (&off, false)]
            } else {
                [(&off, false), (&on, true)]
            };
            for (task, recording) in order {
                let (w, c, written) = cycle(task);
                assert_eq!(written, 0, "a steady cycle writes nothing");
                let (wall_side, cpu_side) = if recording {
                    (&mut wall.0, &mut cpu.0)
                } else {
                    (&mut wall.1, &mut cpu.1)
                };
                wall_side.push(w);
                cpu_side.push(c);
            }
        }
        let mut snapshot = vec![];
        for _ in 0..rounds {
            let began = Instant::now();
            let json = on.metrics().to_json();
            snapshot.push(ms(began.elapsed()));
            assert!(
                json.len() > g * PARTITIONS as usize * 100,
                "a partition entry each"
            );
        }
        let (wall_on, wall_off) = (Dist::new(wall.0), Dist::new(wall.1));
        let (cpu_on, cpu_off) = (Dist::new(cpu.0), Dist::new(cpu.1));
        let snapshot = Dist::new(snapshot);
        let wall_ratio = wall_on.median() / wall_off.median();
        let cpu_ratio = cpu_on.median() / cpu_off.median();
        eprintln!(
            "[metrics] {g} groups: steady wall ratio {wall_ratio:.3}, CPU ratio {cpu_ratio:.3}"
        );
        let size = format!("{g} groups × {PARTITIONS}");
        table.row(vec![
            "cycle with metrics, first (emits all)".into(),
            size.clone(),
            millis(first_on.0),
            format!("metrics off: {}", millis(first_off.0)),
            format!("{:.3}", first_on.0 / first_off.0),
        ]);
        let per_partition = (kept_on - kept_off) as f64 / (g * PARTITIONS as usize) as f64;
        table.row(vec![
            "memory kept by the first cycle".into(),
            size.clone(),
            format!("{:.1} MiB", kept_on as f64 / 1048576.0),
            format!("metrics off: {:.1} MiB", kept_off as f64 / 1048576.0),
            format!("{per_partition:.0} B per group × partition for metrics"),
        ]);
        table.row(vec![
            "cycle with metrics, steady: wall".into(),
            size.clone(),
            mmm(&wall_on, millis),
            format!("metrics off: {}", mmm(&wall_off, millis)),
            format!("{wall_ratio:.3}"),
        ]);
        table.row(vec![
            "cycle with metrics, steady: CPU of this process".into(),
            size.clone(),
            mmm(&cpu_on, millis),
            format!("metrics off: {}", mmm(&cpu_off, millis)),
            format!("{cpu_ratio:.3}"),
        ]);
        table.row(vec![
            "metrics snapshot + JSON".into(),
            size,
            mmm(&snapshot, millis),
            format!("steady cycle: {}", millis(wall_on.median())),
            format!("{:.3}", snapshot.median() / wall_on.median()),
        ]);
        results.push(MetricsResult {
            groups: g,
            steady_wall_ratio: wall_ratio,
            steady_cpu_ratio: cpu_ratio,
            snapshot_ms: snapshot.median(),
            bytes_per_partition: per_partition,
        });
    }
    results
}
