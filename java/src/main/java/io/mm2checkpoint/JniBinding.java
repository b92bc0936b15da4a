package io.mm2checkpoint;

/**
 * {@link NativeBinding} over JNI (Java 17+): each native method is one C function of
 * {@code native/mm2_checkpoint_jni.c}, which calls the same-named {@code mm_*} function and
 * nothing else. Text crosses as byte arrays — NUL-terminated UTF-8 going in (built by
 * {@link NativeText#cString}), UTF-8 coming out — so no text depends on JNI's modified UTF-8.
 * Failed calls throw {@link Mm2Exception} from C through {@link #failure}.
 */
final class JniBinding implements NativeBinding {

    /**
     * Loads the bridge: {@code bridgePath} when given, else {@code libmm2_checkpoint_jni.so} from
     * {@code java.library.path}.
     */
    JniBinding(String bridgePath) {
        if (bridgePath != null) {
            System.load(bridgePath);
        } else {
            System.loadLibrary("mm2_checkpoint_jni");
        }
        init();
    }

    @Override
    public String name() {
        return "jni";
    }

    @Override
    public String version() {
        return NativeText.decode(nVersion());
    }

    @Override
    public int versionNum() {
        return nVersionNum();
    }

    @Override
    public String resultStr(int code) {
        return NativeText.decode(nResultStr(code));
    }

    @Override
    public long[] diagnostics() {
        long[] out = new long[NativeStructs.MM_DIAGNOSTICS.length];
        nDiagnostics(out);
        return out;
    }

    @Override
    public void setLogBridge(int maxLevel) {
        nSetLogBridge(maxLevel);
    }

    @Override
    public long confNew() {
        return nConfNew();
    }

    @Override
    public void confSet(long conf, String key, String value) {
        nConfSet(conf, NativeText.cString(key), NativeText.cString(value));
    }

    @Override
    public String confDescribe(long conf) {
        return NativeText.decode(nConfDescribe(conf));
    }

    @Override
    public void confDestroy(long conf) {
        nConfDestroy(conf);
    }

    @Override
    public long taskNew(long conf) {
        return nTaskNew(conf);
    }

    @Override
    public void taskStart(long task) {
        nTaskStart(task);
    }

    @Override
    public long taskPoll(long task, int timeoutMs) {
        return nTaskPoll(task, timeoutMs);
    }

    @Override
    public boolean taskStop(long task) {
        return nTaskStop(task);
    }

    @Override
    public void taskDestroy(long task) {
        nTaskDestroy(task);
    }

    @Override
    public long taskId(long task) {
        return nTaskId(task);
    }

    @Override
    public String taskFatalError(long task) {
        return NativeText.decode(nTaskFatalError(task));
    }

    @Override
    public String taskMetricsJson(long task) {
        return NativeText.decode(nTaskMetricsJson(task));
    }

    @Override
    public long flowsNew(String properties) {
        return nFlowsNew(NativeText.cString(properties));
    }

    @Override
    public int flowsCount(long flows) {
        return nFlowsCount(flows);
    }

    @Override
    public String flowsName(long flows, int index) {
        return NativeText.decode(nFlowsName(flows, index));
    }

    @Override
    public long flowsTask(long flows, int index) {
        return nFlowsTask(flows, index);
    }

    @Override
    public void flowsStart(long flows) {
        nFlowsStart(flows);
    }

    @Override
    public boolean flowsStop(long flows) {
        return nFlowsStop(flows);
    }

    @Override
    public void flowsDestroy(long flows) {
        nFlowsDestroy(flows);
    }

    @Override
    public long[] taskStats(long task) {
        long[] out = new long[NativeStructs.MM_TASK_STATS.length];
        nTaskStats(task, out);
        return out;
    }

    @Override
    public int batchStatus(long batch) {
        return nBatchStatus(batch);
    }

    @Override
    public int batchLen(long batch) {
        return Math.toIntExact(nBatchLen(batch));
    }

    @Override
    public String[] row(NativeRows.Kind kind, long list, int index, long[] numbers) {
        byte[][] texts = nRow(kind.id(), list, index, numbers);
        String[] out = new String[texts.length];
        for (int i = 0; i < texts.length; i++) {
            out[i] = NativeText.decode(texts[i]);
        }
        return out;
    }

    @Override
    public void batchDestroy(long batch) {
        nBatchDestroy(batch);
    }

    @Override
    public boolean mockClustersAvailable() {
        return nMockClustersAvailable();
    }

    @Override
    public long embeddedNew() {
        return nEmbeddedNew();
    }

    @Override
    public void embeddedDestroy(long embedded) {
        nEmbeddedDestroy(embedded);
    }

    @Override
    public String embeddedBootstrap(long embedded, int side) {
        return NativeText.decode(nEmbeddedBootstrap(embedded, side));
    }

    @Override
    public void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        nEmbeddedCreateTopic(embedded, side, NativeText.cString(topic), partitions);
    }

    @Override
    public void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        nEmbeddedProduceData(embedded, side, NativeText.cString(topic), partition, count);
    }

    @Override
    public void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition,
            long[] upstreamOffsets, long[] downstreamOffsets) {
        nEmbeddedProduceOffsetSyncs(embedded, side, NativeText.cString(syncsTopic), NativeText.cString(topic),
                partition, upstreamOffsets, downstreamOffsets);
    }

    @Override
    public void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset,
            String metadata) {
        nEmbeddedCommitOffset(embedded, side, NativeText.cString(group), NativeText.cString(topic), partition, offset,
                NativeText.cString(metadata));
    }

    @Override
    public long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        return nEmbeddedReadCheckpoints(embedded, NativeText.cString(checkpointsTopic));
    }

    @Override
    public long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs) {
        return nTranslateOffsets(targetConf, NativeText.cString(sourceAlias), kind, NativeText.cString(groups),
                timeoutMs);
    }

    @Override
    public long translatedNew() {
        return nTranslatedNew();
    }

    @Override
    public void translatedAdd(long translated, String group, String topic, int partition, long offset,
            long upstreamOffset, String metadata) {
        nTranslatedAdd(translated, NativeText.cString(group), NativeText.cString(topic), partition, offset,
                upstreamOffset, NativeText.cString(metadata));
    }

    @Override
    public int translatedLen(long translated) {
        return Math.toIntExact(nTranslatedLen(translated));
    }

    @Override
    public String translatedCheckpointsTopic(long translated) {
        return NativeText.decode(nTranslatedCheckpointsTopic(translated));
    }

    @Override
    public long[] translatedCounts(long translated) {
        long[] out = new long[NativeStructs.MM_TRANSLATION_COUNTS.length];
        nTranslatedCounts(translated, out);
        return out;
    }

    @Override
    public void translatedDestroy(long translated) {
        nTranslatedDestroy(translated);
    }

    @Override
    public long failoverReport(long targetConf, long translated, int timeoutMs) {
        return nFailoverReport(targetConf, translated, timeoutMs);
    }

    @Override
    public int reportLen(long report) {
        return Math.toIntExact(nReportLen(report));
    }

    @Override
    public long[] reportTotals(long report) {
        long[] out = new long[NativeStructs.MM_FAILOVER_TOTALS.length];
        nReportTotals(report, out);
        return out;
    }

    @Override
    public void reportDestroy(long report) {
        nReportDestroy(report);
    }

    @Override
    public long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs) {
        return nTranslateOffsetsBack(flowConf, kind, NativeText.cString(groups), timeoutMs);
    }

    @Override
    public int failbackLen(long failback) {
        return Math.toIntExact(nFailbackLen(failback));
    }

    @Override
    public void failbackDestroy(long failback) {
        nFailbackDestroy(failback);
    }

    @Override
    public long commitTranslatedOffsets(long conf, long translated, int timeoutMs) {
        return nCommitTranslatedOffsets(conf, translated, timeoutMs);
    }

    @Override
    public int commitLen(long report) {
        return Math.toIntExact(nCommitLen(report));
    }

    @Override
    public void commitDestroy(long report) {
        nCommitDestroy(report);
    }

    @Override
    public long writerNew(long conf, String offsetSyncsTopic) {
        return nWriterNew(conf, NativeText.cString(offsetSyncsTopic));
    }

    @Override
    public void writerReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset) {
        nWriterReport(writer, NativeText.cString(topic), partition, upstreamOffset, downstreamOffset);
    }

    @Override
    public void writerTick(long writer) {
        nWriterTick(writer);
    }

    @Override
    public boolean writerWaitForCapacity(long writer, int timeoutMs) {
        return nWriterWaitForCapacity(writer, timeoutMs);
    }

    @Override
    public void writerFlush(long writer, int timeoutMs) {
        nWriterFlush(writer, timeoutMs);
    }

    @Override
    public void writerClose(long writer, int timeoutMs) {
        nWriterClose(writer, timeoutMs);
    }

    @Override
    public long[] writerStats(long writer) {
        long[] out = new long[NativeStructs.MM_OFFSET_SYNC_WRITER_STATS.length];
        nWriterStats(writer, out);
        return out;
    }

    @Override
    public void writerDestroy(long writer) {
        nWriterDestroy(writer);
    }

    // ---- called from C ------------------------------------------------------------------

    /** Builds the exception C throws for a failed call (C then throws it with {@code Throw}). */
    static Mm2Exception failure(int code, byte[] message, int kafkaCode) {
        return NativeLibrary.failure(code, NativeText.decode(message), kafkaCode);
    }

    /**
     * The log callback's Java half; runs on the logging thread (attached by C if needed), with the
     * id of the task whose record it is (0: none). Never throws.
     */
    static void onLog(int level, byte[] target, byte[] message, long task) {
        try {
            LogBridge.deliver(level, NativeText.decode(target), NativeText.decode(message), task);
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    // ---- the C bridge ---------------------------------------------------------------------

    /** Caches the class and method IDs C calls back into; checks the bridge matches this class. */
    private static native void init();

    private static native byte[] nVersion();

    private static native int nVersionNum();

    private static native byte[] nResultStr(int code);

    private static native void nDiagnostics(long[] out);

    private static native void nSetLogBridge(int maxLevel);

    private static native long nConfNew();

    private static native void nConfSet(long conf, byte[] key, byte[] value);

    private static native void nConfDestroy(long conf);

    private static native byte[] nConfDescribe(long conf);

    private static native long nTaskNew(long conf);

    private static native void nTaskStart(long task);

    private static native long nTaskPoll(long task, int timeoutMs);

    private static native boolean nTaskStop(long task);

    private static native void nTaskDestroy(long task);

    private static native long nTaskId(long task);

    private static native byte[] nTaskFatalError(long task);

    private static native void nTaskStats(long task, long[] out);

    private static native byte[] nTaskMetricsJson(long task);

    private static native long nFlowsNew(byte[] properties);

    private static native int nFlowsCount(long flows);

    private static native byte[] nFlowsName(long flows, int index);

    private static native long nFlowsTask(long flows, int index);

    private static native void nFlowsStart(long flows);

    private static native boolean nFlowsStop(long flows);

    private static native void nFlowsDestroy(long flows);

    private static native int nBatchStatus(long batch);

    private static native long nBatchLen(long batch);

    private static native void nBatchDestroy(long batch);

    /**
     * Row {@code index} of a list through the row function of {@code kind} ({@link NativeRows.Kind#id}):
     * its numbers into {@code numbers}, its texts returned (null for text the entry does not have).
     * Generated from the header into mm2_checkpoint_rows.h.
     */
    private static native byte[][] nRow(int kind, long list, long index, long[] numbers);

    private static native boolean nMockClustersAvailable();

    private static native long nEmbeddedNew();

    private static native void nEmbeddedDestroy(long embedded);

    private static native byte[] nEmbeddedBootstrap(long embedded, int side);

    private static native void nEmbeddedCreateTopic(long embedded, int side, byte[] topic, int partitions);

    private static native void nEmbeddedProduceData(long embedded, int side, byte[] topic, int partition, long count);

    private static native void nEmbeddedProduceOffsetSyncs(long embedded, int side, byte[] syncsTopic, byte[] topic,
            int partition, long[] upstreamOffsets, long[] downstreamOffsets);

    private static native void nEmbeddedCommitOffset(long embedded, int side, byte[] group, byte[] topic,
            int partition, long offset, byte[] metadata);

    private static native long nEmbeddedReadCheckpoints(long embedded, byte[] checkpointsTopic);

    private static native long nTranslateOffsets(long targetConf, byte[] sourceAlias, int kind, byte[] groups,
            int timeoutMs);

    private static native long nTranslatedNew();

    private static native void nTranslatedAdd(long translated, byte[] group, byte[] topic, int partition, long offset,
            long upstreamOffset, byte[] metadata);

    private static native long nTranslatedLen(long translated);

    private static native byte[] nTranslatedCheckpointsTopic(long translated);

    private static native void nTranslatedCounts(long translated, long[] out);

    private static native void nTranslatedDestroy(long translated);

    private static native long nFailoverReport(long targetConf, long translated, int timeoutMs);

    private static native long nReportLen(long report);

    private static native void nReportTotals(long report, long[] out);

    private static native void nReportDestroy(long report);

    private static native long nTranslateOffsetsBack(long flowConf, int kind, byte[] groups, int timeoutMs);

    private static native long nFailbackLen(long failback);

    private static native void nFailbackDestroy(long failback);

    private static native long nCommitTranslatedOffsets(long conf, long translated, int timeoutMs);

    private static native long nCommitLen(long report);

    private static native void nCommitDestroy(long report);

    /** Throws the library's result (INVALID_CONFIG for a rejected setting) when the writer cannot be made. */
    private static native long nWriterNew(long conf, byte[] offsetSyncsTopic);

    private static native void nWriterReport(long writer, byte[] topic, int partition, long upstreamOffset,
            long downstreamOffset);

    private static native void nWriterTick(long writer);

    /** False when the wait timed out. */
    private static native boolean nWriterWaitForCapacity(long writer, int timeoutMs);

    private static native void nWriterFlush(long writer, int timeoutMs);

    private static native void nWriterClose(long writer, int timeoutMs);

    private static native void nWriterStats(long writer, long[] out);

    private static native void nWriterDestroy(long writer);
}
