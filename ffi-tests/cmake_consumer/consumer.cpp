// Built by CMake through find_package(mm2_checkpoint) against an installed prefix only: checks
// that the header and the library found there agree, and that a configuration is validated by
// that library (an unknown-to-MM2 boolean value is refused, naming its key).
#include <mm2_checkpoint.h>

#include <cstdio>
#include <cstring>

int main() {
    if (std::strcmp(mm_version(), MM2_CHECKPOINT_VERSION) != 0) {
        std::fprintf(stderr, "header %s, library %s\n", MM2_CHECKPOINT_VERSION, mm_version());
        return 1;
    }
    mm_conf_t *conf = nullptr;
    if (mm_conf_new(&conf) != MM_RESULT_OK) return 2;
    if (mm_conf_set(conf, "source.cluster.alias", "primary") != MM_RESULT_OK) return 3;
    if (mm_conf_set(conf, "emit.checkpoints.enabled", "maybe") != MM_RESULT_INVALID_CONFIG) return 4;
    mm_conf_destroy(conf);
    std::printf("mm2-checkpoint %s from an installed prefix: ok\n", mm_version());
    return 0;
}
