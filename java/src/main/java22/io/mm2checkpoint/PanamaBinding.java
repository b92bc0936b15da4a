package io.mm2checkpoint;

import static io.mm2checkpoint.PanamaSupport.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
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
 * {@code META-INF/versions/22}: the functions that cross by rule come from the generated
 * {@link PanamaCalls}; this class adds the error channel, the log upcall, the list rows and the
 * mock-cluster probe. Every C function is one downcall handle made from the generated
 * {@link NativeFunctions} descriptors and called with {@code invokeExact}, so argument types are
 * checked exactly and nothing goes through reflection. Needs
 * {@code --enable-native-access=ALL-UNNAMED} (or {@code Enable-Native-Access} in the manifest of
 * an executable jar).
 *
 * <p>The message of a failure comes from {@code mm_last_error} and librdkafka's code from
 * {@code mm_last_error_kafka_code}, both per OS thread: they are read right after the failed call
 * on the same thread.
 */
// Restricted methods (library lookup, the upcall stub) are this class's job; the JVM checks
// --enable-native-access when they run.
@SuppressWarnings("restricted")
final class PanamaBinding extends PanamaCalls implements NativeBinding {
    /** Bytes read from {@code mm_last_error}; the library cuts longer messages at a UTF-8 boundary. */
    private static final long ERRSTR_SIZE = 1024;
    private final SymbolLookup symbols;
    /** The row function of each {@link NativeRows.Kind}, by id, bound on first use. */
    private final java.util.Map<Integer, MethodHandle> rowFunctions = new java.util.concurrent.ConcurrentHashMap<>();
    private final MethodHandle lastError;
    private final MethodHandle lastErrorKafkaCode;
    private final MethodHandle setLogCallback;
    private final boolean mockClusters;
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
        this(lookup(library));
    }

    private PanamaBinding(SymbolLookup symbols) {
        super(symbols);
        this.symbols = symbols;
        lastError = bind(symbols, NativeFunctions.MM_LAST_ERROR);
        lastErrorKafkaCode = bind(symbols, NativeFunctions.MM_LAST_ERROR_KAFKA_CODE);
        setLogCallback = bind(symbols, NativeFunctions.MM_SET_LOG_CALLBACK);
        currentTaskId = bind(symbols, NativeFunctions.MM_CURRENT_TASK_ID);
        mockClusters = symbols.find(NativeFunctions.MM_EMBEDDED_NEW.symbol()).isPresent();
        try {
            MethodHandle target = MethodHandles.lookup().findStatic(PanamaBinding.class, "onLog",
                    MethodType.methodType(void.class, MemorySegment.class, int.class, MemorySegment.class,
                            MemorySegment.class));
            logStub = Linker.nativeLinker().upcallStub(target, NativeFunctions.MM_LOG_CB, Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SymbolLookup lookup(String library) {
        try {
            return library.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(library), Arena.global())
                    : SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new UnsatisfiedLinkError("cannot open " + library + " through java.lang.foreign: " + e.getMessage());
        }
    }

    @Override
    public String name() {
        return "panama";
    }

    @Override
    public boolean mockClustersAvailable() {
        return mockClusters;
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

    /**
     * Reads a row through the function of {@code kind} (bound once per kind): the struct's size
     * and field offsets come from {@link NativeLayout}, the field names from the generated
     * {@link NativeRows.Kind}, so a field added to a row needs nothing here.
     */
    @Override
    public String[] row(NativeRows.Kind kind, long list, int index, long[] numbers) {
        MethodHandle function = rowFunctions.computeIfAbsent(kind.id(), id -> bind(symbols, PanamaRows.function(id)));
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

    /** Throws for a result other than OK, with this thread's {@code mm_last_error} message and Kafka code. */
    @Override
    void check(int result) {
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
}
