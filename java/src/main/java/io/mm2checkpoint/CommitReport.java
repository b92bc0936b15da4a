package io.mm2checkpoint;

import java.util.List;

/**
 * What {@link RemoteClusterUtils#commitTranslatedOffsets} did, per group and partition.
 *
 * @param partitions one entry per group and partition, ordered by group, topic and partition;
 *                   unmodifiable
 */
public record CommitReport(List<PartitionCommit> partitions) {

    /** Copies the list, so the value never changes. */
    public CommitReport {
        partitions = List.copyOf(partitions);
    }

    /** Partitions committed. */
    public long written() {
        return count("written");
    }

    /** Partitions left alone on purpose. */
    public long left() {
        return count("left");
    }

    /** Partitions whose commit the broker refused. */
    public long failed() {
        return count("failed");
    }

    private long count(String outcome) {
        return partitions.stream().filter(p -> p.outcome().equals(outcome)).count();
    }
}
