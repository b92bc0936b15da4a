package io.mm2checkpoint.connect;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The connector's declared keys: those Connect's REST validation shows. The library accepts all
 * of MirrorCheckpointConnector's keys (and judges every value); these are the ones a user sets.
 */
final class ConnectorKeys {
    static final String VERSION = "0.1.0";
    static final String SOURCE_ALIAS = "source.cluster.alias";
    static final String TARGET_ALIAS = "target.cluster.alias";

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
                    "Commit translated offsets into idle target groups");

    private ConnectorKeys() {}
}
