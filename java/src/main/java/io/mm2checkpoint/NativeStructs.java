// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

/**
 * The fields of the header's counter structs after {@code struct_size}, in declaration order:
 * the order of the {@code long[]} each {@link NativeBinding} method gives for one. Java reads
 * them by name ({@link Values#get}), so a field added to a struct needs nothing here.
 */
final class NativeStructs {
    /** {@code struct mm_diagnostics}. */
    static final String[] MM_DIAGNOSTICS = {
        "live_clients", "live_threads", "concurrent_client_access",
    };

    /** {@code struct mm_offset_sync_writer_stats}. */
    static final String[] MM_OFFSET_SYNC_WRITER_STATS = {
        "records_reported", "syncs_sent", "syncs_delivered", "syncs_failed", "promotions",
        "pending", "delayed", "outstanding", "closed",
    };

    /** {@code struct mm_translation_counts}. */
    static final String[] MM_TRANSLATION_COUNTS = {
        "records_read", "malformed_records", "negative_offset_records",
    };

    /** {@code struct mm_failover_totals}. */
    static final String[] MM_FAILOVER_TOTALS = {
        "partitions", "without_current_offset", "skipped", "reread",
    };

    /** {@code struct mm_task_stats}. */
    static final String[] MM_TASK_STATS = {
        "checkpoints_emitted", "records_skipped", "syncs_loaded", "checkpoints_loaded", "cycles",
        "group_offsets_written", "groups", "load_time_us", "last_stop_time_us", "initialized",
        "checkpoints_load_ok", "group_fetches_denied",
    };

    /** One filled counter struct: its numbers, read by field name. */
    static final class Values {
        private final String[] names;
        private final long[] values;

        /** {@code values} in the order of {@code names}, one of the lists above. */
        Values(String[] names, long[] values) {
            if (names.length != values.length) {
                throw new IllegalArgumentException(names.length + " fields, " + values.length + " values");
            }
            this.names = names;
            this.values = values;
        }

        /** The value of the field {@code name} (a C uint64_t above Long.MAX_VALUE is negative). */
        long get(String name) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return values[i];
                }
            }
            throw new IllegalArgumentException("no field " + name);
        }
    }

    private NativeStructs() {}
}
