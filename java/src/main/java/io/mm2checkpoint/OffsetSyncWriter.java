package io.mm2checkpoint;

import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * MM2's offset-sync writer for mirroring tools that are not MirrorMaker: report every mirrored
 * record once the target acknowledged it, and the writer produces offset syncs to the
 * offset-syncs topic exactly when MM2's {@code MirrorSourceTask} would, so a checkpoint task
 * (this library's or Java MM2's) can translate the tool's consumer groups.
 *
 * <pre>{@code
 * try (OffsetSyncWriter w = new OffsetSyncWriter(Map.of("bootstrap.servers", source),
 *         "mm2-offset-syncs.target.internal")) {
 *     for (each record copied and acknowledged downstream) {
 *         w.report(topic, partition, upstreamOffset, downstreamOffset);
 *     }
 *     w.tick();                              // regularly, also when idle
 * }                                          // close: flush (30 s at most), then free
 * }</pre>
 *
 * <p>Threads: one thread at a time. A call made while another thread is inside a call on the
 * same writer fails with {@link Mm2Exception#BUSY}; {@link #close} waits for calls in flight
 * before it frees the native writer. Calls after close throw {@link IllegalStateException},
 * except {@link #stats}, which returns the final counters, and close, which does nothing.
 */
public final class OffsetSyncWriter implements AutoCloseable {
    /** What {@link #close()} waits for the last syncs. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final NativeBinding binding;
    private final NativeHandle writer;
    private volatile OffsetSyncWriterStats finalStats;

    /**
     * Makes a writer producing to partition 0 of {@code offsetSyncsTopic}, which must exist (MM2
     * makes it a one-partition compacted topic). No blocking I/O.
     *
     * @param config librdkafka producer settings for the cluster holding the topic (at least
     *               {@code bootstrap.servers}), plus optionally {@code offset.lag.max} (default
     *               100) and {@code offset.flush.interval.ms} (default 60000), which are not
     *               passed to librdkafka
     * @throws Mm2Exception {@link Mm2Exception#INVALID_CONFIG} naming a bad writer setting,
     *                      {@link Mm2Exception#KAFKA} for a producer setting librdkafka rejects
     */
    public OffsetSyncWriter(Map<String, String> config, String offsetSyncsTopic) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(offsetSyncsTopic, "offsetSyncsTopic");
        if (offsetSyncsTopic.isEmpty()) {
            throw new IllegalArgumentException("offsetSyncsTopic is empty");
        }
        binding = NativeLibrary.binding();
        long conf = CheckpointConfig.toNative(binding, config);
        long handle;
        try {
            handle = binding.offsetSyncWriterNew(conf, offsetSyncsTopic);
        } finally {
            binding.confDestroy(conf);
        }
        writer = NativeHandle.register(this, "offset-sync writer", handle, h -> { }, binding::offsetSyncWriterDestroy);
    }

    /**
     * Reports one mirrored record: upstream {@code topic}/{@code partition} offset
     * {@code upstreamOffset} landed downstream at {@code downstreamOffset}. Report each
     * partition's records in order. Never blocks.
     */
    public void report(String topic, int partition, long upstreamOffset, long downstreamOffset) {
        Objects.requireNonNull(topic, "topic");
        try {
            writer.run(h -> binding.offsetSyncWriterReport(h, topic, partition, upstreamOffset, downstreamOffset));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Collects finished sends, promotes delayed syncs every {@code offset.flush.interval.ms}, and
     * sends what may be sent. Never blocks; call it regularly, also while no records arrive.
     */
    public void tick() {
        try {
            writer.run(binding::offsetSyncWriterTick);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Waits up to {@code timeout} until a sync due now would be sent at once (at most 10 sends
     * are outstanding, as in MM2). Returns false when none became free in time.
     */
    public boolean waitForCapacity(Duration timeout) {
        int ms = NativeLibrary.timeoutMillis(timeout);
        try {
            return writer.use(h -> binding.offsetSyncWriterWaitForCapacity(h, ms));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Promotes every delayed sync and waits until every sync is acknowledged.
     *
     * @throws Mm2Exception {@link Mm2Exception#TIMED_OUT} when some are not acknowledged in time
     */
    public void flush(Duration timeout) {
        int ms = NativeLibrary.timeoutMillis(timeout);
        try {
            writer.run(h -> binding.offsetSyncWriterFlush(h, ms));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A snapshot of the counters; the final ones after close. */
    public OffsetSyncWriterStats stats() {
        try {
            return OffsetSyncWriterStats.fromNative(writer.use(binding::offsetSyncWriterGetStats));
        } catch (IllegalStateException closed) {
            OffsetSyncWriterStats last = finalStats;
            if (last != null) {
                return last;
            }
            throw closed;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Flushes for up to {@code timeout}, destroys the producer (also when the flush timed out:
     * unacknowledged syncs are then lost, and the next writer's first sync of each partition
     * supersedes them) and frees the writer. A second close returns the final counters again.
     *
     * @return the final counters
     * @throws Mm2Exception {@link Mm2Exception#TIMED_OUT} when not every sync was acknowledged
     *                      (the writer is closed all the same)
     */
    public synchronized OffsetSyncWriterStats close(Duration timeout) {
        int ms = NativeLibrary.timeoutMillis(timeout);
        if (writer.isClosed()) {
            return finalStats;
        }
        try {
            writer.run(h -> binding.offsetSyncWriterClose(h, ms));
        } finally {
            try {
                finalStats = OffsetSyncWriterStats.fromNative(writer.use(binding::offsetSyncWriterGetStats));
            } finally {
                writer.close();
                Reference.reachabilityFence(this);
            }
        }
        return finalStats;
    }

    /** {@link #close(Duration)} with {@link #DEFAULT_CLOSE_TIMEOUT}. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }
}
