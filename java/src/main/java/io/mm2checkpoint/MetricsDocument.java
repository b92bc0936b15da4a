package io.mm2checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Reads the native library's metrics document (JSON, schema version
 * {@link MetricsSnapshot#SCHEMA_VERSION}) into {@link MetricsSnapshot}. Jackson's tree model
 * does the parsing; this class only maps fields, naming the one that is missing or of the wrong
 * type. Unknown fields are ignored: within a version the library only adds fields.
 */
final class MetricsDocument {
    /** Thread-safe once configured; tree reading needs no configuration. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private MetricsDocument() {}

    static MetricsSnapshot read(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("metrics document: not JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("metrics document: not a JSON object");
        }
        int version = (int) integer(root, "schema_version");
        if (version != MetricsSnapshot.SCHEMA_VERSION) {
            throw new IllegalArgumentException("metrics document: schema_version " + version
                    + ", this library reads " + MetricsSnapshot.SCHEMA_VERSION);
        }
        List<MetricsSnapshot.CheckpointLatency> latencies = new ArrayList<>();
        for (JsonNode l : array(root, "checkpoint_latency")) {
            JsonNode tags = object(l, "tags", "checkpoint_latency[].");
            String partition = text(tags, "partition", "checkpoint_latency[].tags.");
            latencies.add(new MetricsSnapshot.CheckpointLatency(
                    text(tags, "group", "checkpoint_latency[].tags."),
                    text(tags, "topic", "checkpoint_latency[].tags."),
                    partitionNumber(partition),
                    number(l, "checkpoint-latency-ms", "checkpoint_latency[]."),
                    optionalNumber(l, "checkpoint-latency-ms-min", "checkpoint_latency[]."),
                    optionalNumber(l, "checkpoint-latency-ms-max", "checkpoint_latency[]."),
                    optionalNumber(l, "checkpoint-latency-ms-avg", "checkpoint_latency[].")));
        }
        List<MetricsSnapshot.Partition> partitions = new ArrayList<>();
        for (JsonNode p : array(root, "partitions")) {
            String at = "partitions[].";
            partitions.add(new MetricsSnapshot.Partition(
                    text(p, "group", at),
                    text(p, "topic", at),
                    (int) integer(p, "partition", at),
                    optionalInteger(p, "committed_offset", at),
                    optionalInteger(p, "checkpoint_upstream_offset", at),
                    optionalInteger(p, "checkpoint_downstream_offset", at),
                    optionalInteger(p, "sync_upstream_offset", at),
                    optionalInteger(p, "replay_bound", at),
                    millis(p, "freshness_ms", at),
                    optionalText(p, "skip_reason", at)));
        }
        return new MetricsSnapshot(version, text(root, "source", ""), text(root, "target", ""),
                Instant.ofEpochMilli(integer(root, "time_ms")), task(object(root, "task", "")), latencies, partitions);
    }

    private static MetricsSnapshot.Task task(JsonNode t) {
        String at = "task.";
        JsonNode sync = object(t, "group_offset_sync", at);
        String syncAt = "task.group_offset_sync.";
        JsonNode last = sync.get("last_run");
        Optional<MetricsSnapshot.GroupOffsetSyncRun> lastRun = Optional.empty();
        if (last != null && !last.isNull()) {
            String lastAt = syncAt + "last_run.";
            lastRun = Optional.of(new MetricsSnapshot.GroupOffsetSyncRun(
                    integer(last, "written", lastAt),
                    integer(last, "left_active", lastAt),
                    integer(last, "refused", lastAt),
                    integer(last, "unknown_state", lastAt),
                    integer(last, "up_to_date", lastAt)));
        }
        JsonNode retries = object(t, "retries", at);
        String retriesAt = "task.retries.";
        return new MetricsSnapshot.Task(
                bool(t, "initialized", at),
                millis(t, "load_time_ms", at),
                integer(t, "groups", at),
                integer(t, "cycles", at),
                integer(t, "cycles_failed", at),
                millis(t, "last_cycle_duration_ms", at),
                millis(t, "since_last_successful_cycle_ms", at),
                integer(t, "checkpoints_emitted", at),
                integer(t, "offset_syncs_loaded", at),
                optionalInteger(t, "offset_sync_lag", at),
                integer(t, "records_skipped", at),
                counts(t, "partitions_skipped", at),
                new MetricsSnapshot.GroupOffsetSync(
                        integer(sync, "runs", syncAt),
                        integer(sync, "written", syncAt),
                        integer(sync, "left_active", syncAt),
                        integer(sync, "refused", syncAt),
                        lastRun),
                new MetricsSnapshot.Retries(
                        optionalText(retries, "reason", retriesAt),
                        millis(retries, "retrying_for_ms", retriesAt),
                        integer(retries, "total", retriesAt),
                        counts(retries, "by_kind", retriesAt)));
    }

    /** An unmodifiable copy keeping {@code m}'s iteration order. */
    static <K, V> Map<K, V> orderedCopy(Map<K, V> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }

    private static IllegalArgumentException wrong(String path, String expected) {
        return new IllegalArgumentException("metrics document: `" + path + "` is missing or not " + expected);
    }

    /** Field {@code name} of {@code node}, or null when it is absent or JSON null. */
    private static JsonNode field(JsonNode node, String name) {
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? null : v;
    }

    /** Field {@code name}, which must be present and {@code expected}; {@code at} is its parent's path. */
    private static JsonNode required(JsonNode node, String name, String at, Predicate<JsonNode> is, String expected) {
        JsonNode v = field(node, name);
        if (v == null || !is.test(v)) {
            throw wrong(at + name, expected);
        }
        return v;
    }

    private static long integer(JsonNode node, String name) {
        return integer(node, name, "");
    }

    private static long integer(JsonNode node, String name, String at) {
        return required(node, name, at, v -> v.canConvertToExactIntegral() && v.canConvertToLong(), "an integer")
                .asLong();
    }

    private static OptionalLong optionalInteger(JsonNode node, String name, String at) {
        return field(node, name) == null ? OptionalLong.empty() : OptionalLong.of(integer(node, name, at));
    }

    private static double number(JsonNode node, String name, String at) {
        return required(node, name, at, JsonNode::isNumber, "a number").asDouble();
    }

    private static OptionalDouble optionalNumber(JsonNode node, String name, String at) {
        return field(node, name) == null ? OptionalDouble.empty() : OptionalDouble.of(number(node, name, at));
    }

    /** A duration in (possibly fractional) milliseconds; null is unknown. */
    private static Optional<Duration> millis(JsonNode node, String name, String at) {
        OptionalDouble ms = optionalNumber(node, name, at);
        return ms.isEmpty() ? Optional.empty() : Optional.of(Duration.ofNanos(Math.round(ms.getAsDouble() * 1e6)));
    }

    private static boolean bool(JsonNode node, String name, String at) {
        return required(node, name, at, JsonNode::isBoolean, "true or false").asBoolean();
    }

    private static String text(JsonNode node, String name, String at) {
        return required(node, name, at, JsonNode::isTextual, "a string").asText();
    }

    private static Optional<String> optionalText(JsonNode node, String name, String at) {
        return field(node, name) == null ? Optional.empty() : Optional.of(text(node, name, at));
    }

    private static JsonNode object(JsonNode node, String name, String at) {
        return required(node, name, at, JsonNode::isObject, "an object");
    }

    private static Iterable<JsonNode> array(JsonNode node, String name) {
        return required(node, name, "", JsonNode::isArray, "an array");
    }

    /** An object of integer counts, in the document's order. */
    private static Map<String, Long> counts(JsonNode node, String name, String at) {
        JsonNode o = object(node, name, at);
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            out.put(e.getKey(), integer(o, e.getKey(), at + name + "."));
        }
        return out;
    }

    /** Java's {@code partition} tag is text; the number it holds. */
    private static int partitionNumber(String tag) {
        try {
            return Integer.parseInt(tag);
        } catch (NumberFormatException e) {
            throw wrong("checkpoint_latency[].tags.partition", "a partition number");
        }
    }
}
