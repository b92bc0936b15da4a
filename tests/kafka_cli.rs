//! The README's "Looking at what the job wrote" commands: Kafka's own command-line tools through
//! `scripts/kafka-cli.sh`, from the jars `scripts/setup-test-env.sh` put in `.tools/`, each run
//! once against a real broker holding what the job and the mirror write.

use std::process::Command;

use mm2_checkpoint::{Checkpoint, OffsetSync, TopicPartition};
use support::{commit_group_offsets, create_topic, produce, shared, unique};

/// Runs `scripts/kafka-cli.sh` with `args`; its standard output, after checking it succeeded.
fn kafka_cli(args: &[&str]) -> String {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/kafka-cli.sh");
    let out = Command::new(script).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "kafka-cli.sh {args:?}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn kafka_consumer_groups_describes_a_group_with_its_committed_offsets() {
    let bootstrap = shared().bootstrap();
    let (topic, group) = (unique("orders"), unique("billing"));
    create_topic(&bootstrap, &topic, 2);
    commit_group_offsets(
        &bootstrap,
        &group,
        &[(&topic, 0, 0, ""), (&topic, 1, 0, "")],
    );
    // The README says `--all-groups`; on the shared broker that races other tests: the tool
    // lists the groups, then describes each, and a group deleted in between fails the whole
    // command ("... is not a consumer group"). `--group` is the same describe.
    let out = kafka_cli(&[
        "kafka-consumer-groups",
        "--bootstrap-server",
        &bootstrap,
        "--describe",
        "--group",
        &group,
    ]);
    for p in 0..2 {
        let row = out
            .lines()
            .find(|l| {
                l.starts_with(&group) && l.contains(&format!(" {topic} ")) && {
                    l.split_whitespace().nth(2) == Some(&p.to_string())
                }
            })
            .unwrap_or_else(|| panic!("no row for {group} {topic}-{p}:\n{out}"));
        assert_eq!(row.split_whitespace().nth(3), Some("0"), "{row}");
    }
}

#[test]
fn the_checkpoint_and_offset_sync_formatters_print_the_records_the_library_writes() {
    let bootstrap = shared().bootstrap();
    let (checkpoints, syncs) = (unique("checkpoints"), unique("offset-syncs"));
    create_topic(&bootstrap, &checkpoints, 1);
    create_topic(&bootstrap, &syncs, 1);
    let checkpoint = Checkpoint::new(
        "analytics",
        TopicPartition::new("source.orders", 1),
        980,
        910,
        "",
    );
    produce(
        &bootstrap,
        &checkpoints,
        0,
        Some(&checkpoint.encode_key().unwrap()),
        Some(&checkpoint.encode_value().unwrap()),
    );
    let sync = OffsetSync::new(TopicPartition::new("orders", 1), 900, 830);
    produce(
        &bootstrap,
        &syncs,
        0,
        Some(&sync.encode_key().unwrap()),
        Some(&sync.encode_value()),
    );
    let formatter = |topic: &str, class: &str| {
        kafka_cli(&[
            "kafka-console-consumer",
            "--bootstrap-server",
            &bootstrap,
            "--topic",
            topic,
            "--partition",
            "0",
            "--offset",
            "earliest",
            // Each topic holds one record: the tool exits once it has printed it. The idle
            // timeout only bounds a failure (5 s was too short for a loaded CI machine, where
            // the tool's JVM and first fetch took longer and it gave up before the record).
            "--max-messages",
            "1",
            "--timeout-ms",
            "60000",
            "--formatter",
            &format!("org.apache.kafka.connect.mirror.formatters.{class}"),
        ])
    };
    let out = formatter(&checkpoints, "CheckpointFormatter");
    for field in [
        "consumerGroupId=analytics",
        "topicPartition=source.orders-1",
        "upstreamOffset=980",
        "downstreamOffset=910",
    ] {
        assert!(out.contains(field), "{field} missing: {out}");
    }
    let out = formatter(&syncs, "OffsetSyncFormatter");
    for field in [
        "topicPartition=orders-1",
        "upstreamOffset=900",
        "downstreamOffset=830",
    ] {
        assert!(out.contains(field), "{field} missing: {out}");
    }
}
