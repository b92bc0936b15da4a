package io.mm2checkpoint;

import java.util.Objects;

/**
 * One checkpoint the task wrote to the target cluster and the broker confirmed: where consumer
 * group {@code group} should resume on the target after a failover.
 *
 * @param group            the consumer group (same name on both clusters)
 * @param topic            the target (downstream) topic, renamed by the replication policy,
 *                         e.g. {@code source.orders}
 * @param partition        the partition, the same number on both clusters
 * @param upstreamOffset   the group's committed offset on the source
 * @param downstreamOffset the translated offset on the target
 * @param metadata         the commit metadata of the source group, copied verbatim
 */
public record Checkpoint(
        String group,
        String topic,
        int partition,
        long upstreamOffset,
        long downstreamOffset,
        String metadata) {

    /** Rejects null fields, so records compare and hash like the native values they mirror. */
    public Checkpoint {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(metadata, "metadata");
    }

    /** The target topic-partition as Kafka prints it, e.g. {@code source.orders-0}. */
    public String topicPartition() {
        return topic + "-" + partition;
    }
}
