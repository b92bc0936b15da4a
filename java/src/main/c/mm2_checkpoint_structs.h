/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
 * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by mm2_checkpoint_jni.c.
 *
 * MM2_FIELDS_<struct>(X) is X(field) for each field of a counter struct after struct_size,
 * in declaration order: the order of the long[] the bridge fills, which
 * NativeStructs.java names; MM2_COUNT_<struct> is how many there are. */

#define MM2_FIELDS_mm_diagnostics(X) \
    X(live_clients) X(live_threads) X(concurrent_client_access)
#define MM2_COUNT_mm_diagnostics 3

#define MM2_FIELDS_mm_offset_sync_writer_stats(X) \
    X(records_reported) X(syncs_sent) X(syncs_delivered) X(syncs_failed) X(promotions) \
    X(pending) X(delayed) X(outstanding) X(closed)
#define MM2_COUNT_mm_offset_sync_writer_stats 9

#define MM2_FIELDS_mm_translation_counts(X) \
    X(records_read) X(malformed_records) X(negative_offset_records)
#define MM2_COUNT_mm_translation_counts 3

#define MM2_FIELDS_mm_failover_totals(X) \
    X(partitions) X(without_current_offset) X(skipped) X(reread)
#define MM2_COUNT_mm_failover_totals 4

#define MM2_FIELDS_mm_task_stats(X) \
    X(checkpoints_emitted) X(records_skipped) X(syncs_loaded) X(checkpoints_loaded) X(cycles) \
    X(group_offsets_written) X(groups) X(load_time_us) X(last_stop_time_us) X(initialized) \
    X(checkpoints_load_ok) X(group_fetches_denied)
#define MM2_COUNT_mm_task_stats 12
