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
 * <p>Every call returns an {@code mm_result}; the message of a failure comes from
 * {@code mm_last_error} and librdkafka's code from {@code mm_last_error_kafka_code}, both per OS
 * thread: they are read right after the failed call on the same thread. (A virtual thread does
 * not move between two downcalls that have no blocking operation between them.) Struct sizes and
 * offsets come from {@link NativeLayout}, never from constants here.
 */
final class PanamaBinding implements NativeBinding {
    /** Bytes read from {@code mm_last_error}; the library cuts longer messages at a UTF-8 boundary. */
    private static final int ERRSTR_SIZE = 1024;
    /** The fields Java reads, in the order of the long[] each NativeBinding method returns. */
    private static final String[] TASK_STATS = {"checkpoints_emitted", "records_skipped", "syncs_loaded",
        "checkpoints_loaded", "cycles", "group_offsets_written", "groups", "load_time_us", "last_stop_time_us",
        "initialized", "checkpoints_load_ok"};
    private static final String[] DIAGNOSTICS = {"live_clients", "live_threads", "concurrent_client_access"};
    private static final String[] TRANSLATION_COUNTS = {"records_read", "malformed_records",
        "negative_offset_records"};
    private static final String[] FAILOVER_TOTALS = {"partitions", "without_current_offset", "skipped", "reread"};
    private static final String[] WRITER_STATS = {"records_reported", "syncs_sent", "syncs_delivered",
        "syncs_failed", "promotions", "pending", "delayed", "outstanding", "closed"};

    private final MethodHandle version;
    private final MethodHandle resultStr;
    private final MethodHandle lastError;
    private final MethodHandle lastErrorKafkaCode;
    private final MethodHandle versionNum;
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
        lastError = ffm.downcall("mm_last_error", LONG, ADDRESS, LONG);
        lastErrorKafkaCode = ffm.downcall("mm_last_error_kafka_code", INT);
        versionNum = ffm.downcall("mm_version_num", INT);
        diagnosticsGet = ffm.downcall("mm_diagnostics_get", INT, ADDRESS);
        setLogCallback = ffm.downcall("mm_set_log_callback", INT, ADDRESS, ADDRESS, INT);
        confNew = ffm.downcall("mm_conf_new", INT, ADDRESS);
        confSet = ffm.downcall("mm_conf_set", INT, ADDRESS, ADDRESS, ADDRESS);
        confDestroy = ffm.downcall("mm_conf_destroy", null, ADDRESS);
        taskNew = ffm.downcall("mm_task_new", INT, ADDRESS, ADDRESS);
        taskStart = ffm.downcall("mm_task_start", INT, ADDRESS);
        taskPoll = ffm.downcall("mm_task_poll", INT, ADDRESS, INT, ADDRESS);
        taskStop = ffm.downcall("mm_task_stop", INT, ADDRESS);
        taskDestroy = ffm.downcall("mm_task_destroy", INT, ADDRESS);
        taskFatalError = ffm.downcall("mm_task_fatal_error", INT, ADDRESS, ADDRESS, ADDRESS);
        taskGetStats = ffm.downcall("mm_task_get_stats", INT, ADDRESS, ADDRESS);
        batchStatus = ffm.downcall("mm_batch_status", INT, ADDRESS, ADDRESS);
        batchLen = ffm.downcall("mm_batch_len", INT, ADDRESS, ADDRESS);
        batchGroup = ffm.downcall("mm_batch_group", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        batchTopic = ffm.downcall("mm_batch_topic", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        batchMetadata = ffm.downcall("mm_batch_metadata", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        batchPartition = ffm.downcall("mm_batch_partition", INT, ADDRESS, LONG, ADDRESS);
        batchUpstreamOffset = ffm.downcall("mm_batch_upstream_offset", INT, ADDRESS, LONG, ADDRESS);
        batchDownstreamOffset = ffm.downcall("mm_batch_downstream_offset", INT, ADDRESS, LONG, ADDRESS);
        batchDestroy = ffm.downcall("mm_batch_destroy", null, ADDRESS);
        embeddedNew = ffm.downcall("mm_embedded_new", INT, ADDRESS);
        embeddedDestroy = ffm.downcall("mm_embedded_destroy", null, ADDRESS);
        embeddedBootstrap = ffm.downcall("mm_embedded_bootstrap", INT, ADDRESS, INT, ADDRESS, ADDRESS);
        embeddedCreateTopic = ffm.downcall("mm_embedded_create_topic", INT, ADDRESS, INT, ADDRESS, INT);
        embeddedProduceData = ffm.downcall("mm_embedded_produce_data", INT, ADDRESS, INT, ADDRESS, INT, LONG);
        embeddedProduceOffsetSyncs = ffm.downcall("mm_embedded_produce_offset_syncs", INT,
                ADDRESS, INT, ADDRESS, ADDRESS, INT, ADDRESS, ADDRESS, LONG);
        embeddedCommitOffset = ffm.downcall("mm_embedded_commit_offset", INT,
                ADDRESS, INT, ADDRESS, ADDRESS, INT, LONG, ADDRESS);
        embeddedReadCheckpoints = ffm.downcall("mm_embedded_read_checkpoints", INT, ADDRESS, ADDRESS, ADDRESS);
        translateOffsets = ffm.downcall("mm_translate_offsets", INT,
                ADDRESS, ADDRESS, INT, ADDRESS, INT, ADDRESS);
        translatedNew = ffm.downcall("mm_translated_offsets_new", INT, ADDRESS);
        translatedAdd = ffm.downcall("mm_translated_offsets_add", INT,
                ADDRESS, ADDRESS, ADDRESS, INT, LONG, LONG, ADDRESS);
        translatedLen = ffm.downcall("mm_translated_offsets_len", INT, ADDRESS, ADDRESS);
        translatedGroup = ffm.downcall("mm_translated_offsets_group", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        translatedTopic = ffm.downcall("mm_translated_offsets_topic", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        translatedMetadata = ffm.downcall("mm_translated_offsets_metadata", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        translatedPartition = ffm.downcall("mm_translated_offsets_partition", INT, ADDRESS, LONG, ADDRESS);
        translatedOffset = ffm.downcall("mm_translated_offsets_offset", INT, ADDRESS, LONG, ADDRESS);
        translatedUpstreamOffset = ffm.downcall("mm_translated_offsets_upstream_offset", INT, ADDRESS, LONG, ADDRESS);
        translatedCheckpointsTopic = ffm.downcall("mm_translated_offsets_checkpoints_topic", INT, ADDRESS, ADDRESS,
                ADDRESS);
        translatedGetCounts = ffm.downcall("mm_translated_offsets_get_counts", INT, ADDRESS, ADDRESS);
        translatedDestroy = ffm.downcall("mm_translated_offsets_destroy", null, ADDRESS);
        failoverReport = ffm.downcall("mm_failover_report", INT, ADDRESS, ADDRESS, INT, ADDRESS);
        reportLen = ffm.downcall("mm_failover_report_len", INT, ADDRESS, ADDRESS);
        reportGroup = ffm.downcall("mm_failover_report_group", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        reportTopic = ffm.downcall("mm_failover_report_topic", INT, ADDRESS, LONG, ADDRESS, ADDRESS);
        reportPartition = ffm.downcall("mm_failover_report_partition", INT, ADDRESS, LONG, ADDRESS);
        reportTranslatedOffset = ffm.downcall("mm_failover_report_translated_offset", INT, ADDRESS, LONG, ADDRESS);
        reportCurrentOffset = ffm.downcall("mm_failover_report_current_offset", INT, ADDRESS, LONG, ADDRESS);
        reportSkipped = ffm.downcall("mm_failover_report_skipped", INT, ADDRESS, LONG, ADDRESS);
        reportReread = ffm.downcall("mm_failover_report_reread", INT, ADDRESS, LONG, ADDRESS);
        reportGetTotals = ffm.downcall("mm_failover_report_get_totals", INT, ADDRESS, ADDRESS);
        reportDestroy = ffm.downcall("mm_failover_report_destroy", null, ADDRESS);
        writerNew = ffm.downcall("mm_offset_sync_writer_new", INT, ADDRESS, ADDRESS, ADDRESS);
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
    public int versionNum() {
        return (int) invoke(versionNum);
    }

    @Override
    public String resultStr(int code) {
        return Ffm.cString(invoke(resultStr, code));
    }

    @Override
    public long[] diagnostics() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = sized(scope, "mm_diagnostics");
            check((int) invoke(diagnosticsGet, out));
            return fields(out, "mm_diagnostics", DIAGNOSTICS);
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
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(confNew, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public void confSet(long conf, String key, String value) {
        try (Ffm.Scope scope = Ffm.scope()) {
            check((int) invoke(confSet, Ffm.pointer(conf), scope.cString(key), scope.cString(value)));
        }
    }

    @Override
    public void confDestroy(long conf) {
        invoke(confDestroy, Ffm.pointer(conf));
    }

    @Override
    public long taskNew(long conf) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(taskNew, Ffm.pointer(conf), out));
            return Ffm.address(Ffm.getPointer(out, 0));
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
        check((int) invoke(taskDestroy, Ffm.pointer(task)));
    }

    @Override
    public String taskFatalError(long task) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object size = scope.allocate(8);
            int r = (int) invoke(taskFatalError, Ffm.pointer(task), Ffm.NULL, size); /* size query */
            if (r == Mm2Exception.NOT_FOUND) {
                return null;
            }
            check(r);
            Object message = scope.allocate(Ffm.getLong(size, 0));
            check((int) invoke(taskFatalError, Ffm.pointer(task), message, size));
            return Ffm.cString(message);
        }
    }

    @Override
    public long[] taskStats(long task) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = sized(scope, "mm_task_stats");
            check((int) invoke(taskGetStats, Ffm.pointer(task), out));
            return fields(out, "mm_task_stats", TASK_STATS);
        }
    }

    @Override
    public int batchStatus(long batch) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(batchStatus, Ffm.pointer(batch), out));
            return Ffm.getInt(out, 0);
        }
    }

    @Override
    public int batchLen(long batch) {
        return len(batchLen, batch);
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
    private String listText(MethodHandle accessor, long list, int index, String name) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object text = scope.allocate(8);
            Object len = scope.allocate(8);
            check((int) invoke(accessor, Ffm.pointer(list), (long) index, text, len), name);
            return Ffm.text(Ffm.getPointer(text, 0), Ffm.getLong(len, 0));
        }
    }

    /** The length of a list. */
    private int len(MethodHandle accessor, long list) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(accessor, Ffm.pointer(list), out));
            return Math.toIntExact(Ffm.getLong(out, 0));
        }
    }

    /** An int32_t accessor of a list entry. */
    private int int32(MethodHandle accessor, long list, int index) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(accessor, Ffm.pointer(list), (long) index, out));
            return Ffm.getInt(out, 0);
        }
    }

    /** An int64_t accessor of a list entry; -1 (Java's "unknown offset") for a value it does not have. */
    private long int64(MethodHandle accessor, long list, int index) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            int r = (int) invoke(accessor, Ffm.pointer(list), (long) index, out);
            if (r == Mm2Exception.NOT_FOUND) {
                return -1;
            }
            check(r);
            return Ffm.getLong(out, 0);
        }
    }

    /** A struct the library fills, with struct_size set to the size this binding knows. */
    private static Object sized(Ffm.Scope scope, String struct) {
        long size = NativeLayout.size(struct);
        Object out = scope.allocate(size);
        Ffm.setLong(out, NativeLayout.offset(struct, "struct_size"), size);
        return out;
    }

    /** The named 64-bit fields of a filled struct, in order. */
    private static long[] fields(Object out, String struct, String[] names) {
        long[] values = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = Ffm.getLong(out, NativeLayout.offset(struct, names[i]));
        }
        return values;
    }

    @Override
    public int batchPartition(long batch, int index) {
        return int32(batchPartition, batch, index);
    }

    @Override
    public long batchUpstreamOffset(long batch, int index) {
        return int64(batchUpstreamOffset, batch, index);
    }

    @Override
    public long batchDownstreamOffset(long batch, int index) {
        return int64(batchDownstreamOffset, batch, index);
    }

    @Override
    public void batchDestroy(long batch) {
        invoke(batchDestroy, Ffm.pointer(batch));
    }

    @Override
    public long embeddedNew() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(embeddedNew, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public void embeddedDestroy(long embedded) {
        invoke(embeddedDestroy, Ffm.pointer(embedded));
    }

    @Override
    public String embeddedBootstrap(long embedded, int side) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object text = scope.allocate(8);
            Object len = scope.allocate(8);
            check((int) invoke(embeddedBootstrap, Ffm.pointer(embedded), side, text, len), "mm_embedded_bootstrap");
            return Ffm.text(Ffm.getPointer(text, 0), Ffm.getLong(len, 0));
        }
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
            check((int) invoke(translateOffsets, Ffm.pointer(targetConf), scope.cString(sourceAlias), kind,
                    scope.cString(groups), timeoutMs, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public long translatedNew() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(translatedNew, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
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
        return len(translatedLen, translated);
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
        return int32(translatedPartition, translated, index);
    }

    @Override
    public long translatedOffset(long translated, int index) {
        return int64(translatedOffset, translated, index);
    }

    @Override
    public long translatedUpstreamOffset(long translated, int index) {
        return int64(translatedUpstreamOffset, translated, index);
    }

    @Override
    public String translatedCheckpointsTopic(long translated) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object text = scope.allocate(8);
            Object len = scope.allocate(8);
            check((int) invoke(translatedCheckpointsTopic, Ffm.pointer(translated), text, len));
            return Ffm.text(Ffm.getPointer(text, 0), Ffm.getLong(len, 0));
        }
    }

    @Override
    public long[] translatedCounts(long translated) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = sized(scope, "mm_translation_counts");
            check((int) invoke(translatedGetCounts, Ffm.pointer(translated), out));
            return fields(out, "mm_translation_counts", TRANSLATION_COUNTS);
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
            check((int) invoke(failoverReport, Ffm.pointer(targetConf), Ffm.pointer(translated), timeoutMs, out));
            return Ffm.address(Ffm.getPointer(out, 0));
        }
    }

    @Override
    public int reportLen(long report) {
        return len(reportLen, report);
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
        return int32(reportPartition, report, index);
    }

    @Override
    public long reportTranslatedOffset(long report, int index) {
        return int64(reportTranslatedOffset, report, index);
    }

    @Override
    public long reportCurrentOffset(long report, int index) {
        return int64(reportCurrentOffset, report, index);
    }

    @Override
    public long reportSkipped(long report, int index) {
        return int64(reportSkipped, report, index);
    }

    @Override
    public long reportReread(long report, int index) {
        return int64(reportReread, report, index);
    }

    @Override
    public long[] reportTotals(long report) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = sized(scope, "mm_failover_totals");
            check((int) invoke(reportGetTotals, Ffm.pointer(report), out));
            return fields(out, "mm_failover_totals", FAILOVER_TOTALS);
        }
    }

    @Override
    public void reportDestroy(long report) {
        invoke(reportDestroy, Ffm.pointer(report));
    }

    @Override
    public long writerNew(long conf, String offsetSyncsTopic) {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object out = scope.allocate(8);
            check((int) invoke(writerNew, Ffm.pointer(conf), scope.cString(offsetSyncsTopic), out));
            return Ffm.address(Ffm.getPointer(out, 0));
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
            Object out = sized(scope, "mm_offset_sync_writer_stats");
            check((int) invoke(writerGetStats, Ffm.pointer(writer), out));
            return fields(out, "mm_offset_sync_writer_stats", WRITER_STATS);
        }
    }

    @Override
    public void writerDestroy(long writer) {
        invoke(writerDestroy, Ffm.pointer(writer));
    }

    /** Throws for a result other than OK, with this thread's {@code mm_last_error} message and Kafka code. */
    private void check(int result) {
        if (result != NativeConstants.RESULT_OK) {
            int kafkaCode = (int) invoke(lastErrorKafkaCode);
            throw NativeLibrary.failure(result, lastErrorText(), kafkaCode);
        }
    }

    /** As {@link #check(int)}, naming the function in the message. */
    private void check(int result, String function) {
        if (result != NativeConstants.RESULT_OK) {
            int kafkaCode = (int) invoke(lastErrorKafkaCode);
            throw NativeLibrary.failure(result, function + ": " + lastErrorText(), kafkaCode);
        }
    }

    private String lastErrorText() {
        try (Ffm.Scope scope = Ffm.scope()) {
            Object buf = scope.allocate(ERRSTR_SIZE);
            invoke(lastError, buf, (long) ERRSTR_SIZE);
            return Ffm.cString(buf);
        }
    }
}
