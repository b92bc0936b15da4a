package io.mm2checkpoint;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bridges the native library's log records to {@link System.Logger} (by default backed by
 * java.util.logging): a record from target {@code mm2_checkpoint::runtime::checkpoint_task} goes to the
 * logger {@code mm2_checkpoint.runtime.checkpoint_task}, librdkafka's to {@code librdkafka}.
 *
 * <p>The bridge is installed when the library loads, at the most detailed level that the logger
 * {@code mm2_checkpoint} accepts (java.util.logging's default: INFO), or at the level named by
 * the system property {@value #LEVEL_PROPERTY} ({@code off}, {@code error}, {@code warn},
 * {@code info}, {@code debug}, {@code trace}). Records arrive on the thread that logged them:
 * the task's native threads (attached to the JVM on their first record) or the calling Java
 * thread; librdkafka's lines are relayed on those, never on librdkafka's internal threads. A
 * logging backend must therefore be thread-safe, and must not call
 * {@link CheckpointTask#stop} or {@link CheckpointTask#close} from a handler.
 */
public final class LogBridge {
    /** System property: the level to install the bridge at. */
    public static final String LEVEL_PROPERTY = "mm2checkpoint.log.level";

    private static final ConcurrentHashMap<String, Logger> LOGGERS = new ConcurrentHashMap<>();
    private static final AtomicLong DELIVERED = new AtomicLong();
    private static final AtomicLong FAILED = new AtomicLong();
    private static final Level[] LEVELS = {Level.ERROR, Level.WARNING, Level.INFO, Level.DEBUG, Level.TRACE};

    private LogBridge() {}

    /**
     * Changes the most detailed level delivered from the native library ({@code Level.OFF}
     * stops delivery; {@code ALL} means trace). Takes effect for all tasks at once.
     */
    public static void setMaxLevel(Level level) {
        NativeLibrary.binding().setLogBridge(nativeLevel(level));
    }

    /** Records delivered to Java loggers since the library loaded. */
    public static long delivered() {
        return DELIVERED.get();
    }

    /** Records that a Java logger threw on (the exception is swallowed: it must not reach C). */
    public static long failed() {
        return FAILED.get();
    }

    static void install(NativeBinding binding) {
        String configured = System.getProperty(LEVEL_PROPERTY);
        int level = configured != null ? parseLevel(configured) : nativeLevel(enabledLevel());
        binding.setLogBridge(level);
        if (level != 0) {
            // Native threads may outlive main; once the JVM is exiting they must not call into it.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    binding.setLogBridge(0);
                } catch (RuntimeException ignored) {
                    // Exiting anyway.
                }
            }, "mm2-checkpoint-log-off"));
        }
    }

    /** Called by the bindings for every native record, on the logging thread. */
    static void deliver(int level, String target, String message) {
        if (level < 1 || level > LEVELS.length) {
            return;
        }
        String name = target == null || target.isEmpty() ? "mm2_checkpoint" : target;
        Logger logger = LOGGERS.computeIfAbsent(name, n -> System.getLogger(n.replace("::", ".")));
        logger.log(LEVELS[level - 1], message);
        DELIVERED.incrementAndGet();
    }

    /** A Java logger threw inside the native callback; counted, reported once, never rethrown. */
    static void deliveryFailed(Throwable t) {
        if (FAILED.getAndIncrement() == 0) {
            try {
                System.err.println("mm2-checkpoint: a log handler threw (further failures are only counted): " + t);
            } catch (Throwable ignored) {
                // Nothing else is safe here.
            }
        }
    }

    private static Level enabledLevel() {
        Logger root = System.getLogger("mm2_checkpoint");
        for (int i = LEVELS.length - 1; i >= 0; i--) {
            if (root.isLoggable(LEVELS[i])) {
                return LEVELS[i];
            }
        }
        return Level.OFF;
    }

    private static int nativeLevel(Level level) {
        switch (level) {
            case OFF: return 0;
            case ERROR: return 1;
            case WARNING: return 2;
            case INFO: return 3;
            case DEBUG: return 4;
            default: return 5;
        }
    }

    private static int parseLevel(String text) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "off": return 0;
            case "error": return 1;
            case "warn": case "warning": return 2;
            case "info": return 3;
            case "debug": return 4;
            case "trace": case "all": return 5;
            default:
                throw new IllegalArgumentException(LEVEL_PROPERTY + " is `" + text
                        + "`; expected off, error, warn, info, debug or trace");
        }
    }
}
