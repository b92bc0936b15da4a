/*
 * The JNI half of io.mm2checkpoint.JniBinding: one function per native method, each calling the
 * matching mm_* function of libmm2_checkpoint and nothing else. Everything else (lifetimes,
 * records, which calls may overlap) is the shared Java code above NativeBinding.
 *
 * Conventions:
 * - handles cross as jlong addresses; Java never passes 0 for a live handle;
 * - text going in is a Java byte[] holding NUL-terminated UTF-8 (NativeText.cString); text coming
 *   out is a byte[] of UTF-8, so JNI's "modified UTF-8" never touches user text;
 * - every library call returns an mm_result; one other than MM_RESULT_OK becomes an
 *   io.mm2checkpoint.Mm2Exception built by JniBinding.failure(code, message, kafkaCode) and thrown
 *   here, with mm_last_error's message and mm_last_error_kafka_code's code, read on the same thread
 *   right after the call (the library's one error channel);
 * - list rows (mm_<list>_row) cross through one native method, JniBinding.nRow, generated from
 *   the header into mm2_checkpoint_rows.h (included at the end) by tests/bindings/generate.rs: a
 *   field added to a row needs no change here;
 * - the log callback may run on any thread: a native thread is attached to the JVM as a daemon on
 *   its first record and detached by a pthread key destructor when it exits.
 */
#define _GNU_SOURCE
/* The Java API binds the mock clusters too (EmbeddedClusters), declared only on request. */
#define MM2_CHECKPOINT_EMBEDDED
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm2_checkpoint.h"
#include "mm2_checkpoint_structs.h"

/* One field of the counter struct `s` as a jlong, for the generated MM2_FIELDS_* lists: the bridge
 * copies a counter struct's fields in the order NativeStructs.java names them. (A C uint64_t
 * above INT64_MAX turns negative; Java saturates where that can happen.) */
#define MM2_JLONG_OF_S(field) (jlong)s.field,

/*
 * The mock clusters are in the test kit's library only (java/README.md, "What the jar holds"):
 * weak references, so that this one bridge links and loads against either library, and a
 * reference the library does not define reads as NULL (nMockClustersAvailable).
 */
#pragma weak mm_embedded_new
#pragma weak mm_embedded_destroy
#pragma weak mm_embedded_bootstrap
#pragma weak mm_embedded_create_topic
#pragma weak mm_embedded_produce_data
#pragma weak mm_embedded_produce_offset_syncs
#pragma weak mm_embedded_commit_offset
#pragma weak mm_embedded_read_checkpoints

/* Big enough for every message the library writes; longer ones are cut at a UTF-8 boundary. */
#define ERRSTR_SIZE 1024

/* Set once by init() before any other call (NativeLibrary loads the binding under a lock). */
static JavaVM *g_vm;
static jclass g_binding;            /* global ref to io.mm2checkpoint.JniBinding */
static jmethodID g_failure;         /* static Mm2Exception failure(int, byte[], int) */
static jmethodID g_on_log;          /* static void onLog(int, byte[], byte[], long) */
static pthread_key_t g_detach_key;  /* non-NULL on threads this bridge attached */

static void *ptr(jlong handle) { return (void *)(intptr_t)handle; }
static jlong handle_of(const void *p) { return (jlong)(intptr_t)p; }

/* UTF-8 bytes as a new Java byte[]; NULL with an exception pending when that fails. */
static jbyteArray java_bytes(JNIEnv *env, const char *s, size_t len) {
    if (len > (size_t)INT32_MAX) {
        len = (size_t)INT32_MAX;
    }
    jbyteArray a = (*env)->NewByteArray(env, (jsize)len);
    if (a != NULL) {
        (*env)->SetByteArrayRegion(env, a, 0, (jsize)len, (const jbyte *)s);
    }
    return a;
}

/* malloc(size), or NULL with an OutOfMemoryError naming `what` pending. */
static char *malloc_or_throw(JNIEnv *env, size_t size, const char *what) {
    char *p = malloc(size);
    if (p == NULL) {
        jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
        if (oom != NULL) {
            (*env)->ThrowNew(env, oom, what);
        }
    }
    return p;
}

/* A malloc'd NUL-terminated copy of a byte[] from NativeText.cString; NULL with an exception
 * pending on failure. The copy (rather than pinning) keeps no Java array locked while the
 * library blocks. */
static char *c_text(JNIEnv *env, jbyteArray bytes) {
    if (bytes == NULL) {
        jclass npe = (*env)->FindClass(env, "java/lang/NullPointerException");
        if (npe != NULL) {
            (*env)->ThrowNew(env, npe, "text argument is null");
        }
        return NULL;
    }
    jsize n = (*env)->GetArrayLength(env, bytes);
    char *s = malloc_or_throw(env, (size_t)n + 1, "copying text for the native library");
    if (s == NULL) {
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *)s);
    s[n] = '\0';
    return s;
}

/* Throws the Mm2Exception JniBinding.failure builds for `code`, `message` and `kafka_code`. */
static void throw_with(JNIEnv *env, jint code, const char *message, jint kafka_code) {
    if ((*env)->ExceptionCheck(env)) {
        return;
    }
    jbyteArray m = java_bytes(env, message, strlen(message));
    if (m == NULL) {
        return;
    }
    jobject e = (*env)->CallStaticObjectMethod(env, g_binding, g_failure, code, m, kafka_code);
    if (e != NULL && !(*env)->ExceptionCheck(env)) {
        (*env)->Throw(env, (jthrowable)e);
    }
}

/* Throws for a failed call, with this thread's mm_last_error message. */
static void throw_last_error(JNIEnv *env, jint code) {
    char message[ERRSTR_SIZE];
    mm_last_error(message, sizeof message);
    throw_with(env, code, message, (jint)mm_last_error_kafka_code());
}

/* Throws unless `r` is MM_RESULT_OK; returns whether it was. */
static int check(JNIEnv *env, enum mm_result r) {
    if (r == MM_RESULT_OK) {
        return 1;
    }
    throw_last_error(env, (jint)r);
    return 0;
}

/* Text an accessor lent: a new byte[], or NULL with the exception for `r` pending. The outputs
 * are passed by address and read here, after the call (C leaves argument order unspecified). */
static jbyteArray text_of(JNIEnv *env, enum mm_result r, const char *const *s, const size_t *len) {
    return check(env, r) ? java_bytes(env, *s, *len) : NULL;
}

/* ---- log callback ------------------------------------------------------------------------- */

static void detach_thread(void *vm) {
    (*(JavaVM *)vm)->DetachCurrentThread((JavaVM *)vm);
}

/* Runs on whichever thread logs. Attaches the task's native threads on their first record
 * (as daemons, so they never hold up JVM exit), named as the native thread is. Nothing thrown in
 * Java may stay pending: this thread may not be inside any Java call to receive it. */
static void on_log(void *opaque, int level, const char *target, const char *message) {
    (void)opaque;
    JNIEnv *env = NULL;
    jint got = (*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_8);
    if (got == JNI_EDETACHED) {
        char name[32] = "mm2-checkpoint-native";
        (void)pthread_getname_np(pthread_self(), name, sizeof name);
        JavaVMAttachArgs args = {JNI_VERSION_1_8, name, NULL};
        if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&env, &args) != JNI_OK) {
            return;
        }
        pthread_setspecific(g_detach_key, g_vm);
    } else if (got != JNI_OK) {
        return;
    }
    if ((*env)->ExceptionCheck(env)) {
        return; /* a Java thread inside a bridge call that already failed: no Java call allowed */
    }
    if ((*env)->PushLocalFrame(env, 4) != 0) {
        (*env)->ExceptionClear(env);
        return;
    }
    uint64_t task = 0;
    (void)mm_current_task_id(&task);
    jbyteArray t = java_bytes(env, target, strlen(target));
    jbyteArray m = t == NULL ? NULL : java_bytes(env, message, strlen(message));
    if (m != NULL) {
        (*env)->CallStaticVoidMethod(env, g_binding, g_on_log, (jint)level, t, m, (jlong)task);
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
    }
    (*env)->PopLocalFrame(env, NULL);
}

/* ---- JniBinding's native methods ---------------------------------------------------------- */

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_init(JNIEnv *env, jclass cls) {
    if ((*env)->GetJavaVM(env, &g_vm) != JNI_OK) {
        return;
    }
    g_binding = (jclass)(*env)->NewGlobalRef(env, cls);
    if (g_binding == NULL) {
        return;
    }
    g_failure = (*env)->GetStaticMethodID(env, cls, "failure", "(I[BI)Lio/mm2checkpoint/Mm2Exception;");
    if (g_failure == NULL) {
        return;
    }
    g_on_log = (*env)->GetStaticMethodID(env, cls, "onLog", "(I[B[BJ)V");
    if (g_on_log == NULL) {
        return;
    }
    if (pthread_key_create(&g_detach_key, detach_thread) != 0) {
        jclass err = (*env)->FindClass(env, "java/lang/IllegalStateException");
        if (err != NULL) {
            (*env)->ThrowNew(env, err, "pthread_key_create failed");
        }
    }
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nVersion(JNIEnv *env, jclass cls) {
    (void)cls;
    const char *v = mm_version();
    return java_bytes(env, v, strlen(v));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nResultStr(JNIEnv *env, jclass cls, jint code) {
    (void)cls;
    const char *s = mm_result_str(code);
    return java_bytes(env, s, strlen(s));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nDiagnostics(JNIEnv *env, jclass cls, jlongArray out) {
    (void)cls;
    struct mm_diagnostics s = {.struct_size = sizeof s};
    if (!check(env, mm_diagnostics_get(&s))) {
        return;
    }
    jlong values[MM2_COUNT_mm_diagnostics] = {MM2_FIELDS_mm_diagnostics(MM2_JLONG_OF_S)};
    (*env)->SetLongArrayRegion(env, out, 0, MM2_COUNT_mm_diagnostics, values);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nSetLogBridge(JNIEnv *env, jclass cls, jint max_level) {
    (void)cls;
    check(env, mm_set_log_callback(max_level == MM_LOG_LEVEL_OFF ? NULL : on_log, NULL, max_level));
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniBinding_nVersionNum(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return (jint)mm_version_num();
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nConfNew(JNIEnv *env, jclass cls) {
    (void)cls;
    mm_conf_t *conf = NULL;
    check(env, mm_conf_new(&conf));
    return handle_of(conf);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nConfSet(JNIEnv *env, jclass cls, jlong conf,
                                                                jbyteArray key, jbyteArray value) {
    (void)cls;
    char *k = c_text(env, key);
    char *v = k == NULL ? NULL : c_text(env, value);
    if (v != NULL) {
        check(env, mm_conf_set(ptr(conf), k, v));
    }
    free(v);
    free(k);
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nConfDescribe(JNIEnv *env, jclass cls,
                                                                           jlong conf) {
    (void)cls;
    size_t size = 0; /* first the size (a NULL buffer), then the text */
    if (!check(env, mm_conf_describe(ptr(conf), NULL, &size))) {
        return NULL;
    }
    char *text = malloc_or_throw(env, size, "the configuration's description");
    if (text == NULL) {
        return NULL;
    }
    jbyteArray a = check(env, mm_conf_describe(ptr(conf), text, &size)) ? java_bytes(env, text, strlen(text)) : NULL;
    free(text);
    return a;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nConfDestroy(JNIEnv *env, jclass cls, jlong conf) {
    (void)env;
    (void)cls;
    mm_conf_destroy(ptr(conf));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTaskNew(JNIEnv *env, jclass cls, jlong conf) {
    (void)cls;
    mm_task_t *task = NULL;
    check(env, mm_task_new(ptr(conf), &task));
    return handle_of(task);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTaskStart(JNIEnv *env, jclass cls, jlong task) {
    (void)cls;
    check(env, mm_task_start(ptr(task)));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTaskPoll(JNIEnv *env, jclass cls, jlong task,
                                                                  jint timeout_ms) {
    (void)cls;
    mm_batch_t *batch = NULL;
    if (!check(env, mm_task_poll(ptr(task), timeout_ms, &batch))) {
        return 0;
    }
    return handle_of(batch);
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniBinding_nTaskStop(JNIEnv *env, jclass cls, jlong task) {
    (void)cls;
    enum mm_result r = mm_task_stop(ptr(task));
    if (r == MM_RESULT_ALREADY_STOPPED) {
        return JNI_FALSE;
    }
    return check(env, r) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTaskDestroy(JNIEnv *env, jclass cls, jlong task) {
    (void)cls;
    check(env, mm_task_destroy(ptr(task)));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTaskId(JNIEnv *env, jclass cls, jlong task) {
    (void)cls;
    uint64_t id = 0;
    if (!check(env, mm_task_id(ptr(task), &id))) {
        return 0;
    }
    return (jlong)id;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nTaskFatalError(JNIEnv *env, jclass cls,
                                                                             jlong task) {
    (void)cls;
    char message[ERRSTR_SIZE] = "";
    size_t size = sizeof message;
    enum mm_result r = mm_task_fatal_error(ptr(task), message, &size);
    if (r == MM_RESULT_NOT_FOUND) {
        return NULL;
    }
    if (r == MM_RESULT_BUFFER_TOO_SMALL) { /* a longer message: ask again with its size */
        char *big = malloc(size);
        if (big == NULL) {
            return NULL;
        }
        r = mm_task_fatal_error(ptr(task), big, &size);
        jbyteArray a = check(env, r) ? java_bytes(env, big, strlen(big)) : NULL; /* after the call */
        free(big);
        return a;
    }
    const char *text = message;
    size_t len = strlen(message);
    return text_of(env, r, &text, &len);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsNew(JNIEnv *env, jclass cls,
                                                                  jbyteArray properties) {
    (void)cls;
    char *text = c_text(env, properties);
    if (text == NULL) {
        return 0;
    }
    mm_flows_t *flows = NULL;
    check(env, mm_flows_new(text, &flows));
    free(text);
    return handle_of(flows);
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsCount(JNIEnv *env, jclass cls, jlong flows) {
    (void)cls;
    size_t n = 0;
    check(env, mm_flows_count(ptr(flows), &n));
    return n > (size_t)INT32_MAX ? INT32_MAX : (jint)n;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsName(JNIEnv *env, jclass cls, jlong flows,
                                                                        jint index) {
    (void)cls;
    if (index < 0) {
        throw_with(env, MM_RESULT_INVALID_ARGUMENT, "flow index is negative", 0);
        return NULL;
    }
    size_t size = 0; /* first the size (a NULL buffer), then the name */
    if (!check(env, mm_flows_name(ptr(flows), (size_t)index, NULL, &size))) {
        return NULL;
    }
    char *name = malloc_or_throw(env, size, "a flow's name");
    if (name == NULL) {
        return NULL;
    }
    jbyteArray a = check(env, mm_flows_name(ptr(flows), (size_t)index, name, &size)) ? java_bytes(env, name, strlen(name)) : NULL;
    free(name);
    return a;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsTask(JNIEnv *env, jclass cls, jlong flows,
                                                                   jint index) {
    (void)cls;
    if (index < 0) {
        throw_with(env, MM_RESULT_INVALID_ARGUMENT, "flow index is negative", 0);
        return 0;
    }
    mm_task_t *task = NULL;
    check(env, mm_flows_task(ptr(flows), (size_t)index, &task));
    return handle_of(task);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsStart(JNIEnv *env, jclass cls, jlong flows) {
    (void)cls;
    check(env, mm_flows_start(ptr(flows)));
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsStop(JNIEnv *env, jclass cls, jlong flows) {
    (void)cls;
    enum mm_result r = mm_flows_stop(ptr(flows));
    if (r == MM_RESULT_ALREADY_STOPPED) {
        return JNI_FALSE;
    }
    return check(env, r) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nFlowsDestroy(JNIEnv *env, jclass cls, jlong flows) {
    (void)cls;
    check(env, mm_flows_destroy(ptr(flows)));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTaskStats(JNIEnv *env, jclass cls, jlong task,
                                                                  jlongArray out) {
    (void)cls;
    struct mm_task_stats s = {.struct_size = sizeof s};
    if (!check(env, mm_task_get_stats(ptr(task), &s))) {
        return;
    }
    jlong values[MM2_COUNT_mm_task_stats] = {MM2_FIELDS_mm_task_stats(MM2_JLONG_OF_S)};
    (*env)->SetLongArrayRegion(env, out, 0, MM2_COUNT_mm_task_stats, values);
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nTaskMetricsJson(JNIEnv *env, jclass cls,
                                                                              jlong task) {
    (void)cls;
    size_t size = 0; /* first the size (a NULL buffer), then the document */
    if (!check(env, mm_task_metrics_json(ptr(task), NULL, &size))) {
        return NULL;
    }
    /* The document may grow between the two calls (a group appears): ask again with its new size. */
    for (;;) {
        char *text = malloc_or_throw(env, size, "the task's metrics document");
        if (text == NULL) {
            return NULL;
        }
        enum mm_result r = mm_task_metrics_json(ptr(task), text, &size);
        if (r == MM_RESULT_BUFFER_TOO_SMALL) {
            free(text);
            continue;
        }
        jbyteArray a = check(env, r) ? java_bytes(env, text, strlen(text)) : NULL;
        free(text);
        return a;
    }
}

JNIEXPORT jint JNICALL Java_io_mm2checkpoint_JniBinding_nBatchStatus(JNIEnv *env, jclass cls, jlong batch) {
    (void)cls;
    enum mm_poll_status status = MM_POLL_STATUS_NONE;
    check(env, mm_batch_status(ptr(batch), &status));
    return (jint)status;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nBatchLen(JNIEnv *env, jclass cls, jlong batch) {
    (void)cls;
    size_t n = 0;
    check(env, mm_batch_len(ptr(batch), &n));
    return (jlong)n;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nBatchDestroy(JNIEnv *env, jclass cls, jlong batch) {
    (void)env;
    (void)cls;
    mm_batch_destroy(ptr(batch));
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniBinding_nMockClustersAvailable(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return mm_embedded_new != NULL ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedNew(JNIEnv *env, jclass cls) {
    (void)cls;
    if (mm_embedded_new == NULL) {
        jclass err = (*env)->FindClass(env, "java/lang/IllegalStateException");
        if (err != NULL) {
            (*env)->ThrowNew(env, err, "the loaded native library has no mock clusters (the test kit's has)");
        }
        return 0;
    }
    mm_embedded_t *e = NULL;
    check(env, mm_embedded_new(&e));
    return handle_of(e);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedDestroy(JNIEnv *env, jclass cls,
                                                                        jlong embedded) {
    (void)env;
    (void)cls;
    mm_embedded_destroy(ptr(embedded));
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedBootstrap(JNIEnv *env, jclass cls,
                                                                                jlong embedded, jint side) {
    (void)cls;
    const char *s = NULL;
    size_t len = 0;
    return text_of(env, mm_embedded_bootstrap(ptr(embedded), side, &s, &len), &s, &len);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedCreateTopic(JNIEnv *env, jclass cls,
                                                                            jlong embedded, jint side,
                                                                            jbyteArray topic, jint partitions) {
    (void)cls;
    char *t = c_text(env, topic);
    if (t != NULL) {
        check(env, mm_embedded_create_topic(ptr(embedded), side, t, partitions));
    }
    free(t);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedProduceData(JNIEnv *env, jclass cls,
                                                                            jlong embedded, jint side,
                                                                            jbyteArray topic, jint partition,
                                                                            jlong count) {
    (void)cls;
    char *t = c_text(env, topic);
    if (t != NULL) {
        check(env, mm_embedded_produce_data(ptr(embedded), side, t, partition, (size_t)count));
    }
    free(t);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedProduceOffsetSyncs(
    JNIEnv *env, jclass cls, jlong embedded, jint side, jbyteArray syncs_topic, jbyteArray topic, jint partition,
    jlongArray upstream, jlongArray downstream) {
    (void)cls;
    char *st = c_text(env, syncs_topic);
    char *t = st == NULL ? NULL : c_text(env, topic);
    if (t != NULL) {
        jsize n = (*env)->GetArrayLength(env, upstream);
        jlong *up = (*env)->GetLongArrayElements(env, upstream, NULL);
        jlong *down = up == NULL ? NULL : (*env)->GetLongArrayElements(env, downstream, NULL);
        if (down != NULL) {
            check(env, mm_embedded_produce_offset_syncs(ptr(embedded), side, st, t, partition,
                                                        (const int64_t *)up, (const int64_t *)down, (size_t)n));
            (*env)->ReleaseLongArrayElements(env, downstream, down, JNI_ABORT);
        }
        if (up != NULL) {
            (*env)->ReleaseLongArrayElements(env, upstream, up, JNI_ABORT);
        }
    }
    free(t);
    free(st);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedCommitOffset(JNIEnv *env, jclass cls,
                                                                             jlong embedded, jint side,
                                                                             jbyteArray group, jbyteArray topic,
                                                                             jint partition, jlong offset,
                                                                             jbyteArray metadata) {
    (void)cls;
    char *g = c_text(env, group);
    char *t = g == NULL ? NULL : c_text(env, topic);
    char *m = t == NULL ? NULL : c_text(env, metadata);
    if (m != NULL) {
        check(env, mm_embedded_commit_offset(ptr(embedded), side, g, t, partition, offset, m));
    }
    free(m);
    free(t);
    free(g);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nEmbeddedReadCheckpoints(JNIEnv *env, jclass cls,
                                                                                 jlong embedded,
                                                                                 jbyteArray checkpoints_topic) {
    (void)cls;
    char *t = c_text(env, checkpoints_topic);
    mm_batch_t *batch = NULL;
    if (t != NULL) {
        check(env, mm_embedded_read_checkpoints(ptr(embedded), t, &batch));
    }
    free(t);
    return handle_of(batch);
}

/* ---- failover translation ----------------------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTranslateOffsets(JNIEnv *env, jclass cls,
                                                                          jlong target_conf,
                                                                          jbyteArray source_alias, jint kind,
                                                                          jbyteArray groups, jint timeout_ms) {
    (void)cls;
    char *alias = c_text(env, source_alias);
    char *g = alias == NULL ? NULL : c_text(env, groups);
    mm_translated_offsets_t *t = NULL;
    if (g != NULL) {
        check(env, mm_translate_offsets(ptr(target_conf), alias, kind, g, timeout_ms, &t));
    }
    free(g);
    free(alias);
    return handle_of(t);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedNew(JNIEnv *env, jclass cls) {
    (void)cls;
    mm_translated_offsets_t *t = NULL;
    check(env, mm_translated_offsets_new(&t));
    return handle_of(t);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedAdd(JNIEnv *env, jclass cls, jlong translated,
                                                                      jbyteArray group, jbyteArray topic,
                                                                      jint partition, jlong offset,
                                                                      jlong upstream_offset, jbyteArray metadata) {
    (void)cls;
    char *g = c_text(env, group);
    char *t = g == NULL ? NULL : c_text(env, topic);
    char *m = t == NULL ? NULL : c_text(env, metadata);
    if (m != NULL) {
        check(env, mm_translated_offsets_add(ptr(translated), g, t, partition, offset, upstream_offset, m));
    }
    free(m);
    free(t);
    free(g);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedLen(JNIEnv *env, jclass cls,
                                                                       jlong translated) {
    (void)cls;
    size_t n = 0;
    check(env, mm_translated_offsets_len(ptr(translated), &n));
    return (jlong)n;
}

JNIEXPORT jbyteArray JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedCheckpointsTopic(JNIEnv *env, jclass cls,
                                                                                          jlong translated) {
    (void)cls;
    size_t len = 0;
    const char *s = NULL;
    enum mm_result r = mm_translated_offsets_checkpoints_topic(ptr(translated), &s, &len);
    return text_of(env, r, &s, &len);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedCounts(JNIEnv *env, jclass cls,
                                                                         jlong translated, jlongArray out) {
    (void)cls;
    mm_translation_counts s = {.struct_size = sizeof s};
    if (!check(env, mm_translated_offsets_get_counts(ptr(translated), &s))) {
        return;
    }
    jlong values[MM2_COUNT_mm_translation_counts] = {MM2_FIELDS_mm_translation_counts(MM2_JLONG_OF_S)};
    (*env)->SetLongArrayRegion(env, out, 0, MM2_COUNT_mm_translation_counts, values);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nTranslatedDestroy(JNIEnv *env, jclass cls,
                                                                          jlong translated) {
    (void)env;
    (void)cls;
    mm_translated_offsets_destroy(ptr(translated));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nFailoverReport(JNIEnv *env, jclass cls,
                                                                        jlong target_conf, jlong translated,
                                                                        jint timeout_ms) {
    (void)cls;
    mm_failover_report_t *report = NULL;
    check(env, mm_failover_report(ptr(target_conf), ptr(translated), timeout_ms, &report));
    return handle_of(report);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nReportLen(JNIEnv *env, jclass cls, jlong report) {
    (void)cls;
    size_t n = 0;
    check(env, mm_failover_report_len(ptr(report), &n));
    return (jlong)n;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nReportTotals(JNIEnv *env, jclass cls, jlong report,
                                                                     jlongArray out) {
    (void)cls;
    mm_failover_totals s = {.struct_size = sizeof s};
    if (!check(env, mm_failover_report_get_totals(ptr(report), &s))) {
        return;
    }
    jlong values[MM2_COUNT_mm_failover_totals] = {MM2_FIELDS_mm_failover_totals(MM2_JLONG_OF_S)};
    (*env)->SetLongArrayRegion(env, out, 0, MM2_COUNT_mm_failover_totals, values);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nReportDestroy(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    mm_failover_report_destroy(ptr(report));
}

/* ---- failback and commits ---------------------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nTranslateOffsetsBack(JNIEnv *env, jclass cls,
                                                                              jlong flow_conf, jint kind,
                                                                              jbyteArray groups, jint timeout_ms) {
    (void)cls;
    char *g = c_text(env, groups);
    mm_failback_offsets_t *back = NULL;
    if (g != NULL) {
        check(env, mm_translate_offsets_back(ptr(flow_conf), kind, g, timeout_ms, &back));
    }
    free(g);
    return handle_of(back);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nFailbackLen(JNIEnv *env, jclass cls, jlong failback) {
    (void)cls;
    size_t n = 0;
    check(env, mm_failback_offsets_len(ptr(failback), &n));
    return (jlong)n;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nFailbackDestroy(JNIEnv *env, jclass cls, jlong failback) {
    (void)env;
    (void)cls;
    mm_failback_offsets_destroy(ptr(failback));
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nCommitTranslatedOffsets(JNIEnv *env, jclass cls,
                                                                                 jlong conf, jlong translated,
                                                                                 jint timeout_ms) {
    (void)cls;
    mm_commit_report_t *report = NULL;
    check(env, mm_commit_translated_offsets(ptr(conf), ptr(translated), timeout_ms, &report));
    return handle_of(report);
}

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nCommitLen(JNIEnv *env, jclass cls, jlong report) {
    (void)cls;
    size_t n = 0;
    check(env, mm_commit_report_len(ptr(report), &n));
    return (jlong)n;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nCommitDestroy(JNIEnv *env, jclass cls, jlong report) {
    (void)env;
    (void)cls;
    mm_commit_report_destroy(ptr(report));
}

/* ---- offset-sync writer ------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_io_mm2checkpoint_JniBinding_nWriterNew(JNIEnv *env, jclass cls, jlong conf,
                                                                   jbyteArray offset_syncs_topic) {
    (void)cls;
    char *t = c_text(env, offset_syncs_topic);
    mm_offset_sync_writer_t *w = NULL;
    if (t != NULL) {
        check(env, mm_offset_sync_writer_new(ptr(conf), t, &w));
    }
    free(t);
    return handle_of(w);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterReport(JNIEnv *env, jclass cls, jlong writer,
                                                                     jbyteArray topic, jint partition,
                                                                     jlong upstream_offset, jlong downstream_offset) {
    (void)cls;
    char *t = c_text(env, topic);
    if (t != NULL) {
        check(env, mm_offset_sync_writer_report(ptr(writer), t, partition, upstream_offset, downstream_offset));
    }
    free(t);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterTick(JNIEnv *env, jclass cls, jlong writer) {
    (void)cls;
    check(env, mm_offset_sync_writer_tick(ptr(writer)));
}

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniBinding_nWriterWaitForCapacity(JNIEnv *env, jclass cls,
                                                                                  jlong writer, jint timeout_ms) {
    (void)cls;
    enum mm_result r = mm_offset_sync_writer_wait_for_capacity(ptr(writer), timeout_ms);
    if (r == MM_RESULT_TIMED_OUT) {
        return JNI_FALSE;
    }
    return check(env, r) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterFlush(JNIEnv *env, jclass cls, jlong writer,
                                                                    jint timeout_ms) {
    (void)cls;
    check(env, mm_offset_sync_writer_flush(ptr(writer), timeout_ms));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterClose(JNIEnv *env, jclass cls, jlong writer,
                                                                    jint timeout_ms) {
    (void)cls;
    check(env, mm_offset_sync_writer_close(ptr(writer), timeout_ms));
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterStats(JNIEnv *env, jclass cls, jlong writer,
                                                                    jlongArray out) {
    (void)cls;
    mm_offset_sync_writer_stats s = {.struct_size = sizeof s};
    if (!check(env, mm_offset_sync_writer_get_stats(ptr(writer), &s))) {
        return;
    }
    jlong values[MM2_COUNT_mm_offset_sync_writer_stats] = {
        MM2_FIELDS_mm_offset_sync_writer_stats(MM2_JLONG_OF_S)};
    (*env)->SetLongArrayRegion(env, out, 0, MM2_COUNT_mm_offset_sync_writer_stats, values);
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nWriterDestroy(JNIEnv *env, jclass cls, jlong writer) {
    (void)env;
    (void)cls;
    mm_offset_sync_writer_destroy(ptr(writer));
}

/* ---- list rows (generated) ---------------------------------------------------------------- */

#include "mm2_checkpoint_rows.h"
