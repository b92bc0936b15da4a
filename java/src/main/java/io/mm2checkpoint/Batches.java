package io.mm2checkpoint;

import java.util.ArrayList;
import java.util.List;

/** Reads a native {@code mm_batch_t} into Java records and frees it. */
final class Batches {
    private Batches() {}

    /** The batch's checkpoints; always destroys the batch. */
    static List<Checkpoint> drain(NativeBinding b, long batch) {
        try {
            int n = Math.toIntExact(b.batchLen(batch));
            List<Checkpoint> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                NativeRows.CheckpointRow row = NativeRows.checkpoint(b, batch, i);
                out.add(new Checkpoint(row.group(), row.topic(), Math.toIntExact(row.partition()),
                        row.upstreamOffset(), row.downstreamOffset(), row.metadata()));
            }
            return out;
        } finally {
            b.batchDestroy(batch);
        }
    }

    /** A poll's batch as a result; always destroys the batch. */
    static PollResult drainPoll(NativeBinding b, long batch) {
        PollStatus status;
        try {
            status = PollStatus.fromNative(b.batchStatus(batch));
        } catch (RuntimeException e) {
            b.batchDestroy(batch);
            throw e;
        }
        return new PollResult(status, drain(b, batch));
    }
}
