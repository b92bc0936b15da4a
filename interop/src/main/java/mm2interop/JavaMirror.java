package mm2interop;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.mirror.MirrorSourceTask;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * Java MM2's real MirrorSourceTask, driven the way Connect's WorkerSourceTask drives it: poll,
 * produce each record to the target (bytes as the ByteArrayConverter passes them), report the
 * target's offset through commitRecord, and commit() as the periodic offset flush does (that is
 * when MM2 4.x sends its delayed offset syncs).
 */
final class JavaMirror implements AutoCloseable {
    private final MirrorSourceTask task = new MirrorSourceTask();
    private final KafkaProducer<byte[], byte[]> target;
    /** Highest upstream offset mirrored so far, per source partition. */
    private final Map<TopicPartition, Long> mirrored = new HashMap<>();

    /**
     * @param startOffsets the first upstream offset to mirror per partition (Connect's stored
     *                     source offsets; a partition absent here starts at 0)
     */
    JavaMirror(Map<String, String> taskProps, String targetBootstrap, Map<TopicPartition, Long> startOffsets) {
        target = Kafka.producer(targetBootstrap, null);
        task.initialize(Kafka.taskContext(taskProps, new StoredOffsets(startOffsets)));
        task.start(taskProps);
    }

    /** Mirrors until every partition in {@code until} has been mirrored up to that offset, inclusive. */
    void mirrorUntil(Map<TopicPartition, Long> until, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!caughtUp(until)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("mirror did not reach " + until + "; at " + mirrored);
            }
            List<SourceRecord> records = task.poll();
            if (records == null) {
                continue;
            }
            for (SourceRecord r : records) {
                RecordMetadata md = target.send(new ProducerRecord<>(r.topic(), r.kafkaPartition(), r.timestamp(),
                        (byte[]) r.key(), (byte[]) r.value())).get(30, TimeUnit.SECONDS);
                task.commitRecord(r, md);
                @SuppressWarnings("unchecked")
                Map<String, Object> sp = (Map<String, Object>) r.sourcePartition();
                TopicPartition tp = new TopicPartition((String) sp.get("topic"), ((Number) sp.get("partition")).intValue());
                long off = ((Number) r.sourceOffset().get("offset")).longValue();
                mirrored.merge(tp, off, Math::max);
            }
            task.commit();
        }
        task.commit();
    }

    private boolean caughtUp(Map<TopicPartition, Long> until) {
        for (Map.Entry<TopicPartition, Long> e : until.entrySet()) {
            if (mirrored.getOrDefault(e.getKey(), -1L) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        task.commit();
        task.stop();
        target.close();
    }

    /** Connect's offset store, holding the offset before the first one to mirror. */
    private static final class StoredOffsets implements OffsetStorageReader {
        private final Map<TopicPartition, Long> start;

        StoredOffsets(Map<TopicPartition, Long> start) {
            this.start = start;
        }

        @Override
        public <T> Map<String, Object> offset(Map<String, T> partition) {
            TopicPartition tp = new TopicPartition((String) partition.get("topic"),
                    ((Number) partition.get("partition")).intValue());
            Long first = start.get(tp);
            return first == null ? null : Map.of("offset", first - 1);
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(java.util.Collection<Map<String, T>> partitions) {
            Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
            for (Map<String, T> p : partitions) {
                out.put(p, offset(p));
            }
            return out;
        }
    }
}
