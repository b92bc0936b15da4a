//! Measures how quickly a stop wakes the library's blocked Kafka waits. The StopSignal yields
//! each client's librdkafka queue (`rd_kafka_queue_yield`); without it a blocked wait would only
//! notice the stop at the end of its 500 ms slice. Prints p50/p99/max per scenario; asserts only
//! a generous hang bound, a median far below the poll slice, and that the waits really were
//! blocked.
//!
//! Waits are kept blocked by giving the source mock broker a long round-trip time, so no answer
//! arrives while the stop is measured. Several tasks run side by side (their waits are idle, not
//! busy) so that ~50 samples per scenario take seconds, not minutes.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks};
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{OffsetSync, TopicPartition};

use support::runtime::{assert_no_leaks, install_logger, serial, Events, Latch, Latencies, Prng};
use support::{commit_group_offsets, produce_many, wait_until, MockPair};

const SYNCS: &str = "mm2-offset-syncs.target.internal";
const TARGET_SYNCS: &str = "mm2-offset-syncs.source.internal";
const CHECKPOINTS: &str = "source.checkpoints.internal";
/// Tasks measured side by side per round.
const PER_ROUND: usize = 10;
/// Rounds per scenario (PER_ROUND × ROUNDS samples).
const ROUNDS: usize = 5;
/// A round trip long enough that no answer arrives during a measurement.
const SLOW_RTT: Duration = Duration::from_secs(4);
/// Hang detector only.
const HANG: Duration = Duration::from_secs(2);
const SEED: u64 = 0x5EED_0F57_0B1E;

fn sync_record(p: i32, up: i64, down: i64) -> (Vec<u8>, Vec<u8>) {
    let s = OffsetSync::new(TopicPartition::new("orders", p), up, down);
    (s.encode_key().unwrap(), s.encode_value())
}

/// A mock pair with the topics, a few offset syncs on both clusters and a committed group.
fn pair() -> MockPair {
    let m = MockPair::new();
    m.create_source_topic("orders", 1);
    m.create_source_topic(SYNCS, 1);
    m.create_target_topic("source.orders", 1);
    m.create_target_topic(CHECKPOINTS, 1);
    m.create_target_topic(TARGET_SYNCS, 1);
    let syncs = [sync_record(0, 0, 0), sync_record(0, 100, 90)];
    let records: Vec<_> = syncs
        .iter()
        .map(|(k, v)| (Some(k.as_slice()), Some(v.as_slice())))
        .collect();
    produce_many(&m.source_bootstrap(), SYNCS, 0, &records);
    produce_many(&m.target_bootstrap(), TARGET_SYNCS, 0, &records);
    commit_group_offsets(&m.source_bootstrap(), "g1", &[("orders", 0, 150, "")]);
    m
}

fn config(m: &MockPair, extra: &[(&str, &str)]) -> MirrorCheckpointConfig {
    let (source, target) = (m.source_bootstrap(), m.target_bootstrap());
    let mut props = vec![
        ("source.cluster.alias", "source"),
        ("target.cluster.alias", "target"),
        ("source.cluster.bootstrap.servers", source.as_str()),
        ("target.cluster.bootstrap.servers", target.as_str()),
        ("task.assigned.groups", "g1"),
        ("emit.checkpoints.interval.seconds", "1"),
    ];
    props.extend_from_slice(extra);
    MirrorCheckpointConfig::from_properties(props).unwrap().0
}

/// One measured stop: the time from the stop flag to `joined` (the wait of interest woke and
/// its thread returned), and the whole stop (including closing the clients).
struct Sample {
    wake: Duration,
    stop: Duration,
}

fn stop_and_measure(task: &CheckpointTask, events: &Events, joined: &str) -> Sample {
    let began = Instant::now();
    task.stop().unwrap();
    let stop = began.elapsed();
    let wake = events.at(joined).saturating_sub(events.at("stop flag set"));
    Sample { wake, stop }
}

fn report(scenario: &str, samples: &[Sample]) {
    let mut wake = Latencies::new();
    let mut stop = Latencies::new();
    for s in samples {
        wake.push(s.wake);
        stop.push(s.stop);
    }
    eprintln!(
        "{}",
        wake.summary(&format!("{scenario}: stop flag → blocked thread returned"))
    );
    eprintln!("{}", stop.summary(&format!("{scenario}: whole stop")));
    assert!(wake.max() < HANG, "{}", wake.summary(scenario));
    // A working yield wakes in well under a millisecond; without it the median is the rest of a
    // 500 ms poll slice (~250–400 ms measured with the yield disabled).
    assert!(
        wake.percentile(50.0) < Duration::from_millis(100),
        "the queue yield does not seem to wake blocked waits: {}",
        wake.summary(scenario)
    );
    assert!(stop.max() < HANG, "{}", stop.summary(scenario));
}

#[test]
fn wake_latency_of_stop_while_the_offset_sync_load_is_blocked_in_a_consumer_poll() {
    let _g = serial();
    install_logger();
    let m = pair();
    m.source
        .broker_round_trip_time(1, SLOW_RTT)
        .expect("slow source broker");
    let mut rng = Prng::new(SEED);
    eprintln!("seed {SEED:#x}");
    let mut samples = Vec::new();
    for _ in 0..ROUNDS {
        let mut round = Vec::new();
        for _ in 0..PER_ROUND {
            let events = Events::new();
            let reading = Latch::new();
            let (ev, r) = (events.clone(), reading.clone());
            let hooks = StartupHooks {
                checkpoint_store_reading: None,
                offset_sync_store_reading: Some(Arc::new(move |_: &StopSignal| {
                    ev.push("offset-sync load reading");
                    r.open();
                })),
                ..StartupHooks::default()
            };
            let task = CheckpointTask::with_hooks(config(&m, &[]), hooks).unwrap();
            events.observe(&task);
            task.start().unwrap();
            round.push((task, events, reading));
        }
        for (task, events, reading) in &round {
            reading.wait(
                Duration::from_secs(30),
                "the offset-sync load to start reading",
            );
            // Let the load settle into its consumer poll (a measurement delay, not a sync).
            thread::sleep(Duration::from_millis(rng.between(10, 60)));
            let stats = task.stats();
            assert!(!stats.initialized && stats.syncs_loaded == 0, "{stats:?}");
            samples.push(stop_and_measure(task, events, "joined scheduler"));
        }
    }
    report("offset-sync load blocked in consumer poll", &samples);
    assert_no_leaks();
}

#[test]
fn wake_latency_of_stop_while_the_offset_sync_tail_is_blocked_in_a_consumer_poll() {
    let _g = serial();
    install_logger();
    let m = pair();
    let mut rng = Prng::new(SEED ^ 1);
    let mut samples = Vec::new();
    for _ in 0..ROUNDS {
        let mut round = Vec::new();
        for _ in 0..PER_ROUND {
            let events = Events::new();
            let task = CheckpointTask::new(config(&m, &[])).unwrap();
            events.observe(&task);
            task.start().unwrap();
            round.push((task, events));
        }
        for (task, events) in &round {
            wait_until(Duration::from_secs(30), "the stores are loaded", || {
                task.stats().initialized
            });
            thread::sleep(Duration::from_millis(rng.between(10, 60)));
            samples.push(stop_and_measure(task, events, "joined tail"));
        }
    }
    report("offset-sync tail blocked in consumer poll", &samples);
    assert_no_leaks();
}

#[test]
fn wake_latency_of_stop_while_poll_is_blocked_in_an_admin_request() {
    let _g = serial();
    install_logger();
    let m = pair();
    m.source
        .broker_round_trip_time(1, SLOW_RTT)
        .expect("slow source broker");
    let mut rng = Prng::new(SEED ^ 2);
    let mut samples = Vec::new();
    for _ in 0..ROUNDS {
        thread::scope(|s| {
            let mut round = Vec::new();
            for _ in 0..PER_ROUND {
                let events = Events::new();
                // Offset syncs on the (fast) target; only the source admin is slow.
                let task = Arc::new(
                    CheckpointTask::new(config(&m, &[("offset-syncs.topic.location", "target")]))
                        .unwrap(),
                );
                events.observe(&task);
                task.start().unwrap();
                let t = Arc::clone(&task);
                let poller = s.spawn(move || loop {
                    let out = t.poll(Duration::from_secs(30)).unwrap();
                    if out.status == PollStatus::Stopped {
                        return out;
                    }
                    assert_ne!(out.status, PollStatus::Failed, "{:?}", t.fatal_error());
                });
                round.push((task, events, poller));
            }
            for (task, events, poller) in round {
                wait_until(
                    Duration::from_secs(30),
                    "a checkpoint cycle is running",
                    || task.stats().cycles > 0,
                );
                thread::sleep(Duration::from_millis(rng.between(10, 60)));
                assert_eq!(
                    task.stats().checkpoints_emitted,
                    0,
                    "the cycle was not blocked"
                );
                samples.push(stop_and_measure(&task, &events, "poll returned"));
                assert_eq!(poller.join().unwrap().status, PollStatus::Stopped);
            }
        });
    }
    report("poll blocked in a source admin request", &samples);
    assert_no_leaks();
}
