// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.
package io.mm2checkpoint;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;

/** Every C function of {@code mm2_checkpoint.h}: its symbol and how the FFM API calls it. */
final class NativeFunctions {
    private NativeFunctions() {}

    /** A C function of the library. */
    record Function(String symbol, FunctionDescriptor descriptor) {}

    static final Function MM_BATCH_DESTROY =
            new Function("mm_batch_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_BATCH_LEN =
            new Function("mm_batch_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_BATCH_ROW =
            new Function("mm_batch_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_BATCH_STATUS =
            new Function("mm_batch_status", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_COMMIT_FAILBACK_OFFSETS =
            new Function("mm_commit_failback_offsets", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_COMMIT_REPORT_DESTROY =
            new Function("mm_commit_report_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_COMMIT_REPORT_LEN =
            new Function("mm_commit_report_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_COMMIT_REPORT_ROW =
            new Function("mm_commit_report_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_COMMIT_TRANSLATED_OFFSETS =
            new Function("mm_commit_translated_offsets", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_CONF_COUNT =
            new Function("mm_conf_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_CONF_DESCRIBE =
            new Function("mm_conf_describe", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_CONF_DESTROY =
            new Function("mm_conf_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_CONF_DUP =
            new Function("mm_conf_dup", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_CONF_GET =
            new Function("mm_conf_get", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_CONF_KEY =
            new Function("mm_conf_key", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

    static final Function MM_CONF_LOAD_PROPERTIES =
            new Function("mm_conf_load_properties", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_CONF_NEW =
            new Function("mm_conf_new", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_CONF_SET =
            new Function("mm_conf_set", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_CONF_UNSET =
            new Function("mm_conf_unset", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_CURRENT_TASK_ID =
            new Function("mm_current_task_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_DIAGNOSTICS_GET =
            new Function("mm_diagnostics_get", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_EMBEDDED_BOOTSTRAP =
            new Function("mm_embedded_bootstrap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_EMBEDDED_COMMIT_OFFSET =
            new Function("mm_embedded_commit_offset", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));

    static final Function MM_EMBEDDED_CREATE_TOPIC =
            new Function("mm_embedded_create_topic", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));

    static final Function MM_EMBEDDED_DESTROY =
            new Function("mm_embedded_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_EMBEDDED_NEW =
            new Function("mm_embedded_new", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_EMBEDDED_PRODUCE_DATA =
            new Function("mm_embedded_produce_data", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));

    static final Function MM_EMBEDDED_PRODUCE_OFFSET_SYNCS =
            new Function("mm_embedded_produce_offset_syncs", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));

    static final Function MM_EMBEDDED_READ_CHECKPOINTS =
            new Function("mm_embedded_read_checkpoints", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_FAILBACK_OFFSETS_DESTROY =
            new Function("mm_failback_offsets_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_FAILBACK_OFFSETS_LEN =
            new Function("mm_failback_offsets_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_FAILBACK_OFFSETS_ROW =
            new Function("mm_failback_offsets_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_FAILBACK_REPORT =
            new Function("mm_failback_report", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_FAILOVER_REPORT =
            new Function("mm_failover_report", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_FAILOVER_REPORT_CAUGHT_UP =
            new Function("mm_failover_report_caught_up", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_FAILOVER_REPORT_DESTROY =
            new Function("mm_failover_report_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_FAILOVER_REPORT_GET_TOTALS =
            new Function("mm_failover_report_get_totals", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_FAILOVER_REPORT_LEN =
            new Function("mm_failover_report_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_FAILOVER_REPORT_ROW =
            new Function("mm_failover_report_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_FLOWS_COUNT =
            new Function("mm_flows_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_FLOWS_DESTROY =
            new Function("mm_flows_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_FLOWS_NAME =
            new Function("mm_flows_name", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

    static final Function MM_FLOWS_NEW =
            new Function("mm_flows_new", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_FLOWS_START =
            new Function("mm_flows_start", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_FLOWS_STOP =
            new Function("mm_flows_stop", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_FLOWS_TASK =
            new Function("mm_flows_task", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_GROUP_SYNC_RESULTS_DESTROY =
            new Function("mm_group_sync_results_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_GROUP_SYNC_RESULTS_LEN =
            new Function("mm_group_sync_results_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_GROUP_SYNC_RESULTS_ROW =
            new Function("mm_group_sync_results_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_LAST_ERROR =
            new Function("mm_last_error", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));

    static final Function MM_LAST_ERROR_KAFKA_CODE =
            new Function("mm_last_error_kafka_code", FunctionDescriptor.of(JAVA_INT));

    static final Function MM_OFFSET_SYNC_WRITER_CLOSE =
            new Function("mm_offset_sync_writer_close", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    static final Function MM_OFFSET_SYNC_WRITER_DESTROY =
            new Function("mm_offset_sync_writer_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_OFFSET_SYNC_WRITER_FLUSH =
            new Function("mm_offset_sync_writer_flush", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    static final Function MM_OFFSET_SYNC_WRITER_GET_STATS =
            new Function("mm_offset_sync_writer_get_stats", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_OFFSET_SYNC_WRITER_NEW =
            new Function("mm_offset_sync_writer_new", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_OFFSET_SYNC_WRITER_REPORT =
            new Function("mm_offset_sync_writer_report", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));

    static final Function MM_OFFSET_SYNC_WRITER_TICK =
            new Function("mm_offset_sync_writer_tick", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_OFFSET_SYNC_WRITER_WAIT_FOR_CAPACITY =
            new Function("mm_offset_sync_writer_wait_for_capacity", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    static final Function MM_PARTITION_STATUSES_DESTROY =
            new Function("mm_partition_statuses_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_PARTITION_STATUSES_LEN =
            new Function("mm_partition_statuses_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_PARTITION_STATUSES_ROW =
            new Function("mm_partition_statuses_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_RESULT_STR =
            new Function("mm_result_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    static final Function MM_SET_LOG_CALLBACK =
            new Function("mm_set_log_callback", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    static final Function MM_TASK_DESTROY =
            new Function("mm_task_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_TASK_FATAL_ERROR =
            new Function("mm_task_fatal_error", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_TASK_GET_STATS =
            new Function("mm_task_get_stats", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TASK_GROUP_OFFSET_SYNC_RESULTS =
            new Function("mm_task_group_offset_sync_results", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TASK_ID =
            new Function("mm_task_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TASK_METRICS_JSON =
            new Function("mm_task_metrics_json", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_TASK_NEW =
            new Function("mm_task_new", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TASK_PARTITION_STATUSES =
            new Function("mm_task_partition_statuses", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TASK_POLL =
            new Function("mm_task_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_TASK_RETRY_REASON =
            new Function("mm_task_retry_reason", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_TASK_SET_STATS_CB =
            new Function("mm_task_set_stats_cb", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_TASK_START =
            new Function("mm_task_start", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_TASK_STOP =
            new Function("mm_task_stop", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_TRANSLATE_OFFSETS =
            new Function("mm_translate_offsets", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_TRANSLATE_OFFSETS_BACK =
            new Function("mm_translate_offsets_back", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_ADD =
            new Function("mm_translated_offsets_add", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_CHECKPOINTS_TOPIC =
            new Function("mm_translated_offsets_checkpoints_topic", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_DESTROY =
            new Function("mm_translated_offsets_destroy", FunctionDescriptor.ofVoid(ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_GET_COUNTS =
            new Function("mm_translated_offsets_get_counts", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_LEN =
            new Function("mm_translated_offsets_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_NEW =
            new Function("mm_translated_offsets_new", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final Function MM_TRANSLATED_OFFSETS_ROW =
            new Function("mm_translated_offsets_row", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));

    static final Function MM_VERSION =
            new Function("mm_version", FunctionDescriptor.of(ADDRESS));

    static final Function MM_VERSION_NUM =
            new Function("mm_version_num", FunctionDescriptor.of(JAVA_INT));

    /** The callback type {@code mm_log_cb}, as an upcall stub for it is described. */
    static final FunctionDescriptor MM_LOG_CB =
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, ADDRESS, ADDRESS);

    /** The callback type {@code mm_stats_cb}, as an upcall stub for it is described. */
    static final FunctionDescriptor MM_STATS_CB =
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
}
