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

    /** The test document's reading with source alias {@code source} (and its remote topic renamed). */
    private static MetricsSnapshot readingOf(String source) throws Exception {
        return MetricsSnapshot.fromJson(document().replace("\"east\"", "\"" + source + "\"")
                .replace("east.orders", source + ".orders"));
    }

    /** Java MM2's name of billing's latency MBean for partition 0 of that reading. */
    private static ObjectName billingOf(String source) throws Exception {
        return new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source=" + source
                + ",target=west,group=billing,topic=" + source + ".orders,partition=0");
    }

    /**
     * Java's connector with the same aliases on the same worker shares these names; its removal
     * unregisters them. The next update registers them again, with the same values.
     */
    @Test
    public void anMBeanSomeoneElseUnregisteredIsRegisteredAgainAtTheNextUpdate() throws Exception {
        MetricsSnapshot reading = readingOf("east-again");
        ObjectName billing = billingOf("east-again");
        try (CheckpointMetricsJmx jmx = new CheckpointMetricsJmx("east-again", "west", "c", "0")) {
            jmx.update(reading);
            assertTrue(SERVER.isRegistered(billing), "registered by the first update");
            Object before = SERVER.getAttribute(billing, "checkpoint-latency-ms");
            int registered = allNames("east-again").size();
            SERVER.unregisterMBean(billing);
            assertTrue(!SERVER.isRegistered(billing), "unregistered by someone else");
            jmx.update(reading);
            assertTrue(SERVER.isRegistered(billing), "registered again by the next update");
            assertEquals(before, SERVER.getAttribute(billing, "checkpoint-latency-ms"), "the same value");
            assertEquals(registered, allNames("east-again").size(), "no other MBean added or lost");
            assertEquals(1L, jmx.reregistered(), "counted once");
            jmx.update(reading);
            assertEquals(1L, jmx.reregistered(), "nothing to do while it is there");
        }
        assertEquals(Set.of(), allNames("east-again"), "all gone after close");
    }

    @Test
    public void mbeansCarryJavaMm2sNamesAndFollowEachReading() throws Exception {
        MetricsSnapshot first = readingOf("east-jmx");
        ObjectName billing = billingOf("east-jmx");
        // A group name JMX cannot carry bare is quoted, as Kafka's JmxReporter quotes Java's.
        ObjectName odd = new ObjectName("kafka.connect.mirror:type=MirrorCheckpointConnector,source=east-jmx,"
                + "target=west,group=" + ObjectName.quote("a,b=c:d") + ",topic=east-jmx.orders,partition=1");
        try (CheckpointMetricsJmx jmx = new CheckpointMetricsJmx("east-jmx", "west", "c", "0")) {
            jmx.update(first);
            assertEquals(new TreeSet<>(List.of(billing.getCanonicalName(), odd.getCanonicalName())), names("east-jmx"),
                    "one MBean per group x checkpointed partition");
            // Every name, the quoted one too, is found where the reporter put it: nothing to redo.
            jmx.update(first);
            assertEquals(0L, jmx.reregistered(), "MBeans registered again though none went missing");
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
            assertEquals(1 + 2 + 1, jmx.size(), "MBeans shown: one latency, two partitions, the task's");

            // The task's own MBean: what it is doing as a whole.
            ObjectName whole = new ObjectName("kafka.connect.mirror:type=mm2-checkpoint-task-metrics,"
                    + "source=east-jmx,target=west,connector=c,task=0");
            assertEquals(1.0, SERVER.getAttribute(whole, "initialized"));
            assertEquals("", SERVER.getAttribute(whole, "retry-reason"), "nothing retried");
            assertEquals(0.0, SERVER.getAttribute(whole, "retrying-for-ms"));
            assertEquals(40.0, SERVER.getAttribute(whole, "cycles"));
            assertEquals(1.0, SERVER.getAttribute(whole, "cycles-failed"));
            assertEquals(480.0, SERVER.getAttribute(whole, "since-last-successful-cycle-ms"));
            assertEquals(3.0, SERVER.getAttribute(whole, "offset-sync-lag"));
            assertEquals(77.0, SERVER.getAttribute(whole, "checkpoints-emitted"));
            assertEquals(2.0, SERVER.getAttribute(whole, "groups"));

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
     * A task that cannot reach its source has its task-wide MBean from its first poll on, before
     * any checkpoint: not initialized, and the retry reason names the cluster. Gone after stop.
     */
    @Test
    public void aTaskThatCannotReachItsSourceShowsItInItsTaskMBean() throws Exception {
        String source = "unreach" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> props = new HashMap<>();
        props.put("source.cluster.alias", source);
        props.put("target.cluster.alias", "target");
        // Nothing listens on port 1.
        props.put("source.cluster.bootstrap.servers", "127.0.0.1:1");
        props.put("target.cluster.bootstrap.servers", "127.0.0.1:1");
        props.put("task.assigned.groups", "g1");
        props.put(NativeMirrorCheckpointConnector.TASK_INDEX, "0");
        props.put(NativeMirrorCheckpointConnector.TASK_COUNT, "1");
        props.put("name", "unreachable");
        ObjectName whole = new ObjectName("kafka.connect.mirror:type=mm2-checkpoint-task-metrics,source=" + source
                + ",target=target,connector=unreachable,task=0");
        NativeMirrorCheckpointTask task = new NativeMirrorCheckpointTask();
        task.start(props);
        try {
            task.poll();
            assertTrue(SERVER.isRegistered(whole), "the task's MBean after its first poll; " + allNames(source));
            assertEquals(0.0, SERVER.getAttribute(whole, "initialized"));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (((String) SERVER.getAttribute(whole, "retry-reason")).isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "no retry reason within 60 s");
                task.poll();
            }
            String reason = (String) SERVER.getAttribute(whole, "retry-reason");
            assertTrue(reason.contains(source) || reason.contains("127.0.0.1:1"), "the reason names the cluster: " + reason);
            assertEquals(Set.of(), names(source), "no checkpoint, so no latency MBean");
        } finally {
            task.stop();
        }
        assertEquals(Set.of(), allNames(source), "MBeans left after the task's stop");
    }

    /**
     * With {@code fail.task.after.no.progress.ms}, a task that cannot reach its clusters fails
     * (Connect then shows it FAILED) once that long passed without a good cycle, naming the key.
     */
    @Test
    public void aTaskWithoutProgressFailsAfterTheTimeItWasGiven() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("source.cluster.alias", "stalled" + UUID.randomUUID().toString().substring(0, 8));
        props.put("source.cluster.bootstrap.servers", "127.0.0.1:1");
        props.put("target.cluster.bootstrap.servers", "127.0.0.1:1");
        props.put("task.assigned.groups", "g1");
        props.put(ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS, "1500");
        props.put(NativeMirrorCheckpointConnector.TASK_INDEX, "0");
        props.put(NativeMirrorCheckpointConnector.TASK_COUNT, "1");
        NativeMirrorCheckpointTask task = new NativeMirrorCheckpointTask();
        long began = System.nanoTime();
        task.start(props);
        try {
            org.apache.kafka.connect.errors.ConnectException failed = null;
            long deadline = began + 60_000_000_000L;
            while (failed == null) {
                assertTrue(System.nanoTime() < deadline, "still running after 60 s");
                try {
                    task.poll();
                } catch (org.apache.kafka.connect.errors.ConnectException e) {
                    failed = e;
                }
            }
            long tookMs = (System.nanoTime() - began) / 1_000_000;
            assertTrue(tookMs >= 1500, "failed after " + tookMs + " ms, before the 1500 ms given");
            assertTrue(failed.getMessage().contains("no successful checkpoint cycle")
                    && failed.getMessage().contains(ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS), failed.getMessage());
        } finally {
            task.stop();
        }
        assertEquals(0L, Diagnostics.liveClients(), "live library clients after the stop");
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
