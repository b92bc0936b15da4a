package io.mm2checkpoint.test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures what reaches log4j 2 (the slf4j binding of the test classpath) under one logger name,
 * at every level, while open: the library's records arrive there through the log bridge.
 */
public final class LogCapture implements AutoCloseable {
    /** A captured record, the Java thread it was logged on and the MDC it was logged with. */
    public record Seen(String logger, Level level, String message, String thread, Map<String, String> mdc) {}

    /** Every record captured so far. */
    public final List<Seen> seen = new CopyOnWriteArrayList<>();
    /** When set, the appender throws after capturing (a broken log backend). */
    public volatile boolean fail;

    private final String name;
    private final LoggerContext context;
    private final AbstractAppender appender;
    private final LoggerConfig before;

    /** Starts capturing records of logger {@code name} and its children, at every level. */
    public LogCapture(String name) {
        this.name = name;
        context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender = new AbstractAppender("capture-" + name, null, null, false, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent e) {
                seen.add(new Seen(e.getLoggerName(), e.getLevel(), e.getMessage().getFormattedMessage(),
                        Thread.currentThread().getName(), Map.copyOf(e.getContextData().toMap())));
                if (fail) {
                    throw new IllegalStateException("a broken log appender");
                }
            }
        };
        appender.start();
        config.addAppender(appender);
        before = config.getLoggers().get(name);
        LoggerConfig capture = new LoggerConfig(name, Level.ALL, true);
        capture.addAppender(appender, Level.ALL, null);
        config.removeLogger(name);
        config.addLogger(name, capture);
        context.updateLoggers();
    }

    @Override
    public void close() {
        Configuration config = context.getConfiguration();
        config.removeLogger(name);
        if (before != null) {
            config.addLogger(name, before);
        }
        context.updateLoggers();
        appender.stop();
    }
}
