package io.mm2checkpoint;

/**
 * The C ABI of {@code libmm2_checkpoint.so} in Java types, one method per C function (pointers
 * are {@code long} addresses, text is {@link String}), except list rows: every
 * {@code mm_<list>_row} goes through {@link #row}, driven by the generated {@link NativeRows}. Two implementations: {@code PanamaBinding}
 * (java.lang.foreign, Java 22+) and {@link JniBinding} (a thin C bridge, Java 17+). Everything
 * above this interface — lifetimes, records, exceptions, logging — is shared Java code, so both
 * bindings behave the same by construction.
 *
 * <p>Methods whose C function returns an {@code mm_result} throw {@link Mm2Exception} for any
 * result but OK, carrying the library's message. Thread rules are the C ones (see the header).
 */
interface NativeBinding {
    /** {@code "panama"} or {@code "jni"}. */
    String name();

    /** {@code mm_version()}. */
    String version();

    /** {@code mm_version_num()}: {@code (major << 16) | (minor << 8) | patch}. */
    int versionNum();

    /** {@code mm_result_str(code)}: the constant's name and meaning. */
    String resultStr(int code);

    /** {@code mm_diagnostics_get}: the fields {@link NativeStructs#MM_DIAGNOSTICS} names. */
    long[] diagnostics();

    /**
     * {@code mm_set_log_callback} with this binding's bridge to {@link LogBridge#deliver}, at
     * {@code maxLevel} (an {@code mm_log_level}); {@code maxLevel} 0 removes the callback.
     */
    void setLogBridge(int maxLevel);

    long confNew();

    void confSet(long conf, String key, String value);

    /**
     * {@code mm_conf_describe}: the resolved configuration as {@code mm_task_new} would read it,
     * secret values shown as {@code [hidden]}; throws when {@code mm_task_new} would refuse it.
     */
    String confDescribe(long conf);

    void confDestroy(long conf);

    /** {@code mm_task_new}; takes {@code conf} only on success. */
    long taskNew(long conf);

    void taskStart(long task);

    /** {@code mm_task_poll}; returns the new batch. */
    long taskPoll(long task, int timeoutMs);

    /** {@code mm_task_stop}: true when this call stopped the task, false when already stopped. */
    boolean taskStop(long task);

    void taskDestroy(long task);

    /** {@code mm_task_id}: the task's id in the process, never 0. */
    long taskId(long task);

    /** {@code mm_task_fatal_error}: the message, or null when there is none. */
    String taskFatalError(long task);

    /** {@code mm_task_get_stats}: the fields {@link NativeStructs#MM_TASK_STATS} names. */
    long[] taskStats(long task);

    /** {@code mm_task_metrics_json}: the task's metrics document (JSON). */
    String taskMetricsJson(long task);

    /** {@code mm_flows_new}: one task per enabled flow of an MM2 properties text. */
    long flowsNew(String properties);

    /** {@code mm_flows_count}. */
    int flowsCount(long flows);

    /** {@code mm_flows_name}: flow {@code index}'s name, {@code source->target}. */
    String flowsName(long flows, int index);

    /** {@code mm_flows_task}: flow {@code index}'s task, lent until {@code flowsDestroy}. */
    long flowsTask(long flows, int index);

    void flowsStart(long flows);

    /**
     * {@code mm_flows_stop}: true when this call stopped a flow, false when every flow was
     * already stopped.
     */
    boolean flowsStop(long flows);

    void flowsDestroy(long flows);

    int batchStatus(long batch);

    int batchLen(long batch);

    void batchDestroy(long batch);

    /**
     * {@code mm_<list>_row} for a row kind: row {@code index} of {@code list}, its numbers written
     * to {@code numbers} and its texts returned, both in the order {@code kind} lists them (a
     * text is null when the entry does not have it). The one way list data crosses; {@link
     * NativeRows} (generated from the header) turns the values into records.
     */
    String[] row(NativeRows.Kind kind, long list, int index, long[] numbers);

    /**
     * Whether the loaded library has the test-only mock clusters ({@code mm_embedded_*}): the test
     * kit's library has, the jar's production library has not.
     */
    boolean mockClustersAvailable();

    long embeddedNew();

    void embeddedDestroy(long embedded);

    String embeddedBootstrap(long embedded, int side);

    void embeddedCreateTopic(long embedded, int side, String topic, int partitions);

    void embeddedProduceData(long embedded, int side, String topic, int partition, long count);

    void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition,
            long[] upstreamOffsets, long[] downstreamOffsets);

    void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset,
            String metadata);

    /** {@code mm_embedded_read_checkpoints}; returns the new batch. */
    long embeddedReadCheckpoints(long embedded, String checkpointsTopic);

    /** {@code mm_translate_offsets}; {@code kind} is an {@code mm_group_selector}; returns the new list. */
    long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs);

    long translatedNew();

    void translatedAdd(long translated, String group, String topic, int partition, long offset, long upstreamOffset,
            String metadata);

    int translatedLen(long translated);

    String translatedCheckpointsTopic(long translated);

    /**
     * {@code mm_translated_offsets_get_counts}: the fields {@link NativeStructs#MM_TRANSLATION_COUNTS}
     * names.
     */
    long[] translatedCounts(long translated);

    void translatedDestroy(long translated);

    /** {@code mm_failover_report}; returns the new report. */
    long failoverReport(long targetConf, long translated, int timeoutMs);

    int reportLen(long report);

    /**
     * {@code mm_failover_report_get_totals}: the fields {@link NativeStructs#MM_FAILOVER_TOTALS}
     * names (C uint64_t: negative here means above Long.MAX_VALUE).
     */
    long[] reportTotals(long report);

    void reportDestroy(long report);

    /** {@code mm_translate_offsets_back}; {@code kind} is an {@code mm_group_selector}; returns the new list. */
    long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs);

    int failbackLen(long failback);

    void failbackDestroy(long failback);

    /** {@code mm_commit_translated_offsets}; returns the new commit report. */
    long commitTranslatedOffsets(long conf, long translated, int timeoutMs);

    int commitLen(long report);

    void commitDestroy(long report);

    /** {@code mm_offset_sync_writer_new}; does not take {@code conf}. */
    long writerNew(long conf, String offsetSyncsTopic);

    void writerReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset);

    void writerTick(long writer);

    /** {@code mm_offset_sync_writer_wait_for_capacity}: false when it timed out. */
    boolean writerWaitForCapacity(long writer, int timeoutMs);

    void writerFlush(long writer, int timeoutMs);

    void writerClose(long writer, int timeoutMs);

    /**
     * {@code mm_offset_sync_writer_get_stats}: the fields
     * {@link NativeStructs#MM_OFFSET_SYNC_WRITER_STATS} names.
     */
    long[] writerStats(long writer);

    void writerDestroy(long writer);
}
