#!/usr/bin/env bash
# The project's one test command (README and CI run exactly this).
#
# After the build tools, its stages run in lanes side by side (much of every stage is waiting on
# downloads, brokers, JVMs and timers, and 2 cores would otherwise idle):
#   1. lane_setup (scripts/setup-test-env.sh) beside lane_build (rustfmt check, one build that is
#      also clippy with warnings as errors, doc tests);
#   2. once both have ended, with the run's three shared Kafka brokers up, the LATE_LANES at once:
#      lane_aarch64 (the linux-aarch64 cross build, then its C tests under qemu), lane_java,
#      lane_test_binaries (every cargo test target), lane_ffi, lane_compat_then_interop.
# Each lane's output is printed when the lane ends. The first failing stage stops the run with its
# name and a non-zero exit (the other lanes are killed); a run always ends with a table of stage
# times (wall and CPU seconds). Counts are sized for CI; the fuzz campaigns and the long churns
# are soaks (scripts/soak.sh, docs/DEVELOPMENT.md "Soak tests").
#
# Knobs: MM2_TEST_JOBS (test binaries at a time, default 4), MM2_TEST_SERIAL=1 (the lanes one
# after another), MM2_TEST_SKIP_BROKER_SHARING=1 (every test binary starts its own brokers).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ "${CI:-}" = true ]; then
    export CARGO_TERM_COLOR=never
fi

# shellcheck source=scripts/lib/stages.sh
source "$ROOT/scripts/lib/stages.sh"         # run_stage, note, fail, the table of stage times
# shellcheck source=scripts/lib/shared-brokers.sh
source "$ROOT/scripts/lib/shared-brokers.sh" # the shared brokers, the leaked-broker check
# shellcheck source=scripts/lib/build.sh
source "$ROOT/scripts/lib/build.sh"          # the build's settings, build_all, the build-info dir
# shellcheck source=scripts/lib/stage-commands.sh
source "$ROOT/scripts/lib/stage-commands.sh" # java_doc_snippets, crates_ready
# shellcheck source=scripts/lib/lanes.sh
source "$ROOT/scripts/lib/lanes.sh"          # run_lanes: the lane scheduler and its hooks

begin_stages
# What the build needs comes first; the rest of the setup (JDKs, Kafka, Maven artifacts, the cross
# and nightly toolchains: on a fresh machine over a minute, mostly downloads) runs beside the
# build, in lane_setup.
run_stage "setup: build tools (scripts/setup-test-env.sh --build-tools)" scripts/setup-test-env.sh --build-tools
begin_shared_brokers # their EXIT trap; brokers left by an earlier run; MM2_TEST_SKIP_BROKER_SHARING
begin_build          # the build's settings (exported for the whole run), MM2_BUILD_INFO

lane_setup() {
    run_stage "setup: scripts/setup-test-env.sh (beside the build)" scripts/setup-test-env.sh
}
lane_build() {
    run_stage "cargo fmt --all --check" cargo fmt --all --check
    run_stage "build + clippy -D warnings: cargo test --workspace --no-run --all-features (tests, examples as programs), --benches, the cdylib and staticlib (default, and with the mock clusters)" build_all
    # --no-run leaves out doc tests, so examples in doc comments get their own run.
    # --all-features: docs/TYPE_GUARANTEES.md's compile-fail tests name `internals` items.
    run_stage "cargo test --workspace --doc --all-features" cargo test --workspace --doc --all-features
}

# linux-aarch64, in a lane of its own (minutes of CPU on a clean clone, then mostly waiting): the
# library (scripts/cross-aarch64.sh: its own target dir, so no host cargo command waits on its
# lock), then the C tests under qemu-aarch64-static. AARCH64_BUILT tells lane_java, which packages
# that library, and ffi-tests/run.sh's cross mode (no cargo call) that the build is done.
lane_aarch64() {
    # Not linted (the host build is); librdkafka unoptimised, as its code only runs in the short
    # emulated tests (157 CPU-s instead of 181, measured on 2026-12-02).
    run_stage "cross-aarch64: scripts/cross-aarch64.sh (the jar's default-feature cdylib, then cdylib + staticlib with the mock clusters)" \
        env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS CFLAGS="-O0 -g0" GNUMAKEFLAGS="$LIBRDKAFKA_C_ONLY" \
        bash scripts/cross-aarch64.sh
    touch "$AARCH64_BUILT"
    run_stage "ffi-tests/run.sh on aarch64 under qemu (MM2_FFI_TARGET=aarch64-unknown-linux-gnu)" \
        env MM2_FFI_TARGET=aarch64-unknown-linux-gnu bash ffi-tests/run.sh
}

# The project address Maven Central requires in the pom: a placeholder here, where
# scripts/release-java.sh only checks the packing.
JAVA_CHECK_URL="https://example.invalid/mm2-checkpoint"
lane_java() {
    if [ -f java/verify.sh ]; then
        # The libraries lane_build built (debug): default features for the jar, the one with the
        # mock clusters for its test kit (classifier testkit), which the suite loads. The suite
        # runs at once; only the jar with lane_aarch64's linux-aarch64 builds beside it waits for
        # that lane (a second, short `mvn verify` of the tests that read those files), so this lane
        # does not idle minutes for the cross build.
        local host_libs=(-Dmm2.native.lib="$DEFAULT_LIB"
            -Dmm2.native.lib.testkit="$ROOT/target/debug/libmm2_checkpoint.so"
            -Dmm2.project.url="$JAVA_CHECK_URL")
        run_stage "java/verify.sh (Maven offline: JUnit on Java 17/JNI and 22+/Panama, Connect tests, example)" \
            bash java/verify.sh "${host_libs[@]}"
        check_no_leaked_brokers "java/verify.sh"
        run_stage "java: awaiting lane_aarch64's library" await_aarch64_library
        local cross_dir
        cross_dir="$(bash scripts/cross-aarch64.sh --print-libdir)"
        run_stage "java/verify.sh --aarch64-pass (the jar with linux-aarch64: its entries, an aarch64 JVM under qemu)" \
            bash java/verify.sh --aarch64-pass "${host_libs[@]}" \
            -Dmm2.native.lib.aarch64="$cross_dir/default/libmm2_checkpoint.so" \
            -Dmm2.native.lib.aarch64.testkit="$cross_dir/testkit/libmm2_checkpoint.so"
        # That jar (both platforms) against the last release's Java API, then packed as a release.
        local version jar
        version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' java/parent/pom.xml | head -n 1)"
        jar="$ROOT/java/target/mm2-checkpoint-$version.jar"
        run_stage "every Java snippet of README.md and docs/ compiles against the jar" java_doc_snippets "$jar"
        run_stage "compatibility gates: scripts/compat-check.sh --java-jar (Java API against abi/, japicmp)" \
            scripts/compat-check.sh --java-jar "$jar"
        run_stage "scripts/release-java.sh $version (the jar, sources, javadoc, pom and sums Maven Central takes)" \
            scripts/release-java.sh "$version" --url "$JAVA_CHECK_URL" --jar "$jar" \
            --pom "$ROOT/java/target/.flattened-pom.xml" --out "$BUILD_INFO/dist-java"
    else
        note "java/verify.sh: not present yet, skipped"
    fi
}

lane_test_binaries() {
    run_stage "test-binaries: scripts/run-test-binaries.sh (${MM2_TEST_JOBS:-4} at a time)" \
        env MM2_TEST_JOBS="${MM2_TEST_JOBS:-4}" scripts/run-test-binaries.sh
    check_no_leaked_brokers "test-binaries"
}

lane_ffi() {
    if [ -f ffi-tests/run.sh ]; then
        run_stage "ffi-tests/run.sh" bash ffi-tests/run.sh
        check_no_leaked_brokers "ffi-tests/run.sh"
    else
        note "ffi-tests/run.sh: not present yet, skipped"
    fi
}

lane_compat_then_interop() {
    # The C ABI and the Rust API against the last release's baseline (docs/VERSIONING.md).
    run_stage "compatibility gates: scripts/compat-check.sh (C ABI, Rust API against abi/)" \
        scripts/compat-check.sh --lib "$DEFAULT_LIB"
    run_stage "crates: cargo doc -D warnings, cargo package --no-verify (the five published crates)" crates_ready
    # Java MM2 beside ours on real brokers: the differential must agree byte for byte. (The
    # start/stop churn beside Java's task is a soak: scripts/soak.sh interop-churn.)
    if [ -f interop/run.sh ]; then
        export MM2_INTEROP_PROFILE=debug
        run_stage "interop/run.sh differential" bash interop/run.sh differential
        check_no_leaked_brokers "interop/run.sh"
    else
        note "interop/run.sh: not present, skipped"
    fi
}

# The late lanes, started together once lane_setup and lane_build have ended (not earlier: the
# cross build beside the host build, even at a lower priority, stretches the build, which gates
# every lane, by minutes). lane_aarch64 first: lane_java waits for its library (in serial mode too).
LATE_LANES=(lane_aarch64 lane_java lane_test_binaries lane_ffi lane_compat_then_interop)
# Their niceness: the cross build and the Java stage first when both cores are busy (the emulated
# tests and the Java stage's last step wait for the cross build, and the two end last); then
# ffi-tests (valgrind, one thread at a time; started early rather than closing the run); the test
# binaries and interop, mostly waiting on brokers and timers, yield to all. Mildly: their timing
# bounds (stop latency, recovery after a fault) must hold beside the others.
declare -A LANE_NICE=([lane_ffi]=2 [lane_test_binaries]=5 [lane_compat_then_interop]=5)

run_lanes
rm -rf "$BUILD_INFO"
stop_shared_brokers
print_stage_table
rm -f "$STAGES" "$STAGES".times.* "$STAGES".broker-*
note "all stages passed"
