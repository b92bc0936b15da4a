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
 * <p>Every call returns an {@code mm_result}; the message of a failure comes from
 * {@code mm_last_error} and librdkafka's code from {@code mm_last_error_kafka_code}, both per OS
 * thread: they are read right after the failed call on the same thread. Struct sizes and offsets
 * come from {@link NativeLayout} (the header's layout file), never from constants here.
 */
// Restricted methods (library lookup, downcalls, the upcall stub, reinterpret) are this class's
// job; the JVM checks --enable-native-access when they run.
@SuppressWarnings("restricted")
final class PanamaBinding implements NativeBinding {
    private static final Linker LINKER = Linker.nativeLinker();
    /** Bytes read from {@code mm_last_error}; the library cuts longer messages at a UTF-8 boundary. */
    private static final long ERRSTR_SIZE = 1024;
    private final SymbolLookup symbols;
    /** The row function of each {@link NativeRows.Kind}, by id, bound on first use. */
    private final java.util.Map<Integer, MethodHandle> rowFunctions = new java.util.concurrent.ConcurrentHashMap<>();
    private final MethodHandle version;
    private final MethodHandle resultStr;
    private final MethodHandle lastError;
    private final MethodHandle lastErrorKafkaCode;
    private final MethodHandle versionNum;
    private final MethodHandle diagnosticsGet;
    private final MethodHandle setLogCallback;
    private final MethodHandle confNew;
    private final MethodHandle confSet;
    private final MethodHandle confDescribe;
    private final MethodHandle confDestroy;
    private final MethodHandle taskNew;
    private final MethodHandle taskStart;
    private final MethodHandle taskPoll;
    private final MethodHandle taskStop;
    private final MethodHandle taskDestroy;
    private final MethodHandle taskId;
    private final MethodHandle taskFatalError;
    private final MethodHandle taskGetStats;
    private final MethodHandle taskMetricsJson;
    private final MethodHandle flowsNew;
    private final MethodHandle flowsCount;
    private final MethodHandle flowsName;
    private final MethodHandle flowsTask;
    private final MethodHandle flowsStart;
    private final MethodHandle flowsStop;
    private final MethodHandle flowsDestroy;
    private final MethodHandle batchStatus;
    private final MethodHandle batchLen;
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
    private final MethodHandle translatedCheckpointsTopic;
    private final MethodHandle translatedGetCounts;
    private final MethodHandle translatedDestroy;
    private final MethodHandle failoverReport;
    private final MethodHandle reportLen;
    private final MethodHandle reportGetTotals;
    private final MethodHandle reportDestroy;
    private final MethodHandle translateOffsetsBack;
    private final MethodHandle failbackLen;
    private final MethodHandle failbackDestroy;
    private final MethodHandle commitTranslatedOffsets;
    private final MethodHandle commitLen;
    private final MethodHandle commitDestroy;
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
    /** {@code mm_current_task_id}, for the upcall (which has no binding instance). */
    private static volatile MethodHandle currentTaskId;
    /**
     * {@code pthread_self} and {@code pthread_getname_np}: a native thread's own name. Bound on
     * first use (in an upcall, so only once the library loaded): never while the class loads.
     */
    private static final class Pthreads {
        static final MethodHandle SELF = libc("pthread_self", FunctionDescriptor.of(JAVA_LONG));
        static final MethodHandle GETNAME =
                libc("pthread_getname_np", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG));
    }
    /** Set once this thread's name was compared with its native name. */
    private static final ThreadLocal<Boolean> NAME_CHECKED = new ThreadLocal<>();

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
        lastErrorKafkaCode = bind(MM_LAST_ERROR_KAFKA_CODE);
        versionNum = bind(MM_VERSION_NUM);
        diagnosticsGet = bind(MM_DIAGNOSTICS_GET);
        setLogCallback = bind(MM_SET_LOG_CALLBACK);
        confNew = bind(MM_CONF_NEW);
        confSet = bind(MM_CONF_SET);
        confDescribe = bind(MM_CONF_DESCRIBE);
        confDestroy = bind(MM_CONF_DESTROY);
        taskNew = bind(MM_TASK_NEW);
        taskStart = bind(MM_TASK_START);
        taskPoll = bind(MM_TASK_POLL);
        taskStop = bind(MM_TASK_STOP);
        taskDestroy = bind(MM_TASK_DESTROY);
        taskId = bind(MM_TASK_ID);
        currentTaskId = bind(MM_CURRENT_TASK_ID);
        taskFatalError = bind(MM_TASK_FATAL_ERROR);
        taskGetStats = bind(MM_TASK_GET_STATS);
        taskMetricsJson = bind(MM_TASK_METRICS_JSON);
        flowsNew = bind(MM_FLOWS_NEW);
        flowsCount = bind(MM_FLOWS_COUNT);
        flowsName = bind(MM_FLOWS_NAME);
        flowsTask = bind(MM_FLOWS_TASK);
        flowsStart = bind(MM_FLOWS_START);
        flowsStop = bind(MM_FLOWS_STOP);
        flowsDestroy = bind(MM_FLOWS_DESTROY);
        batchStatus = bind(MM_BATCH_STATUS);
        batchLen = bind(MM_BATCH_LEN);
        batchDestroy = bind(MM_BATCH_DESTROY);
        embeddedNew = bindIfPresent(MM_EMBEDDED_NEW);
        embeddedDestroy = bindIfPresent(MM_EMBEDDED_DESTROY);
        embeddedBootstrap = bindIfPresent(MM_EMBEDDED_BOOTSTRAP);
        embeddedCreateTopic = bindIfPresent(MM_EMBEDDED_CREATE_TOPIC);
        embeddedProduceData = bindIfPresent(MM_EMBEDDED_PRODUCE_DATA);
        embeddedProduceOffsetSyncs = bindIfPresent(MM_EMBEDDED_PRODUCE_OFFSET_SYNCS);
        embeddedCommitOffset = bindIfPresent(MM_EMBEDDED_COMMIT_OFFSET);
        embeddedReadCheckpoints = bindIfPresent(MM_EMBEDDED_READ_CHECKPOINTS);
        translateOffsets = bind(MM_TRANSLATE_OFFSETS);
        translatedNew = bind(MM_TRANSLATED_OFFSETS_NEW);
        translatedAdd = bind(MM_TRANSLATED_OFFSETS_ADD);
        translatedLen = bind(MM_TRANSLATED_OFFSETS_LEN);
        translatedCheckpointsTopic = bind(MM_TRANSLATED_OFFSETS_CHECKPOINTS_TOPIC);
        translatedGetCounts = bind(MM_TRANSLATED_OFFSETS_GET_COUNTS);
        translatedDestroy = bind(MM_TRANSLATED_OFFSETS_DESTROY);
        failoverReport = bind(MM_FAILOVER_REPORT);
        reportLen = bind(MM_FAILOVER_REPORT_LEN);
        reportGetTotals = bind(MM_FAILOVER_REPORT_GET_TOTALS);
        reportDestroy = bind(MM_FAILOVER_REPORT_DESTROY);
        translateOffsetsBack = bind(MM_TRANSLATE_OFFSETS_BACK);
        failbackLen = bind(MM_FAILBACK_OFFSETS_LEN);
        failbackDestroy = bind(MM_FAILBACK_OFFSETS_DESTROY);
        commitTranslatedOffsets = bind(MM_COMMIT_TRANSLATED_OFFSETS);
        commitLen = bind(MM_COMMIT_REPORT_LEN);
        commitDestroy = bind(MM_COMMIT_REPORT_DESTROY);
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

    /** A C library function (not this library's: no generated descriptor), or null. */
    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.defaultLookup().find(name).map(address -> downcall(address, descriptor)).orElse(null);
    }

    private static MethodHandle downcall(MemorySegment address, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(address, descriptor);
    }

    private MethodHandle bind(NativeFunctions.Function f) {
        MethodHandle handle = bindIfPresent(f);
        if (handle == null) {
            throw new UnsatisfiedLinkError("the library has no symbol " + f.symbol());
        }
        return handle;
    }

    /**
     * As {@link #bind}, or null when the library lacks the function: the mock clusters are in the
     * test kit's library only.
     */
    private MethodHandle bindIfPresent(NativeFunctions.Function f) {
        return symbols.find(f.symbol()).map(address -> downcall(address, f.descriptor())).orElse(null);
    }

    @Override
    public boolean mockClustersAvailable() {
        return embeddedNew != null;
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
    public int versionNum() {
        try {
            return (int) versionNum.invokeExact();
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
            MemorySegment out = sized(arena, "mm_diagnostics");
            check((int) diagnosticsGet.invokeExact(out));
            return fields(out, "mm_diagnostics", NativeStructs.MM_DIAGNOSTICS);
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
            takeNativeName();
            LogBridge.deliver(level, cString(target), cString(message), currentTask());
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    /** The task whose record the upcall delivers ({@code mm_current_task_id}), 0 for none. */
    private static long currentTask() throws Throwable {
        MethodHandle handle = currentTaskId;
        if (handle == null) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            return (int) handle.invokeExact(out) == 0 ? out.get(JAVA_LONG, 0) : 0;
        }
    }

    /**
     * A native thread's first upcall attaches it to the JVM as {@code Thread-N}; it takes its
     * native name instead (the library's {@code A->B cycle} or {@code mm2 <id> cycle}), as the JNI
     * binding attaches its threads. A Java thread's native name is its Java name: left alone.
     */
    private static void takeNativeName() throws Throwable {
        if (NAME_CHECKED.get() != null) {
            return;
        }
        NAME_CHECKED.set(Boolean.TRUE);
        Thread current = Thread.currentThread();
        if (!current.getName().startsWith("Thread-") || Pthreads.SELF == null || Pthreads.GETNAME == null) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(32);
            long self = (long) Pthreads.SELF.invokeExact();
            if ((int) Pthreads.GETNAME.invokeExact(self, name, 32L) != 0) {
                return;
            }
            String nativeName = cString(name);
            if (!nativeName.isEmpty() && !current.getName().startsWith(nativeName)) {
                current.setName(nativeName);
            }
        }
    }

    @Override
    public long confNew() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) confNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void confSet(long conf, String key, String value) {
        try (Arena arena = Arena.ofConfined()) {
            check((int) confSet.invokeExact(ptr(conf), text(arena, key), text(arena, value)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String confDescribe(long conf) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the text.
            MemorySegment size = arena.allocate(JAVA_LONG);
            check((int) confDescribe.invokeExact(ptr(conf), MemorySegment.NULL, size));
            MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
            check((int) confDescribe.invokeExact(ptr(conf), text, size));
            return cString(text);
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
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) taskNew.invokeExact(ptr(conf), out));
            return out.get(ADDRESS, 0).address();
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
            check((int) taskDestroy.invokeExact(ptr(task)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long taskId(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) taskId.invokeExact(ptr(task), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String taskFatalError(long task) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the message.
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = (int) taskFatalError.invokeExact(ptr(task), MemorySegment.NULL, size);
            if (r == Mm2Exception.NOT_FOUND) {
                return null;
            }
            check(r);
            MemorySegment message = arena.allocate(size.get(JAVA_LONG, 0));
            check((int) taskFatalError.invokeExact(ptr(task), message, size));
            return cString(message);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long flowsNew(String properties) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) flowsNew.invokeExact(text(arena, properties), out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int flowsCount(long flows) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) flowsCount.invokeExact(ptr(flows), out));
            return (int) Math.min(out.get(JAVA_LONG, 0), Integer.MAX_VALUE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String flowsName(long flows, int index) {
        if (index < 0) {
            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "flow index is negative", 0);
        }
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the name.
            MemorySegment size = arena.allocate(JAVA_LONG);
            check((int) flowsName.invokeExact(ptr(flows), (long) index, MemorySegment.NULL, size));
            MemorySegment name = arena.allocate(size.get(JAVA_LONG, 0));
            check((int) flowsName.invokeExact(ptr(flows), (long) index, name, size));
            return cString(name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long flowsTask(long flows, int index) {
        if (index < 0) {
            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, "flow index is negative", 0);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) flowsTask.invokeExact(ptr(flows), (long) index, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void flowsStart(long flows) {
        try {
            check((int) flowsStart.invokeExact(ptr(flows)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean flowsStop(long flows) {
        try {
            int r = (int) flowsStop.invokeExact(ptr(flows));
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
    public void flowsDestroy(long flows) {
        try {
            check((int) flowsDestroy.invokeExact(ptr(flows)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String taskMetricsJson(long task) {
        try (Arena arena = Arena.ofConfined()) {
            // First the size (a NULL buffer), then the document; it may grow between the two
            // calls (a group appears), so a too-small buffer asks again with the new size.
            MemorySegment size = arena.allocate(JAVA_LONG);
            check((int) taskMetricsJson.invokeExact(ptr(task), MemorySegment.NULL, size));
            while (true) {
                MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
                int r = (int) taskMetricsJson.invokeExact(ptr(task), text, size);
                if (r != Mm2Exception.BUFFER_TOO_SMALL) {
                    check(r);
                    return cString(text);
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] taskStats(long task) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_task_stats");
            check((int) taskGetStats.invokeExact(ptr(task), out));
            return fields(out, "mm_task_stats", NativeStructs.MM_TASK_STATS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int batchStatus(long batch) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) batchStatus.invokeExact(ptr(batch), out));
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int batchLen(long batch) {
        return length(batchLen, batch);
    }

    /**
     * Reads a row through the function of {@code kind} (bound once per kind): the struct's size
     * and field offsets come from {@link NativeLayout}, the field names from the generated
     * {@link NativeRows.Kind}, so a field added to a row needs nothing here.
     */
    @Override
    public String[] row(NativeRows.Kind kind, long list, int index, long[] numbers) {
        MethodHandle function = rowFunctions.computeIfAbsent(kind.id(), id -> bind(PanamaRows.function(id)));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment row = sized(arena, kind.struct());
            check((int) function.invokeExact(ptr(list), (long) index, row), kind.function());
            for (int i = 0; i < kind.numbers().length; i++) {
                numbers[i] = row.get(JAVA_LONG, NativeLayout.offset(kind.struct(), kind.numbers()[i]));
            }
            String[] texts = new String[kind.texts().length];
            for (int i = 0; i < texts.length; i++) {
                String field = kind.texts()[i];
                MemorySegment pointer = row.get(ADDRESS, NativeLayout.offset(kind.struct(), field));
                long length = row.get(JAVA_LONG, NativeLayout.offset(kind.struct(), field + "_len"));
                texts[i] = pointer.address() == 0 ? null : text(pointer, length);
            }
            return texts;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** An {@code mm_result f(const list *, size_t *len_out)} length. */
    private int length(MethodHandle len, long list) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) len.invokeExact(ptr(list), out));
            return Math.toIntExact(out.get(JAVA_LONG, 0));
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
        if (embeddedNew == null) {
            throw new IllegalStateException("the loaded native library has no mock clusters (the test kit's has)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) embeddedNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            check((int) embeddedBootstrap.invokeExact(ptr(embedded), side, text, len), "mm_embedded_bootstrap");
            return text(text.get(ADDRESS, 0), len.get(JAVA_LONG, 0));
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
            check((int) translateOffsets.invokeExact(ptr(targetConf), text(arena, sourceAlias), kind,
                    text(arena, groups), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long translatedNew() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) translatedNew.invokeExact(out));
            return out.get(ADDRESS, 0).address();
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
    public String translatedCheckpointsTopic(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            check((int) translatedCheckpointsTopic.invokeExact(ptr(translated), text, len));
            return text(text.get(ADDRESS, 0), len.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long[] translatedCounts(long translated) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_translation_counts");
            check((int) translatedGetCounts.invokeExact(ptr(translated), out));
            return fields(out, "mm_translation_counts", NativeStructs.MM_TRANSLATION_COUNTS);
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
            check((int) failoverReport.invokeExact(ptr(targetConf), ptr(translated), timeoutMs, out));
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
    public long[] reportTotals(long report) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = sized(arena, "mm_failover_totals");
            check((int) reportGetTotals.invokeExact(ptr(report), out));
            return fields(out, "mm_failover_totals", NativeStructs.MM_FAILOVER_TOTALS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void reportDestroy(long report) {
        destroy(reportDestroy, report);
    }

    @Override
    public long translateOffsetsBack(long flowConf, int kind, String groups, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) translateOffsetsBack.invokeExact(ptr(flowConf), kind, text(arena, groups), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int failbackLen(long failback) {
        return length(failbackLen, failback);
    }

    @Override
    public void failbackDestroy(long failback) {
        destroy(failbackDestroy, failback);
    }

    @Override
    public long commitTranslatedOffsets(long conf, long translated, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) commitTranslatedOffsets.invokeExact(ptr(conf), ptr(translated), timeoutMs, out));
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int commitLen(long report) {
        return length(commitLen, report);
    }

    @Override
    public void commitDestroy(long report) {
        destroy(commitDestroy, report);
    }

    @Override
    public long writerNew(long conf, String offsetSyncsTopic) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((int) writerNew.invokeExact(ptr(conf), text(arena, offsetSyncsTopic), out));
            return out.get(ADDRESS, 0).address();
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
            MemorySegment out = sized(arena, "mm_offset_sync_writer_stats");
            check((int) writerGetStats.invokeExact(ptr(writer), out));
            return fields(out, "mm_offset_sync_writer_stats", NativeStructs.MM_OFFSET_SYNC_WRITER_STATS);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void writerDestroy(long writer) {
        destroy(writerDestroy, writer);
    }

    /** Throws for a result other than OK, with this thread's {@code mm_last_error} message and Kafka code. */
    private void check(int result) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, lastErrorText(), lastErrorKafkaCode());
        }
    }

    /** As {@link #check(int)}, naming the function in the message. */
    private void check(int result, String function) {
        if (result != NativeConstants.RESULT_OK) {
            throw NativeLibrary.failure(result, function + ": " + lastErrorText(), lastErrorKafkaCode());
        }
    }

    private int lastErrorKafkaCode() {
        try {
            return (int) lastErrorKafkaCode.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private String lastErrorText() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(ERRSTR_SIZE);
            // The buffer starts zeroed, so it reads as "" when there is no message.
            long needed = (long) lastError.invokeExact(buf, ERRSTR_SIZE);
            assert needed >= 0;
            return cString(buf);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A struct the library fills, with {@code struct_size} set to the size this binding knows. */
    private static MemorySegment sized(Arena arena, String struct) {
        long size = NativeLayout.size(struct);
        MemorySegment out = arena.allocate(size, 8);
        out.set(JAVA_LONG, NativeLayout.offset(struct, "struct_size"), size);
        return out;
    }

    /** The named 64-bit fields of a filled struct, in order. */
    private static long[] fields(MemorySegment out, String struct, String[] names) {
        long[] values = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = out.get(JAVA_LONG, NativeLayout.offset(struct, names[i]));
        }
        return values;
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
