//! librdkafka's in-process mock clusters, one per simulated cluster (no process, no port
//! allocation races; good for fast tests that need a broker but no real one).

use rdkafka::mocking::MockCluster;
use rdkafka::producer::DefaultProducerContext;

/// A mock Kafka cluster living inside the test process until dropped.
pub type Mock = MockCluster<'static, DefaultProducerContext>;

/// Starts a mock cluster with `brokers` brokers.
pub fn mock_cluster(brokers: i32) -> Mock {
    MockCluster::new(brokers).unwrap_or_else(|e| panic!("mock cluster with {brokers} brokers: {e}"))
}

/// Creates `name` with `partitions` partitions (replication 1) on a mock cluster.
pub fn create_mock_topic(cluster: &Mock, name: &str, partitions: i32) {
    cluster
        .create_topic(name, partitions, 1)
        .unwrap_or_else(|e| panic!("mock topic {name}: {e}"));
}

/// Two independent single-broker mock clusters, the source and target of a replication flow.
pub struct MockPair {
    /// The cluster records are replicated from.
    pub source: Mock,
    /// The cluster records are replicated to.
    pub target: Mock,
}

impl MockPair {
    /// Starts both clusters.
    pub fn new() -> MockPair {
        MockPair {
            source: mock_cluster(1),
            target: mock_cluster(1),
        }
    }

    /// `bootstrap.servers` of the source cluster.
    pub fn source_bootstrap(&self) -> String {
        self.source.bootstrap_servers()
    }

    /// `bootstrap.servers` of the target cluster.
    pub fn target_bootstrap(&self) -> String {
        self.target.bootstrap_servers()
    }

    /// Creates a topic on the source cluster.
    pub fn create_source_topic(&self, name: &str, partitions: i32) {
        create_mock_topic(&self.source, name, partitions);
    }

    /// Creates a topic on the target cluster.
    pub fn create_target_topic(&self, name: &str, partitions: i32) {
        create_mock_topic(&self.target, name, partitions);
    }
}

impl Default for MockPair {
    fn default() -> Self {
        MockPair::new()
    }
}
