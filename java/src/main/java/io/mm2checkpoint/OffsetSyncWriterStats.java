package io.mm2checkpoint;

/**
 * A snapshot of an {@link OffsetSyncWriter}'s counters ({@code mm_offset_sync_writer_get_stats}).
 *
 * @param recordsReported mirrored records reported
 * @param syncsSent       syncs handed to the producer
 * @param syncsDelivered  syncs the broker acknowledged
 * @param syncsFailed     syncs that failed (logged; as in MM2 not retried: a later sync of the
 *                        partition supersedes them)
 * @param promotions      promotions of delayed syncs (timer, flush or close)
 * @param pending         syncs due and waiting for a send permit
 * @param delayed         syncs held until the next promotion
 * @param outstanding     sends not yet acknowledged
 * @param closed          true once the writer was closed (the counters are then final)
 */
public record OffsetSyncWriterStats(
        long recordsReported,
        long syncsSent,
        long syncsDelivered,
        long syncsFailed,
        long promotions,
        long pending,
        long delayed,
        long outstanding,
        boolean closed) {

    /** From the fields of {@code mm_offset_sync_writer_stats}, in declaration order. */
    static OffsetSyncWriterStats fromNative(long[] f) {
        return new OffsetSyncWriterStats(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8] != 0);
    }
}
