package io.mm2checkpoint.test;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import io.mm2checkpoint.TaskStats;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stopping from a second Java thread while another polls, in every phase of a task's life:
 * right after start, while the seeded offset-syncs topic is loading, and after checkpoints flow.
 * The race KAFKA-21435 is about lives in the first two.
 */
@Timeout(120)
public final class StopTest {
    /** Stops or closes slower than this count as hung (the library's own stops take milliseconds). */
    private static final long STOP_BOUND_MS = 5_000;

    /** A poller thread that polls until its poll returns STOPPED (or the task is closed under it). */
    private static final class Poller extends Thread {
        private final CheckpointTask task;
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicLong returnedAt = new AtomicLong();
        final AtomicReference<Object> outcome = new AtomicReference<>();
        volatile int polls;

        Poller(CheckpointTask task, String name) {
            super(name);
            this.task = task;
            setDaemon(true);
        }

        @Override
        public void run() {
            started.countDown();
            try {
                while (true) {
                    PollResult r;
                    try {
                        r = task.poll(Duration.ofSeconds(30));
                    } catch (Mm2Exception e) {
                        // The test thread's probing poll held the slot for a moment.
                        if (e.code() == Mm2Exception.BUSY) {
                            continue;
                        }
                        throw e;
                    }
                    polls++;
                    if (r.status() == PollStatus.STOPPED || r.status() == PollStatus.FAILED) {
                        returnedAt.set(System.nanoTime());
                        outcome.set(r.status());
                        return;
                    }
                }
            } catch (RuntimeException e) {
                returnedAt.set(System.nanoTime());
                outcome.set(e);
            }
        }

        /** Waits for the poller to end and checks how it ended. */
        void finish(boolean closed) throws InterruptedException {
            join(STOP_BOUND_MS);
            Check.isTrue(!isAlive(), getName() + " still polling " + STOP_BOUND_MS + " ms after the stop");
            Object end = outcome.get();
            boolean ok = end == PollStatus.STOPPED || closed && end instanceof IllegalStateException;
            Check.isTrue(ok, getName() + " ended with " + end);
        }
    }

    /** Offsets syncs for orders-0: upstream 10 i lands at downstream 10 i + 3. */
    private static void seed(Fixture f, int count) {
        long[] up = new long[count];
        long[] down = new long[count];
        for (int i = 0; i < count; i++) {
            up[i] = 10L * i;
            down[i] = 10L * i + 3;
        }
        f.clusters.produceOffsetSyncs(io.mm2checkpoint.EmbeddedClusters.Side.SOURCE, Fixture.SYNCS, "orders", 0, up,
                down);
    }

    @Test
    public void stopWhileTheSeededOffsetSyncsTopicIsLoading() throws Exception {
        int seeded = 200_000;
        try (Fixture f = new Fixture()) {
            seed(f, seeded);
            f.commit("g", 0, 10L * (seeded - 1), "");
            try (CheckpointTask task = new CheckpointTask(f.config("g").build())) {
                task.start();
                Poller poller = new Poller(task, "poller");
                poller.start();
                poller.started.await();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (task.stats().syncsLoaded() == 0) {
                    Check.isTrue(System.nanoTime() < deadline, "offset syncs never started loading");
                    Thread.onSpinWait();
                }
                long before = System.nanoTime();
                Check.isTrue(task.stop(), "stop");
                long stopNanos = System.nanoTime() - before;
                poller.finish(false);
                TaskStats stats = task.stats();
                Check.isTrue(!stats.initialized(), "stopped before loading finished: " + stats);
                Check.isTrue(stats.syncsLoaded() > 0 && stats.syncsLoaded() < seeded,
                        "stopped mid-load: " + stats.syncsLoaded() + " of " + seeded + " syncs applied");
                Check.isTrue(stopNanos < TimeUnit.MILLISECONDS.toNanos(STOP_BOUND_MS), "stop took " + stopNanos / 1e6 + " ms");
                System.out.printf("    stopped mid-load after %d of %d syncs: stop() %.2f ms, poll returned %.2f ms "
                        + "after stop() was called, native stop %s%n", stats.syncsLoaded(), seeded, stopNanos / 1e6,
                        (poller.returnedAt.get() - before) / 1e6, stats.lastStopTime().orElse(null));
            }
            Fixture.assertNothingLive("after a stop mid-load");
        }
    }

    /** Probes with zero-timeout polls until one is refused BUSY: the poller is blocked in poll. */
    private static void awaitPollerInsidePoll(CheckpointTask task, int cycle) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Check.isTrue(System.nanoTime() < deadline, "cycle " + cycle + ": the poller never blocked in poll");
            try {
                task.poll(Duration.ZERO);
            } catch (Mm2Exception e) {
                if (e.code() == Mm2Exception.BUSY) {
                    return;
                }
                throw e;
            }
        }
    }

    /**
     * 20 tasks (-Dtest.cycles for more; the heavy churn runs in Rust) on one pair of clusters whose offset-syncs topic is seeded, each started and
     * stopped (or closed) from the test thread while a second thread polls: at a random moment
     * early in start-up, as soon as the offset syncs are loading, or after checkpoints arrived
     * (which are then checked against what the test committed). Nothing may outlive a cycle.
     */
    @Test
    @Timeout(600)
    public void startPollStopCyclesFromTwoThreads() throws Exception {
        int cycles = Integer.getInteger("test.cycles", 20);
        int seeded = 50_000;
        long lastUp = 10L * (seeded - 1);
        long lastDown = lastUp + 3;
        Random random = new Random(21435);
        Latencies stopCalls = new Latencies();
        Latencies pollReturns = new Latencies();
        Latencies nativeStops = new Latencies();
        int early = 0;
        int midLoad = 0;
        int midLoadUnfinished = 0;
        int verified = 0;
        int closes = 0;
        long started = System.nanoTime();
        try (Fixture f = new Fixture()) {
            seed(f, seeded);
            f.syncs(1, 0, 0, 100, 90);
            for (int cycle = 0; cycle < cycles; cycle++) {
                String group = "verify-" + cycle;
                boolean verify = cycle % 10 == 9;
                boolean waitForLoad = cycle % 20 == 10;
                boolean close = cycle % 3 == 2;
                if (verify) {
                    f.commit(group, 0, lastUp + cycle % 2, "c" + cycle);
                    f.commit(group, 1, 150, "");
                }
                CheckpointTask task = new CheckpointTask(f.config(group).build());
                try {
                    task.start();
                    Poller poller;
                    if (verify) {
                        List<Checkpoint> got = Fixture.pollUntilCheckpoints(task);
                        List<Checkpoint> expected = List.of(
                                new Checkpoint(group, "source.orders", 0, lastUp + cycle % 2, lastDown + cycle % 2,
                                        "c" + cycle),
                                new Checkpoint(group, "source.orders", 1, 150, 91, ""));
                        Check.equal(expected, got, "cycle " + cycle + " checkpoints");
                        List<Checkpoint> written = f.clusters.readCheckpoints(Fixture.CHECKPOINTS);
                        Check.isTrue(written.containsAll(expected), "cycle " + cycle + " checkpoints on the target");
                        verified++;
                        poller = new Poller(task, "poller-" + cycle);
                        poller.start();
                        poller.started.await();
                        awaitPollerInsidePoll(task, cycle);
                    } else {
                        poller = new Poller(task, "poller-" + cycle);
                        poller.start();
                        poller.started.await();
                        if (waitForLoad) {
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                            while (task.stats().syncsLoaded() == 0) {
                                Check.isTrue(System.nanoTime() < deadline, "cycle " + cycle + ": syncs never loaded");
                                Thread.onSpinWait();
                            }
                            midLoad++;
                        } else {
                            // Deliberate jitter, not a wait for anything: the stop lands at a
                            // random point of start-up (topic creation, checkpoints load, ...).
                            Thread.sleep(random.nextInt(60));
                            early++;
                        }
                    }
                    long before = System.nanoTime();
                    if (close) {
                        task.close();
                        closes++;
                    } else {
                        Check.isTrue(task.stop(), "cycle " + cycle + " stop");
                    }
                    long took = System.nanoTime() - before;
                    stopCalls.add(took);
                    Check.isTrue(took < TimeUnit.MILLISECONDS.toNanos(STOP_BOUND_MS),
                            "cycle " + cycle + ": stop took " + took / 1e6 + " ms");
                    poller.finish(close);
                    if (poller.outcome.get() == PollStatus.STOPPED) {
                        pollReturns.add(Math.max(0, poller.returnedAt.get() - before));
                    }
                    if (!close) {
                        TaskStats stats = task.stats();
                        stats.lastStopTime().ifPresent(d -> nativeStops.add(d.toNanos()));
                        if (waitForLoad) {
                            Check.isTrue(stats.syncsLoaded() > 0, "cycle " + cycle + " loaded syncs: " + stats);
                            if (!stats.initialized()) {
                                midLoadUnfinished++;
                            }
                        }
                        if (!verify) {
                            Check.equal(0L, stats.checkpointsEmitted(), "cycle " + cycle + " emitted nothing");
                        }
                    }
                } finally {
                    task.close();
                }
                Fixture.assertNothingLive("after cycle " + cycle);
            }
        }
        Fixture.assertNothingLive("after all cycles");
        Check.isTrue(verified >= cycles / 10, "verified cycles " + verified);
        System.out.printf("    %d cycles in %.1f s (%d early stops, %d mid-load stops (%d of the stop()ped ones "
                + "provably before the load finished), %d after verified checkpoints; %d via close())%n", cycles,
                (System.nanoTime() - started) / 1e9, early, midLoad, midLoadUnfinished, verified, closes);
        System.out.println("    stop()/close() call, seen from Java: " + stopCalls.summary());
        System.out.println("    poll returned STOPPED after stop() was called: " + pollReturns.summary());
        System.out.println("    stop as timed by the library: " + nativeStops.summary());
    }
}
