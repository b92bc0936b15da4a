package io.mm2checkpoint.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The connector in a real Kafka Connect cluster: two distributed workers (separate JVMs,
 * {@code ConnectDistributed}) on a real Kafka broker, the connector installed through
 * {@code plugin.path} from the built jar. One broker serves as both the source and the target
 * cluster (the aliases keep their topics apart), which keeps the run within two cores.
 */
@Tag("connect")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
public final class ConnectTest {
    private static final String OURS = NativeMirrorCheckpointConnector.class.getName();
    private static final String JAVA_MM2 = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector";
    private static final Duration READY = Duration.ofSeconds(120);

    // Names unique to this run: the broker may be shared with other test runs (MM2_SHARED_BOOTSTRAP).
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final String src = "src" + run;
    private final String tgt = "tgt" + run;
    private final String orders = "orders-" + run;
    private final String syncs = "mm2-offset-syncs." + tgt + ".internal";
    private final String app1 = run + "-app-1";
    private final String app2 = run + "-app-2";
    private final String appGroups = run + "-app-.*";

    private KafkaBroker broker;
    private Admin admin;
    private final List<ConnectWorker> workers = new ArrayList<>();
    /** Whether the workers run with connect-mirror (Java's connectors) on their classpath. */
    private boolean mirrorWorkers;
    private Path work;

    @BeforeAll
    void startCluster() throws Exception {
        work = Path.of(System.getProperty("mm2checkpoint.workDir"), UUID.randomUUID().toString().substring(0, 8));
        Path plugins = work.resolve("plugins");
        Files.createDirectories(plugins.resolve("mm2-checkpoint"));
        Path jar = Path.of(System.getProperty("mm2checkpoint.jar"));
        Files.copy(jar, plugins.resolve("mm2-checkpoint").resolve(jar.getFileName()));
        broker = new KafkaBroker();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
        admin = Admin.create(p);
        admin.createTopics(List.of(new NewTopic(orders, 2, (short) 1), new NewTopic(syncs, 1, (short) 1))).all().get();
        produceSyncs(syncs, orders, 0, 0, 0, 100, 90);
        produceSyncs(syncs, orders, 1, 0, 0, 50, 40);

        // These workers run on Java 22+ when one is given (the connector then uses the
        // jar's Panama binding inside Connect); the JUnit JVM itself runs on Java 17 (JNI).
        startWorkers("connect-it-", Path.of(System.getProperty("mm2checkpoint.workerClasspath")),
                System.getProperty("mm2checkpoint.worker.java"), "w1", "w2");
    }

    private void startWorkers(String groupPrefix, Path classpath, String workerJava, String... names)
            throws IOException {
        String group = groupPrefix + UUID.randomUUID().toString().substring(0, 8);
        List<ConnectWorker> started = new ArrayList<>();
        for (String name : names) {
            started.add(new ConnectWorker(name, work.resolve(name), broker.bootstrap, group, work.resolve("plugins"),
                    classpath, workerJava));
        }
        workers.addAll(started);
        for (ConnectWorker w : started) {
            w.awaitReady(READY);
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        for (ConnectWorker w : workers) {
            w.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Connector-style MM2 configuration for this broker as both clusters. */
    private Map<String, String> mm2Config(String connectorClass, String sourceAlias, String targetAlias, String groups) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", connectorClass);
        c.put("tasks.max", "2");
        c.put("source.cluster.alias", sourceAlias);
        c.put("target.cluster.alias", targetAlias);
        c.put("source.cluster.bootstrap.servers", broker.bootstrap);
        c.put("target.cluster.bootstrap.servers", broker.bootstrap);
        c.put("groups", groups);
        c.put("emit.checkpoints.interval.seconds", "1");
        c.put("refresh.groups.interval.seconds", "2");
        c.put("checkpoints.topic.replication.factor", "1");
        c.put("offset-syncs.topic.replication.factor", "1");
        c.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        return c;
    }

    @Test
    @Order(1)
    void ourConnectorStartsFromPluginPathAndItsCheckpointsEqualTheNativeApis() throws Exception {
        commit(app1, Map.of(0, 150L, 1, 50L));
        commit(app2, Map.of(0, 100L));
        ConnectWorker w = workers.get(0);
        assertEquals(201, w.put("/connectors/ours/config", mm2Config(OURS, src, tgt, appGroups)).statusCode(),
                "connector created");
        awaitTasksRunning(w, "ours", 2);

        // Connect's validation asks the library too: a value only it judges is reported on its key.
        Map<String, String> bad = mm2Config(OURS, src, tgt, appGroups);
        bad.put("name", "ours-validated");
        bad.put("offset-syncs.topic.location", "Source");
        JsonNode validation = ConnectWorker.JSON.readTree(w.put("/connector-plugins/"
                + OURS.substring(OURS.lastIndexOf('.') + 1) + "/config/validate", bad).body());
        assertEquals(1, validation.get("error_count").asInt(), "validation errors: " + validation);
        assertTrue(validation.toString().contains("offset-syncs.topic.location")
                && validation.toString().contains("must be `source` or `target`"), "the key and reason: " + validation);

        Map<String, MirrorRecords.Checkpoint> expected = nativeCheckpoints(app1 + "," + app2);
        // 150 is past the sync 100 -> 90: one past 90, as MM2 translates.
        String remote = src + "." + orders;
        assertEquals("{" + app1 + "/" + remote + "-0=91, " + app1 + "/" + remote + "-1=40, " + app2 + "/" + remote + "-0=90}",
                expected.values().stream().collect(Collectors.toMap(MirrorRecords.Checkpoint::key,
                        MirrorRecords.Checkpoint::downstream, (a, b) -> b, TreeMap::new)).toString(),
                "the native API's checkpoints");
        ConnectWorker.await(READY, "the connector's checkpoints equal the native API's " + expected, () -> {
            Map<String, MirrorRecords.Checkpoint> got = latest(readCheckpoints(src + ".checkpoints.internal"));
            return sameOffsets(expected, got);
        });
        // Connect's own keys (name, connector.class, task.class, tasks.max, converters) are not
        // the user's mistake: the library never sees them, so it warns of none.
        List<String> unknown = new ArrayList<>();
        for (ConnectWorker x : workers) {
            since(x, new long[] {0, 0}).lines().filter(l -> l.contains("unknown key")).forEach(unknown::add);
        }
        assertEquals(List.of(), unknown, "unknown-key warnings in the workers' logs");
        // Each task's own MBean in its worker, over JMX: loaded, cycling, nothing retried.
        Map<String, List<String>> healthy = new TreeMap<>();
        ConnectWorker.await(READY, "both tasks' MBeans show them loaded and cycling", () -> {
            healthy.clear();
            healthy.putAll(taskMBeans("ours"));
            return healthy.size() == 2 && healthy.values().stream().allMatch(v -> attribute(v, "initialized").equals("1.0")
                    && Double.parseDouble(attribute(v, "cycles")) > 0 && attribute(v, "retry-reason").isEmpty());
        });
        System.out.println("healthy flow, the task MBeans over JMX:\n" + describeValues(healthy));
        String workerJava = System.getProperty("mm2checkpoint.worker.java", "");
        String binding = workerJava.isEmpty() ? "jni binding" : "panama binding";
        assertTrue(since(w, new long[] {0, 0}).contains(binding), "the tasks ran over the " + binding);
    }

    /**
     * A connector whose clusters cannot be reached keeps its tasks RUNNING (they retry), and the
     * library says why in the worker's own log: WARN lines through slf4j and the worker's log4j
     * configuration (its file appender), none on stderr. Connect shows a trace in a task's
     * status only once the task FAILED, so the log is where a retrying task's reason goes.
     */
    @Test
    @Order(2)
    void aWrongBootstrapKeepsTasksRetryingAndWarnsInTheWorkersLog4jLog() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            closedPort = s.getLocalPort();
        }
        String bad = "127.0.0.1:" + closedPort;
        Map<String, String> c = mm2Config(OURS, "bad" + run, tgt, appGroups);
        c.put("source.cluster.bootstrap.servers", bad);
        c.put("target.cluster.bootstrap.servers", bad);
        Map<ConnectWorker, long[]> marks = marks();
        ConnectWorker w = workers.get(0);
        assertEquals(201, w.put("/connectors/ours-bad/config", c).statusCode(), "connector created");
        awaitTasksRunning(w, "ours-bad", 2);
        // log4j's layout: [date] LEVEL [thread] connector context, message (logger)
        Pattern libraryWarn = Pattern.compile("^\\[[^\\]]+\\] WARN \\[[^\\]]*\\] .*\\((mm2_checkpoint|librdkafka)[^)]*\\)$");
        List<String> warns = new ArrayList<>();
        ConnectWorker.await(READY, "WARN lines of the library in a worker's log4j file", () -> {
            warns.clear();
            for (ConnectWorker x : workers) {
                try {
                    x.log4jSince(marks.get(x)).lines().filter(l -> libraryWarn.matcher(l).matches()).forEach(warns::add);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
            return warns.stream().anyMatch(l -> l.contains(bad) || l.contains("bad" + run + "->"));
        });
        System.out.println("wrong bootstrap, library WARN lines in the worker logs (first 5):");
        warns.stream().limit(5).forEach(l -> System.out.println("  " + l));
        // Each line names its connector and task (Connect's MDC, %X{connector.context}), also on
        // the library's own threads, which keep their flow's name (not `Thread-N`).
        Pattern context = Pattern.compile("^\\[[^\\]]+\\] WARN \\[([^\\]]*)\\] \\[ours-bad\\|task-[01]\\] .*");
        List<String> ofBad = warns.stream().filter(l -> l.contains(bad) || l.contains("bad" + run + "->")).toList();
        for (String l : ofBad) {
            java.util.regex.Matcher m = context.matcher(l);
            assertTrue(m.matches(), "a library WARN line without its connector's context: " + l);
            assertTrue(!m.group(1).startsWith("Thread-"), "a library thread named Thread-N: " + l);
        }
        for (ConnectWorker x : workers) {
            List<String> stray = x.outputSince(marks.get(x)).lines()
                    .filter(l -> l.contains("mm2_checkpoint") || l.contains(bad)).toList();
            assertEquals(List.of(), stray, x.name + ": library lines outside log4j (stdout/stderr)");
        }
        // Each task's own MBean, over JMX: not loaded, and why.
        Map<String, List<String>> unreachable = new TreeMap<>();
        try {
            ConnectWorker.await(READY, "both tasks' MBeans say why they retry", () -> {
                unreachable.clear();
                unreachable.putAll(taskMBeans("ours-bad"));
                return unreachable.size() == 2 && unreachable.values().stream().allMatch(v ->
                        attribute(v, "initialized").equals("0.0") && !attribute(v, "retry-reason").isEmpty());
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the task MBeans:\n" + describeValues(unreachable), e);
        }
        assertEquals(Set.of("task=0", "task=1"), unreachable.keySet().stream()
                .map(n -> n.replaceAll(".*,(task=\\d+).*", "$1")).collect(Collectors.toSet()), "one MBean per task");
        System.out.println("unreachable source, the task MBeans over JMX:\n" + describeValues(unreachable));
        JsonNode tasks = w.json("/connectors/ours-bad/status").get("tasks");
        for (JsonNode t : tasks) {
            assertEquals("RUNNING", t.get("state").asText(), "a retrying task stays RUNNING: " + t);
        }
        Map<ConnectWorker, long[]> beforeDelete = marks();
        w.delete("/connectors/ours-bad");
        ConnectWorker.await(READY, "both tasks of ours-bad stopped", () -> stopLines(beforeDelete).size() >= 2);
    }

    /**
     * A worker stopped gracefully (SIGTERM: Connect's shutdown hook stops its tasks) still logs
     * each native task's own `checkpoint task stopped` line through log4j: the library's
     * shutdown hook stops the tasks before it turns the log bridge off.
     */
    @Test
    @Order(7)
    void aWorkersGracefulShutdownStillLogsTheNativeStopOfItsTasks() throws Exception {
        ConnectWorker w = workers.get(0);
        assertEquals(201, w.put("/connectors/ours-shutdown/config", mm2Config(OURS, src, tgt, appGroups)).statusCode(),
                "connector created");
        awaitTasksRunning(w, "ours-shutdown", 2);
        Map<String, Integer> perWorker = new HashMap<>();
        for (JsonNode t : w.json("/connectors/ours-shutdown/status").get("tasks")) {
            perWorker.merge(t.get("worker_id").asText(), 1, Integer::sum);
        }
        ConnectWorker stopping = workers.stream().filter(x -> perWorker.containsKey(x.workerId())).findFirst()
                .orElseThrow(() -> new AssertionError("no worker runs a task: " + perWorker));
        int tasks = perWorker.get(stopping.workerId());
        // The tasks must have logged their start natively first, or there is nothing to stop.
        long[] mark = stopping.mark();
        stopping.close();
        List<String> nativeStops = stopping.log4jSince(mark).lines()
                .filter(l -> l.contains("checkpoint task stopped") && l.contains("(mm2_checkpoint.")).toList();
        assertTrue(nativeStops.size() >= tasks, stopping.name + " ran " + tasks + " task(s); native stop lines: "
                + nativeStops);
        System.out.println("graceful shutdown of " + stopping.name + ": " + nativeStops);
    }

    /**
     * Consumer groups appear and disappear every two seconds for half a minute; our connector
     * and Java's MirrorCheckpointConnector run in turn under the same churn. Ours must restart no
     * task and log no exception; Java's numbers are printed beside ours.
     */
    @Test
    @Order(5)
    void groupChurnNeedsNoTaskRestartUnlikeJavasConnector() throws Exception {
        useMirrorWorkers();
        commit(run + "-churn-stable", Map.of(0, 100L));
        ChurnResult ours = churn("ours-churn", mm2Config(OURS, src, tgt, run + "-churn-.*"));
        ChurnResult java = churn("java-churn", mm2Config(JAVA_MM2, "javasrc" + run, tgt, run + "-churn-.*"));
        String table = String.format("%-45s %14s %14s %18s%n", "connector under group churn", "tasks created",
                "task restarts", "exception lines")
                + String.format("%-45s %14d %14d %18d%n", "mm2-checkpoint " + OURS.substring(OURS.lastIndexOf('.') + 1),
                        ours.created, ours.restarts, ours.exceptionLines)
                + String.format("%-45s %14d %14d %18d%n", "Kafka MirrorCheckpointConnector", java.created,
                        java.restarts, java.exceptionLines);
        System.out.print(table);
        Files.writeString(Path.of(System.getProperty("mm2checkpoint.workDir"), "churn-comparison.txt"),
                "Connect 4.3.1 workers, Kafka 4.3.1 broker, 12 rounds: a group created and one deleted every 2 s\n\n"
                        + table + "\nours, exception lines:\n" + String.join("\n", ours.samples)
                        + "\n\nJava's, exception lines (first 20):\n" + String.join("\n", java.samples));
        assertEquals(0, ours.restarts, "our task restarts under churn");
        assertEquals(List.of(), ours.samples, "exception lines logged while our connector ran");
        assertTrue(ours.checkpointedChurnGroups > 0, "our connector checkpointed churned groups");
    }

    /**
     * Replaces the workers, once, by a pair with connect-mirror on its classpath (the pom's
     * mirror-worker-classpath), on Java 17, where Java's MirrorCheckpointConnector can run; ours
     * runs there too (over JNI), so both meet the same runtime.
     */
    private void useMirrorWorkers() throws IOException {
        if (mirrorWorkers) {
            return;
        }
        for (ConnectWorker w : workers) {
            w.close();
        }
        workers.clear();
        startWorkers("connect-it-431-", Path.of(System.getProperty("mm2checkpoint.mirrorWorkerClasspath")), null,
                "w3", "w4");
        mirrorWorkers = true;
    }

    /**
     * Java's MirrorCheckpointConnector and ours run side by side on the same workers, each
     * checkpointing its own group with the same committed offsets. Read over each worker's JMX
     * port, as a dashboard's exporter reads them, their MBeans have the same ObjectNames (domain,
     * keys in the same order, the same values but the group's) and the same attribute names and
     * types; once the connectors are deleted, neither leaves an MBean behind.
     */
    @Test
    @Order(6)
    void ourMBeansHaveJavaMm2sObjectNamesAndAttributesAndLeaveNoneAfterDelete() throws Exception {
        useMirrorWorkers();
        String javaGroup = run + "-jmx-java";
        String oursGroup = run + "-jmx-ours";
        commit(javaGroup, Map.of(0, 150L, 1, 50L));
        commit(oursGroup, Map.of(0, 150L, 1, 50L));
        ConnectWorker w = workers.get(0);
        assertEquals(201, w.put("/connectors/jmx-java/config", mm2Config(JAVA_MM2, src, tgt, javaGroup)).statusCode(),
                "Java's connector created");
        assertEquals(201, w.put("/connectors/jmx-ours/config", mm2Config(OURS, src, tgt, oursGroup)).statusCode(),
                "our connector created");
        // One MBean per group x partition, registered once its first checkpoint is written.
        Map<String, List<String>> java = new TreeMap<>();
        Map<String, List<String>> ours = new TreeMap<>();
        ConnectWorker.await(READY, "checkpoint MBeans of both connectors, 2 each", () -> {
            java.clear();
            ours.clear();
            java.putAll(mirrorMBeans(JAVAS_TYPE, javaGroup));
            ours.putAll(mirrorMBeans(JAVAS_TYPE, oursGroup));
            return java.size() == 2 && ours.size() == 2;
        });
        String table = "Java's MirrorCheckpointConnector:\n" + describe(java) + "\nmm2-checkpoint "
                + OURS.substring(OURS.lastIndexOf('.') + 1) + ":\n" + describe(ours);
        System.out.print(table);
        Files.writeString(Path.of(System.getProperty("mm2checkpoint.workDir"), "jmx-comparison.txt"), table);
        assertEquals(java, ours, "ObjectNames (group shown as <group>) and attributes (name:type:value class)");

        w.delete("/connectors/jmx-java");
        w.delete("/connectors/jmx-ours");
        // Ours also shows freshness and the replay bound, under a type of its own: gone too.
        ConnectWorker.await(READY, "no checkpoint MBean left by either connector", () ->
                mirrorMBeans(JAVAS_TYPE, javaGroup).isEmpty() && mirrorMBeans(JAVAS_TYPE, oursGroup).isEmpty()
                        && mirrorMBeans(CheckpointMetricsJmx.PARTITION_GROUP, oursGroup).isEmpty());
    }

    /** Java MM2's JMX type of its checkpoint MBeans. */
    private static final String JAVAS_TYPE = "MirrorCheckpointConnector";

    /** One MBean read over a worker's JMX port: its name and each attribute with its value. */
    private record ReadMBean(ConnectWorker worker, ObjectName name, Map<MBeanAttributeInfo, Object> attributes) {}

    /**
     * The MBeans matching {@code pattern} in every live worker, read over JMX; null when one was
     * unregistered between the query and the read (the caller reads again on its next round).
     */
    private List<ReadMBean> readMBeans(String pattern) {
        List<ReadMBean> out = new ArrayList<>();
        for (ConnectWorker x : workers) {
            if (!x.isAlive()) {
                continue;
            }
            try (JMXConnector jmx = x.jmx()) {
                MBeanServerConnection server = jmx.getMBeanServerConnection();
                for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                    Map<MBeanAttributeInfo, Object> attributes = new java.util.LinkedHashMap<>();
                    for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
                        attributes.put(a, server.getAttribute(name, a.getName()));
                    }
                    out.add(new ReadMBean(x, name, attributes));
                }
            } catch (javax.management.InstanceNotFoundException gone) {
                return null;
            } catch (IOException | javax.management.JMException e) {
                throw new AssertionError("reading " + x.name + "'s MBeans over JMX", e);
            }
        }
        return out;
    }

    /**
     * The task-wide MBeans of connector {@code connector} in every live worker, read over JMX:
     * the worker and ObjectName to its attributes' values ({@code name=value}, sorted).
     */
    private Map<String, List<String>> taskMBeans(String connector) {
        List<ReadMBean> read = readMBeans("kafka.connect.mirror:type=" + CheckpointMetricsJmx.TASK_GROUP
                + ",connector=" + connector + ",*");
        Map<String, List<String>> out = new TreeMap<>();
        for (ReadMBean m : read == null ? List.<ReadMBean>of() : read) {
            List<String> values = new ArrayList<>();
            m.attributes().forEach((a, v) -> values.add(a.getName() + "=" + v));
            values.sort(null);
            out.put(m.worker().name + " " + m.name().getCanonicalName(), values);
        }
        return out;
    }

    /** The value of attribute {@code name} among {@code values} ({@code name=value}). */
    private static String attribute(List<String> values, String name) {
        return values.stream().filter(v -> v.startsWith(name + "=")).map(v -> v.substring(name.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + " in " + values));
    }

    /**
     * The {@code kafka.connect.mirror:type=<type>} MBeans of {@code group} in every live worker,
     * read over JMX: the ObjectName (domain and keys in their order, the group's value shown as
     * {@code <group>}) to its attributes as {@code name:type:value class}, sorted.
     */
    private Map<String, List<String>> mirrorMBeans(String type, String group) {
        List<ReadMBean> read = readMBeans("kafka.connect.mirror:type=" + type + ",*");
        if (read == null) {
            return Map.of("<an MBean went away while being read>", List.of());
        }
        Map<String, List<String>> out = new TreeMap<>();
        for (ReadMBean m : read) {
            if (!group.equals(m.name().getKeyProperty("group"))) {
                continue;
            }
            List<String> attributes = new ArrayList<>();
            m.attributes().forEach((a, value) -> attributes.add(a.getName() + ":" + a.getType() + ":"
                    + (value == null ? "null" : value.getClass().getSimpleName())));
            attributes.sort(null);
            out.put(m.name().getDomain() + ":" + m.name().getKeyPropertyListString()
                    .replace("group=" + group, "group=<group>"), attributes);
        }
        return out;
    }

    private static String describeValues(Map<String, List<String>> mbeans) {
        StringBuilder b = new StringBuilder();
        mbeans.forEach((name, values) -> b.append("  ").append(name).append("\n    ")
                .append(String.join("\n    ", values)).append('\n'));
        return b.toString();
    }

    private static String describe(Map<String, List<String>> mbeans) {
        StringBuilder b = new StringBuilder();
        mbeans.forEach((name, attributes) -> {
            b.append("  ").append(name).append('\n');
            attributes.forEach(a -> b.append("    ").append(a).append('\n'));
        });
        return b.toString();
    }

    /**
     * Deleting the connector while its tasks are still loading a large offset-syncs topic (the
     * moment of KAFKA-21435) stops every task with no library thread or client left and no
     * exception logged.
     */
    @Test
    @Order(4)
    void stoppingTheConnectorWhileTasksLoadLeavesNoThreadOrClient() throws Exception {
        String loadTarget = "load" + run;
        String loadSyncs = "mm2-offset-syncs." + loadTarget + ".internal";
        admin.createTopics(List.of(new NewTopic(loadSyncs, 1, (short) 1))).all().get();
        // Enough that the load outlasts the REST round trips to the delete (about 0.4 s) several
        // times over on an idle machine: 300,000 syncs loaded in 0.3 s there.
        int syncs = 1_000_000;
        long[] pairs = new long[2 * syncs];
        for (int i = 0; i < syncs; i++) {
            pairs[2 * i] = 10L * i;
            pairs[2 * i + 1] = 10L * i + 3;
        }
        produceSyncs(loadSyncs, orders, 0, pairs);
        Map<ConnectWorker, long[]> marks = marks();
        ConnectWorker w = workers.get(1);
        w.put("/connectors/ours-load/config", mm2Config(OURS, src, loadTarget, appGroups));
        awaitTasksRunning(w, "ours-load", 2);
        w.delete("/connectors/ours-load");
        ConnectWorker.await(READY, "both tasks of ours-load stopped", () -> stopLines(marks).size() >= 2);
        List<String> stops = stopLines(marks);
        // Only this connector's tasks ran in the workers, so once they are all stopped nothing is
        // left. Each stop line reads the process-wide counts after its own task closed; when two
        // tasks of one worker stop together, the line logged last may have read them while the
        // other task was still closing its last client. The snapshot taken last in time was taken
        // after every stop and reads 0 unless something leaked, and while a task still runs or
        // leaked, every snapshot counts its clients: so one line of 0 and 0 per worker is the test.
        for (ConnectWorker worker : workers) {
            List<String> own = stopLinesOf(worker, marks.get(worker));
            if (!own.isEmpty()) {
                assertTrue(own.stream().anyMatch(l -> l.contains("live library clients 0, threads 0")),
                        worker.name + ": " + own);
            }
        }
        assertEquals(List.of(), exceptionLines(marks), "exceptions logged while stopping during the load");
        // The syncs take seconds to load: the stop came first, or this test proved nothing.
        assertTrue(workers.stream().filter(ConnectWorker::isAlive)
                .noneMatch(x -> since(x, marks.get(x)).contains("offset syncs") && since(x, marks.get(x))
                        .lines().anyMatch(l -> l.contains("checkpoint task ready") && l.contains(syncs + " offset syncs"))),
                "the tasks were stopped while loading: " + stops);
        System.out.println("stopped while loading: " + stops);
    }

    /** A killed worker's tasks move to the other worker; checkpoints continue and never go back. */
    @Test
    @Order(3)
    void killedWorkersTasksMoveAndCheckpointsContinueNeverBackwards() throws Exception {
        ConnectWorker killed = workers.get(0);
        ConnectWorker survivor = workers.get(1);
        awaitTasksRunning(survivor, "ours", 2);
        killed.kill();
        ConnectWorker.await(READY, "both tasks of `ours` running on " + survivor.workerId(), () -> {
            try {
                JsonNode tasks = survivor.json("/connectors/ours/status").get("tasks");
                int onSurvivor = 0;
                for (JsonNode t : tasks) {
                    if ("RUNNING".equals(t.get("state").asText()) && survivor.workerId().equals(t.get("worker_id").asText())) {
                        onSurvivor++;
                    }
                }
                return onSurvivor == 2;
            } catch (IOException e) {
                return false;
            }
        });
        // The mirror moves on (a new sync) and so does the group; MM2 emits a checkpoint only
        // when the downstream offset advances.
        produceSyncs(syncs, orders, 0, 200, 180);
        commit(app1, Map.of(0, 200L, 1, 50L));
        ConnectWorker.await(READY, "a checkpoint of " + app1 + " at 200 -> 180 after the failover", () -> {
            MirrorRecords.Checkpoint c = latest(readCheckpoints(src + ".checkpoints.internal"))
                    .get(app1 + "/" + src + "." + orders + "-0");
            return c != null && c.upstream() == 200 && c.downstream() == 180;
        });
        Map<String, MirrorRecords.Checkpoint> last = new HashMap<>();
        for (MirrorRecords.Checkpoint c : readCheckpoints(src + ".checkpoints.internal")) {
            MirrorRecords.Checkpoint before = last.put(c.key(), c);
            assertTrue(before == null || (before.downstream() <= c.downstream() && before.upstream() <= c.upstream()),
                    "checkpoint went backwards: " + c + " after " + before);
        }
        // Both tasks now run on the survivor, each with its own task MBean (the moved one made
        // afresh by its restart), loaded and cycling.
        Map<String, List<String>> moved = new TreeMap<>();
        ConnectWorker.await(READY, "both task MBeans on " + survivor.name, () -> {
            moved.clear();
            moved.putAll(taskMBeans("ours"));
            return moved.size() == 2 && moved.keySet().stream().allMatch(n -> n.startsWith(survivor.name + " "))
                    && moved.values().stream().allMatch(v -> attribute(v, "initialized").equals("1.0")
                            && Double.parseDouble(attribute(v, "cycles")) > 0);
        });
        System.out.println("after the worker's kill, the task MBeans over JMX:\n" + describeValues(moved));
        // Leave the workers to the next test with no task of ours running.
        Map<ConnectWorker, long[]> marks = marks();
        survivor.delete("/connectors/ours");
        ConnectWorker.await(READY, "both tasks of `ours` stopped", () -> stopLines(marks).size() >= 2);
        assertEquals(List.of(), exceptionLines(marks), "exceptions logged by the surviving worker");
    }

    // ------------------------------------------------------------------ churn

    record ChurnResult(int created, int restarts, int exceptionLines, List<String> samples, int checkpointedChurnGroups) {}

    private ChurnResult churn(String name, Map<String, String> config) throws Exception {
        Map<ConnectWorker, long[]> marks = marks();
        ConnectWorker w = workers.get(0);
        w.put("/connectors/" + name + "/config", config);
        awaitTasksRunning(w, name, 1);
        // Connect itself may restart a task once while a new connector's first task configs reach
        // the workers (a worker starts its task, then reads those configs and restarts it). That is
        // Connect's start-up, not a reaction to groups, so restarts are counted from a settled
        // start: no task created for 3 s. Every creation after that is a restart.
        long[] lastChange = {System.nanoTime()};
        int[] lastCount = {-1};
        ConnectWorker.await(READY, name + " settled after its start", () -> {
            int n = creations(name, marks).size();
            if (n != lastCount[0]) {
                lastCount[0] = n;
                lastChange[0] = System.nanoTime();
                return false;
            }
            return n > 0 && System.nanoTime() - lastChange[0] > 3_000_000_000L;
        });
        Map<ConnectWorker, long[]> churnMarks = marks();
        int rounds = 12;
        CountDownLatch done = new CountDownLatch(rounds);
        AtomicInteger round = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ScheduledExecutorService churner = Executors.newSingleThreadScheduledExecutor();
        try {
            churner.scheduleAtFixedRate(() -> {
                int i = round.getAndIncrement();
                try {
                    commit(run + "-churn-" + name + "-" + i, Map.of(0, 100L));
                    if (i >= 2) {
                        admin.deleteConsumerGroups(List.of(run + "-churn-" + name + "-" + (i - 2))).all().get();
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
                done.countDown();
            }, 0, 2, TimeUnit.SECONDS);
            assertTrue(done.await(120, TimeUnit.SECONDS), "churn rounds finished");
        } finally {
            churner.shutdownNow();
        }
        if (failure.get() != null) {
            throw new AssertionError("churning groups failed", failure.get());
        }
        String checkpointsTopic = config.get("source.cluster.alias") + ".checkpoints.internal";
        int checkpointed = (int) readCheckpoints(checkpointsTopic).stream()
                .map(MirrorRecords.Checkpoint::group).filter(g -> g.startsWith(run + "-churn-" + name)).distinct().count();
        w.delete("/connectors/" + name);
        ConnectWorker.await(READY, name + " deleted", () -> {
            try {
                return w.get("/connectors/" + name).statusCode() == 404;
            } catch (IOException e) {
                return false;
            }
        });
        int created = creations(name, marks).size();
        int restarts = creations(name, churnMarks).size();
        List<String> exceptions = exceptionLines(marks);
        return new ChurnResult(created, restarts, exceptions.size(),
                exceptions.stream().limit(20).collect(Collectors.toList()), checkpointed);
    }

    // ------------------------------------------------------------------ helpers

    /** Waits until the connector has at least {@code min} tasks, all RUNNING; returns how many. */
    private int awaitTasksRunning(ConnectWorker w, String connector, int min) {
        AtomicInteger count = new AtomicInteger();
        ConnectWorker.await(READY, connector + " has " + min + "+ running tasks", () -> {
            try {
                JsonNode status = w.json("/connectors/" + connector + "/status");
                JsonNode tasks = status.get("tasks");
                for (JsonNode t : tasks) {
                    if ("FAILED".equals(t.get("state").asText())) {
                        throw new AssertionError(connector + " task failed: " + t);
                    }
                    if (!"RUNNING".equals(t.get("state").asText())) {
                        return false;
                    }
                }
                count.set(tasks.size());
                return tasks.size() >= min;
            } catch (IOException e) {
                return false;
            }
        });
        return count.get();
    }

    private void commit(String group, Map<Integer, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((p, o) -> m.put(new TopicPartition(orders, p), new OffsetAndMetadata(o, "")));
        admin.alterConsumerGroupOffsets(group, m).all().get();
    }

    private void produceSyncs(String topic, String syncedTopic, int partition, long... pairs) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "524288");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] key = MirrorRecords.offsetSyncKey(syncedTopic, partition);
            for (int i = 0; i < pairs.length; i += 2) {
                producer.send(new ProducerRecord<>(topic, 0, key, MirrorRecords.offsetSyncValue(pairs[i], pairs[i + 1])));
            }
            producer.flush();
        }
    }

    /** Every record of a checkpoints topic, in order (an absent topic reads as empty). */
    private List<MirrorRecords.Checkpoint> readCheckpoints(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<MirrorRecords.Checkpoint> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var infos = c.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos == null || infos.isEmpty()) {
                return out;
            }
            List<TopicPartition> tps = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    out.add(MirrorRecords.checkpoint(r.key(), r.value()));
                }
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return out;
        }
        return out;
    }

    private static Map<String, MirrorRecords.Checkpoint> latest(List<MirrorRecords.Checkpoint> all) {
        Map<String, MirrorRecords.Checkpoint> m = new TreeMap<>();
        for (MirrorRecords.Checkpoint c : all) {
            m.put(c.key(), c);
        }
        return m;
    }

    private static boolean sameOffsets(Map<String, MirrorRecords.Checkpoint> expected, Map<String, MirrorRecords.Checkpoint> got) {
        for (var e : expected.entrySet()) {
            MirrorRecords.Checkpoint g = got.get(e.getKey());
            if (g == null || g.upstream() != e.getValue().upstream() || g.downstream() != e.getValue().downstream()) {
                return false;
            }
        }
        return true;
    }

    /** What the native API (a CheckpointTask in this JVM) computes for these groups, keyed as the connector's. */
    private Map<String, MirrorRecords.Checkpoint> nativeCheckpoints(String groups) {
        CheckpointConfig config = CheckpointConfig.builder()
                .set("source.cluster.alias", "native" + run)
                .set("target.cluster.alias", tgt)
                .set("source.cluster.bootstrap.servers", broker.bootstrap)
                .set("target.cluster.bootstrap.servers", broker.bootstrap)
                .set("task.assigned.groups", groups)
                .set("checkpoints.topic.replication.factor", "1")
                .set("emit.checkpoints.interval.seconds", "1")
                .build();
        Map<String, MirrorRecords.Checkpoint> out = new TreeMap<>();
        try (CheckpointTask task = new CheckpointTask(config)) {
            task.start();
            long deadline = System.nanoTime() + READY.toNanos();
            while (out.size() < 3 && System.nanoTime() < deadline) {
                PollResult r = task.poll(Duration.ofSeconds(2));
                assertTrue(r.status() != PollStatus.FAILED, "native task failed: " + task.fatalError());
                for (io.mm2checkpoint.Checkpoint c : r.checkpoints()) {
                    String topic = c.topic().replaceFirst("^native" + run + "\\.", src + ".");
                    MirrorRecords.Checkpoint k = new MirrorRecords.Checkpoint(c.group(), topic, c.partition(),
                            c.upstreamOffset(), c.downstreamOffset(), c.metadata());
                    out.put(k.key(), k);
                }
            }
        }
        return out;
    }

    /** The task ids of connector {@code name} created in any worker since {@code marks}, once per creation. */
    private List<String> creations(String name, Map<ConnectWorker, long[]> marks) {
        Pattern creating = Pattern.compile("Creating task (" + Pattern.quote(name) + "-\\d+)");
        List<String> ids = new ArrayList<>();
        for (ConnectWorker x : workers) {
            Matcher m = creating.matcher(since(x, marks.get(x)));
            while (m.find()) {
                ids.add(m.group(1));
            }
        }
        return ids;
    }

    private Map<ConnectWorker, long[]> marks() throws IOException {
        Map<ConnectWorker, long[]> m = new HashMap<>();
        for (ConnectWorker w : workers) {
            m.put(w, w.mark());
        }
        return m;
    }

    private static String since(ConnectWorker w, long[] mark) {
        try {
            return w.since(mark);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private List<String> stopLines(Map<ConnectWorker, long[]> marks) {
        List<String> out = new ArrayList<>();
        for (ConnectWorker w : workers) {
            if (w.isAlive()) {
                out.addAll(stopLinesOf(w, marks.get(w)));
            }
        }
        return out;
    }

    private static List<String> stopLinesOf(ConnectWorker w, long[] mark) {
        return since(w, mark).lines().filter(l -> l.contains("mm2-checkpoint") && l.contains(" stopped in ")).toList();
    }

    /** Lines since the marks that name an exception (a logged stack trace counts once per line). */
    private List<String> exceptionLines(Map<ConnectWorker, long[]> marks) {
        List<String> out = new ArrayList<>();
        for (ConnectWorker w : workers) {
            if (marks.containsKey(w)) {
                since(w, marks.get(w)).lines()
                        .filter(l -> l.contains("Exception") && !l.startsWith("\tat ") && !l.startsWith("\t..."))
                        .forEach(l -> out.add(w.name + ": " + l));
            }
        }
        return out;
    }
}
