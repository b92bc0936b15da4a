//! CheckpointTask under network faults between it and real Apache Kafka brokers: every
//! connection of the task crosses a Toxiproxy proxy (tests/support/toxiproxy.rs) that a scenario
//! turns into a blackhole, a slow link, a resetting link or a slowly draining one, on the source,
//! the target or both, at start-up, during the offset-sync load, during a cycle, during the group
//! offset sync or during the stop, and then heals. A hung broker (SIGSTOP: connections accepted,
//! nothing answered) is the other fault.
//!
//! Every scenario checks the same invariants (`support::invariants`):
//! - the stop returns within [`STOP_BOUND`] and leaves no client, thread or file descriptor;
//! - no checkpoint goes backwards, and none is ahead of the group's committed offset (the
//!   flow's offset syncs map upstream offsets one to one, so a downstream offset above the
//!   upstream one would be ahead); no offset synced into a target group goes backwards or is
//!   ahead either;
//! - while a cluster is cut off, the task says so: a retry reason naming it, and
//!   `since_last_successful_cycle` growing, never reset by a cycle that did not reach it;
//! - after healing, the checkpoint of the commit made during the fault arrives within
//!   [`RECOVERY_BOUND`];
//! - the target's checkpoints topic is in order and never holds one commit twice with
//!   different content.
//!
//! Each scenario prints one `fault-result` line (fault, cluster, phase, stop, recovery);
//! BENCHMARKS.md's table is made of them. The 60 s and 5 min partitions run in
//! scripts/soak.sh (`MM2_FAULT_HEAL_SECS`).

use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::{CheckpointTask, StopOutcome};

use support::broker::signal;
use support::invariants::{written_once, Invariants};
use support::kafka::committed_offsets;
use support::names::FlowNames;
use support::runtime::{
    assert_no_leaks, install_logger, produce_syncs, produce_syncs_with, read_checkpoints, serial,
};
use support::toxiproxy::{Fault, ProxiedBroker, Toxiproxy};
use support::wait_until;

/// The stop's bound under any fault: the same as without one (stop wakes every blocked call).
const STOP_BOUND: Duration = Duration::from_secs(2);
/// One emit interval (1 s) plus librdkafka's reconnect backoff (at most 10 s by default) plus a
/// request in flight when the link healed (`admin.timeout.ms` here: 6 s).
const RECOVERY_BOUND: Duration = Duration::from_secs(20);

/// How long a fault lasts before it heals (CI: 5 s; scripts/soak.sh sets 60 and 300).
fn heal_after() -> Duration {
    Duration::from_secs(
        std::env::var("MM2_FAULT_HEAL_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5),
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    Source,
    Target,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The fault is there before the task starts.
    StartUp,
    /// The fault comes while the task loads the offset-syncs topic at start-up (after some of
    /// it was read, before the end).
    OffsetSyncLoad,
    /// The fault comes after the first checkpoint, while cycles run.
    Cycle,
    /// The fault comes after the first offset was synced into the target group, while group
    /// offset syncs run every second.
    GroupSync,
    /// The fault comes after the first checkpoint, and the task is stopped during it.
    Stop,
}

/// What goes wrong: a fault of the proxies, or a broker process held under SIGSTOP.
#[derive(Clone, Copy, Debug)]
enum Harm {
    Net(Fault),
    /// The broker accepts connections (the kernel does) and answers nothing, as in a long GC
    /// pause; its direct listener hangs too.
    Hang,
}

/// Offset syncs of another partition written before the flow's own in the load scenario, one
/// record batch each: with one batch per fetch and a slow link, the load takes many round trips.
const LOAD_FILLERS: i64 = 40;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

struct Env<'a> {
    source: ProxiedBroker<'a>,
    target: ProxiedBroker<'a>,
    /// Broker processes under SIGSTOP, continued by [`Env::heal`] (or on drop).
    hung: Vec<u32>,
}

impl<'a> Env<'a> {
    fn brokers(&mut self, at: Where) -> Vec<&mut ProxiedBroker<'a>> {
        match at {
            Where::Source => vec![&mut self.source],
            Where::Target => vec![&mut self.target],
            Where::Both => vec![&mut self.source, &mut self.target],
        }
    }

    fn fault(&mut self, at: Where, harm: Harm) {
        let mut stopped = Vec::new();
        for broker in self.brokers(at) {
            match harm {
                Harm::Net(fault) => broker.proxy.apply(fault),
                Harm::Hang => {
                    signal(broker.broker.pid(), "-STOP");
                    stopped.push(broker.broker.pid());
                }
            }
        }
        self.hung.extend(stopped);
    }

    fn heal(&mut self) {
        for pid in std::mem::take(&mut self.hung) {
            signal(pid, "-CONT");
        }
        self.source.proxy.heal();
        self.target.proxy.heal();
    }
}

impl Drop for Env<'_> {
    fn drop(&mut self) {
        for &pid in &self.hung {
            signal(pid, "-CONT");
        }
    }
}

/// The offset synced into the flow's target group `g` for partition 0 of the remote topic, read
/// through the target's direct listener (which a proxy fault does not touch).
fn synced_offset(env: &Env<'_>, f: &FlowNames) -> Option<i64> {
    committed_offsets(&env.target.direct, &f.group("g"), &f.remote, &[0])[0].offset
}

/// Waits until the target group's synced offset is `wanted`, checking every reading: never
/// backwards, never ahead of `wanted` (the group's latest commit, translated one to one).
fn await_synced(env: &Env<'_>, f: &FlowNames, what: &str, wanted: i64, floor: &mut i64) {
    wait_until(
        RECOVERY_BOUND,
        &format!("{what}: offset {wanted} synced into the target group"),
        || {
            let now = synced_offset(env, f).unwrap_or(0);
            assert!(
                now >= *floor,
                "{what}: synced offset went backwards: {} then {now}",
                *floor
            );
            assert!(
                now <= wanted,
                "{what}: synced offset {now} ahead of the commit ({wanted})"
            );
            *floor = now;
            now == wanted
        },
    );
}

fn alias_of(f: &FlowNames, at: Where) -> &str {
    match at {
        Where::Target => &f.target_alias,
        _ => &f.source_alias,
    }
}

fn scenario(env: &mut Env<'_>, harm: Harm, at: Where, phase: Phase, extra: &[(&str, &str)]) {
    let what = format!(
        "{harm:?} on {at:?} during {phase:?}{}",
        if extra.is_empty() {
            ""
        } else {
            " (offsets stream)"
        }
    );
    eprintln!("---- {what}");
    let fds_before = open_fds();
    let f = FlowNames::on(&env.source.direct, &env.target.direct);
    f.create_source_topics(1);
    f.create_target_topics(1, true);
    if phase == Phase::OffsetSyncLoad {
        let fillers: Vec<_> = (0..LOAD_FILLERS).map(|i| f.sync(1, i, i)).collect();
        produce_syncs_with(&f.s, &f.syncs, &fillers, &[("batch.num.messages", "1")]);
    }
    produce_syncs(
        &f.s,
        &f.syncs,
        &[f.sync(0, 0, 0), f.sync(0, 10, 10), f.sync(0, 20, 20)],
        false,
    );
    f.commit("g", &[(0, 10, "")]);
    let group = f.group("g");
    let mut props = vec![
        ("task.assigned.groups", group.as_str()),
        (
            "source.cluster.bootstrap.servers",
            env.source.bootstrap.as_str(),
        ),
        (
            "target.cluster.bootstrap.servers",
            env.target.bootstrap.as_str(),
        ),
        ("source.cluster.socket.connection.setup.timeout.ms", "1000"),
        ("target.cluster.socket.connection.setup.timeout.ms", "1000"),
        // A read left unanswered is reported after a third of this: 2 s.
        ("source.cluster.socket.timeout.ms", "6000"),
        ("target.cluster.socket.timeout.ms", "6000"),
        ("admin.timeout.ms", "6000"),
        // Writes left unconfirmed are reported after a third of this: 2 s.
        ("target.producer.message.timeout.ms", "6000"),
    ];
    match phase {
        // One record batch per fetch. librdkafka's default connection set-up timeout (30 s):
        // a stalled read must be reported by itself, not through a new connection timing out.
        Phase::OffsetSyncLoad => {
            props.retain(|(key, _)| !key.ends_with("socket.connection.setup.timeout.ms"));
            props.push(("source.consumer.max.partition.fetch.bytes", "1"));
        }
        Phase::GroupSync => {
            props.push(("sync.group.offsets.enabled", "true"));
            props.push(("sync.group.offsets.interval.seconds", "1"));
        }
        _ => {}
    }
    props.extend_from_slice(extra);
    let task = CheckpointTask::new(f.config(&props)).unwrap();
    let mut inv = Invariants::new();
    let cut_off = matches!(harm, Harm::Net(Fault::Blackhole) | Harm::Hang);
    let names_cut_off = |reason: &str| match at {
        Where::Both => reason.contains(&f.source_alias) || reason.contains(&f.target_alias),
        _ => reason.contains(alias_of(&f, at)),
    };

    if matches!(phase, Phase::StartUp | Phase::OffsetSyncLoad) {
        if phase == Phase::StartUp {
            env.fault(at, harm);
            task.start().unwrap();
            inv.poll_for(&task, &what, heal_after());
            if cut_off {
                let reason = task.retry_reason().unwrap_or_default();
                assert!(
                    names_cut_off(&reason)
                        || reason.contains(&env.source.bootstrap)
                        || reason.contains(&env.target.bootstrap),
                    "{what}: the retry reason must name the cut-off cluster: {reason:?}"
                );
                assert!(
                    !task.stats().initialized || at == Where::Target,
                    "{what}: initialized while cut off"
                );
            }
        } else {
            // A slow link: every fetch of the load takes a round trip of 0.6 s.
            env.source.proxy.apply(Fault::Latency(300));
            task.start().unwrap();
            wait_until(RECOVERY_BOUND, "the offset-sync load under way", || {
                task.metrics().task.offset_syncs_loaded > 0
            });
            env.fault(at, harm);
            inv.poll_for(&task, &what, heal_after());
            let metrics = task.metrics().task;
            let reason = task.retry_reason().unwrap_or_default();
            eprintln!(
                "{what}: retry reason while cut off: {reason:?}, {} syncs loaded",
                metrics.offset_syncs_loaded
            );
            assert!(
                !metrics.initialized && metrics.offset_syncs_loaded < LOAD_FILLERS as u64 + 3,
                "{what}: the load ended while cut off: {metrics:?}"
            );
            assert!(
                names_cut_off(&reason),
                "{what}: no retry reason naming the cut-off cluster: {reason:?}"
            );
            // A true duration: about the whole cut so far (the last record came before it, or
            // while it began: a batch in flight).
            let secs = reason
                .split(" for ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse::<u64>().ok());
            assert!(
                secs.is_some_and(|s| s * 2 >= heal_after().as_secs()),
                "{what}: the retry reason's duration is not the cut's ({:?}): {reason:?}",
                heal_after()
            );
        }
        env.heal();
        let first = inv.poll_until(&task, &what, &f.cp("g", 0, 10, 10), RECOVERY_BOUND);
        stop_and_report(&what, task, inv, first, fds_before);
        written_once(&f.t, &f.checkpoints, &what);
        return;
    }
    task.start().unwrap();

    inv.poll_until(&task, &what, &f.cp("g", 0, 10, 10), RECOVERY_BOUND);
    let mut synced_floor = 0;
    if phase == Phase::GroupSync {
        await_synced(env, &f, &what, 10, &mut synced_floor);
    }
    // The commit the task must catch up on after healing, made during the fault (straight to
    // the source broker's direct listener, which a proxy fault does not touch); a hung source
    // takes none, so then it comes just before the hang, and the task may checkpoint it first.
    let hung_source = matches!(harm, Harm::Hang) && at != Where::Target;
    if hung_source {
        f.commit("g", &[(0, 20, "")]);
    }
    env.fault(at, harm);
    if phase == Phase::Stop {
        // Long enough for the clients to be inside requests the fault holds.
        inv.poll_for(&task, &what, Duration::from_secs(2));
        stop_and_report(&what, task, inv, Duration::ZERO, fds_before);
        env.heal();
        written_once(&f.t, &f.checkpoints, &what);
        return;
    }
    if !hung_source {
        f.commit("g", &[(0, 20, "")]);
    }
    if cut_off {
        let cycles_before = task.metrics().task.since_last_successful_cycle;
        inv.poll_for(&task, &what, heal_after());
        let metrics = task.metrics();
        let reason = task.retry_reason().unwrap_or_default();
        eprintln!("{what}: retry reason while cut off: {reason:?}");
        if phase == Phase::GroupSync {
            eprintln!(
                "{what}: group offset sync while cut off: {:?}, retries {:?}",
                metrics.task.group_offset_sync, metrics.task.retries.by_kind
            );
        }
        assert!(
            names_cut_off(&reason),
            "{what}: no retry reason naming cluster `{}` while cut off: {reason:?}",
            alias_of(&f, at)
        );
        let since = metrics.task.since_last_successful_cycle.unwrap_or_default();
        assert!(
            since >= heal_after() / 2 && Some(since) > cycles_before,
            "{what}: since_last_successful_cycle {since:?} while cut off for {:?}",
            heal_after()
        );
        assert!(
            hung_source || !inv.seen.contains(&f.cp("g", 0, 20, 20)),
            "{what}: a checkpoint of a commit the task could not have read"
        );
    } else {
        inv.poll_for(&task, &what, heal_after());
        eprintln!(
            "{what}: retry reason during the fault: {:?}",
            task.retry_reason()
        );
    }
    if phase == Phase::GroupSync && !matches!(harm, Harm::Hang) {
        // Nothing synced while cut off but what the latest commit allows.
        let now = synced_offset(env, &f).unwrap_or(0);
        assert!(
            (synced_floor..=20).contains(&now),
            "{what}: synced offset {now} during the fault (before: {synced_floor})"
        );
        synced_floor = now;
    }
    env.heal();
    let healed = Instant::now();
    let mut recovery = inv.poll_until(&task, &what, &f.cp("g", 0, 20, 20), RECOVERY_BOUND);
    if at != Where::Source {
        // Emitted is not written: recovery ends when the target's topic has it (what a
        // consumer failing over reads).
        wait_until(
            RECOVERY_BOUND,
            "the checkpoint in the target's topic",
            || read_checkpoints(&f.t, &f.checkpoints).contains(&f.cp("g", 0, 20, 20)),
        );
        recovery = healed.elapsed();
    }
    if phase == Phase::GroupSync {
        // Recovery ends when the target group has the offset (what a consumer failing over
        // starts from).
        await_synced(env, &f, &what, 20, &mut synced_floor);
        recovery = healed.elapsed();
    }
    stop_and_report(&what, task, inv, recovery, fds_before);
    written_once(&f.t, &f.checkpoints, &what);
}

fn stop_and_report(
    what: &str,
    task: CheckpointTask,
    inv: Invariants,
    recovery: Duration,
    fds_before: usize,
) {
    let began = Instant::now();
    let outcome = task.stop().unwrap();
    let stop = began.elapsed();
    assert!(
        matches!(outcome, StopOutcome::Stopped(_)),
        "{what}: {outcome:?}"
    );
    assert!(stop < STOP_BOUND, "{what}: stop took {stop:?}");
    drop(task);
    assert_no_leaks();
    wait_until(
        Duration::from_secs(10),
        "file descriptors back to their count",
        || open_fds() <= fds_before,
    );
    eprintln!(
        "fault-result {what}: stop {:.1} ms, recovery {:.2} s, {} checkpoints checked",
        stop.as_secs_f64() * 1000.0,
        recovery.as_secs_f64(),
        inv.monotonic.checked
    );
}

/// Which runs a scenario is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runs {
    /// CI and every other run.
    Always,
    /// `MM2_FAULT_SCENARIOS=all` (scripts/soak.sh) or by name.
    Soak,
}

#[test]
fn under_network_faults_stop_is_prompt_checkpoints_stay_right_and_resume_after_healing() {
    use Harm::{Hang, Net};
    use Phase::{Cycle, GroupSync, OffsetSyncLoad, StartUp, Stop};
    use Runs::{Always, Soak};
    use Where::{Both, Source, Target};
    let _g = serial();
    install_logger();
    let proxy = Toxiproxy::start();
    let mut env = Env {
        source: ProxiedBroker::start(&proxy, "source"),
        target: ProxiedBroker::start(&proxy, "target"),
        hung: Vec::new(),
    };
    let none: &[(&str, &str)] = &[];
    let stream: &[(&str, &str)] = &[("group.offsets.source", "consumer-offsets-topic")];
    let blackhole = Net(Fault::Blackhole);
    #[rustfmt::skip]
    let all = [
        ("blackhole-source", blackhole, Source, Cycle, none, Always),
        ("blackhole-source-stream", blackhole, Source, Cycle, stream, Always),
        ("blackhole-target", blackhole, Target, Cycle, none, Always),
        ("blackhole-both", blackhole, Both, Cycle, none, Soak),
        ("blackhole-start-up", blackhole, Both, StartUp, none, Always),
        ("blackhole-source-start-up", blackhole, Source, StartUp, none, Soak),
        ("blackhole-target-start-up", blackhole, Target, StartUp, none, Soak),
        ("blackhole-sync-load", blackhole, Source, OffsetSyncLoad, none, Always),
        ("blackhole-both-sync-load", blackhole, Both, OffsetSyncLoad, none, Soak),
        ("blackhole-group-sync", blackhole, Target, GroupSync, none, Always),
        ("blackhole-stop", blackhole, Both, Stop, none, Always),
        ("blackhole-source-stop", blackhole, Source, Stop, none, Soak),
        ("blackhole-target-stop", blackhole, Target, Stop, none, Soak),
        ("blackhole-both-group-sync", blackhole, Both, GroupSync, none, Soak),
        ("hang-target", Hang, Target, Cycle, none, Always),
        ("hang-source", Hang, Source, Cycle, none, Soak),
        ("hang-both", Hang, Both, Cycle, none, Soak),
        ("hang-start-up", Hang, Both, StartUp, none, Soak),
        ("hang-sync-load", Hang, Source, OffsetSyncLoad, none, Soak),
        ("hang-both-sync-load", Hang, Both, OffsetSyncLoad, none, Soak),
        ("hang-group-sync", Hang, Target, GroupSync, none, Soak),
        ("hang-stop", Hang, Both, Stop, none, Soak),
        ("hang-source-stop", Hang, Source, Stop, none, Soak),
        ("hang-target-stop", Hang, Target, Stop, none, Soak),
        ("latency-source", Net(Fault::Latency(1500)), Source, Cycle, none, Always),
        ("latency-target", Net(Fault::Latency(1500)), Target, Cycle, none, Soak),
        ("latency-both-stream", Net(Fault::Latency(1500)), Both, Cycle, stream, Soak),
        ("slow-drain-target", Net(Fault::Bandwidth(1)), Target, Cycle, none, Always),
        ("slow-drain-source", Net(Fault::Bandwidth(1)), Source, Cycle, none, Soak),
        ("reset-source", Net(Fault::ResetPeer), Source, Cycle, none, Always),
        ("close-sync-load", Net(Fault::CloseOnData), Source, OffsetSyncLoad, none, Always),
        ("reset-target", Net(Fault::ResetPeer), Target, GroupSync, none, Soak),
        ("reset-both-stream", Net(Fault::ResetPeer), Both, Cycle, stream, Soak),
    ];
    // MM2_FAULT_SCENARIOS: `all` or names, comma-separated, each maybe ending in `*` (a
    // prefix: `blackhole-*`); by default the CI set.
    let chosen = std::env::var("MM2_FAULT_SCENARIOS").ok();
    let wanted = |name: &str, runs: Runs| match chosen.as_deref() {
        None => runs == Always,
        Some("all") => true,
        Some(names) => names
            .split(',')
            .map(str::trim)
            .any(|n| match n.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => n == name,
            }),
    };
    let mut ran = 0;
    for (name, harm, at, phase, extra, runs) in all {
        if wanted(name, runs) {
            scenario(&mut env, harm, at, phase, extra);
            ran += 1;
        }
    }
    assert!(
        ran > 0,
        "no scenario named in MM2_FAULT_SCENARIOS={chosen:?}"
    );
}
