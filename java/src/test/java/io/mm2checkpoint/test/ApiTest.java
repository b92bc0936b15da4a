package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Diagnostics;
import io.mm2checkpoint.EmbeddedClusters;
import io.mm2checkpoint.EmbeddedClusters.Side;
import io.mm2checkpoint.GroupSelector;
import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.PollStatus;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The API's contract without running Kafka work: configuration errors, result codes, header agreement. */
@Timeout(120)
public final class ApiTest {

    @Test
    public void bindingIsTheOneAskedFor() {
        String wanted = System.getProperty("mm2checkpoint.binding");
        Check.isTrue(wanted != null, "the suite runs with -Dmm2checkpoint.binding set");
        Check.equal(wanted, Diagnostics.binding(), "binding in use");
    }

    @Test
    public void versionAndConstantsMatchTheHeader() throws Exception {
        String header = Files.readString(Path.of(System.getProperty("mm2checkpoint.header")));
        Matcher version = Pattern.compile("#define MM2_CHECKPOINT_VERSION \"([^\"]+)\"").matcher(header);
        Check.isTrue(version.find(), "MM2_CHECKPOINT_VERSION in the header");
        Check.equal(version.group(1), Diagnostics.version(), "mm_version() against the header");

        Map<String, Integer> enumerators = new HashMap<>();
        Matcher m = Pattern.compile("\\b(MM_[A-Z_]+) = (-?\\d+)").matcher(header);
        while (m.find()) {
            enumerators.put(m.group(1), Integer.valueOf(m.group(2)));
        }
        int checked = 0;
        for (Field f : Mm2Exception.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                Check.equal(enumerators.get("MM_RESULT_" + f.getName()), f.getInt(null), "Mm2Exception." + f.getName());
                checked++;
            }
        }
        Class<?> constants = Class.forName("io.mm2checkpoint.NativeConstants");
        for (Field f : constants.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                f.setAccessible(true);
                String name = f.getName().startsWith("POLL_")
                        ? "MM_POLL_STATUS_" + f.getName().substring(5) : "MM_" + f.getName();
                Check.equal(enumerators.get(name), f.getInt(null), "NativeConstants." + f.getName());
                checked++;
            }
        }
        for (PollStatus s : PollStatus.values()) {
            Check.isTrue(enumerators.containsKey("MM_POLL_STATUS_" + s.name()), "header has MM_POLL_STATUS_" + s);
        }
        for (GroupSelector.Kind k : GroupSelector.Kind.values()) {
            Check.equal(enumerators.get("MM_GROUP_SELECTOR_" + k.name()), k.ordinal(), "GroupSelector.Kind." + k);
            checked++;
        }
        Check.isTrue(checked >= 20, "checked " + checked + " constants");
        Matcher num = Pattern.compile("#define MM2_CHECKPOINT_VERSION_NUM (0x[0-9a-fA-F]+)").matcher(header);
        Check.isTrue(num.find(), "MM2_CHECKPOINT_VERSION_NUM in the header");
        Check.equal(Integer.decode(num.group(1)), Diagnostics.versionNum(), "mm_version_num() against the header");
    }

    /**
     * The layout file the Panama binding reads its sizes and offsets from is the one the C test
     * checks against the compiler: its enum values agree with the Java constants, and every struct
     * the library fills starts with struct_size and has only 8-byte fields.
     */
    @Test
    public void theSharedLayoutFileAgreesWithTheJavaConstants() throws Exception {
        Path header = Path.of(System.getProperty("mm2checkpoint.header"));
        Properties layout = new Properties();
        try (java.io.InputStream in = Files.newInputStream(header.resolveSibling("mm2_checkpoint.layout"))) {
            layout.load(in);
        }
        for (Field f : Mm2Exception.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                Check.equal(String.valueOf(f.getInt(null)), layout.getProperty("MM_RESULT_" + f.getName()),
                        "layout MM_RESULT_" + f.getName());
            }
        }
        for (PollStatus s : PollStatus.values()) {
            Check.isTrue(layout.containsKey("MM_POLL_STATUS_" + s.name()), "layout has MM_POLL_STATUS_" + s);
        }
        for (String struct : new String[] {"mm_task_stats", "mm_diagnostics", "mm_translation_counts",
            "mm_failover_totals", "mm_offset_sync_writer_stats"}) {
            Check.equal("0", layout.getProperty(struct + ".struct_size"), struct + " starts with struct_size");
            long size = Long.parseLong(layout.getProperty(struct + ".size"));
            long fields = layout.stringPropertyNames().stream()
                    .filter(k -> k.startsWith(struct + ".") && !k.endsWith(".size")).count();
            Check.equal(size, fields * 8, struct + " has only 8-byte fields");
        }
    }

    /** librdkafka's error code travels with a KAFKA failure (here TOPIC_ALREADY_EXISTS, 36). */
    @Test
    public void kafkaFailuresCarryLibrdkafkasCode() {
        try (EmbeddedClusters clusters = new EmbeddedClusters()) {
            clusters.createTopic(Side.SOURCE, "orders", 1);
            Mm2Exception e = Check.throwsType(Mm2Exception.class,
                    () -> clusters.createTopic(Side.SOURCE, "orders", 1), "a topic created twice");
            Check.equal(Mm2Exception.KAFKA, e.code(), "code: " + e.getMessage());
            Check.equal(36, e.kafkaCode(), "librdkafka's code: " + e.getMessage());
        }
    }

    /** Values the key alone can judge are rejected by build(), naming the key. */
    @Test
    public void badValuesThrowFromBuildWithKeyAndReason() {
        String[][] cases = {
            {"emit.checkpoints.interval.seconds", "soon", "not a valid"},
            {"emit.checkpoints.enabled", "yes", "expected `true` or `false`"},
            {"admin.timeout.ms", "0", "must be positive"},
            {"offset-syncs.topic.location", "Source", "must be `source` or `target`"},
            {"replication.policy.class", "com.example.Mine", "is not supported"},
            {"source.cluster.alias", "", "must not be empty"},
        };
        for (String[] c : cases) {
            Mm2Exception e = Check.throwsType(Mm2Exception.class,
                    () -> CheckpointConfig.builder().set(c[0], c[1]).build(), c[0] + "=" + c[1]);
            Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "code for " + c[0]);
            Check.equal("MM_RESULT_INVALID_CONFIG", e.resultName(), "result name for " + c[0]);
            Check.equal(c[0], e.configKey().orElse(null), "key named for " + c[0] + "=" + c[1] + ": " + e.getMessage());
            Check.isTrue(e.reason().contains(c[2]), "reason for " + c[0] + " mentions `" + c[2] + "`: " + e.reason());
            Check.isTrue(e.getMessage().startsWith(c[0] + ": "), "message starts with the key: " + e.getMessage());
        }
    }

    /** Rules that need the whole configuration are checked when the task is made. */
    @Test
    public void incompleteConfigurationThrowsFromTheTaskConstructor() {
        CheckpointConfig noAlias = CheckpointConfig.builder()
                .set("target.cluster.alias", "target")
                .set("source.cluster.bootstrap.servers", "127.0.0.1:1")
                .set("target.cluster.bootstrap.servers", "127.0.0.1:1")
                .build();
        Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> new CheckpointTask(noAlias).close(), "no source alias");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "code");
        Check.isTrue(e.configKey().isPresent(), "a key is named: " + e.getMessage());

        CheckpointConfig disabled = noAlias.toBuilder()
                .set("source.cluster.alias", "source")
                .set("emit.checkpoints.enabled", false)
                .build();
        e = Check.throwsType(Mm2Exception.class, () -> new CheckpointTask(disabled).close(), "emission disabled");
        Check.equal("emit.checkpoints.enabled", e.configKey().orElse(null), "key: " + e.getMessage());
        Check.isTrue(e.reason().contains("sync.group.offsets.enabled"), "reason: " + e.reason());
    }

    @Test
    public void textThatCCannotCarryIsRejectedInJavaAsAnInvalidConfigNamingTheKey() {
        Mm2Exception e = Check.throwsType(Mm2Exception.class,
                () -> CheckpointConfig.builder().set("topics", "a\0b"), "NUL in a value");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "result: " + e.getMessage());
        Check.equal("topics", e.configKey().orElse(null), "key: " + e.getMessage());
        e = Check.throwsType(Mm2Exception.class,
                () -> CheckpointConfig.builder().set("to\0pics", "a"), "NUL in a key");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "result: " + e.getMessage());
        Check.equal("to\\0pics", e.configKey().orElse(null), "key: " + e.getMessage());
    }

    @Test
    public void propertiesFilesLoadWithTheirOwnKeys() throws IOException {
        String file = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"
                + "A->B.emit.checkpoints.interval.seconds = 5\n";
        CheckpointConfig c = CheckpointConfig.builder().load(new StringReader(file)).build();
        Check.equal("A, B", c.properties().get("clusters"), "clusters");
        Check.equal("5", c.properties().get("A->B.emit.checkpoints.interval.seconds"), "flow key");
        new CheckpointTask(c).close();

        // The library's parser: escapes and continuation lines decoded, a key given twice takes
        // its last value, and a bad value refused at once, naming the key, with nothing set.
        c = CheckpointConfig.builder().set("topics", "kept")
                .load(new StringReader("topics = a\\\n  , b\\u0021\nclusters = A\nclusters = A, B\n")).build();
        Check.equal("a, b!", c.properties().get("topics"), "escapes and a continuation line");
        Check.equal("A, B", c.properties().get("clusters"), "the last of a key given twice");
        CheckpointConfig.Builder builder = CheckpointConfig.builder().set("topics", "kept");
        Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> builder.load(new StringReader(
                "clusters = A, B\nsync.group.offsets.enabled = maybe\n")), "a bad value");
        Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), "result: " + e.getMessage());
        Check.equal("sync.group.offsets.enabled", e.configKey().orElse(null), "key: " + e.getMessage());
        Check.equal(Map.of("topics", "kept"), builder.build().properties(), "nothing of a refused text is set");
        e = Check.throwsType(Mm2Exception.class, () -> CheckpointConfig.builder().load(new StringReader(
                "clusters = A\0B\n")), "a NUL in the text");
        Check.isTrue(e.nativeMessage().contains("NUL"), "message: " + e.nativeMessage());
    }

    /** A panic inside the library comes back as an exception; the JVM and the library carry on. */
    @Test
    public void aPanicInTheLibraryIsAnExceptionNotACrash() {
        try (EmbeddedClusters clusters = new EmbeddedClusters()) {
            clusters.createTopic(Side.SOURCE, "orders", 1);
            // A count of SIZE_MAX makes mm_embedded_produce_data's buffer allocation overflow:
            // Rust panics ("capacity overflow"), the C boundary catches it.
            Mm2Exception e = Check.throwsType(Mm2Exception.class,
                    () -> clusters.produceData(Side.SOURCE, "orders", 0, -1L), "count SIZE_MAX");
            Check.equal(Mm2Exception.PANIC, e.code(), "code: " + e.getMessage());
            Check.isTrue(e.nativeMessage().startsWith("panic: "), "message: " + e.nativeMessage());
            clusters.produceData(Side.SOURCE, "orders", 0, 3);
        }
        Fixture.assertNothingLive("after a caught panic");
    }

    @Test
    public void resultCodesHaveTheirHeaderNames() {
        CheckpointConfig config = CheckpointConfig.builder()
                .set("source.cluster.alias", "source")
                .set("target.cluster.alias", "target")
                .set("source.cluster.bootstrap.servers", "127.0.0.1:1")
                .set("target.cluster.bootstrap.servers", "127.0.0.1:1")
                .build();
        try (CheckpointTask task = new CheckpointTask(config)) {
            Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> task.poll(Duration.ZERO), "poll before start");
            Check.equal(Mm2Exception.NOT_STARTED, e.code(), "code");
            Check.equal("MM_RESULT_NOT_STARTED", e.resultName(), "name");
            Check.isTrue(e.getMessage().toLowerCase(Locale.ROOT).contains("not started"), e.getMessage());
        }
    }
}
