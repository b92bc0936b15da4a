/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.
 * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by
 * mm2_checkpoint_jni.c after its helpers (check, java_bytes, ptr).
 *
 * JniBinding.nRow(kind, list, index, numbers): calls the row function of row kind `kind`
 * (NativeRows.Kind.id), writes the row's numbers to `numbers` in field order and returns its
 * texts in field order as a byte[][] (an element is NULL for text the entry does not have);
 * NULL with an exception pending on failure. */

/* The texts of a row as a new byte[][]; NULL with an exception pending on failure. */
static jobjectArray row_texts(JNIEnv *env, const char *const *texts, const uint64_t *lens, jsize n) {
    jclass bytes = (*env)->FindClass(env, "[B");
    if (bytes == NULL) {
        return NULL;
    }
    jobjectArray out = (*env)->NewObjectArray(env, n, bytes, NULL);
    for (jsize i = 0; out != NULL && i < n; i++) {
        if (texts[i] == NULL) {
            continue;
        }
        jbyteArray a = java_bytes(env, texts[i], (size_t)lens[i]);
        if (a == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, out, i, a);
        (*env)->DeleteLocalRef(env, a);
    }
    return out;
}

JNIEXPORT jobjectArray JNICALL Java_io_mm2checkpoint_JniBinding_nRow(JNIEnv *env, jclass cls, jint kind,
                                                                 jlong list, jlong index, jlongArray numbers) {
    (void)cls;
    switch (kind) {
    case 0: { /* mm_checkpoint_row, mm_batch_row */
        struct mm_checkpoint_row row = {.struct_size = sizeof row};
        if (!check(env, mm_batch_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[3] = {(jlong)row.partition, (jlong)row.upstream_offset, (jlong)row.downstream_offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 3, n);
        const char *t[3] = {row.group, row.topic, row.metadata};
        uint64_t len[3] = {row.group_len, row.topic_len, row.metadata_len};
        return row_texts(env, t, len, 3);
    }
    case 1: { /* mm_partition_status_row, mm_partition_statuses_row */
        struct mm_partition_status_row row = {.struct_size = sizeof row};
        if (!check(env, mm_partition_statuses_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[3] = {(jlong)row.partition, (jlong)row.last_upstream_offset, (jlong)row.last_downstream_offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 3, n);
        const char *t[4] = {row.group, row.topic, row.reason, row.last_metadata};
        uint64_t len[4] = {row.group_len, row.topic_len, row.reason_len, row.last_metadata_len};
        return row_texts(env, t, len, 4);
    }
    case 2: { /* mm_group_sync_result_row, mm_group_sync_results_row */
        struct mm_group_sync_result_row row = {.struct_size = sizeof row};
        if (!check(env, mm_group_sync_results_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[2] = {(jlong)row.partition, (jlong)row.written_offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 2, n);
        const char *t[4] = {row.group, row.topic, row.reason, row.error};
        uint64_t len[4] = {row.group_len, row.topic_len, row.reason_len, row.error_len};
        return row_texts(env, t, len, 4);
    }
    case 3: { /* mm_failback_row, mm_failback_offsets_row */
        struct mm_failback_row row = {.struct_size = sizeof row};
        if (!check(env, mm_failback_offsets_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[4] = {(jlong)row.partition, (jlong)row.offset, (jlong)row.rereads_at_most, (jlong)row.replica_offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 4, n);
        const char *t[5] = {row.group, row.topic, row.replica_topic, row.metadata, row.untranslated_reason};
        uint64_t len[5] = {row.group_len, row.topic_len, row.replica_topic_len, row.metadata_len, row.untranslated_reason_len};
        return row_texts(env, t, len, 5);
    }
    case 4: { /* mm_commit_row, mm_commit_report_row */
        struct mm_commit_row row = {.struct_size = sizeof row};
        if (!check(env, mm_commit_report_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[2] = {(jlong)row.partition, (jlong)row.offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 2, n);
        const char *t[4] = {row.group, row.topic, row.outcome, row.reason};
        uint64_t len[4] = {row.group_len, row.topic_len, row.outcome_len, row.reason_len};
        return row_texts(env, t, len, 4);
    }
    case 5: { /* mm_translated_offset_row, mm_translated_offsets_row */
        struct mm_translated_offset_row row = {.struct_size = sizeof row};
        if (!check(env, mm_translated_offsets_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[3] = {(jlong)row.partition, (jlong)row.offset, (jlong)row.upstream_offset};
        (*env)->SetLongArrayRegion(env, numbers, 0, 3, n);
        const char *t[3] = {row.group, row.topic, row.metadata};
        uint64_t len[3] = {row.group_len, row.topic_len, row.metadata_len};
        return row_texts(env, t, len, 3);
    }
    case 6: { /* mm_failover_row, mm_failover_report_row */
        struct mm_failover_row row = {.struct_size = sizeof row};
        if (!check(env, mm_failover_report_row(ptr(list), (size_t)index, &row))) {
            return NULL;
        }
        jlong n[5] = {(jlong)row.partition, (jlong)row.translated_offset, (jlong)row.current_offset, (jlong)row.skipped, (jlong)row.reread};
        (*env)->SetLongArrayRegion(env, numbers, 0, 5, n);
        const char *t[2] = {row.group, row.topic};
        uint64_t len[2] = {row.group_len, row.topic_len};
        return row_texts(env, t, len, 2);
    }
    default: {
        jclass e = (*env)->FindClass(env, "java/lang/IllegalArgumentException");
        if (e != NULL) {
            (*env)->ThrowNew(env, e, "unknown row kind");
        }
        return NULL;
    }
    }
}
