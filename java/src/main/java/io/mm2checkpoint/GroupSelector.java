package io.mm2checkpoint;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Which consumer groups {@link RemoteClusterUtils#translateOffsets} translates: one group (what
 * Java's {@code RemoteClusterUtils.translateOffsets} takes), a list, or a regex that must match
 * a whole group id (the syntax of MM2's {@code groups} setting). All are read in one pass over
 * the checkpoints topic.
 *
 * @param kind   how {@code groups} is read
 * @param groups the group id, the comma-separated list, or the regex
 */
public record GroupSelector(Kind kind, String groups) {
    /** How {@link #groups()} is read; the ordinal is the C header's {@code mm_group_selector}. */
    public enum Kind {
        /** One group id, matched exactly. */
        ONE,
        /** A comma-separated list of group ids, each trimmed. */
        LIST,
        /** A regex that must match the whole group id. */
        REGEX
    }

    /** Rejects nulls and text C cannot carry. */
    public GroupSelector {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(groups, "groups");
        NativeText.requireNoNul("groups", groups);
    }

    /** Exactly {@code group}. */
    public static GroupSelector one(String group) {
        return new GroupSelector(Kind.ONE, group);
    }

    /** Every group in {@code groups}; ids containing a comma cannot be listed (use {@link #one}). */
    public static GroupSelector list(Collection<String> groups) {
        for (String g : groups) {
            if (g.indexOf(',') >= 0) {
                throw new IllegalArgumentException("group id `" + g + "` contains a comma, which separates list items");
            }
        }
        return new GroupSelector(Kind.LIST, String.join(",", groups));
    }

    /** Every group in {@code groups}. */
    public static GroupSelector list(String... groups) {
        return list(List.of(groups));
    }

    /** Every group whose whole id matches {@code regex} (checked natively when used). */
    public static GroupSelector regex(String regex) {
        return new GroupSelector(Kind.REGEX, regex);
    }
}
