package io.mm2checkpoint;

/** Why {@link CheckpointTask#poll} returned. */
public enum PollStatus {
    /**
     * A checkpoint cycle ran; the result holds the checkpoints it wrote, often none (a quiet
     * cycle: no group moved). Was {@code EMITTED}, which read as if something was written.
     */
    CYCLE_DONE,
    /** The stores are still loading (the offset-syncs and checkpoints topics); nothing was written. */
    NOT_READY,
    /** The timeout passed before the next cycle was due. */
    NOT_DUE,
    /** The task is stopped, or was stopped while the poll waited. */
    STOPPED,
    /** The task hit a fatal error; {@link CheckpointTask#fatalError} says which. */
    FAILED;

    /** The status for a native {@code mm_poll_status} value. */
    static PollStatus fromNative(int value) {
        return switch (value) {
            case NativeConstants.POLL_CYCLE_DONE -> CYCLE_DONE;
            case NativeConstants.POLL_NOT_READY -> NOT_READY;
            case NativeConstants.POLL_NOT_DUE -> NOT_DUE;
            case NativeConstants.POLL_STOPPED -> STOPPED;
            case NativeConstants.POLL_FAILED -> FAILED;
            default -> throw new Mm2Exception(NativeConstants.RESULT_INVALID_STATE,
                    "MM_RESULT_INVALID_STATE", "unknown poll status " + value + " from the native library");
        };
    }
}
