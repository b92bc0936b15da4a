package io.mm2checkpoint;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bridges the native library's log records to the application's logging: to slf4j when
 * slf4j-api is on the classpath (a Kafka Connect worker has it, so its log4j configuration
 * applies), else to {@link System.Logger} (by default java.util.logging). A record from target
 * {@code mm2_checkpoint::runtime::checkpoint_task} goes to the logger
 * {@code mm2_checkpoint.runtime.checkpoint_task}, librdkafka's to {@code librdkafka}. The system
 * property {@value #SINK_PROPERTY} ({@code slf4j} or {@code system}) overrides the choice.
 *
 * <p>The bridge is installed when the library loads, at the most detailed level that the logger
 * {@code mm2_checkpoint} accepts, or at the level named by the system property
 * {@value #LEVEL_PROPERTY} ({@code off}, {@code error}, {@code warn}, {@code info},
 * {@code debug}, {@code trace}). Records arrive on the thread that logged them: the task's native
 * threads (attached to the JVM on their first record) or the calling Java thread; librdkafka's
 * lines are relayed on those, never on librdkafka's internal threads. A logging backend must
 * therefore be thread-safe, and must not call {@link CheckpointTask#stop} or
 * {@link CheckpointTask#close} from a handler.
 *
 * <p>Each record names the task it comes from (its native threads, and its {@code start},
 * {@code poll} and {@code stop} calls). A task given a log context
 * ({@link CheckpointTask#setLogContext}) has its records logged with those entries in slf4j's
 * MDC, on whichever thread they arrive: a Connect task gives its worker's
 * {@code connector.context}, so {@code %X{connector.context}} names the connector on the
 * library's lines as on Connect's own. The {@code system} sink has no MDC and ignores it.
 *
 * <p>When the JVM exits, a shutdown hook first stops every task still running (so their last
 * records, such as {@code checkpoint task stopped}, are delivered) and only then turns the bridge
 * off: native threads must not call into a JVM that is going away.
 */
public final class LogBridge {
    /** System property: the level to install the bridge at. */
    public static final String LEVEL_PROPERTY = "mm2checkpoint.log.level";
    /** System property: where records go, {@code slf4j} or {@code system} (default: slf4j when present). */
    public static final String SINK_PROPERTY = "mm2checkpoint.log.sink";

    private static final AtomicLong DELIVERED = new AtomicLong();
    private static final AtomicLong FAILED = new AtomicLong();
    private static volatile Sink sink;
    /** The log context of each task that has one, by task id. */
    private static final ConcurrentHashMap<Long, Map<String, String>> CONTEXTS = new ConcurrentHashMap<>();

    private LogBridge() {}

    /** Where records go: one logger per native target, at five levels (1 = error ... 5 = trace). */
    interface Sink {
        /** {@code slf4j} or {@code system}. */
        String name();

        /** Whether logger {@code name} accepts records at {@code level}. */
        boolean enabled(String name, int level);

        /**
         * Hands one record to logger {@code name}, with {@code context} (null: none) as the
         * entries of the logging context (slf4j's MDC) while it is logged.
         */
        void log(String name, int level, String message, Map<String, String> context);
    }

    /**
     * Changes the most detailed level delivered from the native library ({@code Level.OFF}
     * stops delivery; {@code ALL} means trace). Takes effect for all tasks at once.
     */
    public static void setMaxLevel(Level level) {
        NativeLibrary.binding().setLogBridge(nativeLevel(level));
    }

    /** Where records go: {@code slf4j} or {@code system} (System.Logger). Loads the library. */
    public static String sink() {
        NativeLibrary.binding();
        return sink.name();
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
        sink = chooseSink();
        String configured = System.getProperty(LEVEL_PROPERTY);
        int level = configured != null ? parseLevel(configured) : enabledLevel();
        binding.setLogBridge(level);
        if (level != 0) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    // Tasks still running are stopped while their records can still be delivered.
                    CheckpointTask.stopAllRunning();
                    CheckpointFlows.stopAllRunning();
                    binding.setLogBridge(0);
                } catch (RuntimeException ignored) {
                    // Exiting anyway.
                }
            }, "mm2-checkpoint-log-off"));
        }
    }

    /**
     * Called by the bindings for every native record, on the logging thread, with the id of the
     * task it comes from (0: none).
     */
    static void deliver(int level, String target, String message, long task) {
        if (level < 1 || level > 5) {
            return;
        }
        String name = target == null || target.isEmpty() ? "mm2_checkpoint" : target.replace("::", ".");
        sink.log(name, level, message, task == 0 ? null : CONTEXTS.get(task));
        DELIVERED.incrementAndGet();
    }

    /** Sets (empty or null: removes) the log context of task {@code task}. */
    static void setContext(long task, Map<String, String> context) {
        Map<String, String> copy = new HashMap<>();
        if (context != null) {
            context.forEach((k, v) -> {
                if (k != null && v != null) {
                    copy.put(k, v);
                }
            });
        }
        if (copy.isEmpty()) {
            CONTEXTS.remove(task);
        } else {
            CONTEXTS.put(task, Collections.unmodifiableMap(copy));
        }
    }

    /** Forgets the log context of a freed task. */
    static void clearContext(long task) {
        CONTEXTS.remove(task);
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

    private static Sink chooseSink() {
        String wanted = System.getProperty(SINK_PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        switch (wanted) {
            case "system":
                return new SystemLoggerSink();
            case "slf4j":
                return new Slf4jSink();
            case "":
                return slf4jPresent() ? new Slf4jSink() : new SystemLoggerSink();
            default:
                throw new IllegalArgumentException(SINK_PROPERTY + " is `" + wanted + "`; expected slf4j or system");
        }
    }

    private static boolean slf4jPresent() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, LogBridge.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The most detailed level (5 = trace ... 1 = error, 0 = off) logger {@code mm2_checkpoint} accepts. */
    private static int enabledLevel() {
        for (int level = 5; level >= 1; level--) {
            if (sink.enabled("mm2_checkpoint", level)) {
                return level;
            }
        }
        return 0;
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

    /** The {@code system} sink (package access for its test). */
    static Sink systemSink() {
        return new SystemLoggerSink();
    }

    /**
     * {@link System.Logger}: java.util.logging unless the application installed another finder.
     * Through the JDK's own finder, records go to java.util.logging directly, with the logger's
     * name as their source: JUL's formatter prints the source where it would print the calling
     * class and method, which would otherwise be this bridge's.
     */
    private static final class SystemLoggerSink implements Sink {
        private static final Level[] LEVELS = {Level.ERROR, Level.WARNING, Level.INFO, Level.DEBUG, Level.TRACE};
        private static final java.util.logging.Level[] JUL_LEVELS = {java.util.logging.Level.SEVERE,
            java.util.logging.Level.WARNING, java.util.logging.Level.INFO, java.util.logging.Level.FINE,
            java.util.logging.Level.FINER};
        private static final boolean JUL =
                System.LoggerFinder.getLoggerFinder().getClass().getName().startsWith("sun.util.logging.");
        private final ConcurrentHashMap<String, Logger> loggers = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "system";
        }

        @Override
        public boolean enabled(String name, int level) {
            return JUL ? java.util.logging.Logger.getLogger(name).isLoggable(JUL_LEVELS[level - 1])
                    : logger(name).isLoggable(LEVELS[level - 1]);
        }

        @Override
        public void log(String name, int level, String message, Map<String, String> context) {
            if (JUL) {
                java.util.logging.Logger.getLogger(name).logp(JUL_LEVELS[level - 1], name, null, message);
            } else {
                logger(name).log(LEVELS[level - 1], message);
            }
        }

        private Logger logger(String name) {
            return loggers.computeIfAbsent(name, System::getLogger);
        }
    }
}
