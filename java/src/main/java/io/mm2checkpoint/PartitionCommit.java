package io.mm2checkpoint;

import java.util.Objects;

/**
 * What committing one group's translated offset on one partition did
 * ({@link RemoteClusterUtils#commitTranslatedOffsets}).
 *
 * @param group     the consumer group
 * @param topic     the topic committed on
 * @param partition the partition
 * @param offset    the translated offset
 * @param outcome   {@code written}, {@code left} (on purpose) or {@code failed} (the broker
 *                  refused it)
 * @param reason    for {@code written}: {@code group_absent_at_target},
 *                  {@code partition_new_at_target}, {@code target_offset_reset} or
 *                  {@code target_behind}; for {@code left}: {@code group_active},
 *                  {@code group_state_unknown} or {@code target_at_or_ahead}; for
 *                  {@code failed}: the broker's error
 */
public record PartitionCommit(String group, String topic, int partition, long offset, String outcome, String reason) {

    /** Rejects null text. */
    public PartitionCommit {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(reason, "reason");
    }
}
