// The C header used from C++: compiles with warnings as errors, links, and the enums and
// structs behave as plain C types (extern "C" linkage, prefixed constants).
#include "mm2_checkpoint.h"

#include <cstdio>
#include <cstring>

int main() {
    static_assert(MM2_CHECKPOINT_VERSION_MAJOR >= 0, "version macros are integers");
    if (std::strcmp(mm_version(), MM2_CHECKPOINT_VERSION) != 0) return 1;
    mm_conf_t *conf = mm_conf_new();
    char err[128];
    mm_result r = mm_conf_set(conf, "topics", "orders", err, sizeof err);
    size_t size = 0;
    mm_result g = mm_conf_get(conf, "topics", nullptr, &size);
    mm_conf_destroy(conf);
    mm_task_stats stats = {};
    mm_diagnostics diagnostics = {};
    mm_log_cb cb = nullptr;
    if (r != MM_RESULT_OK || g != MM_RESULT_OK || size != 7 || stats.cycles != 0 ||
        mm_diagnostics_get(&diagnostics) != MM_RESULT_OK || mm_set_log_callback(cb, nullptr, MM_LOG_LEVEL_OFF) != MM_RESULT_OK ||
        mm_batch_status(nullptr) != MM_POLL_STATUS_NONE || MM_SIDE_TARGET != 1) {
        std::fprintf(stderr, "cxx_header: unexpected results\n");
        return 1;
    }
    std::printf("cxx_header: ok (%s)\n", mm_result_str(MM_RESULT_OK));
    return 0;
}
