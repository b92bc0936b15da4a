package io.mm2checkpoint.connect;

import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.CheckpointTask;
import io.mm2checkpoint.Mm2Exception;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A drop-in for MirrorMaker 2's {@code MirrorCheckpointConnector}: the same configuration keys
 * ({@code source.cluster.alias}, {@code target.cluster.alias}, {@code source.cluster.bootstrap.servers},
 * {@code groups}, {@code emit.checkpoints.interval.seconds}, {@code sync.group.offsets.enabled}, ...),
 * the same checkpoints topic and record format, with each task backed by the native checkpoint
 * task of mm2-checkpoint.
 *
 * <p>Where it differs on purpose: the connector does not list consumer groups and never asks
 * Connect to reconfigure its tasks. Task {@code i} of {@code n} gets {@code task.index=i} and
 * {@code task.count=n}; each native task discovers the groups itself (every
 * {@code refresh.groups.interval.seconds}) and keeps those that hash to it (rendezvous hashing),
 * so groups appearing and disappearing never restart a task. The checkpoints are written by the
 * native task itself (and counted as emitted only once the broker confirmed them), so
 * {@link NativeMirrorCheckpointTask#poll} hands no records to Connect.
 *
 * <p>Client settings are passed to librdkafka, which shares the common names
 * ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.mechanism}, ...). Connect's
 * own keys (converters, transforms, {@code errors.*}, ...) are not passed on: converters play no
 * part, since the native task writes the checkpoints itself in MM2's binary format.
 */
public final class NativeMirrorCheckpointConnector extends SourceConnector {
    static final String TASK_INDEX = "task.index";
    static final String TASK_COUNT = "task.count";

    private Map<String, String> props = Map.of();

    @Override
    public void start(Map<String, String> props) {
        // Every rule the library knows (values and whole-configuration checks) is applied now,
        // so a bad configuration fails the connector, not each task later. Making a task makes
        // no Kafka client; it is freed at once.
        try {
            check(props);
            this.props = Map.copyOf(props);
        } catch (Mm2Exception e) {
            throw new ConnectException("invalid " + getClass().getSimpleName() + " configuration: " + e.getMessage(), e);
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return NativeMirrorCheckpointTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TASK_INDEX, Integer.toString(i));
            task.put(TASK_COUNT, Integer.toString(maxTasks));
            configs.add(task);
        }
        return configs;
    }

    @Override
    public void stop() {
        // The connector holds no client and no thread: nothing to release.
    }

    @Override
    public ConfigDef config() {
        return ConnectorKeys.DEFINITION;
    }

    /** Connect's checks of the declared keys, then the library's, reported on the key it names. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        try {
            check(connectorConfigs);
            return config;
        } catch (Mm2Exception e) {
            String key = e.configKey().orElse(ConnectorKeys.SOURCE_ALIAS);
            String reason = e.configKey().isPresent() ? e.reason() : e.getMessage();
            for (ConfigValue value : config.configValues()) {
                if (value.name().equals(key)) {
                    value.addErrorMessage(reason);
                    return config;
                }
            }
            ConfigValue value = new ConfigValue(key);
            value.addErrorMessage(reason);
            List<ConfigValue> values = new ArrayList<>(config.configValues());
            values.add(value);
            return new Config(values);
        }
    }

    @Override
    public String version() {
        return ConnectorKeys.VERSION;
    }

    /** Applies every rule of the library to {@code props}, throwing {@link Mm2Exception} for the first broken. */
    private static void check(Map<String, String> props) {
        new CheckpointTask(config(props, 0, 1)).close();
    }

    /**
     * The library's configuration for task {@code index} of {@code count}: the connector's keys
     * without those Connect itself defines (name, connector.class, task.class, converters, ...).
     */
    static CheckpointConfig config(Map<String, String> props, int index, int count) {
        return CheckpointConfig.builder()
                .setAll(ConnectorKeys.withoutConnectKeys(props))
                .set(TASK_INDEX, Integer.toString(index))
                .set(TASK_COUNT, Integer.toString(count))
                .build();
    }
}
