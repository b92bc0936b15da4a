package io.mm2checkpoint;

import static io.mm2checkpoint.NativeFunctions.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

/**
 * {@link NativeBinding} over {@code java.lang.foreign} (Java 22+), in the jar's
 * {@code META-INF/versions/22}: every C function is one downcall handle made from the generated
 * {@link NativeFunctions} descriptors (themselves generated from the header) and called with
 * {@code invokeExact}, so argument types are checked exactly and nothing goes through reflection.
 * Needs {@code --enable-native-access=ALL-UNNAMED} (or {@code Enable-Native-Access} in the
 * manifest of an executable jar).
 *
 * <p>Messages of calls without an {@code errstr} parameter come from {@code mm_last_error},
 * which is per OS thread: it is read right after the failed call on the same thread.
 */
// Restricted methods (library lookup, downcalls, the upcall stub, reinterpret) are this class's
// job; the JVM checks --enable-native-access when they run.
@SuppressWarnings("restricted")
final class PanamaBinding implements NativeBinding {
    private static final Linker LINKER = Linker.nativeLinker();
    /** Bytes of {@code errstr} buffers; the library cuts longer messages at a UTF-8 boundary. */
    private static final long ERRSTR_SIZE = 1024;
    /** sizeof(mm_task_stats): seven uint64, two int64, two uint8, padded to 8. */
    private static final long TASK_STATS_SIZE = 80;
    /** sizeof(mm_diagnostics): three uint64. */
    private static final long DIAGNOSTICS_SIZE = 24;
    /** sizeof(mm_translation_counts): three uint64. */
    private static final long TRANSLATION_COUNTS_SIZE = 24;
    /** sizeof(mm_failover_totals): four uint64. */
    private static final long FAILOVER_TOTALS_SIZE = 32;
    /** sizeof(mm_offset_sync_writer_stats): eight uint64 and one uint8, padded to 8. */
    private static final long WRITER_STATS_SIZE = 72;

    private final SymbolLookup symbols;
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
    private final MemorySegment logStub;

    PanamaBinding(String library) {
        try {
            symbols = library.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(library), Arena.global())
                    : SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new UnsatisfiedLinkError("cannot open " + library + " through java.lang.foreign: " + e.getMessage());
        }
        version = bind(MM_VERSION);
        resultStr = bind(MM_RESULT_STR);
        lastError = bind(MM_LAST_ERROR);
        diagnosticsGet = bind(MM_DIAGNOSTICS_GET);
        setLogCallback = bind(MM_SET_LOG_CALLBACK);
        confNew = bind(MM_CONF_NEW);
        confSet = bind(MM_CONF_SET);
        confDestroy = bind(MM_CONF_DESTROY);
        taskNew = bind(MM_TASK_NEW);
        taskStart = bind(MM_TASK_START);
        taskPoll = bind(MM_TASK_POLL);
        taskStop = bind(MM_TASK_STOP);
        taskDestroy = bind(MM_TASK_DESTROY);
        taskFatalError = bind(MM_TASK_FATAL_ERROR);
        taskGetStats = bind(MM_TASK_GET_STATS);
        batchStatus = bind(MM_BATCH_STATUS);
        batchLen = bind(MM_BATCH_LEN);
        batchGroup = bind(MM_BATCH_GROUP);
        batchTopic = bind(MM_BATCH_TOPIC);
        batchMetadata = bind(MM_BATCH_METADATA);
        batchPartition = bind(MM_BATCH_PARTITION);
        batchUpstreamOffset = bind(MM_BATCH_UPSTREAM_OFFSET);
        batchDownstreamOffset = bind(MM_BATCH_DOWNSTREAM_OFFSET);
        batchDestroy = bind(MM_BATCH_DESTROY);
        embeddedNew = bind(MM_EMBEDDED_NEW);
        embeddedDestroy = bind(MM_EMBEDDED_DESTROY);
        embeddedBootstrap = bind(MM_EMBEDDED_BOOTSTRAP);
        embeddedCreateTopic = bind(MM_EMBEDDED_CREATE_TOPIC);
        embeddedProduceData = bind(MM_EMBEDDED_PRODUCE_DATA);
        embeddedProduceOffsetSyncs = bind(MM_EMBEDDED_PRODUCE_OFFSET_SYNCS);
        embeddedCommitOffset = bind(MM_EMBEDDED_COMMIT_OFFSET);
        embeddedReadCheckpoints = bind(MM_EMBEDDED_READ_CHECKPOINTS);
        translateOffsets = bind(MM_TRANSLATE_OFFSETS);
        translatedNew = bind(MM_TRANSLATED_OFFSETS_NEW);
        translatedAdd = bind(MM_TRANSLATED_OFFSETS_ADD);
        translatedLen = bind(MM_TRANSLATED_OFFSETS_LEN);
        translatedGroup = bind(MM_TRANSLATED_OFFSETS_GROUP);
        translatedTopic = bind(MM_TRANSLATED_OFFSETS_TOPIC);
        translatedMetadata = bind(MM_TRANSLATED_OFFSETS_METADATA);
        translatedPartition = bind(MM_TRANSLATED_OFFSETS_PARTITION);
        translatedOffset = bind(MM_TRANSLATED_OFFSETS_OFFSET);
        translatedUpstreamOffset = bind(MM_TRANSLATED_OFFSETS_UPSTREAM_OFFSET);
        translatedCheckpointsTopic = bind(MM_TRANSLATED_OFFSETS_CHECKPOINTS_TOPIC);
        translatedGetCounts = bind(MM_TRANSLATED_OFFSETS_GET_COUNTS);
        translatedDestroy = bind(MM_TRANSLATED_OFFSETS_DESTROY);
        failoverReport = bind(MM_FAILOVER_REPORT);
        reportLen = bind(MM_FAILOVER_REPORT_LEN);
        reportGroup = bind(MM_FAILOVER_REPORT_GROUP);
        reportTopic = bind(MM_FAILOVER_REPORT_TOPIC);
        reportPartition = bind(MM_FAILOVER_REPORT_PARTITION);
        reportTranslatedOffset = bind(MM_FAILOVER_REPORT_TRANSLATED_OFFSET);
        reportCurrentOffset = bind(MM_FAILOVER_REPORT_CURRENT_OFFSET);
        reportSkipped = bind(MM_FAILOVER_REPORT_SKIPPED);
        reportReread = bind(MM_FAILOVER_REPORT_REREAD);
        reportGetTotals = bind(MM_FAILOVER_REPORT_GET_TOTALS);
        reportDestroy = bind(MM_FAILOVER_REPORT_DESTROY);
        writerNew = bind(MM_OFFSET_SYNC_WRITER_NEW);
        writerReport = bind(MM_OFFSET_SYNC_WRITER_REPORT);
        writerTick = bind(MM_OFFSET_SYNC_WRITER_TICK);
        writerWaitForCapacity = bind(MM_OFFSET_SYNC_WRITER_WAIT_FOR_CAPACITY);
        writerFlush = bind(MM_OFFSET_SYNC_WRITER_FLUSH);
        writerClose = bind(MM_OFFSET_SYNC_WRITER_CLOSE);
        writerGetStats = bind(MM_OFFSET_SYNC_WRITER_GET_STATS);
        writerDestroy = bind(MM_OFFSET_SYNC_WRITER_DESTROY);
        try {
            MethodHandle target = MethodHandles.lookup().findStatic(PanamaBinding.class, "onLog",
                    MethodType.methodType(void.class, MemorySegment.class, int.class, MemorySegment.class,
                            MemorySegment.class));
            logStub = LINKER.upcallStub(target, FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
                    Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private MethodHandle bind(NativeFunctions.Function f) {
        MemorySegment address = symbols.find(f.symbol())
                .orElseThrow(() -> new UnsatisfiedLinkError("the library has no symbol " + f.symbol()));
        return LINKER.downcallHandle(address, f.descriptor());
    }

    @Override
    public String name() {
        return "panama";
    }

    @Override
    public String version() {
        try {
            return cString((MemorySegment) version.invokeExact());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String resultStr(int code) {
        try {
            return cString((MemorySegment) resultStr.invokeExact(code));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] diagnostics() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(DIAGNOSTICS_SIZE, 8);
            check((int) diagnosticsGet.invokeExact(out));
            return new long[] {out.get(JAVA_LONG, 0), out.get(JAVA_LONG, 8), out.get(JAVA_LONG, 16)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void setLogBridge(int maxLevel) {
        MemorySegment callback = maxLevel == 0 ? MemorySegment.NULL : logStub;
        try {
            check((int) setLogCallback.invokeExact(callback, MemorySegment.NULL, maxLevel));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The upcall: runs on whichever thread logs (the task's native threads or the calling thread).
     * An exception escaping an upcall would crash the JVM, so nothing may escape.
     */
    private static void onLog(MemorySegment opaque, int level, MemorySegment target, MemorySegment message) {
        try {
            LogBridge.deliver(level, cString(target), cString(message));
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    @Override
    public long confNew() {
        try {
            return nonNull((MemorySegment) confNew.invokeExact(), "mm_conf_new");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void confSet(long conf, String key, String value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            int r = (int) confSet.invokeExact(ptr(conf), text(arena, key), text(arena, value), errstr, ERRSTR_SIZE);
            check(r, errstr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void confDestroy(long conf) {
        try {
            confDestroy.invokeExact(ptr(conf));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long taskNew(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            long task = ((MemorySegment) taskNew.invokeExact(ptr(conf), errstr, ERRSTR_SIZE)).address();
            if (task == 0) {
                throw NativeLibrary.constructorFailure(Mm2Exception.INVALID_CONFIG, cString(errstr));
            }
            return task;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void taskStart(long task) {
        try {
            check((int) taskStart.invokeExact(ptr(task)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long taskPoll(long task, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskPoll.invokeExact(ptr(task), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean taskStop(long task) {
        try {
            int r = (int) taskStop.invokeExact(ptr(task));
            if (r == NativeConstants.RESULT_ALREADY_STOPPED) {
                return false;
            }
            check(r);
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void taskDestroy(long task) {
        try {
            taskDestroy.invokeExact(ptr(task));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String taskFatalError(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            int r = (int) taskFatalError.invokeExact(ptr(task), errstr, ERRSTR_SIZE);
            if (r == Mm2Exception.FATAL) {
                return cString(errstr);
            }
            check(r, errstr);
            return null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] taskStats(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(TASK_STATS_SIZE, 8);
            check((int) taskGetStats.invokeExact(ptr(task), out));
            long[] fields = new long[11];
            for (int i = 0; i < 9; i++) {
                fields[i] = out.get(JAVA_LONG, 8L * i);
            }
            fields[9] = out.get(JAVA_BYTE, 72);
            fields[10] = out.get(JAVA_BYTE, 73);
            return fields;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int batchStatus(long batch) {
        try {
            return (int) batchStatus.invokeExact(ptr(batch));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int batchLen(long batch) {
        try {
            return Math.toIntExact((long) batchLen.invokeExact(ptr(batch)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment text = (MemorySegment) accessor.invokeExact(ptr(list), (long) index, len);
            if (text.address() == 0) {
                throw NativeLibrary.failure(Mm2Exception.NOT_FOUND, name + ": " + lastErrorText());
            }
            return text(text, len.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int batchPartition(long batch, int index) {
        return intAt(batchPartition, batch, index);
    }

    @Override
    public long batchUpstreamOffset(long batch, int index) {
        return longAt(batchUpstreamOffset, batch, index);
    }

    @Override
    public long batchDownstreamOffset(long batch, int index) {
        return longAt(batchDownstreamOffset, batch, index);
    }

    /** An {@code int32_t f(const list *, size_t index)} accessor. */
    private static int intAt(MethodHandle accessor, long list, int index) {
        try {
            return (int) accessor.invokeExact(ptr(list), (long) index);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** An {@code int64_t f(const list *, size_t index)} accessor. */
    private static long longAt(MethodHandle accessor, long list, int index) {
        try {
            return (long) accessor.invokeExact(ptr(list), (long) index);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A {@code size_t f(const list *)} length. */
    private static int length(MethodHandle len, long list) {
        try {
            return Math.toIntExact((long) len.invokeExact(ptr(list)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A {@code void f(T *)} destructor. */
    private static void destroy(MethodHandle destroy, long handle) {
        try {
            destroy.invokeExact(ptr(handle));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void batchDestroy(long batch) {
        destroy(batchDestroy, batch);
    }

    @Override
    public long embeddedNew() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            long e = ((MemorySegment) embeddedNew.invokeExact(errstr, ERRSTR_SIZE)).address();
            if (e == 0) {
                throw NativeLibrary.constructorFailure(Mm2Exception.KAFKA, cString(errstr));
            }
            return e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void embeddedDestroy(long embedded) {
        destroy(embeddedDestroy, embedded);
    }

    @Override
    public String embeddedBootstrap(long embedded, int side) {
        try {
            MemorySegment text = (MemorySegment) embeddedBootstrap.invokeExact(ptr(embedded), side);
            if (text.address() == 0) {
                throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "mm_embedded_bootstrap: " + lastErrorText());
            }
            return cString(text);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedCreateTopic.invokeExact(ptr(embedded), side, text(arena, topic), partitions));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedProduceData.invokeExact(ptr(embedded), side, text(arena, topic), partition, count));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition,
            long[] upstreamOffsets, long[] downstreamOffsets) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment up = arena.allocateFrom(JAVA_LONG, upstreamOffsets);
            MemorySegment down = arena.allocateFrom(JAVA_LONG, downstreamOffsets);
            check((int) embeddedProduceOffsetSyncs.invokeExact(ptr(embedded), side, text(arena, syncsTopic),
                    text(arena, topic), partition, up, down, (long) upstreamOffsets.length));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset,
            String metadata) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) embeddedCommitOffset.invokeExact(ptr(embedded), side, text(arena, group), text(arena, topic),
                    partition, offset, text(arena, metadata)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) embeddedReadCheckpoints.invokeExact(ptr(embedded), text(arena, checkpointsTopic), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long translateOffsets(long targetConf, String sourceAlias, int kind, String groups, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            int r = (int) translateOffsets.invokeExact(ptr(targetConf), text(arena, sourceAlias), kind,
                    text(arena, groups), timeoutMs, out, errstr, ERRSTR_SIZE);
            check(r, errstr);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long translatedNew() {
        try {
            return nonNull((MemorySegment) translatedNew.invokeExact(), "mm_translated_offsets_new");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void translatedAdd(long translated, String group, String topic, int partition, long offset,
            long upstreamOffset, String metadata) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) translatedAdd.invokeExact(ptr(translated), text(arena, group), text(arena, topic), partition,
                    offset, upstreamOffset, text(arena, metadata)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int translatedLen(long translated) {
        return length(translatedLen, translated);
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
        return intAt(translatedPartition, translated, index);
    }

    @Override
    public long translatedOffset(long translated, int index) {
        return longAt(translatedOffset, translated, index);
    }

    @Override
    public long translatedUpstreamOffset(long translated, int index) {
        return longAt(translatedUpstreamOffset, translated, index);
    }

    @Override
    public String translatedCheckpointsTopic(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment text = (MemorySegment) translatedCheckpointsTopic.invokeExact(ptr(translated), len);
            if (text.address() == 0) {
                throw NativeLibrary.failure(Mm2Exception.NULL_PARAMETER,
                        "mm_translated_offsets_checkpoints_topic: " + lastErrorText());
            }
            return text(text, len.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] translatedCounts(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(TRANSLATION_COUNTS_SIZE, 8);
            check((int) translatedGetCounts.invokeExact(ptr(translated), out));
            return new long[] {out.get(JAVA_LONG, 0), out.get(JAVA_LONG, 8), out.get(JAVA_LONG, 16)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void translatedDestroy(long translated) {
        destroy(translatedDestroy, translated);
    }

    @Override
    public long failoverReport(long targetConf, long translated, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            int r = (int) failoverReport.invokeExact(ptr(targetConf), ptr(translated), timeoutMs, out, errstr,
                    ERRSTR_SIZE);
            check(r, errstr);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int reportLen(long report) {
        return length(reportLen, report);
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
        return intAt(reportPartition, report, index);
    }

    @Override
    public long reportTranslatedOffset(long report, int index) {
        return longAt(reportTranslatedOffset, report, index);
    }

    @Override
    public long reportCurrentOffset(long report, int index) {
        return longAt(reportCurrentOffset, report, index);
    }

    @Override
    public long reportSkipped(long report, int index) {
        return longAt(reportSkipped, report, index);
    }

    @Override
    public long reportReread(long report, int index) {
        return longAt(reportReread, report, index);
    }

    @Override
    public long[] reportTotals(long report) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(FAILOVER_TOTALS_SIZE, 8);
            check((int) reportGetTotals.invokeExact(ptr(report), out));
            return new long[] {out.get(JAVA_LONG, 0), out.get(JAVA_LONG, 8), out.get(JAVA_LONG, 16),
                out.get(JAVA_LONG, 24)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void reportDestroy(long report) {
        destroy(reportDestroy, report);
    }

    @Override
    public long writerNew(long conf, String offsetSyncsTopic) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errstr = arena.allocate(ERRSTR_SIZE);
            long w = ((MemorySegment) writerNew.invokeExact(ptr(conf), text(arena, offsetSyncsTopic), errstr,
                    ERRSTR_SIZE)).address();
            if (w == 0) {
                throw NativeLibrary.writerConstructorFailure(cString(errstr));
            }
            return w;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void writerReport(long writer, String topic, int partition, long upstreamOffset, long downstreamOffset) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) writerReport.invokeExact(ptr(writer), text(arena, topic), partition, upstreamOffset,
                    downstreamOffset));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void writerTick(long writer) {
        try {
            check((int) writerTick.invokeExact(ptr(writer)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean writerWaitForCapacity(long writer, int timeoutMs) {
        try {
            int r = (int) writerWaitForCapacity.invokeExact(ptr(writer), timeoutMs);
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
    public void writerFlush(long writer, int timeoutMs) {
        try {
            check((int) writerFlush.invokeExact(ptr(writer), timeoutMs));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void writerClose(long writer, int timeoutMs) {
        try {
            check((int) writerClose.invokeExact(ptr(writer), timeoutMs));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] writerStats(long writer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(WRITER_STATS_SIZE, 8);
            check((int) writerGetStats.invokeExact(ptr(writer), out));
            long[] fields = new long[9];
            for (int i = 0; i < 8; i++) {
                fields[i] = out.get(JAVA_LONG, 8L * i);
            }
            fields[8] = out.get(JAVA_BYTE, 64);
            return fields;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void writerDestroy(long writer) {
        destroy(writerDestroy, writer);
    }

    /** Throws for a result other than OK, with this thread's {@code mm_last_error} message. */
    private void check(int result) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, lastErrorText());
        }
    }

    /** Throws for a result other than OK, with the message the call wrote into {@code errstr}. */
    private static void check(int result, MemorySegment errstr) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, cString(errstr));
        }
    }

    private String lastErrorText() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(ERRSTR_SIZE);
            lastError.invokeExact(buf, ERRSTR_SIZE);
            return cString(buf);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MemorySegment ptr(long address) {
        return address == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(address);
    }

    /** NUL-terminated UTF-8 in {@code arena}; NUL inside the text is rejected. */
    private static MemorySegment text(Arena arena, String text) {
        return arena.allocateFrom(JAVA_BYTE, NativeText.cString(text));
    }

    /** Text at a C pointer up to its NUL (the library guarantees it); null for NULL. */
    private static String cString(MemorySegment pointer) {
        return pointer.address() == 0 ? null : pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** {@code length} bytes of UTF-8 at a pointer. */
    private static String text(MemorySegment pointer, long length) {
        return NativeText.decode(pointer.reinterpret(length).toArray(JAVA_BYTE));
    }

    private static long nonNull(MemorySegment pointer, String function) {
        if (pointer.address() == 0) {
            throw new OutOfMemoryError(function + " returned NULL");
        }
        return pointer.address();
    }

    /** What a downcall threw, as an unchecked throwable (invokeExact declares Throwable). */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
