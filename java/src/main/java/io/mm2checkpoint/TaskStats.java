package io.mm2checkpoint;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of one task's counters ({@code mm_task_get_stats}).
 *
 * @param initialized         true once both stores (checkpoints and offset syncs) finished loading
 * @param checkpointsEmitted  checkpoints written and confirmed by the target
 * @param recordsSkipped      malformed records skipped in the internal topics
 * @param syncsLoaded         offset syncs applied (initial load and tailing)
 * @param checkpointsLoaded   checkpoints read back from the target at start
 * @param checkpointsLoadOk   whether those loaded successfully (else translation starts pessimistic)
 * @param loadTime            time from start to both stores loaded, once they are
 * @param lastStopTime        how long the last stop took, once stopped
 * @param cycles              checkpoint cycles run
 * @param groupOffsetsWritten offsets committed into target groups
 * @param groups              groups this task currently checkpoints
 * @param groupFetchesDenied  committed-offset fetches a group's own ACL denied
 *                            (GROUP_AUTHORIZATION_FAILED) in checkpoint cycles, group discoveries
 *                            and group offset syncs; each skips that group until a later run
 */
public record TaskStats(
        boolean initialized,
        long checkpointsEmitted,
        long recordsSkipped,
        long syncsLoaded,
        long checkpointsLoaded,
        boolean checkpointsLoadOk,
        Optional<Duration> loadTime,
        Optional<Duration> lastStopTime,
        long cycles,
        long groupOffsetsWritten,
        long groups,
        long groupFetchesDenied) {

    /** From the fields of {@code mm_task_stats}, in the order {@link NativeBinding#taskStats} gives. */
    static TaskStats fromNative(long[] f) {
        return new TaskStats(f[9] != 0, f[0], f[1], f[2], f[3], f[10] != 0, micros(f[7]), micros(f[8]),
                f[4], f[5], f[6], f[11]);
    }

    private static Optional<Duration> micros(long us) {
        return us < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(Math.multiplyExact(us, 1000L)));
    }
}
