package io.mm2checkpoint;

import static io.mm2checkpoint.Ffm.ADDRESS;
import static io.mm2checkpoint.Ffm.INT;
import static io.mm2checkpoint.Ffm.LONG;
import static io.mm2checkpoint.Ffm.invoke;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@link NativeBinding} over java.lang.foreign (Java 22+), reached through {@link Ffm}. Needs
 * {@code --enable-native-access=ALL-UNNAMED} (or the module's name) to run without warnings.
 *
 * <p>Messages of calls without an {@code errstr} parameter come from {@code mm_last_error},
 * which is per OS thread: it is read right after the failed call on the same thread. (A virtual
 * thread does not move between two downcalls that have no blocking operation between them.)
 */
final class PanamaBinding implements NativeBinding {
    /** Bytes of {@code errstr} buffers; the library cuts longer messages at a UTF-8 boundary. */
    private static final int ERRSTR_SIZE = 1024;
    /** sizeof(mm_task_stats): seven uint64, two int64, two uint8, padded to 8. */
    private static final int TASK_STATS_SIZE = 80;
    /** sizeof(mm_diagnostics): three uint64. */
    private static final int DIAGNOSTICS_SIZE = 24;
    /** sizeof(mm_translation_counts): three uint64. */
    private static final int TRANSLATION_COUNTS_SIZE = 24;
    /** sizeof(mm_failover_totals): four uint64. */
    private static final int FAILOVER_TOTALS_SIZE = 32;
    /** sizeof(mm_offset_sync_writer_stats): eight uint64 and one uint8, padded to 8. */
    private static final int WRITER_STATS_SIZE = 72;

    private final MethodHandle version;
    private final MethodHandle resultStr;
    private final MethodHandle lastError;
    private final MethodHandle diagnosticsGet;
    private final MethodHandle setLogCallback;
    private final MethodHandle confNew;
    private final MethodHandle confSet;
    private final MethodHandle confDestroy;
    private final MethodHandle taskNew;
    private final MethodHandle taskStart;
    private final MethodHandle taskPoll;
    private final MethodHandle taskStop;
    private final MethodHandle taskDestroy;
    private final MethodHandle taskFatalError;
    private final MethodHandle taskGetStats;
    private final MethodHandle batchStatus;
    private final MethodHandle batchLen;
    private final MethodHandle batchGroup;
    private final MethodHandle batchTopic;
    private final MethodHandle batchMetadata;
    private final MethodHandle batchPartition;
    private final MethodHandle batchUpstreamOffset;
    private final MethodHandle batchDownstreamOffset;
    private final MethodHandle batchDestroy;
    private final MethodHandle embeddedNew;
    private final MethodHandle embeddedDestroy;
    private final MethodHandle embeddedBootstrap;
    private final MethodHandle embeddedCreateTopic;
    private final MethodHandle embeddedProduceData;
    private final MethodHandle embeddedProduceOffsetSyncs;
    private final MethodHandle embeddedCommitOffset;
    private final MethodHandle embeddedReadCheckpoints;
    private final MethodHandle translateOffsets;
    private final MethodHandle translatedNew;
    private final MethodHandle translatedAdd;
    private final MethodHandle translatedLen;
    private final MethodHandle translatedGroup;
    private final MethodHandle translatedTopic;
    private final MethodHandle translatedMetadata;
    private final MethodHandle translatedPartition;
    private final MethodHandle translatedOffset;
    private final MethodHandle translatedUpstreamOffset;
    private final MethodHandle translatedCheckpointsTopic;
    private final MethodHandle translatedGetCounts;
    private final MethodHandle translatedDestroy;
    private final MethodHandle failoverReport;
    private final MethodHandle reportLen;
    private final MethodHandle reportGroup;
    private final MethodHandle reportTopic;
    private final MethodHandle reportPartition;
    private final MethodHandle reportTranslatedOffset;
    private final MethodHandle reportCurrentOffset;
    private final MethodHandle reportSkipped;
    private final MethodHandle reportReread;
    private final MethodHandle reportGetTotals;
    private final MethodHandle reportDestroy;
    private final MethodHandle writerNew;
    private final MethodHandle writerReport;
    private final MethodHandle writerTick;
    private final MethodHandle writerWaitForCapacity;
    private final MethodHandle writerFlush;
    private final MethodHandle writerClose;
    private final MethodHandle writerGetStats;
    private final MethodHandle writerDestroy;
    /** The C function pointer that calls {@link #onLog}; made once, lives as long as the process. */
    private final Object logStub;

    PanamaBinding(String library) {
        Ffm ffm = new Ffm(library);
        version = ffm.downcall("mm_version", ADDRESS);
        resultStr = ffm.downcall("mm_result_str", ADDRESS, INT);
        lastError = ffm.downcall("mm_last_error", null, ADDRESS, LONG);
        diagnosticsGet = ffm.downcall("mm_diagnostics_get", INT, ADDRESS);
        setLogCallback = ffm.downcall("mm_set_log_callback", INT, ADDRESS, ADDRESS, INT);
        confNew = ffm.downcall("mm_conf_new", ADDRESS);
        confSet = ffm.downcall("mm_conf_set", INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, LONG);
        confDestroy = ffm.downcall("mm_conf_destroy", null, ADDRESS);
        taskNew = ffm.downcall("mm_task_new", ADDRESS, ADDRESS, ADDRESS, LONG);
        taskStart = ffm.downcall("mm_task_start", INT, ADDRESS);
        taskPoll = ffm.downcall("mm_task_poll", INT, ADDRESS, INT, ADDRESS);
        taskStop = ffm.downcall("mm_task_stop", INT, ADDRESS);
        taskDestroy = ffm.downcall("mm_task_destroy", null, ADDRESS);
        taskFatalError = ffm.downcall("mm_task_fatal_error", INT, ADDRESS, ADDRESS, LONG);
        taskGetStats = ffm.downcall("mm_task_get_stats", INT, ADDRESS, ADDRESS);
        batchStatus = ffm.downcall("mm_batch_status", INT, ADDRESS);
        batchLen = ffm.downcall("mm_batch_len", LONG, ADDRESS);
        batchGroup = ffm.downcall("mm_batch_group", ADDRESS, ADDRESS, LONG, ADDRESS);
        batchTopic = ffm.downcall("mm_batch_topic", ADDRESS, ADDRESS, LONG, ADDRESS);
        batchMetadata = ffm.downcall("mm_batch_metadata", ADDRESS, ADDRESS, LONG, ADDRESS);
        batchPartition = ffm.downcall("mm_batch_partition", INT, ADDRESS, LONG);
        batchUpstreamOffset = ffm.downcall("mm_batch_upstream_offset", LONG, ADDRESS, LONG);
        batchDownstreamOffset = ffm.downcall("mm_batch_downstream_offset", LONG, ADDRESS, LONG);
        batchDestroy = ffm.downcall("mm_batch_destroy", null, ADDRESS);
        embeddedNew = ffm.downcall("mm_embedded_new", ADDRESS, ADDRESS, LONG);
        embeddedDestroy = ffm.downcall("mm_embedded_destroy", null, ADDRESS);
        embeddedBootstrap = ffm.downcall("mm_embedded_bootstrap", ADDRESS, ADDRESS, INT);
        embeddedCreateTopic = ffm.downcall("mm_embedded_create_topic", INT, ADDRESS, INT, ADDRESS, INT);
        embeddedProduceData = ffm.downcall("mm_embedded_produce_data", INT, ADDRESS, INT, ADDRESS, INT, LONG);
        embeddedProduceOffsetSyncs = ffm.downcall("mm_embedded_produce_offset_syncs", INT,
                ADDRESS, INT, ADDRESS, ADDRESS, INT, ADDRESS, ADDRESS, LONG);
        embeddedCommitOffset = ffm.downcall("mm_embedded_commit_offset", INT,
                ADDRESS, INT, ADDRESS, ADDRESS, INT, LONG, ADDRESS);
        embeddedReadCheckpoints = ffm.downcall("mm_embedded_read_checkpoints", INT, ADDRESS, ADDRESS, ADDRESS);
        translateOffsets = ffm.downcall("mm_translate_offsets", INT,
                ADDRESS, ADDRESS, INT, ADDRESS, INT, ADDRESS, ADDRESS, LONG);
        translatedNew = ffm.downcall("mm_translated_offsets_new", ADDRESS);
        translatedAdd = ffm.downcall("mm_translated_offsets_add", INT,
                ADDRESS, ADDRESS, ADDRESS, INT, LONG, LONG, ADDRESS);
        translatedLen = ffm.downcall("mm_translated_offsets_len", LONG, ADDRESS);
        translatedGroup = ffm.downcall("mm_translated_offsets_group", ADDRESS, ADDRESS, LONG, ADDRESS);
        translatedTopic = ffm.downcall("mm_translated_offsets_topic", ADDRESS, ADDRESS, LONG, ADDRESS);
        translatedMetadata = ffm.downcall("mm_translated_offsets_metadata", ADDRESS, ADDRESS, LONG, ADDRESS);
        translatedPartition = ffm.downcall("mm_translated_offsets_partition", INT, ADDRESS, LONG);
        translatedOffset = ffm.downcall("mm_translated_offsets_offset", LONG, ADDRESS, LONG);
        translatedUpstreamOffset = ffm.downcall("mm_translated_offsets_upstream_offset", LONG, ADDRESS, LONG);
        translatedCheckpointsTopic = ffm.downcall("mm_translated_offsets_checkpoints_topic", ADDRESS, ADDRESS, ADDRESS);
        translatedGetCounts = ffm.downcall("mm_translated_offsets_get_counts", INT, ADDRESS, ADDRESS);
        translatedDestroy = ffm.downcall("mm_translated_offsets_destroy", null, ADDRESS);
        failoverReport = ffm.downcall("mm_failover_report", INT, ADDRESS, ADDRESS, INT, ADDRESS, ADDRESS, LONG);
        reportLen = ffm.downcall("mm_failover_report_len", LONG, ADDRESS);
        reportGroup = ffm.downcall("mm_failover_report_group", ADDRESS, ADDRESS, LONG, ADDRESS);
        reportTopic = ffm.downcall("mm_failover_report_topic", ADDRESS, ADDRESS, LONG, ADDRESS);
        reportPartition = ffm.downcall("mm_failover_report_partition", INT, ADDRESS, LONG);
        reportTranslatedOffset = ffm.downcall("mm_failover_report_translated_offset", LONG, ADDRESS, LONG);
        reportCurrentOffset = ffm.downcall("mm_failover_report_current_offset", LONG, ADDRESS, LONG);
        reportSkipped = ffm.downcall("mm_failover_report_skipped", LONG, ADDRESS, LONG);
        reportReread = ffm.downcall("mm_failover_report_reread", LONG, ADDRESS, LONG);
        reportGetTotals = ffm.downcall("mm_failover_report_get_totals", INT, ADDRESS, ADDRESS);
        reportDestroy = ffm.downcall("mm_failover_report_destroy", null, ADDRESS);
        writerNew = ffm.downcall("mm_offset_sync_writer_new", ADDRESS, ADDRESS, ADDRESS, ADDRESS, LONG);
        writerReport = ffm.downcall("mm_offset_sync_writer_report", INT, ADDRESS, ADDRESS, INT, LONG, LONG);
        writerTick = ffm.downcall("mm_offset_sync_writer_tick", INT, ADDRESS);
        writerWaitForCapacity = ffm.downcall("mm_offset_sync_writer_wait_for_capacity", INT, ADDRESS, INT);
        writerFlush = ffm.downcall("mm_offset_sync_writer_flush", INT, ADDRESS, INT);
        writerClose = ffm.downcall("mm_offset_sync_writer_close", INT, ADDRESS, INT);
        writerGetStats = ffm.downcall("mm_offset_sync_writer_get_stats", INT, ADDRESS, ADDRESS);
        writerDestroy = ffm.downcall("mm_offset_sync_writer_destroy", null, ADDRESS);
        logStub = ffm.upcall(logTarget(), null, ADDRESS, INT, ADDRESS, ADDRESS);
    }

    @Override
    public String name() {
        return "panama";
    }

    @Override
    public String version() {
        return Ffm.cString(invoke(version));
    }

    @Override
    public String resultStr(int code) {
        return Ffm.cString(invoke(resultStr, code));
    }

    @Override
    public long[] diagnostics() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(DIAGNOSTICS_SIZE);
            check((int) invoke(diagnosticsGet, out));
            return new long[] {Ffm.getLong(out, 0), Ffm.getLong(out, 8), Ffm.getLong(out, 16)};
        }
    }

    @Override
    public void setLogBridge(int maxLevel) {
        Object callback = maxLevel == 0 ? Ffm.NULL : logStub;
        check((int) invoke(setLogCallback, callback, Ffm.NULL, maxLevel));
    }

    /**
     * The upcall: runs on whichever thread logs (the task's native threads or the calling thread).
     * An exception escaping an upcall would crash the JVM, so nothing may escape.
     */
    private static void onLog(Object opaque, int level, Object target, Object message) {
        try {
            LogBridge.deliver(level, Ffm.cString(target), Ffm.cString(message));
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    /** {@link #onLog} typed as the C callback: (MemorySegment, int, MemorySegment, MemorySegment) void. */
    private static MethodHandle logTarget() {
        try {
            MethodHandle h = MethodHandles.lookup().findStatic(PanamaBinding.class, "onLog",
                    MethodType.methodType(void.class, Object.class, int.class, Object.class, Object.class));
            Class<?> seg = Ffm.MEMORY_SEGMENT;
            return h.asType(MethodType.methodType(void.class, seg, int.class, seg, seg));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long confNew() {
        return nonNull(invoke(confNew), "mm_conf_new");
    }

    @Override
    public void confSet(long conf, String key, String value) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object errstr = scope.allocate(ERRSTR_SIZE);
            int r = (int) invoke(confSet, Ffm.pointer(conf), scope.cString(key), scope.cString(value), errstr,
                    (long) ERRSTR_SIZE);
            check(r, errstr);
        }
    }

    @Override
    public void confDestroy(long conf) {
        invoke(confDestroy, Ffm.pointer(conf));
    }

    @Override
    public long taskNew(long conf) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object errstr = scope.allocate(ERRSTR_SIZE);
            long task = Ffm.address(invoke(taskNew, Ffm.pointer(conf), errstr, (long) ERRSTR_SIZE));
            if (task == 0) {
                throw NativeLibrary.constructorFailure(Mm2Exception.INVALID_CONFIG, Ffm.cString(errstr));
            }
            return task;
        }
    }

    @Override
    public void taskStart(long task) {
        check((int) invoke(taskStart, Ffm.pointer(task)));
    }

    @Override
    public long taskPoll(long task, int timeoutMs) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(taskPoll, Ffm.pointer(task), timeoutMs, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public boolean taskStop(long task) {
        int r = (int) invoke(taskStop, Ffm.pointer(task));
        if (r == NativeConstants.RESULT_ALREADY_STOPPED) {
            return false;
        }
        check(r);
        return true;
    }

    @Override
    public void taskDestroy(long task) {
        invoke(taskDestroy, Ffm.pointer(task));
    }

    @Override
    public String taskFatalError(long task) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object errstr = scope.allocate(ERRSTR_SIZE);
            int r = (int) invoke(taskFatalError, Ffm.pointer(task), errstr, (long) ERRSTR_SIZE);
            if (r == Mm2Exception.FATAL) {
                return Ffm.cString(errstr);
            }
            check(r, errstr);
            return null;
        }
    }

    @Override
    public long[] taskStats(long task) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(TASK_STATS_SIZE);
            check((int) invoke(taskGetStats, Ffm.pointer(task), out));
            long[] fields = new long[11];
            for (int i = 0; i < 9; i++) {
                fields[i] = Ffm.getLong(out, 8L * i);
            }
            fields[9] = Ffm.getByte(out, 72);
            fields[10] = Ffm.getByte(out, 73);
            return fields;
        }
    }

    @Override
    public int batchStatus(long batch) {
        return (int) invoke(batchStatus, Ffm.pointer(batch));
    }

    @Override
    public int batchLen(long batch) {
        return Math.toIntExact((long) invoke(batchLen, Ffm.pointer(batch)));
    }

    @Override
    public String batchGroup(long batch, int index) {
        return listText(batchGroup, batch, index, "mm_batch_group");
    }

    @Override
    public String batchTopic(long batch, int index) {
        return listText(batchTopic, batch, index, "mm_batch_topic");
    }

    @Override
    public String batchMetadata(long batch, int index) {
        return listText(batchMetadata, batch, index, "mm_batch_metadata");
    }

    /** Text of a list entry (batch, translation, report) with its length, so an embedded NUL survives. */
    private String listText(MethodHandle accessor, long batch, int index, String name) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object len = scope.allocate(8);
            Object text = invoke(accessor, Ffm.pointer(batch), (long) index, len);
            if (Ffm.address(text) == 0) {
                throw NativeLibrary.failure(Mm2Exception.NOT_FOUND, name + ": " + lastErrorText());
            }
            return Ffm.text(text, Ffm.getLong(len, 0));
        }
    }

    @Override
    public int batchPartition(long batch, int index) {
        return (int) invoke(batchPartition, Ffm.pointer(batch), (long) index);
    }

    @Override
    public long batchUpstreamOffset(long batch, int index) {
        return (long) invoke(batchUpstreamOffset, Ffm.pointer(batch), (long) index);
    }

    @Override
    public long batchDownstreamOffset(long batch, int index) {
        return (long) invoke(batchDownstreamOffset, Ffm.pointer(batch), (long) index);
    }

    @Override
    public void batchDestroy(long batch) {
        invoke(batchDestroy, Ffm.pointer(batch));
    }

    @Override
    public long embeddedNew() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object errstr = scope.allocate(ERRSTR_SIZE);
            long e = Ffm.address(invoke(embeddedNew, errstr, (long) ERRSTR_SIZE));
            if (e == 0) {
                throw NativeLibrary.constructorFailure(Mm2Exception.KAFKA, Ffm.cString(errstr));
            }
            return e;
        }
    }

    @Override
    public void embeddedDestroy(long embedded) {
        invoke(embeddedDestroy, Ffm.pointer(embedded));
    }

    @Override
    public String embeddedBootstrap(long embedded, int side) {
        Object text = invoke(embeddedBootstrap, Ffm.pointer(embedded), side);
        if (Ffm.address(text) == 0) {
            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "mm_embedded_bootstrap: " + lastErrorText());
        }
        return Ffm.cString(text);
    }

    @Override
    public void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(embeddedCreateTopic, Ffm.pointer(embedded), side, scope.cString(topic), partitions));
        }
    }

    @Override
    public void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(embeddedProduceData, Ffm.pointer(embedded), side, scope.cString(topic), partition,
                    count));
        }
    }

    @Override
    public void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition,
            long[] upstreamOffsets, long[] downstreamOffsets) {
        int n = upstreamOffsets.length;
        try (Ffm.Scope scope = Ffm.scope()) {
            Object up = scope.longs(upstreamOffsets);
            Object down = scope.longs(downstreamOffsets);
            check((int) invoke(embeddedProduceOffsetSyncs, Ffm.pointer(embedded), side, scope.cString(syncsTopic),
                    scope.cString(topic), partition, up, down, (long) n));
        }
    }

    @Override
    public void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset,
            String metadata) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(embeddedCommitOffset, Ffm.pointer(embedded), side, scope.cString(group),
                    scope.cString(topic), partition, offset, scope.cString(metadata)));
        }
    }

    @Override
    public long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(embeddedReadCheckpoints, Ffm.pointer(embedded), scope.cString(checkpointsTopic), out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            Object errstr = scope.allocate(ERRSTR_SIZE);
            int r = (int) invoke(translateOffsets, Ffm.pointer(targetConf), scope.cString(sourceAlias), kind,
                    scope.cString(groups), timeoutMs, out, errstr, (long) ERRSTR_SIZE);
            check(r, errstr);
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public long translatedNew() {
        return nonNull(invoke(translatedNew), "mm_translated_offsets_new");
    }

    @Override
    public void translatedAdd(long translated, String group, String topic, int partition, long offset,
            long upstreamOffset, String metadata) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(translatedAdd, Ffm.pointer(translated), scope.cString(group), scope.cString(topic),
                    partition, offset, upstreamOffset, scope.cString(metadata)));
        }
    }

    @Override
    public int translatedLen(long translated) {
        return Math.toIntExact((long) invoke(translatedLen, Ffm.pointer(translated)));
    }

    @Override
    public String translatedGroup(long translated, int index) {
        return listText(translatedGroup, translated, index, "mm_translated_offsets_group");
    }

    @Override
    public String translatedTopic(long translated, int index) {
        return listText(translatedTopic, translated, index, "mm_translated_offsets_topic");
    }

    @Override
    public String translatedMetadata(long translated, int index) {
        return listText(translatedMetadata, translated, index, "mm_translated_offsets_metadata");
    }

    @Override
    public int translatedPartition(long translated, int index) {
        return (int) invoke(translatedPartition, Ffm.pointer(translated), (long) index);
    }

    @Override
    public long translatedOffset(long translated, int index) {
        return (long) invoke(translatedOffset, Ffm.pointer(translated), (long) index);
    }

    @Override
    public long translatedUpstreamOffset(long translated, int index) {
        return (long) invoke(translatedUpstreamOffset, Ffm.pointer(translated), (long) index);
    }

    @Override
    public String translatedCheckpointsTopic(long translated) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object len = scope.allocate(8);
            Object text = invoke(translatedCheckpointsTopic, Ffm.pointer(translated), len);
            if (Ffm.address(text) == 0) {
                throw NativeLibrary.failure(Mm2Exception.NULL_PARAMETER,
                        "mm_translated_offsets_checkpoints_topic: " + lastErrorText());
            }
            return Ffm.text(text, Ffm.getLong(len, 0));
        }
    }

    @Override
    public long[] translatedCounts(long translated) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(TRANSLATION_COUNTS_SIZE);
            check((int) invoke(translatedGetCounts, Ffm.pointer(translated), out));
            return new long[] {Ffm.getLong(out, 0), Ffm.getLong(out, 8), Ffm.getLong(out, 16)};
        }
    }

    @Override
    public void translatedDestroy(long translated) {
        invoke(translatedDestroy, Ffm.pointer(translated));
    }

    @Override
    public long failoverReport(long targetConf, long translated, int timeoutMs) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            Object errstr = scope.allocate(ERRSTR_SIZE);
            int r = (int) invoke(failoverReport, Ffm.pointer(targetConf), Ffm.pointer(translated), timeoutMs, out,
                    errstr, (long) ERRSTR_SIZE);
            check(r, errstr);
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public int reportLen(long report) {
        return Math.toIntExact((long) invoke(reportLen, Ffm.pointer(report)));
    }

    @Override
    public String reportGroup(long report, int index) {
        return listText(reportGroup, report, index, "mm_failover_report_group");
    }

    @Override
    public String reportTopic(long report, int index) {
        return listText(reportTopic, report, index, "mm_failover_report_topic");
    }

    @Override
    public int reportPartition(long report, int index) {
        return (int) invoke(reportPartition, Ffm.pointer(report), (long) index);
    }

    @Override
    public long reportTranslatedOffset(long report, int index) {
        return (long) invoke(reportTranslatedOffset, Ffm.pointer(report), (long) index);
    }

    @Override
    public long reportCurrentOffset(long report, int index) {
        return (long) invoke(reportCurrentOffset, Ffm.pointer(report), (long) index);
    }

    @Override
    public long reportSkipped(long report, int index) {
        return (long) invoke(reportSkipped, Ffm.pointer(report), (long) index);
    }

    @Override
    public long reportReread(long report, int index) {
        return (long) invoke(reportReread, Ffm.pointer(report), (long) index);
    }

    @Override
    public long[] reportTotals(long report) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(FAILOVER_TOTALS_SIZE);
            check((int) invoke(reportGetTotals, Ffm.pointer(report), out));
            return new long[] {Ffm.getLong(out, 0), Ffm.getLong(out, 8), Ffm.getLong(out, 16), Ffm.getLong(out, 24)};
        }
    }

    @Override
    public void reportDestroy(long report) {
        invoke(reportDestroy, Ffm.pointer(report));
    }

    @Override
    public long writerNew(long conf, String offsetSyncsTopic) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object errstr = scope.allocate(ERRSTR_SIZE);
            long w = Ffm.address(invoke(writerNew, Ffm.pointer(conf), scope.cString(offsetSyncsTopic), errstr,
                    (long) ERRSTR_SIZE));
            if (w == 0) {
                throw NativeLibrary.writerConstructorFailure(Ffm.cString(errstr));
            }
            return w;
        }
    }

    @Override
    public void writerReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(writerReport, Ffm.pointer(writer), scope.cString(topic), partition, upstreamOffset,
                    downstreamOffset));
        }
    }

    @Override
    public void writerTick(long writer) {
        check((int) invoke(writerTick, Ffm.pointer(writer)));
    }

    @Override
    public boolean writerWaitForCapacity(long writer, int timeoutMs) {
        int r = (int) invoke(writerWaitForCapacity, Ffm.pointer(writer), timeoutMs);
        if (r == Mm2Exception.TIMED_OUT) {
            return false;
        }
        check(r);
        return true;
    }

    @Override
    public void writerFlush(long writer, int timeoutMs) {
        check((int) invoke(writerFlush, Ffm.pointer(writer), timeoutMs));
    }

    @Override
    public void writerClose(long writer, int timeoutMs) {
        check((int) invoke(writerClose, Ffm.pointer(writer), timeoutMs));
    }

    @Override
    public long[] writerStats(long writer) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(WRITER_STATS_SIZE);
            check((int) invoke(writerGetStats, Ffm.pointer(writer), out));
            long[] fields = new long[9];
            for (int i = 0; i < 8; i++) {
                fields[i] = Ffm.getLong(out, 8L * i);
            }
            fields[8] = Ffm.getByte(out, 64);
            return fields;
        }
    }

    @Override
    public void writerDestroy(long writer) {
        invoke(writerDestroy, Ffm.pointer(writer));
    }

    /** Throws for a result other than OK, with this thread's {@code mm_last_error} message. */
    private void check(int result) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, lastErrorText());
        }
    }

    /** Throws for a result other than OK, with the message the call wrote into {@code errstr}. */
    private void check(int result, Object errstr) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, Ffm.cString(errstr));
        }
    }

    private String lastErrorText() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object buf = scope.allocate(ERRSTR_SIZE);
            invoke(lastError, buf, (long) ERRSTR_SIZE);
            return Ffm.cString(buf);
        }
    }

    private static long nonNull(Object pointer, String function) {
        long address = Ffm.address(pointer);
        if (address == 0) {
            throw new OutOfMemoryError(function + " returned NULL");
        }
        return address;
    }
}
