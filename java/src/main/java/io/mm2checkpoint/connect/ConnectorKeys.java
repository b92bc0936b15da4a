package io.mm2checkpoint.connect;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The connector's declared keys: those Connect's REST validation shows. The library accepts all
 * of MirrorCheckpointConnector's keys (and judges every value); these are the ones a user sets.
 */
final class ConnectorKeys {
    /** The build's version (Maven's project.version, filtered into a resource at build time). */
    static final String VERSION = buildVersion();
    static final String SOURCE_ALIAS = "source.cluster.alias";
    static final String TARGET_ALIAS = "target.cluster.alias";
    /**
     * The connector's own key, not MM2's (the library never sees it): after this many
     * milliseconds without a successful checkpoint cycle (counted from the task's start until its
     * first), the task fails, so Connect's status says FAILED. 0, the default: never (the task
     * retries for as long as it runs, as Java MM2's does).
     */
    static final String FAIL_AFTER_NO_PROGRESS_MS = "fail.task.after.no.progress.ms";

    static final ConfigDef DEFINITION = new ConfigDef()
            .define(SOURCE_ALIAS, Type.STRING, Importance.HIGH, "Alias of the source cluster")
            .define(TARGET_ALIAS, Type.STRING, "target", Importance.HIGH, "Alias of the target cluster")
            .define("source.cluster.bootstrap.servers", Type.LIST, Importance.HIGH, "Source cluster")
            .define("target.cluster.bootstrap.servers", Type.LIST, Importance.HIGH, "Target cluster")
            .define("groups", Type.LIST, ".*", Importance.HIGH, "Consumer groups to checkpoint (regexes)")
            .define("groups.exclude", Type.LIST, "console-consumer-.*,connect-.*,__.*", Importance.HIGH,
                    "Consumer groups not to checkpoint (regexes)")
            .define("emit.checkpoints.interval.seconds", Type.LONG, 60L, Importance.LOW,
                    "Period of checkpoint emission")
            .define("refresh.groups.interval.seconds", Type.LONG, 600L, Importance.LOW,
                    "Period of consumer group discovery (in each task; no task restart)")
            .define("sync.group.offsets.enabled", Type.BOOLEAN, false, Importance.LOW,
                    "Commit translated offsets into idle target groups")
            .define(FAIL_AFTER_NO_PROGRESS_MS, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Fail the task after this many ms without a successful checkpoint cycle (0: never), "
                            + "so Connect's status shows a task that cannot work as FAILED");

    /**
     * Keys Kafka Connect itself defines for every connector (ConnectorConfig,
     * SourceConnectorConfig) and adds to a task's configuration (task.class): they are Connect's,
     * not the user's, so the library never sees them (it would warn of each as unknown).
     */
    private static final Set<String> CONNECT_KEYS = Set.of("name", "connector.class", "connector.plugin.version",
            "task.class", "tasks.max", "tasks.max.enforce", "key.converter", "value.converter", "header.converter",
            "transforms", "predicates", "config.action.reload", "exactly.once.support", "transaction.boundary",
            "offsets.storage.topic", "topic.creation.groups");
    /** Prefixes of Connect's keys: converter and transform settings, error handling, client overrides. */
    private static final String[] CONNECT_PREFIXES = {"key.converter.", "value.converter.", "header.converter.",
        "transforms.", "predicates.", "errors.", "topic.creation.", "transaction.boundary.", "producer.override.",
        "consumer.override.", "admin.override."};

    private ConnectorKeys() {}

    /** Whether Kafka Connect defines {@code key} (so it is not meant for the library). */
    static boolean isConnectKey(String key) {
        if (CONNECT_KEYS.contains(key)) {
            return true;
        }
        for (String prefix : CONNECT_PREFIXES) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** {@code props} without Connect's own keys and the connector's own. */
    static Map<String, String> withoutConnectKeys(Map<String, String> props) {
        Map<String, String> out = new HashMap<>();
        props.forEach((k, v) -> {
            if (!isConnectKey(k) && !k.equals(FAIL_AFTER_NO_PROGRESS_MS)) {
                out.put(k, v);
            }
        });
        return out;
    }

    private static String buildVersion() {
        try (InputStream in = ConnectorKeys.class.getResourceAsStream("/io/mm2checkpoint/mm2-checkpoint.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
