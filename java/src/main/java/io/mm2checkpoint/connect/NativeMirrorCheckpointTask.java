package io.mm2checkpoint.connect;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Diagnostics;
import io.mm2checkpoint.MetricsSnapshot;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PollResult;
import io.mm2checkpoint.PollStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One native checkpoint task inside a Connect worker. {@link #stop} may come while the native
 * task is still loading its topics on its own thread (the moment of KAFKA-21435), and from any
 * thread, also while {@link #poll} blocks: the native stop wakes the poll, joins the task's
 * threads and closes its clients before it returns.
 */
public final class NativeMirrorCheckpointTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(NativeMirrorCheckpointTask.class);
    /**
     * How long one poll may block. Connect 4.x calls {@link #stop} on the task's own thread once
     * {@code poll} has returned, so this bounds how long a stop waits; the native stop itself
     * takes milliseconds, also while the task is still loading.
     */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);
    /**
     * How often the MBeans are refreshed between cycles: Java's window statistics age between
     * checkpoints (a min, max or average turns NaN once its window is empty), so a reading taken
     * only at each cycle could be a whole emit interval old.
     */
    private static final long METRICS_REFRESH_NANOS = Duration.ofSeconds(5).toNanos();

    private volatile CheckpointTask task;
    private String label = "?";
    /** The connector's name and this task's index, for the task's MBean. */
    private String connectorName = "?";
    private String taskIndex = "?";
    /** The reason of the last failed cycle warned about, until a cycle succeeds (one WARN per reason). */
    private String failing;
    /** Java MM2's checkpoint MBeans, made at the first metrics reading (which names the aliases). */
    private CheckpointMetricsJmx jmx;
    private long metricsReadAt;
    /** Whether a failed metrics reading was warned about (once: metrics never fail the task). */
    private boolean metricsWarned;
    /** {@code fail.task.after.no.progress.ms}; 0: never. */
    private long failAfterMs;
    private long startedAt;
    /** The latest reading's time since the last good cycle, or empty before the first. */
    private Optional<Duration> sinceGoodCycle = Optional.empty();
    private String lastReason = "";

    @Override
    public void start(Map<String, String> props) {
        label = props.getOrDefault(ConnectorKeys.SOURCE_ALIAS, "?") + "->"
                + props.getOrDefault(ConnectorKeys.TARGET_ALIAS, "?") + " task "
                + props.get(NativeMirrorCheckpointConnector.TASK_INDEX) + "/"
                + props.get(NativeMirrorCheckpointConnector.TASK_COUNT);
        startedAt = System.nanoTime();
        connectorName = props.getOrDefault("name", "?");
        taskIndex = props.getOrDefault(NativeMirrorCheckpointConnector.TASK_INDEX, "?");
        try {
            failAfterMs = Long.parseLong(props.getOrDefault(ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS, "0"));
            if (failAfterMs < 0) {
                throw new NumberFormatException(ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS + " is negative: " + failAfterMs);
            }
            int index = Integer.parseInt(props.get(NativeMirrorCheckpointConnector.TASK_INDEX));
            int count = Integer.parseInt(props.get(NativeMirrorCheckpointConnector.TASK_COUNT));
            CheckpointTask t = new CheckpointTask(NativeMirrorCheckpointConnector.config(props, index, count));
            // Connect set this thread's MDC (connector.context) for the task: the library's own
            // threads log under it too.
            t.setLogContext(MDC.getCopyOfContextMap());
            t.start();
            task = t;
        } catch (Mm2Exception | NumberFormatException e) {
            throw new ConnectException("mm2-checkpoint " + label + " could not start: " + e.getMessage(), e);
        }
        log.info("mm2-checkpoint {} started (native library {}, {} binding)", label, Diagnostics.version(),
                Diagnostics.binding());
    }

    /** Runs checkpoint cycles; the native task writes the checkpoints itself, so this returns null. */
    @Override
    public List<SourceRecord> poll() {
        CheckpointTask t = task;
        if (t == null || t.isClosed()) {
            return null;
        }
        PollResult r;
        try {
            r = t.poll(POLL_TIMEOUT);
        } catch (IllegalStateException closedByStop) {
            return null;
        } catch (Mm2Exception e) {
            if (e.code() != Mm2Exception.KAFKA && e.code() != Mm2Exception.TIMED_OUT) {
                throw new ConnectException("mm2-checkpoint " + label + " failed: " + e.getMessage(), e);
            }
            // The next poll retries the cycle. Connect shows a trace only for a FAILED task, so
            // the reason goes to the worker's log: a WARN per new reason, repeats at DEBUG.
            if (System.nanoTime() - metricsReadAt >= METRICS_REFRESH_NANOS) {
                refreshMBeans(t);
            }
            failIfNoProgress();
            if (!e.getMessage().equals(failing)) {
                failing = e.getMessage();
                log.warn("mm2-checkpoint {}: checkpoint cycle failed, retrying: {}", label, failing);
            } else {
                log.debug("mm2-checkpoint {}: checkpoint cycle failed again: {}", label, failing);
            }
            return null;
        }
        if (r.status() == PollStatus.CYCLE_DONE
                || System.nanoTime() - metricsReadAt >= METRICS_REFRESH_NANOS) {
            refreshMBeans(t);
        }
        if (r.status() != PollStatus.STOPPED) {
            failIfNoProgress();
        }
        switch (r.status()) {
            case FAILED:
                throw new ConnectException("mm2-checkpoint " + label + " failed: " + t.fatalError().orElse("unknown"));
            case CYCLE_DONE:
                if (failing != null) {
                    log.info("mm2-checkpoint {}: checkpoint cycles succeed again", label);
                    failing = null;
                }
                log.debug("mm2-checkpoint {} wrote {} checkpoints", label, r.checkpoints().size());
                return null;
            default:
                return null;
        }
    }

    /**
     * With {@code fail.task.after.no.progress.ms} set: fails the task once the latest reading says
     * no checkpoint cycle succeeded for that long (since the start, before the first).
     */
    private void failIfNoProgress() {
        if (failAfterMs <= 0) {
            return;
        }
        // The reading's age counts too: metrics are read every 5 s and at each cycle.
        long stalledMs = sinceGoodCycle.map(d -> d.toMillis() + (System.nanoTime() - metricsReadAt) / 1_000_000)
                .orElse((System.nanoTime() - startedAt) / 1_000_000);
        if (stalledMs >= failAfterMs) {
            throw new ConnectException("mm2-checkpoint " + label + ": no successful checkpoint cycle for "
                    + stalledMs + " ms (" + ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS + " = " + failAfterMs + ")"
                    + (lastReason.isEmpty() ? "" : "; retrying because " + lastReason));
        }
    }

    /** Shows the task's latest metrics in its MBeans; a failure is logged, never thrown. */
    private void refreshMBeans(CheckpointTask t) {
        metricsReadAt = System.nanoTime();
        try {
            MetricsSnapshot snapshot = t.metrics();
            sinceGoodCycle = snapshot.task().sinceLastSuccessfulCycle();
            lastReason = snapshot.task().retries().reason().orElse("");
            synchronized (this) {
                if (jmx == null && task != null) {
                    jmx = new CheckpointMetricsJmx(snapshot.source(), snapshot.target(), connectorName, taskIndex);
                }
                if (jmx != null) {
                    jmx.update(snapshot);
                }
            }
        } catch (IllegalStateException closedByStop) {
            // Stopped meanwhile: stop() unregisters the MBeans.
        } catch (RuntimeException e) {
            if (!metricsWarned) {
                metricsWarned = true;
                log.warn("mm2-checkpoint {}: could not read the task's metrics for JMX: {}", label, e.toString());
            }
        }
    }

    /**
     * Stops and frees the native task: returns once its threads are joined and its clients
     * closed, and once a poll in progress on Connect's task thread has returned.
     */
    @Override
    public void stop() {
        CheckpointTask t = task;
        if (t == null) {
            return;
        }
        long started = System.nanoTime();
        t.close();
        // After the close, so no refresh can register an MBean again; none is left behind.
        synchronized (this) {
            task = null;
            if (jmx != null) {
                jmx.close();
                jmx = null;
            }
        }
        // The task's own threads and clients are gone once close returns; the counts are the
        // whole process's (every task of every connector on this worker), not a leak of this one.
        log.info("mm2-checkpoint {} stopped in {} ms, its threads joined and clients closed; in this "
                + "worker, every native task's live library clients {}, threads {}", label,
                (System.nanoTime() - started) / 1_000_000, Diagnostics.liveClients(), Diagnostics.liveThreads());
    }

    @Override
    public String version() {
        return ConnectorKeys.VERSION;
    }
}
