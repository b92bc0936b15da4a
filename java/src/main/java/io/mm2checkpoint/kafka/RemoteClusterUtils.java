package io.mm2checkpoint.kafka;

import io.mm2checkpoint.Mm2Exception;
import io.mm2checkpoint.TranslatedOffset;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A drop-in for {@code org.apache.kafka.connect.mirror.RemoteClusterUtils.translateOffsets}: the
 * same signature, Kafka's own types in and out, so changing the import is enough. The work is
 * done by the native library ({@link io.mm2checkpoint.RemoteClusterUtils}); kafka-clients is only
 * needed for {@link TopicPartition} and {@link OffsetAndMetadata} (a {@code provided} dependency:
 * the application brings its own).
 *
 * <p>{@code properties} are the target cluster's client properties as Java clients take them:
 * values are turned into text ({@link Collection}s comma-separated, {@link Class}es by name) and
 * handed to librdkafka, which shares the common names ({@code bootstrap.servers},
 * {@code security.protocol}, {@code sasl.mechanism}, {@code ssl.ca.location}...);
 * {@code replication.policy.class}, {@code replication.policy.separator} and
 * {@code replication.policy.internal.topic.separator.enabled} name the checkpoints topic as in
 * MM2. (De)serializer classes, which have no meaning here, are left out.
 *
 * <p>Differences from Kafka's: a missing checkpoints topic throws {@link Mm2Exception} naming it
 * (Kafka's returns an empty map, which hides a wrong alias), and reaching the timeout before the
 * end of the topic throws {@link TimeoutException} instead of returning what was read so far.
 */
public final class RemoteClusterUtils {
    /** Java-client-only keys that a caller's consumer properties often hold. */
    private static final Set<String> JAVA_ONLY = Set.of("key.deserializer", "value.deserializer", "key.serializer",
            "value.serializer");

    private RemoteClusterUtils() {}

    /**
     * Where {@code consumerGroupId} should resume on the cluster {@code properties} point to,
     * from the checkpoints the group's source cluster {@code remoteClusterAlias} has there.
     *
     * @throws TimeoutException     when the end of the checkpoints topic was not reached in time
     * @throws InterruptedException never in practice (the call cannot be interrupted); declared
     *                              as Kafka's is, so callers compile unchanged
     * @throws Mm2Exception         for a rejected setting or a failed read (e.g. a missing topic)
     */
    public static Map<TopicPartition, OffsetAndMetadata> translateOffsets(Map<String, Object> properties,
            String remoteClusterAlias, String consumerGroupId, Duration timeout)
            throws InterruptedException, TimeoutException {
        try {
            return io.mm2checkpoint.RemoteClusterUtils
                    .translateOffsets(clientSettings(properties), remoteClusterAlias, consumerGroupId, timeout)
                    .forGroup(consumerGroupId).stream()
                    .collect(Collectors.toMap(o -> new TopicPartition(o.topic(), o.partition()),
                            RemoteClusterUtils::offsetAndMetadata, (a, b) -> b, HashMap::new));
        } catch (Mm2Exception e) {
            if (e.code() == Mm2Exception.TIMED_OUT) {
                TimeoutException t = new TimeoutException(e.getMessage());
                t.initCause(e);
                throw t;
            }
            throw e;
        }
    }

    private static OffsetAndMetadata offsetAndMetadata(TranslatedOffset o) {
        return new OffsetAndMetadata(o.offset(), o.metadata());
    }

    /** Java client properties as text settings. */
    static Map<String, String> clientSettings(Map<String, Object> properties) {
        Map<String, String> out = new HashMap<>();
        properties.forEach((key, value) -> {
            if (value == null || JAVA_ONLY.contains(key)) {
                return;
            }
            String text;
            if (value instanceof Collection<?> c) {
                text = c.stream().map(String::valueOf).collect(Collectors.joining(","));
            } else if (value instanceof Class<?> cls) {
                text = cls.getName();
            } else {
                text = value.toString();
            }
            out.put(key, text);
        });
        return out;
    }
}
