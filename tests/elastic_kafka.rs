//! `task.assignment=group` on real Apache Kafka, with checkpoint tasks in separate OS processes
//! (so `kill -9` is a real crash that never runs a destructor or leaves the group).
//!
//! The worker processes are this test binary itself, started again with `MM2_ELASTIC_WORKER`
//! naming a properties file: [`worker_process`] then runs one task until SIGINT, and prints the
//! coordination partitions it owns whenever they change. Without the variable that test returns
//! at once.
//!
//! The truth is read from the checkpoints topic itself: every record, in offset order, with its
//! timestamp. The test's driver moves every group's committed offset (and the offset sync that
//! translates it) forward all the time, so in steady state each group gets one checkpoint per
//! emit interval; a gap longer than that is time the group spent without an owner.
//!
//! Churn: every gap longer than a cycle is taken apart with the workers' own reports of the
//! coordination partitions they hold (sampled every 10 ms, with their times) and the test's
//! kills and interrupts: the owner's last checkpoint to its loss of the group, the loss to a
//! survivor's adoption, the adoption to its first checkpoint. The first and last parts are this
//! library's and have bounds of a cycle; the middle one, Kafka's failure detection and
//! rebalance plus the catch-up read, has the bound the rounds wait for a full cover with.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus};
use mm2_checkpoint::coordination_partition;
use mm2_checkpoint::parse_properties;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Message, Offset, TopicPartitionList};

use support::broker::{unique, Broker, BrokerOptions};
use support::kafka::client_config;
use support::{create_topic, create_topic_with_config, wait_until};

const PARTITIONS: u32 = 16;
const GROUPS: usize = 32;
const SESSION: Duration = Duration::from_millis(1500);
const EMIT: Duration = Duration::from_secs(1);
/// Slack on top of "session timeout plus one emit interval" for the rebalance round trips and
/// the catch-up read, and on top of a cycle's bounds for its own work and its scheduling delay:
/// in CI three worker processes share two cores with other test binaries and builds, and a
/// cycle's start was seen 700 ms late there.
const SLACK: Duration = Duration::from_millis(1000);
/// Slack on a cycle's own bounds (an owner's next checkpoint, an adopter's first): a cycle that
/// starts late and one whose Kafka calls wait for the loaded broker add up, and the whole CI run
/// keeps four test binaries, the JVM suites and a cross build busy on two cores: an owner's
/// checkpoints were seen 3.1 s apart there with a 1 s interval (all four groups of one worker at
/// once, so the worker, not a group's ownership, was late). A group its owner stops
/// checkpointing goes without checkpoints until it is handed over, far beyond this.
const CYCLE_SLACK: Duration = Duration::from_millis(2000);
const DRIVER_TICK: Duration = Duration::from_millis(250);
/// The workers' coordination heartbeat: members learn of a rebalance from a heartbeat, so this
/// paces every handover (well below the session timeout, as Kafka requires).
const HEARTBEAT: Duration = Duration::from_millis(100);
/// How long a worker's poll waits at most.
const WORKER_POLL: Duration = Duration::from_millis(50);
/// How often a worker samples the coordination partitions it holds, to report changes.
const REPORT_EVERY: Duration = Duration::from_millis(10);

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The worker side: runs when this binary is started by [`Worker::spawn`].
#[test]
fn worker_process() {
    let Ok(file) = std::env::var("MM2_ELASTIC_WORKER") else {
        return;
    };
    let text = std::fs::read_to_string(&file).expect("worker properties");
    let props = parse_properties(&text).expect("properties");
    let (config, _) = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .expect("config");
    let task = Arc::new(CheckpointTask::new(config).expect("task"));
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let (task, interrupted) = (Arc::clone(&task), Arc::clone(&interrupted));
        ctrlc::set_handler(move || {
            interrupted.store(true, Ordering::SeqCst);
            let _ = task.stop();
        })
        .expect("signal handler");
    }
    task.start().expect("start");
    // Ownership is reported from a thread of its own, sampled every REPORT_EVERY, so that a
    // report is not held back by the cycle an adoption starts (the poll below runs it).
    let reporter = {
        let task = Arc::clone(&task);
        Background::spawn(move |stop| {
            let mut before = None;
            let mut out = std::io::stdout();
            let list = |ps: &[i32]| ps.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
            while !stop.load(Ordering::SeqCst) {
                let now = task.coordination_partitions();
                if before.as_ref() != Some(&now) {
                    let (owned, pending) = &now;
                    let _ = writeln!(
                        out,
                        "partitions {} [{}] [{}]",
                        now_ms(),
                        list(owned),
                        list(pending)
                    );
                    let _ = out.flush();
                    before = Some(now);
                }
                std::thread::sleep(REPORT_EVERY); // sampling, not waiting for anything
            }
        })
    };
    while !interrupted.load(Ordering::SeqCst) {
        match task.poll(WORKER_POLL).expect("poll").status {
            PollStatus::Stopped => break,
            PollStatus::Failed => panic!("task failed: {:?}", task.fatal_error()),
            _ => {}
        }
    }
    drop(reporter);
    let mut out = std::io::stdout();
    task.stop().expect("stop");
    // Workers sharing the groups, handing them over, are no other writers of each other's.
    let others = task.metrics().task.other_writers;
    let _ = writeln!(
        out,
        "other-writers {} {:?}",
        others.checkpoints, others.writers
    );
    let _ = writeln!(out, "worker-stopped {}", now_ms());
    let _ = out.flush();
}

/// Something a worker said or the test did to it.
#[derive(Clone, Debug)]
enum Happened {
    /// The worker reported holding exactly these partitions: adopted (`owned`), and assigned
    /// but still being caught up (`pending`).
    Holds {
        owned: Vec<i32>,
        pending: Vec<i32>,
    },
    Spawned,
    Killed,
    Interrupted,
}

/// Everything that happened to the fleet, with the time (ms since the epoch) and worker slot;
/// a worker's reports carry the time the worker took, the test's actions the time it acted.
#[derive(Clone, Default)]
struct Timeline(Arc<Mutex<Vec<(i64, usize, Happened)>>>);

impl Timeline {
    fn record(&self, at_ms: i64, slot: usize, what: Happened) {
        self.0.lock().unwrap().push((at_ms, slot, what));
    }

    fn snapshot(&self) -> Vec<(i64, usize, Happened)> {
        let mut events = self.0.lock().unwrap().clone();
        events.sort_by_key(|e| e.0);
        events
    }
}

/// One worker process and what it last said it owns.
struct Worker {
    child: Child,
    slot: usize,
    timeline: Timeline,
    owned: Arc<Mutex<Vec<i32>>>,
    /// What the worker said of other writers when it stopped.
    other_writers: Arc<Mutex<Option<String>>>,
    alive: bool,
    reader: Option<JoinHandle<()>>,
}

impl Worker {
    fn spawn(
        config: &std::path::Path,
        log: &std::path::Path,
        slot: usize,
        timeline: &Timeline,
    ) -> Worker {
        timeline.record(now_ms(), slot, Happened::Spawned);
        let exe = std::env::current_exe().expect("test binary");
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("worker log");
        let mut child = Command::new(exe)
            .args([
                "--exact",
                "worker_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MM2_ELASTIC_WORKER", config)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn worker");
        let stdout = child.stdout.take().expect("piped stdout");
        let owned = Arc::new(Mutex::new(Vec::new()));
        let o = Arc::clone(&owned);
        let other_writers = Arc::new(Mutex::new(None));
        let ow = Arc::clone(&other_writers);
        let events = timeline.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("other-writers ") {
                    *ow.lock().unwrap() = Some(rest.to_string());
                    continue;
                }
                let Some(rest) = line.strip_prefix("partitions ") else {
                    continue;
                };
                let mut fields = rest.split(' ');
                let at = fields.next().unwrap_or_default();
                let mut list = || -> Vec<i32> {
                    fields
                        .next()
                        .unwrap_or_default()
                        .trim_matches(|c| c == '[' || c == ']')
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().expect("partition"))
                        .collect()
                };
                let (parts, pending) = (list(), list());
                events.record(
                    at.parse().expect("report time"),
                    slot,
                    Happened::Holds {
                        owned: parts.clone(),
                        pending,
                    },
                );
                *o.lock().unwrap() = parts;
            }
        });
        Worker {
            child,
            slot,
            timeline: timeline.clone(),
            owned,
            other_writers,
            alive: true,
            reader: Some(reader),
        }
    }

    fn owned(&self) -> Vec<i32> {
        if self.alive {
            self.owned.lock().unwrap().clone()
        } else {
            Vec::new()
        }
    }

    fn kill9(&mut self) {
        self.timeline.record(now_ms(), self.slot, Happened::Killed);
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
        self.alive = false;
    }

    /// SIGINT: the worker stops its task (leaving the group) and exits.
    fn interrupt(&mut self) {
        let pid = self.child.id().to_string();
        self.timeline
            .record(now_ms(), self.slot, Happened::Interrupted);
        let status = Command::new("kill").args(["-INT", &pid]).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -INT {pid}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.child.try_wait().expect("wait") {
                Some(status) => {
                    assert!(status.success(), "worker exited with {status}");
                    break;
                }
                None if Instant::now() > deadline => panic!("worker did not stop on SIGINT"),
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        self.alive = false;
        // The worker's stdout is at its end: its last lines are read.
        if let Some(reader) = self.reader.take() {
            reader.join().expect("stdout reader");
        }
        let said = self.other_writers.lock().unwrap().clone();
        assert_eq!(
            said.as_deref(),
            Some("0 []"),
            "worker {} found other writers",
            self.slot
        );
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.alive {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One checkpoint record as read back from the topic.
#[derive(Clone, Debug)]
struct Seen {
    group: String,
    upstream: i64,
    downstream: i64,
    timestamp_ms: i64,
}

/// A test thread that runs until its value is dropped (the drop sets the flag and joins).
struct Background {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Runs `body` on a new thread; `body` returns once the flag it gets is set.
    fn spawn(body: impl FnOnce(&AtomicBool) + Send + 'static) -> Background {
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        Background {
            stop,
            thread: Some(std::thread::spawn(move || body(&st))),
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Tails the checkpoints topic into a shared list until dropped.
struct CheckpointsReader {
    seen: Arc<Mutex<Vec<Seen>>>,
    /// The offset after the last record read.
    position: Arc<AtomicI64>,
    bootstrap: String,
    topic: String,
    _tail: Background,
}

impl CheckpointsReader {
    fn start(bootstrap: &str, topic: &str) -> CheckpointsReader {
        let consumer: BaseConsumer = client_config(bootstrap)
            .set("group.id", unique("elastic-reader"))
            .set("enable.auto.commit", "false")
            .set("fetch.wait.max.ms", "50")
            .create()
            .expect("reader");
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, 0, Offset::Beginning)
            .expect("tpl");
        consumer.assign(&tpl).expect("assign");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = Arc::clone(&seen);
        let position = Arc::new(AtomicI64::new(0));
        let pos = Arc::clone(&position);
        let tail = Background::spawn(move |stop| {
            while !stop.load(Ordering::SeqCst) {
                if let Some(Ok(m)) = consumer.poll(Duration::from_millis(100)) {
                    pos.store(m.offset() + 1, Ordering::SeqCst);
                    if let Ok(cp) = Checkpoint::decode(m.key(), m.payload()) {
                        s.lock().unwrap().push(Seen {
                            group: cp.consumer_group_id,
                            upstream: cp.upstream_offset,
                            downstream: cp.downstream_offset,
                            timestamp_ms: m.timestamp().to_millis().unwrap_or(0),
                        });
                    }
                }
            }
        });
        CheckpointsReader {
            seen,
            position,
            bootstrap: bootstrap.to_string(),
            topic: topic.to_string(),
            _tail: tail,
        }
    }

    /// Waits until every record written so far has been read.
    fn catch_up(&self) {
        let consumer: BaseConsumer = client_config(&self.bootstrap).create().expect("client");
        let (_, end) = consumer
            .fetch_watermarks(&self.topic, 0, Duration::from_secs(10))
            .expect("watermarks");
        wait_until(
            Duration::from_secs(30),
            "the reader reaches the end",
            || self.position.load(Ordering::SeqCst) >= end,
        );
    }

    fn snapshot(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Moves every group's committed offset forward, with an offset sync that translates it, as a
/// mirror and live consumers would, until dropped.
struct Driver;

impl Driver {
    fn start(bootstrap: &str, topic: &str, syncs_topic: &str, groups: &[String]) -> Background {
        let producer: ThreadedProducer<DefaultProducerContext> = client_config(bootstrap)
            .set("linger.ms", "0")
            .create()
            .expect("producer");
        let committers: Vec<BaseConsumer> = groups
            .iter()
            .map(|g| {
                client_config(bootstrap)
                    .set("group.id", g)
                    .set("enable.auto.commit", "false")
                    .create()
                    .expect("committer")
            })
            .collect();
        let (topic, syncs_topic) = (topic.to_string(), syncs_topic.to_string());
        Background::spawn(move |stop| {
            let mut offset = 0i64;
            while !stop.load(Ordering::SeqCst) {
                offset += 1;
                let sync = OffsetSync::new(TopicPartition::new(topic.clone(), 0), offset, offset);
                let (key, value) = (sync.encode_key().expect("key"), sync.encode_value());
                let _ = producer.send(
                    BaseRecord::to(&syncs_topic)
                        .partition(0)
                        .key(&key)
                        .payload(&value),
                );
                let _ = producer.flush(Duration::from_secs(5));
                for c in &committers {
                    let mut tpl = TopicPartitionList::new();
                    tpl.add_partition_offset(&topic, 0, Offset::Offset(offset))
                        .expect("tpl");
                    if let Err(e) = c.commit(&tpl, CommitMode::Sync) {
                        eprintln!("driver commit: {e}");
                    }
                }
                std::thread::sleep(DRIVER_TICK);
            }
        })
    }
}

/// Checkpoints that went backwards: per group, in topic order, an upstream or downstream offset
/// below the one before it (the driver never rewinds a group).
fn backwards(seen: &[Seen]) -> Vec<String> {
    let mut last: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    let mut bad = Vec::new();
    for s in seen {
        if let Some((up, down)) = last.get(s.group.as_str()) {
            if s.upstream < *up || s.downstream < *down {
                bad.push(format!(
                    "{}: ({up}, {down}) then ({}, {})",
                    s.group, s.upstream, s.downstream
                ));
            }
        }
        last.insert(&s.group, (s.upstream, s.downstream));
    }
    bad
}

/// Where one gap in a group's checkpoints went: from the owner's last checkpoint (`from`) to its
/// loss of the partition, from the loss to a worker's assignment and adoption of it (Kafka's
/// rebalance, then the catch-up read of the checkpoints topic), and from the adoption to the
/// next checkpoint (`to`). Without a loss, the owner kept the group and was merely late.
#[derive(Debug)]
struct GapParts {
    group: String,
    from: i64,
    to: i64,
    owner: Option<usize>,
    /// When and how the owner lost the partition: killed, interrupted or revoked.
    lost: Option<(i64, &'static str)>,
    /// When a worker next reported the partition assigned (pending or already adopted).
    assigned: Option<i64>,
    /// When and by whom the partition was next adopted.
    adopted: Option<(i64, usize)>,
}

impl GapParts {
    fn of(events: &[(i64, usize, Happened)], group: &str, from: i64, to: i64) -> GapParts {
        let partition = coordination_partition(group, PARTITIONS);
        let owns = |what: &Happened| matches!(what, Happened::Holds { owned, .. } if owned.contains(&partition));
        let holds = |what: &Happened| {
            matches!(what, Happened::Holds { owned, pending }
                if owned.contains(&partition) || pending.contains(&partition))
        };
        // The owner at `from` (a killed, interrupted or restarted worker owns nothing); failing
        // that, the first to report owning it within the gap (the adopting cycle's first
        // checkpoint can come before the report).
        let mut owned_at_from: BTreeMap<usize, bool> = BTreeMap::new();
        for (_, slot, what) in events.iter().take_while(|(at, _, _)| *at <= from) {
            owned_at_from.insert(*slot, owns(what));
        }
        let owner = owned_at_from
            .iter()
            .find(|(_, owning)| **owning)
            .map(|(slot, _)| *slot)
            .or_else(|| {
                events
                    .iter()
                    .find(|(at, _, what)| *at > from && *at <= to && owns(what))
                    .map(|(_, slot, _)| *slot)
            });
        let lost = owner.and_then(|o| {
            events
                .iter()
                .filter(|(at, slot, _)| *at > from && *at <= to && *slot == o)
                .find_map(|(at, _, what)| match what {
                    Happened::Killed => Some((*at, "was killed")),
                    Happened::Interrupted => Some((*at, "was interrupted")),
                    Happened::Holds { owned, .. } if !owned.contains(&partition) => {
                        Some((*at, "had it revoked"))
                    }
                    _ => None,
                })
        });
        let after_loss = |wanted: &dyn Fn(&Happened) -> bool| {
            lost.and_then(|(lost_at, _)| {
                events
                    .iter()
                    .find(|(at, _, what)| *at >= lost_at && wanted(what))
                    .map(|(at, slot, _)| (*at, *slot))
            })
        };
        GapParts {
            group: group.to_string(),
            from,
            to,
            owner,
            lost,
            assigned: after_loss(&holds).map(|(at, _)| at),
            adopted: after_loss(&owns),
        }
    }

    fn describe(&self) -> String {
        let mut text = format!(
            "{}: {} ms without a checkpoint",
            self.group,
            self.to - self.from
        );
        match (self.owner, self.lost) {
            (None, _) => text.push_str("; no owner reported"),
            (Some(o), None) => text.push_str(&format!("; worker {o} kept the partition")),
            (Some(o), Some((lost_at, how))) => {
                text.push_str(&format!(
                    "; worker {o} {how} {} ms after its last one",
                    lost_at - self.from
                ));
                if let Some(assigned) = self.assigned {
                    text.push_str(&format!(", assigned {} ms later", assigned - lost_at));
                }
                match self.adopted {
                    Some((adopted_at, by)) => text.push_str(&format!(
                        ", adopted by worker {by} {} ms after the loss, checkpointed {} ms after that",
                        adopted_at - lost_at,
                        self.to - adopted_at
                    )),
                    None => text.push_str(", no adoption reported"),
                }
            }
        }
        text
    }

    /// Which part of the gap broke its bound, if any (the module doc's "Churn"), with
    /// `handover` the bound from the loss to the adoption.
    fn check(&self, handover: Duration) -> Result<(), String> {
        let late_cycle = (2 * EMIT + CYCLE_SLACK).as_millis() as i64;
        // A partition adopted while a cycle runs is left to the next cycle (group_coordination's
        // rule), which starts an interval after the running one did: the adopter's first
        // checkpoint comes within the running cycle's rest plus one interval, the same bound as
        // an owner's next one.
        let first_cycle = late_cycle;
        let fail = |what: &str| Err(format!("{}: {what}", self.describe()));
        match (self.owner, self.lost, self.adopted) {
            (None, _, _) => fail("no worker reported owning it"),
            (Some(_), None, _) if self.to - self.from > late_cycle => fail(&format!(
                "its owner was more than a cycle late (bound {late_cycle} ms)"
            )),
            (Some(_), None, _) => Ok(()),
            (Some(_), Some(_), None) => fail("nobody adopted it"),
            (Some(_), Some((lost_at, _)), Some((adopted_at, _))) => {
                if lost_at - self.from > late_cycle {
                    fail(&format!("its owner stopped checkpointing it before losing it (bound {late_cycle} ms)"))
                } else if adopted_at - lost_at > handover.as_millis() as i64 {
                    fail(&format!(
                        "the handover took too long (bound {} ms)",
                        handover.as_millis()
                    ))
                } else if self.to - adopted_at > first_cycle {
                    fail(&format!(
                        "the adopter's first checkpoint was late (bound {first_cycle} ms)"
                    ))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// Every gap in each group's checkpoints between `from_ms` and `to_ms` as (group, start, end),
/// longest first (a group with no checkpoint in the window has the whole window as its gap).
fn checkpoint_gaps(
    seen: &[Seen],
    groups: &[String],
    from_ms: i64,
    to_ms: i64,
) -> Vec<(String, i64, i64)> {
    let mut gaps = Vec::new();
    for g in groups {
        let mut times: Vec<i64> = seen
            .iter()
            .filter(|s| &s.group == g && s.timestamp_ms > from_ms && s.timestamp_ms <= to_ms)
            .map(|s| s.timestamp_ms)
            .collect();
        times.insert(0, from_ms);
        times.push(to_ms);
        gaps.extend(times.windows(2).map(|w| (g.clone(), w[0], w[1])));
    }
    gaps.sort_by_key(|(_, from, to)| std::cmp::Reverse(to - from));
    gaps
}

struct Fleet {
    dir: std::path::PathBuf,
    workers: Vec<Worker>,
    timeline: Timeline,
}

impl Fleet {
    fn spawn(&mut self, slot: usize) {
        let config = self.dir.join("worker.properties");
        let log = self.dir.join(format!("worker-{slot}.log"));
        let w = Worker::spawn(&config, &log, slot, &self.timeline);
        if slot < self.workers.len() {
            self.workers[slot] = w;
        } else {
            self.workers.push(w);
        }
    }

    /// Partition → owning worker slot, when every partition has exactly one live owner.
    fn owners(&self) -> Option<BTreeMap<i32, usize>> {
        let mut owners = BTreeMap::new();
        for (slot, w) in self.workers.iter().enumerate() {
            for p in w.owned() {
                if owners.insert(p, slot).is_some() {
                    return None;
                }
            }
        }
        (owners.len() == PARTITIONS as usize).then_some(owners)
    }

    /// Waits until every partition has exactly one owner among the live workers, and each
    /// live worker owns some; returns when it happened.
    fn await_full_cover(&self, timeout: Duration, what: &str) -> BTreeMap<i32, usize> {
        let mut found = None;
        wait_until(timeout, what, || {
            found = self.owners().filter(|o| {
                let owning: BTreeSet<usize> = o.values().copied().collect();
                self.workers
                    .iter()
                    .enumerate()
                    .all(|(i, w)| !w.alive || owning.contains(&i))
            });
            found.is_some()
        });
        found.unwrap()
    }

    fn live(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|i| self.workers[*i].alive)
            .collect()
    }
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

#[test]
fn three_processes_share_the_groups_hand_them_over_on_crash_and_never_go_backwards() {
    if std::env::var("MM2_ELASTIC_WORKER").is_ok() {
        return;
    }
    let broker = Broker::start_with(&BrokerOptions {
        props: vec![
            ("group.min.session.timeout.ms".into(), "500".into()),
            ("group.initial.rebalance.delay.ms".into(), "0".into()),
        ],
        ..BrokerOptions::default()
    });
    let bootstrap = broker.bootstrap();
    let source = unique("src").replace('-', "_");
    let topic = unique("orders");
    let syncs_topic = "mm2-offset-syncs.B.internal".to_string();
    let checkpoints_topic = format!("{source}.checkpoints.internal");
    create_topic(&bootstrap, &topic, 1);
    create_topic(&bootstrap, &syncs_topic, 1);
    create_topic_with_config(
        &bootstrap,
        &checkpoints_topic,
        1,
        &[("cleanup.policy", "compact")],
    );
    let groups: Vec<String> = (0..GROUPS).map(|i| format!("{source}-group-{i}")).collect();

    let dir = std::env::temp_dir().join(unique("mm2-elastic"));
    std::fs::create_dir_all(&dir).unwrap();
    let properties = format!(
        "source.cluster.alias={source}\n\
         target.cluster.alias=B\n\
         source.cluster.bootstrap.servers={bootstrap}\n\
         target.cluster.bootstrap.servers={bootstrap}\n\
         topics={topic}\n\
         groups={source}-group-.*\n\
         task.assignment=group\n\
         task.coordination.partitions={PARTITIONS}\n\
         emit.checkpoints.interval.seconds={}\n\
         refresh.groups.interval.seconds=1\n\
         checkpoints.topic.replication.factor=1\n\
         consumer.session.timeout.ms={}\n\
         consumer.heartbeat.interval.ms={}\n",
        EMIT.as_secs(),
        SESSION.as_millis(),
        HEARTBEAT.as_millis()
    );
    std::fs::write(dir.join("worker.properties"), properties).unwrap();

    let driver = Driver::start(&bootstrap, &topic, &syncs_topic, &groups);
    let reader = CheckpointsReader::start(&bootstrap, &checkpoints_topic);
    let mut fleet = Fleet {
        dir: dir.clone(),
        workers: Vec::new(),
        timeline: Timeline::default(),
    };
    for slot in 0..3 {
        fleet.spawn(slot);
    }
    fleet.await_full_cover(
        Duration::from_secs(90),
        "three workers cover every partition",
    );
    wait_until(Duration::from_secs(60), "every group checkpointed", || {
        let seen = reader.snapshot();
        groups.iter().all(|g| seen.iter().any(|s| &s.group == g))
    });

    // Steady state: one checkpoint per group per cycle, i.e. no group checkpointed by two
    // processes (which would double its count: 12 in the window). The lower bound only says
    // the group is still checkpointed: cycles run late on a loaded machine (3 in the window
    // when CI ran this beside two other test binaries and three lanes on 2 cores).
    let from = now_ms();
    std::thread::sleep(Duration::from_secs(6)); // the window being measured, not a wait
    let to = now_ms();
    assert!(
        fleet.owners().is_some(),
        "ownership changed during the steady window"
    );
    let seen = reader.snapshot();
    for g in &groups {
        let n = seen
            .iter()
            .filter(|s| &s.group == g && s.timestamp_ms > from && s.timestamp_ms <= to)
            .count();
        assert!(
            (2..=7).contains(&n),
            "{g}: {n} checkpoints in a 6 s window at 1 per second"
        );
    }

    // kill -9 one: its groups are adopted within the session timeout plus one emit interval.
    // From the kill to the first checkpoint of each of its groups by a survivor.
    let bound = SESSION + EMIT + SLACK;
    let owners = fleet.owners().unwrap();
    let victim = 0;
    let victim_groups: Vec<&String> = groups
        .iter()
        .filter(|g| owners[&coordination_partition(g, PARTITIONS)] == victim)
        .collect();
    let killed_at = now_ms();
    fleet.workers[victim].kill9();
    fleet.await_full_cover(bound * 3, "survivors adopt the crashed worker's partitions");
    wait_until(bound * 2, "every victim group checkpointed again", || {
        let seen = reader.snapshot();
        victim_groups.iter().all(|g| {
            seen.iter()
                .any(|s| &s.group == *g && s.timestamp_ms > killed_at)
        })
    });
    let seen = reader.snapshot();
    let mut latencies: Vec<i64> = victim_groups
        .iter()
        .map(|g| {
            seen.iter()
                .filter(|s| &s.group == *g && s.timestamp_ms > killed_at)
                .map(|s| s.timestamp_ms - killed_at)
                .min()
                .unwrap()
        })
        .collect();
    latencies.sort_unstable();
    eprintln!(
        "adoption after kill -9 of 1 of 3 ({} groups): p50 {} ms, max {} ms (bound {} ms)",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 1.0),
        bound.as_millis()
    );
    assert!(
        percentile(&latencies, 1.0) <= bound.as_millis() as i64,
        "adoption took {latencies:?} ms"
    );

    // Restart it, then add a fourth: only about a quarter of the partitions move.
    fleet.spawn(victim);
    fleet.await_full_cover(Duration::from_secs(60), "the restarted worker gets a share");
    let before = fleet.await_full_cover(Duration::from_secs(60), "stable before the fourth");
    fleet.spawn(3);
    let after = fleet.await_full_cover(Duration::from_secs(60), "the fourth worker gets a share");
    let moved = before
        .iter()
        .filter(|(p, slot)| after.get(p) != Some(slot))
        .count();
    eprintln!(
        "adding a fourth worker moved {moved} of {PARTITIONS} partitions ({:.0}%)",
        100.0 * moved as f64 / PARTITIONS as f64
    );
    assert!(
        moved <= (PARTITIONS as usize).div_ceil(4) + 1,
        "{moved} partitions moved: {before:?} -> {after:?}"
    );

    // Churn: random kill -9 or graceful stop, then restart; no group unowned past the bound.
    // 6 rounds by default (CI: both kinds of stop, several times); scripts/soak.sh runs 50.
    let rounds: usize = match std::env::var("MM2_ELASTIC_ROUNDS") {
        Ok(r) => r
            .parse()
            .unwrap_or_else(|_| panic!("MM2_ELASTIC_ROUNDS={r:?} is not a count")),
        Err(_) => 6,
    };
    let mut rng = mm2_checkpoint_prng(0x5eed);
    let churn_from = now_ms();
    let mut adoptions = Vec::new();
    for round in 0..rounds {
        let live = fleet.live();
        let slot = live[(rng() % live.len() as u64) as usize];
        let crash = rng() % 2 == 0;
        let began = Instant::now();
        if crash {
            fleet.workers[slot].kill9();
        } else {
            fleet.workers[slot].interrupt();
        }
        fleet.await_full_cover(
            bound * 3,
            &format!("round {round}: survivors cover worker {slot}'s partitions"),
        );
        adoptions.push((crash, began.elapsed().as_millis() as i64));
        fleet.spawn(slot);
        fleet.await_full_cover(
            Duration::from_secs(60),
            &format!("round {round}: worker {slot} back with a share"),
        );
    }
    let churn_to = now_ms() - 2 * EMIT.as_millis() as i64;
    let seen = reader.snapshot();
    let gaps = checkpoint_gaps(&seen, &groups, churn_from, churn_to);
    let (worst_group, worst_gap) = gaps
        .first()
        .map_or((String::new(), 0), |(g, from, to)| (g.clone(), to - from));
    let mut crash_covers: Vec<i64> = adoptions.iter().filter(|a| a.0).map(|a| a.1).collect();
    let mut stop_covers: Vec<i64> = adoptions.iter().filter(|a| !a.0).map(|a| a.1).collect();
    crash_covers.sort_unstable();
    stop_covers.sort_unstable();
    eprintln!(
        "churn: {rounds} rounds; partitions re-covered after kill -9 p50 {} / max {} ms, after \
         a graceful stop p50 {} / max {} ms; longest time without a checkpoint {worst_gap} ms \
         ({worst_group})",
        percentile(&crash_covers, 0.5),
        percentile(&crash_covers, 1.0),
        percentile(&stop_covers, 0.5),
        percentile(&stop_covers, 1.0),
    );
    // Every gap longer than a cycle, taken apart: the parts this library controls (the owner
    // checkpoints until it loses the group, the adopter checkpoints at once) have bounds of a
    // cycle; the handover between them, Kafka's failure detection and rebalance plus the
    // catch-up read, has the bound the rounds above wait for a full cover with. (A single bound
    // on the whole gap, session + 2 emit intervals + slack, failed in three runs of the whole
    // suite on a slow two-core machine, at 4.1 to 7.6 s, without saying which part was slow.)
    let events = fleet.timeline.snapshot();
    let longer_than = (EMIT + SLACK).as_millis() as i64;
    let parts: Vec<GapParts> = gaps
        .iter()
        .filter(|(_, from, to)| to - from > longer_than)
        .map(|(g, from, to)| GapParts::of(&events, g, *from, *to))
        .collect();
    let handovers = parts.iter().filter(|p| p.lost.is_some()).count();
    eprintln!(
        "{} gaps longer than {longer_than} ms ({handovers} across a handover); the longest:",
        parts.len()
    );
    for p in parts.iter().take(5) {
        eprintln!("  {}", p.describe());
    }
    let broken: Vec<String> = parts
        .iter()
        .filter_map(|p| p.check(bound * 3).err())
        .collect();
    assert!(
        broken.is_empty(),
        "gaps that broke a bound:\n{}",
        broken.join("\n")
    );

    for slot in fleet.live() {
        fleet.workers[slot].interrupt();
    }
    drop(driver);
    reader.catch_up();
    let seen = reader.snapshot();
    drop(reader);
    let bad = backwards(&seen);
    eprintln!(
        "{} checkpoints read back, {} backwards",
        seen.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "checkpoints went backwards: {bad:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small deterministic generator for the churn's choices.
fn mm2_checkpoint_prng(seed: u64) -> impl FnMut() -> u64 {
    let mut g = mm2_checkpoint::splitmix::SplitMix64(seed);
    move || g.next_u64()
}
