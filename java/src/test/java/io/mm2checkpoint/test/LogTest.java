package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.EmbeddedClusters;
import io.mm2checkpoint.LogBridge;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
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

    /**
     * Two tasks in one JVM, each with its own log context (as two connectors' tasks in one worker):
     * every record of a task's native threads, and its stop's record on the test thread, carries
     * that task's context and no other's; the native threads are named after their flow; the
     * test thread's own MDC is left as it was.
     */
    @Test
    public void eachTaskLogsUnderItsOwnContextOnWhicheverThread() throws Exception {
        LogCapture capture = new LogCapture("mm2_checkpoint");
        String testThread = Thread.currentThread().getName();
        String one = "[one|task-0] ";
        String two = "[two|task-0] ";
        org.slf4j.MDC.put("test.own", "kept");
        long[] ids = new long[2];
        CheckpointTask[] closedLater = new CheckpointTask[1];
        try {
            withCapture(capture, () -> {
                try (Fixture f = new Fixture(); Fixture g = new Fixture()) {
                    // The second task mirrors A to B (short aliases: its threads are `A->B <role>`).
                    g.clusters.createTopic(EmbeddedClusters.Side.SOURCE, "mm2-offset-syncs.B.internal", 1);
                    g.clusters.createTopic(EmbeddedClusters.Side.TARGET, "A.checkpoints.internal", 1);
                    try (CheckpointTask first = new CheckpointTask(f.config("g").build());
                            CheckpointTask second = new CheckpointTask(g.config("g")
                                    .set("source.cluster.alias", "A").set("target.cluster.alias", "B").build())) {
                        ids[0] = first.id();
                        ids[1] = second.id();
                        first.setLogContext(Map.of("connector.context", one));
                        second.setLogContext(Map.of("connector.context", two));
                        f.syncs(0, 0, 0);
                        f.commit("g", 0, 0, "");
                        first.start();
                        second.start();
                        Fixture.pollUntilCheckpoints(first);
                        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
                        while (!second.stats().initialized()) {
                            second.poll(java.time.Duration.ofMillis(200));
                            Check.isTrue(System.nanoTime() < deadline, "A->B ready within 30 s: " + second.stats()
                                    + " " + second.fatalError());
                        }
                        Check.isTrue(first.stop() && second.stop(), "both stopped");
                        closedLater[0] = second;
                    }
                    // A context set after close is ignored (and kept nowhere).
                    closedLater[0].setLogContext(Map.of("connector.context", "[late|task-0] "));
                }
                return null;
            });
        } finally {
            Check.equal("kept", org.slf4j.MDC.get("test.own"), "the test thread's own MDC entry");
            Check.equal(null, org.slf4j.MDC.get("connector.context"), "no context left on the test thread");
            org.slf4j.MDC.remove("test.own");
        }
        Check.isTrue(ids[0] != 0 && ids[1] != 0 && ids[0] != ids[1], "two distinct task ids: " + ids[0] + ", " + ids[1]);
        List<LogCapture.Seen> nativeRecords = capture.seen.stream().filter(s -> !s.thread().equals(testThread)).toList();
        Check.isTrue(!nativeRecords.isEmpty(), "records from native threads");
        for (LogCapture.Seen s : nativeRecords) {
            String want = s.thread().startsWith("A->B ") ? two : s.thread().startsWith("mm2 ") ? one : null;
            Check.isTrue(want != null, "a native thread named after its flow: `" + s.thread() + "` (" + s.message() + ")");
            Check.equal(want, s.mdc().get("connector.context"), "context of `" + s.message() + "` on " + s.thread());
        }
        for (String context : List.of(one, two)) {
            Check.isTrue(capture.seen.stream().anyMatch(s -> s.thread().equals(testThread)
                    && s.message().startsWith("checkpoint task stopped")
                    && context.equals(s.mdc().get("connector.context"))),
                    "the stop's record on the test thread carries " + context);
            Check.isTrue(nativeRecords.stream().anyMatch(s -> context.equals(s.mdc().get("connector.context"))
                    && s.message().startsWith("checkpoint task ready")), "a ready record under " + context);
        }
        System.out.printf("    %d records from native threads, each under its task's context; threads: %s%n",
                nativeRecords.size(), nativeRecords.stream().map(LogCapture.Seen::thread).distinct().sorted().toList());
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
