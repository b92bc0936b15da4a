// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

/**
 * The list rows of the C header ({@code mm_<kind>_row}, filled by {@code mm_<list>_row}), as
 * records. Each binding reads a row through {@link NativeBinding#row} from the {@link Kind}
 * alone, so a field added to a row in the header reaches Java by regenerating this file.
 * Numbers are C {@code int64_t} or {@code uint64_t} as {@code long}; text is null when the
 * entry does not have it.
 */
final class NativeRows {
    private NativeRows() {}

    /**
     * A row kind: {@code id} selects it in the JNI bridge, {@code struct} names it in the layout
     * file, {@code function} fills it; {@code numbers} and {@code texts} are its fields in order.
     */
    record Kind(int id, String struct, String function, String[] numbers, String[] texts) {}

    /** {@code mm_checkpoint_row}, filled by {@code mm_batch_row}. */
    static final Kind CHECKPOINT_ROW = new Kind(0, "mm_checkpoint_row", "mm_batch_row",
            new String[] {"partition", "upstream_offset", "downstream_offset"},
            new String[] {"group", "topic", "metadata"});

    /**
     * One checkpoint of a batch, filled by {@code mm_batch_row}. Set {@code struct_size} to {@code
     * sizeof(mm_checkpoint_row)} first; fields are only ever added at the end. Text is UTF-8,
     * NUL-terminated, owned by the batch (valid until {@code mm_batch_destroy}), with its length in
     * bytes beside it (it tells text with an embedded NUL from a shorter one).
     *
     * @param group The consumer group (same name on both clusters).
     * @param topic The target (renamed) topic.
     * @param partition The partition, the same number on both clusters.
     * @param upstreamOffset The group's committed offset on the source cluster.
     * @param downstreamOffset The translated offset on the target cluster.
     * @param metadata The source commit's metadata (often empty).
     */
    record CheckpointRow(
            String group,
            String topic,
            long partition,
            long upstreamOffset,
            long downstreamOffset,
            String metadata) {}

    /** Row {@code index} of {@code list} through {@code mm_batch_row}. */
    static CheckpointRow checkpoint(NativeBinding b, long list, int index) {
        long[] n = new long[CHECKPOINT_ROW.numbers().length];
        String[] t = b.row(CHECKPOINT_ROW, list, index, n);
        return new CheckpointRow(t[0], t[1], n[0], n[1], n[2], t[2]);
    }

    /** {@code mm_partition_status_row}, filled by {@code mm_partition_statuses_row}. */
    static final Kind PARTITION_STATUS_ROW = new Kind(1, "mm_partition_status_row", "mm_partition_statuses_row",
            new String[] {"partition", "last_upstream_offset", "last_downstream_offset"},
            new String[] {"group", "topic", "reason", "last_metadata"});

    /**
     * One entry of a partition-status list, filled by {@code mm_partition_statuses_row}. Set {@code
     * struct_size} to {@code sizeof(mm_partition_status_row)} first; fields are only ever added at
     * the end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is destroyed), with
     * its length in bytes beside it; NULL (length 0) when the entry has no such value.
     *
     * @param group The consumer group.
     * @param topic The upstream (source) topic.
     * @param partition The upstream partition.
     * @param reason Why the last cycle wrote no checkpoint (e.g. {@code "no_offset_sync"}); NULL
     * when it wrote one.
     * @param lastUpstreamOffset Upstream offset of the last checkpoint written; -1 when none was
     * written yet.
     * @param lastDownstreamOffset Downstream offset of the last checkpoint written; -1 when none
     * was written yet.
     * @param lastMetadata Metadata of the last checkpoint written; NULL when none was written yet.
     */
    record PartitionStatusRow(
            String group,
            String topic,
            long partition,
            String reason,
            long lastUpstreamOffset,
            long lastDownstreamOffset,
            String lastMetadata) {}

    /** Row {@code index} of {@code list} through {@code mm_partition_statuses_row}. */
    static PartitionStatusRow partitionStatus(NativeBinding b, long list, int index) {
        long[] n = new long[PARTITION_STATUS_ROW.numbers().length];
        String[] t = b.row(PARTITION_STATUS_ROW, list, index, n);
        return new PartitionStatusRow(t[0], t[1], n[0], t[2], n[1], n[2], t[3]);
    }

    /** {@code mm_group_sync_result_row}, filled by {@code mm_group_sync_results_row}. */
    static final Kind GROUP_SYNC_RESULT_ROW = new Kind(2, "mm_group_sync_result_row", "mm_group_sync_results_row",
            new String[] {"partition", "written_offset"},
            new String[] {"group", "topic", "reason", "error"});

    /**
     * One entry of a group-sync result list, filled by {@code mm_group_sync_results_row}. Set
     * {@code struct_size} to {@code sizeof(mm_group_sync_result_row)} first; fields are only ever
     * added at the end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is
     * destroyed), with its length in bytes beside it; NULL (length 0) when the entry has no such
     * value.
     *
     * @param group The target consumer group.
     * @param topic The target topic.
     * @param partition The target partition.
     * @param writtenOffset The offset committed into the target group; -1 when none was written
     * ({@code reason} says why).
     * @param reason Why the entry was written or not (e.g. {@code "target_behind"}, {@code
     * "group_active"}).
     * @param error The broker's error when the write failed; NULL when it did not fail.
     */
    record GroupSyncResultRow(
            String group,
            String topic,
            long partition,
            long writtenOffset,
            String reason,
            String error) {}

    /** Row {@code index} of {@code list} through {@code mm_group_sync_results_row}. */
    static GroupSyncResultRow groupSyncResult(NativeBinding b, long list, int index) {
        long[] n = new long[GROUP_SYNC_RESULT_ROW.numbers().length];
        String[] t = b.row(GROUP_SYNC_RESULT_ROW, list, index, n);
        return new GroupSyncResultRow(t[0], t[1], n[0], n[1], t[2], t[3]);
    }

    /** {@code mm_failback_row}, filled by {@code mm_failback_offsets_row}. */
    static final Kind FAILBACK_ROW = new Kind(3, "mm_failback_row", "mm_failback_offsets_row",
            new String[] {"partition", "offset", "rereads_at_most", "replica_offset"},
            new String[] {"group", "topic", "replica_topic", "metadata", "untranslated_reason"});

    /**
     * One entry of a failback translation, filled by {@code mm_failback_offsets_row}. Set {@code
     * struct_size} to {@code sizeof(mm_failback_row)} first; fields are only ever added at the end.
     * Text is UTF-8, NUL-terminated, owned by the list (valid until it is destroyed), with its
     * length in bytes beside it.
     *
     * @param group The consumer group.
     * @param topic The original topic on the source cluster of the forward flow; empty when
     * untranslated.
     * @param partition The partition (the same on both clusters).
     * @param offset Where the group resumes on the original topic; -1 when untranslated.
     * @param rereadsAtMost The most records a consumer resuming there reads a second time; -1 when
     * untranslated.
     * @param replicaTopic The replica topic the group committed on.
     * @param replicaOffset The group's committed offset on the replica topic.
     * @param metadata The metadata committed with it.
     * @param untranslatedReason Empty when translated; else why not: {@code no_offset_sync} (the
     * flow has no sync for the partition) or {@code older_than_every_sync} (every sync is after the
     * commit).
     */
    record FailbackRow(
            String group,
            String topic,
            long partition,
            long offset,
            long rereadsAtMost,
            String replicaTopic,
            long replicaOffset,
            String metadata,
            String untranslatedReason) {}

    /** Row {@code index} of {@code list} through {@code mm_failback_offsets_row}. */
    static FailbackRow failback(NativeBinding b, long list, int index) {
        long[] n = new long[FAILBACK_ROW.numbers().length];
        String[] t = b.row(FAILBACK_ROW, list, index, n);
        return new FailbackRow(t[0], t[1], n[0], n[1], n[2], t[2], n[3], t[3], t[4]);
    }

    /** {@code mm_commit_row}, filled by {@code mm_commit_report_row}. */
    static final Kind COMMIT_ROW = new Kind(4, "mm_commit_row", "mm_commit_report_row",
            new String[] {"partition", "offset"},
            new String[] {"group", "topic", "outcome", "reason"});

    /**
     * One entry of a commit report, filled by {@code mm_commit_report_row}. Set {@code struct_size}
     * to {@code sizeof(mm_commit_row)} first; fields are only ever added at the end. Text is UTF-8,
     * NUL-terminated, owned by the report (valid until it is destroyed), with its length in bytes
     * beside it.
     *
     * @param group The consumer group.
     * @param topic The topic committed on.
     * @param partition The partition.
     * @param offset The translated offset.
     * @param outcome {@code written}, {@code left} (on purpose) or {@code failed} (the broker
     * refused it).
     * @param reason Why: for {@code written} {@code group_absent_at_target}, {@code
     * partition_new_at_target}, {@code target_offset_reset} or {@code target_behind}; for {@code
     * left} {@code group_active}, {@code group_state_unknown} or {@code target_at_or_ahead}; for
     * {@code failed} the broker's error.
     */
    record CommitRow(
            String group,
            String topic,
            long partition,
            long offset,
            String outcome,
            String reason) {}

    /** Row {@code index} of {@code list} through {@code mm_commit_report_row}. */
    static CommitRow commit(NativeBinding b, long list, int index) {
        long[] n = new long[COMMIT_ROW.numbers().length];
        String[] t = b.row(COMMIT_ROW, list, index, n);
        return new CommitRow(t[0], t[1], n[0], n[1], t[2], t[3]);
    }

    /** {@code mm_translated_offset_row}, filled by {@code mm_translated_offsets_row}. */
    static final Kind TRANSLATED_OFFSET_ROW = new Kind(5, "mm_translated_offset_row", "mm_translated_offsets_row",
            new String[] {"partition", "offset", "upstream_offset"},
            new String[] {"group", "topic", "metadata"});

    /**
     * One entry of a list of translated offsets, filled by {@code mm_translated_offsets_row}. Set
     * {@code struct_size} to {@code sizeof(mm_translated_offset_row)} first; fields are only ever
     * added at the end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is
     * destroyed or changed by {@code mm_translated_offsets_add}), with its length in bytes beside
     * it.
     *
     * @param group The consumer group (same name on both clusters).
     * @param topic The target topic, already renamed by the replication policy.
     * @param partition The partition.
     * @param offset Where the group should resume on the target (the checkpoint's downstream
     * offset).
     * @param upstreamOffset The group's committed offset on the source that this translates; -1
     * when unknown (an entry added without it).
     * @param metadata The source commit's metadata.
     */
    record TranslatedOffsetRow(
            String group,
            String topic,
            long partition,
            long offset,
            long upstreamOffset,
            String metadata) {}

    /** Row {@code index} of {@code list} through {@code mm_translated_offsets_row}. */
    static TranslatedOffsetRow translatedOffset(NativeBinding b, long list, int index) {
        long[] n = new long[TRANSLATED_OFFSET_ROW.numbers().length];
        String[] t = b.row(TRANSLATED_OFFSET_ROW, list, index, n);
        return new TranslatedOffsetRow(t[0], t[1], n[0], n[1], n[2], t[2]);
    }

    /** {@code mm_failover_row}, filled by {@code mm_failover_report_row}. */
    static final Kind FAILOVER_ROW = new Kind(6, "mm_failover_row", "mm_failover_report_row",
            new String[] {"partition", "translated_offset", "current_offset", "skipped", "reread"},
            new String[] {"group", "topic"});

    /**
     * One entry of a failover report, filled by {@code mm_failover_report_row}. Set {@code
     * struct_size} to {@code sizeof(mm_failover_row)} first; fields are only ever added at the end.
     * Text is UTF-8, NUL-terminated, owned by the report (valid until it is destroyed), with its
     * length in bytes beside it.
     *
     * @param group The consumer group.
     * @param topic The target topic.
     * @param partition The partition.
     * @param translatedOffset The translated offset, where the group would resume.
     * @param currentOffset The group's committed offset on the target now; -1 when it has none.
     * @param skipped Offsets a consumer of the group would jump over (translated ahead of current),
     * saturated at {@code INT64_MAX}.
     * @param reread Offsets a consumer of the group would read again (translated behind current),
     * saturated at {@code INT64_MAX}.
     */
    record FailoverRow(
            String group,
            String topic,
            long partition,
            long translatedOffset,
            long currentOffset,
            long skipped,
            long reread) {}

    /** Row {@code index} of {@code list} through {@code mm_failover_report_row}. */
    static FailoverRow failover(NativeBinding b, long list, int index) {
        long[] n = new long[FAILOVER_ROW.numbers().length];
        String[] t = b.row(FAILOVER_ROW, list, index, n);
        return new FailoverRow(t[0], t[1], n[0], n[1], n[2], n[3], n[4]);
    }
}
