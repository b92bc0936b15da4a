//! A real Apache Kafka broker with secured listeners, started by `scripts/kafka-broker.sh start
//! --secure`: PLAINTEXT, SSL (TLS, server-authenticated), MTLS (TLS with a client certificate)
//! and SASL_SSL (PLAIN, SCRAM-SHA-256,
//! SCRAM-SHA-512, unsecured OAUTHBEARER) on free 127.0.0.1 ports, a CA made for it, and one user.
//!
//! [`SecureKafka::shared`] gives every test of a binary the same broker (a start costs seconds);
//! like [`super::broker::shared`], the launcher's watchdog stops it when the process ends.
//!
//! [`SecureKafka::client_settings`] says how a client reaches each listener, in librdkafka's
//! names: the same names MM2-style configs take under `source.cluster.` / `target.cluster.`
//! (see [`SecureKafka::mm2_settings`]). The secured addresses are also registered with
//! [`super::kafka::register_client_settings`], so the produce/read/commit helpers work on them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

use super::broker::{Broker, BrokerOptions};
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
    /// TLS where the broker requires a client certificate (the listener named MTLS).
    MutualTls,
    /// TLS and SASL with this mechanism.
    SaslSsl(Mechanism),
}

/// A running secured broker; see the module documentation.
pub struct SecureKafka {
    broker: Broker,
    ca: PathBuf,
    untrusted_ca: PathBuf,
    client_certificate: PathBuf,
    client_key: PathBuf,
    username: String,
    password: String,
    /// With [`SecureKafka::with_authorizer`]: the super user's name and password.
    admin: Option<(String, String)>,
}

/// The SCRAM users [`SecureKafka::with_authorizer`] creates besides its admin, one per test
/// that needs a principal of its own (so that even cluster-wide ACLs stay per test).
pub const ACL_USERS: usize = 12;

/// The environment variable that names a file holding what `kafka-broker.sh start --secure`
/// printed for the run-wide secured broker (`scripts/test.sh` starts it once for every test
/// binary); [`SecureKafka::shared`] attaches to that broker instead of starting one.
pub const SHARED_SECURE_START: &str = "MM2_SHARED_SECURE_START";

/// The password of every [`SecureKafka::acl_user`].
const ACL_USER_PASSWORD: &str = "mm2-task-secret";

impl SecureKafka {
    /// The one secured broker of this test process: the run-wide one `scripts/test.sh` started
    /// when [`SHARED_SECURE_START`] names its start output, else one started on first use.
    pub fn shared() -> &'static SecureKafka {
        static SHARED: OnceLock<SecureKafka> = OnceLock::new();
        SHARED.get_or_init(|| match std::env::var_os(SHARED_SECURE_START) {
            Some(path) => {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                    panic!("{SHARED_SECURE_START}={}: {e}", Path::new(&path).display())
                });
                SecureKafka::from_broker(Broker::attach(&text, SHARED_SECURE_START), false)
            }
            None => SecureKafka::start(),
        })
    }

    /// The one secured broker with an authorizer of this test process (`kafka-broker.sh start
    /// --secure --authorizer`), started on first use: everything is denied that no ACL allows,
    /// except to the admin user and on the PLAINTEXT listener (the broker's own principal,
    /// which test setup uses). Its users [`SecureKafka::acl_user`] `0..ACL_USERS` start with no
    /// ACL at all.
    pub fn with_authorizer() -> &'static SecureKafka {
        static SHARED: OnceLock<SecureKafka> = OnceLock::new();
        SHARED.get_or_init(|| {
            let mut format_args = Vec::new();
            for i in 0..ACL_USERS {
                format_args.push("--add-scram".to_owned());
                format_args.push(format!(
                    "SCRAM-SHA-512=[name={},password={ACL_USER_PASSWORD}]",
                    SecureKafka::acl_user(i)
                ));
            }
            SecureKafka::start_with(true, format_args)
        })
    }

    /// The name of the `i`th user [`SecureKafka::with_authorizer`] creates.
    pub fn acl_user(i: usize) -> String {
        format!("mm2-task-{i}")
    }

    /// Starts a secured broker of its own (stopped when dropped). Panics with the launcher's
    /// output if it does not start.
    pub fn start() -> SecureKafka {
        SecureKafka::start_with(false, Vec::new())
    }

    fn start_with(authorizer: bool, format_args: Vec<String>) -> SecureKafka {
        let broker = Broker::start_with(&BrokerOptions {
            secure: true,
            authorizer,
            format_args,
            ..BrokerOptions::default()
        });
        SecureKafka::from_broker(broker, authorizer)
    }

    /// The secured broker `broker` (started with `--secure`, and `--authorizer` when
    /// `authorizer`), its settings read from what its start printed.
    fn from_broker(broker: Broker, authorizer: bool) -> SecureKafka {
        let field = |key: &str| -> String {
            broker
                .field(key)
                .unwrap_or_else(|| panic!("kafka-broker.sh start --secure printed no {key}"))
                .to_owned()
        };
        let secure = SecureKafka {
            ca: field("ssl.ca.location").into(),
            untrusted_ca: field("ssl.untrusted.ca.location").into(),
            client_certificate: field("ssl.client.certificate.location").into(),
            client_key: field("ssl.client.key.location").into(),
            username: field("sasl.username"),
            password: field("sasl.password"),
            admin: authorizer.then(|| (field("sasl.admin.username"), field("sasl.admin.password"))),
            broker,
        };
        for listener in [
            Listener::Ssl,
            Listener::MutualTls,
            Listener::SaslSsl(Mechanism::ScramSha512),
        ] {
            kafka::register_client_settings(
                &secure.bootstrap(listener),
                secure.client_settings(listener),
            );
        }
        secure
    }

    /// `bootstrap.servers` of the listener a client of kind `listener` connects to.
    pub fn bootstrap(&self, listener: Listener) -> String {
        match listener {
            Listener::Plaintext => self.broker.bootstrap(),
            Listener::Ssl => self.listener("SSL"),
            Listener::MutualTls => self.listener("MTLS"),
            Listener::SaslSsl(_) => self.listener("SASL_SSL"),
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
            Listener::MutualTls => {
                settings.push(("security.protocol", "SSL".into()));
                settings.push(("ssl.ca.location", ca));
                let certificate = self.client_certificate.display().to_string();
                settings.push(("ssl.certificate.location", certificate));
                settings.push(("ssl.key.location", self.client_key.display().to_string()));
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

    /// Client settings (librdkafka names, `bootstrap.servers` included) of SCRAM-SHA-512 user
    /// `user` with `password` on the SASL_SSL listener.
    pub fn scram_settings(&self, user: &str, password: &str) -> Vec<(String, String)> {
        let mut settings = self.client_settings(Listener::SaslSsl(Mechanism::ScramSha512));
        for (key, value) in &mut settings {
            match key.as_str() {
                "sasl.username" => *value = user.to_owned(),
                "sasl.password" => *value = password.to_owned(),
                _ => {}
            }
        }
        settings
    }

    /// [`Self::scram_settings`] of [`SecureKafka::acl_user`] `i`.
    pub fn acl_user_settings(&self, i: usize) -> Vec<(String, String)> {
        self.scram_settings(&SecureKafka::acl_user(i), ACL_USER_PASSWORD)
    }

    /// [`Self::scram_settings`] of the super user; panics without `--authorizer`.
    pub fn admin_settings(&self) -> Vec<(String, String)> {
        let (user, password) = self
            .admin
            .as_ref()
            .expect("a broker started with_authorizer has an admin user");
        self.scram_settings(user, password)
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

    /// The broker itself (handle directory, log).
    pub fn broker(&self) -> &Broker {
        &self.broker
    }

    /// The broker, to kill or restart it (its certificates and SCRAM users survive both).
    pub fn broker_mut(&mut self) -> &mut Broker {
        &mut self.broker
    }

    /// One metadata request with `settings` (librdkafka names, `bootstrap.servers` included):
    /// the number of brokers it lists, or librdkafka's error.
    pub fn probe(settings: &[(String, String)], timeout: Duration) -> Result<usize, String> {
        let mut config = ClientConfig::new();
        for (key, value) in settings {
            config.set(key, value);
        }
        let consumer: BaseConsumer = config.create().map_err(|e| e.to_string())?;
        consumer
            .fetch_metadata(None, timeout)
            .map(|m| m.brokers().len())
            .map_err(|e| e.to_string())
    }

    fn listener(&self, name: &str) -> String {
        self.broker
            .listener(name)
            .unwrap_or_else(|| panic!("the secured broker has no {name} listener"))
    }
}
