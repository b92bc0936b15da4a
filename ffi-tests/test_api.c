/*
 * Every exported function, used as documented, end to end on the embedded mock clusters:
 * the checkpoints a poll returns are the ones MM2 would write, and they are in the target's
 * checkpoints topic. run.sh checks that this file calls every function the header declares.
 */
#include "common.h"

static struct log_counts logs = {PTHREAD_MUTEX_INITIALIZER, {0}, "checkpoint task ready", 0, 0, 0, 0};

static void version_and_results(void) {
    CHECK(strcmp(mm_version(), MM2_CHECKPOINT_VERSION) == 0);
    CHECK(starts_with(mm_result_str(MM_RESULT_OK), "MM_RESULT_OK:"));
    CHECK(starts_with(mm_result_str(MM_RESULT_BUFFER_TOO_SMALL), "MM_RESULT_BUFFER_TOO_SMALL:"));
    CHECK(strcmp(mm_result_str(-1), "MM_RESULT_UNKNOWN") == 0);
    char last[64];
    mm_last_error(last, sizeof last); /* whatever it holds, it is terminated */
    CHECK(strlen(last) < sizeof last);
}

static void conf_round_trip(void) {
    mm_conf_t *conf = mm_conf_new();
    REQUIRE(conf != NULL);
    char err[128] = "";
    CHECK_OK(mm_conf_set(conf, "topics", "orders", err, sizeof err));
    CHECK_OK(mm_conf_load_properties(conf, "# an mm2.properties excerpt\ngroups = g.*\nsource.cluster.alias = A\n",
                                     err, sizeof err));
    size_t count = 0;
    CHECK_OK(mm_conf_count(conf, &count));
    CHECK(count == 3);

    size_t size = 0;
    CHECK_OK(mm_conf_get(conf, "groups", NULL, &size));
    CHECK(size == 4);
    char value[8];
    size = sizeof value;
    CHECK_OK(mm_conf_get(conf, "groups", value, &size));
    CHECK(strcmp(value, "g.*") == 0);

    mm_conf_t *copy = mm_conf_dup(conf);
    REQUIRE(copy != NULL);
    CHECK_OK(mm_conf_unset(conf, "groups"));
    size = sizeof value;
    CHECK_RESULT(mm_conf_get(conf, "groups", value, &size), MM_RESULT_NOT_FOUND);
    size = sizeof value;
    CHECK_OK(mm_conf_get(copy, "groups", value, &size));
    mm_conf_destroy(copy);
    mm_conf_destroy(conf);
}

static void seed(mm_embedded_t *e) {
    int64_t up0[] = {0, 100}, down0[] = {0, 90};
    int64_t up1[] = {50}, down1[] = {40};
    CHECK_OK(mm_embedded_produce_offset_syncs(e, MM_SIDE_SOURCE, SYNCS_TOPIC, "orders", 0, up0, down0, 2));
    CHECK_OK(mm_embedded_produce_offset_syncs(e, MM_SIDE_SOURCE, SYNCS_TOPIC, "orders", 1, up1, down1, 1));
    CHECK_OK(mm_embedded_produce_data(e, MM_SIDE_SOURCE, "orders", 0, 10));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g1", "orders", 0, 150, "m1"));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g1", "orders", 1, 50, ""));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g2", "orders", 0, 100, ""));
}

struct expected {
    const char *group;
    int32_t partition;
    int64_t upstream, downstream;
    const char *metadata;
};

/* MM2's translation: g1@150 on orders-0 is past the sync 100->90, so 91; the others hit a
 * sync exactly. */
static const struct expected EXPECTED[] = {
    {"g1", 0, 150, 91, "m1"},
    {"g1", 1, 50, 40, ""},
    {"g2", 0, 100, 90, ""},
};

/* Finds every expected checkpoint exactly once in the batch. */
static void check_batch(const mm_batch_t *b, const char *what) {
    size_t n = mm_batch_len(b);
    CHECK(n == 3);
    for (size_t want = 0; want < 3; want++) {
        const struct expected *x = &EXPECTED[want];
        int found = 0;
        for (size_t i = 0; i < n; i++) {
            size_t group_len = 0, topic_len = 0, meta_len = 0;
            const char *group = mm_batch_group(b, i, &group_len);
            const char *topic = mm_batch_topic(b, i, &topic_len);
            const char *meta = mm_batch_metadata(b, i, &meta_len);
            REQUIRE(group && topic && meta);
            CHECK(group_len == strlen(group) && topic_len == strlen(topic) && meta_len == strlen(meta));
            if (strcmp(group, x->group) == 0 && strcmp(topic, "source.orders") == 0 &&
                mm_batch_partition(b, i) == x->partition) {
                found++;
                CHECK(mm_batch_upstream_offset(b, i) == x->upstream);
                CHECK(mm_batch_downstream_offset(b, i) == x->downstream);
                CHECK(strcmp(meta, x->metadata) == 0);
            }
        }
        if (found != 1) {
            fprintf(stderr, "%s: checkpoint %s source.orders-%d found %d times\n", what, x->group,
                    x->partition, found);
            checks_failed++;
        }
    }
    /* Past the end: the documented fallbacks. */
    CHECK(mm_batch_group(b, n, NULL) == NULL);
    CHECK(mm_batch_partition(b, n) == -1);
}

static void end_to_end(void) {
    mm_embedded_t *e = embedded_clusters();
    CHECK(strncmp(mm_embedded_bootstrap(e, MM_SIDE_SOURCE), "127.0.0.1:", 10) == 0);
    CHECK(strcmp(mm_embedded_bootstrap(e, MM_SIDE_SOURCE), mm_embedded_bootstrap(e, MM_SIDE_TARGET)) != 0);
    seed(e);

    mm_conf_t *conf = embedded_conf(e);
    char err[256] = "";
    mm_task_t *task = mm_task_new(conf, err, sizeof err);
    REQUIRE(task != NULL); /* conf now belongs to the task */
    CHECK_OK(mm_task_start(task));

    mm_batch_t *batch = NULL;
    double deadline = now_ms() + 30000;
    int polls = 0;
    for (;;) {
        mm_batch_t *b = NULL;
        mm_result r = mm_task_poll(task, 1000, &b);
        polls++;
        if (r != MM_RESULT_OK) {
            char last[256];
            mm_last_error(last, sizeof last);
            fprintf(stderr, "poll: %s (%s); retrying\n", mm_result_str(r), last);
        } else if (mm_batch_status(b) == MM_POLL_STATUS_EMITTED && mm_batch_len(b) > 0) {
            batch = b;
            break;
        } else {
            CHECK(mm_batch_status(b) == MM_POLL_STATUS_NOT_READY || mm_batch_status(b) == MM_POLL_STATUS_NOT_DUE ||
                  mm_batch_status(b) == MM_POLL_STATUS_EMITTED);
            mm_batch_destroy(b);
        }
        REQUIRE(now_ms() < deadline);
    }
    check_batch(batch, "poll batch");
    mm_batch_destroy(batch);

    mm_batch_t *written = NULL;
    CHECK_OK(mm_embedded_read_checkpoints(e, CHECKPOINTS_TOPIC, &written));
    CHECK(mm_batch_status(written) == MM_POLL_STATUS_NONE);
    check_batch(written, "checkpoints topic");
    mm_batch_destroy(written);

    mm_task_stats stats;
    CHECK_OK(mm_task_get_stats(task, &stats));
    CHECK(stats.initialized == 1);
    CHECK(stats.checkpoints_emitted == 3);
    CHECK(stats.syncs_loaded == 3);
    CHECK(stats.load_time_us > 0);
    CHECK(stats.last_stop_time_us == -1);
    CHECK(stats.groups == 2);

    mm_partition_statuses_t *st = NULL;
    CHECK_OK(mm_task_partition_statuses(task, &st));
    size_t n = mm_partition_statuses_len(st);
    /* The three checkpointed partitions, plus any the cycle looked at and skipped (g2 has no
     * commit on orders-1: the mock answers "all partitions" with nothing, so known ones are
     * asked for). */
    CHECK(n >= 3);
    size_t with_checkpoint = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        const char *group = mm_partition_statuses_group(st, i, &len);
        CHECK(group && len == 2);
        CHECK(strcmp(mm_partition_statuses_topic(st, i, NULL), "orders") == 0);
        CHECK(mm_partition_statuses_partition(st, i) >= 0);
        const char *reason = mm_partition_statuses_reason(st, i, &len);
        int64_t up = -1, down = -1;
        const char *meta = NULL;
        size_t meta_len = 99;
        mm_result r = mm_partition_statuses_last_checkpoint(st, i, &up, &down, &meta, &meta_len);
        if (reason) {
            CHECK(len == strlen(reason));
            CHECK(r == MM_RESULT_NOT_FOUND && up == -1 && meta == NULL);
            printf("test_api: %s orders-%d skipped: %s\n", group, mm_partition_statuses_partition(st, i), reason);
        } else {
            CHECK_OK(r);
            CHECK(up >= 50 && down >= 40 && meta && meta_len == strlen(meta));
            with_checkpoint++;
        }
    }
    CHECK(with_checkpoint == 3);
    CHECK_RESULT(mm_partition_statuses_last_checkpoint(st, n, NULL, NULL, NULL, NULL), MM_RESULT_NOT_FOUND);
    mm_partition_statuses_destroy(st);

    /* sync.group.offsets.enabled is off: no results, but a valid empty list. */
    mm_group_sync_results_t *gs = NULL;
    CHECK_OK(mm_task_group_offset_sync_results(task, &gs));
    CHECK(mm_group_sync_results_len(gs) == 0);
    CHECK(mm_group_sync_results_group(gs, 0, NULL) == NULL);
    CHECK(mm_group_sync_results_topic(gs, 0, NULL) == NULL);
    CHECK(mm_group_sync_results_partition(gs, 0) == -1);
    CHECK(mm_group_sync_results_written_offset(gs, 0) == -1);
    CHECK(mm_group_sync_results_reason(gs, 0, NULL) == NULL);
    CHECK(mm_group_sync_results_error(gs, 0, NULL) == NULL);
    mm_group_sync_results_destroy(gs);

    char fatal[64] = "unchanged";
    CHECK_OK(mm_task_fatal_error(task, fatal, sizeof fatal));
    CHECK(fatal[0] == '\0');

    mm_diagnostics d;
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients > 0 && d.live_threads > 0);

    double t0 = now_ms();
    CHECK_OK(mm_task_stop(task));
    double stop_ms = now_ms() - t0;
    CHECK_OK(mm_task_get_stats(task, &stats));
    CHECK(stats.last_stop_time_us >= 0);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients == 0 && d.live_threads == 0 && d.concurrent_client_access == 0);
    mm_task_destroy(task);
    mm_embedded_destroy(e);
    printf("test_api: end to end after %d polls, stop took %.1f ms\n", polls, stop_ms);
}

int main(void) {
    CHECK_OK(mm_set_log_callback(count_log, &logs, MM_LOG_LEVEL_INFO));
    version_and_results();
    conf_round_trip();
    end_to_end();
    CHECK_OK(mm_set_log_callback(NULL, NULL, 0));
    pthread_mutex_lock(&logs.lock);
    CHECK(logs.seen_wanted);
    CHECK(logs.by_level[MM_LOG_LEVEL_INFO] > 0);
    CHECK(logs.by_level[MM_LOG_LEVEL_DEBUG] == 0); /* above max_level */
    CHECK(logs.bad_level == 0);
    CHECK(logs.on_librdkafka_threads == 0);
    printf("test_api: log callback: %ld info, %ld warn, %ld error records (%ld from librdkafka), none on rdk: threads\n",
           logs.by_level[MM_LOG_LEVEL_INFO], logs.by_level[MM_LOG_LEVEL_WARN], logs.by_level[MM_LOG_LEVEL_ERROR],
           logs.from_librdkafka);
    pthread_mutex_unlock(&logs.lock);
    if (checks_failed) {
        fprintf(stderr, "test_api: %d checks failed\n", checks_failed);
        return 1;
    }
    printf("test_api: ok\n");
    return 0;
}
