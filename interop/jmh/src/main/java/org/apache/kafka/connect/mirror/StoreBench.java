package org.apache.kafka.connect.mirror;

import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.openjdk.jmh.annotations.*;

/**
 * Java MM2's OffsetSyncStore on the workload of benches/offset_sync_store.rs: decode + ingest
 * (handleRecord on the encoded records) and translate (translateDownstream), 100,000 per
 * invocation, after 64 warm-up rounds per partition.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgs = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class StoreBench {
    static final int WARM_ROUNDS = 64;
    static final int QUERIES = 100_000;

    @State(Scope.Benchmark)
    public static class Ingest {
        @Param({"1", "1000", "100000"}) public int partitions;
        Workload w;
        Workload.Store store;
        ConsumerRecord<byte[], byte[]>[] batch;

        @Setup(Level.Trial) public void setup() {
            w = new Workload(partitions, 1);
            store = Workload.warmed(w, WARM_ROUNDS);
        }
        @Setup(Level.Invocation) public void next() { batch = w.nextRecords(); }
    }

    @State(Scope.Benchmark)
    public static class Translate {
        @Param({"1", "1000", "100000"}) public int partitions;
        Workload w;
        Workload.Store store;
        int[] part = new int[QUERIES];
        long[] pos = new long[QUERIES];

        @Setup(Level.Trial) public void setup() {
            w = new Workload(partitions, 1);
            store = Workload.warmed(w, WARM_ROUNDS);
            w.queries(QUERIES, 2, part, pos);
        }
    }

    /** Per record: OffsetSync.deserializeRecord + the 64-slot update, as the KafkaBasedLog callback. */
    @Benchmark @OperationsPerInvocation(100_000)
    public int decodeAndIngest(Ingest s) {
        for (ConsumerRecord<byte[], byte[]> r : s.batch) s.store.handleRecord(r);
        return s.batch.length;
    }

    @Benchmark @OperationsPerInvocation(QUERIES)
    public long translate(Translate s) {
        long acc = 0;
        for (int i = 0; i < QUERIES; i++) {
            OptionalLong t = s.store.translateDownstream("g", s.w.partitions[s.part[i]], s.pos[i]);
            acc += t.isPresent() ? t.getAsLong() : -1;
        }
        return acc;
    }
}
