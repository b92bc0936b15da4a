//! `group.offsets.source = consumer-offsets-topic` as a least-privilege principal on a real broker
//! with KRaft's StandardAuthorizer: without DESCRIBE on `__consumer_offsets` the stream refuses
//! to start, without READ it fails once the first Fetch is denied, both naming the ACL to grant;
//! with READ it keeps the commits. (The checkpoint task turns either failure into a warning and
//! today's `poll` path, README "Offsets source".)
//!
//! Setup commits go through the PLAINTEXT listener (the broker's own super user); the stream
//! connects over SASL_SSL as a principal of its own per test.

use std::time::Duration;

use mm2_checkpoint::group_offsets_stream::GroupOffsetsStream;
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::{Error, TopicPartition};

use support::acl::{grant, Acl, Operation, Resource};
use support::secure_kafka::{Listener, Mechanism, SecureKafka};
use support::*;

const WAIT: Duration = Duration::from_secs(60);
const ACL_TEXT: &str = "READ and DESCRIBE on topic `__consumer_offsets`";

/// A commit of `group` (made as the super user), so that `__consumer_offsets` exists.
fn commit(group: &str, topic: &str, offset: i64) {
    let kafka = SecureKafka::with_authorizer();
    let plain = kafka.bootstrap(Listener::Plaintext);
    ensure_topic(&plain, topic, 1);
    commit_group_offsets(&plain, group, &[(topic, 0, offset, "")]);
}

/// The stream's configuration as ACL user `user`, over SASL_SSL.
fn config(user: usize, groups: &str) -> MirrorCheckpointConfig {
    let kafka = SecureKafka::with_authorizer();
    let bootstrap = kafka.bootstrap(Listener::SaslSsl(Mechanism::ScramSha512));
    let mut props: Vec<(String, String)> = kafka
        .acl_user_settings(user)
        .into_iter()
        .filter(|(k, _)| k != "bootstrap.servers")
        .map(|(k, v)| (format!("source.cluster.{k}"), v))
        .collect();
    props.extend([
        ("source.cluster.alias".to_owned(), "S".to_owned()),
        (
            "source.cluster.bootstrap.servers".to_owned(),
            bootstrap.clone(),
        ),
        ("target.cluster.bootstrap.servers".to_owned(), bootstrap),
        (
            "group.offsets.source".to_owned(),
            "consumer-offsets-topic".to_owned(),
        ),
        ("groups".to_owned(), groups.to_owned()),
    ]);
    MirrorCheckpointConfig::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .unwrap()
        .0
}

fn grant_on_consumer_offsets(user: usize, operation: Operation) {
    let kafka = SecureKafka::with_authorizer();
    grant(
        &kafka.admin_settings(),
        &SecureKafka::acl_user(user),
        &[Acl::new(
            Resource::Topic("__consumer_offsets".to_owned()),
            operation,
        )],
    );
}

#[test]
fn without_describe_on_consumer_offsets_start_fails_naming_the_acl() {
    let group = unique("acl-none");
    commit(&group, &unique("acl-none-topic"), 1);
    let result = GroupOffsetsStream::start(&config(0, &group), |_| true);
    match result {
        Err(Error::Fatal { context, message }) => {
            assert!(context.contains("__consumer_offsets"), "{context}");
            assert!(message.contains(ACL_TEXT), "{message}");
        }
        Err(other) => panic!("not a fatal ACL error: {other}"),
        Ok(_) => panic!("the stream started without DESCRIBE on __consumer_offsets"),
    }
}

#[test]
fn with_describe_but_no_read_the_stream_fails_naming_the_acl() {
    let group = unique("acl-describe");
    commit(&group, &unique("acl-describe-topic"), 1);
    grant_on_consumer_offsets(1, Operation::Describe);
    let stream = GroupOffsetsStream::start(&config(1, &group), |_| true)
        .unwrap_or_else(|e| panic!("start with DESCRIBE: {e}"));
    let failure = wait_for(WAIT, "the denied Fetch to fail the stream", || {
        stream.failure()
    });
    let message = failure.to_string();
    assert!(message.contains(ACL_TEXT), "{message}");
    assert!(!stream.caught_up());
}

#[test]
fn with_read_the_stream_keeps_the_commits() {
    let group = unique("acl-read");
    let topic = unique("acl-read-topic");
    commit(&group, &topic, 7);
    grant_on_consumer_offsets(2, Operation::Read);
    let stream = GroupOffsetsStream::start(&config(2, &group), |_| true)
        .unwrap_or_else(|e| panic!("start with READ: {e}"));
    wait_until(WAIT, "the stream to keep the commit", || {
        assert_eq!(stream.failure(), None);
        stream
            .group_offsets(&group)
            .iter()
            .any(|(tp, c)| *tp == TopicPartition::new(&topic, 0) && c.offset == 7)
    });
}
