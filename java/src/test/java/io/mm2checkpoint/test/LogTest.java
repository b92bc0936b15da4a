package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.LogBridge;
import java.lang.System.Logger.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The native log callback reaches slf4j (here bound to log4j 2, as in a Connect worker) from
 * native threads.
 */
@Timeout(120)
public final class LogTest {
    private static <T> T withCapture(LogCapture capture, java.util.concurrent.Callable<T> body) throws Exception {
        LogBridge.setMaxLevel(Level.DEBUG);
        try (capture) {
            return body.call();
        } finally {
            LogBridge.setMaxLevel(Level.INFO);
        }
    }

    @Test
    public void libraryRecordsArriveOnSlf4jLoggersFromNativeThreads() throws Exception {
        Check.equal("slf4j", LogBridge.sink(), "the bridge's sink with slf4j-api on the classpath");
        LogCapture capture = new LogCapture("mm2_checkpoint");
        String testThread = Thread.currentThread().getName();
        withCapture(capture, () -> {
            try (Fixture f = new Fixture(); CheckpointTask task = new CheckpointTask(f.config("g").build())) {
                f.syncs(0, 0, 0);
                f.commit("g", 0, 0, "");
                task.start();
                Fixture.pollUntilCheckpoints(task);
            }
            return null;
        });
        LogCapture.Seen ready = capture.seen.stream().filter(s -> s.message().startsWith("checkpoint task ready"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no `checkpoint task ready` record among " + capture.seen));
        // The Rust module path with `::` as `.`: mm2_checkpoint.runtime.checkpoint_task.startup.
        Check.isTrue(ready.logger().startsWith("mm2_checkpoint.") && ready.logger().contains(".checkpoint_task"),
                "logger of the ready record: " + ready.logger());
        Check.equal(org.apache.logging.log4j.Level.INFO, ready.level(), "level of the ready record");
        Check.isTrue(!ready.thread().equals(testThread), "the ready record came from a library thread, not "
                + ready.thread());
        Check.isTrue(capture.seen.stream().anyMatch(s -> s.level() == org.apache.logging.log4j.Level.DEBUG),
                "debug records arrive at DEBUG: " + capture.seen.size() + " records");
        Check.isTrue(capture.seen.stream().anyMatch(s -> s.message().startsWith("checkpoint task stopped")
                && s.thread().equals(testThread)), "the stop's record came on the stopping thread");
        System.out.printf("    %d records; threads: %s%n", capture.seen.size(),
                capture.seen.stream().map(LogCapture.Seen::thread).distinct().sorted().toList());
    }

    @Test
    public void aLogHandlerThatThrowsNeverReachesTheLibraryOrKillsTheJvm() throws Exception {
        LogCapture capture = new LogCapture("mm2_checkpoint");
        capture.fail = true;
        long failedBefore = LogBridge.failed();
        withCapture(capture, () -> {
            try (Fixture f = new Fixture(); CheckpointTask task = new CheckpointTask(f.config("g").build())) {
                f.syncs(0, 0, 0);
                f.commit("g", 0, 0, "");
                task.start();
                Fixture.pollUntilCheckpoints(task);
                Check.isTrue(task.stop(), "stop after throwing handlers");
            }
            return null;
        });
        Check.isTrue(LogBridge.failed() > failedBefore, "the appender's exceptions were counted");
        Fixture.assertNothingLive("after throwing log handlers");
    }
}
