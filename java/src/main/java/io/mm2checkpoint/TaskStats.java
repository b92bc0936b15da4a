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

    /** From the fields of {@code mm_task_stats}, as {@link NativeCalls#taskGetStats} gives them. */
    static TaskStats fromNative(long[] values) {
        NativeStructs.Values f = new NativeStructs.Values(NativeStructs.MM_TASK_STATS, values);
        return new TaskStats(f.get("initialized") != 0, f.get("checkpoints_emitted"), f.get("records_skipped"),
                f.get("syncs_loaded"), f.get("checkpoints_loaded"), f.get("checkpoints_load_ok") != 0,
                micros(f.get("load_time_us")), micros(f.get("last_stop_time_us")), f.get("cycles"),
                f.get("group_offsets_written"), f.get("groups"), f.get("group_fetches_denied"));
    }

    private static Optional<Duration> micros(long us) {
        return us < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(Math.multiplyExact(us, 1000L)));
    }
}
