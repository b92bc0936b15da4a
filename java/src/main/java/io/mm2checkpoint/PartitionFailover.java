package io.mm2checkpoint;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What moving one group's consumers on one target partition to the translated offset would do.
 * The counts are offset distances, so they bound the records involved (compaction and
 * transaction markers make them smaller).
 *
 * @param group            the consumer group
 * @param topic            the target topic
 * @param partition        the partition
 * @param translatedOffset the translated offset
 * @param currentOffset    the group's committed offset on the target now, if it has one
 * @param skipped          offsets the consumers would jump over (translated ahead of current)
 * @param reread           offsets the consumers would read again (translated behind current)
 */
public record PartitionFailover(
        String group,
        String topic,
        int partition,
        long translatedOffset,
        OptionalLong currentOffset,
        long skipped,
        long reread) {

    /** Rejects null fields. */
    public PartitionFailover {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(currentOffset, "currentOffset");
    }
}
