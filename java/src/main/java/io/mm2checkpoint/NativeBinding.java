package io.mm2checkpoint;

/**
 * The C ABI of {@code libmm2_checkpoint.so} in Java types. Every function that crosses by rule is
 * a method of the generated {@link NativeCalls}; this interface adds what each binding writes by
 * hand: the log bridge, the list rows (every {@code mm_<list>_row} through {@link #row}, driven by
 * the generated {@link NativeRows}) and whether the mock clusters are there. Two implementations:
 * {@code PanamaBinding} (java.lang.foreign, Java 22+) and {@link JniBinding} (a thin C bridge,
 * Java 17+). Everything above this interface — lifetimes, records, exceptions, logging — is shared
 * Java code, so both bindings behave the same by construction.
 *
 * <p>Methods whose C function returns an {@code mm_result} throw {@link Mm2Exception} for any
 * result but OK, carrying the library's message. Thread rules are the C ones (see the header).
 */
interface NativeBinding extends NativeCalls {
    /** {@code "panama"} or {@code "jni"}. */
    String name();

    /**
     * {@code mm_set_log_callback} with this binding's bridge to {@link LogBridge#deliver}, at
     * {@code maxLevel} (an {@code mm_log_level}); {@code maxLevel} 0 removes the callback.
     */
    void setLogBridge(int maxLevel);

    /**
     * {@code mm_<list>_row} for a row kind: row {@code index} of {@code list}, its numbers written
     * to {@code numbers} and its texts returned, both in the order {@code kind} lists them (a
     * text is null when the entry does not have it). The one way list data crosses; {@link
     * NativeRows} (generated from the header) turns the values into records.
     */
    String[] row(NativeRows.Kind kind, long list, int index, long[] numbers);

    /**
     * Whether the loaded library has the test-only mock clusters ({@code mm_embedded_*}): the test
     * kit's library has, the jar's production library has not.
     */
    boolean mockClustersAvailable();
}
