//! The KAFKA-21435 reproducer on mm2-checkpoint: start→stop churn of `CheckpointTask` against a
//! real cluster whose offset-syncs topic was seeded by the interop harness (interop/run.sh churn).
//!
//! Each cycle drives the task as Connect's WorkerSourceTask drives Java's: one worker thread calls
//! `start` and then polls; the main thread calls `stop` a random 0–50 ms after `start` began, so
//! most stops land while the stores are still loading. After each stop it checks the library's
//! diagnostics: no library thread and no Kafka client may be left.
//!
//! ```text
//! interop_churn SOURCE_BOOTSTRAP TARGET_BOOTSTRAP CYCLES SEED
//! ```
//!
//! Prints one `RESULT key=value ...` line (read by interop's Churn.java) and exits 0, or 1 when an
//! error or a leak was seen.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::diagnostics;
use mm2_checkpoint::MirrorCheckpointConfig;

/// Counts every warning and error the library logs, by a short kind (its target).
struct CountingLogger {
    seen: Mutex<BTreeMap<String, u64>>,
    total: AtomicU64,
}

impl log::Log for CountingLogger {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        self.total.fetch_add(1, Ordering::SeqCst);
        let kind = format!("logged {} {}", record.level(), record.target());
        *self.seen.lock().unwrap().entry(kind).or_default() += 1;
        eprintln!("{} {}: {}", record.level(), record.target(), record.args());
    }

    fn flush(&self) {}
}

static LOGGER: CountingLogger = CountingLogger {
    seen: Mutex::new(BTreeMap::new()),
    total: AtomicU64::new(0),
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [source, target, cycles, seed] = args.as_slice() else {
        eprintln!("usage: interop_churn SOURCE_BOOTSTRAP TARGET_BOOTSTRAP CYCLES SEED");
        std::process::exit(2);
    };
    let cycles: usize = cycles.parse().expect("CYCLES");
    let mut rng: u64 = seed.parse().expect("SEED");
    log::set_logger(&LOGGER).expect("no other logger in this program");
    log::set_max_level(log::LevelFilter::Warn);

    let props = [
        ("source.cluster.alias", "A"),
        ("target.cluster.alias", "B"),
        ("source.cluster.bootstrap.servers", source.as_str()),
        ("target.cluster.bootstrap.servers", target.as_str()),
        ("task.assigned.groups", "churn-group"),
        ("emit.checkpoints.interval.seconds", "1"),
        ("checkpoints.topic.replication.factor", "1"),
    ];
    let (config, _) = MirrorCheckpointConfig::from_properties(props).expect("config");

    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut stops_ms: Vec<f64> = Vec::with_capacity(cycles);
    let (mut leaked_clients, mut leaked_threads, mut leak_cycles) = (0usize, 0usize, 0usize);
    let mut stopped_while_loading = 0usize;
    for _ in 0..cycles {
        rng = splitmix(rng);
        let delay = Duration::from_micros(rng % 50_001);
        let task = Arc::new(CheckpointTask::new(config.clone()).expect("task"));
        let (began_tx, began_rx) = mpsc::channel();
        let worker = {
            let task = Arc::clone(&task);
            thread::spawn(move || -> Vec<String> {
                let mut errs = Vec::new();
                began_tx.send(Instant::now()).unwrap();
                if let Err(e) = task.start() {
                    errs.push(format!("start: {e:?}"));
                    return errs;
                }
                loop {
                    match task.poll(Duration::from_millis(200)) {
                        Ok(out) if out.status == PollStatus::Stopped => break,
                        Ok(out) if out.status == PollStatus::Failed => {
                            errs.push(format!("poll failed: {:?}", task.fatal_error()));
                            break;
                        }
                        Ok(_) => {}
                        Err(e) => {
                            errs.push(format!("poll: {e:?}"));
                            break;
                        }
                    }
                }
                errs
            })
        };
        let began = began_rx.recv().unwrap();
        thread::sleep(delay.saturating_sub(began.elapsed()));
        if !task.stats().initialized {
            stopped_while_loading += 1;
        }
        // A stop that wins the race with start (start not yet registered) leaves the task
        // startable, as documented; Connect would stop again, so do we.
        let t0 = Instant::now();
        loop {
            match task.stop() {
                Ok(_) => break,
                Err(mm2_checkpoint::Error::NotStarted) => thread::yield_now(),
                Err(e) => {
                    *errors.entry(format!("stop: {e:?}")).or_default() += 1;
                    break;
                }
            }
        }
        stops_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        let (clients, threads) = (diagnostics::live_clients(), diagnostics::live_threads());
        for e in worker.join().expect("worker thread panicked") {
            *errors.entry(e).or_default() += 1;
        }
        if let Some(f) = task.fatal_error() {
            *errors.entry(format!("fatal: {f}")).or_default() += 1;
        }
        if clients + threads > 0 {
            leak_cycles += 1;
            leaked_clients += clients;
            leaked_threads += threads;
        }
    }
    for (k, v) in LOGGER.seen.lock().unwrap().iter() {
        *errors.entry(k.clone()).or_default() += v;
    }
    let concurrent = diagnostics::concurrent_client_access();
    if concurrent > 0 {
        errors.insert("concurrent client access".into(), concurrent);
    }
    stops_ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let total_errors: u64 = errors.values().sum();
    let kinds: Vec<String> = errors.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    println!(
        "RESULT cycles={cycles} loading={stopped_while_loading} errors={total_errors} leak_cycles={leak_cycles} \
         leaked_clients={leaked_clients} leaked_threads={leaked_threads} p50={:.2} p99={:.2} max={:.2} kinds={}",
        pct(&stops_ms, 0.50),
        pct(&stops_ms, 0.99),
        stops_ms.last().copied().unwrap_or(0.0),
        if kinds.is_empty() { "none".into() } else { kinds.join("; ").replace(' ', "_") },
    );
    if total_errors > 0 || leak_cycles > 0 {
        std::process::exit(1);
    }
}

fn pct(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
