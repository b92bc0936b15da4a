package io.mm2checkpoint;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
 *   <li>the test kit (the artifact of classifier {@code testkit}, on a test class path only): the
 *       files {@code native-test/<platform>/index.properties} names, a library that also has the
 *       mock clusters {@link EmbeddedClusters} needs;</li>
 *   <li>the jar: the files {@code native/<platform>/index.properties} names, for this JVM's
 *       platform ({@code linux-x86_64} or {@code linux-aarch64}, from {@code os.name} and
 *       {@code os.arch}).</li>
 *   <li>{@code java.library.path}, then the dynamic loader's own search; when that fails too, the
 *       error names the platform the jar has no files for.</li>
 * </ol>
 * Files from a jar are copied to a fresh temporary directory, loaded from there, and deleted
 * right after loading (Linux keeps a loaded file mapped), so no file is left behind even when the
 * JVM is killed. The JNI bridge finds {@code libmm2_checkpoint.so} beside itself (rpath
 * {@code $ORIGIN}).
 */
final class NativeLibrary {
    /** System property choosing the binding: {@code panama} or {@code jni}. */
    static final String BINDING_PROPERTY = "mm2checkpoint.binding";
    /** System property: a directory with the native files, used instead of the jar's. */
    static final String LIBRARY_PATH_PROPERTY = "mm2checkpoint.library.path";
    /** Where the jar carries the native files: one directory per platform below it. */
    static final String RESOURCE_ROOT = "/native/";
    /** Where the test kit carries its native files (with the mock clusters), laid out alike. */
    static final String TEST_KIT_ROOT = "/native-test/";
    /** The platforms a full build's jar carries files for (java/README.md, "What the jar holds"). */
    static final List<String> JAR_PLATFORMS = List.of("linux-x86_64", "linux-aarch64");
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
        String platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        for (String root : new String[] {TEST_KIT_ROOT, RESOURCE_ROOT}) {
            Properties index = jarIndex(root, platform);
            if (index == null) {
                continue;
            }
            Path extracted = extractFromJar(root, platform, index);
            try {
                origin = root.equals(TEST_KIT_ROOT) ? "testkit" : "jar";
                String name = jni ? index.getProperty("bridge") : index.getProperty("library");
                return open(jni, extracted.resolve(name).toString());
            } catch (LinkageError | RuntimeException e) {
                UnsatisfiedLinkError named = new UnsatisfiedLinkError("the " + origin + "'s " + root.substring(1)
                        + platform + " files (chosen by os.arch " + System.getProperty("os.arch") + ") do not load: " + e);
                named.initCause(e);
                throw named;
            } finally {
                deleteTree(extracted);
            }
        }
        origin = "system";
        try {
            return open(jni, findOnLibraryPath(file));
        } catch (LinkageError | RuntimeException e) {
            UnsatisfiedLinkError named = new UnsatisfiedLinkError("this jar carries no native library for "
                    + platform + " (os.name " + System.getProperty("os.name") + ", os.arch "
                    + System.getProperty("os.arch") + "; it has " + jarPlatforms() + "), and " + file
                    + " is not on java.library.path or the loader's path: build the library for this platform"
                    + " (docs/C_API.md, \"Platforms\") and name its directory with -D" + LIBRARY_PATH_PROPERTY);
            named.initCause(e);
            throw named;
        }
    }

    /**
     * The jar's name for a platform: {@code linux-x86_64} ({@code os.arch} amd64 or x86_64) or
     * {@code linux-aarch64} (aarch64 or arm64); any other system as {@code <os>-<arch>}, which the
     * jar has no files for.
     */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT).startsWith("linux") ? "linux"
                : osName.toLowerCase(Locale.ROOT).replace(' ', '_');
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> osArch.toLowerCase(Locale.ROOT);
        };
        return os + "-" + arch;
    }

    /** The platforms this jar holds native files for, for error messages. */
    private static List<String> jarPlatforms() {
        return JAR_PLATFORMS.stream()
                .filter(p -> NativeLibrary.class.getResource(RESOURCE_ROOT + p + "/index.properties") != null)
                .toList();
    }

    private static NativeBinding open(boolean jni, String path) {
        return jni ? new JniBinding(path) : PanamaBindings.open(path);
    }

    /**
     * The jar's {@code index.properties} for a platform: {@code library} (the library's file name,
     * its SONAME when it has one, which is the name the bridge needs) and {@code bridge}; null when
     * the jar carries no native files for that platform.
     */
    private static Properties jarIndex(String root, String platform) throws IOException {
        if (!JAR_PLATFORMS.contains(platform)) {
            return null;
        }
        try (InputStream in = NativeLibrary.class.getResourceAsStream(root + platform + "/index.properties")) {
            if (in == null) {
                return null;
            }
            Properties index = new Properties();
            index.load(in);
            return index;
        }
    }

    /** Copies a jar's native files for a platform into a new temporary directory. */
    private static Path extractFromJar(String root, String platform, Properties index) throws IOException {
        String resourceDir = root + platform + "/";
        Path dir = Files.createTempDirectory("mm2checkpoint-");
        try {
            for (String key : new String[] {"library", "bridge"}) {
                String file = index.getProperty(key);
                try (InputStream in = file == null ? null : NativeLibrary.class.getResourceAsStream(resourceDir + file)) {
                    if (in == null) {
                        throw new IOException("the jar's " + resourceDir + "index.properties names " + key + "="
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
