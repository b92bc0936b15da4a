package io.mm2checkpoint.connect;

import io.mm2checkpoint.MetricsSnapshot;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Sanitizer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's {@code checkpoint-latency-ms} MBeans under the names Java MM2 gives them, so
 * dashboards and alerts written for Java's {@code MirrorCheckpointConnector} read ours unchanged:
 * {@code kafka.connect.mirror:type=MirrorCheckpointConnector,source=S,target=T,group=G,topic=TOPIC,partition=P},
 * attributes {@code checkpoint-latency-ms}, {@code -min}, {@code -max}, {@code -avg} (doubles;
 * NaN for an empty window, as Java reports it). Beside them, in the same domain under a type of
 * ours ({@code type=mm2-checkpoint-partition-metrics}, {@code topic} the upstream topic), what
 * Java does not measure: {@code freshness-ms} and {@code replay-bound-records} per group x
 * partition (NaN while unknown), and one MBean for the whole task from its first reading to its
 * stop ({@code type=mm2-checkpoint-task-metrics,source=S,target=T,connector=C,task=N}, one per
 * task, as Connect names its own task MBeans): {@code initialized},
 * {@code retry-reason} (text, empty when nothing is retried), {@code retrying-for-ms},
 * {@code cycles}, {@code cycles-failed}, {@code since-last-successful-cycle-ms},
 * {@code offset-sync-lag}, {@code checkpoints-emitted} and {@code groups} (NaN while unknown), so
 * a task that cannot reach its clusters shows it before any checkpoint exists.
 *
 * <p>The names are made the way Java MM2 makes them: by Kafka's own {@link Metrics} and
 * {@link JmxReporter} under the context {@code kafka.connect.mirror}, with the tags in Java's
 * order. So the domain, the key order and the quoting of unusual names are Kafka's by
 * construction, not a copy of its rules. The values are the native library's (which computes
 * Kafka's window statistics itself); this class only shows the latest reading.
 *
 * <p>{@link #update} registers an MBean for each group x partition that appeared and unregisters
 * those that went; {@link #close} unregisters all of them. An MBean of this task that someone
 * else unregistered is registered again at the next update: Java's connector with the same
 * aliases on the same worker has the same names, and its removal unregisters them (what each
 * update re-registered is counted in {@link #reregistered}). Not thread-safe beyond that: the
 * connector's task calls both from its own thread; JMX reads run on any thread and only read the
 * latest reading.
 */
final class CheckpointMetricsJmx implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointMetricsJmx.class);
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    /** Java MM2's JMX domain (its metrics context namespace). */
    static final String JMX_PREFIX = "kafka.connect.mirror";
    /** Java MM2's metric group: the JMX {@code type}. */
    static final String METRIC_GROUP = "MirrorCheckpointConnector";
    /** Ours, for what Java MM2 does not measure: freshness and the replay bound per group x partition. */
    static final String PARTITION_GROUP = "mm2-checkpoint-partition-metrics";
    /** Ours: the task as a whole (loaded, retrying, cycles). */
    static final String TASK_GROUP = "mm2-checkpoint-task-metrics";

    private static final List<Attribute<MetricsSnapshot.Task>> TASK = List.of(
            new Attribute<>("initialized", "1 once both stores are loaded, else 0.", t -> t.initialized() ? 1 : 0),
            new Attribute<>("retrying-for-ms", "How long the task has been retrying without interruption, in ms (0 when it is not).",
                    t -> t.retries().retryingFor().map(d -> d.toNanos() / 1e6).orElse(0.0)),
            new Attribute<>("cycles", "Checkpoint cycles run.", t -> t.cycles()),
            new Attribute<>("cycles-failed", "Checkpoint cycles that ended in an error.", t -> t.cyclesFailed()),
            new Attribute<>("since-last-successful-cycle-ms",
                    "Time since the last checkpoint cycle without error, in ms (NaN before the first).",
                    t -> t.sinceLastSuccessfulCycle().map(d -> d.toNanos() / 1e6).orElse(Double.NaN)),
            new Attribute<>("offset-sync-lag", "Records between the offset-sync reader's position and the topic's end (NaN while unknown).",
                    t -> t.offsetSyncLag().isPresent() ? (double) t.offsetSyncLag().getAsLong() : Double.NaN),
            new Attribute<>("checkpoints-emitted", "Checkpoints written and confirmed by the target.", t -> t.checkpointsEmitted()),
            new Attribute<>("groups", "Consumer groups this task checkpoints.", t -> t.groups()));

    /** One attribute of an entry type: its name, what it shows, and how it reads an entry. */
    private record Attribute<E>(String name, String description, ToDoubleFunction<E> value) {}

    private static final List<Attribute<MetricsSnapshot.CheckpointLatency>> LATENCY = List.of(
            new Attribute<>("checkpoint-latency-ms",
                    "The last checkpoint's latency: from the cycle that decided it to the target confirming it, in ms.",
                    MetricsSnapshot.CheckpointLatency::lastMs),
            new Attribute<>("checkpoint-latency-ms-max", "The highest checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.maxMs())),
            new Attribute<>("checkpoint-latency-ms-min", "The lowest checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.minMs())),
            new Attribute<>("checkpoint-latency-ms-avg", "The mean checkpoint latency in the metric window, in ms.",
                    l -> orNaN(l.avgMs())));

    private static final List<Attribute<MetricsSnapshot.Partition>> PARTITION = List.of(
            new Attribute<>("freshness-ms",
                    "Time since the last cycle found the newest checkpoint reflecting the group's commit, in ms.",
                    p -> p.freshness().map(d -> d.toNanos() / 1e6).orElse(Double.NaN)),
            new Attribute<>("replay-bound-records",
                    "Upstream records a consumer failing over now would read again.",
                    p -> p.replayBound().isPresent() ? (double) p.replayBound().getAsLong() : Double.NaN));

    /** What an MBean is of: a group and a partition (the entry type says which topic). */
    private record Key(String group, String topic, int partition) {}

    private final String source;
    private final String target;
    /** The connector's name and the task's index: the task MBean's own tags. */
    private final String connector;
    private final String taskIndex;
    private final Metrics metrics;
    private final Family<MetricsSnapshot.CheckpointLatency> latency = new Family<>(METRIC_GROUP, LATENCY);
    private final Family<MetricsSnapshot.Partition> partitions = new Family<>(PARTITION_GROUP, PARTITION);
    private final Family<MetricsSnapshot.Task> task = new Family<>(TASK_GROUP, TASK);
    /** The one key of the task's own MBean. */
    private static final Key TASK_KEY = new Key(null, null, -1);
    private boolean closed;
    private long reregistered;

    CheckpointMetricsJmx(String source, String target, String connector, String taskIndex) {
        this.source = source;
        this.target = target;
        this.connector = connector;
        this.taskIndex = taskIndex;
        metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext(JMX_PREFIX));
    }

    /** Shows {@code snapshot}: registers the MBeans of new group x partitions, unregisters the gone. */
    synchronized void update(MetricsSnapshot snapshot) {
        if (closed) {
            return;
        }
        Map<Key, MetricsSnapshot.CheckpointLatency> l = new HashMap<>();
        snapshot.checkpointLatency().forEach(e -> l.put(new Key(e.group(), e.topic(), e.partition()), e));
        latency.show(l);
        Map<Key, MetricsSnapshot.Partition> p = new HashMap<>();
        snapshot.partitions().forEach(e -> p.put(new Key(e.group(), e.topic(), e.partition()), e));
        partitions.show(p);
        task.show(Map.of(TASK_KEY, snapshot.task()));
    }

    /** The MBeans registered now. */
    synchronized int size() {
        return latency.registered.size() + partitions.registered.size() + task.registered.size();
    }

    /** MBeans registered again since this task began, after someone else unregistered them. */
    synchronized long reregistered() {
        return reregistered;
    }

    /**
     * The ObjectName of the MBean {@code name} belongs to: the domain, the metric group as
     * {@code type}, then the tags in order, each value sanitized by Kafka's {@link Sanitizer} as
     * the reporter does. {@code null} when no such name can be made.
     */
    private static ObjectName objectName(MetricName name) {
        StringBuilder b = new StringBuilder(JMX_PREFIX).append(":type=").append(name.group());
        name.tags().forEach((k, v) -> b.append(',').append(k).append('=').append(Sanitizer.jmxSanitize(v)));
        try {
            return new ObjectName(b.toString());
        } catch (MalformedObjectNameException e) {
            return null;
        }
    }

    /**
     * Whether the MBean that {@code names} (one MBean's attributes) make is missing from the
     * server. A name this class cannot make counts as present: nothing is registered again.
     */
    private static boolean missing(List<MetricName> names) {
        ObjectName on = names.isEmpty() ? null : objectName(names.get(0));
        return on != null && !SERVER.isRegistered(on);
    }

    private static double orNaN(OptionalDouble v) {
        return v.isPresent() ? v.getAsDouble() : Double.NaN;
    }

    /** The MBeans of one metric group (JMX type): one per entry of a reading, keyed by group x partition. */
    private final class Family<E> {
        private final String metricGroup;
        private final List<Attribute<E>> attributes;
        private final Map<Key, List<MetricName>> registered = new HashMap<>();
        /** The latest reading; replaced whole, read by JMX threads. */
        private volatile Map<Key, E> latest = Map.of();

        Family(String metricGroup, List<Attribute<E>> attributes) {
            this.metricGroup = metricGroup;
            this.attributes = attributes;
        }

        void show(Map<Key, E> now) {
            latest = now;
            registered.entrySet().removeIf(e -> {
                if (now.containsKey(e.getKey())) {
                    return false;
                }
                e.getValue().forEach(metrics::removeMetric);
                return true;
            });
            for (Map.Entry<Key, List<MetricName>> e : registered.entrySet()) {
                if (missing(e.getValue())) {
                    // The reporter still holds it: removed and added, it registers it again.
                    e.getValue().forEach(metrics::removeMetric);
                    e.setValue(register(e.getKey()));
                    reregistered++;
                    LOG.info("MBean {} of {}->{} was unregistered by someone else (another connector with the "
                            + "same aliases stopped?); registered it again",
                            objectName(e.getValue().get(0)), source, target);
                }
            }
            for (Key key : now.keySet()) {
                registered.computeIfAbsent(key, this::register);
            }
        }

        private List<MetricName> register(Key key) {
            // Java's tag order is the ObjectName's key order, which dashboards' patterns match.
            Map<String, String> tags = new LinkedHashMap<>();
            tags.put("source", source);
            tags.put("target", target);
            if (key != TASK_KEY) {
                tags.put("group", key.group());
                tags.put("topic", key.topic());
                tags.put("partition", Integer.toString(key.partition()));
            } else {
                // Tasks of one connector (and connectors with the same aliases) on one worker.
                tags.put("connector", connector);
                tags.put("task", taskIndex);
            }
            List<MetricName> names = new ArrayList<>();
            for (Attribute<E> a : attributes) {
                MetricName name = metrics.metricName(a.name(), metricGroup, a.description(), tags);
                metrics.addMetric(name, (Measurable) (config, nowMs) -> {
                    E entry = latest.get(key);
                    return entry == null ? Double.NaN : a.value().applyAsDouble(entry);
                });
                names.add(name);
            }
            if (key == TASK_KEY) {
                MetricName reason = metrics.metricName("retry-reason", metricGroup,
                        "Why the task is retrying now (empty when it is not).", tags);
                metrics.addMetric(reason, (Gauge<String>) (config, nowMs) -> {
                    E entry = latest.get(key);
                    return entry instanceof MetricsSnapshot.Task t ? t.retries().reason().orElse("") : "";
                });
                names.add(reason);
            }
            return names;
        }

        void clear() {
            registered.clear();
            latest = Map.of();
        }
    }

    /** Unregisters every MBean of this task. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        latency.clear();
        partitions.clear();
        task.clear();
        metrics.close();
    }
}
