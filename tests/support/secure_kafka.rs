//! A real Apache Kafka broker with secured listeners, started by `scripts/kafka-broker.sh start
//! --secure`: PLAINTEXT, SSL (TLS, server-authenticated) and SASL_SSL (PLAIN, SCRAM-SHA-256,
//! SCRAM-SHA-512, unsecured OAUTHBEARER) on free 127.0.0.1 ports, a CA made for it, and one user.
//!
//! [`SecureKafka::shared`] gives every test of a binary the same broker (a start costs seconds).
//! Its lifetime is the test process: the launcher's watchdog reads our end of a pipe and stops
//! the broker once the process exits and the pipe closes, so the `static` that holds it cannot
//! leak it.
//!
//! [`SecureKafka::client_settings`] says how a client reaches each listener, in librdkafka's
//! names: the same names MM2-style configs take under `source.cluster.` / `target.cluster.`
//! (see [`SecureKafka::mm2_settings`]). Both secured addresses are also registered with
//! [`super::kafka::register_client_settings`], so the produce/read/commit helpers work on them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use super::kafka;

/// How a client authenticates on the SASL_SSL listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// `sasl.mechanism=PLAIN`, user and password.
    Plain,
    /// `sasl.mechanism=SCRAM-SHA-256`.
    ScramSha256,
    /// `sasl.mechanism=SCRAM-SHA-512`.
    ScramSha512,
    /// `sasl.mechanism=OAUTHBEARER` with librdkafka's unsecured JWT (`principal=<user>`).
    OauthbearerUnsecured,
}

impl Mechanism {
    /// Every mechanism the broker enables.
    pub const ALL: [Mechanism; 4] = [
        Mechanism::Plain,
        Mechanism::ScramSha256,
        Mechanism::ScramSha512,
        Mechanism::OauthbearerUnsecured,
    ];

    /// The `sasl.mechanism` value.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
            Mechanism::OauthbearerUnsecured => "OAUTHBEARER",
        }
    }
}

/// Which listener a client connects to, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    /// No TLS, no authentication (the broker's own listener).
    Plaintext,
    /// TLS; the client verifies the broker against the test CA.
    Ssl,
    /// TLS and SASL with this mechanism.
    SaslSsl(Mechanism),
}

/// A running secured broker; see the module documentation.
pub struct SecureKafka {
    handle: PathBuf,
    plaintext: String,
    ssl: String,
    sasl_ssl: String,
    ca: PathBuf,
    untrusted_ca: PathBuf,
    username: String,
    password: String,
    startup: Duration,
    /// Held open for the broker's lifetime: its watchdog stops the broker at EOF.
    _lifeline: Mutex<ChildStdin>,
}

impl SecureKafka {
    /// The one broker of this test process, started on first use.
    pub fn shared() -> &'static SecureKafka {
        static SHARED: OnceLock<SecureKafka> = OnceLock::new();
        SHARED.get_or_init(SecureKafka::start)
    }

    /// Starts a broker of its own (stopped when dropped). Panics with the launcher's output if
    /// it does not start.
    pub fn start() -> SecureKafka {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut child = Command::new(root.join("scripts/kafka-broker.sh"))
            .args(["start", "--secure", "--lifeline-stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running scripts/kafka-broker.sh: {e}"));
        let lifeline = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .map(|l| l.expect("launcher output"))
            .collect();
        let output = child.wait_with_output().expect("launcher exit");
        if !output.status.success() {
            panic!(
                "scripts/kafka-broker.sh start --secure failed ({}):\n{}\n{}",
                output.status,
                lines.join("\n"),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let value = |key: &str| -> String {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .unwrap_or_else(|| panic!("launcher printed no {key}: {lines:?}"))
                .to_owned()
        };
        let broker = SecureKafka {
            handle: value("handle").into(),
            plaintext: value("bootstrap"),
            ssl: value("listener.SSL"),
            sasl_ssl: value("listener.SASL_SSL"),
            ca: value("ssl.ca.location").into(),
            untrusted_ca: value("ssl.untrusted.ca.location").into(),
            username: value("sasl.username"),
            password: value("sasl.password"),
            startup: Duration::from_millis(value("startup_ms").parse().expect("startup_ms")),
            _lifeline: Mutex::new(lifeline),
        };
        for listener in [Listener::Ssl, Listener::SaslSsl(Mechanism::ScramSha512)] {
            kafka::register_client_settings(
                &broker.bootstrap(listener),
                broker.client_settings(listener),
            );
        }
        broker
    }

    /// `bootstrap.servers` of the listener a client of kind `listener` connects to.
    pub fn bootstrap(&self, listener: Listener) -> String {
        match listener {
            Listener::Plaintext => self.plaintext.clone(),
            Listener::Ssl => self.ssl.clone(),
            Listener::SaslSsl(_) => self.sasl_ssl.clone(),
        }
    }

    /// Everything a librdkafka client needs for `listener`, `bootstrap.servers` included.
    pub fn client_settings(&self, listener: Listener) -> Vec<(String, String)> {
        let mut settings = vec![("bootstrap.servers", self.bootstrap(listener))];
        let ca = self.ca.display().to_string();
        match listener {
            Listener::Plaintext => {}
            Listener::Ssl => {
                settings.push(("security.protocol", "SSL".into()));
                settings.push(("ssl.ca.location", ca));
            }
            Listener::SaslSsl(mechanism) => {
                settings.push(("security.protocol", "SASL_SSL".into()));
                settings.push(("ssl.ca.location", ca));
                settings.push(("sasl.mechanism", mechanism.name().into()));
                if mechanism == Mechanism::OauthbearerUnsecured {
                    settings.push(("enable.sasl.oauthbearer.unsecure.jwt", "true".into()));
                    settings.push((
                        "sasl.oauthbearer.config",
                        format!("principal={}", self.username),
                    ));
                } else {
                    settings.push(("sasl.username", self.username.clone()));
                    settings.push(("sasl.password", self.password.clone()));
                }
            }
        }
        settings
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect()
    }

    /// [`Self::client_settings`] as MM2-style keys under `prefix` (e.g. `source.cluster.`).
    pub fn mm2_settings(&self, prefix: &str, listener: Listener) -> Vec<(String, String)> {
        self.client_settings(listener)
            .into_iter()
            .map(|(k, v)| (format!("{prefix}{k}"), v))
            .collect()
    }

    /// The CA that signed the broker's certificate (PEM).
    pub fn ca(&self) -> &Path {
        &self.ca
    }

    /// A CA that signed nothing the broker presents (PEM): a client trusting only it must fail.
    pub fn untrusted_ca(&self) -> &Path {
        &self.untrusted_ca
    }

    /// The SASL user (every mechanism) and its password.
    pub fn credentials(&self) -> (&str, &str) {
        (&self.username, &self.password)
    }

    /// The launcher's directory for this broker (`broker.log`, `tls/`, `server.properties`).
    pub fn handle(&self) -> &Path {
        &self.handle
    }

    /// How long `kafka-broker.sh start --secure` took: certificates, format and broker start.
    pub fn startup(&self) -> Duration {
        self.startup
    }
}

impl Drop for SecureKafka {
    fn drop(&mut self) {
        // Synchronous, so the broker is gone when the drop returns; the lifeline closes after.
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/kafka-broker.sh");
        let _ = Command::new(script)
            .arg("stop")
            .arg(&self.handle)
            .stdin(Stdio::null())
            .status();
    }
}
