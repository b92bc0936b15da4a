//! Offset syncs written with each codec MM2's producers may use (`compression.type` gzip,
//! snappy, lz4, zstd) are read back exactly by the task's offset-sync loading, on librdkafka's
//! mock cluster. A build without a codec fails here: the producer refuses the setting and the
//! consumer could not decompress. tests/security_kafka.rs repeats this on a real broker and
//! checks the codec of the stored batches.

use support::flow::{self, Side};
use support::mock::{create_mock_topic, Mock, MockPair};
use support::runtime::{assert_no_leaks, install_logger, serial};

fn side<'a>(cluster: &Mock, create_topic: &'a dyn Fn(&str, i32)) -> Side<'a> {
    Side {
        setup_bootstrap: cluster.bootstrap_servers(),
        client: vec![("bootstrap.servers".into(), cluster.bootstrap_servers())],
        create_topic,
    }
}

fn offset_syncs_round_trip(codec: &str) {
    let _g = serial();
    install_logger();
    let clusters = MockPair::new();
    let on_source =
        |name: &str, partitions: i32| create_mock_topic(&clusters.source, name, partitions);
    let on_target =
        |name: &str, partitions: i32| create_mock_topic(&clusters.target, name, partitions);
    flow::run(
        codec,
        &side(&clusters.source, &on_source),
        &side(&clusters.target, &on_target),
        Some(codec),
    );
    assert_no_leaks();
}

#[test]
fn offset_syncs_compressed_with_gzip_are_loaded_and_translated_exactly() {
    offset_syncs_round_trip("gzip");
}

#[test]
fn offset_syncs_compressed_with_snappy_are_loaded_and_translated_exactly() {
    offset_syncs_round_trip("snappy");
}

#[test]
fn offset_syncs_compressed_with_lz4_are_loaded_and_translated_exactly() {
    offset_syncs_round_trip("lz4");
}

#[test]
fn offset_syncs_compressed_with_zstd_are_loaded_and_translated_exactly() {
    offset_syncs_round_trip("zstd");
}
