package io.mm2checkpoint;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The Foreign Function and Memory API (java.lang.foreign, final in Java 22) reached through
 * method handles, so this code compiles with javac 17 ({@code --release 17}) and runs on any
 * Java 22+. Every FFM object is held as {@link Object}; this is the only class that knows the
 * FFM classes by name, and {@link PanamaBinding} is its only user.
 *
 * <p>All handles are looked up once, at class initialisation; on a Java older than 22 that fails
 * and {@link NativeLibrary} reports it.
 */
final class Ffm {
    // A full-privilege lookup: restricted methods (libraryLookup, downcallHandle, reinterpret…) are
    // caller-sensitive, and the caller must be this class for --enable-native-access to apply.
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    static final Class<?> MEMORY_SEGMENT = type("java.lang.foreign.MemorySegment");
    static final Class<?> ARENA = type("java.lang.foreign.Arena");
    private static final Class<?> LINKER = type("java.lang.foreign.Linker");
    private static final Class<?> LINKER_OPTION = type("java.lang.foreign.Linker$Option");
    private static final Class<?> SYMBOL_LOOKUP = type("java.lang.foreign.SymbolLookup");
    private static final Class<?> FUNCTION_DESCRIPTOR = type("java.lang.foreign.FunctionDescriptor");
    private static final Class<?> MEMORY_LAYOUT = type("java.lang.foreign.MemoryLayout");
    private static final Class<?> VALUE_LAYOUT = type("java.lang.foreign.ValueLayout");
    private static final Class<?> ADDRESS_LAYOUT = type("java.lang.foreign.AddressLayout");
    private static final Class<?> OF_BYTE = type("java.lang.foreign.ValueLayout$OfByte");
    private static final Class<?> OF_INT = type("java.lang.foreign.ValueLayout$OfInt");
    private static final Class<?> OF_LONG = type("java.lang.foreign.ValueLayout$OfLong");

    /** C pointer. */
    static final Object ADDRESS = constant(VALUE_LAYOUT, "ADDRESS");
    /** C int / int32_t / enum. */
    static final Object INT = constant(VALUE_LAYOUT, "JAVA_INT");
    /** int64_t, uint64_t, and size_t on the 64-bit platforms this runs on. */
    static final Object LONG = constant(VALUE_LAYOUT, "JAVA_LONG");
    /** uint8_t. */
    static final Object BYTE = constant(VALUE_LAYOUT, "JAVA_BYTE");
    /** The NULL pointer. */
    static final Object NULL = constant(MEMORY_SEGMENT, "NULL");

    private static final MethodHandle NATIVE_LINKER =
            staticMethod(LINKER, "nativeLinker", MethodType.methodType(LINKER));
    private static final MethodHandle LIBRARY_LOOKUP = staticMethod(SYMBOL_LOOKUP, "libraryLookup",
            MethodType.methodType(SYMBOL_LOOKUP, Path.class, ARENA));
    private static final MethodHandle LIBRARY_LOOKUP_BY_NAME = staticMethod(SYMBOL_LOOKUP, "libraryLookup",
            MethodType.methodType(SYMBOL_LOOKUP, String.class, ARENA));
    private static final MethodHandle FIND =
            virtualMethod(SYMBOL_LOOKUP, "find", MethodType.methodType(Optional.class, String.class));
    private static final MethodHandle DOWNCALL = virtualMethod(LINKER, "downcallHandle",
            MethodType.methodType(MethodHandle.class, MEMORY_SEGMENT, FUNCTION_DESCRIPTOR, optionArray()));
    private static final MethodHandle UPCALL = virtualMethod(LINKER, "upcallStub",
            MethodType.methodType(MEMORY_SEGMENT, MethodHandle.class, FUNCTION_DESCRIPTOR, ARENA, optionArray()));
    private static final MethodHandle DESCRIPTOR_OF = staticMethod(FUNCTION_DESCRIPTOR, "of",
            MethodType.methodType(FUNCTION_DESCRIPTOR, MEMORY_LAYOUT, layoutArray()));
    private static final MethodHandle DESCRIPTOR_OF_VOID = staticMethod(FUNCTION_DESCRIPTOR, "ofVoid",
            MethodType.methodType(FUNCTION_DESCRIPTOR, layoutArray()));
    private static final MethodHandle GLOBAL = staticMethod(ARENA, "global", MethodType.methodType(ARENA));
    private static final MethodHandle OF_CONFINED = staticMethod(ARENA, "ofConfined", MethodType.methodType(ARENA));
    private static final MethodHandle CLOSE = virtualMethod(ARENA, "close", MethodType.methodType(void.class));
    private static final MethodHandle ALLOCATE = virtualMethod(ARENA, "allocate",
            MethodType.methodType(MEMORY_SEGMENT, long.class, long.class));
    private static final MethodHandle OF_ADDRESS =
            staticMethod(MEMORY_SEGMENT, "ofAddress", MethodType.methodType(MEMORY_SEGMENT, long.class));
    private static final MethodHandle OF_ARRAY =
            staticMethod(MEMORY_SEGMENT, "ofArray", MethodType.methodType(MEMORY_SEGMENT, byte[].class));
    private static final MethodHandle OF_LONG_ARRAY =
            staticMethod(MEMORY_SEGMENT, "ofArray", MethodType.methodType(MEMORY_SEGMENT, long[].class));
    private static final MethodHandle ADDRESS_OF =
            virtualMethod(MEMORY_SEGMENT, "address", MethodType.methodType(long.class));
    private static final MethodHandle REINTERPRET =
            virtualMethod(MEMORY_SEGMENT, "reinterpret", MethodType.methodType(MEMORY_SEGMENT, long.class));
    private static final MethodHandle COPY_FROM =
            virtualMethod(MEMORY_SEGMENT, "copyFrom", MethodType.methodType(MEMORY_SEGMENT, MEMORY_SEGMENT));
    private static final MethodHandle TO_BYTES =
            virtualMethod(MEMORY_SEGMENT, "toArray", MethodType.methodType(byte[].class, OF_BYTE));
    private static final MethodHandle GET_STRING =
            virtualMethod(MEMORY_SEGMENT, "getString", MethodType.methodType(String.class, long.class));
    private static final MethodHandle GET_ADDRESS = virtualMethod(MEMORY_SEGMENT, "get",
            MethodType.methodType(MEMORY_SEGMENT, ADDRESS_LAYOUT, long.class));
    private static final MethodHandle GET_LONG =
            virtualMethod(MEMORY_SEGMENT, "get", MethodType.methodType(long.class, OF_LONG, long.class));
    private static final MethodHandle GET_BYTE =
            virtualMethod(MEMORY_SEGMENT, "get", MethodType.methodType(byte.class, OF_BYTE, long.class));
    private static final MethodHandle GET_INT =
            virtualMethod(MEMORY_SEGMENT, "get", MethodType.methodType(int.class, OF_INT, long.class));
    private static final MethodHandle SET_LONG = virtualMethod(MEMORY_SEGMENT, "set",
            MethodType.methodType(void.class, OF_LONG, long.class, long.class));

    private final Object linker;
    private final Object symbols;

    /**
     * Opens the library: {@code library} is a path, or a bare file name that the dynamic loader
     * searches ({@code LD_LIBRARY_PATH}, rpath, system directories).
     */
    Ffm(String library) {
        try {
            linker = NATIVE_LINKER.invoke();
            Object global = GLOBAL.invoke();
            symbols = library.contains("/")
                    ? LIBRARY_LOOKUP.invoke(Path.of(library), global)
                    : LIBRARY_LOOKUP_BY_NAME.invoke(library, global);
        } catch (Throwable t) {
            throw new UnsatisfiedLinkError("cannot open " + library + " through java.lang.foreign: " + t);
        }
    }

    /** A handle calling C function {@code symbol}; {@code result} is null for a void function. */
    MethodHandle downcall(String symbol, Object result, Object... args) {
        try {
            Optional<?> address = (Optional<?>) FIND.invoke(symbols, symbol);
            if (address.isEmpty()) {
                throw new UnsatisfiedLinkError("symbol " + symbol + " not found in the native library");
            }
            return (MethodHandle) DOWNCALL.invoke(linker, address.get(), descriptor(result, args), noOptions());
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("linking " + symbol, t);
        }
    }

    /**
     * A C function pointer that calls {@code target}, valid for the life of the process (the stub
     * lives in the global arena, so a native thread can never call a freed stub). {@code target}
     * must already have the exact Java type the descriptor implies.
     */
    Object upcall(MethodHandle target, Object result, Object... args) {
        try {
            return UPCALL.invoke(linker, target, descriptor(result, args), GLOBAL.invoke(), noOptions());
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("making an upcall stub", t);
        }
    }

    /** The pointer with this address. */
    static Object pointer(long address) {
        return address == 0 ? NULL : invoke(OF_ADDRESS, address);
    }

    /** The address of a pointer segment. */
    static long address(Object segment) {
        return (long) invoke(ADDRESS_OF, segment);
    }

    /** Reads NUL-terminated UTF-8 at a pointer the library handed over; null for NULL. */
    static String cString(Object pointer) {
        if (address(pointer) == 0) {
            return null;
        }
        // A pointer from C has size 0; the library guarantees the NUL, so the scan is bounded.
        return (String) invoke(GET_STRING, invoke(REINTERPRET, pointer, Long.MAX_VALUE), 0L);
    }

    /** Reads {@code length} bytes of UTF-8 at a pointer. */
    static String text(Object pointer, long length) {
        Object bytes = invoke(REINTERPRET, pointer, length);
        return NativeText.decode((byte[]) invoke(TO_BYTES, bytes, BYTE));
    }

    /** A confined arena for one call's temporary memory; closing it frees everything. */
    static Scope scope() {
        return new Scope(invoke(OF_CONFINED));
    }

    /** Temporary native memory for one call (one thread). */
    static final class Scope implements AutoCloseable {
        private final Object arena;

        private Scope(Object arena) {
            this.arena = arena;
        }

        /** {@code size} zeroed bytes, 8-byte aligned. */
        Object allocate(long size) {
            return invoke(ALLOCATE, arena, size, 8L);
        }

        /** {@code text} as NUL-terminated UTF-8. */
        Object cString(String text) {
            byte[] bytes = NativeText.cString(text);
            Object segment = allocate(bytes.length);
            invoke(COPY_FROM, segment, invoke(OF_ARRAY, (Object) bytes));
            return segment;
        }

        /** A copy of {@code values} as a C array of int64_t. */
        Object longs(long[] values) {
            Object segment = allocate(8L * values.length);
            invoke(COPY_FROM, segment, invoke(OF_LONG_ARRAY, (Object) values));
            return segment;
        }

        @Override
        public void close() {
            invoke(CLOSE, arena);
        }
    }

    /** The pointer stored at {@code offset} of a segment. */
    static Object getPointer(Object segment, long offset) {
        return invoke(GET_ADDRESS, segment, ADDRESS, offset);
    }

    /** The 64-bit integer at {@code offset} of a segment. */
    static long getLong(Object segment, long offset) {
        return (long) invoke(GET_LONG, segment, LONG, offset);
    }

    /** The 32-bit integer at {@code offset} of a segment. */
    static int getInt(Object segment, long offset) {
        return (int) invoke(GET_INT, segment, INT, offset);
    }

    /** Stores a 64-bit integer at {@code offset} of a segment. */
    static void setLong(Object segment, long offset, long value) {
        invoke(SET_LONG, segment, LONG, offset, value);
    }

    /** The byte at {@code offset} of a segment. */
    static byte getByte(Object segment, long offset) {
        return (byte) invoke(GET_BYTE, segment, BYTE, offset);
    }

    /** Calls a handle, passing Java and FFM values; checked exceptions become unchecked. */
    static Object invoke(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static Object descriptor(Object result, Object[] args) throws Throwable {
        Object layouts = Array.newInstance(MEMORY_LAYOUT, args.length);
        for (int i = 0; i < args.length; i++) {
            Array.set(layouts, i, args[i]);
        }
        return result == null ? DESCRIPTOR_OF_VOID.invoke(layouts) : DESCRIPTOR_OF.invoke(result, layouts);
    }

    private static Object noOptions() {
        return Array.newInstance(LINKER_OPTION, 0);
    }

    private static Class<?> optionArray() {
        return Array.newInstance(LINKER_OPTION, 0).getClass();
    }

    private static Class<?> layoutArray() {
        return Array.newInstance(MEMORY_LAYOUT, 0).getClass();
    }

    private static Class<?> type(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException(
                    "the Panama binding needs Java 22+ (java.lang.foreign); this is Java " + Runtime.version(), e);
        }
    }

    private static Object constant(Class<?> owner, String name) {
        try {
            return owner.getField(name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("java.lang.foreign lacks " + owner.getName() + "." + name, e);
        }
    }

    private static MethodHandle staticMethod(Class<?> owner, String name, MethodType type) {
        try {
            // Fixed arity: varargs (Option..., MemoryLayout...) are always passed as one array here.
            return LOOKUP.findStatic(owner, name, type).asFixedArity();
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("java.lang.foreign lacks " + owner.getName() + "." + name + type, e);
        }
    }

    private static MethodHandle virtualMethod(Class<?> owner, String name, MethodType type) {
        try {
            return LOOKUP.findVirtual(owner, name, type).asFixedArity();
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("java.lang.foreign lacks " + owner.getName() + "." + name + type, e);
        }
    }
}
