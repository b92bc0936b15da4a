package io.mm2checkpoint;

/**
 * Values of the C header's enums that the Java side switches on. The test suite compares them
 * with {@code include/mm2_checkpoint.h}, so a change in the header fails the tests.
 */
final class NativeConstants {
    private NativeConstants() {}

    static final int RESULT_OK = 0;
    static final int RESULT_ALREADY_STOPPED = Mm2Exception.ALREADY_STOPPED;
    static final int RESULT_INVALID_STATE = Mm2Exception.INVALID_STATE;

    static final int POLL_NONE = 0;
    static final int POLL_CYCLE_DONE = 1;
    static final int POLL_NOT_READY = 2;
    static final int POLL_NOT_DUE = 3;
    static final int POLL_STOPPED = 4;
    static final int POLL_FAILED = 5;
}
