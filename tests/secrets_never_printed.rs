//! No secret is ever printed: a distinct secret is planted in every sensitive key, and every
//! failure path reachable without a broker is run (bad values, misspelt keys beside the
//! secrets, Java settings that are refused, settings librdkafka refuses, a missing key file, a
//! task started against a bootstrap that refuses connections). Every output channel is searched
//! for any of the secrets: Rust errors (`Display` and `Debug`), `Debug` of the config types and
//! their description, the task's retry reason and fatal error, its metrics (the snapshot's
//! `Debug`, the JSON document the C statistics callback and `mm_task_metrics_json` deliver, and
//! the documents a metrics listener received), every `log` record at every level
//! (the C log callback receives these same records), the C API's `mm_last_error`, and the
//! example's console. Java's exceptions carry `mm_last_error`'s text, so the C check covers them.

use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::metrics::MetricsSnapshot;
use mm2_checkpoint::{MirrorCheckpointConfig, MirrorClientConfig};
use support::c_conf::CConf;

/// Every sensitive setting, each with its own secret.
const SECRETS: &[(&str, &str)] = &[
    ("sasl.password", "Secret-01-sasl-password"),
    ("ssl.key.password", "Secret-02-key-password"),
    ("ssl.keystore.password", "Secret-03-keystore-password"),
    ("ssl.truststore.password", "Secret-04-truststore-password"),
    (
        "sasl.oauthbearer.config",
        "principal=Secret-06-oauth-config",
    ),
    ("ssl.key.pem", "Secret-07-key-pem"),
];
const JAAS_SECRET: &str = "Secret-08-jaas-password";
const MISSPELT_SECRET: &str = "Secret-09-misspelt-password";
/// In its own case: librdkafka builds without libcurl refuse the setting, which would end every
/// other case before it gets far.
const OIDC_SECRET: &str = "Secret-05-oauth-client-secret";

fn all_secrets() -> Vec<&'static str> {
    let mut all: Vec<&str> = SECRETS.iter().map(|(_, s)| *s).collect();
    all.push("Secret-06-oauth-config");
    all.push(JAAS_SECRET);
    all.push(MISSPELT_SECRET);
    all.push(OIDC_SECRET);
    all
}

/// A dedicated-mode text, both clusters on a closed port, every secret set at the top level
/// (so on both clusters).
fn text_with_secrets(extra: &str) -> String {
    let mut text = String::from(
        "clusters = A, B\nA->B.enabled = true\nA.bootstrap.servers = 127.0.0.1:1\nB.bootstrap.servers = 127.0.0.1:1\nA->B.replication.factor = 1\nstatistics.interval.ms = 100\n",
    );
    for (key, secret) in SECRETS {
        text.push_str(&format!("{key} = {secret}\n"));
    }
    text.push_str(&format!(
        "sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username=\"mm2\" password=\"{JAAS_SECRET}\";\n"
    ));
    text.push_str(extra);
    text
}

/// Every failure path's extra lines. Each case makes the load, the task's creation or its
/// start-up fail or retry.
fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("a bad flow value", "A->B.emit.checkpoints.enabled = maybe\n".into()),
        (
            "a misspelt secret librdkafka does not know",
            format!("A.sasl.pasword = {MISSPELT_SECRET}\n"),
        ),
        (
            "an unknown top-level key beside the secrets",
            format!("sasl.passwrd = {MISSPELT_SECRET}\n"),
        ),
        (
            "a value librdkafka refuses",
            "B.sasl.mechanism = NOPE\n".into(),
        ),
        (
            "an unsupported login module",
            format!("B.sasl.jaas.config = com.example.Custom required secret=\"{MISSPELT_SECRET}\";\n"),
        ),
        (
            "a malformed login module entry",
            format!("B.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required password=\"{MISSPELT_SECRET}\n"),
        ),
        (
            "a JKS keystore",
            "B.ssl.keystore.location = /nowhere/client.jks\n".into(),
        ),
        (
            "a missing key file",
            "A.ssl.key.location = /nowhere/client.key\n".into(),
        ),
        (
            "TLS with an unusable inline key",
            "security.protocol = SSL\n".into(),
        ),
        (
            "an OIDC client secret",
            format!("A.sasl.oauthbearer.client.secret = {OIDC_SECRET}\n"),
        ),
        ("a refusing bootstrap", String::new()),
    ]
}

/// Every log record at every level.
struct Capture(Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        let line = format!("{} {}: {}", record.level(), record.target(), record.args());
        self.0.lock().unwrap().push(line);
    }
    fn flush(&self) {}
}

static LOGS: Capture = Capture(Mutex::new(Vec::new()));

fn install_logger() {
    if log::set_logger(&LOGS).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
}

/// Everything the Rust API lets a user print along the path of `text`.
fn rust_outputs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let config = match MirrorCheckpointConfig::from_properties_text(text) {
        Ok((config, warnings)) => {
            out.extend(warnings.iter().map(|w| format!("{w} {w:?}")));
            out.push(format!("{config:?}"));
            out.push(format!("{config:#?}"));
            out.push(config.describe());
            config
        }
        Err(e) => {
            out.push(format!("{e} {e:?}"));
            return out;
        }
    };
    let task = match CheckpointTask::new(config) {
        Ok(task) => task,
        Err(e) => {
            out.push(format!("{e} {e:?}"));
            return out;
        }
    };
    let documents: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&documents);
    task.set_metrics_listener(Some(Arc::new(move |m: &MetricsSnapshot| {
        sink.lock().unwrap().push(m.to_json());
    })))
    .unwrap();
    if let Err(e) = task.start() {
        out.push(format!("{e} {e:?}"));
        return out;
    }
    // Until the task says why it waits (or fails), bounded.
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(20) {
        match task.poll(Duration::from_millis(500)) {
            Ok(outcome) => out.push(format!("{outcome:?}")),
            Err(e) => out.push(format!("{e} {e:?}")),
        }
        if let Some(reason) = task.retry_reason() {
            out.push(reason);
            let metrics = task.metrics();
            out.push(metrics.to_json());
            out.push(format!("{metrics:?}"));
            if began.elapsed() > Duration::from_secs(3) {
                break;
            }
        }
        if let Some(fatal) = task.fatal_error() {
            out.push(fatal);
            break;
        }
    }
    out.push(format!("{:?}", task.stats()));
    out.push(format!("{:?}", task.stop()));
    out.push(task.metrics().to_json());
    out.extend(documents.lock().unwrap().drain(..));
    out
}

/// What the C API says along the path of `text`: `mm_last_error` after each failure and the
/// description.
fn c_outputs(text: &str) -> Vec<String> {
    let conf = match CConf::load(text) {
        Ok(conf) => conf,
        Err(e) => return vec![e],
    };
    let mut out = vec![conf.describe().unwrap_or_else(|e| e)];
    if let Err(e) = conf.new_task() {
        out.push(e);
    }
    out
}

fn assert_no_secret(case: &str, channel: &str, outputs: &[String]) {
    for text in outputs {
        for secret in all_secrets() {
            assert!(
                !text.contains(secret),
                "{case}: {channel} printed the secret `{secret}`:\n{text}"
            );
        }
    }
}

#[test]
fn no_secret_reaches_an_error_a_debug_dump_a_log_record_or_mm_last_error() {
    install_logger();
    let mut failures_seen = 0;
    // The cases side by side: most of each is a task waiting for its retry reason.
    let outputs: Vec<(&str, Vec<String>, Vec<String>)> = std::thread::scope(|scope| {
        let running: Vec<_> = cases()
            .into_iter()
            .map(|(case, extra)| {
                scope.spawn(move || {
                    let text = text_with_secrets(&extra);
                    (case, rust_outputs(&text), c_outputs(&text))
                })
            })
            .collect();
        running.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (case, rust, c) in outputs {
        assert_no_secret(case, "the Rust API", &rust);
        assert_no_secret(case, "the C API", &c);
        // Each case must fail or retry somewhere, or it tests nothing.
        if rust.iter().chain(&c).any(|t| t.contains("invalid value")) {
            failures_seen += 1;
        }
        eprintln!(
            "{case}: {}",
            rust[rust.len().saturating_sub(3)..].join(" / ")
        );
    }
    let logs = LOGS.0.lock().unwrap().clone();
    assert!(!logs.is_empty());
    assert_no_secret("all cases", "a log record", &logs);
    assert!(failures_seen >= 8, "only {failures_seen} cases failed");
}

#[test]
fn a_mirror_client_config_hides_its_secrets() {
    let props: Vec<(&str, &str)> = SECRETS.to_vec();
    let (config, _) = MirrorClientConfig::from_properties(props).unwrap();
    assert_no_secret("client config", "Debug", &[format!("{config:?}")]);
}

/// The example binary, built with this test's features.
/// The checkpoint example (`support::examples::example`), with TLS as this test has it.
fn example_binary() -> std::path::PathBuf {
    let features: &[&str] = if cfg!(feature = "ssl") {
        &["ssl", "embedded", "internals"]
    } else {
        &["embedded", "internals"]
    };
    support::examples::example("checkpoint", features)
}

#[test]
fn the_example_prints_no_secret_for_a_bad_config() {
    let bin = example_binary();
    let dir = std::env::temp_dir().join(format!("mm2-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (case, extra) in cases() {
        let text = text_with_secrets(&extra);
        let refused = MirrorCheckpointConfig::from_properties_text(&text)
            .map_err(|e| e.to_string())
            .and_then(|(c, _)| CheckpointTask::new(c).map_err(|e| e.to_string()));
        if refused.is_ok() {
            // The example would run until stopped; its start-up path is covered above.
            continue;
        }
        let file = dir.join("mm2.properties");
        std::fs::File::create(&file)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = Command::new(&bin)
            .args(["--config", file.to_str().unwrap(), "--log-level", "trace"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{case}: the example accepted it");
        let console = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(console.contains("error"), "{case}: {console}");
        assert_no_secret(case, "the example's console", &[console]);
    }
    std::fs::remove_dir_all(&dir).ok();
}
