package mm2interop;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.Checkpoint;
import org.apache.kafka.connect.mirror.InteropAccess;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The offsets-source benchmarks on Java MM2's side (scripts/bench-offsets-source.sh runs them):
 *
 * <ul>
 * <li>{@code populate BOOTSTRAP FROM TO}: with FROM = 0 also topic {@code orders} (1 partition)
 * and the offset syncs 0→0 and 50→50 in {@code mm2-offset-syncs.B.internal}; then groups
 * {@code bench-NNNNNN}, FROM ≤ N &lt; TO, commit 60 on {@code orders}-0 (one admin client, 256
 * requests in flight).</li>
 * <li>{@code hold SOURCE TARGET ALIAS GROUPS [KEY=VALUE...]}: the real MirrorCheckpointConnector
 * and one MirrorCheckpointTask (JavaCheckpointer) over {@code bench-.*}; prints
 * {@code emitted N} whenever N (checkpoints produced so far) changes, and this JVM's CPU
 * seconds; runs until killed.</li>
 * <li>{@code latency BOOTSTRAP ALIAS INTERVAL SAMPLES}: commit → checkpoint latency, as
 * examples/bench/latency.rs measures ours: SAMPLES groups first commit 10, then, once each has
 * its checkpoint, commit 60 one after another spread evenly over max(INTERVAL, 20 s); a
 * latency is from just before the commit request to the return of the task's poll that
 * returned the group's checkpoint of 60. One broker plays both clusters.</li>
 * <li>{@code requests JMX_PORT}: the source broker's request count, the sum of the Count of
 * every {@code kafka.network:type=RequestMetrics,name=RequestsPerSec} MBean but FetchConsumer
 * and FetchFollower (the broker counts each Fetch under one of them too); then the count per
 * request type.</li>
 * </ul>
 */
public final class OffsetsSourceBench {
    private OffsetsSourceBench() {}

    static final String SYNCS = "mm2-offset-syncs.B.internal";

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "populate" -> populate(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            case "hold" -> hold(args);
            case "latency" -> latency(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "requests" -> System.out.println(requests(Integer.parseInt(args[1])));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.exit(0);
    }

    static String group(int i) {
        return String.format("bench-%06d", i);
    }

    static void populate(String bootstrap, int from, int to) throws Exception {
        TopicPartition tp = new TopicPartition("orders", 0);
        try (Admin admin = Kafka.admin(bootstrap)) {
            if (from == 0) {
                Kafka.createTopic(admin, "orders", 1, Map.of());
                Kafka.createTopic(admin, SYNCS, 1, Map.of("cleanup.policy", "compact"));
                produceSyncs(bootstrap, SYNCS, tp);
            }
            commitAll(admin, to - from, i -> group(from + i), tp, 60);
        }
    }

    static void produceSyncs(String bootstrap, String topic, TopicPartition tp) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = Kafka.producer(bootstrap, null)) {
            for (long[] s : new long[][] {{0, 0}, {50, 50}}) {
                producer.send(new ProducerRecord<>(topic, 0, InteropAccess.offsetSyncKey(tp, s[0], s[1]),
                        InteropAccess.offsetSyncValue(tp, s[0], s[1]))).get(30, TimeUnit.SECONDS);
            }
        }
    }

    static void commitAll(Admin admin, int groups, java.util.function.IntFunction<String> name, TopicPartition tp,
            long offset) throws Exception {
        long t0 = System.nanoTime();
        List<KafkaFuture<Void>> inFlight = new ArrayList<>();
        for (int i = 0; i < groups; i++) {
            inFlight.add(admin.alterConsumerGroupOffsets(name.apply(i), Map.of(tp, new OffsetAndMetadata(offset)))
                    .all());
            if (inFlight.size() == 256) {
                for (KafkaFuture<Void> f : inFlight) {
                    f.get(120, TimeUnit.SECONDS);
                }
                inFlight.clear();
            }
        }
        for (KafkaFuture<Void> f : inFlight) {
            f.get(120, TimeUnit.SECONDS);
        }
        System.err.printf("committed %d groups in %.1f s%n", groups, (System.nanoTime() - t0) / 1e9);
    }

    static Map<String, String> connectorProps(String source, String target, String alias, String sourceAlias) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("name", "MirrorCheckpointConnector");
        p.put("connector.class", "org.apache.kafka.connect.mirror.MirrorCheckpointConnector");
        p.put("source.cluster.alias", sourceAlias);
        p.put("target.cluster.alias", alias);
        p.put("source.cluster.bootstrap.servers", source);
        p.put("target.cluster.bootstrap.servers", target);
        p.put("checkpoints.topic.replication.factor", "1");
        p.put("offset-syncs.topic.replication.factor", "1");
        return p;
    }

    static void hold(String[] args) throws Exception {
        Map<String, String> props = connectorProps(args[1], args[2], "B", args[3]);
        props.put("groups", "bench-.*");
        props.put("topics", "orders");
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            props.put(kv[0], kv[1]);
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (JavaCheckpointer java = new JavaCheckpointer(props, args[2])) {
            long shown = -1;
            while (java.errors.isEmpty()) {
                long now = java.emitted();
                if (now != shown) {
                    shown = now;
                    System.out.printf("emitted %d (cpu %.1f s)%n", now, os.getProcessCpuTime() / 1e9);
                    System.out.flush();
                }
                Thread.sleep(500);
            }
            throw new IllegalStateException("Java's checkpointing failed: " + java.errors);
        }
    }

    static void latency(String bootstrap, String alias, int interval, int samples) throws Exception {
        String topic = alias + "-orders";
        TopicPartition tp = new TopicPartition(topic, 0);
        String target = alias + "t";
        java.util.function.IntFunction<String> name = i -> String.format("%s-g%03d", alias, i);
        try (Admin admin = Kafka.admin(bootstrap)) {
            Kafka.createTopic(admin, topic, 1, Map.of());
            Kafka.createTopic(admin, "mm2-offset-syncs." + target + ".internal", 1, Map.of("cleanup.policy", "compact"));
            produceSyncs(bootstrap, "mm2-offset-syncs." + target + ".internal", tp);
            commitAll(admin, samples, name, tp, 10);
            Map<String, String> props = connectorProps(bootstrap, bootstrap, target, alias);
            props.put("groups", alias + "-.*");
            props.put("topics", topic);
            props.put("emit.checkpoints.interval.seconds", Integer.toString(interval));
            Set<String> first = ConcurrentHashMap.newKeySet();
            Map<String, Long> committedAt = new ConcurrentHashMap<>();
            List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
            Set<String> seen = ConcurrentHashMap.newKeySet();
            try (JavaCheckpointer java = new JavaCheckpointer(props, bootstrap, (record, polledAt) -> {
                Checkpoint cp = Checkpoint.deserializeRecord(new ConsumerRecord<>(record.topic(), 0, 0L,
                        (byte[]) record.key(), (byte[]) record.value()));
                if (cp.upstreamOffset() == 10) {
                    first.add(cp.consumerGroupId());
                } else if (cp.upstreamOffset() == 60) {
                    Long at = committedAt.get(cp.consumerGroupId());
                    if (at != null && seen.add(cp.consumerGroupId())) {
                        latencies.add((polledAt - at) / 1e6);
                    }
                }
            })) {
                if (!Kafka.await(Duration.ofSeconds(interval * 3L + 120), () -> first.size() == samples)) {
                    throw new IllegalStateException("first checkpoints: " + first.size() + " of " + samples
                            + "; errors " + java.errors);
                }
                long spacing = TimeUnit.SECONDS.toNanos(Math.max(interval, 20)) / samples;
                long start = System.nanoTime();
                for (int i = 0; i < samples; i++) {
                    long wait = start + spacing * i - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    String g = name.apply(i);
                    // Noted before the request, so a checkpoint is never seen before its commit.
                    committedAt.put(g, System.nanoTime());
                    admin.alterConsumerGroupOffsets(g, Map.of(tp, new OffsetAndMetadata(60))).all()
                            .get(60, TimeUnit.SECONDS);
                }
                Kafka.await(Duration.ofSeconds(interval * 2L + 30), () -> latencies.size() == samples);
            }
            List<Double> sorted = new ArrayList<>(latencies);
            Collections.sort(sorted);
            System.out.printf("latency java interval=%d samples=%d p50=%.0f p99=%.0f max=%.0f%n", interval,
                    sorted.size(), pct(sorted, 50), pct(sorted, 99), sorted.isEmpty() ? Double.NaN
                            : sorted.get(sorted.size() - 1));
        }
    }

    /** Nearest-rank percentile, as the Rust bench's Dist computes it. */
    static double pct(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    static String requests(int jmxPort) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection mbs = c.getMBeanServerConnection();
            Map<String, Long> byType = new TreeMap<>();
            long total = 0;
            for (ObjectName n : mbs.queryNames(
                    new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                long count = ((Number) mbs.getAttribute(n, "Count")).longValue();
                String type = n.getKeyProperty("request");
                // The broker counts every Fetch twice: as Fetch and as FetchConsumer or
                // FetchFollower (by sender); the total counts it once.
                if (!type.equals("FetchConsumer") && !type.equals("FetchFollower")) {
                    total += count;
                }
                byType.merge(type, count, Long::sum);
            }
            StringBuilder out = new StringBuilder("total=" + total);
            byType.forEach((k, v) -> out.append(' ').append(k).append('=').append(v));
            return out.toString();
        }
    }
}
