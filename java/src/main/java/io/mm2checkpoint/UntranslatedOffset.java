package io.mm2checkpoint;

import java.util.Objects;

/**
 * A commit on a replica partition that {@link RemoteClusterUtils#translateOffsetsBack} could not
 * translate, and why; never a guess.
 *
 * @param group         the consumer group
 * @param replicaTopic  the replica topic it committed on
 * @param partition     the partition
 * @param replicaOffset the committed offset there
 * @param reason        {@code no_offset_sync} (the flow has no sync for the partition) or
 *                      {@code older_than_every_sync} (every sync is after the commit)
 */
public record UntranslatedOffset(String group, String replicaTopic, int partition, long replicaOffset, String reason) {

    /** Rejects null text. */
    public UntranslatedOffset {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(replicaTopic, "replicaTopic");
        Objects.requireNonNull(reason, "reason");
    }
}
