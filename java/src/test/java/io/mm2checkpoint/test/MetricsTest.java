package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.MetricsSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The typed metrics snapshot: the JSON document read field by field (a canned document of
 * schema version 1), and a real task's reading through this run's binding (JNI or Panama).
 */
@Timeout(120)
public final class MetricsTest {
    static String cannedDocument() throws IOException {
        try (InputStream in = MetricsTest.class.getResourceAsStream("/io/mm2checkpoint/metrics-document-v1.json")) {
            Check.isTrue(in != null, "test resource metrics-document-v1.json");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    public void everyFieldOfAVersion1DocumentIsReadAndNullsAreEmpty() throws IOException {
        MetricsSnapshot s = MetricsSnapshot.fromJson(cannedDocument());
        Check.equal(1, s.schemaVersion(), "schema version");
        Check.equal("east", s.source(), "source");
        Check.equal("west", s.target(), "target");
        Check.equal(Instant.ofEpochMilli(1764612000123L), s.time(), "time");

        MetricsSnapshot.Task t = s.task();
        Check.isTrue(t.initialized(), "initialized");
        Check.equal(Optional.of(Duration.ofNanos(812_500_000)), t.loadTime(), "load time (fractional ms)");
        Check.equal(2L, t.groups(), "groups");
        Check.equal(40L, t.cycles(), "cycles");
        Check.equal(1L, t.cyclesFailed(), "cycles failed");
        Check.equal(Optional.of(Duration.ofNanos(12_250_000)), t.lastCycleDuration(), "last cycle duration");
        Check.equal(Optional.of(Duration.ofMillis(480)), t.sinceLastSuccessfulCycle(), "since last successful cycle");
        Check.equal(77L, t.checkpointsEmitted(), "checkpoints emitted");
        Check.equal(1500L, t.offsetSyncsLoaded(), "offset syncs loaded");
        Check.equal(OptionalLong.of(3), t.offsetSyncLag(), "offset sync lag");
        Check.equal(0L, t.recordsSkipped(), "records skipped");
        Map<String, Long> skipped = new LinkedHashMap<>();
        skipped.put("no_offset_sync", 1L);
        skipped.put("upstream_ahead", 0L);
        Check.equal(skipped, t.partitionsSkipped(), "partitions skipped by reason");
        Check.equal(List.of("no_offset_sync", "upstream_ahead"), List.copyOf(t.partitionsSkipped().keySet()),
                "reasons in the document's order");
        Check.equal(new MetricsSnapshot.GroupOffsetSync(4, 10, 2, 0,
                Optional.of(new MetricsSnapshot.GroupOffsetSyncRun(1, 1, 0, 0, 3))), t.groupOffsetSync(),
                "group offset sync");
        Check.equal(new MetricsSnapshot.Retries(Optional.empty(), Optional.empty(), 2,
                Map.of("startup", 2L, "group_discovery", 0L)), t.retries(), "retries");

        Check.equal(List.of(
                new MetricsSnapshot.CheckpointLatency("billing", "east.orders", 0, 21.0, OptionalDouble.of(4.5),
                        OptionalDouble.of(30.0), OptionalDouble.of(18.25)),
                new MetricsSnapshot.CheckpointLatency("a,b=c:d", "east.orders", 1, 0.0, OptionalDouble.empty(),
                        OptionalDouble.empty(), OptionalDouble.empty())),
                s.checkpointLatency(), "checkpoint latency (an empty window reads as empty, Java's NaN)");
        Check.equal(List.of(
                new MetricsSnapshot.Partition("billing", "orders", 0, OptionalLong.of(150), OptionalLong.of(150),
                        OptionalLong.of(91), OptionalLong.of(100), OptionalLong.of(50),
                        Optional.of(Duration.ofNanos(950_500_000)), Optional.empty()),
                new MetricsSnapshot.Partition("a,b=c:d", "orders", 1, OptionalLong.of(7), OptionalLong.empty(),
                        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(),
                        Optional.of("no_offset_sync"))),
                s.partitions(), "partitions");
    }

    @Test
    public void anotherSchemaVersionOrABrokenFieldIsRefusedNamingIt() throws IOException {
        String doc = cannedDocument();
        String version = Check.throwsType(IllegalArgumentException.class,
                () -> MetricsSnapshot.fromJson(doc.replace("\"schema_version\": 1", "\"schema_version\": 2")),
                "schema version 2").getMessage();
        Check.isTrue(version.contains("schema_version 2") && version.contains("reads 1"), version);
        String missing = Check.throwsType(IllegalArgumentException.class,
                () -> MetricsSnapshot.fromJson(doc.replace("\"cycles_failed\"", "\"cycles_failed_renamed\"")),
                "a missing field").getMessage();
        Check.isTrue(missing.contains("`task.cycles_failed`"), missing);
        String wrongType = Check.throwsType(IllegalArgumentException.class,
                () -> MetricsSnapshot.fromJson(doc.replace("\"replay_bound\": 50", "\"replay_bound\": \"50\"")),
                "a string where an integer belongs").getMessage();
        Check.isTrue(wrongType.contains("`partitions[].replay_bound`") && wrongType.contains("integer"), wrongType);
        String notJson = Check.throwsType(IllegalArgumentException.class,
                () -> MetricsSnapshot.fromJson("{\"schema_version\": 1,"), "cut text").getMessage();
        Check.isTrue(notJson.startsWith("metrics document: not JSON"), notJson);
    }

    /**
     * A real task, read through this run's binding: once a cycle wrote the checkpoints, the
     * reading has MM2's latency per group x checkpointed partition (tagged with the renamed topic,
     * as Java tags it) and the replay bound per group x upstream partition.
     */
    @Test
    public void aTasksReadingHasLatencyAndReplayBoundPerGroupPartition() {
        try (Fixture f = new Fixture()) {
            f.syncs(0, 0, 0, 100, 90);
            f.commit("g1", 0, 150, "");
            try (CheckpointTask task = new CheckpointTask(f.config("g1").build())) {
                task.start();
                Fixture.pollUntilCheckpoints(task);
                MetricsSnapshot s = task.metrics();
                Check.equal("source", s.source(), "source alias");
                Check.equal("target", s.target(), "target alias");
                Check.isTrue(s.task().initialized(), "initialized");
                Check.isTrue(s.task().cycles() >= 1, "cycles: " + s.task());
                Check.equal(1L, s.task().checkpointsEmitted(), "checkpoints emitted");
                Check.equal(1, s.checkpointLatency().size(), "latency entries: " + s.checkpointLatency());
                MetricsSnapshot.CheckpointLatency l = s.checkpointLatency().get(0);
                Check.equal(List.of("g1", "source.orders", 0), List.of(l.group(), l.topic(), l.partition()),
                        "latency tags");
                Check.isTrue(l.lastMs() >= 0 && l.maxMs().isPresent() && l.maxMs().getAsDouble() >= l.lastMs(),
                        "latency values: " + l);
                MetricsSnapshot.Partition p = s.partitions().stream()
                        .filter(x -> x.group().equals("g1") && x.partition() == 0).findFirst()
                        .orElseThrow(() -> new AssertionError("no partition entry for g1/orders-0: " + s.partitions()));
                Check.equal("orders", p.topic(), "partition entries name the upstream topic");
                // Committed 150, translated through the sync at upstream 100.
                Check.equal(OptionalLong.of(50), p.replayBound(), "replay bound");
                Check.equal(OptionalLong.of(91), p.checkpointDownstreamOffset(), "checkpoint downstream offset");
                String raw = task.metricsJson();
                Check.isTrue(raw.contains("\"schema_version\":1"), "the raw document: " + raw);
            }
        }
    }
}
