package io.mm2checkpoint.test;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Diagnostics;
import io.mm2checkpoint.EmbeddedClusters;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Embedded clusters laid out as a mirror from alias {@code source} to {@code target} leaves them:
 * topic {@code orders} (2 partitions) on the source, {@code source.orders} on the target, and the
 * two internal topics MM2 uses by default.
 */
final class Fixture implements AutoCloseable {
    static final String SYNCS = "mm2-offset-syncs.target.internal";
    static final String CHECKPOINTS = "source.checkpoints.internal";
    static final Comparator<Checkpoint> ORDER =
            Comparator.comparing(Checkpoint::group).thenComparing(Checkpoint::topic).thenComparing(Checkpoint::partition);

    final EmbeddedClusters clusters = new EmbeddedClusters();

    Fixture() {
        clusters.createTopic(Side.SOURCE, "orders", 2);
        clusters.createTopic(Side.SOURCE, SYNCS, 1);
        clusters.createTopic(Side.TARGET, "source.orders", 2);
        clusters.createTopic(Side.TARGET, CHECKPOINTS, 1);
    }

    /** Connector-style configuration for these clusters, checkpointing {@code groups} every second. */
    CheckpointConfig.Builder config(String groups) {
        return CheckpointConfig.builder()
                .set("source.cluster.alias", "source")
                .set("target.cluster.alias", "target")
                .set("source.cluster.bootstrap.servers", clusters.bootstrap(Side.SOURCE))
                .set("target.cluster.bootstrap.servers", clusters.bootstrap(Side.TARGET))
                .set("task.assigned.groups", groups)
                .set("emit.checkpoints.interval.seconds", "1");
    }

    /** Offset syncs for orders-{@code partition}: pairs of (upstream, downstream). */
    void syncs(int partition, long... pairs) {
        long[] up = new long[pairs.length / 2];
        long[] down = new long[pairs.length / 2];
        for (int i = 0; i < up.length; i++) {
            up[i] = pairs[2 * i];
            down[i] = pairs[2 * i + 1];
        }
        clusters.produceOffsetSyncs(Side.SOURCE, SYNCS, "orders", partition, up, down);
    }

    void commit(String group, int partition, long offset, String metadata) {
        clusters.commitOffset(Side.SOURCE, group, "orders", partition, offset, metadata);
    }

    /** Polls until a poll emits at least one checkpoint; fails after 30 s or on STOPPED/FAILED. */
    static List<Checkpoint> pollUntilCheckpoints(CheckpointTask task) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            PollResult r = task.poll(Duration.ofSeconds(2));
            if (r.status() == PollStatus.CYCLE_DONE && !r.checkpoints().isEmpty()) {
                return sorted(r.checkpoints());
            }
            Check.isTrue(r.status() != PollStatus.FAILED && r.status() != PollStatus.STOPPED,
                    "poll ended with " + r.status() + ": " + task.fatalError());
            Check.isTrue(System.nanoTime() < deadline, "no checkpoints within 30 s; stats " + task.stats());
        }
    }

    static List<Checkpoint> sorted(List<Checkpoint> checkpoints) {
        List<Checkpoint> out = new ArrayList<>(checkpoints);
        out.sort(ORDER);
        return out;
    }

    /** The process-wide counters are back to zero: no client or thread outlived its task. */
    static void assertNothingLive(String when) {
        Check.equal(0L, Diagnostics.liveClients(), "live Kafka clients " + when);
        Check.equal(0L, Diagnostics.liveThreads(), "live library threads " + when);
        Check.equal(0L, Diagnostics.concurrentClientAccess(), "overlapping client calls " + when);
    }

    @Override
    public void close() {
        clusters.close();
    }
}
