/*
 * The ABI promises of C ABI 2, each shown from C:
 * - layout: the size and offsets of every public struct and the value of every enum constant
 *   equal include/mm2_checkpoint.layout, the file the Java bindings read too (both it and the
 *   table of entries checked here, layout_table.h, are generated from the header by
 *   tests/bindings/generate.rs; `test_abi --print` writes what this compiler sees);
 * - old and new callers: a caller compiled against a shorter, older struct gets only the bytes
 *   it declared in struct_size (a guard word after it stays untouched), and a caller with a
 *   longer struct learns from struct_size how much the library filled;
 * - no re-entry deadlock: mm_task_stop, mm_task_destroy and mm_set_log_callback called from
 *   inside the log callback, on the application's polling thread and on a library thread,
 *   return MM_RESULT_IN_LOG_CALLBACK at once, and the task stops cleanly afterwards.
 */
#include "common.h"

#include <stddef.h>
#include <unistd.h>

struct layout_entry {
    const char *key;
    long long value;
};

#define SIZE(type) {#type ".size", (long long)sizeof(type)}
#define FIELD(type, field) {#type "." #field, (long long)offsetof(type, field)}
#define CONSTANT(name) {#name, (long long)(name)}

static const struct layout_entry LAYOUT[] = {
#include "layout_table.h"
};

#define LAYOUT_FILE_DEFAULT "include/mm2_checkpoint.layout"

static void print_layout(FILE *out) {
    fprintf(out, "# Layout of the public structs and enums of include/mm2_checkpoint.h (C ABI %d): sizes and\n"
                 "# field offsets in bytes, enum constant values. Generated from the header by tests/bindings/generate.rs\n"
                 "# (MM2_BLESS=1 cargo test --test ffi_header), checked by ffi-tests/test_abi.c against the\n"
                 "# compiler, and read by the Java bindings.\n",
            MM2_CHECKPOINT_ABI_VERSION);
    for (size_t i = 0; i < sizeof LAYOUT / sizeof LAYOUT[0]; i++) fprintf(out, "%s=%lld\n", LAYOUT[i].key, LAYOUT[i].value);
}

/* Every line of the committed file matches this compiler's view, and nothing is missing. */
static void layout_matches_the_committed_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "test_abi: cannot open %s\n", path);
        check_failed();
        return;
    }
    char line[256];
    size_t matched = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        lines++;
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        long long value = strtoll(eq + 1, NULL, 10);
        int found = 0;
        for (size_t i = 0; i < sizeof LAYOUT / sizeof LAYOUT[0]; i++) {
            if (strcmp(LAYOUT[i].key, line) != 0) continue;
            found = 1;
            if (LAYOUT[i].value == value) {
                matched++;
            } else {
                fprintf(stderr, "test_abi: %s is %lld here, %lld in %s\n", line, LAYOUT[i].value, value, path);
                check_failed();
            }
        }
        if (!found) {
            fprintf(stderr, "test_abi: %s (in %s) is not checked here\n", line, path);
            check_failed();
        }
    }
    fclose(f);
    CHECK(matched == sizeof LAYOUT / sizeof LAYOUT[0] && lines == matched);
    printf("test_abi: %zu sizes, offsets and constants match %s\n", matched, path);
}

#define GUARD 0x5555555555555555ULL

/* Calls `fill` with a buffer that says it holds `declared` bytes, followed by guard words:
 * the library must write exactly min(declared, its size) bytes and say so in struct_size. */
static void check_sized(const char *what, size_t library_size, mm_result (*fill)(void *, void *), void *ctx) {
    uint64_t buf[32];
    /* an old caller: struct_size and one field */
    for (size_t i = 0; i < 32; i++) buf[i] = GUARD;
    buf[0] = 16;
    CHECK_OK(fill(ctx, buf));
    if (buf[0] != 16 || buf[2] != GUARD) {
        fprintf(stderr, "test_abi: %s: an old 16-byte struct got struct_size %llu, guard %llx\n", what,
                (unsigned long long)buf[0], (unsigned long long)buf[2]);
        check_failed();
    }
    /* a newer caller, two fields longer than this library knows */
    for (size_t i = 0; i < 32; i++) buf[i] = GUARD;
    buf[0] = library_size + 16;
    CHECK_OK(fill(ctx, buf));
    size_t words = library_size / 8;
    if (buf[0] != library_size || buf[words] != GUARD || buf[words + 1] != GUARD) {
        fprintf(stderr, "test_abi: %s: a newer struct got struct_size %llu (want %zu) or its tail written\n", what,
                (unsigned long long)buf[0], library_size);
        check_failed();
    }
}

static mm_result fill_diagnostics(void *ctx, void *buf) {
    (void)ctx;
    return mm_diagnostics_get(buf);
}
static mm_result fill_task_stats(void *ctx, void *buf) { return mm_task_get_stats(ctx, buf); }
static mm_result fill_writer_stats(void *ctx, void *buf) { return mm_offset_sync_writer_get_stats(ctx, buf); }
static mm_result fill_counts(void *ctx, void *buf) { return mm_translated_offsets_get_counts(ctx, buf); }
static mm_result fill_totals(void *ctx, void *buf) { return mm_failover_report_get_totals(ctx, buf); }
static mm_result fill_translated_row(void *ctx, void *buf) { return mm_translated_offsets_row(ctx, 0, buf); }

/* An old caller's mm_task_stats (as if only two counters had existed), used as such. */
struct old_task_stats {
    uint64_t struct_size;
    uint64_t checkpoints_emitted;
    uint64_t records_skipped;
};

static void old_and_new_structs(void) {
    mm_conf_t *conf = new_conf();
    conf_set(conf, "source.cluster.alias", "a");
    conf_set(conf, "source.cluster.bootstrap.servers", "127.0.0.1:1");
    conf_set(conf, "target.cluster.bootstrap.servers", "127.0.0.1:1");
    mm_task_t *task = new_task_from(conf);
    struct {
        struct old_task_stats old;
        uint64_t guard[4];
    } caller = {{sizeof(struct old_task_stats), 9, 9}, {GUARD, GUARD, GUARD, GUARD}};
    CHECK_OK(mm_task_get_stats(task, (mm_task_stats *)(void *)&caller.old));
    CHECK(caller.old.struct_size == sizeof(struct old_task_stats));
    CHECK(caller.old.checkpoints_emitted == 0 && caller.old.records_skipped == 0);
    CHECK(caller.guard[0] == GUARD && caller.guard[1] == GUARD && caller.guard[3] == GUARD);

    /* A caller built before group_fetches_denied was added: its struct ends at
     * checkpoints_load_ok, and the word after it is the caller's, not the library's. */
    struct {
        mm_task_stats s;
        uint64_t guard;
    } before_denied;
    memset(&before_denied, 0x55, sizeof before_denied);
    before_denied.s.struct_size = offsetof(mm_task_stats, group_fetches_denied);
    CHECK_OK(mm_task_get_stats(task, &before_denied.s));
    CHECK(before_denied.s.struct_size == offsetof(mm_task_stats, group_fetches_denied));
    CHECK(before_denied.s.checkpoints_emitted == 0 && before_denied.s.load_time_us == -1);
    CHECK(before_denied.s.checkpoints_load_ok == 0);
    CHECK(before_denied.s.group_fetches_denied == GUARD && before_denied.guard == GUARD);
    /* The current struct gets the new field too (no group fetch was denied yet). */
    mm_task_stats now = SIZED(mm_task_stats);
    now.group_fetches_denied = GUARD;
    CHECK_OK(mm_task_get_stats(task, &now));
    CHECK(now.struct_size == sizeof now && now.group_fetches_denied == 0);

    check_sized("mm_task_stats", sizeof(mm_task_stats), fill_task_stats, task);
    check_sized("mm_diagnostics", sizeof(mm_diagnostics), fill_diagnostics, NULL);

    mm_conf_t *producer = new_conf();
    conf_set(producer, "bootstrap.servers", "127.0.0.1:1");
    mm_offset_sync_writer_t *w = NULL;
    CHECK_OK(mm_offset_sync_writer_new(producer, SYNCS_TOPIC, &w));
    REQUIRE(w);
    check_sized("mm_offset_sync_writer_stats", sizeof(mm_offset_sync_writer_stats), fill_writer_stats, w);
    mm_offset_sync_writer_destroy(w);

    mm_translated_offsets_t *plan = NULL;
    CHECK_OK(mm_translated_offsets_new(&plan));
    check_sized("mm_translation_counts", sizeof(mm_translation_counts), fill_counts, plan);
    /* List rows are growable structs too. */
    CHECK_OK(mm_translated_offsets_add(plan, "g", "a.t", 0, 5, 4, ""));
    check_sized("mm_translated_offset_row", sizeof(mm_translated_offset_row), fill_translated_row, plan);
    mm_translated_offset_row row = SIZED(mm_translated_offset_row);
    CHECK_OK(mm_translated_offsets_row(plan, 0, &row));
    CHECK(row.struct_size == sizeof row && row.offset == 5 && row.upstream_offset == 4 && row.partition == 0);
    CHECK(row.group_len == 1 && strcmp(row.group, "g") == 0 && row.metadata_len == 0);
    mm_translated_offsets_destroy(plan);
    plan = NULL;
    CHECK_OK(mm_translated_offsets_new(&plan)); /* empty again: the report below sends no request */
    mm_failover_report_t *report = NULL;
    CHECK_OK(mm_failover_report(producer, plan, 0, &report)); /* empty: no request */
    check_sized("mm_failover_totals", sizeof(mm_failover_totals), fill_totals, report);
    mm_failover_report_destroy(report);
    mm_translated_offsets_destroy(plan);
    mm_conf_destroy(producer);
    CHECK_OK(mm_task_destroy(task));
    printf("test_abi: 6 growable structs (one a list row): old callers keep their guard words, new ones learn the size filled\n");
}

/* What the log callback saw when it called back into the library. */
static struct {
    mm_task_t *task;
    pthread_t app;
    int armed;
    int app_done, lib_done;
    mm_result app_results[3], lib_results[3];
    long calls_after;
} reentry;

static void reenter(void *opaque, int level, const char *target, const char *message) {
    (void)opaque, (void)level, (void)target, (void)message;
    if (!__atomic_load_n(&reentry.armed, __ATOMIC_SEQ_CST)) {
        __atomic_add_fetch(&reentry.calls_after, 1, __ATOMIC_SEQ_CST);
        return;
    }
    int on_app = pthread_equal(pthread_self(), reentry.app);
    int *done = on_app ? &reentry.app_done : &reentry.lib_done;
    int idle = 0;
    if (!__atomic_compare_exchange_n(done, &idle, 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    mm_result *r = on_app ? reentry.app_results : reentry.lib_results;
    r[0] = mm_task_stop(reentry.task);
    r[1] = mm_task_destroy(reentry.task);
    r[2] = mm_set_log_callback(NULL, NULL, 0);
    __atomic_store_n(done, 1, __ATOMIC_SEQ_CST);
}

static void no_reentry_deadlock(void) {
    mm_embedded_t *e = embedded_clusters();
    reentry.task = new_task_from(embedded_conf(e));
    reentry.app = pthread_self();
    CHECK_OK(mm_set_log_callback(reenter, NULL, MM_LOG_LEVEL_TRACE));
    __atomic_store_n(&reentry.armed, 1, __ATOMIC_SEQ_CST);
    CHECK_OK(mm_task_start(reentry.task)); /* the scheduler thread logs while loading */
    double deadline = now_ms() + 30000;
    while ((__atomic_load_n(&reentry.app_done, __ATOMIC_SEQ_CST) != 1 ||
            __atomic_load_n(&reentry.lib_done, __ATOMIC_SEQ_CST) != 1) &&
           now_ms() < deadline) {
        mm_batch_t *b = NULL;
        if (mm_task_poll(reentry.task, 200, &b) == MM_RESULT_OK) mm_batch_destroy(b);
    }
    __atomic_store_n(&reentry.armed, 0, __ATOMIC_SEQ_CST);
    if (reentry.app_done != 1 || reentry.lib_done != 1)
        fprintf(stderr, "test_abi: the callback ran on the polling thread: %d, on a library thread: %d\n",
                reentry.app_done, reentry.lib_done);
    CHECK(reentry.app_done == 1 && reentry.lib_done == 1);
    for (int i = 0; i < 3; i++) {
        CHECK_RESULT(reentry.app_results[i], MM_RESULT_IN_LOG_CALLBACK);
        CHECK_RESULT(reentry.lib_results[i], MM_RESULT_IN_LOG_CALLBACK);
    }
    /* The callback stayed installed and the task alive: stop and destroy now work. */
    CHECK_OK(mm_task_stop(reentry.task));
    CHECK(reentry.calls_after > 0);
    CHECK_OK(mm_task_destroy(reentry.task));
    CHECK_OK(mm_set_log_callback(NULL, NULL, 99)); /* removal ignores the level */
    mm_diagnostics d = SIZED(mm_diagnostics);
    CHECK_OK(mm_diagnostics_get(&d));
    CHECK(d.live_threads == 0 && d.live_clients == 0);
    mm_embedded_destroy(e);
    printf("test_abi: stop, destroy and set_log_callback from inside the log callback returned %s on the "
           "polling thread and on a library thread\n",
           mm_result_str(MM_RESULT_IN_LOG_CALLBACK));
}

/* The demo clusters lose no data silently: 200,000 offset syncs (more than librdkafka's mock
 * broker kept before: ~145,000 of them fit its 5 MiB per partition uncompressed) are all read
 * back by a task, or the seeding call fails saying what was kept. */
static void seeding_keeps_every_offset_sync(void) {
    long n = env_long("MM2_FFI_SEED_SYNCS", 200000);
    mm_embedded_t *e = embedded_clusters();
    int64_t *up = malloc(sizeof(int64_t) * (size_t)n), *down = malloc(sizeof(int64_t) * (size_t)n);
    REQUIRE(up && down);
    for (long i = 0; i < n; i++) up[i] = down[i] = i * 10;
    double t0 = now_ms();
    CHECK_OK(mm_embedded_produce_offset_syncs(e, MM_SIDE_SOURCE, SYNCS_TOPIC, "orders", 0, up, down, (size_t)n));
    double seeded = now_ms() - t0;
    free(up);
    free(down);
    mm_task_t *task = new_task_from(embedded_conf(e));
    CHECK_OK(mm_task_start(task));
    mm_task_stats stats = SIZED(mm_task_stats);
    double deadline = now_ms() + 300000;
    while (!stats.initialized && now_ms() < deadline) {
        sleep_us(20000);
        CHECK_OK(mm_task_get_stats(task, &stats));
    }
    CHECK(stats.initialized && stats.syncs_loaded == (uint64_t)n);
    CHECK_OK(mm_task_destroy(task));
    mm_embedded_destroy(e);
    printf("test_abi: %ld offset syncs seeded in %.0f ms, %llu read back by a task\n", n, seeded,
           (unsigned long long)stats.syncs_loaded);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        print_layout(stdout);
        return 0;
    }
    alarm(900); /* a deadlock fails the test instead of hanging it (valgrind is slow) */
    layout_matches_the_committed_file(argc > 1 ? argv[1] : LAYOUT_FILE_DEFAULT);
    old_and_new_structs();
    no_reentry_deadlock();
    seeding_keeps_every_offset_sync();
    if (checks_failed) {
        fprintf(stderr, "test_abi: %d checks failed\n", checks_failed);
        return 1;
    }
    printf("test_abi: ok\n");
    return 0;
}
