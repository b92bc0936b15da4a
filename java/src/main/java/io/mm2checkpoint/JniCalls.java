// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

/**
 * {@link NativeCalls} over JNI: each method calls its native twin, which
 * {@code mm2_checkpoint_calls.h} (generated with this class) implements in C. Text crosses as
 * byte arrays: NUL-terminated UTF-8 going in ({@link NativeText#cString}), UTF-8 coming out.
 */
abstract class JniCalls implements NativeCalls {

    @Override
    public final long batchLen(long batch) {
        return nBatchLen(batch);
    }

    private static native long nBatchLen(long batch);

    @Override
    public final int batchStatus(long batch) {
        return nBatchStatus(batch);
    }

    private static native int nBatchStatus(long batch);

    @Override
    public final void batchDestroy(long batch) {
        nBatchDestroy(batch);
    }

    private static native void nBatchDestroy(long batch);

    @Override
    public final String resultStr(int result) {
        return NativeText.decode(nResultStr(result));
    }

    private static native byte[] nResultStr(int result);

    @Override
    public final String version() {
        return NativeText.decode(nVersion());
    }

    private static native byte[] nVersion();

    @Override
    public final int versionNum() {
        return nVersionNum();
    }

    private static native int nVersionNum();

    @Override
    public final long confNew() {
        return nConfNew();
    }

    private static native long nConfNew();

    @Override
    public final void confSet(long conf, String key, String value) {
        nConfSet(conf, NativeText.cString(key), NativeText.cString(value));
    }

    private static native void nConfSet(long conf, byte[] key, byte[] value);

    @Override
    public final void confUnset(long conf, String key) {
        nConfUnset(conf, NativeText.cString(key));
    }

    private static native void nConfUnset(long conf, byte[] key);

    @Override
    public final String confGet(long conf, String key) {
        return NativeText.decode(nConfGet(conf, NativeText.cString(key)));
    }

    private static native byte[] nConfGet(long conf, byte[] key);

    @Override
    public final long confDup(long conf) {
        return nConfDup(conf);
    }

    private static native long nConfDup(long conf);

    @Override
    public final void confDestroy(long conf) {
        nConfDestroy(conf);
    }

    private static native void nConfDestroy(long conf);

    @Override
    public final void confLoadProperties(long conf, String properties) {
        nConfLoadProperties(conf, NativeText.cString(properties));
    }

    private static native void nConfLoadProperties(long conf, byte[] properties);

    @Override
    public final String confDescribe(long conf) {
        return NativeText.decode(nConfDescribe(conf));
    }

    private static native byte[] nConfDescribe(long conf);

    @Override
    public final long confCount(long conf) {
        return nConfCount(conf);
    }

    private static native long nConfCount(long conf);

    @Override
    public final String confKey(long conf, long index) {
        return NativeText.decode(nConfKey(conf, index));
    }

    private static native byte[] nConfKey(long conf, long index);

    @Override
    public final long[] diagnosticsGet() {
        return nDiagnosticsGet();
    }

    private static native long[] nDiagnosticsGet();

    @Override
    public final long taskPartitionStatuses(long task) {
        return nTaskPartitionStatuses(task);
    }

    private static native long nTaskPartitionStatuses(long task);

    @Override
    public final long partitionStatusesLen(long statuses) {
        return nPartitionStatusesLen(statuses);
    }

    private static native long nPartitionStatusesLen(long statuses);

    @Override
    public final void partitionStatusesDestroy(long statuses) {
        nPartitionStatusesDestroy(statuses);
    }

    private static native void nPartitionStatusesDestroy(long statuses);

    @Override
    public final long taskGroupOffsetSyncResults(long task) {
        return nTaskGroupOffsetSyncResults(task);
    }

    private static native long nTaskGroupOffsetSyncResults(long task);

    @Override
    public final long groupSyncResultsLen(long results) {
        return nGroupSyncResultsLen(results);
    }

    private static native long nGroupSyncResultsLen(long results);

    @Override
    public final void groupSyncResultsDestroy(long results) {
        nGroupSyncResultsDestroy(results);
    }

    private static native void nGroupSyncResultsDestroy(long results);

    @Override
    public final long embeddedNew() {
        return nEmbeddedNew();
    }

    private static native long nEmbeddedNew();

    @Override
    public final void embeddedDestroy(long embedded) {
        nEmbeddedDestroy(embedded);
    }

    private static native void nEmbeddedDestroy(long embedded);

    @Override
    public final String embeddedBootstrap(long embedded, int side) {
        return NativeText.decode(nEmbeddedBootstrap(embedded, side));
    }

    private static native byte[] nEmbeddedBootstrap(long embedded, int side);

    @Override
    public final void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        nEmbeddedCreateTopic(embedded, side, NativeText.cString(topic), partitions);
    }

    private static native void nEmbeddedCreateTopic(long embedded, int side, byte[] topic, int partitions);

    @Override
    public final void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        nEmbeddedProduceData(embedded, side, NativeText.cString(topic), partition, count);
    }

    private static native void nEmbeddedProduceData(long embedded, int side, byte[] topic, int partition, long count);

    @Override
    public final void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition, long[] upstreamOffsets, long[] downstreamOffsets) {
        if (downstreamOffsets.length != upstreamOffsets.length) {
            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "mm_embedded_produce_offset_syncs: the arrays differ in length", 0);
        }
        nEmbeddedProduceOffsetSyncs(embedded, side, NativeText.cString(syncsTopic), NativeText.cString(topic), partition, upstreamOffsets, downstreamOffsets);
    }

    private static native void nEmbeddedProduceOffsetSyncs(long embedded, int side, byte[] syncsTopic, byte[] topic, int partition, long[] upstreamOffsets, long[] downstreamOffsets);

    @Override
    public final void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset, String metadata) {
        nEmbeddedCommitOffset(embedded, side, NativeText.cString(group), NativeText.cString(topic), partition, offset, NativeText.cString(metadata));
    }

    private static native void nEmbeddedCommitOffset(long embedded, int side, byte[] group, byte[] topic, int partition, long offset, byte[] metadata);

    @Override
    public final long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        return nEmbeddedReadCheckpoints(embedded, NativeText.cString(checkpointsTopic));
    }

    private static native long nEmbeddedReadCheckpoints(long embedded, byte[] checkpointsTopic);

    @Override
    public final long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs) {
        return nTranslateOffsetsBack(flowConf, kind, NativeText.cString(groups), timeoutMs);
    }

    private static native long nTranslateOffsetsBack(long flowConf, int kind, byte[] groups, int timeoutMs);

    @Override
    public final long failbackOffsetsLen(long failback) {
        return nFailbackOffsetsLen(failback);
    }

    private static native long nFailbackOffsetsLen(long failback);

    @Override
    public final void failbackOffsetsDestroy(long failback) {
        nFailbackOffsetsDestroy(failback);
    }

    private static native void nFailbackOffsetsDestroy(long failback);

    @Override
    public final long failbackReport(long flowConf, long failback, int timeoutMs) {
        return nFailbackReport(flowConf, failback, timeoutMs);
    }

    private static native long nFailbackReport(long flowConf, long failback, int timeoutMs);

    @Override
    public final long commitFailbackOffsets(long flowConf, long failback, int timeoutMs) {
        return nCommitFailbackOffsets(flowConf, failback, timeoutMs);
    }

    private static native long nCommitFailbackOffsets(long flowConf, long failback, int timeoutMs);

    @Override
    public final long commitTranslatedOffsets(long targetConf, long translated, int timeoutMs) {
        return nCommitTranslatedOffsets(targetConf, translated, timeoutMs);
    }

    private static native long nCommitTranslatedOffsets(long targetConf, long translated, int timeoutMs);

    @Override
    public final long commitReportLen(long report) {
        return nCommitReportLen(report);
    }

    private static native long nCommitReportLen(long report);

    @Override
    public final void commitReportDestroy(long report) {
        nCommitReportDestroy(report);
    }

    private static native void nCommitReportDestroy(long report);

    @Override
    public final long flowsNew(String properties) {
        return nFlowsNew(NativeText.cString(properties));
    }

    private static native long nFlowsNew(byte[] properties);

    @Override
    public final long flowsCount(long flows) {
        return nFlowsCount(flows);
    }

    private static native long nFlowsCount(long flows);

    @Override
    public final String flowsName(long flows, long index) {
        return NativeText.decode(nFlowsName(flows, index));
    }

    private static native byte[] nFlowsName(long flows, long index);

    @Override
    public final long flowsTask(long flows, long index) {
        return nFlowsTask(flows, index);
    }

    private static native long nFlowsTask(long flows, long index);

    @Override
    public final void flowsStart(long flows) {
        nFlowsStart(flows);
    }

    private static native void nFlowsStart(long flows);

    @Override
    public final boolean flowsStop(long flows) {
        return nFlowsStop(flows);
    }

    private static native boolean nFlowsStop(long flows);

    @Override
    public final void flowsDestroy(long flows) {
        nFlowsDestroy(flows);
    }

    private static native void nFlowsDestroy(long flows);

    @Override
    public final long currentTaskId() {
        return nCurrentTaskId();
    }

    private static native long nCurrentTaskId();

    @Override
    public final long offsetSyncWriterNew(long conf, String offsetSyncsTopic) {
        return nOffsetSyncWriterNew(conf, NativeText.cString(offsetSyncsTopic));
    }

    private static native long nOffsetSyncWriterNew(long conf, byte[] offsetSyncsTopic);

    @Override
    public final void offsetSyncWriterReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset) {
        nOffsetSyncWriterReport(writer, NativeText.cString(topic), partition, upstreamOffset, downstreamOffset);
    }

    private static native void nOffsetSyncWriterReport(long writer, byte[] topic, int partition, long upstreamOffset, long downstreamOffset);

    @Override
    public final void offsetSyncWriterTick(long writer) {
        nOffsetSyncWriterTick(writer);
    }

    private static native void nOffsetSyncWriterTick(long writer);

    @Override
    public final boolean offsetSyncWriterWaitForCapacity(long writer, int timeoutMs) {
        return nOffsetSyncWriterWaitForCapacity(writer, timeoutMs);
    }

    private static native boolean nOffsetSyncWriterWaitForCapacity(long writer, int timeoutMs);

    @Override
    public final void offsetSyncWriterFlush(long writer, int timeoutMs) {
        nOffsetSyncWriterFlush(writer, timeoutMs);
    }

    private static native void nOffsetSyncWriterFlush(long writer, int timeoutMs);

    @Override
    public final void offsetSyncWriterClose(long writer, int timeoutMs) {
        nOffsetSyncWriterClose(writer, timeoutMs);
    }

    private static native void nOffsetSyncWriterClose(long writer, int timeoutMs);

    @Override
    public final long[] offsetSyncWriterGetStats(long writer) {
        return nOffsetSyncWriterGetStats(writer);
    }

    private static native long[] nOffsetSyncWriterGetStats(long writer);

    @Override
    public final void offsetSyncWriterDestroy(long writer) {
        nOffsetSyncWriterDestroy(writer);
    }

    private static native void nOffsetSyncWriterDestroy(long writer);

    @Override
    public final long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs) {
        return nTranslateOffsets(targetConf, NativeText.cString(sourceAlias), kind, NativeText.cString(groups), timeoutMs);
    }

    private static native long nTranslateOffsets(long targetConf, byte[] sourceAlias, int kind, byte[] groups, int timeoutMs);

    @Override
    public final long translatedOffsetsNew() {
        return nTranslatedOffsetsNew();
    }

    private static native long nTranslatedOffsetsNew();

    @Override
    public final void translatedOffsetsAdd(long translated, String group, String topic, int partition, long offset, long upstreamOffset, String metadata) {
        nTranslatedOffsetsAdd(translated, NativeText.cString(group), NativeText.cString(topic), partition, offset, upstreamOffset, NativeText.cString(metadata));
    }

    private static native void nTranslatedOffsetsAdd(long translated, byte[] group, byte[] topic, int partition, long offset, long upstreamOffset, byte[] metadata);

    @Override
    public final long translatedOffsetsLen(long translated) {
        return nTranslatedOffsetsLen(translated);
    }

    private static native long nTranslatedOffsetsLen(long translated);

    @Override
    public final String translatedOffsetsCheckpointsTopic(long translated) {
        return NativeText.decode(nTranslatedOffsetsCheckpointsTopic(translated));
    }

    private static native byte[] nTranslatedOffsetsCheckpointsTopic(long translated);

    @Override
    public final long[] translatedOffsetsGetCounts(long translated) {
        return nTranslatedOffsetsGetCounts(translated);
    }

    private static native long[] nTranslatedOffsetsGetCounts(long translated);

    @Override
    public final void translatedOffsetsDestroy(long translated) {
        nTranslatedOffsetsDestroy(translated);
    }

    private static native void nTranslatedOffsetsDestroy(long translated);

    @Override
    public final long failoverReport(long targetConf, long translated, int timeoutMs) {
        return nFailoverReport(targetConf, translated, timeoutMs);
    }

    private static native long nFailoverReport(long targetConf, long translated, int timeoutMs);

    @Override
    public final long failoverReportLen(long report) {
        return nFailoverReportLen(report);
    }

    private static native long nFailoverReportLen(long report);

    @Override
    public final int failoverReportCaughtUp(long report, String group) {
        return nFailoverReportCaughtUp(report, NativeText.cString(group));
    }

    private static native int nFailoverReportCaughtUp(long report, byte[] group);

    @Override
    public final long[] failoverReportGetTotals(long report) {
        return nFailoverReportGetTotals(report);
    }

    private static native long[] nFailoverReportGetTotals(long report);

    @Override
    public final void failoverReportDestroy(long report) {
        nFailoverReportDestroy(report);
    }

    private static native void nFailoverReportDestroy(long report);

    @Override
    public final String taskMetricsJson(long task) {
        return NativeText.decode(nTaskMetricsJson(task));
    }

    private static native byte[] nTaskMetricsJson(long task);

    @Override
    public final long taskNew(long conf) {
        return nTaskNew(conf);
    }

    private static native long nTaskNew(long conf);

    @Override
    public final void taskStart(long task) {
        nTaskStart(task);
    }

    private static native void nTaskStart(long task);

    @Override
    public final long taskPoll(long task, int timeoutMs) {
        return nTaskPoll(task, timeoutMs);
    }

    private static native long nTaskPoll(long task, int timeoutMs);

    @Override
    public final boolean taskStop(long task) {
        return nTaskStop(task);
    }

    private static native boolean nTaskStop(long task);

    @Override
    public final void taskDestroy(long task) {
        nTaskDestroy(task);
    }

    private static native void nTaskDestroy(long task);

    @Override
    public final String taskFatalError(long task) {
        return NativeText.decode(nTaskFatalError(task));
    }

    private static native byte[] nTaskFatalError(long task);

    @Override
    public final String taskRetryReason(long task) {
        return NativeText.decode(nTaskRetryReason(task));
    }

    private static native byte[] nTaskRetryReason(long task);

    @Override
    public final long taskId(long task) {
        return nTaskId(task);
    }

    private static native long nTaskId(long task);

    @Override
    public final long[] taskGetStats(long task) {
        return nTaskGetStats(task);
    }

    private static native long[] nTaskGetStats(long task);
}
