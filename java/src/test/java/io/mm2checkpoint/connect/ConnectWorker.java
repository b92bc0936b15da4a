package io.mm2checkpoint.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * One Kafka Connect worker in distributed mode ({@code ConnectDistributed}) in its own JVM, REST
 * on a free 127.0.0.1 port, JMX (RMI connector, no authentication) on another, logging to
 * {@code dir/worker.log} (log4j) and {@code dir/worker.out} (stdout and stderr). A bash wrapper
 * kills the worker when this JVM goes away.
 */
final class ConnectWorker implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String name;
    final Path dir;
    final int port;
    /** The worker JVM's JMX port on 127.0.0.1: what a dashboard's JMX exporter would read. */
    final int jmxPort;
    private final Process wrapper;

    ConnectWorker(String name, Path dir, String bootstrap, String group, Path pluginPath, Path classpathFile,
            String workerJava) throws IOException {
        this.name = name;
        this.dir = dir;
        Files.createDirectories(dir);
        port = freePort();
        jmxPort = freePort();
        String props = String.join("\n",
                "bootstrap.servers=" + bootstrap,
                "group.id=" + group,
                "listeners=http://127.0.0.1:" + port,
                "rest.advertised.host.name=127.0.0.1",
                "rest.advertised.port=" + port,
                "key.converter=org.apache.kafka.connect.converters.ByteArrayConverter",
                "value.converter=org.apache.kafka.connect.converters.ByteArrayConverter",
                "config.storage.topic=" + group + "-configs",
                "offset.storage.topic=" + group + "-offsets",
                "status.storage.topic=" + group + "-status",
                "config.storage.replication.factor=1",
                "offset.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                "offset.storage.partitions=2",
                "status.storage.partitions=2",
                "offset.flush.interval.ms=1000",
                // A dead worker's tasks move after this delay (default 5 minutes).
                "scheduled.rebalance.max.delay.ms=3000",
                "session.timeout.ms=6000",
                "heartbeat.interval.ms=1000",
                "task.shutdown.graceful.timeout.ms=10000",
                "plugin.path=" + pluginPath,
                "plugin.discovery=service_load",
                "");
        Path config = dir.resolve("worker.properties");
        Files.writeString(config, props);
        Path log4j = dir.resolve("log4j2.properties");
        Files.writeString(log4j, String.join("\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = FILE",
                "appender.file.fileName = " + dir.resolve("worker.log"),
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p [%t] %X{connector.context}%m (%c)%n%throwable",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = FILE",
                "logger.clients.name = org.apache.kafka.clients",
                "logger.clients.level = WARN",
                "logger.common.name = org.apache.kafka.common",
                "logger.common.level = WARN",
                "logger.reflections.name = org.reflections",
                "logger.reflections.level = ERROR",
                ""));
        String classpath = Files.readString(classpathFile).strip();
        // A Java 22+ worker runs the connector over Panama; without one, this JVM's java (JNI).
        boolean panama = workerJava != null && !workerJava.isEmpty();
        List<String> java = new ArrayList<>(List.of(
                panama ? workerJava : Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + log4j,
                "-Dmm2checkpoint.binding=" + (panama ? "panama" : "jni"),
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                // The JVM's own JMX agent, bound to loopback, as operators expose a worker's MBeans.
                "-Dcom.sun.management.jmxremote.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false"));
        if (panama) {
            java.add("--enable-native-access=ALL-UNNAMED");
        }
        java.addAll(List.of("-cp", classpath, "org.apache.kafka.connect.cli.ConnectDistributed", config.toString()));
        // The wrapper runs the worker and kills it (SIGKILL) once this JVM is gone.
        String script = "\"$@\" & child=$!; echo $child > '" + dir.resolve("pid") + "'; "
                + "while kill -0 " + ProcessHandle.current().pid() + " 2>/dev/null && kill -0 $child 2>/dev/null; "
                + "do sleep 0.5; done; kill -9 $child 2>/dev/null; wait $child";
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", script, "worker"));
        cmd.addAll(java);
        wrapper = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("worker.out").toFile())
                .start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** Waits until the REST API answers and the worker has joined its group. */
    void awaitReady(Duration timeout) {
        await(timeout, "worker " + name + " REST ready", () -> {
            try {
                return get("/connectors").statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }

    HttpResponse<String> get(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    HttpResponse<String> put(String path, Object body) throws IOException {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    HttpResponse<String> delete(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    JsonNode json(String path) throws IOException {
        HttpResponse<String> r = get(path);
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** A JMX connection to the worker's platform MBean server; the caller closes it. */
    JMXConnector jmx() throws IOException {
        return JMXConnectorFactory.connect(
                new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
    }

    /** The worker as {@code host:port} in Connect's status answers. */
    String workerId() {
        return "127.0.0.1:" + port;
    }

    private static final String[] LOGS = {"worker.log", "worker.out"};

    /** How far each log file is written now; {@link #since} reads what comes after. */
    long[] mark() throws IOException {
        long[] m = new long[LOGS.length];
        for (int i = 0; i < LOGS.length; i++) {
            Path p = dir.resolve(LOGS[i]);
            m[i] = Files.exists(p) ? Files.size(p) : 0;
        }
        return m;
    }

    /** What the worker logged (log4j file, then stdout/stderr) after {@code mark}. */
    String since(long[] mark) throws IOException {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < LOGS.length; i++) {
            Path p = dir.resolve(LOGS[i]);
            if (Files.exists(p)) {
                byte[] bytes = Files.readAllBytes(p);
                int from = (int) Math.min(bytes.length, mark[i]);
                all.append(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }

    /** What the worker logged through log4j (its file appender, worker.log only) after {@code mark}. */
    String log4jSince(long[] mark) throws IOException {
        Path p = dir.resolve(LOGS[0]);
        if (!Files.exists(p)) {
            return "";
        }
        byte[] bytes = Files.readAllBytes(p);
        int from = (int) Math.min(bytes.length, mark[0]);
        return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    }

    /** What the worker wrote to stdout and stderr (worker.out) after {@code mark}. */
    String outputSince(long[] mark) throws IOException {
        Path p = dir.resolve(LOGS[1]);
        if (!Files.exists(p)) {
            return "";
        }
        byte[] bytes = Files.readAllBytes(p);
        int from = (int) Math.min(bytes.length, mark[1]);
        return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    }

    /** SIGKILL: a crash, no graceful shutdown. */
    void kill() throws InterruptedException {
        wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
        wrapper.destroyForcibly();
        wrapper.waitFor(30, TimeUnit.SECONDS);
    }

    boolean isAlive() {
        return wrapper.isAlive();
    }

    @Override
    public void close() {
        // A graceful stop (SIGTERM runs Connect's shutdown hook), then SIGKILL if it hangs.
        wrapper.descendants().forEach(ProcessHandle::destroy);
        try {
            if (!wrapper.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        }
    }

    /** Polls {@code condition} until it holds; fails after {@code timeout} naming {@code what}. */
    static void await(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }

    static Map<String, Object> connectorConfig(Map<String, String> config) {
        return Map.copyOf(config);
    }
}
