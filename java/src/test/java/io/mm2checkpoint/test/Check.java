package io.mm2checkpoint.test;

import java.util.Objects;

/** Assertions for the tests; each throws {@link AssertionError} with the values involved. */
final class Check {
    private Check() {}

    static void isTrue(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    static void equal(Object expected, Object actual, String what) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    /** Runs {@code body} and returns what it threw, failing when it threw nothing or another type. */
    static <T extends Throwable> T throwsType(Class<T> type, ThrowingRunnable body, String what) {
        try {
            body.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            throw new AssertionError(what + ": expected " + type.getSimpleName() + " but got " + t, t);
        }
        throw new AssertionError(what + ": expected " + type.getSimpleName() + " but nothing was thrown");
    }

    /** A block that may throw anything. */
    interface ThrowingRunnable {
        void run() throws Throwable;
    }
}
