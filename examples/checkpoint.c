/*
 * checkpoint: run one MirrorMaker 2 checkpoint task from C.
 *
 *   checkpoint [-t SECONDS] [SOURCE_BOOTSTRAP TARGET_BOOTSTRAP [KEY=VALUE ...]]
 *
 * With two bootstrap lists, checkpoints the flow source -> target between those clusters for
 * SECONDS (default 30) or until Ctrl-C; KEY=VALUE pairs are further MM2 properties (e.g.
 * groups=orders-.* or source.cluster.alias=primary). Without them, starts two embedded mock
 * clusters, writes offset syncs and a committed group offset as a mirror would, and runs until
 * the first checkpoints are written (exit status 0 when they are also in the checkpoints topic).
 *
 * The main thread polls; a second thread waits for Ctrl-C or the deadline and calls
 * mm_task_stop, which makes the poll return at once: the library's threading contract in
 * action.
 *
 * The mock clusters are a test and demo API, absent from the library users get: the demo mode
 * exists only when this file is compiled with -DMM2_CHECKPOINT_EMBEDDED against a library built
 * with them (`cargo build -p mm2-checkpoint-capi --features embedded`). Built against the
 * default library, it needs the two bootstrap lists.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm2_checkpoint.h"

static void log_to_stderr(void *opaque, int level, const char *target, const char *message) {
    static const char *names[] = {"off", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
    (void)opaque;
    fprintf(stderr, "%-5s %s: %s\n", names[level >= 1 && level <= 5 ? level : 0], target, message);
}

/* Prints why the last call failed: every failure's text is read from mm_last_error. */
static mm_result report(const char *what, mm_result r) {
    if (r != MM_RESULT_OK) {
        char err[512];
        mm_last_error(err, sizeof err);
        fprintf(stderr, "checkpoint: %s: %s (%s)\n", what, mm_result_str(r), err);
    }
    return r;
}

static int set(mm_conf_t *conf, const char *key, const char *value) {
    return report("configuration", mm_conf_set(conf, key, value)) == MM_RESULT_OK ? 0 : -1;
}

static void print_batch(const mm_batch_t *batch) {
    size_t n = 0;
    mm_batch_len(batch, &n);
    for (size_t i = 0; i < n; i++) {
        /* One call per checkpoint; struct_size says which version of the row this program knows. */
        mm_checkpoint_row row = {.struct_size = sizeof row};
        if (mm_batch_row(batch, i, &row) != MM_RESULT_OK) continue;
        printf("checkpoint: group %.*s  %.*s-%lld  upstream %lld -> downstream %lld  metadata \"%.*s\"\n",
               (int)row.group_len, row.group, (int)row.topic_len, row.topic, (long long)row.partition,
               (long long)row.upstream_offset, (long long)row.downstream_offset, (int)row.metadata_len,
               row.metadata);
    }
    fflush(stdout);
}

#ifdef MM2_CHECKPOINT_EMBEDDED
static const char *bootstrap(const mm_embedded_t *e, int side) {
    const char *servers = "";
    mm_embedded_bootstrap(e, side, &servers, NULL);
    return servers;
}

/* Embedded mode: what a MirrorSourceTask and a consumer would have left on the source. */
static mm_embedded_t *embedded_setup(mm_conf_t *conf) {
    mm_embedded_t *e = NULL;
    if (report("embedded clusters", mm_embedded_new(&e)) != MM_RESULT_OK) return NULL;
    int64_t upstream[] = {0, 100, 200}, downstream[] = {0, 80, 160};
    if (mm_embedded_create_topic(e, MM_SIDE_SOURCE, "orders", 1) != MM_RESULT_OK ||
        mm_embedded_create_topic(e, MM_SIDE_SOURCE, "mm2-offset-syncs.target.internal", 1) != MM_RESULT_OK ||
        mm_embedded_create_topic(e, MM_SIDE_TARGET, "source.orders", 1) != MM_RESULT_OK ||
        mm_embedded_create_topic(e, MM_SIDE_TARGET, "source.checkpoints.internal", 1) != MM_RESULT_OK ||
        mm_embedded_produce_offset_syncs(e, MM_SIDE_SOURCE, "mm2-offset-syncs.target.internal", "orders", 0,
                                         upstream, downstream, 3) != MM_RESULT_OK ||
        mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "billing", "orders", 0, 200, "committed by billing") !=
            MM_RESULT_OK ||
        set(conf, "source.cluster.bootstrap.servers", bootstrap(e, MM_SIDE_SOURCE)) ||
        set(conf, "target.cluster.bootstrap.servers", bootstrap(e, MM_SIDE_TARGET)) ||
        /* The mock broker cannot list groups: name them. */
        set(conf, "task.assigned.groups", "billing")) {
        char err[512];
        mm_last_error(err, sizeof err);
        fprintf(stderr, "checkpoint: embedded setup: %s\n", err);
        mm_embedded_destroy(e);
        return NULL;
    }
    printf("checkpoint: embedded source %s, target %s\n", bootstrap(e, MM_SIDE_SOURCE),
           bootstrap(e, MM_SIDE_TARGET));
    return e;
}

/* Reads the checkpoints topic back: 0 when the task's checkpoints reached it. */
static int embedded_verify(mm_embedded_t *e, long written) {
    mm_batch_t *topic = NULL;
    size_t n = 0;
    int status = 0;
    if (written == 0 || mm_embedded_read_checkpoints(e, "source.checkpoints.internal", &topic) != MM_RESULT_OK ||
        mm_batch_len(topic, &n) != MM_RESULT_OK || n == 0) {
        fprintf(stderr, "checkpoint: no checkpoint reached the target's checkpoints topic\n");
        status = 1;
    } else {
        printf("checkpoint: source.checkpoints.internal on the target holds:\n");
        print_batch(topic);
    }
    mm_batch_destroy(topic);
    return status;
}
#else
typedef void mm_embedded_t;
static mm_embedded_t *embedded_setup(mm_conf_t *conf) {
    (void)conf;
    fprintf(stderr, "checkpoint: built without the mock clusters: give SOURCE_BOOTSTRAP and TARGET_BOOTSTRAP "
                    "(the demo needs -DMM2_CHECKPOINT_EMBEDDED and a library built with --features embedded)\n");
    return NULL;
}
static int embedded_verify(mm_embedded_t *e, long written) {
    (void)e;
    (void)written;
    return 1;
}
static void mm_embedded_destroy(mm_embedded_t *e) { (void)e; }
#endif

struct stopper {
    mm_task_t *task;
    int seconds;
    sigset_t signals;
    double stop_ms;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Waits for SIGINT/SIGTERM (or the deadline), then stops the task from this thread. */
static void *stop_on_signal(void *arg) {
    struct stopper *s = arg;
    struct timespec wait = {s->seconds, 0};
    int sig = sigtimedwait(&s->signals, NULL, &wait);
    if (sig == SIGUSR1) return NULL; /* the poller finished first */
    fprintf(stderr, "checkpoint: %s, stopping\n", sig > 0 ? strsignal(sig) : "time is up");
    double t0 = now_ms();
    mm_result r = mm_task_stop(s->task);
    s->stop_ms = now_ms() - t0;
    if (r != MM_RESULT_OK && r != MM_RESULT_ALREADY_STOPPED) fprintf(stderr, "checkpoint: stop: %s\n", mm_result_str(r));
    return NULL;
}

int main(int argc, char **argv) {
    int seconds = 30, opt;
    while ((opt = getopt(argc, argv, "t:h")) != -1) {
        if (opt == 't') seconds = atoi(optarg);
        else {
            fprintf(stderr, "usage: %s [-t SECONDS] [SOURCE_BOOTSTRAP TARGET_BOOTSTRAP [KEY=VALUE ...]]\n", argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    int embedded_mode = optind >= argc;
    if (!embedded_mode && argc - optind < 2) {
        fprintf(stderr, "checkpoint: give both SOURCE_BOOTSTRAP and TARGET_BOOTSTRAP, or neither\n");
        return 2;
    }
    printf("checkpoint: library %s (header %s)\n", mm_version(), MM2_CHECKPOINT_VERSION);
    if (mm_version_num() != MM2_CHECKPOINT_VERSION_NUM) {
        fprintf(stderr, "checkpoint: built against header %s, running with library %s\n", MM2_CHECKPOINT_VERSION,
                mm_version());
        return 1;
    }
    mm_set_log_callback(log_to_stderr, NULL, MM_LOG_LEVEL_INFO);

    mm_conf_t *conf = NULL;
    if (report("configuration", mm_conf_new(&conf)) != MM_RESULT_OK) return 1;
    if (set(conf, "source.cluster.alias", "source") || set(conf, "target.cluster.alias", "target") ||
        set(conf, "emit.checkpoints.interval.seconds", "5")) {
        mm_conf_destroy(conf);
        return 1;
    }
    mm_embedded_t *e = NULL;
    if (embedded_mode) {
        if (!(e = embedded_setup(conf))) {
            mm_conf_destroy(conf);
            return 1;
        }
    } else {
        if (set(conf, "source.cluster.bootstrap.servers", argv[optind]) ||
            set(conf, "target.cluster.bootstrap.servers", argv[optind + 1])) {
            mm_conf_destroy(conf);
            return 1;
        }
        for (int i = optind + 2; i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            if (!eq) {
                fprintf(stderr, "checkpoint: `%s` is not KEY=VALUE\n", argv[i]);
                mm_conf_destroy(conf);
                return 2;
            }
            *eq = '\0';
            if (set(conf, argv[i], eq + 1)) {
                mm_conf_destroy(conf);
                return 1;
            }
        }
    }

    mm_task_t *task = NULL;
    if (report("task", mm_task_new(conf, &task)) != MM_RESULT_OK) {
        mm_conf_destroy(conf); /* still ours when mm_task_new fails */
        mm_embedded_destroy(e);
        return 1;
    }

    /* Signals go to the stopper thread only: block them here, before any thread starts. */
    struct stopper stopper = {task, seconds, {{0}}, -1};
    sigemptyset(&stopper.signals);
    sigaddset(&stopper.signals, SIGINT);
    sigaddset(&stopper.signals, SIGTERM);
    sigaddset(&stopper.signals, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &stopper.signals, NULL);
    pthread_t stopper_thread;
    if (report("start", mm_task_start(task)) != MM_RESULT_OK ||
        pthread_create(&stopper_thread, NULL, stop_on_signal, &stopper)) {
        mm_task_destroy(task);
        mm_embedded_destroy(e);
        return 1;
    }

    long written = 0;
    for (;;) {
        mm_batch_t *batch = NULL;
        mm_result r = mm_task_poll(task, 1000, &batch);
        if (report("poll (retrying)", r) != MM_RESULT_OK) continue;
        mm_poll_status status = MM_POLL_STATUS_NONE;
        size_t n = 0;
        mm_batch_status(batch, &status);
        mm_batch_len(batch, &n);
        print_batch(batch);
        written += (long)n;
        mm_batch_destroy(batch);
        if (status == MM_POLL_STATUS_STOPPED) break;
        if (status == MM_POLL_STATUS_FAILED) {
            char err[512];
            size_t size = sizeof err;
            if (mm_task_fatal_error(task, err, &size) == MM_RESULT_OK) fprintf(stderr, "checkpoint: fatal: %s\n", err);
            break;
        }
        if (embedded_mode && written > 0) {
            pthread_kill(stopper_thread, SIGUSR1);
            break;
        }
    }
    pthread_join(stopper_thread, NULL);
    double t0 = now_ms();
    mm_result stopped = mm_task_stop(task);
    if (stopper.stop_ms < 0) stopper.stop_ms = now_ms() - t0;
    /* struct_size lets a program built against this header run with a later library. */
    mm_task_stats stats = {.struct_size = sizeof stats};
    mm_task_get_stats(task, &stats);
    printf("checkpoint: %llu checkpoints in %llu cycles, %llu offset syncs loaded; stop took %.1f ms (%s)\n",
           (unsigned long long)stats.checkpoints_emitted, (unsigned long long)stats.cycles,
           (unsigned long long)stats.syncs_loaded, stopper.stop_ms, mm_result_str(stopped));
    mm_task_destroy(task);

    int status = 0;
    if (embedded_mode) {
        status = embedded_verify(e, written);
        mm_embedded_destroy(e);
    }
    mm_set_log_callback(NULL, NULL, 0);
    return status;
}
