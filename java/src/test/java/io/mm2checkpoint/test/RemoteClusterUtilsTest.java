package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.CommitReport;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.FailbackOffset;
import io.mm2checkpoint.FailbackOffsets;
import io.mm2checkpoint.FailoverReport;
import io.mm2checkpoint.GroupSelector;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PartitionCommit;
import io.mm2checkpoint.PartitionFailover;
import io.mm2checkpoint.RemoteClusterUtils;
import io.mm2checkpoint.TranslatedOffset;
import io.mm2checkpoint.TranslatedOffsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failover translation from Java: a task writes checkpoints on embedded clusters, then
 * {@link RemoteClusterUtils} reads them back by group, list and regex, and reports what moving
 * the groups would skip or re-read against their commits on the target.
 */
@Timeout(120)
public final class RemoteClusterUtilsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** g1@150 on orders-0 is past the sync 100 -> 90, so 91; the others hit a sync exactly. */
    private static final List<TranslatedOffset> EXPECTED = List.of(
            new TranslatedOffset("g1", "source.orders", 0, 91, 150, "m1"),
            new TranslatedOffset("g1", "source.orders", 1, 40, 50, ""),
            new TranslatedOffset("g2", "source.orders", 0, 90, 100, "m2"));

    /** Embedded clusters whose checkpoints topic holds the checkpoints of g1 and g2. */
    private static Fixture checkpointed() {
        Fixture f = new Fixture();
        try {
            f.syncs(0, 0, 0, 100, 90);
            f.syncs(1, 50, 40);
            f.commit("g1", 0, 150, "m1");
            f.commit("g1", 1, 50, "");
            f.commit("g2", 0, 100, "m2");
            try (CheckpointTask task = new CheckpointTask(f.config("g1,g2").build())) {
                task.start();
                Check.equal(3, Fixture.pollUntilCheckpoints(task).size(), "checkpoints written");
            }
            return f;
        } catch (RuntimeException | Error e) {
            f.close();
            throw e;
        }
    }

    private static Map<String, String> target(Fixture f) {
        return Map.of("bootstrap.servers", f.clusters.bootstrap(Side.TARGET));
    }

    /**
     * The drop-in for Kafka's {@code RemoteClusterUtils.translateOffsets}: Java client
     * properties in (a list-valued bootstrap, a deserializer class that must be ignored), Kafka's
     * {@code TopicPartition -> OffsetAndMetadata} out, equal to the native translation.
     */
    @Test
    public void theKafkaTypedDropInReturnsKafkasTypes() throws Exception {
        try (Fixture f = checkpointed()) {
            Map<String, Object> properties = Map.of(
                    "bootstrap.servers", List.of(f.clusters.bootstrap(Side.TARGET)),
                    "key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> got =
                    io.mm2checkpoint.kafka.RemoteClusterUtils.translateOffsets(properties, "source", "g1", TIMEOUT);
            Check.equal(Map.of(
                    new org.apache.kafka.common.TopicPartition("source.orders", 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(91, "m1"),
                    new org.apache.kafka.common.TopicPartition("source.orders", 1),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(40, "")), got, "g1 in Kafka's types");
            Check.equal(Map.of(), io.mm2checkpoint.kafka.RemoteClusterUtils.translateOffsets(properties, "source",
                    "nobody", TIMEOUT), "a group without checkpoints");
            Check.throwsType(java.util.concurrent.TimeoutException.class,
                    () -> io.mm2checkpoint.kafka.RemoteClusterUtils.translateOffsets(
                            Map.of("bootstrap.servers", "127.0.0.1:1"), "source", "g1", Duration.ofMillis(300)),
                    "a dead cluster times out as Kafka's does");
        }
        Fixture.assertNothingLive("after the Kafka-typed translation");
    }

    @Test
    public void translatesOneGroupAListAndARegexInOneRead() {
        try (Fixture f = checkpointed()) {
            Map<String, String> target = target(f);
            TranslatedOffsets one = RemoteClusterUtils.translateOffsets(target, "source", "g1", TIMEOUT);
            Check.equal(EXPECTED.subList(0, 2), one.offsets(), "g1");
            Check.equal(Fixture.CHECKPOINTS, one.checkpointsTopic(), "topic read");
            Check.isTrue(one.recordsRead() >= 3, "records read: " + one.recordsRead());
            Check.equal(0L, one.malformedRecords() + one.negativeOffsetRecords(), "records skipped");

            TranslatedOffsets list = RemoteClusterUtils.translateOffsets(target, "source",
                    GroupSelector.list("g2", "g1", "nobody"), TIMEOUT);
            Check.equal(EXPECTED, list.offsets(), "g2, g1, nobody");
            Check.equal(List.of(EXPECTED.get(2)), list.forGroup("g2"), "forGroup");
            Check.equal(List.of("g1", "g2"), List.copyOf(list.groups()), "groups");

            Check.equal(EXPECTED, RemoteClusterUtils.translateOffsets(target, "source", GroupSelector.regex("g\\d"),
                    TIMEOUT).offsets(), "regex g\\d");
            Check.equal(List.of(), RemoteClusterUtils.translateOffsets(target, "source", GroupSelector.regex("g"),
                    TIMEOUT).offsets(), "regex g matches no whole id");
        }
        Fixture.assertNothingLive("after translating");
    }

    @Test
    public void failoverReportCountsSkipsAndRereadsAgainstTargetCommits() {
        try (Fixture f = checkpointed()) {
            Map<String, String> target = target(f);
            f.clusters.commitOffset(Side.TARGET, "g1", "source.orders", 0, 80, "");
            f.clusters.commitOffset(Side.TARGET, "g1", "source.orders", 1, 45, "");
            TranslatedOffsets translated = RemoteClusterUtils.translateOffsets(target, "source",
                    GroupSelector.regex("g.*"), TIMEOUT);
            FailoverReport report = RemoteClusterUtils.failoverReport(target, translated, TIMEOUT);
            Check.equal(List.of(
                    new PartitionFailover("g1", "source.orders", 0, 91, OptionalLong.of(80), 11, 0),
                    new PartitionFailover("g1", "source.orders", 1, 40, OptionalLong.of(45), 0, 5),
                    new PartitionFailover("g2", "source.orders", 0, 90, OptionalLong.empty(), 0, 0)),
                    report.partitions(), "report");
            Check.equal(11L, report.totalSkipped(), "total skipped");
            Check.equal(5L, report.totalReread(), "total reread");
            Check.equal(1L, report.withoutCurrentOffset(), "entries without a target commit");
            Check.equal(2, report.forGroup("g1").size(), "forGroup");

            // A plan made in Java (not read from the topic) goes through the same report.
            TranslatedOffsets plan = TranslatedOffsets.of(List.of(
                    new TranslatedOffset("g1", "source.orders", 0, 70, -1, "")));
            Check.equal(List.of(new PartitionFailover("g1", "source.orders", 0, 70, OptionalLong.of(80), 0, 10)),
                    RemoteClusterUtils.failoverReport(target, plan, TIMEOUT).partitions(), "plan report");
            Check.equal(List.of(), RemoteClusterUtils.failoverReport(Map.of("bootstrap.servers", "127.0.0.1:1"),
                    TranslatedOffsets.of(List.of()), TIMEOUT).partitions(), "empty plan, no request");
        }
        Fixture.assertNothingLive("after the report");
    }

    /**
     * Failback: g1 went on on the target, and its commits on the replica topic translate back to
     * the source with the flow's syncs; the dry run and the commit go through the plan.
     */
    @Test
    public void failbackTranslatesCommitsOnTheReplicaBackAndCommitsOnlyIntoIdleGroups() {
        try (Fixture f = checkpointed()) {
            // orders-0 at 95 is past the sync 100 -> 90; orders-1 at 40 is the sync 50 -> 40.
            f.clusters.commitOffset(Side.TARGET, "g1", "source.orders", 0, 95, "b");
            f.clusters.commitOffset(Side.TARGET, "g1", "source.orders", 1, 40, "");
            FailbackOffsets back = RemoteClusterUtils.translateOffsetsBack(f.config("g1,g2").build(),
                    GroupSelector.list("g1", "g2"), TIMEOUT);
            Check.equal(List.of(
                    new FailbackOffset("g1", "orders", 0, 101, 4, "source.orders", 95, "b"),
                    new FailbackOffset("g1", "orders", 1, 50, 0, "source.orders", 40, "")),
                    back.offsets(), "g1 translated back");
            Check.equal(List.of(), back.untranslated(), "nothing untranslated");
            Check.equal(4L, back.totalRereadsAtMost(), "re-reads at most");
            Check.equal(2, back.forGroup("g1").size(), "forGroup");

            // On the source g1 still sits where it committed before failing over (150, 50).
            Map<String, String> source = Map.of("bootstrap.servers", f.clusters.bootstrap(Side.SOURCE));
            FailoverReport report = RemoteClusterUtils.failoverReport(source, back.asPlan(), TIMEOUT);
            Check.equal(List.of(
                    new PartitionFailover("g1", "orders", 0, 101, OptionalLong.of(150), 0, 49),
                    new PartitionFailover("g1", "orders", 1, 50, OptionalLong.of(50), 0, 0)),
                    report.partitions(), "dry run on the source");
            Check.isTrue(report.caughtUp("g1"), "g1 is at or past its translation on the source");
            Check.isTrue(!report.caughtUp("g2"), "a group without entries is not caught up");

            // The mock describes every group as unknown: nothing is written, each says why.
            CommitReport commits = RemoteClusterUtils.commitTranslatedOffsets(source, back.asPlan(), TIMEOUT);
            Check.equal(List.of(
                    new PartitionCommit("g1", "orders", 0, 101, "left", "group_state_unknown"),
                    new PartitionCommit("g1", "orders", 1, 50, "left", "group_state_unknown")),
                    commits.partitions(), "commits");
            Check.equal(2L, commits.left(), "left alone");
            Check.equal(0L, commits.written() + commits.failed(), "written or failed");

            Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> RemoteClusterUtils.translateOffsetsBack(
                    f.config("g1").set("replication.policy.class", "IdentityReplicationPolicy").build(),
                    GroupSelector.one("g1"), TIMEOUT), "identity policy");
            Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "identity policy code");
            Check.isTrue(e.nativeMessage().contains("DefaultReplicationPolicy"), "why: " + e.nativeMessage());
        }
        Fixture.assertNothingLive("after failing back");
    }

    @Test
    public void errorsCarryTheirCodeAndReason() {
        try (Fixture f = checkpointed()) {
            Map<String, String> target = target(f);
            Mm2Exception e = Check.throwsType(Mm2Exception.class,
                    () -> RemoteClusterUtils.translateOffsets(target, "source", GroupSelector.regex("("), TIMEOUT),
                    "bad regex");
            Check.equal(Mm2Exception.INVALID_ARGUMENT, e.code(), "bad regex code");
            Check.isTrue(e.nativeMessage().startsWith("`groups` is not a valid regex: ")
                    && e.nativeMessage().contains("unclosed group"), "bad regex reason: " + e.nativeMessage());

            e = Check.throwsType(Mm2Exception.class,
                    () -> RemoteClusterUtils.translateOffsets(target, "nowhere", "g1", TIMEOUT), "wrong alias");
            Check.equal(Mm2Exception.KAFKA, e.code(), "wrong alias code");
            Check.isTrue(e.nativeMessage().contains("`nowhere.checkpoints.internal` does not exist"),
                    "wrong alias names the topic: " + e.nativeMessage());

            Map<String, String> underscored = Map.of("bootstrap.servers", f.clusters.bootstrap(Side.TARGET),
                    "replication.policy.separator", "_");
            e = Check.throwsType(Mm2Exception.class,
                    () -> RemoteClusterUtils.translateOffsets(underscored, "source", "g1", TIMEOUT), "separator");
            Check.isTrue(e.nativeMessage().contains("`source_checkpoints_internal`"), "policy applied: " + e.getMessage());

            e = Check.throwsType(Mm2Exception.class, () -> RemoteClusterUtils.translateOffsets(
                    Map.of("bootstrap.servers", "127.0.0.1:1"), "source", "g1", Duration.ofSeconds(1)), "dead cluster");
            Check.equal(Mm2Exception.TIMED_OUT, e.code(), "dead cluster code: " + e.getMessage());

            e = Check.throwsType(Mm2Exception.class, () -> RemoteClusterUtils.translateOffsets(
                    Map.of("bootstrap.servers", "127.0.0.1:1", "replication.policy.class", "com.acme.Policy"),
                    "source", "g1", TIMEOUT), "unsupported policy");
            Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "unsupported policy code");
            Check.equal("replication.policy.class", e.configKey().orElse(null), "key: " + e.getMessage());

            Check.throwsType(IllegalArgumentException.class, () -> GroupSelector.list("a,b"), "comma in a list item");
            Check.throwsType(IllegalArgumentException.class,
                    () -> new TranslatedOffset("g", "t", 0, -1, -1, ""), "negative offset");
            Check.throwsType(IllegalArgumentException.class,
                    () -> RemoteClusterUtils.translateOffsets(target, "source", "g1", Duration.ofSeconds(-1)),
                    "negative timeout");
        }
        Fixture.assertNothingLive("after failed translations");
    }
}
