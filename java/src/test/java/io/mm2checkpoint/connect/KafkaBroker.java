package io.mm2checkpoint.connect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node KRaft Kafka broker on 127.0.0.1: the run's shared broker when
 * {@value #SHARED} names one (scripts/test.sh starts it once per run; it is only used, never
 * stopped, so callers keep their topic and group names unique), else one started by the
 * project's one launcher, {@code scripts/kafka-broker.sh} (its watchdog kills the broker if this
 * JVM dies first).
 */
final class KafkaBroker implements AutoCloseable {
    /** Environment variable: {@code 127.0.0.1:PORT} of a broker shared by the whole test run. */
    static final String SHARED = "MM2_SHARED_BOOTSTRAP";

    private final Path script;
    final String bootstrap;
    /** The launcher's handle of the broker started here; null for the shared broker. */
    private final String handle;

    KafkaBroker() throws IOException, InterruptedException {
        script = Path.of(System.getProperty("mm2checkpoint.repo"), "scripts", "kafka-broker.sh");
        String shared = System.getenv(SHARED);
        if (shared != null && !shared.isBlank()) {
            bootstrap = shared.strip();
            handle = null;
            return;
        }
        Map<String, String> out = run(List.of("bash", script.toString(), "start", "--owner-pid",
                Long.toString(ProcessHandle.current().pid()),
                "--prop", "group.initial.rebalance.delay.ms=0",
                "--prop", "offsets.topic.num.partitions=4"));
        bootstrap = out.get("bootstrap");
        handle = out.get("handle");
        if (bootstrap == null || handle == null) {
            throw new IOException("kafka-broker.sh start printed " + out);
        }
    }

    private static Map<String, String> run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(cmd + " failed: " + text);
        }
        Map<String, String> out = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                out.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        if (handle == null) {
            return;
        }
        try {
            run(List.of("bash", script.toString(), "stop", handle));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the broker", e);
        }
    }
}
