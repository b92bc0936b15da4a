package io.mm2checkpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One reading of a checkpoint task's metrics ({@link CheckpointTask#metrics}): MirrorMaker 2's
 * own {@code checkpoint-latency-ms}, how fresh each group's checkpoint is, how many records a
 * consumer would read again after failing over now (the replay bound), and the task's cycles,
 * loads, group offset syncs and retries. The native library renders it as a versioned JSON
 * document (docs/OPERATIONS.md, "The JSON document"); {@link #fromJson} reads that document, so
 * the C statistics callback's documents can be read with it too.
 *
 * <p>A value the library does not know yet is an empty {@code Optional}; Java MM2's NaN (an
 * empty latency window) is an empty {@code OptionalDouble}.
 *
 * @param schemaVersion     the document's {@code schema_version} ({@link #SCHEMA_VERSION})
 * @param source            {@code source.cluster.alias}
 * @param target            {@code target.cluster.alias}
 * @param time              when the reading was taken
 * @param task              task-wide values
 * @param checkpointLatency MM2's {@code checkpoint-latency-ms} per group and checkpointed
 *                          (renamed) partition, as Java's {@code MirrorCheckpointMetrics} tags it
 * @param partitions        per group and upstream partition: freshness, replay bound, skips
 */
public record MetricsSnapshot(
        int schemaVersion,
        String source,
        String target,
        Instant time,
        Task task,
        List<CheckpointLatency> checkpointLatency,
        List<Partition> partitions) {

    /** The document version this class reads; a document of another version is refused. */
    public static final int SCHEMA_VERSION = 1;

    /** Rejects null fields; the lists are copied (unmodifiable). */
    public MetricsSnapshot {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(task, "task");
        checkpointLatency = List.copyOf(checkpointLatency);
        partitions = List.copyOf(partitions);
    }

    /**
     * Reads a metrics document of schema version {@link #SCHEMA_VERSION}. Fields this class does
     * not know are ignored (a version only ever adds fields).
     *
     * @throws IllegalArgumentException naming the field when the text is not such a document, or
     *                                  naming both versions when its {@code schema_version} differs
     */
    public static MetricsSnapshot fromJson(String json) {
        return MetricsDocument.read(json);
    }

    /**
     * Task-wide metrics.
     *
     * @param initialized              whether both stores (checkpoints, offset syncs) finished loading
     * @param loadTime                 time from start to both stores loaded, once they are
     * @param groups                   groups this task checkpoints now
     * @param cycles                   checkpoint cycles run (successful or not)
     * @param cyclesFailed             checkpoint cycles that ended in an error
     * @param lastCycleDuration        how long the last checkpoint cycle took, after the first
     * @param sinceLastSuccessfulCycle time since the last cycle that ended without error, after the first
     * @param checkpointsEmitted       checkpoints written and confirmed by the target
     * @param offsetSyncsLoaded        offset syncs applied (initial load and tailing)
     * @param offsetSyncLag            records between the task's position in the offset-syncs topic
     *                                 and its end, when known
     * @param recordsSkipped           malformed records skipped in the internal topics
     * @param partitionsSkipped        group x partitions whose last cycle wrote no checkpoint, per
     *                                 reason (every reason listed, in the document's order)
     * @param groupOffsetSync          what the group offset sync did
     * @param retries                  what the task retries
     */
    public record Task(
            boolean initialized,
            Optional<Duration> loadTime,
            long groups,
            long cycles,
            long cyclesFailed,
            Optional<Duration> lastCycleDuration,
            Optional<Duration> sinceLastSuccessfulCycle,
            long checkpointsEmitted,
            long offsetSyncsLoaded,
            OptionalLong offsetSyncLag,
            long recordsSkipped,
            Map<String, Long> partitionsSkipped,
            GroupOffsetSync groupOffsetSync,
            Retries retries) {

        /** Rejects null fields; the map is copied (unmodifiable, in its iteration order). */
        public Task {
            Objects.requireNonNull(loadTime, "loadTime");
            Objects.requireNonNull(lastCycleDuration, "lastCycleDuration");
            Objects.requireNonNull(sinceLastSuccessfulCycle, "sinceLastSuccessfulCycle");
            Objects.requireNonNull(offsetSyncLag, "offsetSyncLag");
            partitionsSkipped = MetricsDocument.orderedCopy(partitionsSkipped);
            Objects.requireNonNull(groupOffsetSync, "groupOffsetSync");
            Objects.requireNonNull(retries, "retries");
        }
    }

    /**
     * The group offset sync's counts ({@code sync.group.offsets.enabled}), in group x partitions
     * since the task started.
     *
     * @param runs       runs completed
     * @param written    offsets written into target groups
     * @param leftActive offsets left alone because the target group has active members
     * @param refused    offsets the target broker refused to write
     * @param lastRun    the same counts for the last run only, after the first
     */
    public record GroupOffsetSync(long runs, long written, long leftActive, long refused,
            Optional<GroupOffsetSyncRun> lastRun) {

        /** Rejects a null {@code lastRun}. */
        public GroupOffsetSync {
            Objects.requireNonNull(lastRun, "lastRun");
        }
    }

    /**
     * One group offset sync run's counts, in group x partitions.
     *
     * @param written      offsets written
     * @param leftActive   offsets left because the target group is active
     * @param refused      offsets the broker refused
     * @param unknownState offsets left because the target group's state could not be learned
     * @param upToDate     offsets already at or past the translated offset on the target
     */
    public record GroupOffsetSyncRun(long written, long leftActive, long refused, long unknownState, long upToDate) {}

    /**
     * Retries: what is being retried now, for how long, and how often each kind happened.
     *
     * @param reason      why the task is retrying now, if it is
     * @param retryingFor how long {@code reason} has been set without interruption
     * @param total       all retries since start
     * @param byKind      retries since start per kind ({@code startup}, {@code group_discovery},
     *                    ...; every kind listed, in the document's order)
     */
    public record Retries(Optional<String> reason, Optional<Duration> retryingFor, long total,
            Map<String, Long> byKind) {

        /** Rejects null fields; the map is copied (unmodifiable, in its iteration order). */
        public Retries {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(retryingFor, "retryingFor");
            byKind = MetricsDocument.orderedCopy(byKind);
        }
    }

    /**
     * MM2's {@code checkpoint-latency-ms} of one group and checkpointed partition: the time from
     * the cycle that decided a checkpoint to the target confirming it, with its minimum, maximum
     * and average over Kafka's metric window (two samples of 30 s), as Java's
     * {@code MirrorCheckpointMetrics} computes them.
     *
     * @param group     the consumer group (Java's {@code group} tag)
     * @param topic     the checkpoint's renamed, target-side topic (Java's {@code topic} tag)
     * @param partition the partition (Java's {@code partition} tag)
     * @param lastMs    {@code checkpoint-latency-ms}: the last latency recorded, 0 before any
     * @param minMs     {@code checkpoint-latency-ms-min}; empty (Java: NaN) when the window holds none
     * @param maxMs     {@code checkpoint-latency-ms-max}, as {@code minMs}
     * @param avgMs     {@code checkpoint-latency-ms-avg}, as {@code minMs}
     */
    public record CheckpointLatency(String group, String topic, int partition, double lastMs, OptionalDouble minMs,
            OptionalDouble maxMs, OptionalDouble avgMs) {

        /** Rejects null fields. */
        public CheckpointLatency {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(minMs, "minMs");
            Objects.requireNonNull(maxMs, "maxMs");
            Objects.requireNonNull(avgMs, "avgMs");
        }
    }

    /**
     * One group x upstream partition.
     *
     * @param group                      the consumer group
     * @param topic                      the upstream (source) topic
     * @param partition                  the upstream partition
     * @param committedOffset            the group's committed offset on the source, as the last cycle read it
     * @param checkpointUpstreamOffset   the newest checkpoint's upstream offset
     * @param checkpointDownstreamOffset the newest checkpoint's downstream offset (where a
     *                                   failed-over consumer resumes)
     * @param syncUpstreamOffset         the upstream offset of the offset sync that checkpoint was
     *                                   translated through
     * @param replayBound                upstream records a consumer failing over now would read
     *                                   again: {@code committedOffset - syncUpstreamOffset}
     * @param freshness                  age of the target's view of the group's commit: time since
     *                                   the last cycle that found the newest checkpoint reflecting it
     * @param skipReason                 why the last cycle wrote no checkpoint, if it had a reason
     */
    public record Partition(
            String group,
            String topic,
            int partition,
            OptionalLong committedOffset,
            OptionalLong checkpointUpstreamOffset,
            OptionalLong checkpointDownstreamOffset,
            OptionalLong syncUpstreamOffset,
            OptionalLong replayBound,
            Optional<Duration> freshness,
            Optional<String> skipReason) {

        /** Rejects null fields. */
        public Partition {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(committedOffset, "committedOffset");
            Objects.requireNonNull(checkpointUpstreamOffset, "checkpointUpstreamOffset");
            Objects.requireNonNull(checkpointDownstreamOffset, "checkpointDownstreamOffset");
            Objects.requireNonNull(syncUpstreamOffset, "syncUpstreamOffset");
            Objects.requireNonNull(replayBound, "replayBound");
            Objects.requireNonNull(freshness, "freshness");
            Objects.requireNonNull(skipReason, "skipReason");
        }
    }
}
