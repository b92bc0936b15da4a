package io.mm2checkpoint.test;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointFlows;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every flow of one MM2 properties text in one object, on embedded clusters. */
@Timeout(120)
public final class FlowsTest {

    /** source->target and target->source, the second with reverse checkpoints for failback. */
    private static String twoFlows(Fixture f) {
        f.clusters.createTopic(Side.TARGET, "mm2-offset-syncs.source.internal", 1);
        f.clusters.createTopic(Side.SOURCE, "target.checkpoints.internal", 1);
        return "clusters = source, target\n"
                + "source.bootstrap.servers = " + f.clusters.bootstrap(Side.SOURCE) + "\n"
                + "target.bootstrap.servers = " + f.clusters.bootstrap(Side.TARGET) + "\n"
                + "source->target.enabled = true\n"
                + "target->source.enabled = true\n"
                + "task.assigned.groups = g1,g2\n"
                + "emit.checkpoints.interval.seconds = 1\n"
                + "target->source.emit.reverse.checkpoints.enabled = true\n";
    }

    @Test
    public void bothFlowsRunAndOneStopStopsBoth() throws Exception {
        try (Fixture f = new Fixture()) {
            f.syncs(0, 0, 0, 100, 90);
            f.commit("g1", 0, 150, "m1");
            try (CheckpointFlows flows = new CheckpointFlows(twoFlows(f))) {
                Check.equal(List.of("source->target", "target->source"), flows.names(), "flow names");
                Check.equal(Mm2Exception.NOT_STARTED,
                        Check.throwsType(Mm2Exception.class, flows::stop, "stop before start").code(),
                        "stop before start");
                flows.start();
                Check.equal(Mm2Exception.ALREADY_STARTED,
                        Check.throwsType(Mm2Exception.class, flows::start, "second start").code(), "second start");

                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                List<Checkpoint> got = List.of();
                while (got.isEmpty()) {
                    PollResult r = flows.poll("source->target", Duration.ofSeconds(2));
                    Check.isTrue(r.status() != PollStatus.FAILED, "forward flow failed: " + flows.failed());
                    got = r.checkpoints();
                    Check.isTrue(System.nanoTime() < deadline, "no forward checkpoint within 30 s");
                }
                Check.equal(List.of(new Checkpoint("g1", "source.orders", 0, 150, 91, "m1")), got,
                        "the forward flow's checkpoint");
                while (flows.stats("target->source").cycles() == 0) {
                    flows.poll("target->source", Duration.ofSeconds(2));
                    Check.isTrue(System.nanoTime() < deadline, "no reverse cycle within 30 s");
                }
                Check.equal("target", flows.metrics("target->source").source(), "reverse flow's metrics source");
                Check.equal("source", flows.metrics("target->source").target(), "reverse flow's metrics target");
                Check.equal("source", flows.metrics("source->target").source(), "forward flow's metrics source");
                Check.isTrue(flows.failed().isEmpty(), "no flow failed: " + flows.failed());
                Check.throwsType(IllegalArgumentException.class, () -> flows.stats("a->b"), "unknown flow");

                // A poll blocked on one flow returns STOPPED when the stop comes from elsewhere.
                CountDownLatch polling = new CountDownLatch(1);
                AtomicReference<PollStatus> blocked = new AtomicReference<>();
                Thread poller = new Thread(() -> {
                    polling.countDown();
                    PollResult r;
                    do {
                        r = flows.poll("target->source", Duration.ofSeconds(60));
                    } while (r.status() != PollStatus.STOPPED && r.status() != PollStatus.FAILED);
                    blocked.set(r.status());
                });
                poller.start();
                polling.await();
                Check.isTrue(flows.stop(), "the stop stops the flows");
                poller.join(10_000);
                Check.equal(PollStatus.STOPPED, blocked.get(), "the other thread's poll");
                Check.isTrue(!flows.stop(), "a second stop says already stopped");
                Check.equal(PollStatus.STOPPED, flows.poll("source->target", Duration.ZERO).status(),
                        "forward poll after stop");
            }
            Fixture.assertNothingLive("after close");
        }
    }

    @Test
    public void aTextEnablingNoFlowIsRefusedAndCloseIsIdempotent() {
        Mm2Exception e = Check.throwsType(Mm2Exception.class,
                () -> new CheckpointFlows("clusters = A, B\nA.bootstrap.servers = x:1\nB.bootstrap.servers = y:1\n"),
                "no enabled flow");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "result code");
        CheckpointFlows flows = new CheckpointFlows("clusters = A, B\nA.bootstrap.servers = 127.0.0.1:1\n"
                + "B.bootstrap.servers = 127.0.0.1:1\nA->B.enabled = true\n");
        Check.equal(List.of("A->B"), flows.names(), "one flow");
        flows.close();
        flows.close();
        Check.isTrue(!flows.stop(), "stop after close");
        Check.throwsType(IllegalStateException.class, () -> flows.stats("A->B"), "stats after close");
    }
}
