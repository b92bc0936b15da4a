package io.mm2checkpoint;

/**
 * {@link NativeBinding} over JNI (Java 17+): the functions that cross by rule come from the
 * generated {@link JniCalls}; this class adds the bridge's loading, the log bridge, the list rows
 * and the mock-cluster probe. Each native method is one C function of
 * {@code native/mm2_checkpoint_jni.c} (or of the headers it includes), which calls the matching
 * {@code mm_*} function and nothing else. Text crosses as byte arrays — NUL-terminated UTF-8 going
 * in (built by {@link NativeText#cString}), UTF-8 coming out — so no text depends on JNI's
 * modified UTF-8. Failed calls throw {@link Mm2Exception} from C through {@link #failure}.
 */
final class JniBinding extends JniCalls implements NativeBinding {

    /**
     * Loads the bridge: {@code bridgePath} when given, else {@code libmm2_checkpoint_jni.so} from
     * {@code java.library.path}.
     */
    JniBinding(String bridgePath) {
        if (bridgePath != null) {
            System.load(bridgePath);
        } else {
            System.loadLibrary("mm2_checkpoint_jni");
        }
        init();
    }

    @Override
    public String name() {
        return "jni";
    }

    @Override
    public void setLogBridge(int maxLevel) {
        nSetLogBridge(maxLevel);
    }

    @Override
    public String[] row(NativeRows.Kind kind, long list, int index, long[] numbers) {
        byte[][] texts = nRow(kind.id(), list, index, numbers);
        String[] out = new String[texts.length];
        for (int i = 0; i < texts.length; i++) {
            out[i] = NativeText.decode(texts[i]);
        }
        return out;
    }

    @Override
    public boolean mockClustersAvailable() {
        return nMockClustersAvailable();
    }

    // ---- called from C ------------------------------------------------------------------

    /** Builds the exception C throws for a failed call (C then throws it with {@code Throw}). */
    static Mm2Exception failure(int code, byte[] message, int kafkaCode) {
        return NativeLibrary.failure(code, NativeText.decode(message), kafkaCode);
    }

    /**
     * The log callback's Java half; runs on the logging thread (attached by C if needed), with the
     * id of the task whose record it is (0: none). Never throws.
     */
    static void onLog(int level, byte[] target, byte[] message, long task) {
        try {
            LogBridge.deliver(level, NativeText.decode(target), NativeText.decode(message), task);
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    // ---- the C bridge ---------------------------------------------------------------------

    /** Caches the class and method IDs C calls back into; checks the bridge matches this class. */
    private static native void init();

    private static native void nSetLogBridge(int maxLevel);

    private static native boolean nMockClustersAvailable();

    /** The generated row bridge: texts returned, numbers written to {@code numbers}. */
    private static native byte[][] nRow(int kind, long list, long index, long[] numbers);
}
