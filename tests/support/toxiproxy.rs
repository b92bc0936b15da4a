//! Network faults between the task and a real broker, with Toxiproxy (Shopify's TCP fault proxy):
//! a server of its own per test binary on a loopback port, one proxy per broker, and toxics
//! added and removed over its HTTP API. [`ProxiedBroker`] starts a broker that advertises the
//! proxy's address, so that every connection a client makes to it (after the bootstrap too)
//! crosses the proxy, and a second listener, `DIRECT`, that the test's own setup clients use
//! and no fault touches.
//!
//! The server binary is `MM2_TOXIPROXY_SERVER`, else `.tools/bin/toxiproxy-server` (installed
//! by scripts/setup-test-env.sh).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::broker::{Broker, BrokerOptions};

/// A Toxiproxy server, killed on drop.
pub struct Toxiproxy {
    child: Child,
    api: String,
}

/// A loopback port nothing listens on (yet).
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

fn server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("MM2_TOXIPROXY_SERVER") {
        return PathBuf::from(path);
    }
    let tools = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/bin/toxiproxy-server");
    assert!(
        tools.exists(),
        "no Toxiproxy server at {} (scripts/setup-test-env.sh installs it; or set MM2_TOXIPROXY_SERVER)",
        tools.display()
    );
    tools
}

impl Toxiproxy {
    /// Starts a server on a free loopback port; returns once its API answers.
    pub fn start() -> Toxiproxy {
        let port = free_port();
        let child = Command::new(server_binary())
            .args(["-host", "127.0.0.1", "-port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the Toxiproxy server");
        let proxy = Toxiproxy {
            child,
            api: format!("127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while proxy.try_request("GET", "/version", "").is_err() {
            assert!(
                Instant::now() < deadline,
                "the Toxiproxy API did not answer within 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        proxy
    }

    fn try_request(&self, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
        let mut stream = TcpStream::connect(&self.api)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.api,
            body.len()
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        Ok((status, body))
    }

    /// One API call; panics unless it succeeds (2xx).
    fn request(&self, method: &str, path: &str, body: &str) -> String {
        let (status, answer) = self
            .try_request(method, path, body)
            .unwrap_or_else(|e| panic!("Toxiproxy {method} {path}: {e}"));
        assert!(
            (200..300).contains(&status),
            "Toxiproxy {method} {path} {body}: {status} {answer}"
        );
        answer
    }

    /// A proxy `name` listening on 127.0.0.1:`listen`, forwarding to `upstream`.
    pub fn proxy(&self, name: &str, listen: u16, upstream: &str) -> Proxy<'_> {
        self.request(
            "POST",
            "/proxies",
            &format!(
                r#"{{"name":"{name}","listen":"127.0.0.1:{listen}","upstream":"{upstream}","enabled":true}}"#
            ),
        );
        Proxy {
            server: self,
            name: name.to_string(),
            toxics: Vec::new(),
        }
    }
}

impl Drop for Toxiproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One proxy and the toxics a test put on it.
pub struct Proxy<'a> {
    server: &'a Toxiproxy,
    name: String,
    toxics: Vec<String>,
}

/// A fault a proxy can apply, both directions unless said otherwise.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// No byte passes and no connection closes (a dead host behind a firewall that drops,
    /// as seen from an established or newly accepted connection).
    Blackhole,
    /// Every byte is delayed by this many milliseconds each way.
    Latency(u64),
    /// Every connection is reset (RST) as soon as data arrives.
    ResetPeer,
    /// The broker's answers drain at this many KB/s.
    Bandwidth(u64),
    /// Every connection is closed in order (FIN) as soon as the client sends a byte: a
    /// middlebox or a broker dropping connections before they answer anything.
    CloseOnData,
}

impl Proxy<'_> {
    fn add(&mut self, kind: &str, stream: &str, attributes: &str) {
        let name = format!("{kind}_{stream}_{}", self.toxics.len());
        self.server.request(
            "POST",
            &format!("/proxies/{}/toxics", self.name),
            &format!(
                r#"{{"name":"{name}","type":"{kind}","stream":"{stream}","toxicity":1.0,"attributes":{attributes}}}"#
            ),
        );
        self.toxics.push(name);
    }

    /// Applies `fault` until [`Proxy::heal`].
    pub fn apply(&mut self, fault: Fault) {
        for stream in ["upstream", "downstream"] {
            match fault {
                Fault::Blackhole => self.add("timeout", stream, r#"{"timeout":0}"#),
                Fault::Latency(ms) => self.add(
                    "latency",
                    stream,
                    &format!(r#"{{"latency":{ms},"jitter":0}}"#),
                ),
                Fault::ResetPeer => self.add("reset_peer", stream, r#"{"timeout":0}"#),
                Fault::Bandwidth(kb) if stream == "downstream" => {
                    self.add("bandwidth", stream, &format!(r#"{{"rate":{kb}}}"#))
                }
                Fault::Bandwidth(_) => {}
                Fault::CloseOnData if stream == "upstream" => {
                    self.add("limit_data", stream, r#"{"bytes":0}"#)
                }
                Fault::CloseOnData => {}
            }
        }
    }

    /// Removes every toxic: the network is healthy again (connections a timeout toxic held
    /// stay open and flow again).
    pub fn heal(&mut self) {
        for toxic in std::mem::take(&mut self.toxics) {
            self.server.request(
                "DELETE",
                &format!("/proxies/{}/toxics/{toxic}", self.name),
                "",
            );
        }
    }
}

/// A real broker reached through a proxy: clients bootstrapping to [`ProxiedBroker::bootstrap`]
/// are told the proxy's address for every later connection; [`ProxiedBroker::direct`] is a
/// second listener no fault touches, for the test's own setup and checks.
pub struct ProxiedBroker<'a> {
    /// The broker (stopped on drop).
    pub broker: Broker,
    /// Its proxy.
    pub proxy: Proxy<'a>,
    /// `127.0.0.1:PORT` of the proxy.
    pub bootstrap: String,
    /// `127.0.0.1:PORT` of the `DIRECT` listener.
    pub direct: String,
}

impl<'a> ProxiedBroker<'a> {
    /// Starts a broker behind a new proxy `name` of `server`.
    pub fn start(server: &'a Toxiproxy, name: &str) -> ProxiedBroker<'a> {
        let (broker_port, proxy_port, direct_port) = (free_port(), free_port(), free_port());
        let proxy = server.proxy(name, proxy_port, &format!("127.0.0.1:{broker_port}"));
        let broker = Broker::start_with(&BrokerOptions {
            port: Some(broker_port),
            listeners: vec![("DIRECT".to_string(), "PLAINTEXT".to_string())],
            listener_ports: vec![("DIRECT".to_string(), direct_port)],
            props: vec![(
                "advertised.listeners".to_string(),
                format!("PLAINTEXT://127.0.0.1:{proxy_port},DIRECT://127.0.0.1:{direct_port}"),
            )],
            ..BrokerOptions::default()
        });
        ProxiedBroker {
            broker,
            proxy,
            bootstrap: format!("127.0.0.1:{proxy_port}"),
            direct: format!("127.0.0.1:{direct_port}"),
        }
    }
}
