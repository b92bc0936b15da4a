// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

/** The function of each {@link NativeRows.Kind}, as {@link NativeFunctions} describes it. */
final class PanamaRows {
    private PanamaRows() {}

    /** The function filling rows of kind {@code id}. */
    static NativeFunctions.Function function(int id) {
        return switch (id) {
            case 0 -> NativeFunctions.MM_BATCH_ROW;
            case 1 -> NativeFunctions.MM_PARTITION_STATUSES_ROW;
            case 2 -> NativeFunctions.MM_GROUP_SYNC_RESULTS_ROW;
            case 3 -> NativeFunctions.MM_FAILBACK_OFFSETS_ROW;
            case 4 -> NativeFunctions.MM_COMMIT_REPORT_ROW;
            case 5 -> NativeFunctions.MM_TRANSLATED_OFFSETS_ROW;
            case 6 -> NativeFunctions.MM_FAILOVER_REPORT_ROW;
            default -> throw new IllegalArgumentException("unknown row kind " + id);
        };
    }
}
