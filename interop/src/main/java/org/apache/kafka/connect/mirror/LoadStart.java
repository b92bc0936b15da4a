package org.apache.kafka.connect.mirror;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Start-up load of one offset-syncs topic (interop/run.sh load; BENCHMARKS.md "Start-up load"):
 * Java MM2 4.3.1's own {@code OffsetSyncStore}, ours ({@code interop_load ours}) and a raw
 * librdkafka C consumer ({@code load_floor}) read the same topic, in the same run, round by round
 * so that every contender sees the same machine noise.
 *
 * <p>Java: an {@code OffsetSyncStore} constructed from a {@code MirrorCheckpointConfig} as
 * MirrorCheckpointTask builds it (its consumer and admin), then {@code start(true)}, which reads
 * the topic to its end through Connect's {@code KafkaBasedLog} and returns when the store is
 * ready; timed from construction to that return, closing not timed (ours and the C floor are
 * timed the same way: client creation to the last record). All Java runs share this JVM, so the
 * first one also pays class loading and a cold JIT; it is reported on its own as well.
 *
 * <p>Lives in MM2's package only to reach the package-private constructor and to count records
 * through the protected {@code handleRecord}.
 *
 * <p>Usage: LoadStart BOOTSTRAP RECORDS RUNS INTEROP_LOAD_BIN LOAD_FLOOR_BIN. Exit status 1 when a
 * contender read a different number of records than were seeded.
 */
public final class LoadStart {
    private static final String SOURCE = "A";
    private static final String TARGET = "B";
    private static final String TOPIC = "mm2-offset-syncs." + TARGET + ".internal";

    /** Client settings of the "tuned" runs: bigger fetches and a deeper prefetch queue. */
    private static final Map<String, String> TUNED_LIBRDKAFKA = ordered(
            "max.partition.fetch.bytes", "16777216",
            "fetch.max.bytes", "67108864",
            "queued.min.messages", "1000000",
            "queued.max.messages.kbytes", "262144");
    /** The Java consumer's counterparts (it has no prefetch queue; max.poll.records instead). */
    private static final Map<String, String> TUNED_JAVA = ordered(
            "max.partition.fetch.bytes", "16777216",
            "fetch.max.bytes", "67108864",
            "max.poll.records", "10000");

    private LoadStart() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: LoadStart BOOTSTRAP RECORDS RUNS INTEROP_LOAD_BIN LOAD_FLOOR_BIN");
            System.exit(2);
        }
        String bootstrap = args[0];
        long records = Long.parseLong(args[1]);
        int runs = Integer.parseInt(args[2]);
        String ours = new File(args[3]).getPath();
        String floor = new File(args[4]).getPath();

        createTopic(bootstrap);
        Result seeded = parse(run(List.of(ours, "seed", bootstrap, TOPIC, Long.toString(records))));
        System.err.printf("load: seeded %s with %d offset syncs in %.2f s%n", TOPIC, seeded.records, seeded.secs);

        List<String> tunedOurs = new ArrayList<>();
        List<String> tunedFloor = new ArrayList<>();
        TUNED_LIBRDKAFKA.forEach((k, v) -> {
            tunedOurs.add("source.consumer." + k + "=" + v);
            tunedFloor.add(k + "=" + v);
        });
        // Our internal readers set fetch.wait.max.ms=100 (kafka_based_log.rs); the floor gets the
        // same in both of its configurations so that only the fetch sizes differ.
        List<String> floorDefault = List.of("fetch.wait.max.ms=100");
        tunedFloor.add("fetch.wait.max.ms=100");

        Map<String, List<Double>> secs = new LinkedHashMap<>();
        for (String name : List.of("ours", "ours tuned", "floor", "floor tuned", "java", "java tuned")) {
            secs.put(name, new ArrayList<>());
        }
        boolean countsOk = true;
        for (int round = 0; round < runs; round++) {
            Map<String, Result> got = new LinkedHashMap<>();
            got.put("ours", parse(run(concat(List.of(ours, "ours", bootstrap), List.of()))));
            got.put("floor", parse(run(concat(List.of(floor, bootstrap, TOPIC), floorDefault))));
            got.put("java", java(bootstrap, Map.of()));
            got.put("ours tuned", parse(run(concat(List.of(ours, "ours", bootstrap), tunedOurs))));
            got.put("floor tuned", parse(run(concat(List.of(floor, bootstrap, TOPIC), tunedFloor))));
            got.put("java tuned", java(bootstrap, TUNED_JAVA));
            StringBuilder line = new StringBuilder("load: round " + round + ":");
            for (Map.Entry<String, Result> e : got.entrySet()) {
                secs.get(e.getKey()).add(e.getValue().secs);
                line.append(String.format(" %s %.3f s;", e.getKey(), e.getValue().secs));
                if (e.getValue().records != records) {
                    countsOk = false;
                    line.append(String.format(" (%s read %d records, not %d)", e.getKey(), e.getValue().records, records));
                }
            }
            System.err.println(line);
        }

        double oursP50 = p50(secs.get("ours")), oursTunedP50 = p50(secs.get("ours tuned"));
        double floorP50 = p50(secs.get("floor")), floorTunedP50 = p50(secs.get("floor tuned"));
        System.out.printf("%nStart-up load of %d offset syncs (1 partition), %d rounds, p50 (min-max) per contender:%n%n",
                records, runs);
        System.out.println("| reader | client settings | seconds p50 (min–max) | records/s (p50) | ours ÷ C floor (same settings) | Java ÷ ours (time, same settings) |");
        System.out.println("|---|---|---|---|---|---|");
        row("mm2-checkpoint (`bench_load_offset_syncs`)", "defaults", secs.get("ours"), records,
                String.format("%.2f×", floorP50 / oursP50), "—");
        row("mm2-checkpoint (`bench_load_offset_syncs`)", "tuned", secs.get("ours tuned"), records,
                String.format("%.2f×", floorTunedP50 / oursTunedP50), "—");
        row("raw librdkafka C, `rd_kafka_consume_batch_queue`", "defaults", secs.get("floor"), records, "1", "—");
        row("raw librdkafka C, `rd_kafka_consume_batch_queue`", "tuned", secs.get("floor tuned"), records, "1", "—");
        row("Java MM2 4.3.1 `OffsetSyncStore.start(true)`", "defaults", secs.get("java"), records, "—",
                String.format("%.2f×", p50(secs.get("java")) / oursP50));
        row("Java MM2 4.3.1 `OffsetSyncStore.start(true)`", "tuned", secs.get("java tuned"), records, "—",
                String.format("%.2f×", p50(secs.get("java tuned")) / oursTunedP50));
        System.out.printf("%nJava's first run (cold JVM: class loading, interpreter, JIT): %.3f s; "
                + "Java p50 without it: %.3f s%n", secs.get("java").get(0),
                p50(secs.get("java").subList(1, secs.get("java").size())));
        System.out.println("tuned (librdkafka: ours via source.consumer.*, and the C floor): " + TUNED_LIBRDKAFKA
                + " + fetch.wait.max.ms=100 (C floor; ours sets it itself)");
        System.out.println("tuned (Java consumer via source.consumer.*): " + TUNED_JAVA);
        System.out.println(countsOk ? "LOAD OK: every reader read " + records + " records"
                : "LOAD FAILED: a reader read a different number of records");
        System.exit(countsOk ? 0 : 1);
    }

    /** One Java start-up load: construction to {@code start(true)} returning. */
    private static Result java(String bootstrap, Map<String, String> consumerOverrides) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "MirrorCheckpointConnector");
        props.put("connector.class", "org.apache.kafka.connect.mirror.MirrorCheckpointConnector");
        props.put("source.cluster.alias", SOURCE);
        props.put("target.cluster.alias", TARGET);
        props.put("source.cluster.bootstrap.servers", bootstrap);
        props.put("target.cluster.bootstrap.servers", bootstrap);
        props.put("task.assigned.groups", "load-group");
        props.put("task.index", "0");
        props.put("checkpoints.topic.replication.factor", "1");
        consumerOverrides.forEach((k, v) -> props.put("source.consumer." + k, v));
        MirrorCheckpointConfig config = new MirrorCheckpointConfig(props);
        long t0 = System.nanoTime();
        CountingStore store = new CountingStore(config);
        store.start(true);
        long elapsed = System.nanoTime() - t0;
        store.close();
        return new Result(store.records.get(), elapsed / 1e9);
    }

    /** Java's store, counting what its KafkaBasedLog hands it. */
    private static final class CountingStore extends OffsetSyncStore {
        final AtomicLong records = new AtomicLong();

        CountingStore(MirrorCheckpointConfig config) {
            super(config);
        }

        @Override
        protected void handleRecord(ConsumerRecord<byte[], byte[]> record) {
            records.incrementAndGet();
            super.handleRecord(record);
        }
    }

    private static void createTopic(String bootstrap) throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(c)) {
            // As MM2 creates it: one partition, compacted (nothing is compacted within a run).
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(command + " exited with " + p.exitValue() + ": " + out);
        }
        return out;
    }

    private static final class Result {
        final long records;
        final double secs;

        Result(long records, double secs) {
            this.records = records;
            this.secs = secs;
        }
    }

    private static Result parse(String out) {
        for (String line : out.split("\n")) {
            if (line.startsWith("RESULT ")) {
                Map<String, String> kv = new HashMap<>();
                for (String f : line.substring(7).trim().split(" ")) {
                    int eq = f.indexOf('=');
                    kv.put(f.substring(0, eq), f.substring(eq + 1));
                }
                return new Result(Long.parseLong(kv.get("records")), Double.parseDouble(kv.get("secs")));
            }
        }
        throw new IllegalStateException("no RESULT line in: " + out);
    }

    private static void row(String reader, String settings, List<Double> s, long records, String vsFloor, String javaVsOurs) {
        List<Double> sorted = new ArrayList<>(s);
        Collections.sort(sorted);
        double p50 = p50(s);
        System.out.printf("| %s | %s | %.3f (%.3f–%.3f) | %s | %s | %s |%n", reader, settings, p50, sorted.get(0),
                sorted.get(sorted.size() - 1), rate(records / p50), vsFloor, javaVsOurs);
    }

    private static String rate(double perSec) {
        return perSec >= 1e6 ? String.format("%.2f M", perSec / 1e6) : String.format("%.0f k", perSec / 1e3);
    }

    /** Median (nearest rank, lower middle for an even count). */
    private static double p50(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
