package io.mm2checkpoint;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The log bridge's slf4j side; loaded only when slf4j-api is on the classpath. Uses only the
 * slf4j 1.7 API, so a worker that ships slf4j 1.7 or 2.x serves alike.
 */
final class Slf4jSink implements LogBridge.Sink {
    private final ConcurrentHashMap<String, Logger> loggers = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "slf4j";
    }

    @Override
    public boolean enabled(String name, int level) {
        Logger l = logger(name);
        switch (level) {
            case 1: return l.isErrorEnabled();
            case 2: return l.isWarnEnabled();
            case 3: return l.isInfoEnabled();
            case 4: return l.isDebugEnabled();
            default: return l.isTraceEnabled();
        }
    }

    @Override
    public void log(String name, int level, String message, Map<String, String> context) {
        if (context == null) {
            emit(logger(name), level, message);
            return;
        }
        // The thread's own entries come back afterwards: a native thread keeps none, and a Java
        // thread inside a task call (e.g. Connect's task thread) keeps its own.
        Map<String, String> before = MDC.getCopyOfContextMap();
        try {
            context.forEach(MDC::put);
            emit(logger(name), level, message);
        } finally {
            if (before == null) {
                MDC.clear();
            } else {
                MDC.setContextMap(before);
            }
        }
    }

    private static void emit(Logger l, int level, String message) {
        switch (level) {
            case 1: l.error(message); break;
            case 2: l.warn(message); break;
            case 3: l.info(message); break;
            case 4: l.debug(message); break;
            default: l.trace(message); break;
        }
    }

    private Logger logger(String name) {
        return loggers.computeIfAbsent(name, LoggerFactory::getLogger);
    }
}
