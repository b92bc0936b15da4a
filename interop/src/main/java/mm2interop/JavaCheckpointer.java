package mm2interop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.connector.ConnectorContext;
import org.apache.kafka.connect.mirror.MirrorCheckpointConnector;
import org.apache.kafka.connect.mirror.MirrorCheckpointTask;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Java MM2's real checkpointing: MirrorCheckpointConnector chooses the groups (its own group and
 * topic filters) and creates the checkpoints topic; one MirrorCheckpointTask with that task
 * config runs on a poll thread, and every record it returns is produced to the target's
 * checkpoints topic with the record's key and value bytes unchanged (MM2 runs with the
 * ByteArrayConverter), then acknowledged through commitRecord, as WorkerSourceTask does.
 */
final class JavaCheckpointer implements AutoCloseable {
    private final MirrorCheckpointConnector connector = new MirrorCheckpointConnector();
    private final MirrorCheckpointTask task = new MirrorCheckpointTask();
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread poller;
    private volatile boolean stopping;
    private final java.util.concurrent.atomic.AtomicLong cycles = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong emitted = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.function.BiConsumer<SourceRecord, Long> onRecord;
    final List<Throwable> errors = new CopyOnWriteArrayList<>();

    JavaCheckpointer(Map<String, String> connectorProps, String targetBootstrap) throws Exception {
        this(connectorProps, targetBootstrap, (record, polledAt) -> { });
    }

    /**
     * As above; {@code onRecord} sees every record the task returns, with the System.nanoTime()
     * at which the poll that returned it came back (on the poll thread, before it is produced).
     */
    JavaCheckpointer(Map<String, String> connectorProps, String targetBootstrap,
            java.util.function.BiConsumer<SourceRecord, Long> onRecord) throws Exception {
        this.onRecord = onRecord;
        connector.initialize(new ConnectorContext() {
            @Override
            public void requestTaskReconfiguration() {
            }

            @Override
            public void raiseError(Exception e) {
                errors.add(e);
            }

            @Override
            public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
                return null;
            }
        });
        connector.start(connectorProps);
        AtomicReference<List<Map<String, String>>> configs = new AtomicReference<>(List.of());
        if (!Kafka.await(Duration.ofSeconds(60), () -> {
            configs.set(connector.taskConfigs(1));
            return !configs.get().isEmpty();
        })) {
            throw new IllegalStateException("MirrorCheckpointConnector found no consumer groups to checkpoint");
        }
        Map<String, String> taskProps = configs.get().get(0);
        producer = Kafka.producer(targetBootstrap, null);
        task.initialize(Kafka.taskContext(taskProps, null));
        task.start(taskProps);
        poller = new Thread(this::pollLoop, "java-checkpoint-poll");
        poller.start();
    }

    /** Completed poll calls (each one a checkpoint cycle, or an early return while loading). */
    long cycles() {
        return cycles.get();
    }

    /** Checkpoint records produced to the target so far. */
    long emitted() {
        return emitted.get();
    }

    String assignedGroups() {
        return connector.taskConfigs(1).get(0).get("task.assigned.groups");
    }

    private void pollLoop() {
        try {
            while (!stopping) {
                List<SourceRecord> records = task.poll();
                long polledAt = System.nanoTime();
                if (records != null) {
                    // Sent as WorkerSourceTask sends them: all at once, each acknowledged through
                    // commitRecord from the producer's callback; the flush makes a cycle count
                    // only once every record of it is written.
                    for (SourceRecord r : records) {
                        onRecord.accept(r, polledAt);
                        producer.send(new ProducerRecord<>(r.topic(), r.kafkaPartition(), r.timestamp(),
                                (byte[]) r.key(), (byte[]) r.value()), (md, e) -> {
                                    if (e != null) {
                                        errors.add(e);
                                    } else {
                                        task.commitRecord(r, md);
                                        emitted.incrementAndGet();
                                    }
                                });
                    }
                    producer.flush();
                }
                cycles.incrementAndGet();
            }
        } catch (Throwable t) {
            errors.add(t);
        }
    }

    @Override
    public void close() throws Exception {
        stopping = true;
        task.stop();
        poller.join(60_000);
        connector.stop();
        producer.close();
    }
}
