//! End-to-end benchmarks, printed as markdown (paste into BENCHMARKS.md).
//!
//! ```text
//! cargo run --release --example bench            # full run (tens of minutes on 2 cores)
//! cargo run --release --example bench -- --quick # smaller sizes, about two minutes
//! cargo run --release --example bench -- --only store,load
//! ```
//!
//! Sections: `store` (the offset-sync store, pure), `load` (the start-up load, mock cluster and
//! Apache Kafka), `cycle` (the checkpoint cycle, Kafka), `latency` (commit → checkpoint latency
//! per offsets source, Kafka), `stop` (Kafka and a closed port); the cost growth table is built
//! from them; `metrics` (mock cluster) the cost of the task's metrics. The Kafka broker comes
//! from scripts/kafka-broker.sh (tests/support/broker.rs).
//! Every measurement runs beside its baseline in the same invocation; ratios are the numbers to
//! trust on a noisy machine. Progress goes to stderr, the report to stdout.

#[path = "../../benches/support/seed.rs"]
mod seed;
#[path = "../../benches/support/workload.rs"]
mod workload;

mod alloc;
mod cycle;
mod latency;
mod load;
mod metrics;
mod stats;
mod stop;
mod store;

use std::time::Instant;

use mm2_checkpoint::MirrorCheckpointConfig;

use stats::{millis, rate, Table};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// Command-line options.
pub struct Opts {
    pub quick: bool,
    sections: Vec<String>,
}

impl Opts {
    fn parse() -> Opts {
        let mut opts = Opts {
            quick: false,
            sections: vec![],
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--quick" => opts.quick = true,
                "--only" => {
                    let list = args.next().unwrap_or_default();
                    opts.sections = list.split(',').map(str::to_string).collect();
                }
                "--bench" => {} // cargo bench passes this to every target
                other => {
                    eprintln!(
                        "usage: bench [--quick] [--only store,load,cycle,latency,stop,metrics] (got {other})"
                    );
                    std::process::exit(2);
                }
            }
        }
        opts
    }

    fn wants(&self, section: &str) -> bool {
        self.sections.is_empty() || self.sections.iter().any(|s| s == section)
    }
}

/// A cluster the end-to-end sections run against.
pub trait Cluster {
    fn bootstrap(&self) -> String;
    fn create_topic(&self, name: &str, partitions: i32);
    /// The broker's process id, when it is a process of its own (for its CPU time).
    fn broker_pid(&self) -> Option<String> {
        None
    }
}

impl Cluster for support::Broker {
    fn bootstrap(&self) -> String {
        support::Broker::bootstrap(self)
    }
    fn create_topic(&self, name: &str, partitions: i32) {
        support::create_topic(&support::Broker::bootstrap(self), name, partitions);
    }
    fn broker_pid(&self) -> Option<String> {
        Some(self.pid().to_string())
    }
}

impl Cluster for support::Mock {
    fn bootstrap(&self) -> String {
        self.bootstrap_servers()
    }
    fn create_topic(&self, name: &str, partitions: i32) {
        support::create_mock_topic(self, name, partitions);
    }
}

/// A task config with both sides on `bootstrap` (one broker plays source and target).
pub fn task_config(
    source: &str,
    target: &str,
    bootstrap: &str,
    extra: &[(&str, &str)],
) -> MirrorCheckpointConfig {
    let mut props = vec![
        ("source.cluster.alias", source),
        ("target.cluster.alias", target),
        ("source.cluster.bootstrap.servers", bootstrap),
        ("target.cluster.bootstrap.servers", bootstrap),
    ];
    if !extra.iter().any(|(k, _)| *k == "task.assigned.groups") {
        props.push(("task.assigned.groups", ""));
    }
    props.extend_from_slice(extra);
    MirrorCheckpointConfig::from_properties(props)
        .expect("bench config")
        .0
}

fn machine() -> String {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown".to_string(), |m| m.trim().to_string());
    let mem = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal"))
        .map_or("unknown".to_string(), |l| l.trim().to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = read("/proc/sys/kernel/osrelease");
    format!(
        "- cores (nproc): {cores}\n- CPU model: {model}\n- memory: {mem}\n- kernel: {}\n- Apache Kafka: {} (single node, KRaft, scripts/kafka-broker.sh)",
        kernel.trim(),
        kafka_version()
    )
}

/// The Kafka version the launcher runs (from scripts/kafka/pom.xml via the launcher).
fn kafka_version() -> String {
    std::process::Command::new(support::broker::script())
        .arg("version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    let opts = Opts::parse();
    let began = Instant::now();
    let mut table = Table::new(&[
        "item",
        "size",
        "measured (min / median / max)",
        "same-run baseline",
        "ratio / verdict",
    ]);
    let mut growth = Table::new(&["dimension", "size", "cost"]);

    if opts.wants("store") {
        for r in store::run(&opts, &mut table) {
            growth.row(vec![
                "store partitions".into(),
                r.partitions.to_string(),
                format!(
                    "ingest {}, translate {}, {:.0} B/partition → {:.1} MiB",
                    rate(r.ingest.median()),
                    rate(r.translate.median()),
                    r.bytes_per_partition,
                    r.bytes_per_partition * r.partitions as f64 / 1048576.0
                ),
            ]);
        }
    }

    if opts.wants("metrics") {
        let mock = support::mock_cluster(1);
        for r in metrics::run(&opts, &mock, &mut table) {
            growth.row(vec![
                "metrics on / off (steady cycle)".into(),
                r.groups.to_string(),
                format!(
                    "wall {:.3}, CPU {:.3}; a snapshot with its JSON {}; {:.0} B per group × partition",
                    r.steady_wall_ratio,
                    r.steady_cpu_ratio,
                    millis(r.snapshot_ms),
                    r.bytes_per_partition
                ),
            ]);
        }
    }

    let needs_broker = ["load", "cycle", "stop", "latency"]
        .iter()
        .any(|s| opts.wants(s));
    let kafka = needs_broker.then(support::Broker::start);
    let mut stop_inputs = stop::StopInputs {
        load_records: 0,
        load_ms: 0.0,
        cycle_groups: None,
    };
    if let Some(kafka) = &kafka {
        if opts.wants("load") {
            let mock = support::mock_cluster(1);
            let clusters: [(&'static str, &dyn Cluster); 2] = [("mock", &mock), ("kafka", kafka)];
            for r in load::run(&opts, &clusters, &mut table) {
                growth.row(vec![
                    format!("offset-syncs records ({})", r.cluster),
                    r.records.to_string(),
                    format!(
                        "library {} ({} per 1M), raw {}, task start→initialized {}; produced in {}",
                        rate(r.ours.median()),
                        millis(1e9 / r.ours.median()),
                        rate(r.raw.median()),
                        millis(r.task_ms.median()),
                        millis(r.produce.as_secs_f64() * 1e3)
                    ),
                ]);
                if r.cluster == "kafka" && r.records >= stop_inputs.load_records {
                    stop_inputs.load_records = r.records;
                    stop_inputs.load_ms = r.records as f64 / r.ours.median() * 1e3;
                }
            }
        }
        if opts.wants("cycle") {
            for r in cycle::run(&opts, kafka, &mut table) {
                growth.row(vec![
                    "groups × 10 partitions".into(),
                    r.groups.to_string(),
                    format!(
                        "first cycle {} ({:.0} µs/group), steady {} ({:.0} µs/group); raw all-in-flight fetch {}, raw sequential {}; CPU during a steady cycle: bench process {:.2} cores, Kafka {:.2} cores",
                        millis(r.first.median()),
                        r.first.median() * 1e3 / r.groups as f64,
                        millis(r.steady.median()),
                        r.steady.median() * 1e3 / r.groups as f64,
                        millis(r.raw_all.median()),
                        r.raw_seq.as_ref().map_or("—".into(), |d| millis(d.median())),
                        r.client_cpu,
                        r.broker_cpu,
                    ),
                ]);
                stop_inputs.cycle_groups = Some((r.groups, r.first.median()));
            }
        }
        if opts.wants("latency") {
            latency::run(&opts, kafka, &mut table);
        }
        if opts.wants("stop") {
            if stop_inputs.load_records == 0 {
                let records = if opts.quick { 100_000 } else { 1_000_000 };
                let alias = load::target_alias(records);
                let topic = format!("mm2-offset-syncs.{alias}.internal");
                kafka.create_topic(&topic, 1);
                load::produce_syncs(&kafka.bootstrap(), &topic, records);
                let (_, t) = load::raw_read(&kafka.bootstrap(), &topic);
                stop_inputs.load_records = records;
                stop_inputs.load_ms = t.as_secs_f64() * 1e3;
            }
            stop::run(&opts, kafka, &stop_inputs, &mut table);
        }
    }

    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("## Run of {}\n", chrono_free_now());
    println!(
        "Command: `cargo run --release --example bench{}{}` ({} mode, {:.0} s)\n",
        if args.is_empty() { "" } else { " -- " },
        args.join(" "),
        if opts.quick { "quick" } else { "full" },
        began.elapsed().as_secs_f64()
    );
    println!("Machine:\n{}\n", machine());
    println!("{}", table.render());
    println!("### Cost growth (medians)\n");
    println!("{}", growth.render());
}

/// Seconds since the epoch, as `date -u` would print it (no date crate needed).
fn chrono_free_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    // Civil-from-days (Howard Hinnant's algorithm), enough for a report header.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}
