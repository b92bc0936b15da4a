package mm2interop;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.InteropAccess;
import org.apache.kafka.connect.mirror.MirrorCheckpointTask;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

/**
 * KAFKA-21435's reproducer on both implementations. Seeds A's offset-syncs topic with SYNCS
 * records (MM2's own bytes), then runs N start->stop cycles of Java's MirrorCheckpointTask the
 * way Connect's WorkerSourceTask drives it (start then poll on the task's thread, stop from
 * another thread 0-50 ms after start began), counting every exception thrown or logged, the
 * Kafka clients (JMX app-info MBeans) and threads still alive when stop() returned, and stop
 * latency. Then runs interop/churn.rs (ours) the same way and prints both rows.
 *
 * <p>Usage: Churn A_BOOTSTRAP B_BOOTSTRAP CYCLES SYNCS RUST_EXAMPLES_DIR WORK_DIR. Exit status 1
 * when ours showed an error or a leak; Java's figures are reported, not asserted.
 */
public final class Churn {
    private static final String SYNCS_TOPIC = "mm2-offset-syncs.B.internal";
    private static final int PARTITIONS = 100;

    /** Exceptions by kind, from the log (WARN and above) and from the calls themselves. */
    private static final Map<String, AtomicLong> KINDS = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        String a = args[0], b = args[1];
        int cycles = Integer.parseInt(args[2]);
        int syncs = Integer.parseInt(args[3]);
        File bin = new File(args[4], "interop_churn");
        long seed = 21435;

        long seeded = seed(a, b, syncs);
        System.out.printf("seeded %s on A with %d offset syncs over %d partitions in %d ms%n",
                SYNCS_TOPIC, syncs, PARTITIONS, seeded);
        installCounter();

        Row java = runJava(a, b, cycles, new Random(seed));
        System.out.print("Java: " + header() + java.markdown("Java MM2 MirrorCheckpointTask"));
        System.out.println("Java exception kinds: " + java.kinds);
        Row ours = runOurs(bin, a, b, cycles, seed);
        String table = header() + java.markdown("Java MM2 4.3.1 MirrorCheckpointTask") + ours.markdown("mm2-checkpoint");
        System.out.println();
        System.out.println("start->stop churn, " + cycles + " cycles each, stop 0-50 ms after start, "
                + syncs + " offset syncs:");
        System.out.println(table);
        System.out.println("Java exception kinds: " + java.kinds);
        System.out.println("ours exception kinds: " + ours.kinds);
        boolean oursClean = ours.errors == 0 && ours.leakedClients == 0 && ours.leakedThreads == 0 && ours.exit == 0;
        System.out.println(oursClean ? "CHURN OK: ours had 0 errors and 0 leaks" : "CHURN FAILED: ours had errors or leaks");
        System.exit(oursClean ? 0 : 1);
    }

    // ------------------------------------------------------------------ seeding

    private static long seed(String a, String b, int syncs) throws Exception {
        long t0 = System.nanoTime();
        try (Admin adminA = Kafka.admin(a); Admin adminB = Kafka.admin(b)) {
            Kafka.createTopic(adminA, SYNCS_TOPIC, 1, Map.of("cleanup.policy", "compact"));
            Kafka.createTopic(adminA, "t", PARTITIONS, Map.of());
            Kafka.createTopic(adminB, "A.checkpoints.internal", 1, Map.of("cleanup.policy", "compact"));
            Map<String, Object> cfg = new HashMap<>();
            cfg.put("bootstrap.servers", a);
            cfg.put("linger.ms", 20);
            cfg.put("batch.size", 512 * 1024);
            cfg.put("acks", "1");
            try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(cfg,
                    new org.apache.kafka.common.serialization.ByteArraySerializer(),
                    new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                int perPartition = syncs / PARTITIONS;
                for (int i = 0; i < perPartition; i++) {
                    for (int part = 0; part < PARTITIONS; part++) {
                        TopicPartition tp = new TopicPartition("t", part);
                        long up = 10L * i, down = 7L * i;
                        p.send(new ProducerRecord<>(SYNCS_TOPIC, 0, InteropAccess.offsetSyncKey(tp, up, down),
                                InteropAccess.offsetSyncValue(tp, up, down)));
                    }
                }
                p.flush();
            }
            Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
            for (int part = 0; part < PARTITIONS; part++) {
                offs.put(new TopicPartition("t", part), new OffsetAndMetadata(1000L + part));
            }
            adminA.alterConsumerGroupOffsets("churn-group", offs).all().get(30, TimeUnit.SECONDS);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    // ------------------------------------------------------------------ Java

    private static Row runJava(String a, String b, int cycles, Random random) throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("name", "MirrorCheckpointConnector");
        props.put("connector.class", "org.apache.kafka.connect.mirror.MirrorCheckpointConnector");
        props.put("source.cluster.alias", "A");
        props.put("target.cluster.alias", "B");
        props.put("source.cluster.bootstrap.servers", a);
        props.put("target.cluster.bootstrap.servers", b);
        props.put("task.assigned.groups", "churn-group");
        props.put("task.index", "0");
        props.put("emit.checkpoints.interval.seconds", "1");
        props.put("checkpoints.topic.replication.factor", "1");
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        Row row = new Row();
        List<Double> stops = new ArrayList<>();
        for (int i = 0; i < cycles; i++) {
            long delayNanos = TimeUnit.MICROSECONDS.toNanos(random.nextInt(50_001));
            Set<ObjectName> mbeansBefore = clientMBeans(jmx);
            Set<Thread> threadsBefore = new HashSet<>(Thread.getAllStackTraces().keySet());
            MirrorCheckpointTask task = new MirrorCheckpointTask();
            task.initialize(Kafka.taskContext(props, null));
            CountDownLatch began = new CountDownLatch(1);
            long[] startedAt = new long[1];
            long[] stopReturnedAt = new long[1];
            Object lock = new Object();
            boolean[] finishedStart = new boolean[1];
            boolean[] stopBeforeStartReturned = new boolean[1];
            // WorkerSourceTask's thread: start; if a stop was requested meanwhile, stop here and
            // leave (Connect defers that stop until start returns); otherwise poll until stopped.
            Thread worker = new Thread(() -> {
                startedAt[0] = System.nanoTime();
                began.countDown();
                try {
                    task.start(props);
                    synchronized (lock) {
                        if (stopBeforeStartReturned[0]) {
                            timedStop(task, stopReturnedAt);
                            return;
                        }
                        finishedStart[0] = true;
                    }
                    while (!row.stopRequested) {
                        task.poll();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Throwable t) {
                    count("thrown by start/poll: " + rootName(t));
                }
            }, "churn-task-" + i);
            row.stopRequested = false;
            worker.start();
            began.await();
            long wait = startedAt[0] + delayNanos - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            if (!initialized(task)) {
                row.loading++;
            }
            // The herder's stop: from this thread while poll runs, as WorkerSourceTask.stop does.
            long s0 = System.nanoTime();
            row.stopRequested = true;
            synchronized (lock) {
                if (finishedStart[0]) {
                    timedStop(task, stopReturnedAt);
                } else {
                    stopBeforeStartReturned[0] = true;
                }
            }
            worker.join(TimeUnit.SECONDS.toMillis(30));
            stops.add((stopReturnedAt[0] - s0) / 1e6);
            // Measured when stop() has returned and the task's thread has finished: the moment
            // Connect considers the task gone.
            Set<ObjectName> mbeans = clientMBeans(jmx);
            mbeans.removeAll(mbeansBefore);
            List<String> threads = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!threadsBefore.contains(t) && t.isAlive()) {
                    threads.add(t.getName());
                }
            }
            if (!mbeans.isEmpty() || !threads.isEmpty()) {
                row.leakCycles++;
                row.leakedClients += mbeans.size();
                row.leakedThreads += threads.size();
                if (row.leakExamples.size() < 3) {
                    row.leakExamples.add(mbeans + " " + threads);
                }
            }
        }
        // Whatever is still around a while after the last stop never went away by itself.
        Kafka.await(Duration.ofSeconds(10), () -> clientMBeans(jmx).isEmpty());
        row.lingering = clientMBeans(jmx).size();
        row.cycles = cycles;
        row.stops(stops);
        Map<String, Long> kinds = new TreeMap<>();
        KINDS.forEach((k, v) -> kinds.put(k, v.get()));
        row.kinds = kinds.toString();
        row.errors = kinds.values().stream().mapToLong(Long::longValue).sum();
        for (Map.Entry<String, Long> e : kinds.entrySet()) {
            if (e.getKey().contains("ConcurrentModificationException")) {
                row.cme += e.getValue();
            } else if (e.getKey().contains("WakeupException")) {
                row.wakeup += e.getValue();
            } else if (e.getKey().contains("IllegalStateException")) {
                row.ise += e.getValue();
            } else {
                row.other += e.getValue();
            }
        }
        row.leakExamples.forEach(x -> System.out.println("Java leak example: " + x));
        return row;
    }

    private static void timedStop(MirrorCheckpointTask task, long[] returnedAt) {
        try {
            task.stop();
        } catch (Throwable t) {
            count("thrown by stop: " + rootName(t));
        }
        returnedAt[0] = System.nanoTime();
    }

    private static boolean initialized(MirrorCheckpointTask task) {
        try {
            java.lang.reflect.Field f = MirrorCheckpointTask.class.getDeclaredField("checkpointStore");
            f.setAccessible(true);
            Object store = f.get(task);
            if (store == null) {
                return false;
            }
            java.lang.reflect.Method m = store.getClass().getDeclaredMethod("isInitialized");
            m.setAccessible(true);
            return (Boolean) m.invoke(store);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<ObjectName> clientMBeans(MBeanServer jmx) {
        Set<ObjectName> out = new HashSet<>();
        try {
            for (String type : List.of("kafka.consumer", "kafka.producer", "kafka.admin.client")) {
                out.addAll(jmx.queryNames(new ObjectName(type + ":type=app-info,*"), null));
            }
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static String rootName(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + " <- " + root.getClass().getSimpleName();
    }

    private static void count(String kind) {
        KINDS.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /** Counts every WARN/ERROR event of Java MM2 and its clients; stops printing them. */
    private static void installCounter() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration cfg = ctx.getConfiguration();
        AbstractAppender counter = new AbstractAppender("interop-counter", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getThrown() != null) {
                    count("logged: " + rootName(event.getThrown()));
                } else {
                    String logger = event.getLoggerName();
                    count("logged " + event.getLevel() + " (no exception): " + logger.substring(logger.lastIndexOf('.') + 1));
                }
            }
        };
        counter.start();
        cfg.addAppender(counter);
        cfg.getRootLogger().removeAppender("STDERR");
        cfg.getRootLogger().addAppender(counter, Level.WARN, null);
        ctx.updateLoggers();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> count("uncaught: " + rootName(e)));
    }

    // ------------------------------------------------------------------ ours

    private static Row runOurs(File bin, String a, String b, int cycles, long seed) throws Exception {
        Process p = new ProcessBuilder(bin.getPath(), a, b, Integer.toString(cycles), Long.toString(seed))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Row row = new Row();
        row.exit = p.exitValue();
        Map<String, String> kv = new HashMap<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("RESULT ")) {
                for (String f : line.substring(7).split(" ")) {
                    int eq = f.indexOf('=');
                    kv.put(f.substring(0, eq), f.substring(eq + 1));
                }
            }
        }
        if (kv.isEmpty()) {
            throw new IllegalStateException("interop_churn printed no RESULT line (exit " + row.exit + "): " + out);
        }
        row.cycles = Integer.parseInt(kv.get("cycles"));
        row.loading = Integer.parseInt(kv.get("loading"));
        row.errors = Long.parseLong(kv.get("errors"));
        row.other = row.errors;
        row.leakCycles = Integer.parseInt(kv.get("leak_cycles"));
        row.leakedClients = Integer.parseInt(kv.get("leaked_clients"));
        row.leakedThreads = Integer.parseInt(kv.get("leaked_threads"));
        row.p50 = Double.parseDouble(kv.get("p50"));
        row.p99 = Double.parseDouble(kv.get("p99"));
        row.max = Double.parseDouble(kv.get("max"));
        row.kinds = kv.get("kinds");
        return row;
    }

    // ------------------------------------------------------------------ the table

    private static String header() {
        return "| implementation | cycles | stopped while loading | ConcurrentModificationException | WakeupException"
                + " | IllegalStateException | other exceptions (thrown or logged) | cycles with a client or thread alive after stop"
                + " | clients / threads alive after stop (sum) | stop p50 ms | p99 ms | max ms |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    }

    private static final class Row {
        volatile boolean stopRequested;
        int cycles, loading, leakCycles, leakedClients, leakedThreads, lingering, exit;
        long errors, cme, wakeup, ise, other;
        double p50, p99, max;
        String kinds = "";
        final List<String> leakExamples = new ArrayList<>();

        void stops(List<Double> ms) {
            Collections.sort(ms);
            p50 = ms.get((int) Math.round((ms.size() - 1) * 0.50));
            p99 = ms.get((int) Math.round((ms.size() - 1) * 0.99));
            max = ms.get(ms.size() - 1);
        }

        String markdown(String name) {
            return String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %d / %d | %.1f | %.1f | %.1f |%n", name, cycles,
                    loading, cme, wakeup, ise, other, leakCycles, leakedClients, leakedThreads, p50, p99, max);
        }
    }
}
