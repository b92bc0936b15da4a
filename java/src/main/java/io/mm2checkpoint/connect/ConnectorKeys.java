package io.mm2checkpoint.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The connector's declared keys: those Connect's REST validation shows, with their types and
 * defaults, secrets typed PASSWORD. The library judges every value itself.
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

    /** Keys a user sets first: shown with high importance. */
    private static final Set<String> HIGH = Set.of(SOURCE_ALIAS, TARGET_ALIAS, "groups", "groups.exclude",
            "topics", "topics.exclude");
    /** Client secrets under the two cluster prefixes, typed PASSWORD so Connect hides their values. */
    private static final List<String> PREFIXED_SECRETS = List.of("sasl.jaas.config", "sasl.password",
            "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password");

    /**
     * Every key the library reads (its key table, generated into connector-keys.tsv from the
     * Rust source), the cluster addresses, the client settings MM2's connector declares
     * ({@code security.protocol} and Kafka's SSL and SASL keys, secrets typed PASSWORD), the
     * secrets of the two cluster prefixes, and the connector's own key.
     */
    static final ConfigDef DEFINITION = definition();

    private static ConfigDef definition() {
        ConfigDef def = new ConfigDef();
        for (String[] row : keyTable()) {
            String key = row[0];
            Type type = Type.valueOf(row[1]);
            Importance importance = HIGH.contains(key) ? Importance.HIGH : Importance.LOW;
            if (key.equals(SOURCE_ALIAS)) {
                def.define(key, type, importance, row[3]); // required, as in MM2
            } else {
                def.define(key, type, row[2].isEmpty() ? null : row[2], importance, row[3]);
            }
        }
        for (String side : List.of("source", "target")) {
            def.define(side + ".cluster.bootstrap.servers", Type.LIST, Importance.HIGH,
                    "The " + side + " cluster's bootstrap servers");
            for (String secret : PREFIXED_SECRETS) {
                def.define(side + ".cluster." + secret, Type.PASSWORD, null, Importance.MEDIUM,
                        "The " + side + " cluster's " + secret + " (hidden by Connect)");
            }
        }
        def.define("security.protocol", Type.STRING, "PLAINTEXT", Importance.MEDIUM,
                "Protocol used to communicate with brokers, as MM2's connector declares it; the clusters' own "
                        + "come from source.cluster.security.protocol and target.cluster.security.protocol");
        def.withClientSslSupport().withClientSaslSupport();
        def.define(FAIL_AFTER_NO_PROGRESS_MS, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Fail the task after this many ms without a successful checkpoint cycle (0: never), "
                        + "so Connect's status shows a task that cannot work as FAILED");
        return def;
    }

    /** The library's key table: key, ConfigDef type, default (empty: none), doc. */
    static List<String[]> keyTable() {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = ConnectorKeys.class.getResourceAsStream("/io/mm2checkpoint/connector-keys.tsv")) {
            if (in == null) {
                throw new IllegalStateException("connector-keys.tsv is missing from the jar");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] row = line.split("\t", -1);
                if (row.length != 4) {
                    throw new IllegalStateException("connector-keys.tsv: not four fields: " + line);
                }
                rows.add(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading connector-keys.tsv", e);
        }
        return rows;
    }

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
