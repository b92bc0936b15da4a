/*
 * The elastic mode (task.assignment=group, docs/SCALE_OUT.md) through the C ABI on a real
 * broker: two tasks join one coordination group on the target and split the source's groups
 * between them, which `mm_task_get_stats` shows (`groups` counts the groups a task checkpoints
 * now); stopping one hands its groups to the other. At no sample does a group count for both.
 * After both are destroyed, `mm_diagnostics_get` shows no client or thread left.
 *
 *   test_elastic SOURCE_BOOTSTRAP TARGET_BOOTSTRAP GROUP_PREFIX GROUPS
 *
 * ffi-tests/run.sh first creates GROUPS groups named GROUP_PREFIX0, GROUP_PREFIX1, ... on the
 * source, each with a commit on `orders`.
 */
#include "common.h"

/* Bounds on waits that normally take a few seconds (a rebalance, a refresh, a catch-up read). */
#define ALONE_MS 20000.0
#define SPLIT_MS 20000.0
#define HANDOVER_MS 15000.0

static mm_task_t *elastic_task(const char *source, const char *target, const char *prefix) {
    char groups[256];
    snprintf(groups, sizeof groups, "%s.*", prefix);
    mm_conf_t *conf = new_conf();
    conf_set(conf, "source.cluster.alias", "source");
    conf_set(conf, "target.cluster.alias", "target");
    conf_set(conf, "source.cluster.bootstrap.servers", source);
    conf_set(conf, "target.cluster.bootstrap.servers", target);
    conf_set(conf, "groups", groups);
    conf_set(conf, "topics", "orders");
    conf_set(conf, "checkpoints.topic.replication.factor", "1");
    conf_set(conf, "emit.checkpoints.interval.seconds", "1");
    conf_set(conf, "refresh.groups.interval.seconds", "1");
    conf_set(conf, "task.assignment", "group");
    conf_set(conf, "task.coordination.partitions", "16");
    /* Rebalances reach members at their next heartbeat. */
    conf_set(conf, "consumer.session.timeout.ms", "6000");
    conf_set(conf, "consumer.heartbeat.interval.ms", "250");
    return new_task_from(conf); /* takes conf */
}

static uint64_t groups_of(const mm_task_t *task) {
    mm_task_stats stats = SIZED(mm_task_stats);
    CHECK_OK(mm_task_get_stats(task, &stats));
    return stats.groups;
}

/* A task and the thread that polls it. */
struct running {
    mm_task_t *task;
    struct poller poller;
    pthread_t thread;
};

static void run(struct running *r) {
    CHECK_OK(mm_task_start(r->task));
    r->poller = (struct poller){.task = r->task, .timeout_ms = 200};
    REQUIRE(pthread_create(&r->thread, NULL, poll_until_stopped, &r->poller) == 0);
}

static void stop(struct running *r) {
    CHECK_OK(mm_task_stop(r->task));
    pthread_join(r->thread, NULL);
    CHECK(r->poller.last == MM_POLL_STATUS_STOPPED);
    CHECK(r->poller.errors == 0);
}

/* Samples both tasks (b may be NULL) until `done` holds or `bound_ms` passes; checks at every
 * sample that no group counts for both. Returns how long it took, or -1 on timeout. */
static double await(const char *what, struct running *a, struct running *b, uint64_t total,
                    int (*done)(uint64_t, uint64_t, uint64_t), double bound_ms) {
    double began = now_ms();
    for (;;) {
        uint64_t ga = groups_of(a->task);
        uint64_t gb = b ? groups_of(b->task) : 0;
        if (ga + gb > total) {
            fprintf(stderr, "%s: %llu + %llu groups counted, of %llu: a group is on both\n", what,
                    (unsigned long long)ga, (unsigned long long)gb, (unsigned long long)total);
            check_failed();
        }
        if (done(ga, gb, total)) return now_ms() - began;
        if (now_ms() - began > bound_ms) {
            fprintf(stderr, "%s: not after %.0f ms (groups %llu and %llu of %llu)\n", what, bound_ms,
                    (unsigned long long)ga, (unsigned long long)gb, (unsigned long long)total);
            check_failed();
            return -1;
        }
        /* Sampling interval of the condition, not a synchronisation. */
        sleep_us(50 * 1000);
    }
}

static int first_has_all(uint64_t a, uint64_t b, uint64_t total) { return a == total && b == 0; }
static int split(uint64_t a, uint64_t b, uint64_t total) { return a > 0 && b > 0 && a + b == total; }

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s SOURCE_BOOTSTRAP TARGET_BOOTSTRAP GROUP_PREFIX GROUPS\n", argv[0]);
        return 2;
    }
    const char *source = argv[1], *target = argv[2], *prefix = argv[3];
    uint64_t total = (uint64_t)strtoull(argv[4], NULL, 10);
    REQUIRE(total >= 2);
    double began = now_ms();

    struct running a = {.task = elastic_task(source, target, prefix)};
    run(&a);
    double alone = await("the first task alone owns every group", &a, NULL, total, first_has_all, ALONE_MS);

    struct running b = {.task = elastic_task(source, target, prefix)};
    run(&b);
    double shared = await("the second task takes a share", &a, &b, total, split, SPLIT_MS);
    uint64_t share_a = groups_of(a.task), share_b = groups_of(b.task);

    /* Stopping leaves the group: the other takes the stopped task's groups over. */
    double stopping = now_ms();
    stop(&b);
    double stop_took = now_ms() - stopping;
    double handover = await("the first task takes the stopped one's groups", &a, NULL, total,
                            first_has_all, HANDOVER_MS);

    stop(&a);
    mm_task_destroy(b.task);
    mm_task_destroy(a.task);
    mm_diagnostics d = SIZED(mm_diagnostics);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients == 0);
    CHECK(d.live_threads == 0);
    CHECK(d.concurrent_client_access == 0);

    printf("test_elastic: %llu groups; alone after %.0f ms; split %llu/%llu after %.0f ms; stop %.0f ms, "
           "handover %.0f ms; total %.1f s\n",
           (unsigned long long)total, alone, (unsigned long long)share_a, (unsigned long long)share_b,
           shared, stop_took, handover, (now_ms() - began) / 1e3);
    if (checks_failed) {
        fprintf(stderr, "test_elastic: %d check(s) failed\n", checks_failed);
        return 1;
    }
    return 0;
}
