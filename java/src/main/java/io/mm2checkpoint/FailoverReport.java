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

    /**
     * True when {@code group} has entries and its committed offset on every one is already at or
     * past the translated offset: its latest position where it committed last is reflected on
     * this cluster.
     */
    public boolean caughtUp(String group) {
        List<PartitionFailover> entries = forGroup(group);
        return !entries.isEmpty() && entries.stream().allMatch(
                p -> p.currentOffset().isPresent() && p.currentOffset().getAsLong() >= p.translatedOffset());
    }
}
