//! CheckpointTask when what holds its offset syncs fails, on real Apache Kafka brokers: the
//! source broker crashes during the offset-sync load and comes back with its data, and the
//! offset-syncs topic is deleted under the tail.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, PollStatus, StartupHooks};
use mm2_checkpoint::stop_signal::StopSignal;
use mm2_checkpoint::OffsetSync;

use support::create_topic_with_config;
use support::kafka::delete_topic;
use support::names::FlowNames;
use support::runtime::{
    assert_no_leaks, captured_logs, clear_logs, install_logger, poll_until_emitted, produce_syncs,
    produce_syncs_with, serial, sorted, Latch,
};
use support::{wait_until, Broker};

/// Hang detector for anything that should be prompt.
const PROMPT: Duration = Duration::from_secs(2);

/// `f`'s topics on both sides: its replicated topic (2 partitions) and the internal topics,
/// created compacted.
fn create_topics(f: &FlowNames) {
    f.create_source_topics(2);
    f.create_target_topics(2, true);
}

/// The source broker (which holds the offset syncs) is SIGKILLed while the task is loading
/// them, and restarted on its own log dir: the load waits, then finishes with every sync, and
/// the tail goes on applying new ones. The start-up hook holds the load at its first read
/// until the broker is dead, so the kill lands inside the load every time.
///
/// That needs a consumer that cannot have fetched every sync before the kill: librdkafka starts
/// fetching at the assignment, before the first read, and by default fetches ahead up to 64 MB,
/// so a fetch answered before the kill once held all 20,000 and the load completed with the
/// broker down (a 3 s pause in the hook before the kill makes that happen every time). The
/// syncs are written in 16 KB batches and the consumer fetches one at a time,
/// queueing no more until it is read: with the same pause, the load then waits as it should.
#[test]
fn source_broker_killed_during_the_sync_load_and_restarted_with_its_data_the_load_completes() {
    const SYNC_RECORDS: i64 = 20_000;
    let _g = serial();
    install_logger();
    // Only the source is killed: it is this test's own broker; the target is the shared one.
    let mut source = Broker::start();
    let f = FlowNames::on(&source.bootstrap(), &support::shared_pair().1.bootstrap());
    let syncs: Vec<OffsetSync> = (0..SYNC_RECORDS)
        .map(|i| f.sync((i % 2) as i32, i / 2 * 10, i / 2 * 10))
        .collect();
    create_topics(&f);
    produce_syncs_with(&f.s, &f.syncs, &syncs, &[("batch.size", "16384")]);
    f.commit("g1", &[(0, 99_990, ""), (1, 99_995, "")]);

    let (reading, killed) = (Latch::new(), Latch::new());
    let hooks = StartupHooks {
        checkpoint_store_reading: None,
        offset_sync_store_reading: Some(Arc::new({
            let (reading, killed) = (reading.clone(), killed.clone());
            move |_: &StopSignal| {
                reading.open();
                killed.wait(Duration::from_secs(60), "the test to kill the source");
            }
        })),
        ..StartupHooks::default()
    };
    let group = f.group("g1");
    let props = [
        ("task.assigned.groups", group.as_str()),
        // One fetch of 16 KB at a time, and none ahead of what the load has read.
        ("source.consumer.max.partition.fetch.bytes", "16384"),
        ("source.consumer.queued.min.messages", "1"),
        ("source.consumer.queued.max.messages.kbytes", "16"),
    ];
    let task = CheckpointTask::with_hooks(f.config(&props), hooks).unwrap();
    task.start().unwrap();
    wait_until(
        Duration::from_secs(30),
        "the offset-sync load to begin",
        || reading.is_open() || task.fatal_error().is_some(),
    );
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
    source.kill();
    killed.open();
    // The load cannot finish while the source is down (a cycle would need it).
    let down = Instant::now();
    while down.elapsed() < Duration::from_secs(3) {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        assert_eq!(
            out.status,
            PollStatus::NotReady,
            "{out:?}, fatal {:?}",
            task.fatal_error()
        );
    }
    let stats = task.stats();
    assert!(!stats.initialized);
    assert!(stats.syncs_loaded < SYNC_RECORDS as u64, "{stats:?}");
    eprintln!(
        "{} of {SYNC_RECORDS} syncs loaded with the source down",
        stats.syncs_loaded
    );
    source.restart();
    eprintln!(
        "source restarted with its data in {:?}",
        source.startup_time()
    );
    wait_until(Duration::from_secs(60), "the load completes", || {
        task.stats().initialized
    });
    let stats = task.stats();
    assert_eq!(stats.syncs_loaded, SYNC_RECORDS as u64, "{stats:?}");
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
    let mut emitted = Vec::new();
    while emitted.len() < 2 {
        emitted.extend(poll_until_emitted(&task, Duration::from_secs(30)));
    }
    // Both partitions' newest sync is 99,990 → 99,990: a commit on it translates exactly, one
    // past it to the next downstream offset.
    assert_eq!(
        sorted(emitted),
        vec![f.cp("g1", 0, 99_990, 99_990), f.cp("g1", 1, 99_995, 99_991)]
    );
    // The tail reconnected too: a sync written after the restart is applied.
    produce_syncs(&f.s, &f.syncs, &[f.sync(1, 100_000, 200_000)], false);
    wait_until(
        Duration::from_secs(30),
        "the tail applies a new sync",
        || task.stats().syncs_loaded == SYNC_RECORDS as u64 + 1,
    );
    let began = Instant::now();
    task.stop().unwrap();
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
    assert_no_leaks();
}

/// The offset-syncs topic is deleted while the tail thread reads it. Pins what happens today:
/// the task neither hangs nor fails, keeps what it translated, and its stop stays prompt; a
/// topic recreated under the same name is followed again from its start.
#[test]
fn offset_syncs_topic_deleted_while_the_tail_reads_it_the_task_keeps_running_and_stops_promptly() {
    let _g = serial();
    install_logger();
    // Deleting this test's own topic disturbs no other test: the shared brokers.
    let f = FlowNames::shared();
    create_topics(&f);
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 100, 90)],
        false,
    );
    let s = f.s.clone();
    f.commit("g1", &[(0, 150, "")]);
    let task = CheckpointTask::new(f.config(&[("task.assigned.groups", &f.group("g1"))])).unwrap();
    task.start().unwrap();
    assert_eq!(
        poll_until_emitted(&task, Duration::from_secs(30)),
        vec![f.cp("g1", 0, 150, 91)]
    );
    clear_logs();
    delete_topic(&s, &f.syncs);
    // Cycles go on without the topic: nothing new to emit, no failure.
    let cycles = task.stats().cycles;
    wait_until(
        Duration::from_secs(60),
        "two cycles after the deletion",
        || {
            let out = task.poll(Duration::from_millis(500)).unwrap();
            assert_ne!(out.status, PollStatus::Failed, "{:?}", task.fatal_error());
            task.stats().cycles >= cycles + 2
        },
    );
    assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
    let reported: Vec<_> = captured_logs()
        .into_iter()
        .filter(|l| l.level <= log::Level::Warn)
        .collect();
    eprintln!("after deleting {}: {reported:#?}", f.syncs);

    // Recreated and written again: the tail follows the new topic.
    create_topic_with_config(&s, &f.syncs, 1, &[("cleanup.policy", "compact")]);
    produce_syncs(&s, &f.syncs, &[f.sync(0, 200, 190)], false);
    f.commit("g1", &[(0, 250, "")]);
    let recreated = Instant::now();
    let followed = loop {
        let out = task.poll(Duration::from_millis(500)).unwrap();
        if out.checkpoints.contains(&f.cp("g1", 0, 250, 191)) {
            break true;
        }
        if recreated.elapsed() > Duration::from_secs(30) {
            break false;
        }
    };
    eprintln!(
        "recreated {}: new sync {} (syncs applied {})",
        f.syncs,
        if followed { "followed" } else { "NOT followed" },
        task.stats().syncs_loaded
    );
    assert!(followed, "{:#?}", captured_logs());
    let began = Instant::now();
    task.stop().unwrap();
    assert!(began.elapsed() < PROMPT, "stop took {:?}", began.elapsed());
    assert_no_leaks();
}
