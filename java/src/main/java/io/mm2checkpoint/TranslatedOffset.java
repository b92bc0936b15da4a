package io.mm2checkpoint;

import java.util.Objects;

/**
 * Where consumer group {@code group} should resume on the target cluster after a failover: the
 * latest checkpoint of the group for one target partition.
 *
 * @param group          the consumer group (same name on both clusters)
 * @param topic          the target topic, already renamed by the replication policy (e.g.
 *                       {@code source.orders}), ready for {@code seek} or a commit
 * @param partition      the partition
 * @param offset         the translated offset on the target
 * @param upstreamOffset the group's committed offset on the source that this translates; -1
 *                       when unknown (an entry made by hand)
 * @param metadata       the source commit's metadata
 */
public record TranslatedOffset(
        String group,
        String topic,
        int partition,
        long offset,
        long upstreamOffset,
        String metadata) {

    /** Rejects null fields and values the native side would refuse. */
    public TranslatedOffset {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(metadata, "metadata");
        if (partition < 0 || offset < 0) {
            throw new IllegalArgumentException("partition " + partition + " and offset " + offset + " must not be negative");
        }
    }

    /** The target topic-partition as Kafka prints it, e.g. {@code source.orders-0}. */
    public String topicPartition() {
        return topic + "-" + partition;
    }
}
