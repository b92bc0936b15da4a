//! Real Apache Kafka brokers for tests, through the project's one launcher,
//! `scripts/kafka-broker.sh` (KRaft, broker and controller in one JVM, on free 127.0.0.1 ports):
//! single-node clusters ([`Broker`]) and clusters of several nodes ([`Cluster`]).
//!
//! Cleanup happens twice over. Dropping a [`Broker`] stops it and deletes its log dir. And each
//! broker's watchdog holds a pipe from this process (the launcher's stdin, kept open in
//! [`Broker`]): when this process exits, panics past its destructors, or is SIGKILLed, the
//! kernel closes the pipe and the watchdog kills the broker. That is also what cleans up the
//! lazily started [`shared`] broker, which lives in a `static` and is never dropped.
//!
//! `scripts/test.sh` starts the shared brokers once for the whole run and names them in the
//! environment ([`SHARED_BOOTSTRAP`], [`SHARED_TARGET_BOOTSTRAP`]); [`shared`] and
//! [`shared_target`] then attach to those instead of starting brokers of their own, so that
//! every test binary (and the C, Java and interop stages) shares two JVMs. Without the
//! variables, as under a plain `cargo test`, each test binary starts its own.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// Extra settings for [`Broker::start_with`]; the defaults give a PLAINTEXT-only broker.
#[derive(Clone, Debug, Default)]
pub struct BrokerOptions {
    /// Server properties that override the launcher's defaults.
    pub props: Vec<(String, String)>,
    /// Extra listeners as (name, security protocol), each on its own free port.
    pub listeners: Vec<(String, String)>,
    /// Extra `kafka-storage format` arguments (e.g. `--add-scram ...`).
    pub format_args: Vec<String>,
    /// `--secure`: also the SSL and SASL_SSL listeners, their test CA and user (see
    /// [`super::secure_kafka`]).
    pub secure: bool,
    /// `--authorizer` (with `secure`): StandardAuthorizer, deny unless an ACL allows, and an
    /// admin super user.
    pub authorizer: bool,
    /// `--port`: the PLAINTEXT listener's port instead of a free one.
    pub port: Option<u16>,
    /// `--listener-port NAME=PORT`: an extra listener's port instead of a free one.
    pub listener_ports: Vec<(String, u16)>,
}

/// A running single-node Kafka cluster on 127.0.0.1, stopped (and its data deleted) on drop.
pub struct Broker {
    handle: PathBuf,
    bootstrap: String,
    pid: u32,
    listeners: BTreeMap<String, String>,
    /// Every `key=value` line the launcher's start printed.
    fields: BTreeMap<String, String>,
    startup: Duration,
    /// The watchdog's lifeline; closed when this process ends, however it ends. `None` for a
    /// broker this process attached to ([`Broker::attach`]): its starter stops it.
    lifeline: Option<ChildStdin>,
    /// A node of a [`Cluster`] of this process: killed and restarted like a broker of its
    /// own, stopped with the cluster.
    cluster_node: bool,
}

/// The environment variable naming the run-wide shared (source) broker: `127.0.0.1:PORT`.
pub const SHARED_BOOTSTRAP: &str = "MM2_SHARED_BOOTSTRAP";

/// The environment variable naming the run-wide shared target broker: `127.0.0.1:PORT`.
pub const SHARED_TARGET_BOOTSTRAP: &str = "MM2_SHARED_TARGET_BOOTSTRAP";

impl Broker {
    /// Formats a fresh log dir and starts a PLAINTEXT broker on a free port; returns once it
    /// is ready. Panics with the launcher's output if it cannot start.
    pub fn start() -> Broker {
        Broker::start_with(&BrokerOptions::default())
    }

    /// Like [`Broker::start`], with extra properties, listeners and format arguments.
    pub fn start_with(options: &BrokerOptions) -> Broker {
        let mut command = Command::new(script());
        command.arg("start").arg("--lifeline-stdin");
        for (key, value) in &options.props {
            command.arg("--prop").arg(format!("{key}={value}"));
        }
        for (name, protocol) in &options.listeners {
            command.arg("--listener").arg(format!("{name}={protocol}"));
        }
        if let Some(port) = options.port {
            command.arg("--port").arg(port.to_string());
        }
        for (name, port) in &options.listener_ports {
            command.arg("--listener-port").arg(format!("{name}={port}"));
        }
        for arg in &options.format_args {
            command.arg("--format-arg").arg(arg);
        }
        if options.secure {
            command.arg("--secure");
        }
        if options.authorizer {
            command.arg("--authorizer");
        }
        let (fields, lifeline) = run_start(command);
        let listeners = fields
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("listener.")?.to_owned(), v.clone())))
            .collect();
        Broker {
            handle: PathBuf::from(&fields["handle"]),
            bootstrap: fields["bootstrap"].clone(),
            pid: fields["pid"].parse().expect("pid"),
            listeners,
            startup: Duration::from_millis(fields["startup_ms"].parse().unwrap_or(0)),
            fields,
            lifeline: Some(lifeline),
            cluster_node: false,
        }
    }

    /// A broker that someone else started and stops, from the `key=value` lines its
    /// `kafka-broker.sh start` printed (at least `bootstrap`; `handle`, `pid`, `startup_ms` and
    /// the listeners when present). Dropping it leaves the broker running. Panics, naming
    /// `origin`, when there is no `bootstrap=127.0.0.1:PORT` line.
    pub fn attach(start_output: &str, origin: &str) -> Broker {
        let fields = parse_fields(start_output.as_bytes());
        let bootstrap = fields
            .get("bootstrap")
            .filter(|b| b.starts_with("127.0.0.1:") && b[10..].parse::<u16>().is_ok())
            .unwrap_or_else(|| panic!("{origin}: no bootstrap=127.0.0.1:PORT in {start_output:?}"))
            .clone();
        let listeners = fields
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("listener.")?.to_owned(), v.clone())))
            .collect();
        Broker {
            handle: fields.get("handle").map(PathBuf::from).unwrap_or_default(),
            bootstrap,
            pid: fields.get("pid").and_then(|p| p.parse().ok()).unwrap_or(0),
            listeners,
            startup: Duration::from_millis(
                fields
                    .get("startup_ms")
                    .and_then(|ms| ms.parse().ok())
                    .unwrap_or(0),
            ),
            fields,
            lifeline: None,
            cluster_node: false,
        }
    }

    /// The broker named by environment variable `var` (`127.0.0.1:PORT`, see [`Broker::attach`])
    /// when it is set, else a broker of its own ([`Broker::start`]).
    fn attach_or_start(var: &str) -> Broker {
        match std::env::var(var) {
            Ok(bootstrap) => Broker::attach(&format!("bootstrap={bootstrap}"), var),
            Err(_) => Broker::start(),
        }
    }

    /// Whether this process started the broker (and so stops it on drop, or with its cluster).
    pub fn is_own(&self) -> bool {
        self.lifeline.is_some() || self.cluster_node
    }

    /// Starts two brokers at once (a source and a target cluster): on two cores this takes
    /// little longer than one start, since much of a start is waiting.
    pub fn start_pair() -> (Broker, Broker) {
        std::thread::scope(|s| {
            let other = s.spawn(Broker::start);
            let first = Broker::start();
            (first, other.join().expect("starting the second broker"))
        })
    }

    /// The `127.0.0.1:port` of the PLAINTEXT listener, for `bootstrap.servers`.
    pub fn bootstrap(&self) -> String {
        self.bootstrap.clone()
    }

    /// The PLAINTEXT port (kept across restarts).
    pub fn port(&self) -> u16 {
        self.bootstrap
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in bootstrap")
    }

    /// The broker's process id (the JVM's), as of the last start or restart.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The `127.0.0.1:port` of the extra listener `name`.
    pub fn listener(&self, name: &str) -> Option<String> {
        self.listeners.get(name).cloned()
    }

    /// The value of a `key=value` line the launcher's start printed (e.g. `ssl.ca.location`).
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    /// How long the last start or restart took (format, start, ready), as the launcher measured.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// The launcher's handle directory (log dir, config, broker.log).
    pub fn handle(&self) -> &Path {
        &self.handle
    }

    /// Whether the broker process is alive (not exited, not a zombie). For an attached broker
    /// whose pid is unknown: whether it accepts connections.
    pub fn is_running(&self) -> bool {
        if self.pid == 0 {
            return accepts_connections(self.port());
        }
        std::fs::read_to_string(format!("/proc/{}/stat", self.pid))
            .ok()
            .and_then(|stat| {
                // The state follows the parenthesised command name.
                let state = stat.rsplit(')').next()?.split_whitespace().next()?;
                Some(state != "Z" && state != "X")
            })
            .unwrap_or(false)
    }

    /// Kills the broker with SIGKILL, like a crash; its log dir stays for [`Broker::restart`].
    /// Only for a broker of this process: an attached one is shared with other processes.
    pub fn kill(&mut self) {
        assert!(
            self.is_own(),
            "kill: the broker at {} is shared",
            self.bootstrap
        );
        self.run(&["kill"]);
        assert!(!self.is_running(), "broker {} survived SIGKILL", self.pid);
    }

    /// Starts the broker again on the same ports and log dir (kills it first if running):
    /// the same cluster with its data, as after a crash and reboot.
    pub fn restart(&mut self) {
        self.restart_inner(false);
    }

    /// Starts the broker again on the same ports with a newly formatted log dir: a cluster
    /// that lost all its data but kept its address.
    pub fn restart_fresh(&mut self) {
        self.restart_inner(true);
    }

    /// The last `lines` lines of the broker's output, for failure messages.
    pub fn log_tail(&self, lines: usize) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(self.handle.join("broker.log")) {
            let _ = file.read_to_string(&mut text);
        }
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    fn restart_inner(&mut self, fresh: bool) {
        assert!(
            self.is_own(),
            "restart: the broker at {} is shared",
            self.bootstrap
        );
        let mut args = vec!["restart"];
        if fresh {
            args.push("--fresh");
        }
        let out = self.run(&args);
        let fields = parse_fields(out.as_bytes());
        self.pid = fields["pid"].parse().expect("pid");
        self.startup = Duration::from_millis(fields["startup_ms"].parse().unwrap_or(0));
        assert_eq!(
            fields["bootstrap"], self.bootstrap,
            "restart moved the broker"
        );
    }

    /// Runs `kafka-broker.sh VERB HANDLE ARGS...`; panics with its output on failure.
    fn run(&self, verb_and_args: &[&str]) -> String {
        let (verb, args) = verb_and_args.split_first().expect("verb");
        let output = Command::new(script())
            .arg(verb)
            .arg(&self.handle)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script().display()));
        assert!(
            output.status.success(),
            "kafka-broker.sh {verb} {} failed ({}):\n{}{}",
            self.handle.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if self.lifeline.is_none() {
            return;
        }
        stop_handle(&self.handle);
    }
}

/// `kafka-broker.sh stop HANDLE`, best effort: if it fails, the watchdog still stops the broker
/// when the lifeline closes right after.
fn stop_handle(handle: &Path) {
    let _ = Command::new(script())
        .arg("stop")
        .arg(handle)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// A running Kafka cluster of several nodes on 127.0.0.1 (`kafka-broker.sh start --nodes N`),
/// each node a broker and a voter of the controller quorum; stopped (and its data deleted) on
/// drop, or by its watchdog when this process ends.
pub struct Cluster {
    handle: PathBuf,
    bootstrap: String,
    /// Each node as a broker of its own (kill, restart, pid); dropping them stops nothing.
    nodes: Vec<Broker>,
    _lifeline: ChildStdin,
}

impl Cluster {
    /// Starts `nodes` nodes side by side; returns once every one is ready.
    pub fn start(nodes: usize) -> Cluster {
        let mut command = Command::new(script());
        command.args(["start", "--lifeline-stdin", "--nodes", &nodes.to_string()]);
        let (fields, lifeline) = run_start(command);
        let nodes = (1..=nodes)
            .map(|i| {
                let field = |name: &str| fields[&format!("node.{i}.{name}")].clone();
                Broker {
                    handle: PathBuf::from(field("handle")),
                    bootstrap: field("bootstrap"),
                    pid: field("pid").parse().expect("pid"),
                    listeners: BTreeMap::new(),
                    fields: BTreeMap::new(),
                    startup: Duration::ZERO,
                    lifeline: None,
                    cluster_node: true,
                }
            })
            .collect();
        Cluster {
            handle: PathBuf::from(&fields["handle"]),
            bootstrap: fields["bootstrap"].clone(),
            nodes,
            _lifeline: lifeline,
        }
    }

    /// Every node's `127.0.0.1:port`, comma-separated, for `bootstrap.servers`.
    pub fn bootstrap(&self) -> String {
        self.bootstrap.clone()
    }

    /// Moves every partition's leadership back to its preferred replica, as the controller's
    /// periodic rebalance does after a node returns (Kafka's `kafka-leader-election
    /// --election-type PREFERRED --all-topic-partitions`). Partitions already led by their
    /// preferred replica are left alone.
    pub fn elect_preferred_leaders(&self) {
        let output = Command::new(script())
            .args(["tool", "org.apache.kafka.tools.LeaderElectionCommand"])
            .args(["--bootstrap-server", &self.bootstrap])
            .args(["--election-type", "PREFERRED", "--all-topic-partitions"])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script().display()));
        let text = String::from_utf8_lossy(&output.stdout);
        // The tool exits 1 when some partition needed no election; anything else is a failure.
        assert!(
            output.status.success() || text.contains("Successfully completed leader election"),
            "kafka-leader-election failed ({}):\n{text}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The node whose `node.id` is `id` (1-based).
    pub fn node(&mut self, id: i32) -> &mut Broker {
        &mut self.nodes[usize::try_from(id - 1).expect("node ids start at 1")]
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        stop_handle(&self.handle);
    }
}

/// One broker shared by every test that keeps to its own topic and group names (see
/// [`unique`]): the run-wide one named by [`SHARED_BOOTSTRAP`] when set, else one per test
/// binary, started on first use. Tests that kill, restart or otherwise disturb a broker start
/// their own with [`Broker::start`].
pub fn shared() -> &'static Broker {
    static SHARED: OnceLock<Broker> = OnceLock::new();
    SHARED.get_or_init(|| Broker::attach_or_start(SHARED_BOOTSTRAP))
}

/// A second shared broker, for tests that need two clusters (a source and a target): the one
/// named by [`SHARED_TARGET_BOOTSTRAP`] when set, else one per test binary.
pub fn shared_target() -> &'static Broker {
    static SHARED: OnceLock<Broker> = OnceLock::new();
    SHARED.get_or_init(|| Broker::attach_or_start(SHARED_TARGET_BOOTSTRAP))
}

/// Both shared brokers ([`shared`], [`shared_target`]), started at once when neither runs yet
/// (as [`Broker::start_pair`] does): for tests that need a source and a target cluster.
pub fn shared_pair() -> (&'static Broker, &'static Broker) {
    std::thread::scope(|s| {
        let target = s.spawn(shared_target);
        let source = shared();
        (
            source,
            target.join().expect("starting the shared target broker"),
        )
    })
}

/// `prefix` plus a suffix no other call in this process (or a concurrent test binary) returns:
/// names for topics, groups and cluster aliases on a shared broker.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// `scripts/kafka-broker.sh` of this repository.
pub fn script() -> PathBuf {
    // This crate's manifest is tests/support/Cargo.toml.
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka-broker.sh")
}

/// Runs a `kafka-broker.sh start --lifeline-stdin …` command; returns the `key=value` lines it
/// printed and the watchdog's lifeline (its stdin, kept open by the caller). Panics with the
/// launcher's output if the start failed.
fn run_start(mut command: Command) -> (BTreeMap<String, String>, ChildStdin) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script().display()));
    // Kept before waiting: wait_with_output would close it, and the watchdog with it.
    let lifeline = child.stdin.take().expect("piped stdin");
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for {}: {e}", script().display()));
    let fields = parse_fields(&output.stdout);
    assert!(
        output.status.success() && fields.contains_key("bootstrap"),
        "{command:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (fields, lifeline)
}

/// Sends `signal` (`-STOP`, `-CONT`, …) to process `pid` with kill(1); panics if it fails.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal} {pid}: {status}");
}

fn parse_fields(stdout: &[u8]) -> BTreeMap<String, String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| {
            let (k, v) = line.split_once('=')?;
            Some((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect()
}

/// Whether something accepts TCP connections on `127.0.0.1:port` right now.
pub fn accepts_connections(port: u16) -> bool {
    let addr = std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, port));
    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}
