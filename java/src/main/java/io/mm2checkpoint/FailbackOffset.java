package io.mm2checkpoint;

import java.util.Objects;

/**
 * A consumer group's position on an original partition, translated back from its commit on the
 * replica cluster ({@link RemoteClusterUtils#translateOffsetsBack}). Never ahead: a consumer
 * resuming at {@code offset} skips no record it had not read on the replica.
 *
 * @param group         the consumer group
 * @param topic         the original topic, on the forward flow's source cluster
 * @param partition     the partition (the same on both clusters)
 * @param offset        where the group resumes on the original topic
 * @param rereadsAtMost the most records a consumer resuming there reads a second time
 * @param replicaTopic  the replica topic the group committed on (e.g. {@code primary.orders})
 * @param replicaOffset the group's committed offset there, which this translates
 * @param metadata      the metadata committed with it
 */
public record FailbackOffset(
        String group,
        String topic,
        int partition,
        long offset,
        long rereadsAtMost,
        String replicaTopic,
        long replicaOffset,
        String metadata) {

    /** Rejects null text. */
    public FailbackOffset {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(replicaTopic, "replicaTopic");
        Objects.requireNonNull(metadata, "metadata");
    }
}
