package io.mm2checkpoint;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link CheckpointTask#poll} returned.
 *
 * @param status      why the poll returned
 * @param checkpoints the checkpoints written in this call (empty unless {@code status} is
 *                    {@link PollStatus#CYCLE_DONE}); unmodifiable
 */
public record PollResult(PollStatus status, List<Checkpoint> checkpoints) {

    /** Copies the list, so a result never changes after it was returned. */
    public PollResult {
        Objects.requireNonNull(status, "status");
        checkpoints = List.copyOf(checkpoints);
    }
}
