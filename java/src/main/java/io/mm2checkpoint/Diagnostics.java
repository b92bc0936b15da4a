package io.mm2checkpoint;

/**
 * Process-wide facts from the native library ({@code mm_diagnostics_get}): what is alive, and
 * which library and binding are in use. Loads the library on first use.
 */
public final class Diagnostics {
    private Diagnostics() {}

    private static NativeStructs.Values counters() {
        return new NativeStructs.Values(NativeStructs.MM_DIAGNOSTICS, NativeLibrary.binding().diagnosticsGet());
    }

    /** Kafka clients made by the library and not yet destroyed; 0 when every task is stopped. */
    public static long liveClients() {
        return counters().get("live_clients");
    }

    /** Library threads started and not yet joined; 0 when every task is stopped. */
    public static long liveThreads() {
        return counters().get("live_threads");
    }

    /**
     * Client calls that overlapped another call on the same client since the process started:
     * always 0 unless the one-owner-per-client rule was broken (the KAFKA-21435 race).
     */
    public static long concurrentClientAccess() {
        return counters().get("concurrent_client_access");
    }

    /** The native library's version, e.g. {@code 0.2.0}. */
    public static String version() {
        return NativeLibrary.binding().version();
    }

    /** The native library's version as one number, {@code (major << 16) | (minor << 8) | patch}. */
    public static int versionNum() {
        return NativeLibrary.binding().versionNum();
    }

    /** The binding in use: {@code panama} or {@code jni}. */
    public static String binding() {
        return NativeLibrary.binding().name();
    }

    /**
     * Where the native library was loaded from: {@code jar} (extracted from this jar),
     * {@code testkit} (from the test kit's jar, the library with the mock clusters),
     * {@code property} (the directory in {@code mm2checkpoint.library.path}) or {@code system}
     * ({@code java.library.path} or the dynamic loader).
     */
    public static String libraryOrigin() {
        NativeLibrary.binding();
        return NativeLibrary.origin();
    }
}
