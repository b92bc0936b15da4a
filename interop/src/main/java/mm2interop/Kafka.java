package mm2interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/** Small client helpers shared by the harness programs. */
final class Kafka {
    private Kafka() {}

    /**
     * The context Connect's WorkerSourceTask hands a task: its configs and a source-offset
     * reader ({@code null} for tasks that never read one); no plugin metrics.
     */
    static SourceTaskContext taskContext(Map<String, String> configs, OffsetStorageReader offsets) {
        return new SourceTaskContext() {
            @Override
            public Map<String, String> configs() {
                return configs;
            }

            @Override
            public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
                return null;
            }

            @Override
            public OffsetStorageReader offsetStorageReader() {
                return offsets;
            }
        };
    }

    static Admin admin(String bootstrap) {
        Map<String, Object> c = new HashMap<>();
        c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(c);
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, String transactionalId) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        if (transactionalId != null) {
            c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A transactional producer whose transactions the coordinator aborts only after {@code timeout}. */
    static KafkaProducer<byte[], byte[]> producer(String bootstrap, String transactionalId, Duration timeout) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        c.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) timeout.toMillis());
        return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static void createTopic(Admin admin, String name, int partitions, Map<String, String> configs) throws Exception {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** Every record of every partition of {@code topic}, from the beginning to the end offsets read first. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            List<TopicPartition> tps = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " did not reach " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The last value per key (hex of the key bytes, in the topic's order). */
    static Map<String, byte[]> latestByKey(Collection<ConsumerRecord<byte[], byte[]>> records) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.put(hex(r.key()), r.value());
        }
        return out;
    }

    static String hex(byte[] b) {
        if (b == null) {
            return "null";
        }
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        }
        return s.toString();
    }

    /** Waits for {@code condition}, checking every 200 ms; false when {@code timeout} passed first. */
    static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        p.putAll(m);
        return p;
    }
}
