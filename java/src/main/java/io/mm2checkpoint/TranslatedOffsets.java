package io.mm2checkpoint;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The answer of {@link RemoteClusterUtils#translateOffsets}: the latest translated offset of
 * every selected group on every target partition it has a checkpoint for, ordered by group,
 * topic and partition; and what was read.
 *
 * @param checkpointsTopic      the checkpoints topic read (empty for a list made by hand)
 * @param offsets               one entry per group and target partition; unmodifiable
 * @param recordsRead           records read from the checkpoints topic (all groups)
 * @param malformedRecords      records that failed to decode, skipped
 * @param negativeOffsetRecords checkpoints of selected groups with a negative offset, skipped
 */
public record TranslatedOffsets(
        String checkpointsTopic,
        List<TranslatedOffset> offsets,
        long recordsRead,
        long malformedRecords,
        long negativeOffsetRecords) {

    /** Copies the list, so the value never changes. */
    public TranslatedOffsets {
        Objects.requireNonNull(checkpointsTopic, "checkpointsTopic");
        offsets = List.copyOf(offsets);
    }

    /** A list made by hand (e.g. a failover plan to check with {@link RemoteClusterUtils#failoverReport}). */
    public static TranslatedOffsets of(List<TranslatedOffset> offsets) {
        return new TranslatedOffsets("", offsets, 0, 0, 0);
    }

    /** The entries of {@code group}, in topic-partition order. */
    public List<TranslatedOffset> forGroup(String group) {
        return offsets.stream().filter(o -> o.group().equals(group)).collect(Collectors.toUnmodifiableList());
    }

    /** The groups that have at least one entry, in order. */
    public Set<String> groups() {
        Set<String> out = new LinkedHashSet<>();
        offsets.forEach(o -> out.add(o.group()));
        return out;
    }
}
