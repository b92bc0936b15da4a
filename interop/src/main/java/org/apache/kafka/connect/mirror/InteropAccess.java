package org.apache.kafka.connect.mirror;

import org.apache.kafka.common.TopicPartition;

/**
 * The interop harness's one window into MM2's package-private serializers, so that the seeded
 * offset syncs are Java MM2's own bytes. Lives in MM2's package for that reason only.
 */
public final class InteropAccess {
    private InteropAccess() {}

    public static byte[] offsetSyncKey(TopicPartition tp, long upstream, long downstream) {
        return new OffsetSync(tp, upstream, downstream).recordKey();
    }

    public static byte[] offsetSyncValue(TopicPartition tp, long upstream, long downstream) {
        return new OffsetSync(tp, upstream, downstream).recordValue();
    }
}
