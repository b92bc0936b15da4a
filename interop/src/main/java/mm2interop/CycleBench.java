package mm2interop;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.mirror.InteropAccess;
import org.apache.kafka.connect.mirror.MirrorCheckpointTask;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The checkpoint cycle of Java MM2's MirrorCheckpointTask against ours, on the same
 * brokers and groups in one run. Seeds cluster A (source) with an offset-syncs topic for the 10
 * partitions of {@code orders} and G groups each committing an offset on all 10, so every
 * group-partition translates. Then, per size G and RUNS times: a fresh Java task (its own source
 * alias, hence its own empty checkpoints topic on B) is started the way Connect starts it, and
 * once both of its stores are loaded its first {@code poll()} is timed (it must return G x 10
 * records), then the records are sent and flushed as Connect's WorkerSourceTask would, then
 * STEADY further polls (nothing new: they must return null). After Java's runs of a size, ours
 * runs the same size (interop/cycle.rs) and prints its RESULT lines. Prints one markdown table.
 *
 * <p>Usage: CycleBench A_BOOTSTRAP B_BOOTSTRAP SIZES RUNS STEADY RUST_EXAMPLES_DIR.
 */
public final class CycleBench {
    private static final String SYNCS_TOPIC = "mm2-offset-syncs.B.internal";
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 10;

    public static void main(String[] args) throws Exception {
        String a = args[0], b = args[1];
        List<Integer> sizes = new ArrayList<>();
        for (String s : args[2].split(",")) {
            sizes.add(Integer.parseInt(s.trim()));
        }
        int runs = Integer.parseInt(args[3]);
        int steady = Integer.parseInt(args[4]);
        File bin = new File(args[5], "interop_cycle");
        int max = Collections.max(sizes);

        long seeded = seed(a, max);
        System.err.printf("cycle: seeded %d groups x %d partitions and %d offset syncs on A in %d ms%n",
                max, PARTITIONS, PARTITIONS * 11, seeded);

        Map<Integer, Map<String, List<Double>>> results = new TreeMap<>();
        for (int g : sizes) {
            Map<String, List<Double>> r = new LinkedHashMap<>();
            for (int run = 0; run < runs; run++) {
                runJava(a, b, g, run, steady, r);
            }
            runOurs(bin, a, b, g, runs, steady, r);
            results.put(g, r);
        }
        System.out.println();
        System.out.println("checkpoint cycle, groups x " + PARTITIONS + " partitions; p50 (min-max) in ms over "
                + runs + " first cycles / " + runs * steady + " steady cycles per cell; Java = Java MM2 4.3.1"
                + " MirrorCheckpointTask, ours = mm2-checkpoint CheckpointTask");
        System.out.println();
        System.out.println("| groups | cycle | Java poll() | Java poll() + send + flush | ours | Java ÷ ours"
                + " | raw librdkafka floor: 1 client, 256 OffsetFetch in flight | same over 4 clients"
                + " | < 1 s (ours) | ≥ 3× (Java ÷ ours) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (Map.Entry<Integer, Map<String, List<Double>>> e : results.entrySet()) {
            Map<String, List<Double>> r = e.getValue();
            double javaFirst = p50(r.get("java-first-total"));
            double oursFirst = p50(r.get("first"));
            double javaSteady = p50(r.get("java-steady"));
            double oursSteady = p50(r.get("steady"));
            System.out.printf("| %,d | first (emits all) | %s | %s | %s | %.1f× | %s | %s | %s | %s |%n",
                    e.getKey(), cell(r.get("java-first-poll")), cell(r.get("java-first-total")),
                    cell(r.get("first")), javaFirst / oursFirst, cell(r.get("floor")), cell(r.get("floor4")),
                    verdict(oursFirst < 1000),
                    verdict(javaFirst / oursFirst >= 3));
            System.out.printf("| %,d | steady (nothing new) | %s | — | %s | %.1f× | | | %s | %s |%n", e.getKey(),
                    cell(r.get("java-steady")), cell(r.get("steady")), javaSteady / oursSteady,
                    verdict(oursSteady < 1000), verdict(javaSteady / oursSteady >= 3));
        }
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**missed**";
    }

    // ------------------------------------------------------------------ seeding

    static String group(int i) {
        return String.format("cycle-group-%05d", i);
    }

    private static long seed(String a, int groups) throws Exception {
        long t0 = System.nanoTime();
        try (Admin admin = Kafka.admin(a)) {
            Kafka.createTopic(admin, SYNCS_TOPIC, 1, Map.of("cleanup.policy", "compact"));
            Kafka.createTopic(admin, TOPIC, PARTITIONS, Map.of());
            Map<String, Object> cfg = new HashMap<>();
            cfg.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a);
            cfg.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(cfg, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                // MirrorSourceTask's syncs for 11 positions of each partition: upstream i*100
                // at downstream i*100+5.
                for (int i = 0; i <= 10; i++) {
                    for (int part = 0; part < PARTITIONS; part++) {
                        TopicPartition tp = new TopicPartition(TOPIC, part);
                        long up = 100L * i, down = 100L * i + 5;
                        p.send(new ProducerRecord<>(SYNCS_TOPIC, 0, InteropAccess.offsetSyncKey(tp, up, down),
                                InteropAccess.offsetSyncValue(tp, up, down)));
                    }
                }
                p.flush();
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (int part = 0; part < PARTITIONS; part++) {
                offsets.put(new TopicPartition(TOPIC, part), new OffsetAndMetadata(500L + 10L * part));
            }
            // At most 256 commits outstanding.
            List<KafkaFuture<Void>> inFlight = new ArrayList<>();
            for (int i = 0; i < groups; i++) {
                inFlight.add(admin.alterConsumerGroupOffsets(group(i), offsets).all());
                if (inFlight.size() == 256) {
                    for (KafkaFuture<Void> f : inFlight) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                    inFlight.clear();
                }
            }
            for (KafkaFuture<Void> f : inFlight) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    // ------------------------------------------------------------------ Java

    private static void runJava(String a, String b, int groups, int run, int steady,
            Map<String, List<Double>> out) throws Exception {
        String alias = "j" + groups + "x" + run;
        StringBuilder assigned = new StringBuilder();
        for (int i = 0; i < groups; i++) {
            if (i > 0) {
                assigned.append(',');
            }
            assigned.append(group(i));
        }
        Map<String, String> props = new LinkedHashMap<>();
        props.put("name", "MirrorCheckpointConnector");
        props.put("connector.class", "org.apache.kafka.connect.mirror.MirrorCheckpointConnector");
        props.put("source.cluster.alias", alias);
        props.put("target.cluster.alias", "B");
        props.put("source.cluster.bootstrap.servers", a);
        props.put("target.cluster.bootstrap.servers", b);
        props.put("task.assigned.groups", assigned.toString());
        props.put("task.index", "0");
        // 0: poll() does not wait for the next interval (the default 60 s would be slept first).
        props.put("emit.checkpoints.interval.seconds", "0");
        props.put("checkpoints.topic.replication.factor", "1");
        String checkpointsTopic = alias + ".checkpoints.internal";
        try (Admin admin = Kafka.admin(b)) {
            // Connect's MirrorCheckpointConnector creates it before tasks start.
            Kafka.createTopic(admin, checkpointsTopic, 1, Map.of("cleanup.policy", "compact"));
        }
        MirrorCheckpointTask task = new MirrorCheckpointTask();
        task.initialize(Kafka.taskContext(props, null));
        // WorkerSourceTask's producer settings (acks=all, one request in flight per connection).
        Map<String, Object> pc = new HashMap<>();
        pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b);
        pc.put(ProducerConfig.ACKS_CONFIG, "all");
        pc.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pc, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.partitionsFor(checkpointsTopic); // metadata fetched before the timing, as in a running worker
            task.start(props);
            try {
                // The task offers no notification; its stores' flags are read every millisecond.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!loaded(task)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("Java task did not load its stores");
                    }
                    Thread.sleep(1);
                }
                long t0 = System.nanoTime();
                List<SourceRecord> records = task.poll();
                long t1 = System.nanoTime();
                int n = records == null ? 0 : records.size();
                if (n != groups * PARTITIONS) {
                    throw new IllegalStateException("Java's first cycle over " + groups + " groups returned " + n
                            + " records, expected " + groups * PARTITIONS);
                }
                for (SourceRecord r : records) {
                    producer.send(new ProducerRecord<>(r.topic(), r.kafkaPartition(), r.timestamp(),
                            (byte[]) r.key(), (byte[]) r.value()));
                }
                producer.flush();
                long t2 = System.nanoTime();
                add(out, "java-first-poll", (t1 - t0) / 1e6);
                add(out, "java-first-total", (t2 - t0) / 1e6);
                for (int i = 0; i < steady; i++) {
                    long s0 = System.nanoTime();
                    List<SourceRecord> again = task.poll();
                    long s1 = System.nanoTime();
                    if (again != null) {
                        throw new IllegalStateException("Java's steady cycle returned " + again.size() + " records");
                    }
                    add(out, "java-steady", (s1 - s0) / 1e6);
                }
                System.err.printf("cycle: Java %d groups, run %d: first poll %.1f ms, + send + flush %.1f ms%n",
                        groups, run, (t1 - t0) / 1e6, (t2 - t0) / 1e6);
            } finally {
                task.stop();
            }
        }
    }

    /** Both stores loaded: the checkpoints store (poll's own check) and the offset-sync store. */
    private static boolean loaded(MirrorCheckpointTask task) throws ReflectiveOperationException {
        Object checkpoints = field(task, MirrorCheckpointTask.class, "checkpointStore");
        Object syncs = field(task, MirrorCheckpointTask.class, "offsetSyncStore");
        if (checkpoints == null || syncs == null) {
            return false;
        }
        java.lang.reflect.Method initialized = checkpoints.getClass().getDeclaredMethod("isInitialized");
        initialized.setAccessible(true);
        boolean readToEnd = (Boolean) field(syncs, syncs.getClass(), "readToEnd");
        return (Boolean) initialized.invoke(checkpoints) && readToEnd;
    }

    private static Object field(Object o, Class<?> c, String name) throws ReflectiveOperationException {
        java.lang.reflect.Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    // ------------------------------------------------------------------ ours

    private static void runOurs(File bin, String a, String b, int groups, int runs, int steady,
            Map<String, List<Double>> out) throws Exception {
        Process p = new ProcessBuilder(bin.getPath(), a, b, Integer.toString(groups), Integer.toString(runs),
                Integer.toString(steady)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        int lines = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("RESULT ")) {
                    continue;
                }
                Map<String, String> kv = new HashMap<>();
                for (String part : line.substring(7).split(" ")) {
                    int eq = part.indexOf('=');
                    kv.put(part.substring(0, eq), part.substring(eq + 1));
                }
                add(out, kv.get("kind"), Double.parseDouble(kv.get("ms")));
                lines++;
            }
        }
        int exit = p.waitFor();
        if (exit != 0 || lines != runs * (3 + steady)) {
            throw new IllegalStateException("interop_cycle exited " + exit + " after " + lines + " RESULT lines");
        }
    }

    // ------------------------------------------------------------------ statistics

    private static void add(Map<String, List<Double>> out, String key, double ms) {
        out.computeIfAbsent(key, k -> new ArrayList<>()).add(ms);
    }

    /** Median (the lower middle one for an even count). */
    static double p50(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get((s.size() - 1) / 2);
    }

    private static String cell(List<Double> xs) {
        return String.format("%s (%s–%s)", ms(p50(xs)), ms(Collections.min(xs)), ms(Collections.max(xs)));
    }

    private static String ms(double v) {
        return v >= 100 ? String.format("%,.0f", v) : String.format("%.1f", v);
    }
}
