//! The examples as a user runs them: `--help` on each, SIGTERM stopping the checkpoint job as
//! cleanly as Ctrl-C, and the failover tool in both directions.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::{OffsetSync, TopicPartition};

/// The example's binary (`support::examples::example`), built with this test's features when
/// not prebuilt.
fn example(name: &str) -> PathBuf {
    let features: Vec<&str> = [
        ("ssl", cfg!(feature = "ssl")),
        ("gzip", cfg!(feature = "gzip")),
        ("zstd", cfg!(feature = "zstd")),
        ("internals", cfg!(feature = "internals")),
        ("embedded", cfg!(feature = "embedded")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(f, _)| *f)
    .collect();
    support::examples::example(name, &features)
}

#[test]
fn help_on_every_example_prints_every_option_and_exits_0() {
    for (name, options) in [
        (
            "checkpoint",
            &[
                "--config",
                "--metrics-addr",
                "--log-level",
                "--status-interval",
                "--help",
                "RUST_LOG",
            ][..],
        ),
        (
            "failover",
            &[
                "translate",
                "dry-run",
                "commit",
                "--config",
                "--flow",
                "--back",
                "--groups",
                "--group-list",
                "--timeout-seconds",
            ][..],
        ),
        (
            "mirror",
            &[
                "--config",
                "--source",
                "--target",
                "--topic",
                "--source-alias",
                "--target-alias",
                "--offset-lag-max",
                "--group",
                "--help",
                "mm2-offset-syncs",
            ][..],
        ),
    ] {
        let out = Command::new(example(name)).arg("--help").output().unwrap();
        assert!(out.status.success(), "{name} --help: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        for option in options {
            assert!(
                text.contains(option),
                "{name} --help lacks {option}:\n{text}"
            );
        }
        let bad = Command::new(example(name))
            .arg("--no-such-option")
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(2), "{name} with a bad option");
    }
}

/// Writes a checkpoint job config whose two clusters are on 127.0.0.1:1, where nothing listens,
/// into a directory of this test process named after `tag`; returns the file.
fn unreachable_clusters_config(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mm2-example-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mm2.properties");
    std::fs::write(
        &config,
        "clusters = A, B\nA.bootstrap.servers = 127.0.0.1:1\nB.bootstrap.servers = 127.0.0.1:1\n\
         A->B.enabled = true\n",
    )
    .unwrap();
    config
}

#[test]
fn sigterm_stops_the_checkpoint_job_cleanly_like_ctrl_c() {
    // Nothing listens on port 1: the job stays in start-up, retrying, until the signal.
    let config = unreachable_clusters_config("cli");
    let mut child = Command::new(example("checkpoint"))
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    // Signal only once the job says it runs (its handler is installed before that line).
    let started = lines
        .iter()
        .find(|l: &String| l.starts_with("loading the checkpoints"));
    assert!(started.is_some(), "the job never reported start-up");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (done_tx, done) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    assert!(
        done.recv_timeout(Duration::from_secs(10)).is_ok(),
        "the job did not exit within 10 s of SIGTERM"
    );
    let status = waiter.join().unwrap().unwrap();
    // The child has exited, so its stdout is at its end and the reader thread finishes.
    let rest: Vec<String> = lines.iter().collect();
    assert!(status.success(), "exit {status:?}; output {rest:?}");
    assert!(
        rest.iter().any(|l| l.starts_with("stopped in ")),
        "no stop line: {rest:?}"
    );
    let _ = std::fs::remove_dir_all(config.parent().unwrap());
}

/// Runs the mirror example on `orders` to completion and returns its standard output.
#[test]
fn the_mirror_example_names_the_address_and_the_cause_when_a_cluster_cannot_be_reached() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let source = format!("127.0.0.1:{closed}");
    let out = Command::new(example("mirror"))
        .args([
            "--source",
            &source,
            "--target",
            "127.0.0.1:9",
            "--topic",
            "orders",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error = stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line: {stderr}"));
    for words in [
        "on the source cluster",
        &format!("bootstrap.servers {source}"),
        "Connection refused",
    ] {
        assert!(error.contains(words), "`{words}` missing: {error}");
    }
}

fn run_mirror(source: &str, target: &str) -> String {
    run_mirror_with(&["--source", source, "--target", target, "--topic", "orders"])
}

fn run_mirror_with(args: &[&str]) -> String {
    let out = Command::new(example("mirror")).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "mirror: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn a_rerun_of_the_mirror_example_resumes_where_the_last_run_stopped() {
    use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
    // The mock brokers listen on local TCP ports, so the example process reaches them.
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, "mm2-offset-syncs.target.internal", 1)
        .unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    for p in 0..2 {
        c.produce_data(Side::Source, "orders", p, 300).unwrap();
    }
    let (source, target) = (c.bootstrap(Side::Source), c.bootstrap(Side::Target));

    let first = run_mirror(&source, &target);
    assert!(first.contains("mirrored 600 records"), "{first}");
    for p in 0..2 {
        let line = format!(
            "orders-{p}: no commit in group `connect-mm2-example-mirror-source-orders`: from the \
             beginning (earliest)"
        );
        assert!(first.contains(&line), "{first}");
    }
    let again = run_mirror(&source, &target);
    assert!(again.contains("mirrored 0 records"), "{again}");
    for p in 0..2 {
        let line = format!(
            "orders-{p}: resuming at offset 300 (committed in group \
             `connect-mm2-example-mirror-source-orders`)"
        );
        assert!(again.contains(&line), "{again}");
    }
    c.produce_data(Side::Source, "orders", 0, 50).unwrap();
    // The older positional form, as scripts/demo-clusters.sh prints it.
    let more = run_mirror_with(&[&source, &target, "orders"]);
    assert!(more.contains("mirrored 50 records"), "{more}");
    // Partition 0 of the remote topic holds each source record once.
    assert_eq!(
        c.read_partition0(Side::Target, "source.orders")
            .unwrap()
            .len(),
        350
    );
}

/// A topic on the shared source broker, to be mirrored to the shared target broker under
/// cluster aliases of its own, with the offset-syncs topic for them created (compacted).
struct SharedFlow {
    source: String,
    target: String,
    topic: String,
    source_alias: String,
    target_alias: String,
}

impl SharedFlow {
    /// Creates `<prefix>-<unique>` with `partitions` partitions and the offset-syncs topic.
    fn new(prefix: &str, partitions: i32) -> SharedFlow {
        use support::{create_topic, create_topic_with_config, shared_pair, unique};
        let (s, t) = shared_pair();
        let flow = SharedFlow {
            source: s.bootstrap(),
            target: t.bootstrap(),
            topic: unique(prefix),
            source_alias: unique("src"),
            target_alias: unique("tgt"),
        };
        create_topic(&flow.source, &flow.topic, partitions);
        create_topic_with_config(
            &flow.source,
            &format!("mm2-offset-syncs.{}.internal", flow.target_alias),
            1,
            &[("cleanup.policy", "compact")],
        );
        flow
    }

    /// The remote topic's name on the target.
    fn remote(&self) -> String {
        format!("{}.{}", self.source_alias, self.topic)
    }

    /// The mirror example's options for this flow.
    fn args(&self) -> [&str; 10] {
        [
            "--source",
            &self.source,
            "--target",
            &self.target,
            "--topic",
            &self.topic,
            "--source-alias",
            &self.source_alias,
            "--target-alias",
            &self.target_alias,
        ]
    }
}

#[test]
fn on_real_brokers_the_mirror_example_creates_the_remote_topic_with_the_source_partitions_and_resumes(
) {
    use support::kafka::{partition_count, produce_numbered};
    use support::read_all;
    let flow = SharedFlow::new("orders", 3);
    let (s, t, topic) = (&flow.source, &flow.target, &flow.topic);
    for p in 0..3 {
        produce_numbered(s, topic, p, 40);
    }
    let remote = flow.remote();
    assert_eq!(partition_count(t, &remote), None);
    let args = flow.args();
    let first = run_mirror_with(&args);
    assert!(first.contains("mirrored 120 records"), "{first}");
    assert!(first.contains("with 3 partitions"), "{first}");
    assert_eq!(partition_count(t, &remote), Some(3));
    produce_numbered(s, topic, 2, 5);
    let again = run_mirror_with(&args);
    assert!(again.contains("mirrored 5 records"), "{again}");
    for (p, n) in [(0, 40), (1, 40), (2, 45)] {
        assert_eq!(read_all(t, &remote, p).len(), n, "{remote}-{p}");
    }
}

/// A connector-style properties file for the checkpoint example on embedded clusters `c`,
/// checkpointing the fixed group list `groups`, with `extra` lines; its path.
fn embedded_config(c: &EmbeddedClusters, name: &str, groups: &str, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mm2-example-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mm2.properties");
    std::fs::write(
        &config,
        format!(
            "source.cluster.alias = source\ntarget.cluster.alias = target\n\
             source.cluster.bootstrap.servers = {}\ntarget.cluster.bootstrap.servers = {}\n\
             task.assigned.groups = {groups}\nemit.checkpoints.interval.seconds = 1\n{extra}",
            c.bootstrap(Side::Source),
            c.bootstrap(Side::Target)
        ),
    )
    .unwrap();
    config
}

/// Embedded clusters with `orders` (2 partitions) replicated, offset syncs for both partitions
/// and, when `checkpoints_topic`, the checkpoints topic.
fn embedded_flow(checkpoints_topic: bool) -> EmbeddedClusters {
    let c = EmbeddedClusters::new().unwrap();
    c.create_topic(Side::Source, "orders", 2).unwrap();
    c.create_topic(Side::Source, "mm2-offset-syncs.target.internal", 1)
        .unwrap();
    c.create_topic(Side::Target, "source.orders", 2).unwrap();
    if checkpoints_topic {
        c.create_topic(Side::Target, "source.checkpoints.internal", 1)
            .unwrap();
    }
    let syncs: Vec<OffsetSync> = (0..2)
        .map(|p| OffsetSync::new(TopicPartition::new("orders", p), 10, 10))
        .collect();
    c.produce_offset_syncs(Side::Source, "mm2-offset-syncs.target.internal", &syncs)
        .unwrap();
    c
}

/// What a run of the checkpoint example printed, and how it ended.
struct Run {
    success: bool,
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// Runs the checkpoint example on `config` (and `args`) until `done` says so of a standard
/// output line (then stops it with SIGTERM) or until it exits by itself.
fn run_checkpoint_until(
    config: &std::path::Path,
    args: &[&str],
    done: impl Fn(&str) -> bool,
) -> Run {
    let config = config.to_str().expect("a UTF-8 temporary path");
    let mut all = vec!["--config", config];
    all.extend_from_slice(args);
    run_example_until("checkpoint", &all, done)
}

/// Runs example `name` with `args` until `done` says so of a standard output line (then stops
/// it with SIGTERM) or until it exits by itself.
fn run_example_until(name: &str, args: &[&str], done: impl Fn(&str) -> bool) -> Run {
    // `timeout` passes SIGTERM on to the example, and ends it should `done` never come.
    let mut child = Command::new("timeout")
        .arg("120")
        .arg(example(name))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let errors = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let mut out = Vec::new();
    let mut signalled = false;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        if !signalled && done(&line) {
            signalled = true;
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
        }
        out.push(line);
    }
    let status = child.wait().unwrap();
    Run {
        success: status.success(),
        stdout: out,
        stderr: errors.join().unwrap(),
    }
}

#[test]
fn the_cycle_line_counts_in_the_singular_says_since_when_and_reports_target_group_offsets() {
    let c = embedded_flow(true);
    c.commit_offsets(Side::Source, "console-one", &[("orders", 0, 10, "")])
        .unwrap();
    let config = embedded_config(
        &c,
        "cycle-line",
        "console-one",
        "sync.group.offsets.enabled = true\nsync.group.offsets.interval.seconds = 1\n",
    );
    let Run {
        stdout: out,
        stderr: err,
        ..
    } = run_checkpoint_until(&config, &[], |l| l.starts_with("cycle 2:"));
    let first = out
        .iter()
        .find(|l| l.starts_with("cycle 1:"))
        .unwrap_or_else(|| panic!("no first cycle line: {out:?}\n{err:?}"));
    for words in [
        ": 1 group, ",
        "1 checkpoint written (1 since this process started)",
        "0 offsets written into target groups, 0 refused, left alone: 0 active, 0 state unknown, 0 up to date, 0 ahead, since the last cycle",
        "2 offset syncs loaded",
    ] {
        assert!(first.contains(words), "`{words}` missing: {first}");
    }
}

#[test]
fn the_job_says_when_offsets_are_streamed_and_warns_of_statistics_interval_it_does_not_use() {
    let c = embedded_flow(true);
    c.commit_offsets(Side::Source, "console-stream", &[("orders", 0, 10, "")])
        .unwrap();
    let config = embedded_config(
        &c,
        "stream-line",
        "console-stream",
        "group.offsets.source = consumer-offsets-topic\nstatistics.interval.ms = 5000\n",
    );
    let Run {
        stdout: out,
        stderr: err,
        ..
    } = run_checkpoint_until(&config, &[], |l| l.starts_with("cycle 1:"));
    assert!(
        out.iter().any(
            |l| l.starts_with("groups' offsets: streamed from `__consumer_offsets`")
                && l.contains("group.offsets.source = consumer-offsets-topic")
        ),
        "no line saying the offsets are streamed: {out:?}"
    );
    let warnings: Vec<_> = err
        .iter()
        .filter(|l| l.contains("statistics.interval.ms = 5000 does nothing in this job"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning expected: {err:?}");
    assert!(warnings[0].contains("--metrics-addr"), "{warnings:?}");
}

#[test]
fn a_fatal_start_up_error_is_printed_once() {
    let c = embedded_flow(false);
    // The mock broker cannot create the missing checkpoints topic: start-up cannot go on.
    let config = embedded_config(
        &c,
        "fatal-once",
        "g",
        "source.cluster.security.protocol = SASL_PLAINTEXT\nsource.cluster.sasl.mechanism = PLAIN\n\
         source.cluster.sasl.username = u\nsource.cluster.sasl.password = p\n\
         admin.timeout.ms = 3000\n",
    );
    // Logged by the library at error (the default level shows it), and not again on exit;
    // with the library's log off, printed once on exit.
    for args in [&[][..], &["--log-level", "off"][..]] {
        let run = run_checkpoint_until(&config, args, |_| false);
        assert!(!run.success, "{args:?}: the job did not fail");
        let printed: Vec<&String> = run
            .stderr
            .iter()
            .chain(&run.stdout)
            .filter(|l| l.contains("start-up failed"))
            .collect();
        assert_eq!(printed.len(), 1, "{args:?}: {printed:#?}");
    }
}

#[test]
fn a_status_interval_that_is_not_a_whole_positive_number_of_seconds_is_refused() {
    for bad in ["0", "-1", "1.5", "soon"] {
        let out = Command::new(example("checkpoint"))
            .args(["--status-interval", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--status-interval {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--status-interval `{bad}`")),
            "{bad}: {err}"
        );
    }
}

#[test]
fn still_loading_says_which_topics_how_far_and_what_it_waits_for() {
    // Nothing listens on port 1: start-up waits, retrying, and says so every 30 s by default
    // (2 s here).
    let config = unreachable_clusters_config("loading");
    let run = run_checkpoint_until(&config, &["--status-interval", "2"], |l| {
        l.starts_with("still loading after")
    });
    let line = run
        .stdout
        .iter()
        .find(|l| l.starts_with("still loading after"))
        .unwrap_or_else(|| panic!("no still-loading line: {:?}", run.stdout));
    for words in [
        "reading `A.checkpoints.internal` and `mm2-offset-syncs.B.internal` to their end",
        "0 offset syncs applied so far",
        "waiting because",
        "127.0.0.1:1",
    ] {
        assert!(line.contains(words), "`{words}` missing: {line}");
    }
    let _ = std::fs::remove_dir_all(config.parent().unwrap());
}

#[test]
fn sigterm_mid_copy_commits_what_the_target_confirmed_and_the_rerun_copies_each_record_once() {
    use support::{produce_batched, read_all, Record};
    const PARTITIONS: i32 = 3;
    // Large enough that the copy is still running at its first progress line (a second in).
    const PER_PARTITION: usize = 60_000;
    let flow = SharedFlow::new("big", PARTITIONS);
    let (s, t, topic) = (&flow.source, &flow.target, &flow.topic);
    let values =
        |p: i32| -> Vec<String> { (0..PER_PARTITION).map(|i| format!("{p}-{i}")).collect() };
    for p in 0..PARTITIONS {
        let values = values(p);
        let records: Vec<Record<'_>> = values.iter().map(|v| (None, Some(v.as_bytes()))).collect();
        produce_batched(s, topic, p, &records);
    }
    let args = flow.args();
    let first = run_example_until("mirror", &args, |l| l.starts_with("progress:"));
    let text = first.stdout.join("\n");
    assert!(first.success, "{text}\n{:?}", first.stderr);
    assert!(
        first.stdout.iter().any(|l| l.starts_with("progress:")),
        "no progress line: {text}"
    );
    assert!(
        text.contains("interrupted: committed"),
        "the copy was not interrupted (finished before SIGTERM?): {text}"
    );
    let rerun = run_mirror_with(&args);
    // Each partition resumes where the interrupted run committed.
    let interrupted = first
        .stdout
        .iter()
        .find(|l| l.starts_with("interrupted: committed"))
        .unwrap();
    for p in 0..PARTITIONS {
        let at = interrupted
            .split(", ")
            .find_map(|part| part.split(&format!("{topic}-{p} at ")).nth(1))
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next());
        let expected = match at {
            Some(at) => format!("{topic}-{p}: resuming at offset {at} "),
            None => {
                assert!(
                    interrupted.contains(&format!("{topic}-{p} not at all")),
                    "{interrupted}"
                );
                format!("{topic}-{p}: no commit in group")
            }
        };
        assert!(rerun.contains(&expected), "`{expected}` missing: {rerun}");
    }
    let remote = flow.remote();
    for p in 0..PARTITIONS {
        let copied: Vec<String> = read_all(t, &remote, p)
            .into_iter()
            .map(|(_, v)| String::from_utf8(v.unwrap_or_default()).unwrap())
            .collect();
        let expected = values(p);
        assert_eq!(
            copied.len(),
            expected.len(),
            "{remote}-{p}: records on the target"
        );
        if let Some(i) = (0..expected.len()).find(|i| copied[*i] != expected[*i]) {
            panic!(
                "{remote}-{p}: at {i} `{}`, expected `{}`",
                copied[i], expected[i]
            );
        }
    }
}

#[test]
fn the_mirror_example_retries_transient_coordinator_errors_reading_its_commits_and_says_why() {
    use rdkafka_sys::types::{RDKafkaApiKey, RDKafkaRespErr};
    use support::{produce_numbered, MockPair};
    let pair = MockPair::new();
    pair.create_source_topic("orders", 1);
    pair.create_source_topic("mm2-offset-syncs.target.internal", 1);
    pair.create_target_topic("source.orders", 1);
    produce_numbered(&pair.source_bootstrap(), "orders", 0, 20);
    // The group's coordinator moves, then loads, then is unavailable: three OffsetFetch answers
    // a real cluster gives around a broker restart.
    let transient = [
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
    ];
    pair.source
        .request_errors(RDKafkaApiKey::OffsetFetch, &transient);
    let out = run_mirror(&pair.source_bootstrap(), &pair.target_bootstrap());
    assert!(out.contains("mirrored 20 records"), "{out}");
    // librdkafka retries CoordinatorLoadInProgress itself; the other two reach the example.
    for (reason, attempt) in [("NotCoordinator", 1), ("CoordinatorNotAvailable", 2)] {
        let line = format!(
            "reading the committed offsets of group `connect-mm2-example-mirror-source-orders`: \
             {reason} "
        );
        let retry = out
            .lines()
            .find(|l| l.starts_with(&line))
            .unwrap_or_else(|| panic!("no retry line for {reason}: {out}"));
        assert!(
            retry.contains(&format!("(attempt {attempt} of 8)")),
            "{retry}"
        );
    }
}

#[test]
fn the_mirror_example_reaches_tls_and_sasl_clusters_through_the_checkpoint_jobs_properties_file() {
    use support::secure_kafka::{Listener, Mechanism, SecureKafka};
    use support::{create_topic, create_topic_with_config, produce_numbered, read_all, unique};
    let kafka = SecureKafka::shared();
    let plain = kafka.bootstrap(Listener::Plaintext);
    let (source_alias, target_alias, topic) = (unique("s"), unique("t"), unique("orders"));
    create_topic(&plain, &topic, 2);
    create_topic_with_config(
        &plain,
        &format!("mm2-offset-syncs.{target_alias}.internal"),
        1,
        &[("cleanup.policy", "compact")],
    );
    for p in 0..2 {
        produce_numbered(&plain, &topic, p, 30);
    }
    // One broker, two listeners: the source over SASL_SSL (SCRAM), the target over TLS.
    let mut text = format!(
        "clusters = {source_alias}, {target_alias}\n{source_alias}->{target_alias}.enabled = true\n"
    );
    for (alias, listener) in [
        (&source_alias, Listener::SaslSsl(Mechanism::ScramSha512)),
        (&target_alias, Listener::Ssl),
    ] {
        for (key, value) in kafka.client_settings(listener) {
            text.push_str(&format!("{alias}.{key} = {value}\n"));
        }
    }
    let dir = std::env::temp_dir().join(format!("mm2-mirror-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mm2.properties");
    std::fs::write(&config, text).unwrap();
    let config = config.to_str().unwrap();

    let out = run_mirror_with(&["--config", config, "--topic", &topic]);
    assert!(out.contains("mirrored 60 records"), "{out}");
    let syncs = format!("`mm2-offset-syncs.{target_alias}.internal` on the source cluster");
    assert!(out.contains(&syncs), "{out}");
    let remote = format!("{source_alias}.{topic}");
    for p in 0..2 {
        assert_eq!(read_all(&plain, &remote, p).len(), 30, "{remote}-{p}");
    }
    // An option overrides the file: another source alias names another remote topic.
    let renamed = unique("renamed");
    let out = run_mirror_with(&[
        "--config",
        config,
        "--topic",
        &topic,
        "--source-alias",
        &renamed,
    ]);
    assert!(out.contains("mirrored 60 records"), "{out}");
    assert_eq!(read_all(&plain, &format!("{renamed}.{topic}"), 1).len(), 30);
    assert!(
        !out.contains(kafka.credentials().1),
        "the password was printed: {out}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A plain HTTP/1.1 GET of `path` on `addr`: the status line and headers, and the body.
fn http_get(addr: &str, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    (head.to_string(), body.to_string())
}

#[test]
fn the_metrics_endpoint_serves_prometheus_text_a_parser_reads_with_the_task_values() {
    let c = embedded_flow(true);
    // Syncs are at 10 on both partitions: 15 translates to 11 and re-reads 5 records after a
    // failover, 10 hits the sync exactly.
    c.commit_offsets(
        Side::Source,
        "metrics-g",
        &[("orders", 0, 15, ""), ("orders", 1, 10, "")],
    )
    .unwrap();
    let config = embedded_config(&c, "metrics", "metrics-g", "");
    let addr = std::sync::Mutex::new(None::<String>);
    let scraped = std::sync::Mutex::new(None::<(String, String)>);
    let run = run_checkpoint_until(&config, &["--metrics-addr", "127.0.0.1:0"], |line| {
        if let Some(rest) = line.strip_prefix("serving metrics at http://") {
            *addr.lock().unwrap() = rest.strip_suffix("/metrics").map(str::to_string);
        }
        if !line.starts_with("cycle 1:") {
            return false;
        }
        let at = addr
            .lock()
            .unwrap()
            .clone()
            .expect("the endpoint's address, printed first");
        *scraped.lock().unwrap() = Some(http_get(&at, "/metrics"));
        true
    });
    let (head, body) = scraped
        .into_inner()
        .unwrap()
        .unwrap_or_else(|| panic!("no scrape: {:?}\n{:?}", run.stdout, run.stderr));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    let scrape = prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).unwrap();
    let value = |metric: &str, labels: &[(&str, &str)]| -> f64 {
        let found: Vec<f64> = scrape
            .samples
            .iter()
            .filter(|s| {
                s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
            })
            .map(|s| match s.value {
                prometheus_parse::Value::Counter(v)
                | prometheus_parse::Value::Gauge(v)
                | prometheus_parse::Value::Untyped(v) => v,
                _ => panic!("{metric}: not a number"),
            })
            .collect();
        assert_eq!(found.len(), 1, "{metric} {labels:?} in:\n{body}");
        found[0]
    };
    let flow = [
        ("source", "source"),
        ("target", "target"),
        ("group", "metrics-g"),
    ];
    let upstream = |p| {
        [
            flow[0],
            flow[1],
            flow[2],
            ("topic", "orders"),
            ("partition", p),
        ]
    };
    assert_eq!(
        value("mm2_checkpoint_replay_bound_records", &upstream("0")),
        5.0
    );
    assert_eq!(
        value("mm2_checkpoint_replay_bound_records", &upstream("1")),
        0.0
    );
    let freshness = value("mm2_checkpoint_freshness_seconds", &upstream("0"));
    assert!((0.0..60.0).contains(&freshness), "{freshness}");
    // MM2's metric, tagged with the renamed topic as Java tags it.
    let renamed = [
        flow[0],
        flow[1],
        flow[2],
        ("topic", "source.orders"),
        ("partition", "0"),
    ];
    let last = value("mm2_checkpoint_latency_ms", &renamed);
    let (min, max) = (
        value("mm2_checkpoint_latency_ms_min", &renamed),
        value("mm2_checkpoint_latency_ms_max", &renamed),
    );
    assert!(
        0.0 <= min && min <= last && last <= max && max < 60_000.0,
        "{min} {last} {max}"
    );
    assert_eq!(
        value("mm2_checkpoint_checkpoints_emitted_total", &flow[..2]),
        2.0
    );
    assert_eq!(value("mm2_checkpoint_groups", &flow[..2]), 1.0);
    assert_eq!(value("mm2_checkpoint_initialized", &flow[..2]), 1.0);
    assert_eq!(value("mm2_checkpoint_cycles_failed_total", &flow[..2]), 0.0);
    assert_eq!(
        value("mm2_checkpoint_other_writer_checkpoints_total", &flow[..2]),
        0.0
    );
    assert_eq!(
        value("mm2_checkpoint_offset_sync_lag_records", &flow[..2]),
        0.0
    );
    assert_eq!(
        value("mm2_checkpoint_retries_total", &[("kind", "group_fetch")]),
        0.0
    );
    for outcome in [
        "written",
        "refused",
        "left_active",
        "left_unknown_state",
        "left_up_to_date",
        "left_ahead",
    ] {
        assert_eq!(
            value(
                "mm2_checkpoint_group_offsets_total",
                &[("outcome", outcome)]
            ),
            0.0,
            "{outcome}"
        );
    }
    let reasons = scrape
        .samples
        .iter()
        .filter(|s| s.metric == "mm2_checkpoint_partitions_skipped")
        .count();
    assert_eq!(reasons, 8, "one series per skip reason");
    assert!(
        scrape.docs.contains_key("mm2_checkpoint_freshness_seconds"),
        "{:?}",
        scrape.docs
    );
}

/// Runs the failover tool with `args` to its end; its exit code and what it printed.
fn run_failover(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("timeout")
        .arg("120")
        .arg(example("failover"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_failover_tool_translates_over_and_back_dry_runs_and_commits_and_names_what_it_cannot_do() {
    let c = embedded_flow(true);
    // The group's checkpoint (failover) and, after failing over, its commit on the replica
    // topic (failback): both at the sync 10 -> 10 of `orders`-0.
    let cp = mm2_checkpoint::Checkpoint::new(
        "billing",
        TopicPartition::new("source.orders", 0),
        10,
        10,
        "",
    );
    let record = (
        0,
        Some(cp.encode_key().unwrap()),
        Some(cp.encode_value().unwrap()),
    );
    c.produce(Side::Target, "source.checkpoints.internal", &[record])
        .unwrap();
    c.commit_offsets(Side::Target, "billing", &[("source.orders", 0, 10, "")])
        .unwrap();
    let config = embedded_config(&c, "failover-tool", "billing", "");
    let config = config.to_str().unwrap();

    let (code, out, err) = run_failover(&["translate", "--config", config, "--group", "billing"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("failover source->target: 1 groups"), "{out}");
    assert!(
        out.contains("billing source.orders-0: resume at 10 (committed 10 on the source)"),
        "{out}"
    );

    let back = [
        "dry-run",
        "--config",
        config,
        "--flow",
        "source->target",
        "--back",
    ];
    // (The mock cannot list groups, so no regex here: tests/mirror_failover.rs uses one.)
    let (code, out, err) = run_failover(&[&back[..], &["--group-list", "billing,"]].concat());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("failback target->source: 1 groups"), "{out}");
    assert!(
        out.contains(
            "billing orders-0: resume at 10 (committed 10 on the replica; re-reads at most 0)"
        ),
        "{out}"
    );
    assert!(
        out.contains("billing orders-0 on `source`: now no commit, translated 10"),
        "{out}"
    );
    assert!(out.contains("billing on `source`: not caught up"), "{out}");

    // The mock describes every group as unknown: the commit leaves it alone and says why.
    let (code, out, err) =
        run_failover(&["commit", "--config", config, "--back", "--group", "billing"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("left alone (group_state_unknown)"), "{out}");
    assert!(out.contains("0 committed, 1 left alone, 0 failed"), "{out}");

    // What it cannot do is an error naming the reason, with exit code 1; misuse is 2.
    let identity = embedded_config(
        &c,
        "failover-identity",
        "billing",
        "replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy\n",
    );
    let (code, _, err) = run_failover(&[
        "translate",
        "--config",
        identity.to_str().unwrap(),
        "--back",
        "--group",
        "billing",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("replication.policy.class") && err.contains("IdentityReplicationPolicy"),
        "{err}"
    );
    let (code, _, err) = run_failover(&[
        "translate",
        "--config",
        config,
        "--flow",
        "x->y",
        "--back",
        "--group",
        "g",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("mm2-offset-syncs.y.internal") && err.contains("does not exist"),
        "{err}"
    );
    for misuse in [
        &["translate", "--config", config][..],
        &["translate", "--group", "g"],
        &["rewind", "--config", config, "--group", "g"],
        &[
            "translate",
            "--config",
            config,
            "--group",
            "a",
            "--groups",
            "b",
        ],
        &[
            "translate",
            "--config",
            config,
            "--group",
            "g",
            "--timeout-seconds",
            "0",
        ],
    ] {
        let (code, _, err) = run_failover(misuse);
        assert_eq!(code, Some(2), "{misuse:?}: {err}");
        assert!(err.contains("usage: failover"), "{err}");
    }
}

/// A flow that fails for good (B->A's checkpoints topic asks a one-broker Kafka for three
/// replicas, which Kafka refuses: fatal) is reported by name at once, and the other flow goes on
/// until SIGTERM; with `--fail-fast` the failure stops every flow and ends the job. Either way
/// the job's exit status says a flow failed.
#[test]
fn a_failed_flow_leaves_the_other_running_unless_fail_fast_stops_them_all() {
    use support::{create_topic_with_config, shared_pair, unique};
    let (s, t) = shared_pair();
    let (a, b) = (unique("ffa"), unique("ffb"));
    let compact = [("cleanup.policy", "compact")];
    create_topic_with_config(
        &s.bootstrap(),
        &format!("mm2-offset-syncs.{b}.internal"),
        1,
        &compact,
    );
    create_topic_with_config(
        &t.bootstrap(),
        &format!("mm2-offset-syncs.{a}.internal"),
        1,
        &compact,
    );
    let dir = std::env::temp_dir().join(format!("mm2-example-fail-fast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mm2.properties");
    std::fs::write(
        &config,
        format!(
            "clusters = {a}, {b}\n{a}.bootstrap.servers = {}\n{b}.bootstrap.servers = {}\n\
             {a}->{b}.enabled = true\n{b}->{a}.enabled = true\ntask.assigned.groups = g\n\
             emit.checkpoints.interval.seconds = 1\ncheckpoints.topic.replication.factor = 1\n\
             {b}->{a}.checkpoints.topic.replication.factor = 3\n",
            s.bootstrap(),
            t.bootstrap()
        ),
    )
    .unwrap();
    let (forward, reverse) = (format!("[{a}->{b}]"), format!("[{b}->{a}]"));

    // By default: the failure is reported, and the forward flow still runs cycles after it.
    let failed = std::sync::atomic::AtomicBool::new(false);
    let run = run_checkpoint_until(&config, &[], |line| {
        if line.starts_with(&format!("{reverse} failed: ")) {
            failed.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        failed.load(std::sync::atomic::Ordering::SeqCst)
            && line.starts_with(&format!("{forward} cycle "))
    });
    let out = run.stdout.join("\n");
    assert!(!run.success, "a flow failed, yet the job succeeded: {out}");
    let failure = run
        .stdout
        .iter()
        .find(|l| l.starts_with(&format!("{reverse} failed: ")))
        .unwrap_or_else(|| panic!("no failure line: {out}\n{:?}", run.stderr));
    assert!(
        failure.contains(&format!("{a}.checkpoints.internal"))
            || failure.contains(&format!("{b}.checkpoints.internal")),
        "{failure}"
    );
    assert!(out.contains(&format!("{forward} stopped")), "{out}");
    assert!(!out.contains("--fail-fast"), "{out}");

    // With --fail-fast: the job ends by itself once the flow failed, the other one stopped.
    let began = std::time::Instant::now();
    let run = run_checkpoint_until(&config, &["--fail-fast"], |_| false);
    let took = began.elapsed();
    let out = run.stdout.join("\n");
    assert!(!run.success, "{out}");
    assert!(
        out.contains(&format!("{reverse} failed: ")),
        "{out}\n{:?}",
        run.stderr
    );
    assert!(
        out.contains(&format!("{reverse} --fail-fast: stopping every flow")),
        "{out}"
    );
    assert!(out.contains(&format!("{forward} stopped")), "{out}");
    // Well before the 120 s guard that would otherwise end it.
    assert!(took < Duration::from_secs(60), "took {took:?}: {out}");
}

#[test]
fn a_file_enabling_both_flows_runs_both_in_one_job_and_one_sigterm_stops_both() {
    let c = EmbeddedClusters::new().unwrap();
    let (a, b) = (c.bootstrap(Side::Source), c.bootstrap(Side::Target));
    // Created beforehand: the mock's topic creation times out.
    c.create_topic(Side::Target, "A.checkpoints.internal", 1)
        .unwrap();
    c.create_topic(Side::Source, "B.checkpoints.internal", 1)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("mm2-example-flows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mm2.properties");
    std::fs::write(
        &config,
        format!(
            "clusters = A, B\nA.bootstrap.servers = {a}\nB.bootstrap.servers = {b}\n\
             A->B.enabled = true\nB->A.enabled = true\ntask.assigned.groups = g\n\
             emit.checkpoints.interval.seconds = 1\nB->A.emit.reverse.checkpoints.enabled = true\n"
        ),
    )
    .unwrap();
    // One endpoint serves both flows, scraped once both have run a cycle.
    let seen = std::sync::Mutex::new((false, false));
    let addr = std::sync::Mutex::new(None::<String>);
    let scraped = std::sync::Mutex::new(None::<(String, String)>);
    let run = run_checkpoint_until(&config, &["--metrics-addr", "127.0.0.1:0"], |line| {
        if let Some(rest) = line.strip_prefix("serving metrics at http://") {
            *addr.lock().unwrap() = rest.strip_suffix("/metrics").map(str::to_string);
        }
        let mut seen = seen.lock().unwrap();
        seen.0 |= line.starts_with("[A->B] cycle ");
        seen.1 |= line.starts_with("[B->A] cycle ");
        if !(seen.0 && seen.1) {
            return false;
        }
        let at = addr
            .lock()
            .unwrap()
            .clone()
            .expect("the endpoint's address, printed before the flows start");
        *scraped.lock().unwrap() = Some(http_get(&at, "/metrics"));
        true
    });
    let out = run.stdout.join("\n");
    assert!(run.success, "{out}\n{}", run.stderr.join("\n"));
    assert!(
        out.contains("checkpointing 2 flows in this process: A->B, B->A"),
        "{out}"
    );
    for flow in ["A->B", "B->A"] {
        assert!(out.contains(&format!("[{flow}] stopped")), "{flow}: {out}");
    }
    let (head, body) = scraped
        .into_inner()
        .unwrap()
        .unwrap_or_else(|| panic!("no scrape: {out}\n{:?}", run.stderr));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Each family once, the series of both flows beneath it: the text format forbids a family
    // split in two.
    let mut families = std::collections::HashMap::<&str, usize>::new();
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let name = rest.split_whitespace().next().unwrap();
            *families.entry(name).or_default() += 1;
        }
    }
    assert!(
        families.contains_key("mm2_checkpoint_cycles_total"),
        "{body}"
    );
    assert!(
        families.values().all(|&n| n == 1),
        "a family described twice: {families:?}\n{body}"
    );
    let help = body.lines().filter(|l| l.starts_with("# HELP ")).count();
    assert_eq!(help, families.len(), "{body}");
    let scrape = prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).unwrap();
    for (source, target) in [("A", "B"), ("B", "A")] {
        let cycles: Vec<f64> = scrape
            .samples
            .iter()
            .filter(|s| {
                s.metric == "mm2_checkpoint_cycles_total"
                    && s.labels.get("source") == Some(source)
                    && s.labels.get("target") == Some(target)
            })
            .map(|s| match s.value {
                prometheus_parse::Value::Counter(v) => v,
                _ => panic!("mm2_checkpoint_cycles_total: not a counter"),
            })
            .collect();
        assert_eq!(cycles.len(), 1, "{source}->{target}:\n{body}");
        assert!(cycles[0] >= 1.0, "{source}->{target}: {}", cycles[0]);
        let initialized = scrape.samples.iter().any(|s| {
            s.metric == "mm2_checkpoint_initialized"
                && s.labels.get("source") == Some(source)
                && s.labels.get("target") == Some(target)
        });
        assert!(initialized, "{source}->{target}:\n{body}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
