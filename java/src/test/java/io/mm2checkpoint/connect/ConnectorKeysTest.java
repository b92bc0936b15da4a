package io.mm2checkpoint.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.LogBridge;
import io.mm2checkpoint.test.LogCapture;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The keys Kafka Connect adds to a connector's and a task's configuration, and the connector's
 * own, never reach the library.
 */
@Timeout(60)
public final class ConnectorKeysTest {
    @Test
    public void connectsOwnKeysAreNotWarnedAboutButAUsersUnknownKeyIs() throws Exception {
        Map<String, String> props = new HashMap<>();
        {
            // Making a task does no I/O: the address is never dialled.
            props.put("source.cluster.alias", "source");
            props.put("target.cluster.alias", "target");
            props.put("source.cluster.bootstrap.servers", "127.0.0.1:9");
            props.put("target.cluster.bootstrap.servers", "127.0.0.1:9");
            // What Connect adds or a user sets for Connect itself.
            props.put("name", "ours");
            props.put("connector.class", NativeMirrorCheckpointConnector.class.getName());
            props.put("task.class", NativeMirrorCheckpointTask.class.getName());
            props.put("tasks.max", "2");
            props.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
            props.put("value.converter.schemas.enable", "false");
            props.put("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
            props.put("transforms", "");
            props.put("predicates", "");
            props.put("errors.tolerance", "none");
            props.put("errors.log.enable", "true");
            props.put("config.action.reload", "restart");
            // The connector's own key, for the Connect task, not the library.
            props.put(ConnectorKeys.FAIL_AFTER_NO_PROGRESS_MS, "60000");
            // A user's mistake, which must still be reported.
            props.put("emit.checkpoints.intervall.seconds", "5");
            LogBridge.setMaxLevel(Level.INFO);
            List<String> warnings;
            try (LogCapture capture = new LogCapture("mm2_checkpoint")) {
                new CheckpointTask(NativeMirrorCheckpointConnector.config(props, 0, 1)).close();
                warnings = capture.seen.stream().filter(s -> s.message().contains("unknown key"))
                        .map(LogCapture.Seen::message).toList();
            }
            assertEquals(1, warnings.size(), "unknown-key warnings: " + warnings);
            assertTrue(warnings.get(0).contains("emit.checkpoints.intervall.seconds"), warnings.get(0));
        }
    }

    @Test
    public void connectKeysAreRecognisedByNameAndPrefix() {
        for (String k : List.of("name", "connector.class", "task.class", "tasks.max", "key.converter",
                "value.converter.schemas.enable", "header.converter", "transforms.route.type", "predicates",
                "errors.retry.timeout", "config.action.reload", "producer.override.acks")) {
            assertTrue(ConnectorKeys.isConnectKey(k), k);
        }
        for (String k : List.of("source.cluster.alias", "groups", "emit.checkpoints.interval.seconds",
                "source.admin.request.timeout.ms", "checkpoints.topic.replication.factor", "task.index")) {
            assertTrue(!ConnectorKeys.isConnectKey(k), k);
        }
    }

    /**
     * The connector declares every key the library reads (its key table, with the table's types
     * and defaults), the client settings MM2's connector declares, and every secret as PASSWORD,
     * so Connect's validation shows them and hides the secrets' values.
     */
    @Test
    public void everyKeyTheLibraryReadsIsDeclaredAndSecretsAreHidden() {
        ConfigDef def = ConnectorKeys.DEFINITION;
        List<String[]> table = ConnectorKeys.keyTable();
        assertTrue(table.size() >= 30, "the library's key table has " + table.size() + " keys");
        for (String[] row : table) {
            ConfigDef.ConfigKey key = def.configKeys().get(row[0]);
            assertTrue(key != null, row[0] + " is not declared");
            assertEquals(ConfigDef.Type.valueOf(row[1]), key.type, row[0] + "'s type");
            if (!row[2].isEmpty()) {
                assertEquals(ConfigDef.parseType(row[0], row[2], key.type), key.defaultValue, row[0] + "'s default");
            }
        }
        for (String secret : List.of("sasl.jaas.config", "ssl.keystore.password", "ssl.key.password",
                "ssl.truststore.password", "source.cluster.sasl.jaas.config", "target.cluster.sasl.jaas.config",
                "source.cluster.sasl.password", "target.cluster.ssl.keystore.password")) {
            assertTrue(def.configKeys().containsKey(secret), secret + " is not declared");
            assertEquals(ConfigDef.Type.PASSWORD, def.configKeys().get(secret).type, secret + "'s type");
        }
        assertTrue(def.names().contains("security.protocol") && def.names().contains("ssl.truststore.location")
                && def.names().contains("sasl.mechanism"), "MM2's client settings");

        Map<String, String> props = new HashMap<>();
        props.put("source.cluster.alias", "a");
        props.put("source.cluster.bootstrap.servers", "127.0.0.1:9");
        props.put("target.cluster.bootstrap.servers", "127.0.0.1:9");
        props.put("target.cluster.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"s3cret\";");
        Config validated = new NativeMirrorCheckpointConnector().validate(props);
        for (ConfigValue v : validated.configValues()) {
            assertTrue(v.errorMessages().isEmpty(), v.name() + ": " + v.errorMessages());
            if (v.name().equals("target.cluster.sasl.jaas.config")) {
                assertTrue(v.value() instanceof Password, "a secret's value is a Password: " + v.value().getClass());
                assertTrue(!String.valueOf(v.value()).contains("s3cret"), "the secret shows: " + v.value());
            }
        }
    }
}
