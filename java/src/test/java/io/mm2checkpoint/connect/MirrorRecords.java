package io.mm2checkpoint.connect;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * MM2's record formats, written out from the Kafka protocol schemas of connect-mirror-client's
 * {@code OffsetSync} and {@code Checkpoint}: strings are an int16 length and UTF-8 bytes.
 */
final class MirrorRecords {
    private MirrorRecords() {}

    /** A checkpoint as read from a checkpoints topic. */
    record Checkpoint(String group, String topic, int partition, long upstream, long downstream, String metadata) {
        String key() {
            return group + "/" + topic + "-" + partition;
        }
    }

    static byte[] offsetSyncKey(String topic, int partition) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + t.length + 4).putShort((short) t.length).put(t).putInt(partition).array();
    }

    static byte[] offsetSyncValue(long upstream, long downstream) {
        return ByteBuffer.allocate(16).putLong(upstream).putLong(downstream).array();
    }

    static Checkpoint checkpoint(byte[] key, byte[] value) {
        ByteBuffer k = ByteBuffer.wrap(key);
        String group = string(k);
        String topic = string(k);
        int partition = k.getInt();
        ByteBuffer v = ByteBuffer.wrap(value);
        short version = v.getShort();
        if (version != 0) {
            throw new IllegalArgumentException("checkpoint value version " + version);
        }
        long upstream = v.getLong();
        long downstream = v.getLong();
        return new Checkpoint(group, topic, partition, upstream, downstream, string(v));
    }

    private static String string(ByteBuffer b) {
        byte[] bytes = new byte[b.getShort()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
