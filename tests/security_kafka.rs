//! The checkpoint task against a real Apache Kafka broker over secured listeners, configured in
//! MM2's key style (`source.cluster.security.protocol=SASL_SSL`, `source.cluster.sasl.mechanism`,
//! `source.cluster.ssl.ca.location`, …): TLS alone, and TLS with SASL PLAIN, SCRAM-SHA-256,
//! SCRAM-SHA-512 and unsecured OAUTHBEARER; and offset syncs written with each codec over
//! SASL_SSL, read back exactly, with the codec checked in the broker's own log segment.
//!
//! All tests share one broker (scripts/kafka-broker.sh start --secure); each flow has its own
//! aliases, topics and group.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mm2_checkpoint::checkpoint_task::{CheckpointTask, StopOutcome};
use mm2_checkpoint::parse_properties;
use mm2_checkpoint::MirrorCheckpointConfig;

use support::flow::{self, Side};
use support::runtime::{assert_no_leaks, install_logger, serial};
use support::secure_kafka::{Listener, Mechanism, SecureKafka};
use support::wait_until;

/// Bound on one metadata request to a ready broker.
const PROBE: Duration = Duration::from_secs(15);

fn side<'a>(kafka: &SecureKafka, listener: Listener, create: &'a dyn Fn(&str, i32)) -> Side<'a> {
    Side {
        setup_bootstrap: kafka.bootstrap(listener),
        client: kafka.client_settings(listener),
        create_topic: create,
    }
}

/// Creates topics through the broker's plaintext listener: setup, not what is under test.
fn create_plain(name: &str, partitions: i32) {
    let kafka = SecureKafka::shared();
    support::create_topic(&kafka.bootstrap(Listener::Plaintext), name, partitions);
}

/// A flow whose task reaches both clusters (the one shared broker) through `listener` only.
fn checkpoints_flow_over(tag: &str, listener: Listener) {
    let _g = serial();
    install_logger();
    let kafka = SecureKafka::shared();
    eprintln!(
        "secured broker started in {:?} (certificates, format, start)",
        kafka.broker().startup_time()
    );
    flow::run(
        tag,
        &side(kafka, listener, &create_plain),
        &side(kafka, listener, &create_plain),
        None,
    );
    assert_no_leaks();
}

#[test]
fn checkpoints_flow_end_to_end_over_ssl() {
    checkpoints_flow_over("ssl", Listener::Ssl);
}

#[test]
fn checkpoints_flow_end_to_end_over_ssl_with_a_client_certificate() {
    checkpoints_flow_over("mtls", Listener::MutualTls);
}

#[test]
fn checkpoints_flow_end_to_end_over_sasl_ssl_with_scram_sha_512() {
    checkpoints_flow_over("scram512", Listener::SaslSsl(Mechanism::ScramSha512));
}

#[test]
fn checkpoints_flow_end_to_end_over_sasl_ssl_with_scram_sha_256() {
    checkpoints_flow_over("scram256", Listener::SaslSsl(Mechanism::ScramSha256));
}

#[test]
fn checkpoints_flow_end_to_end_over_sasl_ssl_with_plain() {
    checkpoints_flow_over("plain", Listener::SaslSsl(Mechanism::Plain));
}

#[test]
fn checkpoints_flow_end_to_end_over_sasl_ssl_with_unsecured_oauthbearer() {
    checkpoints_flow_over(
        "oauthbearer",
        Listener::SaslSsl(Mechanism::OauthbearerUnsecured),
    );
}

/// The codec of every record batch in a Kafka log segment file (record batch format v2: the
/// low three bits of the attributes; 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).
fn batch_codecs(segment: &Path) -> Vec<&'static str> {
    let bytes = std::fs::read(segment).unwrap_or_else(|e| panic!("{}: {e}", segment.display()));
    let mut codecs = Vec::new();
    let mut at = 0;
    // baseOffset i64, batchLength i32, partitionLeaderEpoch i32, magic i8, crc u32, attributes i16
    while at + 23 <= bytes.len() {
        let length = i32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        let magic = bytes[at + 16];
        assert_eq!(magic, 2, "{}: batch at byte {at}", segment.display());
        let attributes = i16::from_be_bytes(bytes[at + 21..at + 23].try_into().unwrap());
        codecs.push(match attributes & 0x7 {
            0 => "none",
            1 => "gzip",
            2 => "snappy",
            3 => "lz4",
            4 => "zstd",
            other => panic!("{}: unknown codec {other}", segment.display()),
        });
        at += 12 + usize::try_from(length).expect("batch length");
    }
    assert_eq!(at, bytes.len(), "{}: a partial batch", segment.display());
    codecs
}

/// The first log segment of the flow's offset-syncs topic and the codecs of its batches.
fn syncs_codecs(kafka: &SecureKafka, outcome: &flow::FlowOutcome) -> (PathBuf, Vec<&'static str>) {
    let segment = kafka
        .broker()
        .handle()
        .join("data")
        .join(format!("{}-0", outcome.syncs_topic))
        .join("00000000000000000000.log");
    let codecs = batch_codecs(&segment);
    (segment, codecs)
}

/// Offset syncs produced with `codec` over SASL_SSL (SCRAM-SHA-512) to the source, checkpoints
/// written over SSL to the target; then the broker's segment must hold only `codec` batches.
fn offset_syncs_over_sasl_ssl_compressed_with(codec: &str) {
    let _g = serial();
    install_logger();
    let kafka = SecureKafka::shared();
    let tag = format!("codec-{codec}");
    let outcome = flow::run(
        &tag,
        &side(
            kafka,
            Listener::SaslSsl(Mechanism::ScramSha512),
            &create_plain,
        ),
        &side(kafka, Listener::Ssl, &create_plain),
        Some(codec),
    );
    assert_no_leaks();
    let (segment, codecs) = syncs_codecs(kafka, &outcome);
    assert!(!codecs.is_empty(), "{}: no batches", segment.display());
    assert!(
        codecs.iter().all(|c| *c == codec),
        "{}: batch codecs {codecs:?}, expected only {codec}",
        segment.display()
    );
}

#[test]
fn offset_syncs_compressed_with_gzip_over_sasl_ssl_are_stored_as_gzip_and_read_back_exactly() {
    offset_syncs_over_sasl_ssl_compressed_with("gzip");
}

#[test]
fn offset_syncs_compressed_with_snappy_over_sasl_ssl_are_stored_as_snappy_and_read_back_exactly() {
    offset_syncs_over_sasl_ssl_compressed_with("snappy");
}

#[test]
fn offset_syncs_compressed_with_lz4_over_sasl_ssl_are_stored_as_lz4_and_read_back_exactly() {
    offset_syncs_over_sasl_ssl_compressed_with("lz4");
}

#[test]
fn offset_syncs_compressed_with_zstd_over_sasl_ssl_are_stored_as_zstd_and_read_back_exactly() {
    offset_syncs_over_sasl_ssl_compressed_with("zstd");
}

#[test]
fn offset_syncs_written_uncompressed_are_stored_without_a_codec() {
    // The control for the codec checks above: the segment parser does see "none".
    let _g = serial();
    install_logger();
    let kafka = SecureKafka::shared();
    let outcome = flow::run(
        "codec-none",
        &side(kafka, Listener::Plaintext, &create_plain),
        &side(kafka, Listener::Plaintext, &create_plain),
        Some("none"),
    );
    assert_no_leaks();
    let (segment, codecs) = syncs_codecs(kafka, &outcome);
    assert!(
        !codecs.is_empty() && codecs.iter().all(|c| *c == "none"),
        "{}: {codecs:?}",
        segment.display()
    );
}

/// examples/mm2-tls-sasl.properties (its key set checked by tests/example_properties.rs), with
/// its addresses, CAs and user replaced by the secured broker's (the one broker plays both
/// clusters), starts a task that loads both internal topics over SASL_SSL with SCRAM-SHA-512.
#[test]
fn example_mm2_tls_sasl_properties_load_both_stores_over_the_secured_listener() {
    let _g = serial();
    install_logger();
    let kafka = SecureKafka::shared();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mm2-tls-sasl.properties");
    let text = std::fs::read_to_string(&path).unwrap();
    let (user, password) = kafka.credentials();
    let ca = kafka.ca().display().to_string();
    let sasl = kafka.bootstrap(Listener::SaslSsl(Mechanism::ScramSha512));
    let props: Vec<(String, String)> = parse_properties(&text)
        .unwrap()
        .into_iter()
        .map(|(key, value)| {
            let replaced = match key.split_once('.').map(|(_, setting)| setting) {
                Some("bootstrap.servers") => sasl.clone(),
                Some("ssl.ca.location") => ca.clone(),
                Some("sasl.username") => user.to_owned(),
                Some("sasl.password") => password.to_owned(),
                _ => value,
            };
            (key, replaced)
        })
        .collect();
    let (config, warnings) = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    for client in [
        config.offset_syncs_consumer_config(),
        config.checkpoints_consumer_config(),
    ] {
        assert_eq!(client["bootstrap.servers"], sasl);
        assert_eq!(client["sasl.mechanism"], "SCRAM-SHA-512");
        assert_eq!(client["sasl.password"], password);
    }
    loads_both_stores(config);
}

/// Creates the flow's internal topics, then starts a task that must load both stores without
/// failing, and stops it cleanly.
fn loads_both_stores(config: MirrorCheckpointConfig) {
    create_plain(&config.offset_syncs_topic(), 1);
    create_plain(&config.checkpoints_topic(), 1);
    let task = CheckpointTask::new(config).unwrap();
    task.start().unwrap();
    wait_until(Duration::from_secs(60), "both stores loaded", || {
        assert!(task.fatal_error().is_none(), "{:?}", task.fatal_error());
        task.stats().initialized
    });
    assert!(matches!(task.stop(), Ok(StopOutcome::Stopped(_))));
    assert_no_leaks();
}

/// Every secured way in, before and after the broker is restarted with a freshly formatted log
/// dir (the launcher replays the SCRAM users at format time and keeps its certificates); a
/// wrong SCRAM password and a missing client certificate are refused, so the probe can tell.
#[test]
fn a_secured_broker_restarted_fresh_still_accepts_tls_mutual_tls_and_every_sasl_mechanism() {
    let mut kafka = SecureKafka::start();
    let listeners: Vec<Listener> = [Listener::Ssl, Listener::MutualTls]
        .into_iter()
        .chain(Mechanism::ALL.into_iter().map(Listener::SaslSsl))
        .collect();
    let probe_all = |kafka: &SecureKafka, when: &str| {
        for &listener in &listeners {
            let answer = SecureKafka::probe(&kafka.client_settings(listener), PROBE);
            assert_eq!(answer, Ok(1), "{when}: {listener:?}");
        }
    };
    probe_all(&kafka, "after start");
    let mut wrong = kafka.client_settings(Listener::SaslSsl(Mechanism::ScramSha256));
    for (key, value) in &mut wrong {
        if key == "sasl.password" {
            value.push_str("-wrong");
        }
    }
    // It can only fail, at the timeout: a short one is enough.
    assert!(
        SecureKafka::probe(&wrong, Duration::from_secs(3)).is_err(),
        "a wrong SCRAM password was accepted"
    );
    // And the MTLS listener does require the certificate.
    let mut anonymous = kafka.client_settings(Listener::MutualTls);
    anonymous.retain(|(key, _)| key != "ssl.certificate.location" && key != "ssl.key.location");
    assert!(
        SecureKafka::probe(&anonymous, Duration::from_secs(3)).is_err(),
        "the MTLS listener accepted a client without a certificate"
    );
    kafka.broker_mut().restart_fresh();
    probe_all(&kafka, "after a fresh restart");
}

/// An mm2.properties written for Java MM2, with `sasl.jaas.config` (SCRAM-SHA-512, a quoted
/// password) at the top level instead of librdkafka's `sasl.username`/`sasl.password`, starts a
/// task that loads both internal topics over SASL_SSL: the login module is translated.
#[test]
fn a_java_style_sasl_jaas_config_for_scram_loads_both_stores_over_sasl_ssl() {
    let _g = serial();
    install_logger();
    let kafka = SecureKafka::shared();
    let (user, password) = kafka.credentials();
    let sasl = kafka.bootstrap(Listener::SaslSsl(Mechanism::ScramSha512));
    let ca = kafka.ca().display();
    let text = format!(
        "clusters = jaasSrc, jaasTgt\n\
         jaasSrc.bootstrap.servers = {sasl}\n\
         jaasTgt.bootstrap.servers = {sasl}\n\
         security.protocol = SASL_SSL\n\
         sasl.mechanism = SCRAM-SHA-512\n\
         sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required \\\n    \
         username=\"{user}\" \\\n    password=\"{password}\";\n\
         ssl.ca.location = {ca}\n\
         jaasSrc->jaasTgt.enabled = true\n"
    );
    let (config, warnings) = MirrorCheckpointConfig::from_properties_text(&text).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    for client in [
        config.source_admin_config(),
        config.target_producer_config(),
    ] {
        assert_eq!(client["sasl.username"], user);
        assert_eq!(client["sasl.password"], password);
        assert!(!client.contains_key("sasl.jaas.config"));
    }
    loads_both_stores(config);
}
