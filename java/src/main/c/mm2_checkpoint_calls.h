/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.
 * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by mm2_checkpoint_jni.c, after
 * its helpers: the native methods of io.mm2checkpoint.JniCalls, each calling one mm_* function.
 *
 * The mock clusters are in the test kit's library only (java/README.md, "What the jar holds"):
 * weak references, so that the bridge links and loads against either library; calling one the
 * library lacks throws (no_mock_clusters). */
#pragma weak mm_embedded_new
#pragma weak mm_embedded_destroy
#pragma weak mm_embedded_bootstrap
#pragma weak mm_embedded_create_topic
#pragma weak mm_embedded_produce_data
#pragma weak mm_embedded_produce_offset_syncs
#pragma weak mm_embedded_commit_offset
#pragma weak mm_embedded_read_checkpoints

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nBatchLen(JNIEnv *env, jclass cls, jlong batch) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_batch_len(ptr(batch), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniCalls_nBatchStatus(JNIEnv *env, jclass cls, jlong batch) {
    (void)env;
    (void)cls;
    jint ret = 0;
    enum mm_poll_status out = 0;
    if (check(env, mm_batch_status(ptr(batch), &out))) {
        ret = (jint)out;
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nBatchDestroy(JNIEnv *env, jclass cls, jlong batch) {
    (void)env;
    (void)cls;
    mm_batch_destroy(ptr(batch));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nResultStr(JNIEnv *env, jclass cls, jint result) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    const char *text = mm_result_str((int)result);
    ret = text == NULL ? NULL : java_bytes(env, text, strlen(text));
    return ret;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nVersion(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    const char *text = mm_version();
    ret = text == NULL ? NULL : java_bytes(env, text, strlen(text));
    return ret;
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniCalls_nVersionNum(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jint ret = 0;
    ret = (jint)mm_version_num();
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nConfNew(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_conf_t *out = NULL;
    if (check(env, mm_conf_new(&out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nConfSet(JNIEnv *env, jclass cls, jlong conf, jbyteArray key, jbyteArray value) {
    (void)env;
    (void)cls;
    char *c_key = c_text(env, key);
    char *c_value = c_key == NULL ? NULL : c_text(env, value);
    if (c_value != NULL) {
        check(env, mm_conf_set(ptr(conf), c_key, c_value));
    }
    free(c_value);
    free(c_key);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nConfUnset(JNIEnv *env, jclass cls, jlong conf, jbyteArray key) {
    (void)env;
    (void)cls;
    char *c_key = c_text(env, key);
    if (c_key != NULL) {
        check(env, mm_conf_unset(ptr(conf), c_key));
    }
    free(c_key);
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nConfGet(JNIEnv *env, jclass cls, jlong conf, jbyteArray key) {
    (void)env;
    (void)cls;
    char *c_key = c_text(env, key);
    jbyteArray ret = NULL;
    if (c_key != NULL) {
        size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
        char *text = NULL;
        enum mm_result r = mm_conf_get(ptr(conf), c_key, NULL, &size);
        while (r == MM_RESULT_OK) {
            free(text);
            text = malloc_or_throw(env, size, "the text of mm_conf_get");
            if (text == NULL) {
                break;
            }
            r = mm_conf_get(ptr(conf), c_key, text, &size);
            if (r == MM_RESULT_OK) {
                ret = java_bytes(env, text, strlen(text));
                break;
            }
            if (r == MM_RESULT_BUFFER_TOO_SMALL) {
                r = MM_RESULT_OK;
            }
        }
        if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
            check(env, r);
        }
        free(text);
    }
    free(c_key);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nConfDup(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_conf_t *out = NULL;
    if (check(env, mm_conf_dup(ptr(conf), &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nConfDestroy(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    mm_conf_destroy(ptr(conf));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nConfLoadProperties(JNIEnv *env, jclass cls, jlong conf, jbyteArray properties) {
    (void)env;
    (void)cls;
    char *c_properties = c_text(env, properties);
    if (c_properties != NULL) {
        check(env, mm_conf_load_properties(ptr(conf), c_properties));
    }
    free(c_properties);
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nConfDescribe(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_conf_describe(ptr(conf), NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_conf_describe");
        if (text == NULL) {
            break;
        }
        r = mm_conf_describe(ptr(conf), text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nConfCount(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_conf_count(ptr(conf), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nConfKey(JNIEnv *env, jclass cls, jlong conf, jlong index) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_conf_key(ptr(conf), (size_t)index, NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_conf_key");
        if (text == NULL) {
            break;
        }
        r = mm_conf_key(ptr(conf), (size_t)index, text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jlongArray JNICALL Java_io_mm2checkpoint_JniCalls_nDiagnosticsGet(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jlongArray ret = NULL;
    struct mm_diagnostics out = {.struct_size = sizeof out};
    if (check(env, mm_diagnostics_get(&out))) {
        ret = java_longs(env, (jlong[]){MM2_FIELDS_mm_diagnostics(MM2_JLONG_OF_OUT)}, MM2_COUNT_mm_diagnostics);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTaskPartitionStatuses(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_partition_statuses_t *out = NULL;
    if (check(env, mm_task_partition_statuses(ptr(task), &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nPartitionStatusesLen(JNIEnv *env, jclass cls, jlong statuses) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_partition_statuses_len(ptr(statuses), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nPartitionStatusesDestroy(JNIEnv *env, jclass cls, jlong statuses) {
    (void)env;
    (void)cls;
    mm_partition_statuses_destroy(ptr(statuses));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTaskGroupOffsetSyncResults(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_group_sync_results_t *out = NULL;
    if (check(env, mm_task_group_offset_sync_results(ptr(task), &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nGroupSyncResultsLen(JNIEnv *env, jclass cls, jlong results) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_group_sync_results_len(ptr(results), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nGroupSyncResultsDestroy(JNIEnv *env, jclass cls, jlong results) {
    (void)env;
    (void)cls;
    mm_group_sync_results_destroy(ptr(results));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedNew(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    if (mm_embedded_new == NULL) {
        no_mock_clusters(env);
        return 0;
    }
    jlong ret = 0;
    struct mm_embedded_t *out = NULL;
    if (check(env, mm_embedded_new(&out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedDestroy(JNIEnv *env, jclass cls, jlong embedded) {
    (void)env;
    (void)cls;
    if (mm_embedded_destroy == NULL) {
        no_mock_clusters(env);
        return;
    }
    mm_embedded_destroy(ptr(embedded));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedBootstrap(JNIEnv *env, jclass cls, jlong embedded, jint side) {
    (void)env;
    (void)cls;
    if (mm_embedded_bootstrap == NULL) {
        no_mock_clusters(env);
        return NULL;
    }
    jbyteArray ret = NULL;
    const char *text = NULL;
    size_t len = 0;
    enum mm_result r = mm_embedded_bootstrap(ptr(embedded), (int)side, &text, &len);
    ret = text_of(env, r, &text, &len);
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedCreateTopic(JNIEnv *env, jclass cls, jlong embedded, jint side, jbyteArray topic, jint partitions) {
    (void)env;
    (void)cls;
    if (mm_embedded_create_topic == NULL) {
        no_mock_clusters(env);
        return;
    }
    char *c_topic = c_text(env, topic);
    if (c_topic != NULL) {
        check(env, mm_embedded_create_topic(ptr(embedded), (int)side, c_topic, (int32_t)partitions));
    }
    free(c_topic);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedProduceData(JNIEnv *env, jclass cls, jlong embedded, jint side, jbyteArray topic, jint partition, jlong count) {
    (void)env;
    (void)cls;
    if (mm_embedded_produce_data == NULL) {
        no_mock_clusters(env);
        return;
    }
    char *c_topic = c_text(env, topic);
    if (c_topic != NULL) {
        check(env, mm_embedded_produce_data(ptr(embedded), (int)side, c_topic, (int32_t)partition, (size_t)count));
    }
    free(c_topic);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedProduceOffsetSyncs(JNIEnv *env, jclass cls, jlong embedded, jint side, jbyteArray syncs_topic, jbyteArray topic, jint partition, jlongArray upstream_offsets, jlongArray downstream_offsets) {
    (void)env;
    (void)cls;
    if (mm_embedded_produce_offset_syncs == NULL) {
        no_mock_clusters(env);
        return;
    }
    char *c_syncs_topic = c_text(env, syncs_topic);
    char *c_topic = c_syncs_topic == NULL ? NULL : c_text(env, topic);
    int64_t *c_upstream_offsets = c_topic == NULL ? NULL : c_longs(env, upstream_offsets);
    int64_t *c_downstream_offsets = c_upstream_offsets == NULL ? NULL : c_longs(env, downstream_offsets);
    if (c_downstream_offsets != NULL) {
        check(env, mm_embedded_produce_offset_syncs(ptr(embedded), (int)side, c_syncs_topic, c_topic, (int32_t)partition, c_upstream_offsets, c_downstream_offsets, (size_t)(*env)->GetArrayLength(env, upstream_offsets)));
    }
    free(c_downstream_offsets);
    free(c_upstream_offsets);
    free(c_topic);
    free(c_syncs_topic);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedCommitOffset(JNIEnv *env, jclass cls, jlong embedded, jint side, jbyteArray group, jbyteArray topic, jint partition, jlong offset, jbyteArray metadata) {
    (void)env;
    (void)cls;
    if (mm_embedded_commit_offset == NULL) {
        no_mock_clusters(env);
        return;
    }
    char *c_group = c_text(env, group);
    char *c_topic = c_group == NULL ? NULL : c_text(env, topic);
    char *c_metadata = c_topic == NULL ? NULL : c_text(env, metadata);
    if (c_metadata != NULL) {
        check(env, mm_embedded_commit_offset(ptr(embedded), (int)side, c_group, c_topic, (int32_t)partition, (int64_t)offset, c_metadata));
    }
    free(c_metadata);
    free(c_topic);
    free(c_group);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nEmbeddedReadCheckpoints(JNIEnv *env, jclass cls, jlong embedded, jbyteArray checkpoints_topic) {
    (void)env;
    (void)cls;
    if (mm_embedded_read_checkpoints == NULL) {
        no_mock_clusters(env);
        return 0;
    }
    char *c_checkpoints_topic = c_text(env, checkpoints_topic);
    jlong ret = 0;
    if (c_checkpoints_topic != NULL) {
        struct mm_batch_t *out = NULL;
        if (check(env, mm_embedded_read_checkpoints(ptr(embedded), c_checkpoints_topic, &out))) {
            ret = handle_of(out);
        }
    }
    free(c_checkpoints_topic);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTranslateOffsetsBack(JNIEnv *env, jclass cls, jlong flow_conf, jint kind, jbyteArray groups, jint timeout_ms) {
    (void)env;
    (void)cls;
    char *c_groups = c_text(env, groups);
    jlong ret = 0;
    if (c_groups != NULL) {
        struct mm_failback_offsets_t *out = NULL;
        if (check(env, mm_translate_offsets_back(ptr(flow_conf), (int)kind, c_groups, (int32_t)timeout_ms, &out))) {
            ret = handle_of(out);
        }
    }
    free(c_groups);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFailbackOffsetsLen(JNIEnv *env, jclass cls, jlong failback) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_failback_offsets_len(ptr(failback), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nFailbackOffsetsDestroy(JNIEnv *env, jclass cls, jlong failback) {
    (void)env;
    (void)cls;
    mm_failback_offsets_destroy(ptr(failback));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFailbackReport(JNIEnv *env, jclass cls, jlong flow_conf, jlong failback, jint timeout_ms) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_failover_report_t *out = NULL;
    if (check(env, mm_failback_report(ptr(flow_conf), ptr(failback), (int32_t)timeout_ms, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nCommitFailbackOffsets(JNIEnv *env, jclass cls, jlong flow_conf, jlong failback, jint timeout_ms) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_commit_report_t *out = NULL;
    if (check(env, mm_commit_failback_offsets(ptr(flow_conf), ptr(failback), (int32_t)timeout_ms, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nCommitTranslatedOffsets(JNIEnv *env, jclass cls, jlong target_conf, jlong translated, jint timeout_ms) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_commit_report_t *out = NULL;
    if (check(env, mm_commit_translated_offsets(ptr(target_conf), ptr(translated), (int32_t)timeout_ms, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nCommitReportLen(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_commit_report_len(ptr(report), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nCommitReportDestroy(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    mm_commit_report_destroy(ptr(report));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsNew(JNIEnv *env, jclass cls, jbyteArray properties) {
    (void)env;
    (void)cls;
    char *c_properties = c_text(env, properties);
    jlong ret = 0;
    if (c_properties != NULL) {
        struct mm_flows_t *out = NULL;
        if (check(env, mm_flows_new(c_properties, &out))) {
            ret = handle_of(out);
        }
    }
    free(c_properties);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsCount(JNIEnv *env, jclass cls, jlong flows) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_flows_count(ptr(flows), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsName(JNIEnv *env, jclass cls, jlong flows, jlong index) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_flows_name(ptr(flows), (size_t)index, NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_flows_name");
        if (text == NULL) {
            break;
        }
        r = mm_flows_name(ptr(flows), (size_t)index, text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsTask(JNIEnv *env, jclass cls, jlong flows, jlong index) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_task_t *out = NULL;
    if (check(env, mm_flows_task(ptr(flows), (size_t)index, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsStart(JNIEnv *env, jclass cls, jlong flows) {
    (void)env;
    (void)cls;
    check(env, mm_flows_start(ptr(flows)));
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsStop(JNIEnv *env, jclass cls, jlong flows) {
    (void)env;
    (void)cls;
    jboolean ret = JNI_FALSE;
    enum mm_result r = mm_flows_stop(ptr(flows));
    ret = r == MM_RESULT_ALREADY_STOPPED ? JNI_FALSE : (check(env, r) ? JNI_TRUE : JNI_FALSE);
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nFlowsDestroy(JNIEnv *env, jclass cls, jlong flows) {
    (void)env;
    (void)cls;
    check(env, mm_flows_destroy(ptr(flows)));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nCurrentTaskId(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    uint64_t out = 0;
    if (check(env, mm_current_task_id(&out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterNew(JNIEnv *env, jclass cls, jlong conf, jbyteArray offset_syncs_topic) {
    (void)env;
    (void)cls;
    char *c_offset_syncs_topic = c_text(env, offset_syncs_topic);
    jlong ret = 0;
    if (c_offset_syncs_topic != NULL) {
        struct mm_offset_sync_writer_t *out = NULL;
        if (check(env, mm_offset_sync_writer_new(ptr(conf), c_offset_syncs_topic, &out))) {
            ret = handle_of(out);
        }
    }
    free(c_offset_syncs_topic);
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterReport(JNIEnv *env, jclass cls, jlong writer, jbyteArray topic, jint partition, jlong upstream_offset, jlong downstream_offset) {
    (void)env;
    (void)cls;
    char *c_topic = c_text(env, topic);
    if (c_topic != NULL) {
        check(env, mm_offset_sync_writer_report(ptr(writer), c_topic, (int32_t)partition, (int64_t)upstream_offset, (int64_t)downstream_offset));
    }
    free(c_topic);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterTick(JNIEnv *env, jclass cls, jlong writer) {
    (void)env;
    (void)cls;
    check(env, mm_offset_sync_writer_tick(ptr(writer)));
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterWaitForCapacity(JNIEnv *env, jclass cls, jlong writer, jint timeout_ms) {
    (void)env;
    (void)cls;
    jboolean ret = JNI_FALSE;
    enum mm_result r = mm_offset_sync_writer_wait_for_capacity(ptr(writer), (int32_t)timeout_ms);
    ret = r == MM_RESULT_TIMED_OUT ? JNI_FALSE : (check(env, r) ? JNI_TRUE : JNI_FALSE);
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterFlush(JNIEnv *env, jclass cls, jlong writer, jint timeout_ms) {
    (void)env;
    (void)cls;
    check(env, mm_offset_sync_writer_flush(ptr(writer), (int32_t)timeout_ms));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterClose(JNIEnv *env, jclass cls, jlong writer, jint timeout_ms) {
    (void)env;
    (void)cls;
    check(env, mm_offset_sync_writer_close(ptr(writer), (int32_t)timeout_ms));
}

JNIEXPORT jlongArray JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterGetStats(JNIEnv *env, jclass cls, jlong writer) {
    (void)env;
    (void)cls;
    jlongArray ret = NULL;
    struct mm_offset_sync_writer_stats out = {.struct_size = sizeof out};
    if (check(env, mm_offset_sync_writer_get_stats(ptr(writer), &out))) {
        ret = java_longs(env, (jlong[]){MM2_FIELDS_mm_offset_sync_writer_stats(MM2_JLONG_OF_OUT)}, MM2_COUNT_mm_offset_sync_writer_stats);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nOffsetSyncWriterDestroy(JNIEnv *env, jclass cls, jlong writer) {
    (void)env;
    (void)cls;
    mm_offset_sync_writer_destroy(ptr(writer));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTranslateOffsets(JNIEnv *env, jclass cls, jlong target_conf, jbyteArray source_alias, jint kind, jbyteArray groups, jint timeout_ms) {
    (void)env;
    (void)cls;
    char *c_source_alias = c_text(env, source_alias);
    char *c_groups = c_source_alias == NULL ? NULL : c_text(env, groups);
    jlong ret = 0;
    if (c_groups != NULL) {
        struct mm_translated_offsets_t *out = NULL;
        if (check(env, mm_translate_offsets(ptr(target_conf), c_source_alias, (int)kind, c_groups, (int32_t)timeout_ms, &out))) {
            ret = handle_of(out);
        }
    }
    free(c_groups);
    free(c_source_alias);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsNew(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_translated_offsets_t *out = NULL;
    if (check(env, mm_translated_offsets_new(&out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsAdd(JNIEnv *env, jclass cls, jlong translated, jbyteArray group, jbyteArray topic, jint partition, jlong offset, jlong upstream_offset, jbyteArray metadata) {
    (void)env;
    (void)cls;
    char *c_group = c_text(env, group);
    char *c_topic = c_group == NULL ? NULL : c_text(env, topic);
    char *c_metadata = c_topic == NULL ? NULL : c_text(env, metadata);
    if (c_metadata != NULL) {
        check(env, mm_translated_offsets_add(ptr(translated), c_group, c_topic, (int32_t)partition, (int64_t)offset, (int64_t)upstream_offset, c_metadata));
    }
    free(c_metadata);
    free(c_topic);
    free(c_group);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsLen(JNIEnv *env, jclass cls, jlong translated) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_translated_offsets_len(ptr(translated), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsCheckpointsTopic(JNIEnv *env, jclass cls, jlong translated) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    const char *text = NULL;
    size_t len = 0;
    enum mm_result r = mm_translated_offsets_checkpoints_topic(ptr(translated), &text, &len);
    ret = text_of(env, r, &text, &len);
    return ret;
}

JNIEXPORT jlongArray JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsGetCounts(JNIEnv *env, jclass cls, jlong translated) {
    (void)env;
    (void)cls;
    jlongArray ret = NULL;
    struct mm_translation_counts out = {.struct_size = sizeof out};
    if (check(env, mm_translated_offsets_get_counts(ptr(translated), &out))) {
        ret = java_longs(env, (jlong[]){MM2_FIELDS_mm_translation_counts(MM2_JLONG_OF_OUT)}, MM2_COUNT_mm_translation_counts);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nTranslatedOffsetsDestroy(JNIEnv *env, jclass cls, jlong translated) {
    (void)env;
    (void)cls;
    mm_translated_offsets_destroy(ptr(translated));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFailoverReport(JNIEnv *env, jclass cls, jlong target_conf, jlong translated, jint timeout_ms) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_failover_report_t *out = NULL;
    if (check(env, mm_failover_report(ptr(target_conf), ptr(translated), (int32_t)timeout_ms, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nFailoverReportLen(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    size_t out = 0;
    if (check(env, mm_failover_report_len(ptr(report), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniCalls_nFailoverReportCaughtUp(JNIEnv *env, jclass cls, jlong report, jbyteArray group) {
    (void)env;
    (void)cls;
    char *c_group = c_text(env, group);
    jint ret = 0;
    if (c_group != NULL) {
        int out = 0;
        if (check(env, mm_failover_report_caught_up(ptr(report), c_group, &out))) {
            ret = (jint)out;
        }
    }
    free(c_group);
    return ret;
}

JNIEXPORT jlongArray JNICALL Java_io_mm2checkpoint_JniCalls_nFailoverReportGetTotals(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    jlongArray ret = NULL;
    struct mm_failover_totals out = {.struct_size = sizeof out};
    if (check(env, mm_failover_report_get_totals(ptr(report), &out))) {
        ret = java_longs(env, (jlong[]){MM2_FIELDS_mm_failover_totals(MM2_JLONG_OF_OUT)}, MM2_COUNT_mm_failover_totals);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nFailoverReportDestroy(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    mm_failover_report_destroy(ptr(report));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nTaskMetricsJson(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_task_metrics_json(ptr(task), NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_task_metrics_json");
        if (text == NULL) {
            break;
        }
        r = mm_task_metrics_json(ptr(task), text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTaskNew(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_task_t *out = NULL;
    if (check(env, mm_task_new(ptr(conf), &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nTaskStart(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    check(env, mm_task_start(ptr(task)));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTaskPoll(JNIEnv *env, jclass cls, jlong task, jint timeout_ms) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    struct mm_batch_t *out = NULL;
    if (check(env, mm_task_poll(ptr(task), (int32_t)timeout_ms, &out))) {
        ret = handle_of(out);
    }
    return ret;
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniCalls_nTaskStop(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jboolean ret = JNI_FALSE;
    enum mm_result r = mm_task_stop(ptr(task));
    ret = r == MM_RESULT_ALREADY_STOPPED ? JNI_FALSE : (check(env, r) ? JNI_TRUE : JNI_FALSE);
    return ret;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniCalls_nTaskDestroy(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    check(env, mm_task_destroy(ptr(task)));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nTaskFatalError(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_task_fatal_error(ptr(task), NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_task_fatal_error");
        if (text == NULL) {
            break;
        }
        r = mm_task_fatal_error(ptr(task), text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniCalls_nTaskRetryReason(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jbyteArray ret = NULL;
    size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */
    char *text = NULL;
    enum mm_result r = mm_task_retry_reason(ptr(task), NULL, &size);
    while (r == MM_RESULT_OK) {
        free(text);
        text = malloc_or_throw(env, size, "the text of mm_task_retry_reason");
        if (text == NULL) {
            break;
        }
        r = mm_task_retry_reason(ptr(task), text, &size);
        if (r == MM_RESULT_OK) {
            ret = java_bytes(env, text, strlen(text));
            break;
        }
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            r = MM_RESULT_OK;
        }
    }
    if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {
        check(env, r);
    }
    free(text);
    return ret;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniCalls_nTaskId(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jlong ret = 0;
    uint64_t out = 0;
    if (check(env, mm_task_id(ptr(task), &out))) {
        ret = (jlong)out;
    }
    return ret;
}

JNIEXPORT jlongArray JNICALL Java_io_mm2checkpoint_JniCalls_nTaskGetStats(JNIEnv *env, jclass cls, jlong task) {
    (void)env;
    (void)cls;
    jlongArray ret = NULL;
    struct mm_task_stats out = {.struct_size = sizeof out};
    if (check(env, mm_task_get_stats(ptr(task), &out))) {
        ret = java_longs(env, (jlong[]){MM2_FIELDS_mm_task_stats(MM2_JLONG_OF_OUT)}, MM2_COUNT_mm_task_stats);
    }
    return ret;
}
