package io.mm2checkpoint;

import java.io.File;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Loads {@code libmm2_checkpoint.so} through one binding, once per JVM, chosen by the system
 * property {@value #BINDING_PROPERTY} ({@code panama} or {@code jni}); without it, Panama on
 * Java 22+ and JNI before.
 *
 * <p>Where the libraries are found:
 * <ul>
 *   <li>Panama opens {@value #LIBRARY_PROPERTY} (a path) if set, else {@code libmm2_checkpoint.so}
 *       from {@code java.library.path}, else lets the dynamic loader search for it;</li>
 *   <li>JNI loads the bridge {@value #JNI_LIBRARY_PROPERTY} (a path) if set, else
 *       {@code libmm2_checkpoint_jni.so} from {@code java.library.path}; the bridge finds
 *       {@code libmm2_checkpoint.so} through its rpath or {@code LD_LIBRARY_PATH}.</li>
 * </ul>
 */
final class NativeLibrary {
    /** System property choosing the binding: {@code panama} or {@code jni}. */
    static final String BINDING_PROPERTY = "mm2checkpoint.binding";
    /** System property: path of {@code libmm2_checkpoint.so} (Panama). */
    static final String LIBRARY_PROPERTY = "mm2checkpoint.library";
    /** System property: path of {@code libmm2_checkpoint_jni.so} (JNI). */
    static final String JNI_LIBRARY_PROPERTY = "mm2checkpoint.jni.library";

    private static NativeBinding binding;
    private static String loadFailure;

    private NativeLibrary() {}

    /** The process's binding, loading it on first use. */
    static synchronized NativeBinding binding() {
        if (binding != null) {
            return binding;
        }
        if (loadFailure != null) {
            throw new UnsatisfiedLinkError(loadFailure);
        }
        try {
            NativeBinding b = load();
            binding = b;
            LogBridge.install(b);
            return b;
        } catch (LinkageError | RuntimeException e) {
            loadFailure = "cannot load the mm2-checkpoint native library: " + e;
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(loadFailure);
            error.initCause(e);
            throw error;
        }
    }

    private static NativeBinding load() {
        String wanted = System.getProperty(BINDING_PROPERTY,
                Runtime.version().feature() >= 22 ? "panama" : "jni").toLowerCase(Locale.ROOT);
        switch (wanted) {
            case "panama":
                if (Runtime.version().feature() < 22) {
                    throw new UnsupportedOperationException("the Panama binding needs Java 22+, this is Java "
                            + Runtime.version() + "; use -D" + BINDING_PROPERTY + "=jni");
                }
                return new PanamaBinding(libraryPath());
            case "jni":
                return new JniBinding(System.getProperty(JNI_LIBRARY_PROPERTY));
            default:
                throw new IllegalArgumentException(BINDING_PROPERTY + " is `" + wanted + "`; expected panama or jni");
        }
    }

    private static String libraryPath() {
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        if (explicit != null) {
            return explicit;
        }
        String file = System.mapLibraryName("mm2_checkpoint");
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            File candidate = new File(dir, file);
            if (!dir.isEmpty() && candidate.isFile()) {
                return candidate.getAbsolutePath();
            }
        }
        return file;
    }

    /**
     * A non-negative timeout as the {@code int timeout_ms} of a blocking C call, saturated at
     * {@code Integer.MAX_VALUE} (about 24 days).
     */
    static int timeoutMillis(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout " + timeout + " is negative");
        }
        try {
            return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        } catch (ArithmeticException e) {
            return Integer.MAX_VALUE;
        }
    }

    /**
     * The exception for a failed call: code, the code's constant name, the library's message and
     * librdkafka's code. Every native call reports its own result, constructors included, so
     * nothing here guesses a code from a message.
     */
    static Mm2Exception failure(int code, String message, int kafkaCode) {
        String name = "MM_RESULT_" + code;
        NativeBinding b = binding;
        if (b != null) {
            String described = b.resultStr(code);
            int colon = described.indexOf(':');
            name = colon < 0 ? described : described.substring(0, colon);
        }
        return new Mm2Exception(code, name, message == null || message.isEmpty() ? name : message, kafkaCode);
    }

    /** As {@link #failure(int, String, int)}, for a failure without a Kafka code. */
    static Mm2Exception failure(int code, String message) {
        return failure(code, message, 0);
    }
}
