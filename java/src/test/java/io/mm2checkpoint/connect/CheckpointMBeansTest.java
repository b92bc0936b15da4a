package io.mm2checkpoint.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mm2checkpoint.Diagnostics;
import io.mm2checkpoint.EmbeddedClusters;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.MetricsSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connector's MBeans in this JVM's platform MBean server: named as Java MM2 names its
 * {@code checkpoint-latency-ms} MBeans, following each reading, and all gone once the task stops.
 * (ConnectTest compares them with Java's own connector over JMX in real workers.)
 */
@Timeout(120)
public final class CheckpointMBeansTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final List<String> JAVA_ATTRIBUTES = List.of("checkpoint-latency-ms", "checkpoint-latency-ms-avg",
            "checkpoint-latency-ms-max", "checkpoint-latency-ms-min");

    private static String document() throws IOException {
        try (InputStream in = CheckpointMBeansTest.class.getResourceAsStream("/io/mm2checkpoint/metrics-document-v1.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The MBeans of {@code source}'s checkpoint latency, as canonical names. */
    private static Set<String> names(String source) throws Exception {
        return SERVER.queryNames(new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source="
                + source + ",*"), null).stream().map(ObjectName::getCanonicalName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Every MBean of {@code source}, of any type, as canonical names. */
    private static Set<String> allNames(String source) throws Exception {
        return SERVER.queryNames(new ObjectName("kafka.connect.mirror:source=" + source + ",*"), null).stream()
                .map(ObjectName::getCanonicalName).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    public void mbeansCarryJavaMm2sNamesAndFollowEachReading() throws Exception {
        String doc = document().replace("\"east\"", "\"east-jmx\"").replace("east.orders", "east-jmx.orders");
        MetricsSnapshot first = MetricsSnapshot.fromJson(doc);
        ObjectName billing = new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source=east-jmx,"
                + "target=west,group=billing,topic=east-jmx.orders,partition=0");
        // A group name JMX cannot carry bare is quoted, as Kafka's JmxReporter quotes Java's.
        ObjectName odd = new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source=east-jmx,"
                + "target=west,group=" + ObjectName.quote("a,b=c:d") + ",topic=east-jmx.orders,partition=1");
        try (CheckpointMetricsJmx jmx = new CheckpointMetricsJmx("east-jmx", "west")) {
            jmx.update(first);
            assertEquals(new TreeSet<>(List.of(billing.getCanonicalName(), odd.getCanonicalName())), names("east-jmx"),
                    "one MBean per group x checkpointed partition");
            // The key order is Java's: dashboards' patterns match the name as written.
            Set<String> written = SERVER.queryNames(billing, null).stream().map(ObjectName::toString)
                    .collect(Collectors.toSet());
            assertEquals(Set.of(billing.toString()), written, "the name with its keys in Java's order");
            List<String> attributes = new java.util.ArrayList<>();
            for (MBeanAttributeInfo a : SERVER.getMBeanInfo(billing).getAttributes()) {
                attributes.add(a.getName());
                assertEquals("double", a.getType(), a.getName() + "'s type, as Java's");
            }
            attributes.sort(null);
            assertEquals(JAVA_ATTRIBUTES, attributes, "Java's attribute names");
            assertEquals(21.0, SERVER.getAttribute(billing, "checkpoint-latency-ms"));
            assertEquals(4.5, SERVER.getAttribute(billing, "checkpoint-latency-ms-min"));
            assertEquals(30.0, SERVER.getAttribute(billing, "checkpoint-latency-ms-max"));
            assertEquals(18.25, SERVER.getAttribute(billing, "checkpoint-latency-ms-avg"));
            assertEquals(0.0, SERVER.getAttribute(odd, "checkpoint-latency-ms"), "no latency recorded yet");
            assertTrue(Double.isNaN((Double) SERVER.getAttribute(odd, "checkpoint-latency-ms-max")),
                    "an empty window reads NaN, as Java's");

            // The next reading: billing's latency moved on, the odd group is gone.
            MetricsSnapshot.CheckpointLatency moved = new MetricsSnapshot.CheckpointLatency("billing",
                    "east-jmx.orders", 0, 9.0, OptionalDouble.of(4.5), OptionalDouble.of(30.0), OptionalDouble.of(15.0));
            jmx.update(new MetricsSnapshot(1, first.source(), first.target(), first.time(), first.task(),
                    List.of(moved), first.partitions()));
            assertEquals(Set.of(billing.getCanonicalName()), names("east-jmx"), "the gone group's MBean unregistered");
            assertEquals(9.0, SERVER.getAttribute(billing, "checkpoint-latency-ms"), "the new value");
            assertEquals(1 + 2, jmx.size(), "MBeans shown: one latency, two partitions");

            // Ours beside Java's: freshness and the replay bound per group x upstream partition.
            ObjectName partition = new ObjectName("kafka.connect.mirror:type=mm2-checkpoint-partition-metrics,"
                    + "source=east-jmx,target=west,group=billing,topic=orders,partition=0");
            assertEquals(950.5, SERVER.getAttribute(partition, "freshness-ms"));
            assertEquals(50.0, SERVER.getAttribute(partition, "replay-bound-records"));
            ObjectName unknown = new ObjectName("kafka.connect.mirror:type=mm2-checkpoint-partition-metrics,"
                    + "source=east-jmx,target=west,group=" + ObjectName.quote("a,b=c:d") + ",topic=orders,partition=1");
            assertTrue(Double.isNaN((Double) SERVER.getAttribute(unknown, "replay-bound-records")),
                    "an unknown replay bound reads NaN");
        }
        assertEquals(Set.of(), allNames("east-jmx"), "no MBean left after close");
    }

    /**
     * The connector's task on embedded clusters: once a cycle wrote a checkpoint, its MBean is
     * registered under Java's name; the task's stop leaves no MBean of it behind.
     */
    @Test
    public void theTaskRegistersItsMBeansAndItsStopLeavesNone() throws Exception {
        String source = "mbeans" + UUID.randomUUID().toString().substring(0, 8);
        try (EmbeddedClusters clusters = new EmbeddedClusters()) {
            clusters.createTopic(Side.SOURCE, "orders", 1);
            clusters.createTopic(Side.SOURCE, "mm2-offset-syncs.target.internal", 1);
            clusters.createTopic(Side.TARGET, source + ".orders", 1);
            clusters.createTopic(Side.TARGET, source + ".checkpoints.internal", 1);
            clusters.produceOffsetSyncs(Side.SOURCE, "mm2-offset-syncs.target.internal", "orders", 0,
                    new long[] {0, 100}, new long[] {0, 90});
            clusters.commitOffset(Side.SOURCE, "g1", "orders", 0, 150, "");
            Map<String, String> props = new HashMap<>();
            props.put("source.cluster.alias", source);
            props.put("target.cluster.alias", "target");
            props.put("source.cluster.bootstrap.servers", clusters.bootstrap(Side.SOURCE));
            props.put("target.cluster.bootstrap.servers", clusters.bootstrap(Side.TARGET));
            // The embedded clusters cannot list groups: the group is given, as Java's connector gives it.
            props.put("task.assigned.groups", "g1");
            props.put("emit.checkpoints.interval.seconds", "1");
            props.put(NativeMirrorCheckpointConnector.TASK_INDEX, "0");
            props.put(NativeMirrorCheckpointConnector.TASK_COUNT, "1");
            String expected = new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source=" + source
                    + ",target=target,group=g1,topic=" + source + ".orders,partition=0").getCanonicalName();
            NativeMirrorCheckpointTask task = new NativeMirrorCheckpointTask();
            task.start(props);
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!names(source).contains(expected)) {
                    assertTrue(System.nanoTime() < deadline, "no MBean " + expected + " within 60 s; " + names(source));
                    task.poll();
                }
                assertEquals(Set.of(expected), names(source), "the task's Java-named MBeans");
                ObjectName partition = new ObjectName("kafka.connect.mirror:type=mm2-checkpoint-partition-metrics,"
                        + "source=" + source + ",target=target,group=g1,topic=orders,partition=0");
                assertEquals(50.0, SERVER.getAttribute(partition, "replay-bound-records"),
                        "committed 150, translated through the sync at 100");
            } finally {
                task.stop();
            }
            assertEquals(Set.of(), allNames(source), "MBeans left after the task's stop");
            assertEquals(0L, Diagnostics.liveClients(), "live library clients after the stop");
        }
    }
}
