/*
 * Every exported function, used as documented, end to end on the embedded mock clusters:
 * the checkpoints a poll returns are the ones MM2 would write, and they are in the target's
 * checkpoints topic; then a failover: offset syncs from the writer, a task's checkpoints,
 * translation and the dry-run report. run.sh checks that this file calls every function the
 * header declares.
 */
#include "common.h"

static struct log_counts logs = {PTHREAD_MUTEX_INITIALIZER, {0}, "checkpoint task ready", 0, 0, 0, 0, {0, 0}, {0, 0}, 0};

static void version_and_results(void) {
    CHECK(strcmp(mm_version(), MM2_CHECKPOINT_VERSION) == 0);
    CHECK(mm_version_num() == MM2_CHECKPOINT_VERSION_NUM);
    CHECK(MM2_CHECKPOINT_VERSION_NUM ==
          ((MM2_CHECKPOINT_VERSION_MAJOR << 16) | (MM2_CHECKPOINT_VERSION_MINOR << 8) | MM2_CHECKPOINT_VERSION_PATCH));
    CHECK(starts_with(mm_result_str(MM_RESULT_OK), "MM_RESULT_OK:"));
    CHECK(starts_with(mm_result_str(MM_RESULT_BUFFER_TOO_SMALL), "MM_RESULT_BUFFER_TOO_SMALL:"));
    CHECK(strcmp(mm_result_str(-1), "MM_RESULT_UNKNOWN") == 0);
    char last[64];
    mm_last_error(last, sizeof last); /* whatever it holds, it is terminated */
    CHECK(strlen(last) < sizeof last);
    /* A failure sets the message and no Kafka code; the next success clears both. */
    CHECK_RESULT(mm_conf_new(NULL), MM_RESULT_NULL_PARAMETER);
    CHECK(mm_last_error(last, sizeof last) == strlen("`conf_out` is NULL"));
    CHECK(strcmp(last, "`conf_out` is NULL") == 0);
    CHECK(mm_last_error_kafka_code() == 0);
    mm_conf_t *c = new_conf();
    CHECK(mm_last_error(last, sizeof last) == 0 && last[0] == '\0');
    mm_conf_destroy(c);
}

static void conf_round_trip(void) {
    mm_conf_t *conf = new_conf();
    CHECK_OK(mm_conf_set(conf, "topics", "orders"));
    CHECK_OK(mm_conf_load_properties(conf, "# an mm2.properties excerpt\ngroups = g.*\nsource.cluster.alias = A\n"));
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

    /* The keys, listed by index in byte order. */
    const char *keys[] = {"groups", "source.cluster.alias", "topics"};
    for (size_t i = 0; i < count; i++) {
        char key[32];
        size = sizeof key;
        CHECK_OK(mm_conf_key(conf, i, key, &size));
        CHECK(strcmp(key, keys[i]) == 0);
    }
    size = sizeof value;
    CHECK_RESULT(mm_conf_key(conf, count, value, &size), MM_RESULT_INVALID_ARGUMENT);

    mm_conf_t *copy = NULL;
    CHECK_OK(mm_conf_dup(conf, &copy));
    REQUIRE(copy != NULL);
    CHECK_OK(mm_conf_unset(conf, "groups"));
    size = sizeof value;
    CHECK_RESULT(mm_conf_get(conf, "groups", value, &size), MM_RESULT_NOT_FOUND);
    size = sizeof value;
    CHECK_OK(mm_conf_get(copy, "groups", value, &size));
    mm_conf_destroy(copy);
    mm_conf_destroy(conf);
}

/* The dedicated mm2.properties of examples/ (aliases `source` and `target`) loads through C as
 * through Rust, and its description hides the password. */
static void conf_describe_resolves_a_dedicated_file_and_hides_secrets(void) {
    mm_conf_t *conf = new_conf();
    CHECK_OK(mm_conf_load_properties(conf,
        "clusters = source, target\n"
        "source.bootstrap.servers = 127.0.0.1:19092\n"
        "target.bootstrap.servers = 127.0.0.1:29092\n"
        "source.sasl.password = c-api-secret-1\n"
        "source->target.enabled = true\n"));
    size_t size = 0;
    CHECK_OK(mm_conf_describe(conf, NULL, &size));
    REQUIRE(size > 1);
    char *text = malloc(size);
    REQUIRE(text != NULL);
    size_t small = 1;
    CHECK_RESULT(mm_conf_describe(conf, text, &small), MM_RESULT_BUFFER_TOO_SMALL);
    CHECK(small == size);
    CHECK_OK(mm_conf_describe(conf, text, &size));
    CHECK(strlen(text) + 1 == size);
    /* One `key = value` line per setting, under MM2's keys, then the clients' settings. */
    CHECK(strncmp(text, "admin.timeout.ms = ", strlen("admin.timeout.ms = ")) == 0);
    CHECK(strstr(text, "\nsource.cluster.alias = source\n") != NULL);
    CHECK(strstr(text, "\nemit.checkpoints.interval.seconds = 60\n") != NULL);
    CHECK(strstr(text, "source-admin: sasl.password = [hidden]") != NULL);
    CHECK(strstr(text, "c-api-secret-1") == NULL);
    free(text);
    CHECK_OK(mm_conf_set(conf, "source->target.enabled", "false"));
    CHECK_OK(mm_conf_set(conf, "target->source.enabled", "true"));
    CHECK_OK(mm_conf_set(conf, "source.cluster.alias", "source"));
    size = 0;
    CHECK_RESULT(mm_conf_describe(conf, NULL, &size), MM_RESULT_INVALID_CONFIG);
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
    size_t n = GET_VALUE(size_t, mm_batch_len, b);
    CHECK(n == 3);
    for (size_t want = 0; want < 3; want++) {
        const struct expected *x = &EXPECTED[want];
        int found = 0;
        for (size_t i = 0; i < n; i++) {
            mm_checkpoint_row row = GET_ROW(mm_checkpoint_row, mm_batch_row, b, i);
            REQUIRE(row.group && row.topic && row.metadata);
            CHECK(row.struct_size == sizeof row);
            CHECK(row.group_len == strlen(row.group) && row.topic_len == strlen(row.topic) &&
                  row.metadata_len == strlen(row.metadata));
            if (strcmp(row.group, x->group) == 0 && strcmp(row.topic, "source.orders") == 0 &&
                row.partition == x->partition) {
                found++;
                CHECK(row.upstream_offset == x->upstream);
                CHECK(row.downstream_offset == x->downstream);
                CHECK(strcmp(row.metadata, x->metadata) == 0);
            }
        }
        if (found != 1) {
            fprintf(stderr, "%s: checkpoint %s source.orders-%d found %d times\n", what, x->group,
                    x->partition, found);
            checks_failed++;
        }
    }
    /* Past the end: INVALID_ARGUMENT, the row untouched. */
    mm_checkpoint_row past = SIZED(mm_checkpoint_row);
    past.partition = 77;
    CHECK_RESULT(mm_batch_row(b, n, &past), MM_RESULT_INVALID_ARGUMENT);
    CHECK(past.struct_size == sizeof past && past.group == NULL && past.partition == 77);
}

static void end_to_end(void) {
    mm_embedded_t *e = embedded_clusters();
    CHECK(strncmp(bootstrap(e, MM_SIDE_SOURCE), "127.0.0.1:", 10) == 0);
    CHECK(strcmp(bootstrap(e, MM_SIDE_SOURCE), bootstrap(e, MM_SIDE_TARGET)) != 0);
    seed(e);

    mm_conf_t *conf = embedded_conf(e);
    mm_task_t *task = new_task_from(conf); /* conf now belongs to the task */
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
        } else if (GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_CYCLE_DONE && GET_VALUE(size_t, mm_batch_len, b) > 0) {
            batch = b;
            break;
        } else {
            CHECK(GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_NOT_READY || GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_NOT_DUE ||
                  GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_CYCLE_DONE);
            mm_batch_destroy(b);
        }
        REQUIRE(now_ms() < deadline);
    }
    check_batch(batch, "poll batch");
    mm_batch_destroy(batch);

    mm_batch_t *written = NULL;
    CHECK_OK(mm_embedded_read_checkpoints(e, CHECKPOINTS_TOPIC, &written));
    CHECK(GET_VALUE(mm_poll_status, mm_batch_status, written) == MM_POLL_STATUS_NONE);
    check_batch(written, "checkpoints topic");
    mm_batch_destroy(written);

    mm_task_stats stats = SIZED(mm_task_stats);
    CHECK_OK(mm_task_get_stats(task, &stats));
    CHECK(stats.struct_size == sizeof stats);
    CHECK(stats.initialized == 1);
    CHECK(stats.checkpoints_emitted == 3);
    CHECK(stats.syncs_loaded == 3);
    CHECK(stats.load_time_us > 0);
    CHECK(stats.last_stop_time_us == -1);
    CHECK(stats.groups == 2);
    CHECK(stats.group_fetches_denied == 0);

    mm_partition_statuses_t *st = NULL;
    CHECK_OK(mm_task_partition_statuses(task, &st));
    size_t n = GET_VALUE(size_t, mm_partition_statuses_len, st);
    /* The three checkpointed partitions, plus any the cycle looked at and skipped (g2 has no
     * commit on orders-1: the mock answers "all partitions" with nothing, so known ones are
     * asked for). */
    CHECK(n >= 3);
    size_t with_checkpoint = 0;
    for (size_t i = 0; i < n; i++) {
        mm_partition_status_row row = GET_ROW(mm_partition_status_row, mm_partition_statuses_row, st, i);
        CHECK(row.group && row.group_len == 2);
        CHECK(row.topic && strcmp(row.topic, "orders") == 0);
        CHECK(row.partition >= 0);
        if (row.reason != NULL) {
            /* No checkpoint written: a reason, and no last checkpoint. */
            CHECK(row.reason_len == strlen(row.reason));
            CHECK(row.last_upstream_offset == -1 && row.last_downstream_offset == -1 && row.last_metadata == NULL);
            printf("test_api: %s orders-%d skipped: %s\n", row.group, (int)row.partition, row.reason);
        } else {
            CHECK(row.reason_len == 0);
            CHECK(row.last_upstream_offset >= 50 && row.last_downstream_offset >= 40 && row.last_metadata &&
                  row.last_metadata_len == strlen(row.last_metadata));
            with_checkpoint++;
        }
    }
    CHECK(with_checkpoint == 3);
    mm_partition_status_row past = SIZED(mm_partition_status_row);
    CHECK_RESULT(mm_partition_statuses_row(st, n, &past), MM_RESULT_INVALID_ARGUMENT);
    mm_partition_statuses_destroy(st);

    /* sync.group.offsets.enabled is off: no results, but a valid empty list. */
    mm_group_sync_results_t *gs = NULL;
    CHECK_OK(mm_task_group_offset_sync_results(task, &gs));
    CHECK(GET_VALUE(size_t, mm_group_sync_results_len, gs) == 0);
    mm_group_sync_result_row none = SIZED(mm_group_sync_result_row);
    CHECK_RESULT(mm_group_sync_results_row(gs, 0, &none), MM_RESULT_INVALID_ARGUMENT);
    CHECK(none.struct_size == sizeof none && none.group == NULL && none.written_offset == 0);
    mm_group_sync_results_destroy(gs);

    char fatal[64] = "unchanged";
    size_t fatal_size = sizeof fatal;
    CHECK_RESULT(mm_task_fatal_error(task, fatal, &fatal_size), MM_RESULT_NOT_FOUND);
    CHECK(strcmp(fatal, "unchanged") == 0);
    /* Loaded: start-up retries nothing. */
    CHECK_RESULT(mm_task_retry_reason(task, fatal, &fatal_size), MM_RESULT_NOT_FOUND);
    CHECK(strcmp(fatal, "unchanged") == 0);

    mm_diagnostics d = SIZED(mm_diagnostics);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients > 0 && d.live_threads > 0);

    double t0 = now_ms();
    CHECK_OK(mm_task_stop(task));
    double stop_ms = now_ms() - t0;
    CHECK_OK(mm_task_get_stats(task, &stats));
    CHECK(stats.last_stop_time_us >= 0);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients == 0 && d.live_threads == 0 && d.concurrent_client_access == 0);
    CHECK_OK(mm_task_destroy(task));
    mm_embedded_destroy(e);
    printf("test_api: end to end after %d polls, stop took %.1f ms\n", polls, stop_ms);
}

/* Records already in the target partitions before mirroring, so downstream offsets differ
 * from upstream ones. */
#define FILLER0 37
#define FILLER1 5

/* A mirror written in C: 200 records of orders-0 and 50 of orders-1 copied, each reported to
 * the offset-sync writer once the target acknowledged it. */
static void mirror_with_the_writer(const mm_embedded_t *e) {
    mm_conf_t *conf = new_conf();
    conf_set(conf, "bootstrap.servers", bootstrap(e, MM_SIDE_SOURCE));
    conf_set(conf, "offset.lag.max", "10");
    conf_set(conf, "offset.flush.interval.ms", "600000");
    mm_offset_sync_writer_t *w = NULL;
    CHECK_OK(mm_offset_sync_writer_new(conf, SYNCS_TOPIC, &w));
    REQUIRE(w);
    mm_conf_destroy(conf); /* the writer copied what it needs */
    for (int64_t i = 0; i < 200; i++) {
        CHECK_OK(mm_offset_sync_writer_wait_for_capacity(w, 10000));
        CHECK_OK(mm_offset_sync_writer_report(w, "orders", 0, i, i + FILLER0));
        if (i < 50) CHECK_OK(mm_offset_sync_writer_report(w, "orders", 1, i, i + FILLER1));
        if (i % 20 == 0) CHECK_OK(mm_offset_sync_writer_tick(w));
    }
    mm_offset_sync_writer_stats s = SIZED(mm_offset_sync_writer_stats);
    CHECK_OK(mm_offset_sync_writer_get_stats(w, &s));
    CHECK(s.records_reported == 250 && s.closed == 0);
    CHECK(s.delayed == 2); /* each partition's last record waits for the next promotion */
    CHECK_OK(mm_offset_sync_writer_flush(w, 30000));
    CHECK_OK(mm_offset_sync_writer_get_stats(w, &s));
    CHECK(s.pending == 0 && s.delayed == 0 && s.outstanding == 0 && s.syncs_failed == 0);
    CHECK(s.syncs_delivered == s.syncs_sent);
    /* orders-0: a sync every 11 records (translation lands one past a sync, so it falls 10
     * behind at the 11th) = 19, plus the flush's at 199; orders-1: 5, plus the one at 49. */
    CHECK(s.syncs_sent == 19 + 1 + 5 + 1);
    CHECK_OK(mm_offset_sync_writer_close(w, 30000));
    mm_offset_sync_writer_stats closed = SIZED(mm_offset_sync_writer_stats);
    CHECK_OK(mm_offset_sync_writer_get_stats(w, &closed));
    CHECK(closed.closed == 1 && closed.syncs_sent == s.syncs_sent && closed.records_reported == 250);
    mm_offset_sync_writer_destroy(w);
    printf("test_api: the writer sent %llu offset syncs for 250 mirrored records\n",
           (unsigned long long)closed.syncs_sent);
}

/* Runs a checkpoint task over the writer's syncs until g1 and g2 are checkpointed. */
static void checkpoint_groups(const mm_embedded_t *e) {
    mm_task_t *task = new_task_from(embedded_conf(e));
    CHECK_OK(mm_task_start(task));
    size_t emitted = 0;
    double deadline = now_ms() + 30000;
    while (emitted < 3) {
        mm_batch_t *b = NULL;
        if (mm_task_poll(task, 1000, &b) == MM_RESULT_OK) {
            CHECK(GET_VALUE(mm_poll_status, mm_batch_status, b) != MM_POLL_STATUS_FAILED && GET_VALUE(mm_poll_status, mm_batch_status, b) != MM_POLL_STATUS_STOPPED);
            emitted += GET_VALUE(size_t, mm_batch_len, b);
            mm_batch_destroy(b);
        }
        REQUIRE(now_ms() < deadline);
    }
    CHECK(emitted == 3);
    CHECK_OK(mm_task_stop(task));
    CHECK_OK(mm_task_destroy(task));
}

struct translated_row {
    const char *group;
    int32_t partition;
    int64_t offset, upstream;
    const char *metadata;
};

/* Checks a translation against `want`, in the list's order (group, topic, partition). */
static void check_translated(const mm_translated_offsets_t *t, const struct translated_row *want, size_t n,
                             const char *what) {
    size_t len = GET_VALUE(size_t, mm_translated_offsets_len, t);
    if (len != n) {
        fprintf(stderr, "%s: %zu entries, expected %zu\n", what, len, n);
        checks_failed++;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        mm_translated_offset_row row = GET_ROW(mm_translated_offset_row, mm_translated_offsets_row, t, i);
        REQUIRE(row.group && row.topic && row.metadata);
        CHECK(row.group_len == strlen(row.group) && row.topic_len == strlen(row.topic) &&
              row.metadata_len == strlen(row.metadata));
        CHECK(strcmp(row.group, want[i].group) == 0);
        CHECK(strcmp(row.topic, "source.orders") == 0);
        CHECK(row.partition == want[i].partition);
        CHECK(row.offset == want[i].offset);
        /* -1 stands for an upstream offset the entry does not have. */
        CHECK(row.upstream_offset == (want[i].upstream >= 0 ? want[i].upstream : -1));
        CHECK(strcmp(row.metadata, want[i].metadata) == 0);
    }
    mm_translated_offset_row past = SIZED(mm_translated_offset_row);
    past.offset = -7;
    CHECK_RESULT(mm_translated_offsets_row(t, n, &past), MM_RESULT_INVALID_ARGUMENT);
    CHECK(past.group == NULL && past.offset == -7);
}

struct report_row {
    const char *group;
    int32_t partition;
    int64_t translated, current, skipped, reread;
};

static void check_report(const mm_failover_report_t *r, const struct report_row *want, size_t n, const char *what) {
    size_t len = GET_VALUE(size_t, mm_failover_report_len, r);
    if (len != n) {
        fprintf(stderr, "%s: %zu entries, expected %zu\n", what, len, n);
        checks_failed++;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        mm_failover_row row = GET_ROW(mm_failover_row, mm_failover_report_row, r, i);
        REQUIRE(row.group && row.topic);
        CHECK(row.group_len == strlen(row.group) && strcmp(row.group, want[i].group) == 0);
        CHECK(strcmp(row.topic, "source.orders") == 0);
        CHECK(row.partition == want[i].partition);
        CHECK(row.translated_offset == want[i].translated);
        /* -1 stands for a group without a committed offset on the target. */
        CHECK(row.current_offset == (want[i].current >= 0 ? want[i].current : -1));
        CHECK(row.skipped == want[i].skipped);
        CHECK(row.reread == want[i].reread);
    }
    mm_failover_row past = SIZED(mm_failover_row);
    past.partition = -5;
    CHECK_RESULT(mm_failover_report_row(r, n, &past), MM_RESULT_INVALID_ARGUMENT);
    CHECK(past.partition == -5);
}

/* The failover pipeline from C: the writer's syncs, a task's checkpoints, then the
 * translation on the target and the dry run against the groups' target commits. */
static void failover(void) {
    mm_embedded_t *e = embedded_clusters();
    mirror_with_the_writer(e);
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g1", "orders", 0, 200, "m1"));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g1", "orders", 1, 50, ""));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_SOURCE, "g2", "orders", 0, 199, "m2"));
    checkpoint_groups(e);

    mm_conf_t *target = new_conf();
    conf_set(target, "bootstrap.servers", bootstrap(e, MM_SIDE_TARGET));

    /* Caught up (200, 50): one past the last sync (199 -> 236, 49 -> 54); 199 is that sync. */
    static const struct translated_row ALL[] = {
        {"g1", 0, 200 + FILLER0, 200, "m1"},
        {"g1", 1, 50 + FILLER1, 50, ""},
        {"g2", 0, 199 + FILLER0, 199, "m2"},
    };
    struct {
        int kind;
        const char *groups;
        size_t first, n;
    } selections[] = {
        {MM_GROUP_SELECTOR_ONE, "g1", 0, 2},
        {MM_GROUP_SELECTOR_ONE, "g2", 2, 1},
        {MM_GROUP_SELECTOR_LIST, " g2 ,g1,nobody", 0, 3},
        {MM_GROUP_SELECTOR_REGEX, "g[0-9]+", 0, 3},
        {MM_GROUP_SELECTOR_REGEX, "g", 0, 0},
    };
    mm_translated_offsets_t *all = NULL;
    for (size_t i = 0; i < sizeof selections / sizeof selections[0]; i++) {
        mm_translated_offsets_t *t = NULL;
        CHECK_OK(mm_translate_offsets(target, "source", selections[i].kind, selections[i].groups, 30000, &t));
        REQUIRE(t);
        check_translated(t, ALL + selections[i].first, selections[i].n, selections[i].groups);
        size_t topic_len = 0;
        CHECK(strcmp(GET_TEXT_LEN(&topic_len, mm_translated_offsets_checkpoints_topic, t), CHECKPOINTS_TOPIC) == 0);
        CHECK(topic_len == strlen(CHECKPOINTS_TOPIC));
        mm_translation_counts counts = SIZED(mm_translation_counts);
        CHECK_OK(mm_translated_offsets_get_counts(t, &counts));
        CHECK(counts.records_read >= 3 && counts.malformed_records == 0 && counts.negative_offset_records == 0);
        if (selections[i].kind == MM_GROUP_SELECTOR_LIST) {
            all = t;
        } else {
            mm_translated_offsets_destroy(t);
        }
    }
    REQUIRE(all);

    /* g1 has consumed on the target too: ahead of the translation on orders-1, behind on
     * orders-0; g2 has no commit there. */
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_TARGET, "g1", "source.orders", 0, 230, ""));
    CHECK_OK(mm_embedded_commit_offset(e, MM_SIDE_TARGET, "g1", "source.orders", 1, 60, ""));
    mm_failover_report_t *report = NULL;
    CHECK_OK(mm_failover_report(target, all, 30000, &report));
    REQUIRE(report);
    static const struct report_row DRY_RUN[] = {
        {"g1", 0, 237, 230, 7, 0},
        {"g1", 1, 55, 60, 0, 5},
        {"g2", 0, 236, -1, 0, 0},
    };
    check_report(report, DRY_RUN, 3, "report");
    mm_failover_totals totals = SIZED(mm_failover_totals);
    CHECK_OK(mm_failover_report_get_totals(report, &totals));
    CHECK(totals.partitions == 3 && totals.without_current_offset == 1 && totals.skipped == 7 && totals.reread == 5);
    mm_failover_report_destroy(report);
    mm_translated_offsets_destroy(all);

    /* A plan made by hand: added out of order, reported in order. */
    mm_translated_offsets_t *plan = NULL;
    CHECK_OK(mm_translated_offsets_new(&plan));
    REQUIRE(plan);
    CHECK_OK(mm_translated_offsets_add(plan, "g2", "source.orders", 0, 100, -1, ""));
    CHECK_OK(mm_translated_offsets_add(plan, "g1", "source.orders", 0, 1, -1, ""));
    CHECK_OK(mm_translated_offsets_add(plan, "g1", "source.orders", 0, 225, 188, "replaced"));
    static const struct translated_row PLANNED[] = {
        {"g1", 0, 225, 188, "replaced"},
        {"g2", 0, 100, -1, ""},
    };
    check_translated(plan, PLANNED, 2, "plan");
    CHECK(strcmp(GET_TEXT(mm_translated_offsets_checkpoints_topic, plan), "") == 0);
    CHECK_OK(mm_failover_report(target, plan, 30000, &report));
    static const struct report_row PLAN_RUN[] = {
        {"g1", 0, 225, 230, 0, 5},
        {"g2", 0, 100, -1, 0, 0},
    };
    check_report(report, PLAN_RUN, 2, "plan report");
    mm_failover_report_destroy(report);
    /* Committing a plan into the target: the mock describes every group as unknown, so each
     * partition is left alone, and says why. */
    mm_commit_report_t *commits = NULL;
    CHECK_OK(mm_commit_translated_offsets(target, plan, 30000, &commits));
    REQUIRE(commits);
    CHECK(GET_VALUE(size_t, mm_commit_report_len, commits) == 2);
    mm_commit_row commit = GET_ROW(mm_commit_row, mm_commit_report_row, commits, 0);
    REQUIRE(commit.group && commit.topic && commit.outcome && commit.reason);
    CHECK(strcmp(commit.group, "g1") == 0 && strcmp(commit.topic, "source.orders") == 0);
    CHECK(commit.partition == 0 && commit.offset == 225);
    CHECK(strcmp(commit.outcome, "left") == 0 && strcmp(commit.reason, "group_state_unknown") == 0);
    CHECK(commit.outcome_len == 4 && commit.reason_len == strlen("group_state_unknown"));
    mm_commit_report_destroy(commits);
    mm_translated_offsets_destroy(plan);
    mm_conf_destroy(target);

    /* Failback: g1 went on on the target (230 on source.orders-0, 60 on -1); the flow's syncs
     * translate that back to orders on the source: the nearest syncs at or before are
     * 187 -> 224 and 49 -> 54, so it resumes one past them, re-reading 5 records each. */
    mm_conf_t *flow = embedded_conf(e);
    mm_failback_offsets_t *back = NULL;
    CHECK_OK(mm_translate_offsets_back(flow, MM_GROUP_SELECTOR_LIST, "g1,g2", 30000, &back));
    REQUIRE(back);
    CHECK(GET_VALUE(size_t, mm_failback_offsets_len, back) == 2); /* g2 committed nothing there */
    static const struct {
        int64_t partition, offset, rereads, replica_offset;
    } BACK[] = {{0, 188, 5, 230}, {1, 50, 5, 60}};
    for (size_t i = 0; i < 2; i++) {
        mm_failback_row row = GET_ROW(mm_failback_row, mm_failback_offsets_row, back, i);
        REQUIRE(row.group && row.topic && row.replica_topic && row.metadata && row.untranslated_reason);
        CHECK(strcmp(row.group, "g1") == 0 && strcmp(row.topic, "orders") == 0);
        CHECK(strcmp(row.replica_topic, "source.orders") == 0 && row.untranslated_reason_len == 0);
        CHECK(row.partition == BACK[i].partition && row.offset == BACK[i].offset);
        CHECK(row.rereads_at_most == BACK[i].rereads && row.replica_offset == BACK[i].replica_offset);
    }
    mm_failback_row past_back = SIZED(mm_failback_row);
    CHECK_RESULT(mm_failback_offsets_row(back, 2, &past_back), MM_RESULT_INVALID_ARGUMENT);
    /* The dry run against the source, where g1 committed 200 and 50 before failing over: it is
     * already at or past the translation on both partitions. */
    CHECK_OK(mm_failback_report(flow, back, 30000, &report));
    REQUIRE(report);
    static const struct report_row BACK_RUN[] = {
        {"g1", 0, 188, 200, 0, 12},
        {"g1", 1, 50, 50, 0, 0},
    };
    size_t back_rows = GET_VALUE(size_t, mm_failover_report_len, report);
    CHECK(back_rows == 2);
    for (size_t i = 0; i < back_rows && i < 2; i++) {
        mm_failover_row row = GET_ROW(mm_failover_row, mm_failover_report_row, report, i);
        REQUIRE(row.group && row.topic);
        CHECK(strcmp(row.topic, "orders") == 0 && row.partition == BACK_RUN[i].partition);
        CHECK(row.translated_offset == BACK_RUN[i].translated && row.current_offset == BACK_RUN[i].current);
        CHECK(row.skipped == BACK_RUN[i].skipped && row.reread == BACK_RUN[i].reread);
    }
    int caught_up = -1;
    CHECK_OK(mm_failover_report_caught_up(report, "g1", &caught_up));
    CHECK(caught_up == 1);
    CHECK_OK(mm_failover_report_caught_up(report, "g2", &caught_up));
    CHECK(caught_up == 0);
    mm_failover_report_destroy(report);
    CHECK_OK(mm_commit_failback_offsets(flow, back, 30000, &commits));
    REQUIRE(commits);
    CHECK(GET_VALUE(size_t, mm_commit_report_len, commits) == 2);
    mm_commit_report_destroy(commits);
    mm_failback_offsets_destroy(back);
    /* Under the identity policy a replica topic cannot be told apart: refused, naming why. */
    conf_set(flow, "replication.policy.class", "IdentityReplicationPolicy");
    back = NULL;
    CHECK_RESULT(mm_translate_offsets_back(flow, MM_GROUP_SELECTOR_ONE, "g1", 30000, &back),
                 MM_RESULT_INVALID_CONFIG);
    CHECK(back == NULL);
    char why[512];
    mm_last_error(why, sizeof why);
    CHECK(strstr(why, "DefaultReplicationPolicy") != NULL);
    mm_conf_destroy(flow);

    mm_diagnostics d = SIZED(mm_diagnostics);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_clients == 0 && d.live_threads == 0 && d.concurrent_client_access == 0);
    mm_embedded_destroy(e);
    printf("test_api: failover and back: translated 3 partitions of 2 groups, dry run skips %llu and re-reads %llu\n",
           (unsigned long long)totals.skipped, (unsigned long long)totals.reread);
}

/* What the statistics callback saw, from its thread. */
struct stats_seen {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const mm_task_t *task;
    int calls;
    int malformed;            /* a document without the version, or json_len != strlen(json) */
    int wrong_thread;         /* a call not on the task's statistics thread */
    int with_checkpoints;     /* documents counting the three checkpoints */
    int after_stop;           /* calls after mm_task_stop returned */
    int stopped;
    mm_result stop_inside, destroy_inside, json_inside;
};

static void on_stats(void *opaque, const mm_task_t *task, const char *json, size_t json_len) {
    struct stats_seen *s = opaque;
    char thread[16] = "";
    pthread_getname_np(pthread_self(), thread, sizeof thread);
    /* Refused from here: both would join this very thread. */
    mm_result stop = mm_task_stop((mm_task_t *)task);
    mm_result destroy = mm_task_destroy((mm_task_t *)task);
    size_t size = 0;
    mm_result sized = mm_task_metrics_json(task, NULL, &size);
    pthread_mutex_lock(&s->lock);
    s->calls++;
    s->malformed += !starts_with(json, "{\"schema_version\":1,") || json_len != strlen(json) || task != s->task;
    /* The task's statistics thread: `source->target stats` is longer than the 15 bytes Linux
     * keeps, so the flow's short id names it, `mm2 <id> stats`. */
    s->wrong_thread += !(starts_with(thread, "mm2 ") && strlen(thread) == 14 && strcmp(thread + 8, " stats") == 0);
    s->with_checkpoints += strstr(json, "\"checkpoints_emitted\":3,") != NULL;
    s->after_stop += s->stopped;
    s->stop_inside = stop;
    s->destroy_inside = destroy;
    s->json_inside = sized;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* statistics.interval.ms + mm_task_set_stats_cb: a JSON document every interval on the task's
 * statistics thread, from which stop and destroy are refused; set only before start; the same
 * document on demand through mm_task_metrics_json. */
static void statistics_callback(void) {
    mm_embedded_t *e = embedded_clusters();
    seed(e);
    mm_conf_t *conf = embedded_conf(e);
    conf_set(conf, "statistics.interval.ms", "50");
    mm_task_t *task = new_task_from(conf);
    static struct stats_seen seen = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0, 0, 0,
                                     MM_RESULT_OK, MM_RESULT_OK, MM_RESULT_PANIC};
    seen.task = task;
    CHECK_RESULT(mm_task_set_stats_cb(NULL, on_stats, &seen), MM_RESULT_NULL_PARAMETER);
    CHECK_OK(mm_task_set_stats_cb(task, on_stats, &seen));
    CHECK_OK(mm_task_start(task));
    CHECK_RESULT(mm_task_set_stats_cb(task, NULL, NULL), MM_RESULT_ALREADY_STARTED);

    double deadline = now_ms() + 30000;
    for (int done = 0; !done;) {
        mm_batch_t *b = NULL;
        if (mm_task_poll(task, 1000, &b) == MM_RESULT_OK) {
            done = GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_CYCLE_DONE &&
                   GET_VALUE(size_t, mm_batch_len, b) == 3;
            mm_batch_destroy(b);
        }
        REQUIRE(now_ms() < deadline);
    }
    /* The next documents count the cycle's three checkpoints. */
    pthread_mutex_lock(&seen.lock);
    while (seen.with_checkpoints == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&seen.changed, &seen.lock, &until);
        if (now_ms() >= deadline) break;
    }
    CHECK(seen.with_checkpoints > 0);
    pthread_mutex_unlock(&seen.lock);

    size_t size = 0;
    CHECK_OK(mm_task_metrics_json(task, NULL, &size));
    CHECK(size > 100);
    char small[8] = "unset";
    size_t small_size = sizeof small;
    CHECK_RESULT(mm_task_metrics_json(task, small, &small_size), MM_RESULT_BUFFER_TOO_SMALL);
    CHECK(strcmp(small, "unset") == 0 && small_size > sizeof small);
    size_t cap = small_size + 4096; /* room for the document to grow between the calls */
    char *json = malloc(cap);
    REQUIRE(json);
    size = cap;
    CHECK_OK(mm_task_metrics_json(task, json, &size));
    CHECK(size == strlen(json) + 1);
    CHECK(starts_with(json, "{\"schema_version\":1,\"source\":\"source\",\"target\":\"target\","));
    CHECK(strstr(json, "\"checkpoints_emitted\":3,") != NULL);
    free(json);
    CHECK_RESULT(mm_task_metrics_json(NULL, NULL, &size), MM_RESULT_NULL_PARAMETER);
    CHECK_RESULT(mm_task_metrics_json(task, NULL, NULL), MM_RESULT_NULL_PARAMETER);

    CHECK_OK(mm_task_stop(task));
    pthread_mutex_lock(&seen.lock);
    seen.stopped = 1;
    int calls = seen.calls;
    CHECK(calls >= 2);
    CHECK(seen.malformed == 0);
    CHECK(seen.wrong_thread == 0);
    CHECK(seen.stop_inside == MM_RESULT_IN_STATS_CALLBACK);
    CHECK(seen.destroy_inside == MM_RESULT_IN_STATS_CALLBACK);
    CHECK(seen.json_inside == MM_RESULT_OK);
    pthread_mutex_unlock(&seen.lock);
    CHECK_RESULT(mm_task_set_stats_cb(task, on_stats, &seen), MM_RESULT_ALREADY_STOPPED);
    CHECK_OK(mm_task_destroy(task));
    mm_embedded_destroy(e);
    pthread_mutex_lock(&seen.lock);
    CHECK(seen.after_stop == 0);
    pthread_mutex_unlock(&seen.lock);
    printf("test_api: statistics callback called %d times\n", calls);
}

/* Every enabled flow of one MM2 properties text in one object: source->target checkpoints the
 * seeded groups, target->source runs beside it; each flow's task is lent for polling and
 * counters (never destroyed through mm_task_destroy), and one stop stops both. */
static void every_flow_in_one_object(void) {
    mm_embedded_t *e = embedded_clusters();
    seed(e);
    /* target->source: its offset syncs on `target` (its source), its checkpoints on `source`. */
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_TARGET, "mm2-offset-syncs.source.internal", 1) == MM_RESULT_OK);
    REQUIRE(mm_embedded_create_topic(e, MM_SIDE_SOURCE, "target.checkpoints.internal", 1) == MM_RESULT_OK);
    char text[1024];
    snprintf(text, sizeof text,
             "clusters = source, target\n"
             "source.bootstrap.servers = %s\n"
             "target.bootstrap.servers = %s\n"
             "source->target.enabled = true\n"
             "target->source.enabled = true\n"
             "task.assigned.groups = g1,g2\n"
             "emit.checkpoints.interval.seconds = 1\n"
             "target->source.emit.reverse.checkpoints.enabled = true\n",
             bootstrap(e, MM_SIDE_SOURCE), bootstrap(e, MM_SIDE_TARGET));
    mm_flows_t *flows = NULL;
    CHECK_OK(mm_flows_new(text, &flows));
    REQUIRE(flows);
    size_t n = GET_VALUE(size_t, mm_flows_count, flows);
    CHECK(n == 2);
    const char *want[] = {"source->target", "target->source"};
    mm_task_t *tasks[2] = {NULL, NULL};
    for (size_t i = 0; i < 2; i++) {
        char name[32];
        size_t size = sizeof name;
        CHECK_OK(mm_flows_name(flows, i, name, &size));
        CHECK(strcmp(name, want[i]) == 0 && size == strlen(want[i]) + 1);
        CHECK_OK(mm_flows_task(flows, i, &tasks[i]));
        REQUIRE(tasks[i]);
        mm_task_t *again = NULL;
        CHECK_OK(mm_flows_task(flows, i, &again));
        CHECK(again == tasks[i]);
    }
    /* Each flow's task has an id of its own, which its log records carry. */
    uint64_t ids[2] = {0, 0};
    CHECK_OK(mm_task_id(tasks[0], &ids[0]));
    CHECK_OK(mm_task_id(tasks[1], &ids[1]));
    CHECK(ids[0] != 0 && ids[1] != 0 && ids[0] != ids[1]);
    pthread_mutex_lock(&logs.lock);
    memcpy(logs.tasks, ids, sizeof ids);
    pthread_mutex_unlock(&logs.lock);
    /* A lent task is the flows' to free. */
    CHECK_RESULT(mm_task_destroy(tasks[0]), MM_RESULT_INVALID_ARGUMENT);
    CHECK_RESULT(mm_flows_stop(flows), MM_RESULT_NOT_STARTED);
    CHECK_OK(mm_flows_start(flows));
    CHECK_RESULT(mm_flows_start(flows), MM_RESULT_ALREADY_STARTED);

    /* The forward flow checkpoints what test_api's single task does. */
    double deadline = now_ms() + 30000;
    for (int done = 0; !done;) {
        mm_batch_t *b = NULL;
        if (mm_task_poll(tasks[0], 1000, &b) == MM_RESULT_OK) {
            done = GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_CYCLE_DONE &&
                   GET_VALUE(size_t, mm_batch_len, b) == 3;
            if (done) check_batch(b, "flows: source->target");
            mm_batch_destroy(b);
        }
        REQUIRE(now_ms() < deadline);
    }
    /* The reverse flow runs its own cycles and names its own clusters in its metrics. */
    mm_task_stats stats = SIZED(mm_task_stats);
    while (stats.cycles == 0) {
        mm_batch_t *b = NULL;
        if (mm_task_poll(tasks[1], 1000, &b) == MM_RESULT_OK) mm_batch_destroy(b);
        CHECK_OK(mm_task_get_stats(tasks[1], &stats));
        REQUIRE(now_ms() < deadline);
    }
    CHECK(stats.initialized == 1 && stats.checkpoints_emitted == 0);
    size_t size = 0;
    CHECK_OK(mm_task_metrics_json(tasks[1], NULL, &size));
    char *doc = malloc(size + 4096);
    REQUIRE(doc);
    size += 4096;
    CHECK_OK(mm_task_metrics_json(tasks[1], doc, &size));
    CHECK(starts_with(doc, "{\"schema_version\":1,\"source\":\"target\",\"target\":\"source\","));
    free(doc);

    /* One stop for both: afterwards each flow's poll says STOPPED. */
    CHECK_OK(mm_flows_stop(flows));
    CHECK_RESULT(mm_flows_stop(flows), MM_RESULT_ALREADY_STOPPED);
    for (size_t i = 0; i < 2; i++) {
        mm_batch_t *b = NULL;
        CHECK_OK(mm_task_poll(tasks[i], 0, &b));
        CHECK(GET_VALUE(mm_poll_status, mm_batch_status, b) == MM_POLL_STATUS_STOPPED);
        mm_batch_destroy(b);
        CHECK_RESULT(mm_task_stop(tasks[i]), MM_RESULT_ALREADY_STOPPED);
    }
    CHECK_OK(mm_flows_destroy(flows));
    CHECK_OK(mm_flows_destroy(NULL));
    pthread_mutex_lock(&logs.lock);
    CHECK(logs.by_task[0] > 0 && logs.by_task[1] > 0);
    printf("test_api: log records by task id: %ld of source->target, %ld of target->source\n", logs.by_task[0],
           logs.by_task[1]);
    memset(logs.tasks, 0, sizeof logs.tasks);
    pthread_mutex_unlock(&logs.lock);

    /* A text enabling no flow, and a flow's bad value, are refused naming the key. */
    mm_flows_t *none = NULL;
    CHECK_RESULT(mm_flows_new("clusters = A, B\nA.bootstrap.servers = x:1\nB.bootstrap.servers = y:1\n", &none),
                 MM_RESULT_INVALID_CONFIG);
    CHECK(none == NULL);
    mm_embedded_destroy(e);
    printf("test_api: two flows in one mm_flows_t, stopped together\n");
}

int main(void) {
    CHECK_OK(mm_set_log_callback(count_log, &logs, MM_LOG_LEVEL_INFO));
    version_and_results();
    conf_round_trip();
    conf_describe_resolves_a_dedicated_file_and_hides_secrets();
    end_to_end();
    statistics_callback();
    failover();
    every_flow_in_one_object();
    CHECK_OK(mm_set_log_callback(NULL, NULL, 0));
    pthread_mutex_lock(&logs.lock);
    CHECK(logs.seen_wanted);
    CHECK(logs.by_level[MM_LOG_LEVEL_INFO] > 0);
    CHECK(logs.by_level[MM_LOG_LEVEL_DEBUG] == 0); /* above max_level */
    CHECK(logs.bad_level == 0);
    CHECK(logs.on_librdkafka_threads == 0);
    CHECK(logs.untagged_on_task_threads == 0);
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
