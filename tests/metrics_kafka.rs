//! The task's metrics on two real Apache Kafka brokers: MM2's checkpoint latency, the replay
//! bound, freshness and the group offset sync's counts (written, left because the target group
//! is active, is past the translated offset or already holds it), from the Rust snapshot and
//! from the statistics listener's JSON.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::metrics::MetricsSnapshot;

use support::kafka::commit_group_offsets;
use support::kafka::ActiveMember;
use support::names::FlowNames;
use support::runtime::{
    assert_no_leaks, install_logger, poll_until_emitted, produce_syncs, serial,
};
use support::{committed_offsets, produce_batched, wait_until};

const EMIT_WAIT: Duration = Duration::from_secs(30);

#[test]
fn latency_replay_bound_freshness_and_group_offset_sync_counts_on_real_brokers() {
    let _g = serial();
    install_logger();
    let f = FlowNames::shared();
    f.create_source_topics(2);
    f.create_target_topics(2, true);
    let syncs = [
        f.sync(0, 0, 0),
        f.sync(0, 100, 90),
        f.sync(1, 0, 0),
        f.sync(1, 50, 40),
    ];
    produce_syncs(&f.s, &f.syncs, &syncs, false);
    let filler: Vec<support::Record<'_>> = vec![(None, Some(b"x")); 120];
    produce_batched(&f.t, &f.remote, 0, &filler);
    produce_batched(&f.t, &f.remote, 1, &filler);
    for g in ["idle", "active", "ahead"] {
        f.commit(g, &[(0, 150, ""), (1, 50, "")]);
    }
    let member = ActiveMember::join(&f.t, &f.group("active"), &f.remote);
    // An idle target group whose consumers went on past the translation (91 and 40).
    commit_group_offsets(
        &f.t,
        &f.group("ahead"),
        &[
            (f.remote.as_str(), 0, 100, ""),
            (f.remote.as_str(), 1, 45, ""),
        ],
    );

    let task = CheckpointTask::new(f.config(&[
        (
            "task.assigned.groups",
            &f.groups(&["idle", "active", "ahead"]),
        ),
        ("sync.group.offsets.enabled", "true"),
        ("sync.group.offsets.interval.seconds", "1"),
        ("statistics.interval.ms", "100"),
    ]))
    .unwrap();
    let documents: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&documents);
    task.set_metrics_listener(Some(Arc::new(move |m: &MetricsSnapshot| {
        sink.lock().unwrap().push(m.to_json());
    })))
    .unwrap();
    let began = Instant::now();
    task.start().unwrap();
    let mut emitted = 0;
    while emitted < 6 {
        emitted += poll_until_emitted(&task, EMIT_WAIT).len();
    }
    wait_until(
        Duration::from_secs(30),
        "the idle target group gets its offsets",
        || {
            committed_offsets(&f.t, &f.group("idle"), &f.remote, &[0, 1])
                .into_iter()
                .map(|c| c.offset)
                .collect::<Vec<_>>()
                == [Some(91), Some(40)]
        },
    );
    // The run that wrote them also left the active group's two offsets and the ahead group's
    // two; a later run finds the idle group's two up to date.
    wait_until(Duration::from_secs(10), "the sync run's counts", || {
        let s = task.metrics().task.group_offset_sync;
        s.written >= 2 && s.left_active >= 2 && s.left_ahead >= 2 && s.left_up_to_date >= 2
    });
    let m = task.metrics();
    let within = began.elapsed();

    let s = &m.task.group_offset_sync;
    assert_eq!((s.written, s.refused), (2, 0), "{s:?}");
    // Every run since the checkpoints exist leaves the active group's two offsets.
    assert!(
        s.left_active >= 2 && s.left_active % 2 == 0 && s.left_active <= 2 * s.runs,
        "{s:?}"
    );
    let last = s.last_run.as_ref().expect("a run");
    assert_eq!(last.left_active, 2, "{s:?}");
    assert!(s.left_ahead % 2 == 0 && s.left_ahead <= 2 * s.runs, "{s:?}");
    assert_eq!((last.ahead, s.left_unknown_state), (2, 0), "{s:?}");
    assert_eq!(
        committed_offsets(&f.t, &f.group("ahead"), &f.remote, &[0, 1])
            .into_iter()
            .map(|c| c.offset)
            .collect::<Vec<_>>(),
        [Some(100), Some(45)],
        "an idle group ahead is never rewound"
    );

    for g in ["idle", "active"] {
        let group = f.group(g);
        let find = |p: i32| {
            m.partitions
                .iter()
                .find(|x| x.group == group && x.topic == f.topic && x.partition == p)
                .cloned()
                .unwrap_or_else(|| panic!("no {group}-{p}: {:?}", m.partitions))
        };
        let (p0, p1) = (find(0), find(1));
        assert_eq!(
            (p0.committed_offset, p0.checkpoint_downstream_offset),
            (Some(150), Some(91))
        );
        assert_eq!(
            (p0.sync_upstream_offset, p0.replay_bound),
            (Some(100), Some(50)),
            "{p0:?}"
        );
        assert_eq!(
            (p1.sync_upstream_offset, p1.replay_bound),
            (Some(50), Some(0)),
            "{p1:?}"
        );
        assert!(p0.freshness.is_some_and(|d| d <= within), "{p0:?}");
        for p in 0..2 {
            let l = m
                .checkpoint_latency
                .iter()
                .find(|l| l.group == group && l.topic == f.remote && l.partition == p)
                .unwrap_or_else(|| panic!("no latency for {group} {}-{p}", f.remote));
            let (min, max, avg) = (l.min_ms.unwrap(), l.max_ms.unwrap(), l.avg_ms.unwrap());
            assert!(0.0 <= min && min <= avg && avg <= max, "{l:?}");
            assert!(min <= l.last_ms && l.last_ms <= max, "{l:?}");
            assert!(max <= within.as_millis() as f64, "{l:?}");
        }
    }
    assert_eq!(m.task.offset_sync_lag, Some(0));
    assert_eq!(m.task.retries.total(), 0, "{:?}", m.task.retries);

    task.stop().unwrap();
    drop(member);
    let docs = documents.lock().unwrap();
    let last: serde_json::Value = serde_json::from_str(docs.last().expect("documents")).unwrap();
    assert_eq!(last["schema_version"], 1);
    assert!(
        last["task"]["group_offset_sync"]["written"].as_u64() >= Some(2),
        "{last}"
    );
    assert!(
        last["task"]["group_offset_sync"]["left_ahead"].as_u64() >= Some(2),
        "{last}"
    );
    assert_no_leaks();
}
