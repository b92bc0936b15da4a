package io.mm2checkpoint;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Loads the native library through one binding, once per JVM, chosen by the system property
 * {@value #BINDING_PROPERTY} ({@code panama} or {@code jni}); without it, Panama on Java 22+ and
 * JNI before.
 *
 * <p>Where the native files come from, first match wins:
 * <ol>
 *   <li>{@value #LIBRARY_PATH_PROPERTY}: a directory holding {@code libmm2_checkpoint.so} (and, for
 *       JNI, {@code libmm2_checkpoint_jni.so} built against it);</li>
 *   <li>the jar: the files {@code native/linux-x86_64/index.properties} names are copied to a
 *       fresh temporary directory, loaded from there, and deleted right after loading (Linux
 *       keeps a loaded file mapped), so no file is left behind even when the JVM is killed;</li>
 *   <li>{@code java.library.path}, then the dynamic loader's own search.</li>
 * </ol>
 * The JNI bridge finds {@code libmm2_checkpoint.so} beside itself (rpath {@code $ORIGIN}).
 */
final class NativeLibrary {
    /** System property choosing the binding: {@code panama} or {@code jni}. */
    static final String BINDING_PROPERTY = "mm2checkpoint.binding";
    /** System property: a directory with the native files, used instead of the jar's. */
    static final String LIBRARY_PATH_PROPERTY = "mm2checkpoint.library.path";
    /** Where the jar carries the native files. */
    static final String RESOURCE_DIR = "/native/linux-x86_64/";
    static final String LIBRARY_FILE = "libmm2_checkpoint.so";
    static final String BRIDGE_FILE = "libmm2_checkpoint_jni.so";

    private static NativeBinding binding;
    private static String loadFailure;
    private static String origin = "not loaded";

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
        } catch (LinkageError | RuntimeException | IOException e) {
            loadFailure = "cannot load the mm2-checkpoint native library: " + e;
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(loadFailure);
            error.initCause(e);
            throw error;
        }
    }

    /** Where the loaded library came from: {@code property}, {@code jar} or {@code system}. */
    static synchronized String origin() {
        return origin;
    }

    private static NativeBinding load() throws IOException {
        String wanted = System.getProperty(BINDING_PROPERTY,
                Runtime.version().feature() >= 22 ? "panama" : "jni").toLowerCase(Locale.ROOT);
        boolean jni;
        switch (wanted) {
            case "panama":
                if (Runtime.version().feature() < 22) {
                    throw new UnsupportedOperationException("the Panama binding needs Java 22+, this is Java "
                            + Runtime.version() + "; use -D" + BINDING_PROPERTY + "=jni");
                }
                jni = false;
                break;
            case "jni":
                jni = true;
                break;
            default:
                throw new IllegalArgumentException(BINDING_PROPERTY + " is `" + wanted + "`; expected panama or jni");
        }
        String file = jni ? BRIDGE_FILE : LIBRARY_FILE;
        String dir = System.getProperty(LIBRARY_PATH_PROPERTY);
        if (dir != null) {
            origin = "property";
            return open(jni, new File(dir, file).getAbsolutePath());
        }
        Properties index = jarIndex();
        if (index != null) {
            Path extracted = extractFromJar(index);
            try {
                origin = "jar";
                String name = jni ? index.getProperty("bridge") : index.getProperty("library");
                return open(jni, extracted.resolve(name).toString());
            } finally {
                deleteTree(extracted);
            }
        }
        origin = "system";
        return open(jni, findOnLibraryPath(file));
    }

    private static NativeBinding open(boolean jni, String path) {
        return jni ? new JniBinding(path) : PanamaBindings.open(path);
    }

    /**
     * The jar's {@code index.properties}: {@code library} (the library's file name, its SONAME
     * when it has one, which is the name the bridge needs) and {@code bridge}; null when this is
     * not Linux x86-64 or the jar carries no native files.
     */
    private static Properties jarIndex() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return null;
        }
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE_DIR + "index.properties")) {
            if (in == null) {
                return null;
            }
            Properties index = new Properties();
            index.load(in);
            return index;
        }
    }

    /** Copies the jar's native files into a new temporary directory. */
    private static Path extractFromJar(Properties index) throws IOException {
        Path dir = Files.createTempDirectory("mm2checkpoint-");
        try {
            for (String key : new String[] {"library", "bridge"}) {
                String file = index.getProperty(key);
                try (InputStream in = file == null ? null : NativeLibrary.class.getResourceAsStream(RESOURCE_DIR + file)) {
                    if (in == null) {
                        throw new IOException("the jar's " + RESOURCE_DIR + "index.properties names " + key + "="
                                + file + ", which the jar does not hold");
                    }
                    Files.copy(in, dir.resolve(file));
                }
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            dir.toFile().deleteOnExit();
        }
    }

    /** {@code file} in {@code java.library.path}, else its bare name for the dynamic loader. */
    private static String findOnLibraryPath(String file) {
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
