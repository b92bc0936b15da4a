package org.apache.kafka.connect.mirror;

/**
 * Heap per tracked partition of Java's OffsetSyncStore: used heap after full GCs, before and
 * after warming 100,000 partitions with 64 syncs each (the store's steady state), divided by
 * the partition count. Everything the store retains is counted: the map entries, the
 * OffsetSync[64] arrays, the OffsetSync objects and the TopicPartition (and topic String) that
 * each decoded record carries; the workload's own arrays exist before the first measurement.
 */
public class StoreMemory {
    static long used() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Workload w = new Workload(n, 1);
        long before = used();
        Workload.Store store = warmedInto(w, 64);
        long after = used();
        System.out.printf("java OffsetSyncStore: %d partitions, %d bytes, %.1f B/partition (%s)%n",
            n, after - before, (after - before) / (double) n, store.syncFor(w.partitions[0], 0));
    }

    static Workload.Store warmedInto(Workload w, int rounds) {
        return Workload.warmed(w, rounds);
    }
}
