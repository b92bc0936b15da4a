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
        return batchText(batchGroup, batch, index, "mm_batch_group");
    }

    @Override
    public String batchTopic(long batch, int index) {
        return batchText(batchTopic, batch, index, "mm_batch_topic");
    }

    @Override
    public String batchMetadata(long batch, int index) {
        return batchText(batchMetadata, batch, index, "mm_batch_metadata");
    }

    /** Text with its length, so an embedded NUL survives. */
    private String batchText(MethodHandle accessor, long batch, int index, String name) {
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
