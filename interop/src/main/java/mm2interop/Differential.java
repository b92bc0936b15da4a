package mm2interop;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.Checkpoint;
import org.apache.kafka.connect.mirror.OffsetSync;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;

/**
 * Live differential of Java MM2's checkpointing and mm2-checkpoint's, on three real clusters.
 *
 * <p>A is the source. Java MM2's MirrorSourceTask mirrors A to B and writes the offset syncs into
 * A (offset-syncs.topic.location=source, topic mm2-offset-syncs.B.internal). Java's
 * MirrorCheckpointTask (target alias B, bootstrap B) and ours (target alias B too, so that it
 * reads the very same offset-syncs topic, but bootstrap C) read those syncs and A's groups;
 * Java writes its checkpoints and synced group offsets to B, ours to C, so neither can mask the
 * other. After quiescence the newest checkpoint per key, the synced target group offsets and
 * RemoteClusterUtils.translateOffsets must be identical on B and C.
 *
 * <p>The reverse direction runs next: examples/mirror.rs (our OffsetSyncWriter) mirrors topic
 * "rev" from A to B with aliases source/target; both checkpointers (aliases source/target,
 * Java on B, ours on C) must again agree.
 *
 * <p>Usage: Differential A_BOOTSTRAP B_BOOTSTRAP C_BOOTSTRAP CHECKPOINT_BIN MIRROR_BIN WORK_DIR.
 * Exit status 0 when every comparison held, 1 otherwise.
 */
public final class Differential {
    private static final String SYNCS_FORWARD = "mm2-offset-syncs.B.internal";
    private static final String SYNCS_REVERSE = "mm2-offset-syncs.target.internal";

    private final String a, b, c, oursBin, mirrorBin;
    private final File work;
    private final List<String> failures = new ArrayList<>();

    private Differential(String[] args) {
        a = args[0];
        b = args[1];
        c = args[2];
        oursBin = args[3];
        mirrorBin = args[4];
        work = new File(args[5]);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: Differential A B C CHECKPOINT_BIN MIRROR_BIN WORK_DIR");
            System.exit(2);
        }
        Differential d = new Differential(args);
        d.run();
        if (d.failures.isEmpty()) {
            System.out.println("DIFFERENTIAL OK");
            System.exit(0);
        }
        System.out.println("DIFFERENTIAL FAILED:");
        d.failures.forEach(f -> System.out.println("  - " + f));
        System.exit(1);
    }

    private void run() throws Exception {
        work.mkdirs();
        try (Admin adminA = Kafka.admin(a); Admin adminB = Kafka.admin(b); Admin adminC = Kafka.admin(c)) {
            Map<String, Integer> topics = new LinkedHashMap<>();
            topics.put("orders", 2);
            topics.put("late", 1);
            topics.put("txn", 1);
            topics.put("secret", 1);
            for (Map.Entry<String, Integer> t : topics.entrySet()) {
                Kafka.createTopic(adminA, t.getKey(), t.getValue(), Map.of());
                // Group offset sync commits to the remote topics, so both targets hold them.
                Kafka.createTopic(adminB, "A." + t.getKey(), t.getValue(), Map.of());
                Kafka.createTopic(adminC, "A." + t.getKey(), t.getValue(), Map.of());
            }
            Kafka.createTopic(adminA, SYNCS_FORWARD, 1, Map.of("cleanup.policy", "compact"));
            Kafka.createTopic(adminA, SYNCS_REVERSE, 1, Map.of("cleanup.policy", "compact"));
            Kafka.createTopic(adminA, "rev", 2, Map.of());
            Kafka.createTopic(adminB, "source.rev", 2, Map.of());
            Kafka.createTopic(adminC, "source.rev", 2, Map.of());

            forward(adminA, topics);
            openTransaction(adminA);
            reverse(adminA);
        }
    }

    // ------------------------------------------------------------------ forward: Java syncs

    private void forward(Admin adminA, Map<String, Integer> topics) throws Exception {
        Map<TopicPartition, Long> last = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, null)) {
            produce(p, "orders", 2, 60, last);
            produce(p, "late", 1, 60, last);
            produce(p, "secret", 1, 30, last);
        }
        // Transactions leave a commit or abort marker after each batch: upstream offsets with gaps.
        try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, "interop-txn")) {
            p.initTransactions();
            for (int t = 0; t < 6; t++) {
                p.beginTransaction();
                for (int i = 0; i < 8; i++) {
                    long off = p.send(new ProducerRecord<>("txn", 0, null, ("t" + t + "-" + i).getBytes())).get().offset();
                    last.merge(new TopicPartition("txn", 0), off, Math::max);
                }
                if (t == 3) {
                    p.abortTransaction();
                } else {
                    p.commitTransaction();
                }
            }
        }

        Map<String, String> source = new HashMap<>();
        source.put("name", "MirrorSourceConnector");
        source.put("connector.class", "org.apache.kafka.connect.mirror.MirrorSourceConnector");
        source.put("source.cluster.alias", "A");
        source.put("target.cluster.alias", "B");
        source.put("source.cluster.bootstrap.servers", a);
        source.put("target.cluster.bootstrap.servers", b);
        source.put("offset.lag.max", "10");
        List<String> assigned = new ArrayList<>();
        topics.forEach((t, n) -> {
            for (int i = 0; i < n; i++) {
                assigned.add(t + "-" + i);
            }
        });
        source.put("task.assigned.partitions", String.join(",", assigned));
        // "late" is mirrored from offset 20 only: earlier commits precede the oldest sync.
        Map<TopicPartition, Long> start = Map.of(new TopicPartition("late", 0), 20L);
        try (JavaMirror mirror = new JavaMirror(source, b, start)) {
            mirror.mirrorUntil(last, Duration.ofSeconds(120));
            // Another writer appends to the remote topic: downstream offsets jump ahead of
            // upstream ones, so the next mirrored records need a fresh sync.
            try (KafkaProducer<byte[], byte[]> p = Kafka.producer(b, null)) {
                for (int part = 0; part < 2; part++) {
                    for (int i = 0; i < 25; i++) {
                        p.send(new ProducerRecord<>("A.orders", part, null, "foreign".getBytes())).get();
                    }
                }
            }
            try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, null)) {
                produce(p, "orders", 2, 60, last);
            }
            mirror.mirrorUntil(last, Duration.ofSeconds(120));
        }
        // Records the mirror never saw: commits there are ahead of the newest sync.
        try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, null)) {
            produce(p, "orders", 2, 15, new HashMap<>());
        }

        Map<TopicPartition, TreeMap<Long, Long>> syncs = readSyncs(SYNCS_FORWARD);
        System.out.println("forward offset syncs (upstream -> downstream):");
        syncs.forEach((tp, s) -> System.out.println("  " + tp + " " + s));
        Map<TopicPartition, Long> ends = endOffsets(adminA, List.of("orders", "late", "txn", "secret"));

        Map<String, Map<TopicPartition, Long>> groups = new TreeMap<>();
        for (Map.Entry<TopicPartition, TreeMap<Long, Long>> e : syncs.entrySet()) {
            TopicPartition tp = e.getKey();
            List<Long> ups = new ArrayList<>(e.getValue().keySet());
            // At most 16 syncs per partition are probed, which covers the jump on fresh clusters.
            for (int i = 0; i < Math.min(ups.size(), 16); i++) {
                groups.computeIfAbsent("g-on-sync-" + i, k -> new TreeMap<>(tpOrder())).put(tp, ups.get(i));
                long next = i + 1 < ups.size() ? ups.get(i + 1) : ends.get(tp);
                if (next - ups.get(i) > 2) {
                    groups.computeIfAbsent("g-between-" + i, k -> new TreeMap<>(tpOrder()))
                            .put(tp, (ups.get(i) + next) / 2);
                }
                groups.computeIfAbsent("g-after-sync-" + i, k -> new TreeMap<>(tpOrder())).put(tp, ups.get(i) + 1);
            }
            groups.computeIfAbsent("g-ahead", k -> new TreeMap<>(tpOrder())).put(tp, ends.get(tp));
        }
        groups.computeIfAbsent("g-before-oldest", k -> new TreeMap<>(tpOrder())).put(new TopicPartition("late", 0), 5L);
        // Offsets 8 and 17 are transaction markers; 27..34 the aborted batch.
        groups.computeIfAbsent("g-txn-marker", k -> new TreeMap<>(tpOrder())).put(new TopicPartition("txn", 0), 8L);
        groups.computeIfAbsent("g-txn-aborted", k -> new TreeMap<>(tpOrder())).put(new TopicPartition("txn", 0), 30L);
        Map<TopicPartition, Long> mixed = new TreeMap<>(tpOrder());
        mixed.put(new TopicPartition("secret", 0), 10L);
        mixed.put(new TopicPartition("orders", 1), 10L);
        groups.put("g-excluded-topic", mixed);
        groups.put("ignored-group", Map.of(new TopicPartition("orders", 0), 40L));
        for (Map.Entry<String, Map<TopicPartition, Long>> g : groups.entrySet()) {
            Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
            g.getValue().forEach((tp, o) -> offs.put(tp, new OffsetAndMetadata(o, "md-" + g.getKey())));
            adminA.alterConsumerGroupOffsets(g.getKey(), offs).all().get(30, TimeUnit.SECONDS);
        }
        System.out.println("source groups: " + groups.size());

        Map<String, String> common = checkpointProps("A", "B");
        Map<String, Map<String, byte[]>> out =
                compareCheckpointers("forward", common, Map.of(), "A", groups.keySet(), true);
        Map<String, byte[]> javaLatest = out.get("java");
        // The scenarios do what they are for (pinned on Java's output, equal to ours by now).
        assertNoCheckpoint(javaLatest, "ignored-group", null, "a group excluded by groups.exclude");
        assertNoCheckpoint(javaLatest, "g-excluded-topic", "A.secret", "a topic excluded by topics.exclude");
        assertNoCheckpoint(javaLatest, "g-before-oldest", null, "an offset before the oldest sync");
        if (!hasCheckpoint(javaLatest, "g-excluded-topic", "A.orders")) {
            failures.add("forward: g-excluded-topic has no checkpoint for its included topic");
        }
    }

    private static java.util.Comparator<TopicPartition> tpOrder() {
        return java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    }

    private static void produce(KafkaProducer<byte[], byte[]> p, String topic, int partitions, int perPartition,
                                Map<TopicPartition, Long> last) throws Exception {
        for (int part = 0; part < partitions; part++) {
            for (int i = 0; i < perPartition; i++) {
                long off = p.send(new ProducerRecord<>(topic, part, ("k" + i).getBytes(), ("v" + i).getBytes()))
                        .get().offset();
                last.merge(new TopicPartition(topic, part), off, Math::max);
            }
        }
    }

    // ------------------------------------------------------------------ reverse: our syncs

    private void reverse(Admin adminA) throws Exception {
        Map<TopicPartition, Long> last = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, null)) {
            produce(p, "rev", 2, 150, last);
        }
        Process mirror = new ProcessBuilder(mirrorBin, a, b, "rev", "10")
                .redirectErrorStream(true).redirectOutput(new File(work, "mirror-reverse.log")).start();
        if (!mirror.waitFor(180, TimeUnit.SECONDS)) {
            mirror.destroyForcibly();
            failures.add("reverse: examples/mirror did not finish in 180 s (see mirror-reverse.log)");
            return;
        }
        if (mirror.exitValue() != 0) {
            failures.add("reverse: examples/mirror exited with " + mirror.exitValue() + " (see mirror-reverse.log)");
            return;
        }
        Map<TopicPartition, TreeMap<Long, Long>> syncs = readSyncs(SYNCS_REVERSE);
        System.out.println("reverse offset syncs (written by our OffsetSyncWriter):");
        syncs.forEach((tp, s) -> System.out.println("  " + tp + " " + s));
        if (syncs.isEmpty()) {
            failures.add("reverse: our OffsetSyncWriter wrote no offset syncs");
            return;
        }
        Map<TopicPartition, Long> ends = endOffsets(adminA, List.of("rev"));
        Map<String, Map<TopicPartition, Long>> groups = new TreeMap<>();
        for (Map.Entry<TopicPartition, TreeMap<Long, Long>> e : syncs.entrySet()) {
            List<Long> ups = new ArrayList<>(e.getValue().keySet());
            for (int i = 0; i < ups.size(); i++) {
                groups.computeIfAbsent("r-on-sync-" + i, k -> new HashMap<>()).put(e.getKey(), ups.get(i));
                groups.computeIfAbsent("r-after-sync-" + i, k -> new HashMap<>()).put(e.getKey(), ups.get(i) + 3);
            }
            groups.computeIfAbsent("r-end", k -> new HashMap<>()).put(e.getKey(), ends.get(e.getKey()));
        }
        for (Map.Entry<String, Map<TopicPartition, Long>> g : groups.entrySet()) {
            Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
            g.getValue().forEach((tp, o) -> offs.put(tp, new OffsetAndMetadata(o)));
            adminA.alterConsumerGroupOffsets(g.getKey(), offs).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, String> props = checkpointProps("source", "target");
        props.put("groups", "r-.*");
        compareCheckpointers("reverse", props, Map.of(), "source", groups.keySet(), false);
    }

    // ------------------------------------------------------------------ a transaction left open

    /**
     * Another client's transactional offset commit left open on the source's
     * {@code __consumer_offsets} while a plain commit of another group follows it: the group
     * coordinator applies the plain commit at once and holds the transactional one until its
     * commit or abort marker. Ours reads the offsets topic itself here
     * ({@code group.offsets.source = consumer-offsets-topic}), Java lists and fetches; both must
     * write the same checkpoints and sync the same offsets while the transaction stays open.
     */
    private void openTransaction(Admin adminA) throws Exception {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        adminA.alterConsumerGroupOffsets("t-open", Map.of(orders0, new OffsetAndMetadata(20, "md-t-open")))
                .all().get(30, TimeUnit.SECONDS);
        try (KafkaProducer<byte[], byte[]> p = Kafka.producer(a, "interop-open-txn", Duration.ofMinutes(5))) {
            p.initTransactions();
            p.beginTransaction();
            p.sendOffsetsToTransaction(Map.of(orders0, new OffsetAndMetadata(40, "md-t-open-txn")),
                    new ConsumerGroupMetadata("t-open"));
            adminA.alterConsumerGroupOffsets("t-plain", Map.of(orders0, new OffsetAndMetadata(40, "md-t-plain")))
                    .all().get(30, TimeUnit.SECONDS);
            Map<String, String> props = checkpointProps("A", "B");
            props.put("groups", "t-.*");
            Map<String, Map<String, byte[]>> out = compareCheckpointers("open-transaction", props,
                    Map.of("group.offsets.source", "consumer-offsets-topic"), "A",
                    java.util.Set.of("t-open", "t-plain"), false);
            // Pinned on Java's output: the plain commit behind the open transaction counts, the
            // transaction's offset does not.
            Map<String, byte[]> javaLatest = out.get("java");
            if (!hasCheckpoint(javaLatest, "t-plain", "A.orders")) {
                failures.add("open-transaction: the plain commit behind the open transaction has no checkpoint");
            }
            javaLatest.forEach((k, v) -> {
                Checkpoint cp = decode(k, v);
                if (cp.consumerGroupId().equals("t-open") && cp.upstreamOffset() != 20) {
                    failures.add("open-transaction: t-open checkpointed at " + cp.upstreamOffset()
                            + ", not at its committed 20");
                }
            });
            try {
                p.abortTransaction();
            } catch (RuntimeException e) {
                failures.add("open-transaction: the transaction did not stay open for the comparison: " + e);
            }
        }
    }

    // ------------------------------------------------------------------ the comparison

    private Map<String, String> checkpointProps(String sourceAlias, String targetAlias) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("source.cluster.alias", sourceAlias);
        p.put("target.cluster.alias", targetAlias);
        p.put("source.cluster.bootstrap.servers", a);
        p.put("groups", ".*");
        p.put("groups.exclude", "ignored-.*, console-consumer-.*, connect-.*, __.*");
        p.put("topics.exclude", "secret, .*[\\-\\.]internal, .*\\.replica, __.*");
        p.put("emit.checkpoints.interval.seconds", "1");
        p.put("refresh.groups.interval.seconds", "1");
        p.put("sync.group.offsets.enabled", "true");
        p.put("sync.group.offsets.interval.seconds", "1");
        p.put("checkpoints.topic.replication.factor", "1");
        return p;
    }

    /**
     * Runs both checkpointers on the same inputs ({@code oursOnly}: settings for ours alone),
     * compares, returns {java, ours} newest checkpoints.
     */
    private Map<String, Map<String, byte[]>> compareCheckpointers(String label, Map<String, String> common,
                                                                  Map<String, String> oursOnly,
                                                                  String sourceAlias, java.util.Set<String> groups,
                                                                  boolean precreateCheckpoints)
            throws Exception {
        String checkpoints = sourceAlias + ".checkpoints.internal";
        Map<String, String> javaProps = new LinkedHashMap<>(common);
        javaProps.put("target.cluster.bootstrap.servers", b);
        javaProps.put("name", "MirrorCheckpointConnector");
        javaProps.put("connector.class", "org.apache.kafka.connect.mirror.MirrorCheckpointConnector");
        Map<String, String> oursProps = new LinkedHashMap<>(common);
        oursProps.putAll(oursOnly);
        oursProps.put("target.cluster.bootstrap.servers", c);
        File config = new File(work, label + "-ours.properties");
        StringBuilder text = new StringBuilder("# written by interop Differential (" + label + ")\n");
        oursProps.forEach((k, v) -> text.append(k).append(" = ").append(v.replace("\\", "\\\\")).append('\n'));
        Files.writeString(config.toPath(), text.toString(), StandardCharsets.UTF_8);

        // Java's connector creates the checkpoints topic before its task starts, so the task
        // always finds it and loads "successfully" (whole sync history kept). The forward run
        // gives ours the same: the topic exists on C. The reverse run leaves it missing, so ours
        // must create it and still count the load as successful (it once started pessimistic
        // there, keeping only the newest sync per partition; this differential found that).
        if (precreateCheckpoints) {
            try (Admin adminC = Kafka.admin(c)) {
                Kafka.createTopic(adminC, checkpoints, 1, Map.of("cleanup.policy", "compact"));
            }
        }
        Map<String, Map<String, byte[]>> result = new HashMap<>();
        Process ours = new ProcessBuilder(oursBin, "--config", config.getPath())
                .redirectErrorStream(true).redirectOutput(new File(work, label + "-ours.log")).start();
        try (JavaCheckpointer java = new JavaCheckpointer(javaProps, b)) {
            System.out.println(label + ": Java's connector assigned groups " + java.assignedGroups());
            // Inputs are fixed from here on, so Java's first full cycle is its final answer; two
            // more completed cycles prove it was written completely.
            if (!Kafka.await(Duration.ofSeconds(90), () -> java.cycles() >= 1 && !topicEmpty(b, checkpoints))) {
                failures.add(label + ": Java wrote no checkpoints in 90 s; errors " + java.errors);
                return Map.of("java", Map.of(), "ours", Map.of());
            }
            long seen = java.cycles();
            Kafka.await(Duration.ofSeconds(30), () -> java.cycles() >= seen + 2);
            Map<String, byte[]> javaLatest = Kafka.latestByKey(Kafka.readAll(b, checkpoints));
            Map<String, Map<String, byte[]>> oursRef = new HashMap<>();
            boolean same = Kafka.await(Duration.ofSeconds(60), () -> {
                if (!ours.isAlive() || topicEmpty(c, checkpoints)) {
                    return !ours.isAlive();
                }
                oursRef.put("x", Kafka.latestByKey(Kafka.readAll(c, checkpoints)));
                return equalBytes(javaLatest, oursRef.get("x"));
            });
            Map<String, byte[]> oursLatest = oursRef.getOrDefault("x", Map.of());
            result.put("java", javaLatest);
            result.put("ours", oursLatest);
            printCheckpoints(label, javaLatest, oursLatest);
            if (!ours.isAlive()) {
                failures.add(label + ": our checkpoint process exited early (" + ours.exitValue() + "), see "
                        + label + "-ours.log");
                return result;
            }
            if (!same) {
                failures.add(label + ": newest checkpoints differ between B (Java) and C (ours)");
            }
            if (javaLatest.isEmpty()) {
                failures.add(label + ": no checkpoints at all");
            }

            // Synced target group offsets: wait for Java's, then for ours to equal them.
            // The groups of this comparison (the topic also holds an earlier one's).
            java.util.Set<String> checkpointed = groupsOf(javaLatest);
            checkpointed.retainAll(groups);
            Map<String, Map<TopicPartition, OffsetAndMetadata>> javaGroups = new TreeMap<>();
            Kafka.await(Duration.ofSeconds(60), () -> {
                javaGroups.clear();
                javaGroups.putAll(groupOffsets(b, groups));
                return javaGroups.keySet().containsAll(checkpointed);
            });
            Map<String, Map<TopicPartition, OffsetAndMetadata>> oursGroups = new TreeMap<>();
            boolean groupsSame = Kafka.await(Duration.ofSeconds(60), () -> {
                oursGroups.clear();
                oursGroups.putAll(groupOffsets(c, groups));
                return oursGroups.equals(javaGroups);
            });
            System.out.println(label + ": synced target groups, Java on B: " + javaGroups.size() + ", ours on C: "
                    + oursGroups.size() + (groupsSame ? " (identical)" : " (DIFFERENT)"));
            if (!groupsSame) {
                failures.add(label + ": synced group offsets differ\n    B: " + javaGroups + "\n    C: " + oursGroups);
            }
            if (!javaGroups.keySet().containsAll(checkpointed)) {
                failures.add(label + ": Java did not sync every checkpointed group: " + javaGroups.keySet());
            }

            // What a failing-over consumer would read with Java's client library. Each call opens
            // a consumer and reads the checkpoints topic to its end, about a second, so the groups
            // are translated 8 at a time (sequentially this was most of the differential's time).
            Map<String, Future<List<Map<TopicPartition, OffsetAndMetadata>>>> pending =
                    new TreeMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                for (String g : groups) {
                    pending.put(g, pool.submit(() -> List.of(
                            RemoteClusterUtils.translateOffsets(
                                    Map.of("bootstrap.servers", b), sourceAlias, g, Duration.ofSeconds(30)),
                            RemoteClusterUtils.translateOffsets(
                                    Map.of("bootstrap.servers", c), sourceAlias, g, Duration.ofSeconds(30)))));
                }
            } finally {
                pool.shutdown();
            }
            int translated = 0;
            for (Map.Entry<String, Future<List<Map<TopicPartition, OffsetAndMetadata>>>> e
                    : pending.entrySet()) {
                List<Map<TopicPartition, OffsetAndMetadata>> both = e.getValue().get(60, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetAndMetadata> viaB = both.get(0);
                Map<TopicPartition, OffsetAndMetadata> viaC = both.get(1);
                if (!viaB.equals(viaC)) {
                    failures.add(label + ": translateOffsets(" + e.getKey() + ") differs: B " + viaB + " C " + viaC);
                }
                translated += viaB.size();
            }
            System.out.println(label + ": RemoteClusterUtils.translateOffsets over " + groups.size()
                    + " groups, " + translated + " partitions: compared on B and C");
            if (!java.errors.isEmpty()) {
                failures.add(label + ": Java checkpointer errors " + java.errors);
            }
        } finally {
            stopOurs(label, ours);
        }
        return result;
    }

    private void stopOurs(String label, Process ours) throws Exception {
        if (!ours.isAlive()) {
            return;
        }
        new ProcessBuilder("kill", "-INT", Long.toString(ours.pid())).inheritIO().start().waitFor();
        if (!ours.waitFor(30, TimeUnit.SECONDS)) {
            ours.destroyForcibly();
            failures.add(label + ": our checkpoint process did not stop within 30 s of SIGINT");
        } else if (ours.exitValue() != 0) {
            failures.add(label + ": our checkpoint process exited with " + ours.exitValue());
        }
    }

    private static boolean topicEmpty(String bootstrap, String topic) {
        try (Admin admin = Kafka.admin(bootstrap)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                return true;
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .partitionResult(tp).get(30, TimeUnit.SECONDS).offset() == 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean equalBytes(Map<String, byte[]> x, Map<String, byte[]> y) {
        if (!x.keySet().equals(y.keySet())) {
            return false;
        }
        for (Map.Entry<String, byte[]> e : x.entrySet()) {
            if (!java.util.Arrays.equals(e.getValue(), y.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static Checkpoint decode(String keyHex, byte[] value) {
        byte[] key = java.util.HexFormat.of().parseHex(keyHex);
        return Checkpoint.deserializeRecord(new ConsumerRecord<>("x", 0, 0, key, value));
    }

    private static java.util.Set<String> groupsOf(Map<String, byte[]> latest) {
        java.util.Set<String> out = new TreeSet<>();
        latest.forEach((k, v) -> out.add(decode(k, v).consumerGroupId()));
        return out;
    }

    private static boolean hasCheckpoint(Map<String, byte[]> latest, String group, String topic) {
        for (Map.Entry<String, byte[]> e : latest.entrySet()) {
            Checkpoint cp = decode(e.getKey(), e.getValue());
            if (cp.consumerGroupId().equals(group) && (topic == null || cp.topicPartition().topic().equals(topic))) {
                return true;
            }
        }
        return false;
    }

    private void assertNoCheckpoint(Map<String, byte[]> latest, String group, String topic, String why) {
        if (hasCheckpoint(latest, group, topic)) {
            failures.add("forward: " + why + " was checkpointed (" + group + ")");
        }
    }

    private static void printCheckpoints(String label, Map<String, byte[]> javas, Map<String, byte[]> ours) {
        TreeSet<String> rows = new TreeSet<>();
        TreeSet<String> keys = new TreeSet<>(javas.keySet());
        keys.addAll(ours.keySet());
        for (String k : keys) {
            byte[] jv = javas.get(k);
            byte[] ov = ours.get(k);
            Checkpoint cp = decode(k, jv != null ? jv : ov);
            String verdict = jv == null ? "ONLY OURS" : ov == null ? "ONLY JAVA"
                    : java.util.Arrays.equals(jv, ov) ? "same bytes" : "DIFFERENT: ours " + decode(k, ov);
            rows.add(String.format("  %-18s %-12s %6d -> %6d  %s", cp.consumerGroupId(), cp.topicPartition(),
                    cp.upstreamOffset(), cp.downstreamOffset(), verdict));
        }
        System.out.println(label + ": newest checkpoint per key, Java (B) vs ours (C): " + keys.size() + " keys");
        rows.forEach(System.out::println);
    }

    private static Map<String, Map<TopicPartition, OffsetAndMetadata>> groupOffsets(String bootstrap,
                                                                                   java.util.Set<String> only) {
        try (Admin admin = Kafka.admin(bootstrap)) {
            Map<String, Map<TopicPartition, OffsetAndMetadata>> out = new TreeMap<>();
            for (ConsumerGroupListing g : admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS)) {
                if (!only.contains(g.groupId())) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> offs = admin.listConsumerGroupOffsets(g.groupId())
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                if (!offs.isEmpty()) {
                    out.put(g.groupId(), sorted(offs));
                }
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> sorted(Map<TopicPartition, OffsetAndMetadata> m) {
        Map<TopicPartition, OffsetAndMetadata> out = new TreeMap<>(tpOrder());
        out.putAll(m);
        return out;
    }

    private Map<TopicPartition, TreeMap<Long, Long>> readSyncs(String topic) {
        Map<TopicPartition, TreeMap<Long, Long>> out = new TreeMap<>(tpOrder());
        for (ConsumerRecord<byte[], byte[]> r : Kafka.readAll(a, topic)) {
            OffsetSync s = OffsetSync.deserializeRecord(r);
            out.computeIfAbsent(s.topicPartition(), k -> new TreeMap<>()).put(s.upstreamOffset(), s.downstreamOffset());
        }
        return out;
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, List<String> topics) throws Exception {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> req = new HashMap<>();
        for (var d : admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
            d.partitions().forEach(p -> req.put(new TopicPartition(d.name(), p.partition()),
                    org.apache.kafka.clients.admin.OffsetSpec.latest()));
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(req).all().get(30, TimeUnit.SECONDS).forEach((tp, r) -> out.put(tp, r.offset()));
        return out;
    }
}
