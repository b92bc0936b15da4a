//! `group.offsets.source` and the consumer of `__consumer_offsets` it implies.

use super::*;

#[test]
fn group_offsets_source_defaults_to_poll_and_reads_both_values_in_either_shape() {
    assert_eq!(
        ok(CONNECTOR, &[]).group_offsets_source,
        GroupOffsetsSource::Poll
    );
    let table = [
        (
            CONNECTOR,
            "group.offsets.source",
            "poll",
            GroupOffsetsSource::Poll,
        ),
        (
            CONNECTOR,
            "group.offsets.source",
            " consumer-offsets-topic ",
            GroupOffsetsSource::ConsumerOffsetsTopic,
        ),
        (
            DEDICATED,
            "A->B.group.offsets.source",
            "consumer-offsets-topic",
            GroupOffsetsSource::ConsumerOffsetsTopic,
        ),
        (
            DEDICATED,
            "group.offsets.source",
            "consumer-offsets-topic",
            GroupOffsetsSource::ConsumerOffsetsTopic,
        ),
    ];
    for (base, key, value, want) in table {
        let c = ok(base, &[(key, value)]);
        assert_eq!(c.group_offsets_source, want, "{key} = {value}");
        assert!(warnings(base, &[(key, value)]).is_empty(), "{key}");
    }
}

#[test]
fn group_offsets_source_rejects_other_values_naming_the_key_written() {
    for value in [
        "Poll",
        "stream",
        "",
        "consumer_offsets_topic",
        "__consumer_offsets",
    ] {
        let e = err(CONNECTOR, &[("group.offsets.source", value)]);
        assert_eq!(e.key, "group.offsets.source", "{value:?}");
        assert!(
            e.reason.contains("`poll` or `consumer-offsets-topic`"),
            "{e}"
        );
    }
    let e = err(DEDICATED, &[("A->B.group.offsets.source", "topic")]);
    assert_eq!(e.key, "A->B.group.offsets.source");
}

#[test]
fn consumer_offsets_consumer_reads_committed_only_on_the_source_with_its_role() {
    let c = ok(
        CONNECTOR,
        &[
            ("source.consumer.fetch.min.bytes", "7"),
            ("consumer.isolation.level", "read_uncommitted"),
        ],
    );
    let props = c.consumer_offsets_consumer_config();
    assert_eq!(props["bootstrap.servers"], "a:9092");
    assert_eq!(props["fetch.min.bytes"], "7");
    assert_eq!(props["isolation.level"], "read_committed");
    assert_eq!(props["enable.auto.commit"], "false");
    assert!(props["client.id"].ends_with("|consumer-offsets-source-consumer"));
}
