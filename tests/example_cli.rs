//! The examples as a user runs them: `--help` on both, and SIGTERM stopping the checkpoint job
//! as cleanly as Ctrl-C.

mod support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::{OffsetSync, TopicPartition};

/// The example's binary, built now with this test's features (`cargo test --test example_cli`
/// does not build examples; a full `cargo test` has, and this is then a no-op).
fn example(name: &str) -> PathBuf {
    let features: Vec<&str> = [
        ("ssl", cfg!(feature = "ssl")),
        ("gzip", cfg!(feature = "gzip")),
        ("zstd", cfg!(feature = "zstd")),
        ("internals", cfg!(feature = "internals")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(f, _)| *f)
    .collect();
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--example",
            name,
            "--no-default-features",
        ])
        .args(["--features", &features.join(",")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("running cargo build");
    assert!(status.success(), "building example {name}: {status}");
    // tests run from target/<profile>/deps; examples live in target/<profile>/examples.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let bin = profile_dir.join("examples").join(name);
    assert!(bin.exists(), "{} missing", bin.display());
    bin
}

#[test]
fn help_on_both_examples_prints_every_option_and_exits_0() {
    for (name, options) in [
        (
            "checkpoint",
            &[
                "--config",
                "--metrics-addr",
                "--log-level",
                "--help",
                "RUST_LOG",
            ][..],
        ),
        (
            "mirror",
            &[
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
    let again = run_mirror(&source, &target);
    assert!(again.contains("mirrored 0 records"), "{again}");
    assert!(
        again.contains("orders-0 at 300, orders-1 at 300"),
        "{again}"
    );
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

#[test]
fn on_real_brokers_the_mirror_example_creates_the_remote_topic_with_the_source_partitions_and_resumes(
) {
    use support::kafka::{partition_count, produce_numbered};
    use support::{create_topic, create_topic_with_config, read_all, shared_pair, unique};
    let (s, t) = shared_pair();
    let (s, t) = (s.bootstrap(), t.bootstrap());
    let (alias, target_alias, topic) = (unique("src"), unique("tgt"), unique("orders"));
    create_topic(&s, &topic, 3);
    create_topic_with_config(
        &s,
        &format!("mm2-offset-syncs.{target_alias}.internal"),
        1,
        &[("cleanup.policy", "compact")],
    );
    for p in 0..3 {
        produce_numbered(&s, &topic, p, 40);
    }
    let remote = format!("{alias}.{topic}");
    assert_eq!(partition_count(&t, &remote), None);
    let args = [
        "--source",
        &s,
        "--target",
        &t,
        "--topic",
        &topic,
        "--source-alias",
        &alias,
        "--target-alias",
        &target_alias,
    ];
    let first = run_mirror_with(&args);
    assert!(first.contains("mirrored 120 records"), "{first}");
    assert!(first.contains("with 3 partitions"), "{first}");
    assert_eq!(partition_count(&t, &remote), Some(3));
    produce_numbered(&s, &topic, 2, 5);
    let again = run_mirror_with(&args);
    assert!(again.contains("mirrored 5 records"), "{again}");
    for (p, n) in [(0, 40), (1, 40), (2, 45)] {
        assert_eq!(read_all(&t, &remote, p).len(), n, "{remote}-{p}");
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
fn run_checkpoint_until(config: &PathBuf, args: &[&str], done: impl Fn(&str) -> bool) -> Run {
    // `timeout` passes SIGTERM on to the job, and ends it should `done` never come.
    let mut child = Command::new("timeout")
        .arg("120")
        .arg(example("checkpoint"))
        .arg("--config")
        .arg(config)
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
        "0 offsets written into target groups, 0 left (target group active), 0 refused since the last cycle",
        "2 offset syncs loaded",
    ] {
        assert!(first.contains(words), "`{words}` missing: {first}");
    }
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
         source.cluster.sasl.username = u\nsource.cluster.sasl.password = p\n",
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
fn still_loading_says_which_topics_how_far_and_what_it_waits_for() {
    // Nothing listens on port 1: start-up waits, retrying, and says so every 30 s.
    let config = unreachable_clusters_config("loading");
    let run = run_checkpoint_until(&config, &[], |l| l.starts_with("still loading after"));
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
        value("mm2_checkpoint_offset_sync_lag_records", &flow[..2]),
        0.0
    );
    assert_eq!(
        value("mm2_checkpoint_retries_total", &[("kind", "group_fetch")]),
        0.0
    );
    assert_eq!(
        value(
            "mm2_checkpoint_group_offsets_total",
            &[("outcome", "written")]
        ),
        0.0
    );
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
