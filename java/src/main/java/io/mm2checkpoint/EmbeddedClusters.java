package io.mm2checkpoint;

import java.util.List;

/**
 * Two in-process mock Kafka clusters (librdkafka's mock brokers on 127.0.0.1 ports), a source
 * and a target, for examples and tests, with what a demo needs: create topics, write data and
 * offset syncs as a mirror would, commit a source group's offsets, read checkpoints back.
 *
 * <p>The mock broker has no CreateTopics, ListGroups or DescribeGroups: create topics here and
 * name the groups in {@code task.assigned.groups}. Use from one thread at a time; stop the tasks
 * using the clusters before closing them.
 *
 * <p>Test-only: the jar's native library has no mock clusters. They come with the test kit, the
 * artifact of classifier {@value #TEST_KIT_CLASSIFIER} (a test-scope dependency beside this
 * one), whose native library the loader prefers when it is on the class path.
 */
public final class EmbeddedClusters implements AutoCloseable {
    /** Which cluster. */
    public enum Side {
        /** The upstream cluster: consumer groups commit here; offset syncs live here by default. */
        SOURCE,
        /** The downstream cluster: checkpoints are written here. */
        TARGET
    }

    /** The Maven classifier of the test kit, the artifact that carries the mock clusters. */
    public static final String TEST_KIT_CLASSIFIER = "testkit";

    private final NativeBinding binding;
    private final NativeHandle clusters;

    /**
     * Starts both clusters.
     *
     * @throws IllegalStateException when the loaded native library has no mock clusters: the
     *     test kit is not on the class path
     */
    public EmbeddedClusters() {
        binding = NativeLibrary.binding();
        NativeBinding b = binding;
        if (!b.mockClustersAvailable()) {
            throw new IllegalStateException("EmbeddedClusters needs the test kit: the native library loaded from "
                    + NativeLibrary.origin() + " has no mock clusters; add the artifact io.mm2checkpoint:mm2-checkpoint"
                    + " with classifier " + TEST_KIT_CLASSIFIER + " (test scope) to the class path");
        }
        clusters = NativeHandle.register(this, "embedded clusters", b.embeddedNew(), h -> { }, b::embeddedDestroy);
    }

    /** The {@code bootstrap.servers} of one side. */
    public String bootstrap(Side side) {
        return clusters.use(h -> binding.embeddedBootstrap(h, side.ordinal()));
    }

    /** Creates a topic. */
    public void createTopic(Side side, String topic, int partitions) {
        clusters.run(h -> binding.embeddedCreateTopic(h, side.ordinal(), topic, partitions));
    }

    /** Writes {@code count} small records to one partition and waits for their delivery. */
    public void produceData(Side side, String topic, int partition, long count) {
        clusters.run(h -> binding.embeddedProduceData(h, side.ordinal(), topic, partition, count));
    }

    /**
     * Writes offset syncs for {@code topic}/{@code partition} to {@code syncsTopic}, encoded as
     * MM2's MirrorSourceTask does: sync {@code i} says upstream offset {@code upstream[i]} landed
     * at downstream offset {@code downstream[i]}.
     */
    public void produceOffsetSyncs(Side side, String syncsTopic, String topic, int partition, long[] upstream,
            long[] downstream) {
        if (upstream.length != downstream.length) {
            throw new IllegalArgumentException(
                    upstream.length + " upstream offsets but " + downstream.length + " downstream offsets");
        }
        clusters.run(h -> binding.embeddedProduceOffsetSyncs(h, side.ordinal(), syncsTopic, topic, partition,
                upstream, downstream));
    }

    /** Commits an offset for a group without joining it (as a stopped consumer leaves it). */
    public void commitOffset(Side side, String group, String topic, int partition, long offset, String metadata) {
        clusters.run(h -> binding.embeddedCommitOffset(h, side.ordinal(), group, topic, partition, offset, metadata));
    }

    /** Every checkpoint currently in {@code checkpointsTopic} on the target, in topic order. */
    public List<Checkpoint> readCheckpoints(String checkpointsTopic) {
        long batch = clusters.use(h -> binding.embeddedReadCheckpoints(h, checkpointsTopic));
        return Batches.drain(binding, batch);
    }

    /** Shuts both clusters down. Idempotent. */
    @Override
    public void close() {
        clusters.close();
    }
}
