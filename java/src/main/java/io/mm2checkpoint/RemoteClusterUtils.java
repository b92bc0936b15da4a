package io.mm2checkpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Failover offset translation, what Kafka's {@code RemoteClusterUtils.translateOffsets} does,
 * without Kafka jars: read the checkpoints a checkpoint task wrote on the <b>target</b> cluster
 * and return where each consumer group should resume there; plus a dry run of that switch
 * against the groups' committed offsets on the target, and committing it into the groups idle
 * there. Failback, the other direction, translates the groups' commits on the target back to
 * the source ({@link #translateOffsetsBack}).
 *
 * <p>{@code targetConfig} holds librdkafka settings for the target cluster (at least
 * {@code bootstrap.servers}; security settings as librdkafka spells them). It may also hold
 * {@code replication.policy.class}, {@code replication.policy.separator} and
 * {@code replication.policy.internal.topic.separator.enabled}, set as for the checkpoint task:
 * they name the checkpoints topic ({@code <sourceAlias>.checkpoints.internal} by default) and
 * are not passed to librdkafka.
 *
 * <p>Differences from Java's: reaching the timeout before the end of the checkpoints topic
 * throws ({@link Mm2Exception#TIMED_OUT}) instead of returning a partial map; a missing
 * checkpoints topic throws ({@link Mm2Exception#KAFKA}, naming it) instead of returning an empty
 * map; many groups are read in one pass. Both calls block the calling thread up to their
 * timeout; any number of threads may call them at once.
 */
public final class RemoteClusterUtils {
    private RemoteClusterUtils() {}

    /**
     * The translated offsets of the selected groups.
     *
     * @param targetConfig librdkafka settings of the target cluster (see the class comment)
     * @param sourceAlias  the alias of the cluster the groups consumed from (e.g. {@code primary})
     * @param groups       which groups
     * @param timeout      bound of the whole call
     * @throws Mm2Exception {@link Mm2Exception#INVALID_ARGUMENT} for a regex that does not compile
     *                      (the message has the parser's reason) or an empty selection,
     *                      {@link Mm2Exception#INVALID_CONFIG} for a rejected setting,
     *                      {@link Mm2Exception#KAFKA} when the topic is missing or a read fails,
     *                      {@link Mm2Exception#TIMED_OUT} when the end was not reached in time
     */
    public static TranslatedOffsets translateOffsets(Map<String, String> targetConfig, String sourceAlias,
            GroupSelector groups, Duration timeout) {
        Objects.requireNonNull(sourceAlias, "sourceAlias");
        Objects.requireNonNull(groups, "groups");
        int ms = NativeLibrary.timeoutMillis(timeout);
        NativeBinding b = NativeLibrary.binding();
        long conf = CheckpointConfig.toNative(b, Objects.requireNonNull(targetConfig, "targetConfig"));
        long translated;
        try {
            translated = b.translateOffsets(conf, sourceAlias, groups.kind().ordinal(), groups.groups(), ms);
        } finally {
            b.confDestroy(conf);
        }
        try {
            return drain(b, translated);
        } finally {
            b.translatedOffsetsDestroy(translated);
        }
    }

    /** {@link #translateOffsets(Map, String, GroupSelector, Duration)} for one group. */
    public static TranslatedOffsets translateOffsets(Map<String, String> targetConfig, String sourceAlias,
            String consumerGroupId, Duration timeout) {
        return translateOffsets(targetConfig, sourceAlias, GroupSelector.one(consumerGroupId), timeout);
    }

    /**
     * Compares each entry of {@code translated} with its group's committed offset on the target
     * now. Changes nothing. An empty {@code translated} gives an empty report without contacting
     * the cluster.
     *
     * @param targetConfig as for {@link #translateOffsets(Map, String, GroupSelector, Duration)}
     * @param translated   a translation, or a plan made with {@link TranslatedOffsets#of}
     * @param timeout      bound of the whole call
     * @throws Mm2Exception {@link Mm2Exception#TIMED_OUT} when the broker does not answer in time,
     *                      {@link Mm2Exception#KAFKA} when a group's offsets cannot be fetched
     */
    public static FailoverReport failoverReport(Map<String, String> targetConfig, TranslatedOffsets translated,
            Duration timeout) {
        Objects.requireNonNull(translated, "translated");
        int ms = NativeLibrary.timeoutMillis(timeout);
        NativeBinding b = NativeLibrary.binding();
        long list = b.translatedOffsetsNew();
        try {
            for (TranslatedOffset o : translated.offsets()) {
                b.translatedOffsetsAdd(list, o.group(), o.topic(), o.partition(), o.offset(), o.upstreamOffset(),
                        o.metadata());
            }
            long conf = CheckpointConfig.toNative(b, Objects.requireNonNull(targetConfig, "targetConfig"));
            long report;
            try {
                report = b.failoverReport(conf, list, ms);
            } finally {
                b.confDestroy(conf);
            }
            try {
                return drainReport(b, report);
            } finally {
                b.failoverReportDestroy(report);
            }
        } finally {
            b.translatedOffsetsDestroy(list);
        }
    }

    /**
     * Failback: translates the selected groups' committed offsets on the forward flow's target
     * (the replica cluster) back to its source, with the flow's offset syncs read to their end
     * now. Only commits on replica topics of the source count (e.g. {@code primary.orders}).
     * The answer is never ahead; see {@link FailbackOffset}. {@link FailbackOffsets#asPlan}
     * feeds the dry run and the commit on the source cluster.
     *
     * @param flow    the forward flow's checkpoint configuration, as its {@link CheckpointTask}
     *                takes it (aliases, both clusters, offset-syncs location, policy)
     * @param groups  which groups (a regex lists the replica cluster's groups first)
     * @param timeout bound of the whole call
     * @throws Mm2Exception {@link Mm2Exception#INVALID_CONFIG} for a configuration a task would
     *                      refuse and under {@code IdentityReplicationPolicy},
     *                      {@link Mm2Exception#KAFKA} for a missing offset-syncs topic (named) or
     *                      a group whose offsets cannot be read, {@link Mm2Exception#TIMED_OUT}
     */
    public static FailbackOffsets translateOffsetsBack(CheckpointConfig flow, GroupSelector groups,
            Duration timeout) {
        Objects.requireNonNull(flow, "flow");
        Objects.requireNonNull(groups, "groups");
        int ms = NativeLibrary.timeoutMillis(timeout);
        NativeBinding b = NativeLibrary.binding();
        long conf = flow.toNative(b);
        long back;
        try {
            back = b.translateOffsetsBack(conf, groups.kind().ordinal(), groups.groups(), ms);
        } finally {
            b.confDestroy(conf);
        }
        try {
            int n = Math.toIntExact(b.failbackOffsetsLen(back));
            List<FailbackOffset> offsets = new ArrayList<>(n);
            List<UntranslatedOffset> untranslated = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                NativeRows.FailbackRow row = NativeRows.failback(b, back, i);
                int partition = Math.toIntExact(row.partition());
                if (row.offset() < 0) {
                    untranslated.add(new UntranslatedOffset(row.group(), row.replicaTopic(), partition,
                            row.replicaOffset(), row.untranslatedReason()));
                } else {
                    offsets.add(new FailbackOffset(row.group(), row.topic(), partition, row.offset(),
                            row.rereadsAtMost(), row.replicaTopic(), row.replicaOffset(), row.metadata()));
                }
            }
            return new FailbackOffsets(offsets, untranslated);
        } finally {
            b.failbackOffsetsDestroy(back);
        }
    }

    /**
     * Commits a translation (a failover's, or a failback's {@link FailbackOffsets#asPlan}) into
     * the groups on the cluster {@code clusterConfig} reaches, by the group offset sync's rules:
     * only into a group absent there or without members, never moving a partition backwards,
     * nothing into a group whose state cannot be read. A partition the broker refuses is an
     * entry with outcome {@code failed}, not an exception.
     *
     * @param clusterConfig librdkafka settings of the cluster to commit on, as for
     *                      {@link #failoverReport}
     * @param plan          the offsets to commit
     * @param timeout       bound of the whole call
     * @throws Mm2Exception {@link Mm2Exception#KAFKA} when the groups cannot be described,
     *                      {@link Mm2Exception#TIMED_OUT}
     */
    public static CommitReport commitTranslatedOffsets(Map<String, String> clusterConfig, TranslatedOffsets plan,
            Duration timeout) {
        Objects.requireNonNull(plan, "plan");
        int ms = NativeLibrary.timeoutMillis(timeout);
        NativeBinding b = NativeLibrary.binding();
        long list = b.translatedOffsetsNew();
        try {
            for (TranslatedOffset o : plan.offsets()) {
                b.translatedOffsetsAdd(list, o.group(), o.topic(), o.partition(), o.offset(), o.upstreamOffset(),
                        o.metadata());
            }
            long conf = CheckpointConfig.toNative(b, Objects.requireNonNull(clusterConfig, "clusterConfig"));
            long report;
            try {
                report = b.commitTranslatedOffsets(conf, list, ms);
            } finally {
                b.confDestroy(conf);
            }
            try {
                int n = Math.toIntExact(b.commitReportLen(report));
                List<PartitionCommit> partitions = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    NativeRows.CommitRow row = NativeRows.commit(b, report, i);
                    partitions.add(new PartitionCommit(row.group(), row.topic(), Math.toIntExact(row.partition()),
                            row.offset(), row.outcome(), row.reason()));
                }
                return new CommitReport(partitions);
            } finally {
                b.commitReportDestroy(report);
            }
        } finally {
            b.translatedOffsetsDestroy(list);
        }
    }

    private static TranslatedOffsets drain(NativeBinding b, long t) {
        int n = Math.toIntExact(b.translatedOffsetsLen(t));
        List<TranslatedOffset> offsets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NativeRows.TranslatedOffsetRow row = NativeRows.translatedOffset(b, t, i);
            offsets.add(new TranslatedOffset(row.group(), row.topic(), Math.toIntExact(row.partition()),
                    row.offset(), row.upstreamOffset(), row.metadata()));
        }
        NativeStructs.Values counts = new NativeStructs.Values(NativeStructs.MM_TRANSLATION_COUNTS,
                b.translatedOffsetsGetCounts(t));
        return new TranslatedOffsets(b.translatedOffsetsCheckpointsTopic(t), offsets, counts.get("records_read"),
                counts.get("malformed_records"), counts.get("negative_offset_records"));
    }

    private static FailoverReport drainReport(NativeBinding b, long r) {
        int n = Math.toIntExact(b.failoverReportLen(r));
        List<PartitionFailover> partitions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NativeRows.FailoverRow row = NativeRows.failover(b, r, i);
            long current = row.currentOffset();
            partitions.add(new PartitionFailover(row.group(), row.topic(), Math.toIntExact(row.partition()),
                    row.translatedOffset(), current < 0 ? OptionalLong.empty() : OptionalLong.of(current),
                    row.skipped(), row.reread()));
        }
        NativeStructs.Values totals = new NativeStructs.Values(NativeStructs.MM_FAILOVER_TOTALS, b.failoverReportGetTotals(r));
        return new FailoverReport(partitions, unsigned(totals.get("skipped")), unsigned(totals.get("reread")),
                totals.get("without_current_offset"));
    }

    /** A C uint64_t that may exceed Long.MAX_VALUE, saturated. */
    private static long unsigned(long value) {
        return value < 0 ? Long.MAX_VALUE : value;
    }
}
