/*
 * The JNI half of io.mm2checkpoint.JniBinding and JniCalls: one function per native method, each
 * calling the matching mm_* function of libmm2_checkpoint and nothing else. Everything else
 * (lifetimes, records, which calls may overlap) is the shared Java code above NativeBinding.
 * Hand-written here: the helpers, the log bridge and the class's set-up; generated from the
 * header by tests/bindings/generate.rs: every function that crosses by rule
 * (mm2_checkpoint_calls.h) and the list rows (mm2_checkpoint_rows.h), both included below.
 *
 * Conventions:
 * - handles cross as jlong addresses; Java never passes 0 for a live handle;
 * - text going in is a Java byte[] holding NUL-terminated UTF-8 (NativeText.cString); text coming
 *   out is a byte[] of UTF-8, so JNI's "modified UTF-8" never touches user text;
 * - every library call returns an mm_result; one other than MM_RESULT_OK becomes an
 *   io.mm2checkpoint.Mm2Exception built by JniBinding.failure(code, message, kafkaCode) and thrown
 *   here, with mm_last_error's message and mm_last_error_kafka_code's code, read on the same thread
 *   right after the call (the library's one error channel);
 * - list rows (mm_<list>_row) cross through one native method, JniBinding.nRow: a field added to
 *   a row needs no change here;
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

/* One field of the counter struct `out` as a jlong, for the generated MM2_FIELDS_* lists: the
 * bridge copies a counter struct's fields in the order NativeStructs.java names them. (A C uint64_t
 * above INT64_MAX turns negative; Java saturates where that can happen.) */
#define MM2_JLONG_OF_OUT(field) (jlong)out.field,

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

/* Throws a new exception of `class_name` (as JNI names classes) with `message`. */
static void throw_new(JNIEnv *env, const char *class_name, const char *message) {
    jclass c = (*env)->FindClass(env, class_name);
    if (c != NULL) {
        (*env)->ThrowNew(env, c, message);
    }
}

/* malloc(size), or NULL with an OutOfMemoryError naming `what` pending. */
static char *malloc_or_throw(JNIEnv *env, size_t size, const char *what) {
    char *p = malloc(size);
    if (p == NULL) {
        throw_new(env, "java/lang/OutOfMemoryError", what);
    }
    return p;
}

/* A malloc'd NUL-terminated copy of a byte[] from NativeText.cString; NULL with an exception
 * pending on failure. The copy (rather than pinning) keeps no Java array locked while the
 * library blocks. */
static char *c_text(JNIEnv *env, jbyteArray bytes) {
    if (bytes == NULL) {
        throw_new(env, "java/lang/NullPointerException", "text argument is null");
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

/* A malloc'd copy of a long[] (never of size 0); NULL with an exception pending on failure. */
static int64_t *c_longs(JNIEnv *env, jlongArray values) {
    if (values == NULL) {
        throw_new(env, "java/lang/NullPointerException", "array argument is null");
        return NULL;
    }
    jsize n = (*env)->GetArrayLength(env, values);
    int64_t *copy = (int64_t *)(void *)malloc_or_throw(env, ((size_t)n + 1) * sizeof *copy, "copying an array");
    if (copy != NULL) {
        (*env)->GetLongArrayRegion(env, values, 0, n, (jlong *)copy);
    }
    return copy;
}

/* `n` numbers as a new Java long[]; NULL with an exception pending when that fails. */
static jlongArray java_longs(JNIEnv *env, const jlong *values, jsize n) {
    jlongArray a = (*env)->NewLongArray(env, n);
    if (a != NULL) {
        (*env)->SetLongArrayRegion(env, a, 0, n, values);
    }
    return a;
}

/* Throws for a call into a mock clusters' function the loaded library lacks. */
static void no_mock_clusters(JNIEnv *env) {
    throw_new(env, "java/lang/IllegalStateException",
              "the loaded native library has no mock clusters (the test kit's has)");
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
        throw_new(env, "java/lang/IllegalStateException", "pthread_key_create failed");
    }
}

JNIEXPORT void JNICALL Java_io_mm2checkpoint_JniBinding_nSetLogBridge(JNIEnv *env, jclass cls, jint max_level) {
    (void)cls;
    check(env, mm_set_log_callback(max_level == MM_LOG_LEVEL_OFF ? NULL : on_log, NULL, max_level));
}

/* ---- every function that crosses by rule (generated) --------------------------------------- */

#include "mm2_checkpoint_calls.h"

JNIEXPORT jboolean JNICALL Java_io_mm2checkpoint_JniBinding_nMockClustersAvailable(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return mm_embedded_new != NULL ? JNI_TRUE : JNI_FALSE;
}

/* ---- list rows (generated) ---------------------------------------------------------------- */

#include "mm2_checkpoint_rows.h"
