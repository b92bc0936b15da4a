/*
 * Shared helpers of the C tests: checks that name the failing line, embedded clusters laid out
 * like tests/checkpoint_task_embedded.rs, a configuration for them, and a thread-safe log
 * callback that counts what it receives.
 */
#ifndef MM2_FFI_TESTS_COMMON_H
#define MM2_FFI_TESTS_COMMON_H

/* pthread_getname_np, to see which thread runs the log callback. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm2_checkpoint.h"

#define SYNCS_TOPIC "mm2-offset-syncs.target.internal"
#define CHECKPOINTS_TOPIC "source.checkpoints.internal"

/* Failed checks, from any thread. */
static int checks_failed;

static inline void check_failed(void) { __atomic_add_fetch(&checks_failed, 1, __ATOMIC_SEQ_CST); }

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            char last_[512];                                                            \
            mm_last_error(last_, sizeof last_);                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,     \
                    __LINE__, #cond, last_);                                            \
            check_failed();                                                             \
        }                                                                               \
    } while (0)

/* A call that must return `expected`; prints both results' names otherwise. */
#define CHECK_RESULT(call, expected)                                                    \
    do {                                                                                \
        mm_result got_ = (call);                                                        \
        if (got_ != (expected)) {                                                       \
            char last_[512];                                                            \
            mm_last_error(last_, sizeof last_);                                         \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n",    \
                    __FILE__, __LINE__, #call, mm_result_str(got_),                     \
                    mm_result_str(expected), last_);                                    \
            check_failed();                                                             \
        }                                                                               \
    } while (0)

#define CHECK_OK(call) CHECK_RESULT(call, MM_RESULT_OK)

/* Aborts the test at once: later steps would only crash on what failed. */
#define REQUIRE(cond)                                                                   \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);  \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* An accessor that must succeed, as an expression (GNU statement expressions, which gcc and
 * clang accept in C11 mode): the text or value it wrote, or NULL / 0 after a failed check. */
#define GET_TEXT_LEN(len_out, fn, ...)                                                  \
    __extension__({                                                                     \
        const char *text_ = NULL;                                                       \
        CHECK_OK(fn(__VA_ARGS__, &text_, len_out));                                     \
        text_;                                                                          \
    })
#define GET_TEXT(fn, ...) GET_TEXT_LEN(NULL, fn, __VA_ARGS__)
#define GET_VALUE(type, fn, ...)                                                        \
    __extension__({                                                                     \
        type value_ = (type)0;                                                          \
        CHECK_OK(fn(__VA_ARGS__, &value_));                                             \
        value_;                                                                         \
    })

/* A struct the library fills, with its struct_size set. */
#define SIZED(type) ((type){.struct_size = sizeof(type)})

/* Row `index` of a list through its mm_<list>_row function, which must succeed: the row, or a
 * row without values (NULL text) after a failed check. */
#define GET_ROW(type, fn, list, index)                                                  \
    __extension__({                                                                     \
        type row_ = SIZED(type);                                                        \
        CHECK_OK(fn(list, index, &row_));                                               \
        row_;                                                                           \
    })

static inline int starts_with(const char *s, const char *prefix) {
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static inline long env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : fallback;
}

/* Source: `orders` (2 partitions) and the offset-syncs topic; target: `source.orders` and the
 * checkpoints topic, as DefaultReplicationPolicy names them for aliases source -> target. */
static inline mm_embedded_t *embedded_clusters(void) {
    mm_embedded_t *e = NULL;
    if (mm_embedded_new(&e) != MM_RESULT_OK) {
        char err[256];
        mm_last_error(err, sizeof err);
        fprintf(stderr, "mm_embedded_new: %s\n", err);
        exit(1);
    }
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_SOURCE, "orders", 2) == MM_RESULT_OK);
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_SOURCE, SYNCS_TOPIC, 1) == MM_RESULT_OK);
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_TARGET, "source.orders", 2) == MM_RESULT_OK);
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_TARGET, CHECKPOINTS_TOPIC, 1) == MM_RESULT_OK);
    return e;
}

static inline void conf_set(mm_conf_t *conf, const char *key, const char *value) {
    if (mm_conf_set(conf, key, value) != MM_RESULT_OK) {
        char err[256];
        mm_last_error(err, sizeof err);
        fprintf(stderr, "mm_conf_set(%s, %s): %s\n", key, value, err);
        exit(1);
    }
}

static inline mm_conf_t *new_conf(void) {
    mm_conf_t *conf = NULL;
    REQUIRE(mm_conf_new(&conf) == MM_RESULT_OK && conf != NULL);
    return conf;
}

static inline const char *bootstrap(const mm_embedded_t *e, int side) {
    const char *servers = NULL;
    REQUIRE(mm_embedded_bootstrap(e, side, &servers, NULL) == MM_RESULT_OK);
    return servers;
}

/* A new task, or exit with the reason. */
static inline mm_task_t *new_task_from(mm_conf_t *conf) {
    mm_task_t *task = NULL;
    if (mm_task_new(conf, &task) != MM_RESULT_OK) {
        char err[256];
        mm_last_error(err, sizeof err);
        fprintf(stderr, "mm_task_new: %s\n", err);
        exit(1);
    }
    return task;
}

/* A flow source -> target on the embedded clusters, checkpointing groups g1 and g2 every
 * second (the mock broker cannot list groups). */
static inline mm_conf_t *embedded_conf(const mm_embedded_t *e) {
    mm_conf_t *conf = new_conf();
    conf_set(conf, "source.cluster.alias", "source");
    conf_set(conf, "target.cluster.alias", "target");
    conf_set(conf, "source.cluster.bootstrap.servers", bootstrap(e, MM_SIDE_SOURCE));
    conf_set(conf, "target.cluster.bootstrap.servers", bootstrap(e, MM_SIDE_TARGET));
    conf_set(conf, "task.assigned.groups", "g1,g2");
    conf_set(conf, "emit.checkpoints.interval.seconds", "1");
    return conf;
}

/* A thread polling one task until it reports STOPPED or FAILED; failed polls are counted (and
 * printed) and polling goes on, as an application would. */
struct poller {
    mm_task_t *task;
    int32_t timeout_ms;
    long polls;
    long errors;
    mm_poll_status last;
    /* Another thread polls the same task on purpose (test_misuse): its MM_RESULT_BUSY is
     * counted in `busy`, not as an error, and the poll is retried. */
    int others_poll;
    long busy;
};

static inline void *poll_until_stopped(void *arg) {
    struct poller *p = arg;
    for (;;) {
        mm_batch_t *b = NULL;
        mm_result r = mm_task_poll(p->task, p->timeout_ms, &b);
        p->polls++;
        if (r == MM_RESULT_BUSY && p->others_poll) {
            p->busy++;
            continue;
        }
        if (r != MM_RESULT_OK) {
            char last[256];
            mm_last_error(last, sizeof last);
            fprintf(stderr, "poll: %s (%s)\n", mm_result_str(r), last);
            p->errors++;
            continue;
        }
        p->last = GET_VALUE(mm_poll_status, mm_batch_status, b);
        mm_batch_destroy(b);
        if (p->last == MM_POLL_STATUS_STOPPED || p->last == MM_POLL_STATUS_FAILED) return NULL;
    }
}

/* Counts log records by level; remembers whether one contained `wanted`, and counts calls on
 * librdkafka's internal threads (named "rdk:…"), which the library promises never happen. Counts
 * the records of the tasks whose ids (mm_task_id) are in `tasks`, by mm_current_task_id, and the
 * records on a task's threads (named "mm2 <id> <role>" or "A->B <role>") that name no task. */
struct log_counts {
    pthread_mutex_t lock;
    long by_level[6];
    const char *wanted;
    int seen_wanted;
    int bad_level;
    long on_librdkafka_threads;
    long from_librdkafka;
    uint64_t tasks[2];
    long by_task[2];
    long untagged_on_task_threads;
};

static inline void count_log(void *opaque, int level, const char *target, const char *message) {
    struct log_counts *c = opaque;
    pthread_mutex_lock(&c->lock);
    if (level < 1 || level > 5 || !target || !message) {
        c->bad_level++;
    } else {
        c->by_level[level]++;
        if (c->wanted && strstr(message, c->wanted)) c->seen_wanted = 1;
        if (strcmp(target, "librdkafka") == 0) c->from_librdkafka++;
    }
    char thread[16] = "";
    pthread_getname_np(pthread_self(), thread, sizeof thread);
    if (strncmp(thread, "rdk:", 4) == 0) c->on_librdkafka_threads++;
    uint64_t task = 0;
    if (mm_current_task_id(&task) != MM_RESULT_OK) c->bad_level++;
    for (int i = 0; i < 2; i++) {
        if (task != 0 && task == c->tasks[i]) c->by_task[i]++;
    }
    if (task == 0 && (strncmp(thread, "mm2 ", 4) == 0 || strstr(thread, "->"))) c->untagged_on_task_threads++;
    if (getenv("MM2_FFI_VERBOSE")) fprintf(stderr, "%.1f [%d] %s: %s\n", now_ms(), level, target, message);
    pthread_mutex_unlock(&c->lock);
}

#endif
