// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

/**
 * Every C function of {@code mm2_checkpoint.h} that crosses by rule, in Java types: a handle is
 * a {@code long} address, text a {@link String}, an output parameter the result, and an
 * {@code mm_result} other than OK an {@link Mm2Exception} (tests/bindings/calls.rs has the
 * rules). Implemented over JNI by {@link JniCalls} and over java.lang.foreign by
 * {@code PanamaCalls}. Thread rules are the C ones (see the header).
 */
interface NativeCalls {
    /**
     * {@code mm_batch_len}: Writes the number of checkpoints in the batch to {@code *len_out}.
     */
    long batchLen(long batch);

    /**
     * {@code mm_batch_status}: Writes why the poll that made this batch returned to {@code
     * *status_out} ({@code MM_POLL_STATUS_NONE} for a batch that is not a poll result).
     */
    int batchStatus(long batch);

    /**
     * {@code mm_batch_destroy}: Frees a batch and all its text.
     */
    void batchDestroy(long batch);

    /**
     * {@code mm_result_str}: Names a result: static, NUL-terminated text that starts with the
     * constant's name, e.g. {@code "MM_RESULT_OK: success"}.
     */
    String resultStr(int result);

    /**
     * {@code mm_version}: The library version, e.g. {@code "0.2.0"}: static, NUL-terminated, never
     * NULL.
     */
    String version();

    /**
     * {@code mm_version_num}: The library version as one integer, {@code (major << 16) | (minor <<
     * 8) | patch} (0x000200 for 0.2.0): equal to {@code MM2_CHECKPOINT_VERSION_NUM} when header and
     * library match.
     */
    int versionNum();

    /**
     * {@code mm_conf_new}: Makes an empty configuration and writes it to {@code *conf_out}.
     */
    long confNew();

    /**
     * {@code mm_conf_set}: Sets {@code key} to {@code value} (both UTF-8, copied).
     */
    void confSet(long conf, String key, String value);

    /**
     * {@code mm_conf_unset}: Removes {@code key} (trimmed).
     */
    void confUnset(long conf, String key);

    /**
     * {@code mm_conf_get}: Reads the value of {@code key} (trimmed) into {@code dest},
     * NUL-terminated.
     */
    String confGet(long conf, String key);

    /**
     * {@code mm_conf_dup}: Copies a configuration into {@code *conf_out}.
     */
    long confDup(long conf);

    /**
     * {@code mm_conf_destroy}: Frees a configuration that was not handed to a successful {@code
     * mm_task_new}.
     */
    void confDestroy(long conf);

    /**
     * {@code mm_conf_load_properties}: Sets every key of a Java {@code .properties} text (an {@code
     * mm2.properties} file's content, UTF-8) as {@code mm_conf_set} would.
     */
    void confLoadProperties(long conf, String properties);

    /**
     * {@code mm_conf_describe}: Writes the resolved configuration, as {@code mm_task_new} would
     * read {@code conf}, into {@code dest}: one canonical text, one line per setting, secret values
     * shown as {@code [hidden]}.
     */
    String confDescribe(long conf);

    /**
     * {@code mm_conf_count}: Writes the number of keys set into {@code *count_out}.
     */
    long confCount(long conf);

    /**
     * {@code mm_conf_key}: Reads the key at {@code index} (from 0, below {@code mm_conf_count})
     * into {@code dest}, NUL-terminated: the keys in byte order of their trimmed text, so a caller
     * can list what a conf holds (with {@code mm_conf_get} for each value) after {@code
     * mm_conf_load_properties}.
     */
    String confKey(long conf, long index);

    /**
     * {@code mm_diagnostics_get}: Fills {@code *diagnostics_out} with the process-wide counters, at
     * most {@code diagnostics_out->struct_size} bytes of them (on return it holds the bytes
     * filled).
     */
    long[] diagnosticsGet();

    /**
     * {@code mm_task_partition_statuses}: Takes a snapshot of the task's per-partition statuses
     * into {@code *statuses_out} (free it with {@code mm_partition_statuses_destroy}).
     */
    long taskPartitionStatuses(long task);

    /**
     * {@code mm_partition_statuses_len}: Writes the number of entries to {@code *len_out}.
     */
    long partitionStatusesLen(long statuses);

    /**
     * {@code mm_partition_statuses_destroy}: Frees a partition-status list.
     */
    void partitionStatusesDestroy(long statuses);

    /**
     * {@code mm_task_group_offset_sync_results}: Takes a snapshot of the task's group offset sync
     * results into {@code *results_out} (free it with {@code mm_group_sync_results_destroy}).
     */
    long taskGroupOffsetSyncResults(long task);

    /**
     * {@code mm_group_sync_results_len}: Writes the number of entries to {@code *len_out}.
     */
    long groupSyncResultsLen(long results);

    /**
     * {@code mm_group_sync_results_destroy}: Frees a group-sync result list.
     */
    void groupSyncResultsDestroy(long results);

    /**
     * {@code mm_embedded_new}: Starts the two clusters and writes them to {@code *embedded_out}.
     */
    long embeddedNew();

    /**
     * {@code mm_embedded_destroy}: Shuts both clusters down and frees them.
     */
    void embeddedDestroy(long embedded);

    /**
     * {@code mm_embedded_bootstrap}: The {@code bootstrap.servers} of one side (e.g. {@code
     * "127.0.0.1:40123"}): writes to {@code *text_out} NUL-terminated text owned by {@code
     * embedded} (valid until it is destroyed) and, when {@code len_out} is not NULL, its length to
     * {@code *len_out}.
     */
    String embeddedBootstrap(long embedded, int side);

    /**
     * {@code mm_embedded_create_topic}: Creates {@code topic} with {@code partitions} partitions on
     * one side.
     */
    void embeddedCreateTopic(long embedded, int side, String topic, int partitions);

    /**
     * {@code mm_embedded_produce_data}: Writes {@code count} small records ({@code "record-<i>"},
     * no key) to one partition and waits for their delivery.
     */
    void embeddedProduceData(long embedded, int side, String topic, int partition, long count);

    /**
     * {@code mm_embedded_produce_offset_syncs}: Writes {@code count} offset syncs for {@code
     * topic}/{@code partition} to partition 0 of {@code syncs_topic}, encoded exactly as MM2's
     * MirrorSourceTask does: sync {@code i} says upstream offset {@code upstream_offsets[i]} landed
     * at downstream offset {@code downstream_offsets[i]}.
     */
    void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition, long[] upstreamOffsets, long[] downstreamOffsets);

    /**
     * {@code mm_embedded_commit_offset}: Commits {@code offset} with {@code metadata} for {@code
     * group} on {@code topic}/{@code partition}, without joining the group (as a stopped consumer
     * leaves it).
     */
    void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset, String metadata);

    /**
     * {@code mm_embedded_read_checkpoints}: Reads every checkpoint in partition 0 of {@code
     * checkpoints_topic} on the target (up to its end now) into a new batch (status {@code
     * MM_POLL_STATUS_NONE}; free it with {@code mm_batch_destroy}); malformed records are skipped.
     */
    long embeddedReadCheckpoints(long embedded, String checkpointsTopic);

    /**
     * {@code mm_translate_offsets_back}: Reads the selected groups' committed offsets on the
     * forward flow's **target** (B, the replica cluster), keeps those on replica topics of its
     * source (A), and translates each back to the original topic on A with the flow's offset syncs,
     * read from their start to their end now; writes the answer to {@code *failback_out} (free it
     * with {@code mm_failback_offsets_destroy}).
     */
    long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs);

    /**
     * {@code mm_failback_offsets_len}: Writes the number of entries to {@code *len_out}.
     */
    long failbackOffsetsLen(long failback);

    /**
     * {@code mm_failback_offsets_destroy}: Frees a failback translation and its text.
     */
    void failbackOffsetsDestroy(long failback);

    /**
     * {@code mm_failback_report}: The dry run of a failback: compares each translated entry of
     * {@code failback} with its group's committed offset on the forward flow's source (A) now, and
     * writes the report to {@code *report_out} (read and free it as a failover report; {@code
     * mm_failover_report_caught_up} says per group whether its position on B is already reflected
     * on A).
     */
    long failbackReport(long flowConf, long failback, int timeoutMs);

    /**
     * {@code mm_commit_failback_offsets}: Commits the translated entries of {@code failback} into
     * the groups on the forward flow's source (A), by the group offset sync's rules: only into a
     * group absent there or without members, never moving a partition backwards, nothing into a
     * group whose state cannot be read.
     */
    long commitFailbackOffsets(long flowConf, long failback, int timeoutMs);

    /**
     * {@code mm_commit_translated_offsets}: Commits the entries of {@code translated} (a
     * failover's, from {@code mm_translate_offsets} or built by hand) into the groups on the
     * cluster {@code target_conf} reaches (read as by {@code mm_translate_offsets}), by the rules
     * of {@code mm_commit_failback_offsets}.
     */
    long commitTranslatedOffsets(long targetConf, long translated, int timeoutMs);

    /**
     * {@code mm_commit_report_len}: Writes the number of entries to {@code *len_out}.
     */
    long commitReportLen(long report);

    /**
     * {@code mm_commit_report_destroy}: Frees a commit report and its text.
     */
    void commitReportDestroy(long report);

    /**
     * {@code mm_flows_new}: Makes one task per enabled flow of an MM2 properties text and writes
     * them to {@code *flows_out}.
     */
    long flowsNew(String properties);

    /**
     * {@code mm_flows_count}: Writes the number of flows to {@code *count_out} (at least 1).
     */
    long flowsCount(long flows);

    /**
     * {@code mm_flows_name}: Reads flow {@code index}'s name ({@code source->target}, e.g. {@code
     * A->B}) into {@code dest}, NUL-terminated, as {@code mm_conf_get} reads a value: {@code
     * *dest_size} is the capacity of {@code dest} and receives the size the name needs (length +
     * 1); {@code dest} NULL asks only for the size; {@code MM_RESULT_BUFFER_TOO_SMALL} leaves
     * {@code dest} untouched.
     */
    String flowsName(long flows, long index);

    /**
     * {@code mm_flows_task}: Lends flow {@code index}'s task: {@code *task_out} works with every
     * {@code mm_task_*} function (poll, stats, metrics, fatal error, retry reason, statistics
     * callback, even a stop of that flow alone) until {@code mm_flows_destroy}, which frees it;
     * {@code mm_task_destroy} refuses it.
     */
    long flowsTask(long flows, long index);

    /**
     * {@code mm_flows_start}: Starts every flow, in order, as {@code mm_task_start} starts one.
     */
    void flowsStart(long flows);

    /**
     * {@code mm_flows_stop}: Stops every flow with {@code mm_task_stop}'s guarantees, and as
     * promptly as the slowest flow: every flow's stop flag is set and its blocked calls woken
     * first, then each flow's threads are joined and only then its clients closed.
     */
    boolean flowsStop(long flows);

    /**
     * {@code mm_flows_destroy}: Stops every running flow (blocking as {@code mm_flows_stop}), then
     * frees the flows, their tasks and the handles {@code mm_flows_task} lent.
     */
    void flowsDestroy(long flows);

    /**
     * {@code mm_current_task_id}: Writes to {@code *id_out} the id ({@code mm_task_id}) of the task
     * the calling thread works for, or 0 when none.
     */
    long currentTaskId();

    /**
     * {@code mm_offset_sync_writer_new}: Makes a writer producing to partition 0 of {@code
     * offset_syncs_topic} (which must exist, or be auto-created by the broker; MM2 makes it a
     * one-partition compacted topic, named {@code mm2-offset-syncs.<target alias>.internal} when it
     * lives on the source cluster).
     */
    long offsetSyncWriterNew(long conf, String offsetSyncsTopic);

    /**
     * {@code mm_offset_sync_writer_report}: Reports one mirrored record: upstream {@code
     * topic}/{@code partition} offset {@code upstream_offset} was written downstream at {@code
     * downstream_offset} (the offset the target acknowledged).
     */
    void offsetSyncWriterReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset);

    /**
     * {@code mm_offset_sync_writer_tick}: Collects finished sends, promotes the delayed syncs when
     * {@code offset.flush.interval.ms} has passed since the last promotion, and sends what may be
     * sent.
     */
    void offsetSyncWriterTick(long writer);

    /**
     * {@code mm_offset_sync_writer_wait_for_capacity}: Waits until a sync due now would be sent at
     * once (at most 10 sends are outstanding, as in MM2; while all are, a due sync waits and a
     * later one of the same partition replaces it, which widens the gap between syncs).
     */
    boolean offsetSyncWriterWaitForCapacity(long writer, int timeoutMs);

    /**
     * {@code mm_offset_sync_writer_flush}: Promotes every delayed sync (so each reported partition
     * gets a sync at its latest record) and waits until every sync is sent and acknowledged.
     */
    void offsetSyncWriterFlush(long writer, int timeoutMs);

    /**
     * {@code mm_offset_sync_writer_close}: Flushes as {@code mm_offset_sync_writer_flush}, then
     * destroys the producer, also when the flush timed out (unacknowledged syncs are then lost; the
     * next writer's first sync of each partition supersedes them).
     */
    void offsetSyncWriterClose(long writer, int timeoutMs);

    /**
     * {@code mm_offset_sync_writer_get_stats}: Fills {@code *stats_out} with a snapshot of the
     * writer's counters (final ones after close), at most {@code stats_out->struct_size} bytes of
     * it (on return it holds the bytes filled).
     */
    long[] offsetSyncWriterGetStats(long writer);

    /**
     * {@code mm_offset_sync_writer_destroy}: Frees the writer.
     */
    void offsetSyncWriterDestroy(long writer);

    /**
     * {@code mm_translate_offsets}: Reads the checkpoints topic of {@code source_alias} on the
     * target cluster once, from its start to its end now, and writes to {@code *translated_out} the
     * latest translated offset of every selected group on every target partition it has a
     * checkpoint for (free it with {@code mm_translated_offsets_destroy}).
     */
    long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs);

    /**
     * {@code mm_translated_offsets_new}: Makes an empty list of translated offsets and writes it to
     * {@code *translated_out}, to fill with {@code mm_translated_offsets_add} and pass to {@code
     * mm_failover_report} (e.g. a plan kept from an earlier translation, or edited).
     */
    long translatedOffsetsNew();

    /**
     * {@code mm_translated_offsets_add}: Adds the translated {@code offset} of {@code group} on
     * target {@code topic}/{@code partition} (with the source {@code upstream_offset} it
     * translates, -1 when unknown, and the commit's {@code metadata}, copied), replacing an entry
     * of the same group and partition.
     */
    void translatedOffsetsAdd(long translated, String group, String topic, int partition, long offset, long upstreamOffset, String metadata);

    /**
     * {@code mm_translated_offsets_len}: Writes the number of entries to {@code *len_out}.
     */
    long translatedOffsetsLen(long translated);

    /**
     * {@code mm_translated_offsets_checkpoints_topic}: The checkpoints topic that was read (e.g.
     * {@code "primary.checkpoints.internal"}; {@code ""} for a list from {@code
     * mm_translated_offsets_new}), as text owned by the list (valid until it is destroyed) and,
     * when {@code len_out} is not NULL, its length in bytes.
     */
    String translatedOffsetsCheckpointsTopic(long translated);

    /**
     * {@code mm_translated_offsets_get_counts}: Fills {@code *counts_out} with what the translation
     * read and skipped (all 0 for a list from {@code mm_translated_offsets_new}).
     */
    long[] translatedOffsetsGetCounts(long translated);

    /**
     * {@code mm_translated_offsets_destroy}: Frees a list of translated offsets and its text.
     */
    void translatedOffsetsDestroy(long translated);

    /**
     * {@code mm_failover_report}: Compares each entry of {@code translated} with its group's
     * committed offset on the target now and writes the dry run to {@code *report_out} (free it
     * with {@code mm_failover_report_destroy}).
     */
    long failoverReport(long targetConf, long translated, int timeoutMs);

    /**
     * {@code mm_failover_report_len}: Writes the number of entries to {@code *len_out}.
     */
    long failoverReportLen(long report);

    /**
     * {@code mm_failover_report_caught_up}: Writes to {@code *caught_up_out} 1 when {@code group}
     * has entries in the report and its committed offset on every one of them is already at or past
     * the translated offset (its position where it committed last is reflected on this cluster),
     * else 0.
     */
    int failoverReportCaughtUp(long report, String group);

    /**
     * {@code mm_failover_report_get_totals}: Fills {@code *totals_out} with the report's totals, at
     * most {@code totals_out->struct_size} bytes of them (on return it holds the bytes filled).
     */
    long[] failoverReportGetTotals(long report);

    /**
     * {@code mm_failover_report_destroy}: Frees a failover report and its text.
     */
    void failoverReportDestroy(long report);

    /**
     * {@code mm_task_metrics_json}: Reads the task's metrics now, as the JSON document the
     * statistics callback receives (docs/OPERATIONS.md, {@code "schema_version": 1}), into {@code
     * dest}, NUL-terminated, as {@code mm_conf_get} reads a value: {@code *dest_size} is the
     * capacity of {@code dest} and receives the size the document needs (length + 1); {@code dest}
     * NULL asks only for the size; {@code MM_RESULT_BUFFER_TOO_SMALL} leaves {@code dest}
     * untouched.
     */
    String taskMetricsJson(long task);

    /**
     * {@code mm_task_new}: Makes a task from a configuration and writes it to {@code *task_out}.
     */
    long taskNew(long conf);

    /**
     * {@code mm_task_start}: Starts the task: one scheduler thread begins loading the checkpoints
     * and offset-syncs topics.
     */
    void taskStart(long task);

    /**
     * {@code mm_task_poll}: Waits up to {@code timeout_ms} for the next checkpoint cycle (the first
     * runs as soon as the stores are loaded, then one every {@code
     * emit.checkpoints.interval.seconds}), runs it, and hands back the checkpoints it wrote.
     */
    long taskPoll(long task, int timeoutMs);

    /**
     * {@code mm_task_stop}: Stops the task: sets the stop flag, wakes every blocked Kafka call,
     * joins every library thread, waits for a poll in progress on another thread to return, then
     * closes every Kafka client.
     */
    boolean taskStop(long task);

    /**
     * {@code mm_task_destroy}: Stops the task if it is running (blocking as {@code mm_task_stop}),
     * then frees it.
     */
    void taskDestroy(long task);

    /**
     * {@code mm_task_fatal_error}: Reads the error that stopped the task's work (a failed or
     * panicked start-up or periodic job) into {@code dest}, NUL-terminated, as {@code mm_conf_get}
     * reads a value: {@code *dest_size} is the capacity of {@code dest} and receives the size the
     * message needs (length + 1); {@code dest} NULL asks only for the size; {@code
     * MM_RESULT_BUFFER_TOO_SMALL} leaves {@code dest} untouched.
     */
    String taskFatalError(long task);

    /**
     * {@code mm_task_retry_reason}: Reads why start-up is waiting, while it retries an unreachable
     * or slow cluster (e.g. "target cluster {@code B} unreachable for 30 s: …"), or, once loaded,
     * why a periodic job failed at its last run and waits for its next ("group discovery failed,
     * retrying at its next run: …"), into {@code dest}, NUL-terminated, as {@code mm_conf_get}
     * reads a value: {@code *dest_size} is the capacity of {@code dest} and receives the size the
     * text needs; {@code dest} NULL asks only for the size; {@code MM_RESULT_BUFFER_TOO_SMALL}
     * leaves {@code dest} untouched.
     */
    String taskRetryReason(long task);

    /**
     * {@code mm_task_id}: Writes the task's id to {@code *id_out}: unique in the process, never 0.
     */
    long taskId(long task);

    /**
     * {@code mm_task_get_stats}: Fills {@code *stats_out} with a snapshot of the task's counters,
     * at most {@code stats_out->struct_size} bytes of it (set that to {@code sizeof(mm_task_stats)}
     * first; on return it holds the bytes filled).
     */
    long[] taskGetStats(long task);
}
