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

    /** From the fields of {@code mm_offset_sync_writer_stats}, as {@link NativeCalls#offsetSyncWriterGetStats} gives them. */
    static OffsetSyncWriterStats fromNative(long[] values) {
        NativeStructs.Values f = new NativeStructs.Values(NativeStructs.MM_OFFSET_SYNC_WRITER_STATS, values);
        return new OffsetSyncWriterStats(f.get("records_reported"), f.get("syncs_sent"), f.get("syncs_delivered"),
                f.get("syncs_failed"), f.get("promotions"), f.get("pending"), f.get("delayed"),
                f.get("outstanding"), f.get("closed") != 0);
    }
}
