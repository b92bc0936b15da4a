package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.GroupSelector;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.OffsetSyncWriter;
import io.mm2checkpoint.OffsetSyncWriterStats;
import io.mm2checkpoint.RemoteClusterUtils;
import io.mm2checkpoint.TranslatedOffset;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The offset-sync writer from Java: a mirror's syncs, then the failover they make possible. */
@Timeout(120)
public final class OffsetSyncWriterTest {
    private static final long FILLER0 = 37;
    private static final long FILLER1 = 5;

    @Test
    public void syncsFromAJavaMirrorTranslateExactlyAfterFailover() {
        try (Fixture f = new Fixture()) {
            Map<String, String> config = Map.of("bootstrap.servers", f.clusters.bootstrap(Side.SOURCE),
                    "offset.lag.max", "10", "offset.flush.interval.ms", "600000");
            OffsetSyncWriter writer = new OffsetSyncWriter(config, Fixture.SYNCS);
            for (long i = 0; i < 200; i++) {
                Check.isTrue(writer.waitForCapacity(Duration.ofSeconds(10)), "a free send permit");
                writer.report("orders", 0, i, i + FILLER0);
                if (i < 50) {
                    writer.report("orders", 1, i, i + FILLER1);
                }
                writer.tick();
            }
            OffsetSyncWriterStats open = writer.stats();
            Check.equal(250L, open.recordsReported(), "records reported");
            Check.equal(2L, open.delayed(), "each partition's last record waits for a promotion");
            Check.isTrue(!open.closed(), "open");
            OffsetSyncWriterStats last = writer.close(Duration.ofSeconds(30));
            // A sync every 11 records (a translation one past the last sync falls 10 behind at
            // the 11th), plus the close's sync at each partition's last record.
            Check.equal(19L + 1 + 5 + 1, last.syncsSent(), "syncs sent");
            Check.equal(last.syncsSent(), last.syncsDelivered(), "syncs delivered");
            Check.isTrue(last.closed() && last.delayed() == 0 && last.outstanding() == 0, "final: " + last);
            Check.equal(last, writer.stats(), "stats after close");
            Check.equal(last, writer.close(Duration.ZERO), "a second close");
            Check.throwsType(IllegalStateException.class, () -> writer.report("orders", 0, 200, 237), "after close");

            f.commit("g1", 0, 200, "m1");
            f.commit("g1", 1, 50, "");
            f.commit("g2", 0, 199, "m2");
            try (CheckpointTask task = new CheckpointTask(f.config("g1,g2").build())) {
                task.start();
                Check.equal(3, Fixture.pollUntilCheckpoints(task).size(), "checkpoints written");
            }
            // Caught up: one past the last sync (199 -> 236, 49 -> 54); 199 is that sync.
            Check.equal(List.of(
                    new TranslatedOffset("g1", "source.orders", 0, 200 + FILLER0, 200, "m1"),
                    new TranslatedOffset("g1", "source.orders", 1, 50 + FILLER1, 50, ""),
                    new TranslatedOffset("g2", "source.orders", 0, 199 + FILLER0, 199, "m2")),
                    RemoteClusterUtils.translateOffsets(Map.of("bootstrap.servers", f.clusters.bootstrap(Side.TARGET)),
                            "source", GroupSelector.list("g1", "g2"), Duration.ofSeconds(30)).offsets(),
                    "translated offsets");
        }
        Fixture.assertNothingLive("after the mirror and the failover");
    }

    @Test
    public void badSettingsAndArgumentsAreRejectedWithTheirReason() {
        Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> new OffsetSyncWriter(
                Map.of("bootstrap.servers", "127.0.0.1:1", "offset.flush.interval.ms", "0"), "syncs"), "zero interval");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "code: " + e.getMessage());
        Check.equal("offset.flush.interval.ms", e.configKey().orElse(null), "key: " + e.getMessage());
        e = Check.throwsType(Mm2Exception.class, () -> new OffsetSyncWriter(
                Map.of("bootstrap.servers", "127.0.0.1:1", "linger.millis", "5"), "syncs"), "unknown property");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "a rejected librdkafka setting: " + e.getMessage());
        Check.equal("linger.millis", e.configKey().orElse(null), "names the property: " + e.nativeMessage());
        Check.throwsType(IllegalArgumentException.class,
                () -> new OffsetSyncWriter(Map.of("bootstrap.servers", "127.0.0.1:1"), ""), "empty topic");
        try (OffsetSyncWriter w = new OffsetSyncWriter(Map.of("bootstrap.servers", "127.0.0.1:1"), "syncs")) {
            e = Check.throwsType(Mm2Exception.class, () -> w.report("orders", -1, 0, 0), "negative partition");
            Check.equal(Mm2Exception.INVALID_ARGUMENT, e.code(), "code: " + e.getMessage());
        }
        Fixture.assertNothingLive("after rejected writers");
    }

    /** One thread at a time: a call while another thread flushes is BUSY, not a data race. */
    @Test
    public void aCallWhileAnotherThreadFlushesIsBusy() throws Exception {
        OffsetSyncWriter w = new OffsetSyncWriter(Map.of("bootstrap.servers", "127.0.0.1:1"), "syncs");
        w.report("orders", 0, 0, 0); // never delivered: nobody listens
        AtomicReference<Throwable> flushEnd = new AtomicReference<>();
        CountDownLatch flushing = new CountDownLatch(1);
        Thread flusher = new Thread(() -> {
            flushing.countDown();
            while (true) {
                try {
                    w.flush(Duration.ofSeconds(2));
                    return;
                } catch (Mm2Exception e) {
                    // The test thread's probing tick may hold the writer for a moment.
                    if (e.code() != Mm2Exception.BUSY) {
                        flushEnd.set(e);
                        return;
                    }
                } catch (Throwable t) {
                    flushEnd.set(t);
                    return;
                }
            }
        }, "flusher");
        flusher.start();
        flushing.await();
        // No sleep: tick until one tick finds the flusher inside flush.
        Mm2Exception e = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (e == null) {
            Check.isTrue(System.nanoTime() < deadline, "the flusher never entered flush");
            try {
                w.tick();
            } catch (Mm2Exception busy) {
                e = busy;
            }
        }
        Check.equal(Mm2Exception.BUSY, e.code(), "code: " + e.getMessage());
        flusher.join(10_000);
        Check.isTrue(flushEnd.get() instanceof Mm2Exception
                && ((Mm2Exception) flushEnd.get()).code() == Mm2Exception.TIMED_OUT, "flush ended with " + flushEnd.get());
        e = Check.throwsType(Mm2Exception.class, () -> w.close(Duration.ZERO), "close with a sync in flight");
        Check.equal(Mm2Exception.TIMED_OUT, e.code(), "close code");
        Check.isTrue(w.stats().closed(), "closed all the same");
        Check.equal(1L, w.stats().outstanding(), "the undelivered sync");
        Fixture.assertNothingLive("after closing an undelivered writer");
    }
}
