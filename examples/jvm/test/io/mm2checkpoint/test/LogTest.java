package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.LogBridge;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The native log callback reaches java.util.logging (through System.Logger) from native threads. */
public final class LogTest {
    /** A captured record and the Java thread it was published on. */
    private record Seen(String logger, java.util.logging.Level level, String message, String thread) {}

    /** Collects records published under logger {@code mm2_checkpoint}. */
    private static final class Capture extends Handler {
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        volatile boolean fail;

        @Override
        public void publish(LogRecord r) {
            seen.add(new Seen(r.getLoggerName(), r.getLevel(), r.getMessage(), Thread.currentThread().getName()));
            if (fail) {
                throw new IllegalStateException("a broken log handler");
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    private static <T> T withCapture(Capture capture, java.util.concurrent.Callable<T> body) throws Exception {
        Logger root = Logger.getLogger("mm2_checkpoint");
        java.util.logging.Level before = root.getLevel();
        root.addHandler(capture);
        root.setLevel(java.util.logging.Level.ALL);
        LogBridge.setMaxLevel(Level.DEBUG);
        try {
            return body.call();
        } finally {
            LogBridge.setMaxLevel(Level.INFO);
            root.setLevel(before);
            root.removeHandler(capture);
        }
    }

    @Test
    public void libraryRecordsArriveOnJavaLoggersFromNativeThreads() throws Exception {
        Capture capture = new Capture();
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
        Seen ready = capture.seen.stream().filter(s -> s.message().startsWith("checkpoint task ready")).findFirst()
                .orElseThrow(() -> new AssertionError("no `checkpoint task ready` record among " + capture.seen));
        // The Rust module path with dots (it moves when modules do; the shape is what is pinned).
        Check.isTrue(ready.logger().startsWith("mm2_checkpoint.") && ready.logger().contains("checkpoint_task"),
                "logger of the ready record: " + ready.logger());
        Check.equal(java.util.logging.Level.INFO, ready.level(), "level of the ready record");
        Check.isTrue(!ready.thread().equals(testThread), "the ready record came from a library thread, not "
                + ready.thread());
        Check.isTrue(capture.seen.stream().anyMatch(s -> s.level() == java.util.logging.Level.FINE),
                "debug records arrive at DEBUG (FINE): " + capture.seen.size() + " records");
        Check.isTrue(capture.seen.stream().anyMatch(s -> s.message().startsWith("checkpoint task stopped")
                && s.thread().equals(testThread)), "the stop's record came on the stopping thread");
        System.out.printf("    %d records; threads: %s%n", capture.seen.size(),
                capture.seen.stream().map(Seen::thread).distinct().sorted().toList());
    }

    @Test
    public void aLogHandlerThatThrowsNeverReachesTheLibraryOrKillsTheJvm() throws Exception {
        Capture capture = new Capture();
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
        Check.isTrue(LogBridge.failed() > failedBefore, "the handler's exceptions were counted");
        Fixture.assertNothingLive("after throwing log handlers");
    }
}
