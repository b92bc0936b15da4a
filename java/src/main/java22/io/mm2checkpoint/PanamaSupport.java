package io.mm2checkpoint;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * What the Panama binding's calls share: binding a function, moving text, handles and structs
 * across, and turning what a downcall threw into an unchecked exception. Struct sizes and
 * offsets come from {@link NativeLayout} (the header's layout file), never from constants here.
 */
// Restricted methods (downcalls, reinterpret) are this class's job; the JVM checks
// --enable-native-access when they run.
@SuppressWarnings("restricted")
final class PanamaSupport {
    private static final Linker LINKER = Linker.nativeLinker();

    private PanamaSupport() {}

    /** The one place downcall handles are made. */
    static MethodHandle downcall(MemorySegment address, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(address, descriptor);
    }

    /** A C library function (not this library's: no generated descriptor), or null. */
    static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.defaultLookup().find(name).map(address -> downcall(address, descriptor)).orElse(null);
    }

    /** The library's function {@code f}; the library must have it. */
    static MethodHandle bind(SymbolLookup symbols, NativeFunctions.Function f) {
        MethodHandle handle = bindIfPresent(symbols, f);
        if (handle == null) {
            throw new UnsatisfiedLinkError("the library has no symbol " + f.symbol());
        }
        return handle;
    }

    /**
     * As {@link #bind}, or null when the library lacks the function: the mock clusters are in the
     * test kit's library only.
     */
    static MethodHandle bindIfPresent(SymbolLookup symbols, NativeFunctions.Function f) {
        return symbols.find(f.symbol()).map(address -> downcall(address, f.descriptor())).orElse(null);
    }

    /** Throws when a mock clusters' function is missing from the loaded library. */
    static void requirePresent(MethodHandle handle) {
        if (handle == null) {
            throw new IllegalStateException("the loaded native library has no mock clusters (the test kit's has)");
        }
    }

    /** A struct the library fills, with {@code struct_size} set to the size this binding knows. */
    static MemorySegment sized(Arena arena, String struct) {
        long size = NativeLayout.size(struct);
        MemorySegment out = arena.allocate(size, 8);
        out.set(JAVA_LONG, NativeLayout.offset(struct, "struct_size"), size);
        return out;
    }

    /** The named 64-bit fields of a filled struct, in order. */
    static long[] fields(MemorySegment out, String struct, String[] names) {
        long[] values = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = out.get(JAVA_LONG, NativeLayout.offset(struct, names[i]));
        }
        return values;
    }

    /** A handle's address as a pointer. */
    static MemorySegment ptr(long address) {
        return address == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(address);
    }

    /** NUL-terminated UTF-8 in {@code arena}; NUL inside the text is rejected. */
    static MemorySegment text(Arena arena, String text) {
        return arena.allocateFrom(JAVA_BYTE, NativeText.cString(text));
    }

    /** Text at a C pointer up to its NUL (the library guarantees it); null for NULL. */
    static String cString(MemorySegment pointer) {
        return pointer.address() == 0 ? null : pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** {@code length} bytes of UTF-8 at a pointer. */
    static String text(MemorySegment pointer, long length) {
        return NativeText.decode(pointer.reinterpret(length).toArray(JAVA_BYTE));
    }

    /** What a downcall threw, as an unchecked throwable (invokeExact declares Throwable). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
