package io.mm2checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * The {@code system} log sink outside Connect: a record reaches java.util.logging under the native
 * target's logger name, and JUL's default formatter prints that name, not this library's bridge
 * class and method.
 */
public final class SystemLogSinkTest {
    @Test
    public void julPrintsTheLoggersNameNotTheBridge() {
        String name = "mm2_checkpoint.runtime.checkpoint_task.jul_test";
        List<LogRecord> seen = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                seen.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger(name);
        logger.addHandler(capture);
        try {
            LogBridge.Sink sink = LogBridge.systemSink();
            assertTrue(sink.enabled(name, 3), "INFO is enabled by default");
            assertFalse(sink.enabled(name, 4), "FINE is not, by default");
            sink.log(name, 2, "checkpoint task ready", null);
            assertEquals(1, seen.size());
            LogRecord r = seen.get(0);
            assertEquals(java.util.logging.Level.WARNING, r.getLevel());
            assertEquals(name, r.getLoggerName());
            assertEquals(name, r.getSourceClassName());
            assertNull(r.getSourceMethodName());
            String line = new SimpleFormatter().format(r);
            assertTrue(line.contains(name) && !line.contains("LogBridge") && !line.contains("SystemLoggerSink"),
                    "JUL's line: " + line);
        } finally {
            logger.removeHandler(capture);
        }
    }
}
