package org.apache.kafka.connect.mirror;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The workload of benches/support/workload.rs, step for step (same SplitMix64 stream, same
 * shuffle, same gaps), so that Java's store sees the same syncs and queries as ours.
 */
final class Workload {
    static final int BATCH_SYNCS = 100_000;
    static final int PARTITIONS_PER_TOPIC = 100;

    /** SplitMix64 as crates/core/src/splitmix.rs; unsigned modulo as Rust's u64 %. */
    static final class SplitMix {
        long state;
        SplitMix(long seed) { state = seed; }
        long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
        long range(long lo, long hi) { return lo + Long.remainderUnsigned(next(), hi - lo); }
    }

    final TopicPartition[] partitions;
    final int[] order;
    final long[] nextUp;
    final long[] nextDown;
    final SplitMix rng;

    Workload(int n, long seed) {
        rng = new SplitMix(seed);
        partitions = new TopicPartition[n];
        for (int i = 0; i < n; i++) {
            partitions[i] = new TopicPartition(String.format("mirror-topic-%04d", i / PARTITIONS_PER_TOPIC), i % PARTITIONS_PER_TOPIC);
        }
        order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = n - 1; i >= 1; i--) {
            int j = (int) rng.range(0, i + 1);
            int t = order[i]; order[i] = order[j]; order[j] = t;
        }
        nextUp = new long[n];
        nextDown = new long[n];
        for (int i = 0; i < n; i++) nextUp[i] = rng.range(0, 1L << 30);
        for (int i = 0; i < n; i++) nextDown[i] = rng.range(0, 1L << 30);
    }

    int batchLen() {
        int n = Math.max(partitions.length, 1);
        return ((BATCH_SYNCS + n - 1) / n) * n;
    }

    /** The next batch as the records the offset-syncs topic holds (encoded key and value). */
    @SuppressWarnings("unchecked")
    ConsumerRecord<byte[], byte[]>[] nextRecords() {
        int len = batchLen();
        ConsumerRecord<byte[], byte[]>[] out = new ConsumerRecord[len];
        for (int i = 0; i < len; i++) {
            int p = order[i % order.length];
            long up = nextUp[p], down = nextDown[p];
            long gap = rng.range(0, 50) == 0 ? rng.range(1_000, 10_000) : rng.range(100, 141);
            long markers = rng.range(0, 20) == 0 ? 2 : 0;
            nextUp[p] = up + gap;
            nextDown[p] = down + gap + markers;
            OffsetSync s = new OffsetSync(partitions[p], up, down);
            out[i] = new ConsumerRecord<>("mm2-offset-syncs.target.internal", 0, i, s.recordKey(), s.recordValue());
        }
        return out;
    }

    /** As SyncStream::queries: parallel arrays of partition index and upstream position. */
    void queries(int count, long seed, int[] part, long[] pos) {
        SplitMix q = new SplitMix(seed);
        long n = partitions.length;
        for (int i = 0; i < count; i++) {
            int p = (int) q.range(0, n);
            long lag = q.range(0, 10) == 0 ? q.range(0, 1_000_000) : q.range(0, 2_000);
            part[i] = p;
            pos[i] = Math.max(nextUp[p] - lag, 0);
        }
    }

    /** Java's store with no backing log, read to end, fed {@code rounds} syncs per partition. */
    static Store warmed(Workload w, int rounds) {
        Store store = new Store();
        store.start(true);
        long applied = 0;
        while (applied < (long) rounds * w.partitions.length) {
            ConsumerRecord<byte[], byte[]>[] batch = w.nextRecords();
            for (ConsumerRecord<byte[], byte[]> r : batch) store.handleRecord(r);
            applied += batch.length;
        }
        return store;
    }

    /** The package-private test constructor (no KafkaBasedLog); start() only flips readToEnd. */
    static final class Store extends OffsetSyncStore {
        Store() { super(); }
        @Override void backingStoreStart() { }
        @Override protected void handleRecord(ConsumerRecord<byte[], byte[]> record) { super.handleRecord(record); }
    }
}
