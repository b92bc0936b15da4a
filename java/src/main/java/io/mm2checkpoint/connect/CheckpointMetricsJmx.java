package io.mm2checkpoint.connect;

import io.mm2checkpoint.MetricsSnapshot;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;

/**
 * One task's {@code checkpoint-latency-ms} MBeans under the names Java MM2 gives them, so
 * dashboards and alerts written for Java's {@code MirrorCheckpointConnector} read ours unchanged:
 * {@code kafka.connect.mirror:type=MirrorCheckpointConnector,source=S,target=T,group=G,topic=TOPIC,partition=P},
 * attributes {@code checkpoint-latency-ms}, {@code -min}, {@code -max}, {@code -avg} (doubles;
 * NaN for an empty window, as Java reports it).
 *
 * <p>The names are made the way Java MM2 makes them: by Kafka's own {@link Metrics} and
 * {@link JmxReporter} under the context {@code kafka.connect.mirror}, with the tags in Java's
 * order. So the domain, the key order and the quoting of unusual names are Kafka's by
 * construction, not a copy of its rules. The values are the native library's (which computes
 * Kafka's window statistics itself); this class only shows the latest reading.
 *
 * <p>{@link #update} registers an MBean for each group x partition that appeared and unregisters
 * those that went; {@link #close} unregisters all of them. Not thread-safe beyond that: the
 * connector's task calls both from its own thread; JMX reads run on any thread and only read the
 * latest reading.
 */
final class CheckpointMetricsJmx implements AutoCloseable {
    /** Java MM2's JMX domain (its metrics context namespace). */
    static final String JMX_PREFIX = "kafka.connect.mirror";
    /** Java MM2's metric group: the JMX {@code type}. */
    static final String METRIC_GROUP = "MirrorCheckpointConnector";

    /** One attribute: its name, what it shows, and how it reads a latency entry. */
    private record Attribute(String name, String description, ToDoubleFunction<MetricsSnapshot.CheckpointLatency> value) {}

    private static final List<Attribute> ATTRIBUTES = List.of(
            new Attribute("checkpoint-latency-ms",
                    "The last checkpoint's latency: from the cycle that decided it to the target confirming it, in ms.",
                    MetricsSnapshot.CheckpointLatency::lastMs),
            new Attribute("checkpoint-latency-ms-max", "The highest checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.maxMs())),
            new Attribute("checkpoint-latency-ms-min", "The lowest checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.minMs())),
            new Attribute("checkpoint-latency-ms-avg", "The mean checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.avgMs())));

    private record Key(String group, String topic, int partition) {}

    private final String source;
    private final String target;
    private final Metrics metrics;
    private final Map<Key, List<MetricName>> registered = new HashMap<>();
    /** The latest reading per group x partition; replaced whole, read by JMX threads. */
    private volatile Map<Key, MetricsSnapshot.CheckpointLatency> latest = Map.of();
    private boolean closed;

    CheckpointMetricsJmx(String source, String target) {
        this.source = source;
        this.target = target;
        metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext(JMX_PREFIX));
    }

    /** Shows {@code snapshot}'s latencies: registers the new group x partitions, unregisters the gone. */
    synchronized void update(MetricsSnapshot snapshot) {
        if (closed) {
            return;
        }
        Map<Key, MetricsSnapshot.CheckpointLatency> now = new HashMap<>();
        for (MetricsSnapshot.CheckpointLatency l : snapshot.checkpointLatency()) {
            now.put(new Key(l.group(), l.topic(), l.partition()), l);
        }
        latest = now;
        registered.entrySet().removeIf(e -> {
            if (now.containsKey(e.getKey())) {
                return false;
            }
            e.getValue().forEach(metrics::removeMetric);
            return true;
        });
        for (Key key : now.keySet()) {
            registered.computeIfAbsent(key, this::register);
        }
    }

    /** The group x partitions shown now. */
    synchronized int size() {
        return registered.size();
    }

    private List<MetricName> register(Key key) {
        // Java's tag order is the ObjectName's key order, which dashboards' patterns match.
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("source", source);
        tags.put("target", target);
        tags.put("group", key.group());
        tags.put("topic", key.topic());
        tags.put("partition", Integer.toString(key.partition()));
        return ATTRIBUTES.stream().map(a -> {
            MetricName name = metrics.metricName(a.name(), METRIC_GROUP, a.description(), tags);
            metrics.addMetric(name, (Measurable) (config, nowMs) -> {
                MetricsSnapshot.CheckpointLatency l = latest.get(key);
                return l == null ? Double.NaN : a.value().applyAsDouble(l);
            });
            return name;
        }).toList();
    }

    private static double orNaN(OptionalDouble v) {
        return v.isPresent() ? v.getAsDouble() : Double.NaN;
    }

    /** Unregisters every MBean of this task. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        registered.clear();
        latest = Map.of();
        metrics.close();
    }
}
