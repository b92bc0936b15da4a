//! The Rust half of the start-up load comparison (interop/run.sh load; BENCHMARKS.md, "Against
//! Java MM2", "Start-up load"), driven by interop's `LoadStart.java`.
//!
//! ```text
//! interop_load seed BOOTSTRAP TOPIC RECORDS
//!     writes RECORDS offset syncs (benches/support/seed.rs: workload.rs's stream, 1,000
//!     upstream partitions, seed 7) to partition 0 of TOPIC and waits for all of them, as the
//!     bench example's load section seeds its topics; prints `RESULT records=N secs=S`.
//! interop_load ours BOOTSTRAP [key=value ...]
//!     one start-up load of the offset-syncs topic of a task configured as MM2's would be
//!     (source alias A, target alias B, both clusters at BOOTSTRAP, so the topic is
//!     `mm2-offset-syncs.B.internal`), through `CheckpointTask::bench_load_offset_syncs`:
//!     consumer creation, read to end, decoding, the store's lock per batch. Extra key=value
//!     pairs are added to the task's properties (e.g. `source.consumer.fetch.max.bytes=...`).
//!     Prints `RESULT records=N secs=S`.
//! ```

#[path = "../benches/support/seed.rs"]
mod seed;
#[path = "../benches/support/workload.rs"]
mod workload;

use std::time::Duration;

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::MirrorCheckpointConfig;

fn usage() -> ! {
    eprintln!(
        "usage: interop_load seed BOOTSTRAP TOPIC RECORDS | interop_load ours BOOTSTRAP [key=value ...]"
    );
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("seed") if args.len() == 4 => {
            let records: usize = args[3].parse().unwrap_or_else(|_| usage());
            let took = seed::seed_syncs(&args[1], &args[2], records);
            println!("RESULT records={records} secs={:.6}", took.as_secs_f64());
        }
        Some("ours") if args.len() >= 2 => {
            let extra: Vec<(&str, &str)> = args[2..]
                .iter()
                .map(|kv| kv.split_once('=').unwrap_or_else(|| usage()))
                .collect();
            let (records, took) = ours(&args[1], &extra);
            println!("RESULT records={records} secs={:.6}", took.as_secs_f64());
        }
        _ => usage(),
    }
}

fn ours(bootstrap: &str, extra: &[(&str, &str)]) -> (u64, Duration) {
    let mut props = vec![
        ("source.cluster.alias", "A"),
        ("target.cluster.alias", "B"),
        ("source.cluster.bootstrap.servers", bootstrap),
        ("target.cluster.bootstrap.servers", bootstrap),
        ("task.assigned.groups", "load-group"),
        ("checkpoints.topic.replication.factor", "1"),
    ];
    props.extend_from_slice(extra);
    let (config, _) = MirrorCheckpointConfig::from_properties(props).expect("task config");
    let task = CheckpointTask::new(config).expect("task");
    let loaded = task.bench_load_offset_syncs().expect("start-up load");
    drop(task);
    loaded
}
