package io.mm2checkpoint;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The answer of {@link RemoteClusterUtils#translateOffsetsBack}: per group and original
 * partition, where the group resumes on the forward flow's source cluster; and the commits that
 * could not be translated.
 *
 * @param offsets      one entry per group and original partition, ordered by group, topic and
 *                     partition; unmodifiable
 * @param untranslated the commits without a translation; unmodifiable
 */
public record FailbackOffsets(List<FailbackOffset> offsets, List<UntranslatedOffset> untranslated) {

    /** Copies the lists, so the value never changes. */
    public FailbackOffsets {
        offsets = List.copyOf(offsets);
        untranslated = List.copyOf(untranslated);
    }

    /** The entries of {@code group}, in topic-partition order. */
    public List<FailbackOffset> forGroup(String group) {
        return offsets.stream().filter(o -> o.group().equals(group)).collect(Collectors.toUnmodifiableList());
    }

    /** The most records all entries together read a second time (saturated at Long.MAX_VALUE). */
    public long totalRereadsAtMost() {
        long sum = 0;
        for (FailbackOffset o : offsets) {
            sum = sum > Long.MAX_VALUE - o.rereadsAtMost() ? Long.MAX_VALUE : sum + o.rereadsAtMost();
        }
        return sum;
    }

    /**
     * The translation as a plan for the original cluster: give it to
     * {@link RemoteClusterUtils#failoverReport} for the dry run there (a group is
     * {@linkplain FailoverReport#caughtUp caught up} when it is already at or past it) and to
     * {@link RemoteClusterUtils#commitTranslatedOffsets} to commit it, each with the original
     * cluster's settings. {@code upstreamOffset} is the group's offset on the replica.
     */
    public TranslatedOffsets asPlan() {
        return TranslatedOffsets.of(offsets.stream()
                .map(o -> new TranslatedOffset(o.group(), o.topic(), o.partition(), o.offset(), o.replicaOffset(),
                        o.metadata()))
                .collect(Collectors.toList()));
    }
}
