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
 * against the groups' committed offsets on the target.
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
            b.translatedDestroy(translated);
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
        long list = b.translatedNew();
        try {
            for (TranslatedOffset o : translated.offsets()) {
                b.translatedAdd(list, o.group(), o.topic(), o.partition(), o.offset(), o.upstreamOffset(),
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
                b.reportDestroy(report);
            }
        } finally {
            b.translatedDestroy(list);
        }
    }

    private static TranslatedOffsets drain(NativeBinding b, long t) {
        int n = b.translatedLen(t);
        List<TranslatedOffset> offsets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NativeRows.TranslatedOffsetRow row = NativeRows.translatedOffset(b, t, i);
            offsets.add(new TranslatedOffset(row.group(), row.topic(), Math.toIntExact(row.partition()),
                    row.offset(), row.upstreamOffset(), row.metadata()));
        }
        long[] counts = b.translatedCounts(t);
        return new TranslatedOffsets(b.translatedCheckpointsTopic(t), offsets, counts[0], counts[1], counts[2]);
    }

    private static FailoverReport drainReport(NativeBinding b, long r) {
        int n = b.reportLen(r);
        List<PartitionFailover> partitions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NativeRows.FailoverRow row = NativeRows.failover(b, r, i);
            long current = row.currentOffset();
            partitions.add(new PartitionFailover(row.group(), row.topic(), Math.toIntExact(row.partition()),
                    row.translatedOffset(), current < 0 ? OptionalLong.empty() : OptionalLong.of(current),
                    row.skipped(), row.reread()));
        }
        long[] totals = b.reportTotals(r);
        return new FailoverReport(partitions, unsigned(totals[2]), unsigned(totals[3]), totals[1]);
    }

    /** A C uint64_t that may exceed Long.MAX_VALUE, saturated. */
    private static long unsigned(long value) {
        return value < 0 ? Long.MAX_VALUE : value;
    }
}
