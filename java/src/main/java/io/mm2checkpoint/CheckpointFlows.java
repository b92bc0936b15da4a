package io.mm2checkpoint;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.LongFunction;

/**
 * Every enabled flow of one MM2 properties file in one object: a checkpoint task per flow
 * ({@code A->B}, and {@code B->A} for failback, say), started together and stopped together.
 *
 * <pre>{@code
 * try (CheckpointFlows flows = CheckpointFlows.load(Path.of("mm2.properties"))) {
 *     flows.start();
 *     for (String flow : flows.names()) {            // "A->B", "B->A"
 *         new Thread(() -> {                          // one polling thread per flow
 *             while (true) {
 *                 PollResult r = flows.poll(flow, Duration.ofSeconds(5));
 *                 if (r.status() == PollStatus.STOPPED || r.status() == PollStatus.FAILED) break;
 *             }
 *         }).start();
 *     }
 *     ...
 * }                                                   // close = one stop for all + free
 * }</pre>
 *
 * <p>The file is read as MM2's dedicated mode reads it ({@code clusters}, {@code A->B.enabled},
 * per-flow overrides such as {@code B->A.emit.reverse.checkpoints.enabled}); a file naming
 * {@code source.cluster.alias} and {@code target.cluster.alias} is one flow. {@link #stop} keeps
 * each task's guarantees and takes about as long as the slowest flow: every flow's stop flag is
 * set and its blocked calls woken before any flow is joined, and only then are clients closed.
 *
 * <p>Threads: as for {@link CheckpointTask}, per flow: one thread polls a flow at a time, and
 * every other call may come from any thread at any time. {@link #close} waits for calls in
 * flight on other threads before it frees the native flows; calls after close throw
 * {@link IllegalStateException}, except {@link #stop}, which returns false.
 */
public final class CheckpointFlows implements AutoCloseable {
    /** Started flows not yet closed, for the JVM's shutdown (weak: dropped ones are the cleaner's). */
    private static final Set<CheckpointFlows> STARTED = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    private final NativeBinding binding;
    private final NativeHandle flows;
    private final List<String> names;
    /** Each flow's task, lent by the native flows until they are freed (read under the guard). */
    private final long[] tasks;

    /**
     * Makes one task per enabled flow of an MM2 properties text; does no I/O and starts no
     * thread.
     *
     * @throws Mm2Exception with {@link Mm2Exception#INVALID_CONFIG} when the text enables no
     *                      flow or a flow's configuration is rejected (the message names the
     *                      key and the flow)
     */
    public CheckpointFlows(String mm2Properties) {
        Objects.requireNonNull(mm2Properties, "mm2Properties");
        binding = NativeLibrary.binding();
        long handle = binding.flowsNew(mm2Properties);
        List<String> found = new ArrayList<>();
        long[] lent;
        try {
            int n = Math.toIntExact(binding.flowsCount(handle));
            lent = new long[n];
            for (int i = 0; i < n; i++) {
                found.add(binding.flowsName(handle, i));
                lent[i] = binding.flowsTask(handle, i);
            }
        } catch (RuntimeException e) {
            binding.flowsDestroy(handle);
            throw e;
        }
        names = Collections.unmodifiableList(found);
        tasks = lent;
        NativeBinding b = binding;
        flows = NativeHandle.register(this, "checkpoint flows", handle, h -> stopQuietly(b, h), b::flowsDestroy);
    }

    /** The flows of an MM2 properties file (UTF-8), as {@link #CheckpointFlows(String)}. */
    public static CheckpointFlows load(Path mm2PropertiesFile) throws IOException {
        return new CheckpointFlows(Files.readString(mm2PropertiesFile, StandardCharsets.UTF_8));
    }

    /** The flows' names ({@code source->target}), in the order of {@code clusters}. */
    public List<String> names() {
        return names;
    }

    /**
     * Starts every flow, in order; returns at once. When one cannot start, the ones already
     * started are stopped and the exception names the flow ({@code "flow B->A: ..."}).
     *
     * @throws Mm2Exception {@link Mm2Exception#ALREADY_STARTED}, or
     *                      {@link Mm2Exception#ALREADY_STOPPED} after a stop (flows start once)
     */
    public void start() {
        try {
            flows.run(binding::flowsStart);
            STARTED.add(this);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Waits up to {@code timeout} for flow {@code flow}'s next checkpoint cycle, as
     * {@link CheckpointTask#poll} does for a task.
     *
     * @throws IllegalArgumentException when there is no such flow
     */
    public PollResult poll(String flow, Duration timeout) {
        int ms = NativeLibrary.timeoutMillis(timeout);
        int index = indexOf(flow);
        long batch = onTask(index, task -> binding.taskPoll(task, ms));
        return Batches.drainPoll(binding, batch);
    }

    /** A snapshot of flow {@code flow}'s counters. */
    public TaskStats stats(String flow) {
        int index = indexOf(flow);
        return TaskStats.fromNative(onTask(index, binding::taskGetStats));
    }

    /** A reading of flow {@code flow}'s metrics, labelled with its source and target. */
    public MetricsSnapshot metrics(String flow) {
        return MetricsSnapshot.fromJson(metricsJson(flow));
    }

    /** Flow {@code flow}'s metrics as the library's JSON document. */
    public String metricsJson(String flow) {
        int index = indexOf(flow);
        return onTask(index, binding::taskMetricsJson);
    }

    /** The error that ended flow {@code flow}'s work, if any. */
    public Optional<String> fatalError(String flow) {
        int index = indexOf(flow);
        return Optional.ofNullable(onTask(index, binding::taskFatalError));
    }

    /** The flows whose work ended in an error, each with its error, in order. */
    public Map<String, String> failed() {
        Map<String, String> failed = new LinkedHashMap<>();
        for (String name : names) {
            fatalError(name).ifPresent(e -> failed.put(name, e));
        }
        return failed;
    }

    /**
     * Stops every flow: all stop flags set and blocked calls woken first (polls on other threads
     * return {@link PollStatus#STOPPED}), then each flow joined and its clients closed.
     *
     * @return true when this call stopped a flow, false when every flow was already stopped or
     *         the flows are closed
     * @throws Mm2Exception {@link Mm2Exception#NOT_STARTED} when the flows were never started
     */
    public boolean stop() {
        try {
            return flows.use(binding::flowsStop);
        } catch (IllegalStateException closed) {
            if (flows.isClosed()) {
                return false;
            }
            throw closed;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** True once {@link #close} freed the native flows. */
    public boolean isClosed() {
        return flows.isClosed();
    }

    /** Stops every running flow, waits for calls in flight, and frees all. Idempotent. */
    @Override
    public void close() {
        try {
            flows.close();
        } finally {
            STARTED.remove(this);
        }
    }

    /** Stops every started flows object not yet closed, at JVM shutdown (as for tasks). */
    static void stopAllRunning() {
        List<CheckpointFlows> running;
        synchronized (STARTED) {
            running = new ArrayList<>(STARTED);
        }
        for (CheckpointFlows f : running) {
            try {
                f.stop();
            } catch (RuntimeException e) {
                // Shutting down: flows that cannot stop are left to the exit.
            }
        }
    }

    @Override
    public String toString() {
        return "CheckpointFlows" + names + "[" + (flows.isClosed() ? "closed" : "open") + ", " + binding.name() + "]";
    }

    private int indexOf(String flow) {
        int index = names.indexOf(Objects.requireNonNull(flow, "flow"));
        if (index < 0) {
            throw new IllegalArgumentException("no flow " + flow + "; the flows are " + names);
        }
        return index;
    }

    /** Runs {@code call} on flow {@code index}'s lent task while the flows are kept alive. */
    private <T> T onTask(int index, LongFunction<T> call) {
        try {
            return flows.use(h -> call.apply(tasks[index]));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Close's first step: flows never started, or already stopped, need no stop. */
    private static void stopQuietly(NativeBinding binding, long handle) {
        try {
            binding.flowsStop(handle);
        } catch (Mm2Exception e) {
            if (e.code() != Mm2Exception.NOT_STARTED) {
                throw e;
            }
        }
    }
}
