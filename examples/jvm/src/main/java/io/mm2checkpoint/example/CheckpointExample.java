package io.mm2checkpoint.example;

import io.mm2checkpoint.Checkpoint;
import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Diagnostics;
import io.mm2checkpoint.EmbeddedClusters;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import io.mm2checkpoint.TaskStats;
import java.io.FileReader;
import java.io.IOException;
import java.io.Reader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The checkpoint task from Java, without Kafka Connect.
 *
 * <p>With no arguments: starts two embedded mock clusters, writes offset syncs as a mirror
 * would, commits three source consumer groups, runs the task until it has written checkpoints,
 * prints them, then stops it from a second thread while the first is blocked in poll.
 *
 * <p>With {@code --config mm2.properties}: runs against the clusters that file describes until
 * Ctrl-C, which stops the task from the shutdown hook's thread.
 */
public final class CheckpointExample {
    private static final String[] GROUPS = {"billing", "analytics", "audit"};
    private static final int PARTITIONS = 3;
    private static final String SYNCS = "mm2-offset-syncs.target.internal";

    private CheckpointExample() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--config")) {
            runWithConfig(args[1]);
        } else if (args.length == 0) {
            runEmbedded();
        } else {
            System.err.println("usage: CheckpointExample [--config mm2.properties]");
            System.exit(2);
        }
    }

    private static void runEmbedded() throws InterruptedException {
        System.out.printf("mm2-checkpoint %s through %s on Java %s%n", Diagnostics.version(), Diagnostics.binding(),
                Runtime.version());
        try (EmbeddedClusters clusters = new EmbeddedClusters()) {
            clusters.createTopic(Side.SOURCE, "orders", PARTITIONS);
            clusters.createTopic(Side.SOURCE, SYNCS, 1);
            clusters.createTopic(Side.TARGET, "source.orders", PARTITIONS);
            clusters.createTopic(Side.TARGET, "source.checkpoints.internal", 1);
            // A mirror that copied 1,000 records per partition onto targets already holding
            // 100 * (p + 1) records, writing an offset sync every 100 records.
            for (int p = 0; p < PARTITIONS; p++) {
                long shift = 100L * (p + 1);
                long[] up = new long[10];
                long[] down = new long[10];
                for (int i = 0; i < 10; i++) {
                    up[i] = 100L * i;
                    down[i] = up[i] + shift;
                }
                clusters.produceOffsetSyncs(Side.SOURCE, SYNCS, "orders", p, up, down);
            }
            for (int g = 0; g < GROUPS.length; g++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    clusters.commitOffset(Side.SOURCE, GROUPS[g], "orders", p, 150 + 300L * g + 7L * p, "");
                }
            }
            CheckpointConfig config = CheckpointConfig.builder()
                    .set("source.cluster.alias", "source")
                    .set("target.cluster.alias", "target")
                    .set("source.cluster.bootstrap.servers", clusters.bootstrap(Side.SOURCE))
                    .set("target.cluster.bootstrap.servers", clusters.bootstrap(Side.TARGET))
                    .set("task.assigned.groups", String.join(",", GROUPS))
                    .set("emit.checkpoints.interval.seconds", 1)
                    .build();

            try (CheckpointTask task = new CheckpointTask(config)) {
                task.start();
                List<Checkpoint> written = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (written.isEmpty() && System.nanoTime() < deadline) {
                    PollResult r = task.poll(Duration.ofSeconds(5));
                    if (r.status() == PollStatus.FAILED) {
                        throw new IllegalStateException(task.fatalError().orElse("failed"));
                    }
                    written.addAll(r.checkpoints());
                }
                if (written.isEmpty()) {
                    throw new IllegalStateException("no checkpoints within 60 s");
                }
                written.sort(Comparator.comparing(Checkpoint::group).thenComparing(Checkpoint::partition));
                System.out.printf("%n%-10s %-18s %9s    %10s%n", "group", "topic-partition", "upstream", "downstream");
                for (Checkpoint c : written) {
                    System.out.printf("%-10s %-18s %9d -> %10d%n", c.group(), c.topicPartition(), c.upstreamOffset(),
                            c.downstreamOffset());
                }
                TaskStats stats = task.stats();
                System.out.printf("%nloaded %d offset syncs in %s; wrote %d checkpoints%n", stats.syncsLoaded(),
                        stats.loadTime().map(Duration::toString).orElse("?"), stats.checkpointsEmitted());

                // Stop from a second thread while this one is blocked in poll.
                CountDownLatch polling = new CountDownLatch(1);
                long[] stoppedAt = new long[1];
                Thread stopper = new Thread(() -> {
                    try {
                        polling.await();
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    stoppedAt[0] = System.nanoTime();
                    task.stop();
                }, "stopper");
                stopper.start();
                polling.countDown();
                PollResult last = task.poll(Duration.ofSeconds(30));
                long returnedAfterUs = (System.nanoTime() - stoppedAt[0]) / 1000;
                stopper.join();
                System.out.printf("stopped from another thread: poll returned %s %d us after stop() was called; "
                        + "the stop took %s%n", last.status(), returnedAfterUs,
                        task.stats().lastStopTime().map(Duration::toString).orElse("?"));
            }
        }
        System.out.printf("live clients %d, live threads %d%n", Diagnostics.liveClients(), Diagnostics.liveThreads());
        if (Diagnostics.liveClients() != 0 || Diagnostics.liveThreads() != 0) {
            throw new IllegalStateException("clients or threads outlived their task");
        }
    }

    private static void runWithConfig(String file) throws IOException, InterruptedException {
        CheckpointConfig config;
        try (Reader reader = new FileReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
            config = CheckpointConfig.builder().load(reader).build();
        }
        CheckpointTask task = new CheckpointTask(config);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            task.stop(); // the poll below returns STOPPED
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        task.start();
        System.err.println("running; Ctrl-C stops");
        try (task) {
            while (true) {
                PollResult r = task.poll(Duration.ofSeconds(5));
                r.checkpoints().forEach(c -> System.out.printf("%s %s %d -> %d%n", c.group(), c.topicPartition(),
                        c.upstreamOffset(), c.downstreamOffset()));
                if (r.status() == PollStatus.FAILED) {
                    throw new IllegalStateException(task.fatalError().orElse("failed"));
                }
                if (r.status() == PollStatus.STOPPED) {
                    break;
                }
            }
        }
        System.err.println("stopped");
    }
}
