package io.mm2checkpoint;

/**
 * The C ABI of {@code libmm2_checkpoint.so} in Java types, one method per C function (pointers
 * are {@code long} addresses, text is {@link String}). Two implementations: {@link PanamaBinding}
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

    /** {@code mm_result_str(code)}: the constant's name and meaning. */
    String resultStr(int code);

    /** {@code mm_diagnostics_get}: live clients, live threads, overlapping client calls. */
    long[] diagnostics();

    /**
     * {@code mm_set_log_callback} with this binding's bridge to {@link LogBridge#deliver}, at
     * {@code maxLevel} (an {@code mm_log_level}); {@code maxLevel} 0 removes the callback.
     */
    void setLogBridge(int maxLevel);

    long confNew();

    void confSet(long conf, String key, String value);

    void confDestroy(long conf);

    /** {@code mm_task_new}; takes {@code conf} only on success. */
    long taskNew(long conf);

    void taskStart(long task);

    /** {@code mm_task_poll}; returns the new batch. */
    long taskPoll(long task, int timeoutMs);

    /** {@code mm_task_stop}: true when this call stopped the task, false when already stopped. */
    boolean taskStop(long task);

    void taskDestroy(long task);

    /** {@code mm_task_fatal_error}: the message, or null when there is none. */
    String taskFatalError(long task);

    /**
     * {@code mm_task_get_stats}: the struct's fields in declaration order (checkpoints emitted,
     * records skipped, syncs loaded, checkpoints loaded, cycles, group offsets written, groups,
     * load time us, last stop time us, initialized, checkpoints load ok).
     */
    long[] taskStats(long task);

    int batchStatus(long batch);

    int batchLen(long batch);

    String batchGroup(long batch, int index);

    String batchTopic(long batch, int index);

    String batchMetadata(long batch, int index);

    int batchPartition(long batch, int index);

    long batchUpstreamOffset(long batch, int index);

    long batchDownstreamOffset(long batch, int index);

    void batchDestroy(long batch);

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
}
