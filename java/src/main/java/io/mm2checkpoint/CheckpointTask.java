package io.mm2checkpoint;

import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * MM2's {@code MirrorCheckpointTask} without Kafka Connect: reads the offset syncs a mirror
 * wrote and the source groups' committed offsets, and writes checkpoints to the target.
 *
 * <pre>{@code
 * try (CheckpointTask task = new CheckpointTask(config)) {
 *     task.start();                                   // returns at once; loading runs on a native thread
 *     while (running) {
 *         PollResult r = task.poll(Duration.ofSeconds(5));
 *         if (r.status() == PollStatus.STOPPED || r.status() == PollStatus.FAILED) break;
 *         r.checkpoints().forEach(System.out::println);
 *     }
 * }                                                   // close = stop + free; no thread or client left
 * }</pre>
 *
 * <p>Threads: one thread polls at a time (a second concurrent poll fails with
 * {@link Mm2Exception#BUSY}); {@link #stop}, {@link #close}, {@link #stats}, {@link #metrics}
 * and {@link #fatalError} may be called from any thread at any time, also while another thread is
 * blocked in {@link #poll}, which then returns {@link PollStatus#STOPPED} promptly. {@link #close}
 * waits for calls in flight on other threads before it frees the native task, so no call can
 * ever touch freed memory; calls after close throw {@link IllegalStateException}, except
 * {@link #stop}, which returns false.
 */
public final class CheckpointTask implements AutoCloseable {
    /** Started tasks not yet closed, for the JVM's shutdown (weak: a dropped task is the cleaner's). */
    private static final Set<CheckpointTask> STARTED = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    private final NativeBinding binding;
    private final NativeHandle task;
    private final long id;

    /**
     * Makes a task; does no I/O and starts no thread.
     *
     * @throws Mm2Exception with {@link Mm2Exception#INVALID_CONFIG} naming the key when the
     *                      configuration as a whole is rejected (e.g. no source alias)
     */
    public CheckpointTask(CheckpointConfig config) {
        Objects.requireNonNull(config, "config");
        binding = NativeLibrary.binding();
        long conf = config.toNative(binding);
        long handle;
        try {
            handle = binding.taskNew(conf);
        } catch (RuntimeException e) {
            binding.confDestroy(conf);
            throw e;
        }
        NativeBinding b = binding;
        long taskId = binding.taskId(handle);
        id = taskId;
        task = NativeHandle.register(this, "checkpoint task", handle, h -> stopQuietly(b, h), h -> {
            b.taskDestroy(h);
            LogBridge.clearContext(taskId);
        });
    }

    /**
     * The task's id in the process (never 0): the records of its native threads, and those of
     * its {@link #start}, {@link #poll} and {@link #stop}, carry it, which is how
     * {@link #setLogContext} finds them.
     */
    public long id() {
        return id;
    }

    /**
     * Logs every record of this task with these entries in slf4j's MDC (null or empty: none), on
     * whichever thread the record arrives: a Connect task passes its worker's
     * {@code connector.context}, so the library's lines name the connector as Connect's do.
     * Entries with a null key or value are left out. Any time, any thread; ignored by the
     * {@code system} log sink, which has no MDC. Ignored once the task is closed.
     */
    public void setLogContext(Map<String, String> context) {
        // Under the handle's guard: a close cannot free the task (and forget its context) midway.
        try {
            task.run(h -> LogBridge.setContext(id, context));
        } catch (IllegalStateException closed) {
            // Closed: nothing of it logs any more.
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Starts loading the checkpoints and offset-syncs topics on a native thread; returns at once.
     *
     * @throws Mm2Exception {@link Mm2Exception#ALREADY_STARTED}, or {@link Mm2Exception#ALREADY_STOPPED}
     *                      after a stop (a task starts once)
     */
    public void start() {
        try {
            task.run(binding::taskStart);
            STARTED.add(this);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Waits up to {@code timeout} for the next checkpoint cycle, runs it and returns what it
     * wrote. Returns early with {@link PollStatus#STOPPED} when another thread stops the task.
     *
     * @throws Mm2Exception {@link Mm2Exception#NOT_STARTED}, {@link Mm2Exception#BUSY} (another
     *                      thread is polling), or {@link Mm2Exception#KAFKA} /
     *                      {@link Mm2Exception#TIMED_OUT} when the cycle failed (the next poll retries)
     */
    public PollResult poll(Duration timeout) {
        int ms = NativeLibrary.timeoutMillis(timeout);
        try {
            long batch = task.use(h -> binding.taskPoll(h, ms));
            return Batches.drainPoll(binding, batch);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Stops the task: sets its stop flag, wakes every blocked Kafka call, joins every native
     * thread and then closes the Kafka clients. Blocks until done (typically a few milliseconds).
     *
     * @return true when this call stopped the task, false when it was already stopped or closed
     *         (so a shutdown hook's stop may race the main thread's close harmlessly)
     * @throws Mm2Exception {@link Mm2Exception#NOT_STARTED} when the task was never started
     */
    public boolean stop() {
        try {
            return task.use(binding::taskStop);
        } catch (IllegalStateException closed) {
            if (task.isClosed()) {
                return false;
            }
            throw closed;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The error that ended the task's work (a failed start-up or periodic job), if any. */
    public Optional<String> fatalError() {
        try {
            return Optional.ofNullable(task.use(binding::taskFatalError));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A snapshot of the task's counters. */
    public TaskStats stats() {
        try {
            return TaskStats.fromNative(task.use(binding::taskGetStats));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * A reading of the task's metrics: MM2's {@code checkpoint-latency-ms} per group x partition,
     * freshness, the replay bound, cycles, loads, group offset syncs and retries. Costs one pass
     * over the task's group x partitions; any thread.
     */
    public MetricsSnapshot metrics() {
        return MetricsSnapshot.fromJson(metricsJson());
    }

    /**
     * The same reading as the library's JSON document (schema in docs/OPERATIONS.md), for an
     * application that ships it elsewhere as it is; {@link MetricsSnapshot#fromJson} reads it.
     */
    public String metricsJson() {
        try {
            return task.use(binding::taskMetricsJson);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** True once {@link #close} freed the native task. */
    public boolean isClosed() {
        return task.isClosed();
    }

    /**
     * Stops the task if it is running (a poll on another thread returns STOPPED), waits for
     * calls in flight on other threads, and frees it. Idempotent; any thread.
     */
    @Override
    public void close() {
        try {
            task.close();
        } finally {
            STARTED.remove(this);
        }
    }

    /**
     * Stops every started task not yet closed; at JVM shutdown, before the log bridge goes away,
     * so each task's last records still reach the application's logging. A stop another thread
     * is running finishes first (the native stop is serialised), so its records are in too.
     */
    static void stopAllRunning() {
        List<CheckpointTask> running;
        synchronized (STARTED) {
            running = new ArrayList<>(STARTED);
        }
        for (CheckpointTask t : running) {
            try {
                t.stop();
            } catch (RuntimeException e) {
                // Shutting down: a task that cannot stop is left to the exit.
            }
        }
    }

    @Override
    public String toString() {
        return "CheckpointTask[" + (task.isClosed() ? "closed" : "open") + ", " + binding.name() + "]";
    }

    /** Close's first step: a task never started, or already stopped, needs no stop. */
    private static void stopQuietly(NativeBinding binding, long handle) {
        try {
            binding.taskStop(handle);
        } catch (Mm2Exception e) {
            if (e.code() != Mm2Exception.NOT_STARTED) {
                throw e;
            }
        }
    }
}
