package io.mm2checkpoint.test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Collected durations in microseconds, summarised as p50 / p99 / max. */
final class Latencies {
    private final List<Long> micros = new ArrayList<>();

    synchronized void add(long nanos) {
        micros.add(nanos / 1000);
    }

    synchronized int count() {
        return micros.size();
    }

    synchronized long max() {
        return micros.isEmpty() ? 0 : Collections.max(micros);
    }

    synchronized String summary() {
        if (micros.isEmpty()) {
            return "none";
        }
        List<Long> s = new ArrayList<>(micros);
        Collections.sort(s);
        return String.format("n=%d p50=%.2fms p99=%.2fms max=%.2fms", s.size(), pick(s, 0.50) / 1000.0,
                pick(s, 0.99) / 1000.0, s.get(s.size() - 1) / 1000.0);
    }

    private static long pick(List<Long> sorted, double q) {
        return sorted.get((int) Math.round((sorted.size() - 1) * q));
    }
}
