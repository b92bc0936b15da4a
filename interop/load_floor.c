/*
 * The floor for the start-up load comparison (interop/run.sh load, BENCHMARKS.md "Start-up
 * load"): a plain librdkafka consumer, written straight against the C API, that reads partition 0
 * of one topic from offset 0 to its end in whole batches (rd_kafka_consume_batch_queue) and
 * touches every key and value byte. Linked against the librdkafka that rdkafka-sys built for the
 * library, so both sides run the same client code.
 *
 *   load_floor BOOTSTRAP TOPIC [key=value ...]
 *
 * Extra key=value pairs go to the client configuration as given (the "tuned" runs). The end is
 * the library's end rule: the high watermark cached from the first Fetch response, or a
 * partition EOF, whichever comes first. Timed from rd_kafka_new to the last record; closing is
 * not timed. Prints one line:
 *
 *   RESULT records=N secs=S checksum=C
 *
 * Exit status 1 on any client error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdkafka.h> /* librdkafka's public header, from rdkafka-sys's build (out/src) */

#define BATCH 10000
#define GIVE_UP_SECS 600.0

static double now_secs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_or_die(rd_kafka_conf_t *conf, const char *key, const char *value) {
    char err[512];
    if (rd_kafka_conf_set(conf, key, value, err, sizeof err) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "load_floor: %s=%s: %s\n", key, value, err);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: load_floor BOOTSTRAP TOPIC [key=value ...]\n");
        return 2;
    }
    const char *topic = argv[2];
    char err[512];

    double began = now_secs();
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    set_or_die(conf, "bootstrap.servers", argv[1]);
    /* assign() goes through a group handle; the group is never joined, nothing is committed. */
    set_or_die(conf, "group.id", "load-floor");
    set_or_die(conf, "enable.auto.commit", "false");
    set_or_die(conf, "enable.partition.eof", "true");
    set_or_die(conf, "auto.offset.reset", "earliest");
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) {
            fprintf(stderr, "load_floor: not key=value: %s\n", argv[i]);
            return 2;
        }
        *eq = '\0';
        set_or_die(conf, argv[i], eq + 1);
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (rk == NULL) {
        fprintf(stderr, "load_floor: rd_kafka_new: %s\n", err);
        return 1;
    }
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic, 0)->offset = 0;
    rd_kafka_resp_err_t assigned = rd_kafka_assign(rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (assigned != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "load_floor: assign: %s\n", rd_kafka_err2str(assigned));
        return 1;
    }
    rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(rk);

    rd_kafka_message_t *batch[BATCH];
    uint64_t records = 0, checksum = 0;
    int64_t end = -1;
    int done = 0, failed = 0;
    while (!done && !failed) {
        if (now_secs() - began > GIVE_UP_SECS) {
            fprintf(stderr, "load_floor: gave up after %.0f s at %" PRIu64 " records\n", GIVE_UP_SECS,
                    records);
            return 1;
        }
        ssize_t n = rd_kafka_consume_batch_queue(queue, 500, batch, BATCH);
        if (n < 0) {
            fprintf(stderr, "load_floor: consume_batch_queue: %s\n",
                    rd_kafka_err2str(rd_kafka_last_error()));
            return 1;
        }
        for (ssize_t i = 0; i < n; i++) {
            rd_kafka_message_t *m = batch[i];
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                done = 1;
            } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                fprintf(stderr, "load_floor: %s\n", rd_kafka_message_errstr(m));
                failed = 1;
            } else if (!done) {
                const unsigned char *k = m->key, *v = m->payload;
                for (size_t j = 0; j < m->key_len; j++) {
                    checksum += k[j];
                }
                for (size_t j = 0; j < m->len; j++) {
                    checksum += v[j];
                }
                records++;
                if (end < 0) {
                    int64_t low, high;
                    if (rd_kafka_get_watermark_offsets(rk, topic, 0, &low, &high) ==
                            RD_KAFKA_RESP_ERR_NO_ERROR &&
                        high >= 0) {
                        end = high;
                    }
                }
                if (end >= 0 && m->offset + 1 >= end) {
                    done = 1;
                }
            }
            rd_kafka_message_destroy(m);
        }
    }
    double secs = now_secs() - began;
    rd_kafka_queue_destroy(queue);
    rd_kafka_destroy(rk);
    if (failed) {
        return 1;
    }
    printf("RESULT records=%" PRIu64 " secs=%.6f checksum=%" PRIu64 "\n", records, secs, checksum);
    return 0;
}
