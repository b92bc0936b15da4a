// The C header used from C++: compiles with warnings as errors, links, and the enums and
// structs behave as plain C types (extern "C" linkage, prefixed constants).
#include "mm2_checkpoint.h"

#include <cstdio>
#include <cstring>

int main() {
    static_assert(MM2_CHECKPOINT_VERSION_MAJOR >= 0, "version macros are integers");
    static_assert(MM2_CHECKPOINT_VERSION_NUM >= 0x000100, "the version number is an integer");
    if (std::strcmp(mm_version(), MM2_CHECKPOINT_VERSION) != 0) return 1;
    if (mm_version_num() != MM2_CHECKPOINT_VERSION_NUM) return 1;
    mm_conf_t *conf = nullptr;
    mm_result n = mm_conf_new(&conf);
    mm_result r = mm_conf_set(conf, "topics", "orders");
    size_t size = 0;
    mm_result g = mm_conf_get(conf, "topics", nullptr, &size);
    mm_conf_destroy(conf);
    mm_task_stats stats = {};
    mm_diagnostics diagnostics = {};
    diagnostics.struct_size = sizeof diagnostics;
    mm_log_cb cb = nullptr;
    mm_poll_status status = MM_POLL_STATUS_NONE;
    if (n != MM_RESULT_OK || r != MM_RESULT_OK || g != MM_RESULT_OK || size != 7 || stats.cycles != 0 ||
        mm_diagnostics_get(&diagnostics) != MM_RESULT_OK || mm_set_log_callback(cb, nullptr, MM_LOG_LEVEL_OFF) != MM_RESULT_OK ||
        mm_batch_status(nullptr, &status) != MM_RESULT_NULL_PARAMETER || MM_SIDE_TARGET != 1) {
        std::fprintf(stderr, "cxx_header: unexpected results\n");
        return 1;
    }
    std::printf("cxx_header: ok (%s)\n", mm_result_str(MM_RESULT_OK));
    return 0;
}
