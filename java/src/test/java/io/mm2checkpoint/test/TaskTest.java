package io.mm2checkpoint.test;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import io.mm2checkpoint.TaskStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One task's life on embedded clusters: checkpoints, misuse, concurrent calls. */
@Timeout(120)
public final class TaskTest {

    @Test
    public void checkpointsMatchWhatWasCommittedOnTheSource() {
        try (Fixture f = new Fixture()) {
            f.syncs(0, 0, 0, 100, 90);
            f.syncs(1, 50, 40);
            f.commit("g1", 0, 150, "m1");
            f.commit("g1", 1, 50, "");
            f.commit("g2", 0, 100, "");
            try (CheckpointTask task = new CheckpointTask(f.config("g1,g2").build())) {
                task.start();
                List<Checkpoint> got = Fixture.pollUntilCheckpoints(task);
                // 150 is past the sync 100 -> 90, so it translates to one past 90 (MM2 never
                // claims more than it knows); 100 and 50 hit a sync exactly.
                List<Checkpoint> expected = List.of(
                        new Checkpoint("g1", "source.orders", 0, 150, 91, "m1"),
                        new Checkpoint("g1", "source.orders", 1, 50, 40, ""),
                        new Checkpoint("g2", "source.orders", 0, 100, 90, ""));
                Check.equal(expected, got, "checkpoints from poll");
                Check.equal(expected, Fixture.sorted(f.clusters.readCheckpoints(Fixture.CHECKPOINTS)),
                        "checkpoints in the target's checkpoints topic");
                TaskStats stats = task.stats();
                Check.equal(3L, stats.checkpointsEmitted(), "checkpoints emitted");
                Check.isTrue(stats.initialized(), "initialized");
                Check.isTrue(stats.loadTime().isPresent(), "load time known");
                Check.equal(3L, stats.syncsLoaded(), "syncs loaded");
                Check.equal(2L, stats.groups(), "groups");
                Check.equal(0L, stats.groupFetchesDenied(), "group fetches denied");
                Check.isTrue(task.stop(), "first stop stops");
                Check.isTrue(!task.stop(), "second stop reports already stopped");
                Check.isTrue(task.stats().lastStopTime().isPresent(), "stop time recorded");
                Check.equal(PollStatus.STOPPED, task.poll(Duration.ofSeconds(5)).status(), "poll after stop");
                Check.isTrue(task.fatalError().isEmpty(), "no fatal error");
            }
            Fixture.assertNothingLive("after close");
        }
    }

    @Test
    public void unicodeGroupAndMetadataSurviveBothDirections() {
        String group = "grüppe-日本-😀";
        String metadata = "métadonnée ✓ 😀 \\ \"quoted\"";
        try (Fixture f = new Fixture()) {
            f.syncs(0, 10, 20);
            f.commit(group, 0, 10, metadata);
            try (CheckpointTask task = new CheckpointTask(f.config(group).build())) {
                task.start();
                Check.equal(List.of(new Checkpoint(group, "source.orders", 0, 10, 20, metadata)),
                        Fixture.pollUntilCheckpoints(task), "checkpoint with non-ASCII text");
            }
        }
    }

    @Test
    public void lifecycleMisuseReportsTheResultCode() {
        try (Fixture f = new Fixture()) {
            CheckpointTask task = new CheckpointTask(f.config("g").build());
            Check.equal(Mm2Exception.NOT_STARTED,
                    Check.throwsType(Mm2Exception.class, task::stop, "stop before start").code(), "stop before start");
            task.start();
            Check.equal(Mm2Exception.ALREADY_STARTED,
                    Check.throwsType(Mm2Exception.class, task::start, "second start").code(), "second start");
            Check.isTrue(task.stop(), "stop");
            Check.equal(Mm2Exception.ALREADY_STOPPED,
                    Check.throwsType(Mm2Exception.class, task::start, "start after stop").code(), "start after stop");
            task.close();
            task.close();
            Check.isTrue(task.isClosed(), "closed");
            Check.throwsType(IllegalStateException.class, task::stats, "stats after close");
            Check.throwsType(IllegalStateException.class, () -> task.poll(Duration.ZERO), "poll after close");
            Check.isTrue(!task.stop(), "stop after close is a no-op");
            // A task that never started closes without complaint.
            new CheckpointTask(f.config("g").build()).close();
        }
        Fixture.assertNothingLive("after misuse");
    }

    @Test
    public void aSecondConcurrentPollIsBusyNotUndefined() throws Exception {
        try (Fixture f = new Fixture(); CheckpointTask task = new CheckpointTask(f.config("g").build())) {
            f.syncs(0, 0, 0);
            task.start();
            CountDownLatch entered = new CountDownLatch(1);
            AtomicReference<Object> first = new AtomicReference<>();
            Thread poller = new Thread(() -> {
                entered.countDown();
                try {
                    // Loading takes about a second: this poll blocks until stopped. The test
                    // thread's own probing polls may win the slot first: retry on BUSY.
                    PollResult r = null;
                    do {
                        try {
                            r = task.poll(Duration.ofSeconds(30));
                        } catch (Mm2Exception busy) {
                            if (busy.code() != Mm2Exception.BUSY) {
                                throw busy;
                            }
                        }
                    } while (r == null || r.status() != PollStatus.STOPPED);
                    first.set(r.status());
                } catch (RuntimeException e) {
                    first.set(e);
                }
            }, "first-poller");
            poller.start();
            entered.await();
            // No sleep: probe with zero-timeout polls until one finds the poller inside poll.
            Mm2Exception e = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (e == null) {
                Check.isTrue(System.nanoTime() < deadline, "the poller never blocked in poll");
                try {
                    task.poll(Duration.ZERO);
                } catch (Mm2Exception busy) {
                    e = busy;
                }
            }
            Check.equal(Mm2Exception.BUSY, e.code(), "second poll's code: " + e.getMessage());
            task.stop();
            poller.join(10_000);
            Check.equal(PollStatus.STOPPED, first.get(), "first poll's end");
        }
        Fixture.assertNothingLive("after a busy poll");
    }

    @Test
    public void statsAndFatalErrorAreReadableWhilePollingAndCloseEndsThePoll() throws Exception {
        try (Fixture f = new Fixture()) {
            CheckpointTask task = new CheckpointTask(f.config("g").build());
            task.start();
            AtomicReference<Object> end = new AtomicReference<>();
            // Polls again after each cycle (or while loading), so that whenever close() comes, a
            // poll is in progress or about to start, and close() must be what ends the loop.
            Thread poller = new Thread(() -> {
                try {
                    PollStatus status;
                    do {
                        status = task.poll(Duration.ofSeconds(30)).status();
                    } while (status == PollStatus.CYCLE_DONE || status == PollStatus.NOT_READY);
                    end.set(status);
                } catch (IllegalStateException closedFirst) {
                    end.set(closedFirst); // close() won the race to the handle: also correct
                }
            }, "poller");
            poller.start();
            for (int i = 0; i < 50; i++) {
                task.stats();
                Check.isTrue(task.fatalError().isEmpty(), "no fatal error");
                Thread.yield();
            }
            Check.isTrue(end.get() == null, "the poll loop ended before close(): " + end.get());
            task.close();
            poller.join(10_000);
            Check.isTrue(!poller.isAlive(), "poller returned after close");
            Check.isTrue(end.get() == PollStatus.STOPPED || end.get() instanceof IllegalStateException,
                    "poll ended with " + end.get());
        }
        Fixture.assertNothingLive("after close during poll");
    }
}
