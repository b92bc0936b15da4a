// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

import static io.mm2checkpoint.PanamaSupport.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * {@link NativeCalls} over java.lang.foreign: each method is one downcall through the handle
 * bound from its {@link NativeFunctions} descriptor, called with {@code invokeExact}. The
 * subclass supplies {@link #check}, which reads the library's error channel.
 */
abstract class PanamaCalls implements NativeCalls {
    private final MethodHandle batchLen;
    private final MethodHandle batchStatus;
    private final MethodHandle batchDestroy;
    private final MethodHandle resultStr;
    private final MethodHandle version;
    private final MethodHandle versionNum;
    private final MethodHandle confNew;
    private final MethodHandle confSet;
    private final MethodHandle confUnset;
    private final MethodHandle confGet;
    private final MethodHandle confDup;
    private final MethodHandle confDestroy;
    private final MethodHandle confLoadProperties;
    private final MethodHandle confDescribe;
    private final MethodHandle confCount;
    private final MethodHandle confKey;
    private final MethodHandle diagnosticsGet;
    private final MethodHandle taskPartitionStatuses;
    private final MethodHandle partitionStatusesLen;
    private final MethodHandle partitionStatusesDestroy;
    private final MethodHandle taskGroupOffsetSyncResults;
    private final MethodHandle groupSyncResultsLen;
    private final MethodHandle groupSyncResultsDestroy;
    private final MethodHandle embeddedNew;
    private final MethodHandle embeddedDestroy;
    private final MethodHandle embeddedBootstrap;
    private final MethodHandle embeddedCreateTopic;
    private final MethodHandle embeddedProduceData;
    private final MethodHandle embeddedProduceOffsetSyncs;
    private final MethodHandle embeddedCommitOffset;
    private final MethodHandle embeddedReadCheckpoints;
    private final MethodHandle translateOffsetsBack;
    private final MethodHandle failbackOffsetsLen;
    private final MethodHandle failbackOffsetsDestroy;
    private final MethodHandle failbackReport;
    private final MethodHandle commitFailbackOffsets;
    private final MethodHandle commitTranslatedOffsets;
    private final MethodHandle commitReportLen;
    private final MethodHandle commitReportDestroy;
    private final MethodHandle flowsNew;
    private final MethodHandle flowsCount;
    private final MethodHandle flowsName;
    private final MethodHandle flowsTask;
    private final MethodHandle flowsStart;
    private final MethodHandle flowsStop;
    private final MethodHandle flowsDestroy;
    private final MethodHandle currentTaskId;
    private final MethodHandle offsetSyncWriterNew;
    private final MethodHandle offsetSyncWriterReport;
    private final MethodHandle offsetSyncWriterTick;
    private final MethodHandle offsetSyncWriterWaitForCapacity;
    private final MethodHandle offsetSyncWriterFlush;
    private final MethodHandle offsetSyncWriterClose;
    private final MethodHandle offsetSyncWriterGetStats;
    private final MethodHandle offsetSyncWriterDestroy;
    private final MethodHandle translateOffsets;
    private final MethodHandle translatedOffsetsNew;
    private final MethodHandle translatedOffsetsAdd;
    private final MethodHandle translatedOffsetsLen;
    private final MethodHandle translatedOffsetsCheckpointsTopic;
    private final MethodHandle translatedOffsetsGetCounts;
    private final MethodHandle translatedOffsetsDestroy;
    private final MethodHandle failoverReport;
    private final MethodHandle failoverReportLen;
    private final MethodHandle failoverReportCaughtUp;
    private final MethodHandle failoverReportGetTotals;
    private final MethodHandle failoverReportDestroy;
    private final MethodHandle taskMetricsJson;
    private final MethodHandle taskNew;
    private final MethodHandle taskStart;
    private final MethodHandle taskPoll;
    private final MethodHandle taskStop;
    private final MethodHandle taskDestroy;
    private final MethodHandle taskFatalError;
    private final MethodHandle taskRetryReason;
    private final MethodHandle taskId;
    private final MethodHandle taskGetStats;

    /** Binds every function; a mock clusters' function the library lacks stays null. */
    PanamaCalls(SymbolLookup symbols) {
        batchLen = bind(symbols, NativeFunctions.MM_BATCH_LEN);
        batchStatus = bind(symbols, NativeFunctions.MM_BATCH_STATUS);
        batchDestroy = bind(symbols, NativeFunctions.MM_BATCH_DESTROY);
        resultStr = bind(symbols, NativeFunctions.MM_RESULT_STR);
        version = bind(symbols, NativeFunctions.MM_VERSION);
        versionNum = bind(symbols, NativeFunctions.MM_VERSION_NUM);
        confNew = bind(symbols, NativeFunctions.MM_CONF_NEW);
        confSet = bind(symbols, NativeFunctions.MM_CONF_SET);
        confUnset = bind(symbols, NativeFunctions.MM_CONF_UNSET);
        confGet = bind(symbols, NativeFunctions.MM_CONF_GET);
        confDup = bind(symbols, NativeFunctions.MM_CONF_DUP);
        confDestroy = bind(symbols, NativeFunctions.MM_CONF_DESTROY);
        confLoadProperties = bind(symbols, NativeFunctions.MM_CONF_LOAD_PROPERTIES);
        confDescribe = bind(symbols, NativeFunctions.MM_CONF_DESCRIBE);
        confCount = bind(symbols, NativeFunctions.MM_CONF_COUNT);
        confKey = bind(symbols, NativeFunctions.MM_CONF_KEY);
        diagnosticsGet = bind(symbols, NativeFunctions.MM_DIAGNOSTICS_GET);
        taskPartitionStatuses = bind(symbols, NativeFunctions.MM_TASK_PARTITION_STATUSES);
        partitionStatusesLen = bind(symbols, NativeFunctions.MM_PARTITION_STATUSES_LEN);
        partitionStatusesDestroy = bind(symbols, NativeFunctions.MM_PARTITION_STATUSES_DESTROY);
        taskGroupOffsetSyncResults = bind(symbols, NativeFunctions.MM_TASK_GROUP_OFFSET_SYNC_RESULTS);
        groupSyncResultsLen = bind(symbols, NativeFunctions.MM_GROUP_SYNC_RESULTS_LEN);
        groupSyncResultsDestroy = bind(symbols, NativeFunctions.MM_GROUP_SYNC_RESULTS_DESTROY);
        embeddedNew = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_NEW);
        embeddedDestroy = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_DESTROY);
        embeddedBootstrap = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_BOOTSTRAP);
        embeddedCreateTopic = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_CREATE_TOPIC);
        embeddedProduceData = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_PRODUCE_DATA);
        embeddedProduceOffsetSyncs = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_PRODUCE_OFFSET_SYNCS);
        embeddedCommitOffset = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_COMMIT_OFFSET);
        embeddedReadCheckpoints = bindIfPresent(symbols, NativeFunctions.MM_EMBEDDED_READ_CHECKPOINTS);
        translateOffsetsBack = bind(symbols, NativeFunctions.MM_TRANSLATE_OFFSETS_BACK);
        failbackOffsetsLen = bind(symbols, NativeFunctions.MM_FAILBACK_OFFSETS_LEN);
        failbackOffsetsDestroy = bind(symbols, NativeFunctions.MM_FAILBACK_OFFSETS_DESTROY);
        failbackReport = bind(symbols, NativeFunctions.MM_FAILBACK_REPORT);
        commitFailbackOffsets = bind(symbols, NativeFunctions.MM_COMMIT_FAILBACK_OFFSETS);
        commitTranslatedOffsets = bind(symbols, NativeFunctions.MM_COMMIT_TRANSLATED_OFFSETS);
        commitReportLen = bind(symbols, NativeFunctions.MM_COMMIT_REPORT_LEN);
        commitReportDestroy = bind(symbols, NativeFunctions.MM_COMMIT_REPORT_DESTROY);
        flowsNew = bind(symbols, NativeFunctions.MM_FLOWS_NEW);
        flowsCount = bind(symbols, NativeFunctions.MM_FLOWS_COUNT);
        flowsName = bind(symbols, NativeFunctions.MM_FLOWS_NAME);
        flowsTask = bind(symbols, NativeFunctions.MM_FLOWS_TASK);
        flowsStart = bind(symbols, NativeFunctions.MM_FLOWS_START);
        flowsStop = bind(symbols, NativeFunctions.MM_FLOWS_STOP);
        flowsDestroy = bind(symbols, NativeFunctions.MM_FLOWS_DESTROY);
        currentTaskId = bind(symbols, NativeFunctions.MM_CURRENT_TASK_ID);
        offsetSyncWriterNew = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_NEW);
        offsetSyncWriterReport = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_REPORT);
        offsetSyncWriterTick = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_TICK);
        offsetSyncWriterWaitForCapacity = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_WAIT_FOR_CAPACITY);
        offsetSyncWriterFlush = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_FLUSH);
        offsetSyncWriterClose = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_CLOSE);
        offsetSyncWriterGetStats = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_GET_STATS);
        offsetSyncWriterDestroy = bind(symbols, NativeFunctions.MM_OFFSET_SYNC_WRITER_DESTROY);
        translateOffsets = bind(symbols, NativeFunctions.MM_TRANSLATE_OFFSETS);
        translatedOffsetsNew = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_NEW);
        translatedOffsetsAdd = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_ADD);
        translatedOffsetsLen = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_LEN);
        translatedOffsetsCheckpointsTopic = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_CHECKPOINTS_TOPIC);
        translatedOffsetsGetCounts = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_GET_COUNTS);
        translatedOffsetsDestroy = bind(symbols, NativeFunctions.MM_TRANSLATED_OFFSETS_DESTROY);
        failoverReport = bind(symbols, NativeFunctions.MM_FAILOVER_REPORT);
        failoverReportLen = bind(symbols, NativeFunctions.MM_FAILOVER_REPORT_LEN);
        failoverReportCaughtUp = bind(symbols, NativeFunctions.MM_FAILOVER_REPORT_CAUGHT_UP);
        failoverReportGetTotals = bind(symbols, NativeFunctions.MM_FAILOVER_REPORT_GET_TOTALS);
        failoverReportDestroy = bind(symbols, NativeFunctions.MM_FAILOVER_REPORT_DESTROY);
        taskMetricsJson = bind(symbols, NativeFunctions.MM_TASK_METRICS_JSON);
        taskNew = bind(symbols, NativeFunctions.MM_TASK_NEW);
        taskStart = bind(symbols, NativeFunctions.MM_TASK_START);
        taskPoll = bind(symbols, NativeFunctions.MM_TASK_POLL);
        taskStop = bind(symbols, NativeFunctions.MM_TASK_STOP);
        taskDestroy = bind(symbols, NativeFunctions.MM_TASK_DESTROY);
        taskFatalError = bind(symbols, NativeFunctions.MM_TASK_FATAL_ERROR);
        taskRetryReason = bind(symbols, NativeFunctions.MM_TASK_RETRY_REASON);
        taskId = bind(symbols, NativeFunctions.MM_TASK_ID);
        taskGetStats = bind(symbols, NativeFunctions.MM_TASK_GET_STATS);
    }

    /** Throws for a result other than OK, with this thread's error message and Kafka code. */
    abstract void check(int result);

    @Override
    public final long batchLen(long batch) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) batchLen.invokeExact(ptr(batch), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final int batchStatus(long batch) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) batchStatus.invokeExact(ptr(batch), out));
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void batchDestroy(long batch) {
        try {
            batchDestroy.invokeExact(ptr(batch));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String resultStr(int result) {
        try {
            return cString((MemorySegment) resultStr.invokeExact(result));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String version() {
        try {
            return cString((MemorySegment) version.invokeExact());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final int versionNum() {
        try {
            return (int) versionNum.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long confNew() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) confNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void confSet(long conf, String key, String value) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) confSet.invokeExact(ptr(conf), text(arena, key), text(arena, value)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void confUnset(long conf, String key) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) confUnset.invokeExact(ptr(conf), text(arena, key)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String confGet(long conf, String key) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) confGet.invokeExact(ptr(conf), text(arena, key), MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) confGet.invokeExact(ptr(conf), text(arena, key), text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long confDup(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) confDup.invokeExact(ptr(conf), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void confDestroy(long conf) {
        try {
            confDestroy.invokeExact(ptr(conf));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void confLoadProperties(long conf, String properties) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) confLoadProperties.invokeExact(ptr(conf), text(arena, properties)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String confDescribe(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) confDescribe.invokeExact(ptr(conf), MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) confDescribe.invokeExact(ptr(conf), text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long confCount(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) confCount.invokeExact(ptr(conf), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String confKey(long conf, long index) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) confKey.invokeExact(ptr(conf), index, MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) confKey.invokeExact(ptr(conf), index, text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long[] diagnosticsGet() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_diagnostics");
            check((int) diagnosticsGet.invokeExact(out));
            return fields(out, "mm_diagnostics", NativeStructs.MM_DIAGNOSTICS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long taskPartitionStatuses(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskPartitionStatuses.invokeExact(ptr(task), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long partitionStatusesLen(long statuses) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) partitionStatusesLen.invokeExact(ptr(statuses), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void partitionStatusesDestroy(long statuses) {
        try {
            partitionStatusesDestroy.invokeExact(ptr(statuses));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long taskGroupOffsetSyncResults(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskGroupOffsetSyncResults.invokeExact(ptr(task), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long groupSyncResultsLen(long results) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) groupSyncResultsLen.invokeExact(ptr(results), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void groupSyncResultsDestroy(long results) {
        try {
            groupSyncResultsDestroy.invokeExact(ptr(results));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long embeddedNew() {
        requirePresent(embeddedNew);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) embeddedNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void embeddedDestroy(long embedded) {
        requirePresent(embeddedDestroy);
        try {
            embeddedDestroy.invokeExact(ptr(embedded));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String embeddedBootstrap(long embedded, int side) {
        requirePresent(embeddedBootstrap);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            check((int) embeddedBootstrap.invokeExact(ptr(embedded), side, text, len));
            return text(text.get(ADDRESS, 0), len.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        requirePresent(embeddedCreateTopic);
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedCreateTopic.invokeExact(ptr(embedded), side, text(arena, topic), partitions));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        requirePresent(embeddedProduceData);
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedProduceData.invokeExact(ptr(embedded), side, text(arena, topic), partition, count));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition, long[] upstreamOffsets, long[] downstreamOffsets) {
        if (downstreamOffsets.length != upstreamOffsets.length) {
            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "mm_embedded_produce_offset_syncs: the arrays differ in length", 0);
        }
        requirePresent(embeddedProduceOffsetSyncs);
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedProduceOffsetSyncs.invokeExact(ptr(embedded), side, text(arena, syncsTopic), text(arena, topic), partition, arena.allocateFrom(JAVA_LONG, upstreamOffsets), arena.allocateFrom(JAVA_LONG, downstreamOffsets), (long) upstreamOffsets.length));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset, String metadata) {
        requirePresent(embeddedCommitOffset);
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedCommitOffset.invokeExact(ptr(embedded), side, text(arena, group), text(arena, topic), partition, offset, text(arena, metadata)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        requirePresent(embeddedReadCheckpoints);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) embeddedReadCheckpoints.invokeExact(ptr(embedded), text(arena, checkpointsTopic), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) translateOffsetsBack.invokeExact(ptr(flowConf), kind, text(arena, groups), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long failbackOffsetsLen(long failback) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) failbackOffsetsLen.invokeExact(ptr(failback), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void failbackOffsetsDestroy(long failback) {
        try {
            failbackOffsetsDestroy.invokeExact(ptr(failback));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long failbackReport(long flowConf, long failback, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) failbackReport.invokeExact(ptr(flowConf), ptr(failback), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long commitFailbackOffsets(long flowConf, long failback, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) commitFailbackOffsets.invokeExact(ptr(flowConf), ptr(failback), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long commitTranslatedOffsets(long targetConf, long translated, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) commitTranslatedOffsets.invokeExact(ptr(targetConf), ptr(translated), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long commitReportLen(long report) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) commitReportLen.invokeExact(ptr(report), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void commitReportDestroy(long report) {
        try {
            commitReportDestroy.invokeExact(ptr(report));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long flowsNew(String properties) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) flowsNew.invokeExact(text(arena, properties), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long flowsCount(long flows) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) flowsCount.invokeExact(ptr(flows), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String flowsName(long flows, long index) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) flowsName.invokeExact(ptr(flows), index, MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) flowsName.invokeExact(ptr(flows), index, text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long flowsTask(long flows, long index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) flowsTask.invokeExact(ptr(flows), index, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void flowsStart(long flows) {
        try {
            check((int) flowsStart.invokeExact(ptr(flows)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final boolean flowsStop(long flows) {
        try {
            int r = (int) flowsStop.invokeExact(ptr(flows));
            if (r == Mm2Exception.ALREADY_STOPPED) {
                return false;
            }
            check(r);
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void flowsDestroy(long flows) {
        try {
            check((int) flowsDestroy.invokeExact(ptr(flows)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long currentTaskId() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) currentTaskId.invokeExact(out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long offsetSyncWriterNew(long conf, String offsetSyncsTopic) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) offsetSyncWriterNew.invokeExact(ptr(conf), text(arena, offsetSyncsTopic), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void offsetSyncWriterReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) offsetSyncWriterReport.invokeExact(ptr(writer), text(arena, topic), partition, upstreamOffset, downstreamOffset));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void offsetSyncWriterTick(long writer) {
        try {
            check((int) offsetSyncWriterTick.invokeExact(ptr(writer)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final boolean offsetSyncWriterWaitForCapacity(long writer, int timeoutMs) {
        try {
            int r = (int) offsetSyncWriterWaitForCapacity.invokeExact(ptr(writer), timeoutMs);
            if (r == Mm2Exception.TIMED_OUT) {
                return false;
            }
            check(r);
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void offsetSyncWriterFlush(long writer, int timeoutMs) {
        try {
            check((int) offsetSyncWriterFlush.invokeExact(ptr(writer), timeoutMs));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void offsetSyncWriterClose(long writer, int timeoutMs) {
        try {
            check((int) offsetSyncWriterClose.invokeExact(ptr(writer), timeoutMs));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long[] offsetSyncWriterGetStats(long writer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_offset_sync_writer_stats");
            check((int) offsetSyncWriterGetStats.invokeExact(ptr(writer), out));
            return fields(out, "mm_offset_sync_writer_stats", NativeStructs.MM_OFFSET_SYNC_WRITER_STATS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void offsetSyncWriterDestroy(long writer) {
        try {
            offsetSyncWriterDestroy.invokeExact(ptr(writer));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) translateOffsets.invokeExact(ptr(targetConf), text(arena, sourceAlias), kind, text(arena, groups), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long translatedOffsetsNew() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) translatedOffsetsNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void translatedOffsetsAdd(long translated, String group, String topic, int partition, long offset, long upstreamOffset, String metadata) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) translatedOffsetsAdd.invokeExact(ptr(translated), text(arena, group), text(arena, topic), partition, offset, upstreamOffset, text(arena, metadata)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long translatedOffsetsLen(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) translatedOffsetsLen.invokeExact(ptr(translated), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String translatedOffsetsCheckpointsTopic(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            check((int) translatedOffsetsCheckpointsTopic.invokeExact(ptr(translated), text, len));
            return text(text.get(ADDRESS, 0), len.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long[] translatedOffsetsGetCounts(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_translation_counts");
            check((int) translatedOffsetsGetCounts.invokeExact(ptr(translated), out));
            return fields(out, "mm_translation_counts", NativeStructs.MM_TRANSLATION_COUNTS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void translatedOffsetsDestroy(long translated) {
        try {
            translatedOffsetsDestroy.invokeExact(ptr(translated));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long failoverReport(long targetConf, long translated, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) failoverReport.invokeExact(ptr(targetConf), ptr(translated), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long failoverReportLen(long report) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) failoverReportLen.invokeExact(ptr(report), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final int failoverReportCaughtUp(long report, String group) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) failoverReportCaughtUp.invokeExact(ptr(report), text(arena, group), out));
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long[] failoverReportGetTotals(long report) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_failover_totals");
            check((int) failoverReportGetTotals.invokeExact(ptr(report), out));
            return fields(out, "mm_failover_totals", NativeStructs.MM_FAILOVER_TOTALS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void failoverReportDestroy(long report) {
        try {
            failoverReportDestroy.invokeExact(ptr(report));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String taskMetricsJson(long task) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) taskMetricsJson.invokeExact(ptr(task), MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) taskMetricsJson.invokeExact(ptr(task), text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long taskNew(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskNew.invokeExact(ptr(conf), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void taskStart(long task) {
        try {
            check((int) taskStart.invokeExact(ptr(task)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long taskPoll(long task, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskPoll.invokeExact(ptr(task), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final boolean taskStop(long task) {
        try {
            int r = (int) taskStop.invokeExact(ptr(task));
            if (r == Mm2Exception.ALREADY_STOPPED) {
                return false;
            }
            check(r);
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final void taskDestroy(long task) {
        try {
            check((int) taskDestroy.invokeExact(ptr(task)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String taskFatalError(long task) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) taskFatalError.invokeExact(ptr(task), MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) taskFatalError.invokeExact(ptr(task), text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final String taskRetryReason(long task) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text, again while it grows.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) taskRetryReason.invokeExact(ptr(task), MemorySegment.NULL, size);
            while (r == NativeConstants.RESULT_OK) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                r = (int) taskRetryReason.invokeExact(ptr(task), text, size);
                if (r == NativeConstants.RESULT_OK) {
                    return cString(text);
                }
                if (r == Mm2Exception.BUFFER_TOO_SMALL) {
                    r = NativeConstants.RESULT_OK;
                }
            }
            if (r != Mm2Exception.NOT_FOUND) {
                check(r);
            }
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long taskId(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) taskId.invokeExact(ptr(task), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public final long[] taskGetStats(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_task_stats");
            check((int) taskGetStats.invokeExact(ptr(task), out));
            return fields(out, "mm_task_stats", NativeStructs.MM_TASK_STATS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
