package io.mm2checkpoint.test;

import io.mm2checkpoint.Diagnostics;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jar carries its native library: the suite runs against the packaged jar and its test kit,
 * so the library in use must have come out of the test kit (the loader prefers it), and nothing
 * may be left in the temporary directory. A JVM with the jar alone loads the jar's library, which
 * has no mock clusters.
 */
@Timeout(120)
public final class LoaderTest {
    private static final String JAR_OF_THIS_BUILD = "mm2checkpoint.jar";

    @Test
    public void theLibraryComesFromTheTestKitJarAndLeavesNoTemporaryFile() throws IOException {
        Check.equal("testkit", Diagnostics.libraryOrigin(), "where the native library was loaded from");
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> left = Files.list(tmp)) {
            List<Path> extracted = left.filter(p -> p.getFileName().toString().startsWith("mm2checkpoint-")).toList();
            Check.equal(List.of(), extracted, "extraction directories left in " + tmp);
        }
    }

    @Test
    public void theJarIsMultiReleaseAndAllowsNativeAccess() throws IOException {
        try (JarFile jar = new JarFile(jar())) {
            var attributes = jar.getManifest().getMainAttributes();
            Check.equal("true", attributes.getValue("Multi-Release"), "Multi-Release");
            Check.equal("ALL-UNNAMED", attributes.getValue("Enable-Native-Access"), "Enable-Native-Access");
            Check.equal("io.mm2checkpoint", attributes.getValue("Automatic-Module-Name"), "Automatic-Module-Name");
            Check.equal(System.getProperty("mm2checkpoint.expectedVersion"), attributes.getValue("Implementation-Version"),
                    "Implementation-Version");
            Check.isTrue(jar.getEntry("native/linux-x86_64/index.properties") != null, "index of the native files");
            Check.isTrue(jar.getEntry("native/linux-x86_64/libmm2_checkpoint_jni.so") != null, "JNI bridge in the jar");
        }
    }

    /**
     * The jar alone (a production class path) loads the jar's library, and EmbeddedClusters then
     * refuses with an error that names the test kit, instead of failing in native code.
     */
    @Test
    public void theJarAloneLoadsItsOwnLibraryWhichHasNoMockClusters() throws Exception {
        String out = runChild(null, TryMockClusters.class);
        Check.isTrue(out.contains("origin jar"), "the bare jar's library: " + out);
        Check.isTrue(out.contains("IllegalStateException") && out.contains("testkit"),
                "EmbeddedClusters names the test kit: " + out);
    }

    /** The connector reports the version of the build (the pom's), not a string in the source. */
    @Test
    public void theConnectorReportsTheBuildsVersion() {
        String expected = System.getProperty("mm2checkpoint.expectedVersion");
        Check.isTrue(expected != null && !expected.isEmpty(), "the pom passes its version");
        Check.equal(expected, new io.mm2checkpoint.connect.NativeMirrorCheckpointConnector().version(), "connector version");
        Check.equal(expected, new io.mm2checkpoint.connect.NativeMirrorCheckpointTask().version(), "task version");
    }

    /**
     * On Java 22+ the binding is the jar's META-INF/versions/22 class; the Java 17 part of the
     * jar has no java.lang.foreign code at all.
     */
    @Test
    public void java22UsesTheVersionedPanamaBinding() throws IOException {
        ClassLoader loader = LoaderTest.class.getClassLoader();
        java.net.URL factory = loader.getResource("io/mm2checkpoint/PanamaBindings.class");
        Check.isTrue(factory != null, "PanamaBindings.class on the classpath");
        if (Runtime.version().feature() >= 22) {
            // Panama unless the run asked for JNI (a JNI run on a Java 22+ JDK, e.g. Maven's own).
            Check.equal(System.getProperty("mm2checkpoint.binding", "panama"), Diagnostics.binding(),
                    "binding on Java 22+");
            Check.isTrue(factory.toString().contains("META-INF/versions/22/"), "versioned factory in use: " + factory);
        } else {
            Check.equal("jni", Diagnostics.binding(), "binding before Java 22");
            Check.isTrue(!factory.toString().contains("META-INF/versions/"), "base factory on Java 17: " + factory);
            Check.isTrue(loader.getResource("io/mm2checkpoint/PanamaBinding.class") == null,
                    "no Panama binding outside META-INF/versions/22");
        }
        try (JarFile jar = new JarFile(jar())) {
            Check.isTrue(jar.getEntry("META-INF/versions/22/io/mm2checkpoint/PanamaBinding.class") != null,
                    "the Java 22 binding is in the jar");
            Check.isTrue(jar.getEntry("io/mm2checkpoint/Ffm.class") == null, "no reflective FFM layer");
        }
    }

    /**
     * {@code mm2checkpoint.library.path} wins over the jar: a second JVM on the bare jar, pointed
     * at a directory holding copies of the native files, loads those (and a wrong directory fails
     * with the path in the message instead of falling back silently).
     */
    @Test
    public void theLibraryPathPropertyOverridesTheJar(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (JarFile jar = new JarFile(jar())) {
            java.util.Properties index = new java.util.Properties();
            try (var in = jar.getInputStream(jar.getEntry("native/linux-x86_64/index.properties"))) {
                index.load(in);
            }
            for (String f : new String[] {index.getProperty("library"), index.getProperty("bridge")}) {
                try (var in = jar.getInputStream(jar.getEntry("native/linux-x86_64/" + f))) {
                    Files.copy(in, dir.resolve(f));
                }
            }
            // The property names a directory laid out as cargo's target/ is: the plain name too.
            if (!index.getProperty("library").equals("libmm2_checkpoint.so")) {
                Files.createSymbolicLink(dir.resolve("libmm2_checkpoint.so"), Path.of(index.getProperty("library")));
            }
        }
        Check.equal("property " + System.getProperty("mm2checkpoint.binding"), runChild(dir.toString()).strip(),
                "child JVM with the property");
        String wrong = runChild(dir.resolve("missing").toString());
        Check.isTrue(wrong.contains("missing"), "a wrong directory is named in the failure: " + wrong);
    }

    /**
     * The loader picks the jar's directory by {@code os.arch}: a child JVM on this machine told
     * it runs on aarch64 (or arm64, the name some JVMs give it) goes for {@code linux-aarch64}: it
     * fails to load those files here, or, in a jar built without them, names that platform as the
     * one it has no files for. Either way the failure names linux-aarch64, never linux-x86_64's
     * files.
     */
    @Test
    public void theLoaderPicksTheJarsDirectoryByOsArch() throws Exception {
        for (String arch : new String[] {"aarch64", "arm64"}) {
            String out = runChild(null, PrintOrigin.class, "-Dos.arch=" + arch);
            Check.isTrue(out.contains("UnsatisfiedLinkError") && out.contains("linux-aarch64"),
                    "os.arch " + arch + ": the failure names linux-aarch64: " + out);
            Check.isTrue(!out.contains("native/linux-x86_64"), "os.arch " + arch + ": no x86_64 file tried: " + out);
        }
    }

    /** A platform the jar has no files for fails naming it and the platforms the jar does have. */
    @Test
    public void aPlatformWithoutFilesFailsNamingIt() throws Exception {
        String out = runChild(null, PrintOrigin.class, "-Dos.arch=riscv64");
        Check.isTrue(out.contains("no native library for linux-riscv64"), "the platform is named: " + out);
        Check.isTrue(out.contains("linux-x86_64"), "the jar's platforms are listed: " + out);
    }

    /**
     * Without slf4j on the classpath the library logs through System.Logger (java.util.logging,
     * whose console handler writes to stderr); and a program that exits without closing its
     * running task still gets the task's last record: the library's shutdown hook stops the task
     * before it turns the log bridge off.
     */
    @Test
    public void withoutSlf4jRecordsGoToSystemLoggerAndAnExitStillLogsTheTasksStop() throws Exception {
        // java.util.logging's own shutdown hook removes its handlers, racing any record logged
        // at exit: the child keeps them (KeepHandlersAtExit), so what is tested is our hook.
        String out = runChild(null, ExitWithRunningTask.class,
                "-Djava.util.logging.manager=" + KeepHandlersAtExit.class.getName(),
                "-Dmm2checkpoint.test.withTestKit=true");
        Check.isTrue(out.contains("sink system"), "the child's log sink: " + out);
        Check.isTrue(out.contains("task ready"), "the child's task ran: " + out);
        Check.isTrue(out.lines().anyMatch(l -> l.contains("checkpoint task stopped")),
                "the task's stop record at exit, through java.util.logging: " + out);
    }

    private static String runChild(String libraryPath) throws Exception {
        return runChild(libraryPath, PrintOrigin.class);
    }

    private static String runChild(String libraryPath, Class<?> main, String... jvmOptions) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx64m");
        cmd.addAll(List.of(jvmOptions));
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-Dmm2checkpoint.binding=" + System.getProperty("mm2checkpoint.binding"));
        if (libraryPath != null) {
            cmd.add("-Dmm2checkpoint.library.path=" + libraryPath);
        }
        // The bare jar and the test classes: no slf4j, no Kafka clients; the test kit only for a
        // child that runs a task on the mock clusters.
        String classPath = jar() + File.pathSeparator + System.getProperty("mm2checkpoint.testClasses");
        if (List.of(jvmOptions).contains("-Dmm2checkpoint.test.withTestKit=true")) {
            classPath += File.pathSeparator + System.getProperty("mm2checkpoint.testkitJar");
        }
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(main.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        Check.isTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
        return new String(out, StandardCharsets.UTF_8);
    }

    private static String jar() {
        String jar = System.getProperty(JAR_OF_THIS_BUILD);
        Check.isTrue(jar != null && new File(jar).isFile(), "-D" + JAR_OF_THIS_BUILD + " names the built jar: " + jar);
        return jar;
    }

    /** java.util.logging without its reset at JVM exit (as log4j-jul or Spring Boot install one). */
    public static final class KeepHandlersAtExit extends java.util.logging.LogManager {
        @Override
        public void reset() {
            Thread probe = new Thread(() -> {});
            try {
                Runtime.getRuntime().addShutdownHook(probe);
                Runtime.getRuntime().removeShutdownHook(probe);
            } catch (IllegalStateException exiting) {
                return;
            }
            super.reset();
        }
    }

    /** A child JVM's main: starts a task, waits until it works, and exits without closing it. */
    public static final class ExitWithRunningTask {
        public static void main(String[] args) {
            System.out.println("sink " + io.mm2checkpoint.LogBridge.sink());
            Fixture f = new Fixture();
            io.mm2checkpoint.CheckpointTask task = new io.mm2checkpoint.CheckpointTask(f.config("g").build());
            f.syncs(0, 0, 0);
            f.commit("g", 0, 0, "");
            task.start();
            Fixture.pollUntilCheckpoints(task);
            System.out.println("task ready; exiting with it running");
            System.out.flush();
        }
    }

    /** A child JVM's main: where the library came from, then what EmbeddedClusters does. */
    public static final class TryMockClusters {
        public static void main(String[] args) {
            System.out.println("origin " + Diagnostics.libraryOrigin());
            try (io.mm2checkpoint.EmbeddedClusters clusters = new io.mm2checkpoint.EmbeddedClusters()) {
                System.out.println("mock clusters started: " + clusters.bootstrap(io.mm2checkpoint.EmbeddedClusters.Side.SOURCE));
            } catch (Throwable t) {
                System.out.println(t);
            }
        }
    }

    /** The child JVM's main: prints where the library came from and the binding. */
    public static final class PrintOrigin {
        public static void main(String[] args) {
            try {
                System.out.println(Diagnostics.libraryOrigin() + " " + Diagnostics.binding());
            } catch (Throwable t) {
                System.out.println(t);
            }
        }
    }
}
