package io.mm2checkpoint;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The dry run of a failover ({@link RemoteClusterUtils#failoverReport}): per group and target
 * partition, the effect of moving from the group's committed offset on the target to the
 * translated one. Changes nothing on the cluster.
 *
 * @param partitions           one entry per group and target partition, ordered by group,
 *                             topic and partition; unmodifiable
 * @param totalSkipped         offsets skipped over all entries (saturated at Long.MAX_VALUE)
 * @param totalReread          offsets read again over all entries (saturated)
 * @param withoutCurrentOffset entries whose group has no committed offset on the target yet
 */
public record FailoverReport(
        List<PartitionFailover> partitions,
        long totalSkipped,
        long totalReread,
        long withoutCurrentOffset) {

    /** Copies the list, so the value never changes. */
    public FailoverReport {
        partitions = List.copyOf(partitions);
    }

    /** The entries of {@code group}. */
    public List<PartitionFailover> forGroup(String group) {
        return partitions.stream().filter(p -> p.group().equals(group)).collect(Collectors.toUnmodifiableList());
    }
}
