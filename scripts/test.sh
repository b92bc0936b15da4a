#!/usr/bin/env bash
# The project's one test command (README and CI run exactly this).
#
# Installs what the tests need (scripts/setup-test-env.sh), starts the run's shared Kafka
# brokers, then: rustfmt check, one build that is also clippy with warnings as errors, doc
# tests, every cargo test target (their binaries several at a time,
# scripts/run-test-binaries.sh), the compatibility gates, and the later stages whose folders
# exist: interop/, ffi-tests/, java/ (java/verify.sh). The fuzz campaigns and the churn runs
# are soaks (scripts/soak.sh), not part of this run. Stops at the first failing stage with its name
# and a non-zero exit, and always ends with a table of stage times (wall and CPU seconds).
#
# Brokers: three are started once, as soon as the setup has installed Kafka, with
# scripts/kafka-broker.sh and shared by every stage: a plain source and a plain target broker
# (MM2_SHARED_BOOTSTRAP, MM2_SHARED_TARGET_BOOTSTRAP) and a secured one (MM2_SHARED_SECURE_START
# names the file with its start output; tests/support/secure_kafka.rs reads it). Tests keep to
# unique names on them. Tests that kill, restart or otherwise disturb a broker, and the interop
# differential (which compares every group of its clusters), start their own.
#
# Lanes run side by side (much of every stage is waiting on downloads, brokers, JVMs and
# timers, and 2 cores would otherwise idle); "Lanes, and when each starts" below has the order:
# the setup beside the build; then, once both are done, the linux-aarch64 cross build, java, the
# test binaries, ffi-tests, and the compatibility gates then interop. Each lane's output is printed
# when the lane ends; its stages are
# timed one by one, and the first failing stage stops the run (the other lanes are killed).
#
# Counts are sized for CI; the long soaks run in scripts/soak.sh (docs/DEVELOPMENT.md "Soak tests").
# Knobs: MM2_TEST_JOBS (test binaries at a time, default 4), MM2_TEST_SKIP_BROKER_SHARING=1 (every test binary starts its own),
# MM2_TEST_SERIAL=1 (the lanes one after another).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ "${CI:-}" = true ]; then
    export CARGO_TERM_COLOR=never
fi

STARTED=$SECONDS
# One line per finished stage: seconds, result, name (lanes append from their subshells).
STAGES="$(mktemp "${TMPDIR:-/tmp}/mm2-test-stages.XXXXXX")"
print_stage_table() {
    echo "---- stage times (lanes overlap: the total is wall time, not the sum; cpu: user+system"
    echo "     seconds of the stage's finished child processes, brokers shared across stages excluded)"
    awk -F'\t' '{ printf "%6s s  %6s cpu  %-6s %s\n", $1, $4, $2, $3 }' "$STAGES"
    children_cpu
    printf '%6s s  %6s cpu  %-6s %s\n' "$((SECONDS - STARTED))" "$CPU_NOW" "" "total (wall)"
    print_broker_cpu
}
# Kafka broker JVMs (scripts/kafka-broker.sh writes a line at each start and, with its CPU
# seconds, at each kill): nobody waits for them, so the cpu column above never counts them.
export MM2_BROKER_START_LOG="$STAGES.broker-starts" MM2_BROKER_CPU_LOG="$STAGES.broker-cpu"
print_broker_cpu() {
    touch "$MM2_BROKER_START_LOG" "$MM2_BROKER_CPU_LOG"
    awk -F'\t' '
        FNR == NR { n = split($0, f, " "); for (i = 1; i <= n; i++) if (f[i] ~ /^tag=/) {
                        t = substr(f[i], 5); starts[t == "" ? "-" : t]++; total_starts++ }
                    next }
        { t = ($1 == "" ? "-" : $1); cpu[t] += $2; total_cpu += $2; seen[t] = 1 }
        END {
            for (t in starts) seen[t] = 1
            line = ""
            for (t in seen) line = line sprintf("%s%s %d/%.0f", line == "" ? "" : ", ", t, starts[t], cpu[t])
            printf "       kafka broker JVMs: %d starts, %.0f CPU-s (not in the cpu column; by stage tag, starts/CPU-s: %s)\n",
                total_starts, total_cpu, line
        }' "$MM2_BROKER_START_LOG" "$MM2_BROKER_CPU_LOG"
}
# Sets CPU_NOW to the CPU seconds (user + system) of this shell's finished children so far.
# shellcheck source=scripts/lib/cpu-seconds.sh
source "$ROOT/scripts/lib/cpu-seconds.sh"
children_cpu() {
    local file="$STAGES.times.$BASHPID"
    times >"$file"
    CPU_NOW="$(cpu_seconds_of_times "$file")"
}
fail() {
    print_stage_table >&2
    echo "test.sh: FAILED at stage: $*" >&2
    exit 1
}
# run_stage NAME COMMAND...: runs one stage, records its time; stops the run when it fails.
run_stage() {
    local name="$1" began=$SECONDS rc=0 cpu_before
    shift
    echo "==> [$((SECONDS - STARTED))s] $name"
    children_cpu
    cpu_before=$CPU_NOW
    MM2_BROKER_TAG="$(stage_tag "$name")" "$@" || rc=$?
    children_cpu
    printf '%s\t%s\t%s\t%s\n' "$((SECONDS - began))" "$([ $rc = 0 ] && echo ok || echo FAILED)" "$name" \
        "$((CPU_NOW - cpu_before))" >>"$STAGES"
    [ $rc = 0 ] || fail "$name"
}
# The broker tag of a stage (scripts/kafka-broker.sh): its name's first word, e.g. ffi-tests.
stage_tag() {
    local word="${1%%[ :]*}"
    echo "${word//\//-}"
}
note() { echo "==> [$((SECONDS - STARTED))s] $*"; }

# What the build needs comes first; the rest of the setup (JDKs, Kafka, Maven artifacts, the cross
# and nightly toolchains: on a fresh machine over a minute, mostly downloads) runs beside the
# build, in lane_setup below.
run_stage "setup: build tools (scripts/setup-test-env.sh --build-tools)" scripts/setup-test-env.sh --build-tools
# After lane_setup: its tools.
load_setup_env() {
    # shellcheck source=/dev/null
    source "$ROOT/.tools/env.sh"
    export MM2_KAFKA_LIBS MM2_KAFKA_JAVA MM2_JAVA17 MM2_JAVA22 MM2_JAVAC22 JAVA_HOME
}

# ---------------------------------------------------------------- shared brokers

SHARED_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mm2-shared-brokers.XXXXXX")"
SHARED_HANDLES=()
SHARED_PIDS=()
stop_shared_brokers() {
    local h
    for h in "${SHARED_HANDLES[@]+"${SHARED_HANDLES[@]}"}"; do
        scripts/kafka-broker.sh stop "$h" >/dev/null 2>&1 || true
    done
    SHARED_HANDLES=()
    SHARED_PIDS=()
    rm -rf "$SHARED_DIR"
}
trap stop_shared_brokers EXIT

# Kafka brokers that scripts/kafka-broker.sh started from this tree (their JVMs carry
# -Dmm2.broker.root=<this tree>) and that are still running, other than the run's shared
# ones: a test that leaked its broker. With a TAG, only those a stage of that tag started.
leaked_brokers() {
    local tag="${1:-}" file pid shared
    # One grep over every process's NUL-separated arguments (-z: each argument is a line), not a
    # tr and a grep per process: with a few hundred processes that was seconds of CPU per call,
    # and check_no_leaked_brokers calls it up to 100 times while a watchdog is still at work.
    while IFS= read -r file; do
        pid="${file#/proc/}"
        pid="${pid%/cmdline}"
        for shared in "${SHARED_PIDS[@]+"${SHARED_PIDS[@]}"}"; do
            [ "$pid" != "$shared" ] || continue 2
        done
        if [ -z "$tag" ] || grep -qzxF -- "-Dmm2.broker.tag=$tag" "$file" 2>/dev/null; then
            echo "$pid"
        fi
    done < <(grep -lzxF -- "-Dmm2.broker.root=$ROOT" /proc/[0-9]*/cmdline 2>/dev/null || true)
    return 0
}
# check_no_leaked_brokers STAGE-NAME: fails the run if brokers that stage started still run.
check_no_leaked_brokers() {
    local leaked waited=0 tag
    [ -z "$preexisting" ] || return 0
    tag="$(stage_tag "$1")"
    # A test binary's exit closes its lifeline pipes; the watchdogs then kill the brokers,
    # which takes a moment.
    while leaked="$(leaked_brokers "$tag" | tr '\n' ' ')" && [ -n "$leaked" ] && [ $waited -lt 100 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    if [ -n "$leaked" ]; then
        echo "test.sh: Kafka brokers left running after $1: pids $leaked" >&2
        printf '0\tFAILED\t%s\n' "$1 leaked Kafka brokers" >>"$STAGES"
        fail "$1 leaked Kafka brokers"
    fi
}
# Brokers from an earlier, interrupted run would be blamed on this one.
preexisting="$(leaked_brokers | tr '\n' ' ')"
if [ -n "$preexisting" ]; then
    echo "test.sh: note: Kafka brokers of this tree already running before the tests (pids $preexisting); leak checks are off" >&2
fi

# The three shared brokers, started at once in the background right after setup (much of a
# start is waiting), and awaited just before the stages that use them.
start_shared_brokers() {
    local name
    for name in source target secure; do
        MM2_BROKER_TAG=shared scripts/kafka-broker.sh start --owner-pid $$ \
            $([ $name != secure ] || echo --secure) \
            >"$SHARED_DIR/$name.start" 2>"$SHARED_DIR/$name.err" &
    done
    wait
}
await_shared_brokers() {
    local name handle pid rc=0
    wait "$SHARED_STARTER" || true
    for name in source target secure; do
        handle="$(sed -n 's/^handle=//p' "$SHARED_DIR/$name.start")"
        pid="$(sed -n 's/^pid=//p' "$SHARED_DIR/$name.start")"
        if [ -n "$handle" ]; then SHARED_HANDLES+=("$handle"); fi
        if [ -n "$pid" ]; then SHARED_PIDS+=("$pid"); fi
        if ! grep -q '^bootstrap=' "$SHARED_DIR/$name.start"; then
            cat "$SHARED_DIR/$name.err" >&2
            echo "test.sh: the shared $name broker did not start" >&2
            rc=1
        else
            echo "shared $name broker: $(sed -n 's/^bootstrap=//p' "$SHARED_DIR/$name.start") (started in $(sed -n 's/^startup_ms=//p' "$SHARED_DIR/$name.start") ms)"
        fi
    done
    return $rc
}
SHARING=1
if [ "${MM2_TEST_SKIP_BROKER_SHARING:-0}" = 1 ]; then
    SHARING=0
    note "shared brokers: off (MM2_TEST_SKIP_BROKER_SHARING=1); every test binary starts its own"
    unset MM2_SHARED_BOOTSTRAP MM2_SHARED_TARGET_BOOTSTRAP MM2_SHARED_SECURE_START
fi

# ---------------------------------------------------------------- Rust

# One debug build serves every later stage: the test binaries, the examples interop runs, and
# the cdylib/staticlib the C tests and the Java stage load (no release or sanitizer build; one
# librdkafka build, shared by all the commands). All of it before the lanes, which then call
# no cargo on this target directory.
#
# Clippy is that same build: cargo runs our crate's compilations through clippy-driver (what
# `cargo clippy` does, there with `cargo check`), which lints and then compiles as rustc does,
# so what `cargo clippy --all-targets --all-features -- -D warnings` checks costs no second
# compilation of the crate (every target is built: the examples as programs, holding no
# cfg(test) code) (it was a 250 s stage of its own). CLIPPY_ARGS carries the `-D warnings`
# in the form cargo-clippy gives it. Both stay exported for the whole run, as they are part of
# the build's fingerprint: a cargo call without them would rebuild the crate. The fuzz build
# (nightly, a crate of its own, never linted) runs without them.
CLIPPY_DRIVER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
[ -x "$CLIPPY_DRIVER" ] || fail "clippy-driver not found (rustup component add clippy)"
export RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# Build settings for a one-shot build (measured on 2026-12-02, cold test build alone:
# 238 s wall / 449 CPU-s before, 178 / 335 with the first two). A clean clone compiles
# everything once, so incremental compilation's bookkeeping is pure cost: our crates' units took
# 101 CPU-s instead of 155. The C dependencies are built without debug info, and librdkafka at
# -O1: its configure reads only CFLAGS, which its makefile puts after its own `-g -O2` (make
# alone: 145 -> 84 CPU-s). The cc crate (zstd-sys, here and in the cross build) appends
# CFLAGS_<target> after CFLAGS, so zstd keeps the -O0 of the debug profile: at -O1 it took 27 s
# instead of 15, and 33 s in the cross build, on the way to librdkafka, which needs it.
# Our own crates and their Rust dependencies are built without debug info (the dev profile keeps
# line tables for developers): `cargo test --no-run` alone took 300 CPU-s instead of 347, and the
# doc tests no longer compile a second variant of 17 crates (36 CPU-s). Panics still
# name their file and line (that is not debug info); backtraces, valgrind and gdb name functions.
# All of it is exported for the whole run, like the clippy wrapper: any cargo call without it
# would rebuild. A developer's own `cargo test` afterwards rebuilds librdkafka once.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0
export CFLAGS="-O1 -g0"
export "CFLAGS_$(rustc -vV | sed -n 's/^host: //p' | tr '-' '_')=-O0" CFLAGS_aarch64_unknown_linux_gnu=-O0
# rdkafka-sys runs librdkafka's `make libs`, which also builds librdkafka++, the C++ wrapper,
# which nothing here links: its makefile loops over LIBSUBDIRS, and GNU make takes a variable
# given in GNUMAKEFLAGS as if on its command line (cargo replaces MAKEFLAGS with its jobserver).
# make alone: 64 CPU-s instead of 73 (host), in the host and the cross build. Given only to
# those two builds' cargo commands; no fingerprint reads it.
LIBRDKAFKA_C_ONLY="LIBSUBDIRS=src"
# Maven's own JVM (the setup's resolution, interop's and java's builds, the JVM example):
# short-lived, so C1 alone and the serial collector; `mvn -o package` of java/ took 13.6 CPU-s
# instead of 25.1. The test JVMs get the same from java/pom.xml's mm2.test.argLine.
export MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC${MAVEN_OPTS:+ $MAVEN_OPTS}"
BUILD_INFO="$(mktemp -d "${TMPDIR:-/tmp}/mm2-test-build.XXXXXX")"
build_all() {
    # --workspace: every crate (the layers are crates under crates/, and the Rust API at the top).
    # cargo test's own target selection: the unit tests, the integration tests, and the examples
    # built as the programs `cargo run --example` runs, which interop/run.sh and
    # tests/example_cli.rs run (the marker examples-built below). Then the bench
    # in test mode (criterion runs each benchmark once). That is what --all-targets built, but
    # for the examples: it built them as test harnesses, which hold no test (7 empty runs), and a
    # `cargo build` of three examples then built them again. That build also compiled a second
    # variant of 30 dependencies, which the doc tests below then reused; they now compile it
    # themselves (19 s), so the net saving is small (421 -> 412 CPU-s).
    GNUMAKEFLAGS="$LIBRDKAFKA_C_ONLY" cargo test --workspace --all-features --no-run \
        --message-format=json-render-diagnostics >"$BUILD_INFO/cargo-test.json" || return 1
    cargo test --workspace --all-features --no-run --benches --message-format=json-render-diagnostics \
        >>"$BUILD_INFO/cargo-test.json" || return 1
    local example
    for example in checkpoint mirror interop_churn; do
        [ -x "target/debug/examples/$example" ] || { echo "build_all: no target/debug/examples/$example" >&2; return 1; }
    done
    touch "$BUILD_INFO/examples-built"
    # ffi-tests/run.sh's builds of the cdylib and staticlib: with default features, as users get
    # them (run.sh checks it exports no mock cluster; kept aside, since the next build takes its
    # place), then with the mock clusters, which the C and Java tests use, and the native
    # libraries a static link needs. That one has every feature, so it is a re-link of what the
    # test build above compiled (with `internals`, which no C function uses), not a third build
    # of the Rust API crate.
    # README's own command for C users (there with --release, which changes no feature): the
    # default members only, so what it exports is what users get (ffi-tests/run.sh compares it
    # with include/mm2_checkpoint.symbols).
    cargo build || return 1
    mkdir -p "$BUILD_INFO/default"
    cp target/debug/libmm2_checkpoint.so "$BUILD_INFO/default/" || return 1
    cargo rustc -p mm2-checkpoint-capi --lib --all-features -- --print=native-static-libs \
        2>"$BUILD_INFO/rustc-notes.txt" || { cat "$BUILD_INFO/rustc-notes.txt" >&2; return 1; }
}
lane_build() {
    run_stage "cargo fmt --all --check" cargo fmt --all --check
    run_stage "build + clippy -D warnings: cargo test --workspace --no-run --all-features (tests, examples as programs), --benches, the cdylib and staticlib (default, and with the mock clusters)" build_all
    # --no-run leaves out doc tests, so examples in doc comments get their own run.
    # --all-features: docs/TYPE_GUARANTEES.md's compile-fail tests name `internals` items.
    run_stage "cargo test --workspace --doc --all-features" cargo test --workspace --doc --all-features
}
# What the build left, for the stages that would otherwise build it again: the build-info
# directory, one file per fact, read by the scripts and tests named here:
#   cargo-test.json               cargo's messages of the test build (scripts/run-test-binaries.sh)
#   examples-built                the examples are built as programs, in target/debug/examples
#                                 (interop/run.sh, tests/support/examples.rs)
#   rustc-notes.txt               the native libraries of a static link (ffi-tests/run.sh)
#   default/libmm2_checkpoint.so  the default-feature library (ffi-tests/run.sh, and below)
#   aarch64-built                 lane_aarch64's cross build is done (ffi-tests/run.sh's cross
#                                 mode, await_aarch64_library)
#   jvm-example-built             java/verify.sh's first run of examples/jvm/run.sh built the
#                                 program (examples/jvm/run.sh, at its second run)
export MM2_BUILD_INFO="$BUILD_INFO"
DEFAULT_LIB="$BUILD_INFO/default/libmm2_checkpoint.so"

# ---------------------------------------------------------------- lanes

lane_setup() {
    run_stage "setup: scripts/setup-test-env.sh (beside the build)" scripts/setup-test-env.sh
}
# In the main shell, once lane_setup has ended: its environment, and the shared brokers started
# in the background (much of a start is waiting), awaited by after_setup_and_build.
after_setup() {
    load_setup_env
    if [ $SHARING = 1 ]; then
        note "starting the shared brokers (plain source, plain target, secure) in the background"
        start_shared_brokers &
        SHARED_STARTER=$!
    fi
}
# In the main shell, once both lane_setup and lane_build have ended.
after_setup_and_build() {
    if [ $SHARING = 1 ]; then
        run_stage "shared brokers: awaiting the three started after setup" await_shared_brokers
        MM2_SHARED_BOOTSTRAP="$(sed -n 's/^bootstrap=//p' "$SHARED_DIR/source.start")"
        MM2_SHARED_TARGET_BOOTSTRAP="$(sed -n 's/^bootstrap=//p' "$SHARED_DIR/target.start")"
        MM2_SHARED_SECURE_START="$SHARED_DIR/secure.start"
        export MM2_SHARED_BOOTSTRAP MM2_SHARED_TARGET_BOOTSTRAP MM2_SHARED_SECURE_START
    fi
}

stage_test_binaries() {
    run_stage "test-binaries: scripts/run-test-binaries.sh (${MM2_TEST_JOBS:-4} at a time)" \
        env MM2_TEST_JOBS="${MM2_TEST_JOBS:-4}" scripts/run-test-binaries.sh
    check_no_leaked_brokers "test-binaries"
}

stage_ffi_tests() {
    if [ -f ffi-tests/run.sh ]; then
        run_stage "ffi-tests/run.sh" bash ffi-tests/run.sh
        check_no_leaked_brokers "ffi-tests/run.sh"
    else
        note "ffi-tests/run.sh: not present yet, skipped"
    fi
}

JAVA_CHECK_URL="https://example.invalid/mm2-checkpoint"
# Every ```java block of the documents, compiled against the jar (scripts/lib/doc-snippets.py).
java_doc_snippets() {
    local jar="$1" dir="$BUILD_INFO/java-snippets"
    rm -rf "$dir"
    mkdir -p "$dir/classes"
    python3 scripts/lib/doc-snippets.py --java "$dir/src" README.md docs/*.md examples/jvm/README.md || return 1
    mvn -B -q -o -f java/pom.xml dependency:build-classpath -Dmdep.includeScope=compile \
        -Dmdep.outputFile="$dir/classpath.txt" || return 1
    "$JAVA_HOME/bin/javac" --release 17 -Xlint:all -Werror -d "$dir/classes" \
        -cp "$jar:$(cat "$dir/classpath.txt")" "$dir"/src/*.java
}
stage_java() {
    if [ -f java/verify.sh ]; then
        # The libraries the build stage built (debug): default features for the jar, the one with
        # the mock clusters for its test kit (classifier testkit), which the suite loads.
        # The suite runs at once; only the jar with lane_aarch64's linux-aarch64 builds beside it
        # waits for that lane (a second, short `mvn verify` of the tests that read those files),
        # so the Java lane does not idle minutes for the cross build.
        # The project address Maven Central requires in the pom: a placeholder here, where
        # scripts/release-java.sh only checks the packing.
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

stage_compat() {
    # The C ABI and the Rust API against the last release's baseline (docs/VERSIONING.md).
    run_stage "compatibility gates: scripts/compat-check.sh (C ABI, Rust API against abi/)" \
        scripts/compat-check.sh --lib "$DEFAULT_LIB"
}

# What crates.io takes: the published crates' documentation builds without a warning, and each
# packs (`cargo package`: metadata, files; its verifying build is a release step,
# docs/VERSIONING.md, as it compiles every crate and librdkafka again).
crates_ready() {
    # (The Rust API crate's documentation is the compatibility gate's rustdoc run, -D warnings.)
    RUSTDOCFLAGS="-D warnings" cargo doc -q -p mm2-checkpoint-core -p mm2-checkpoint-kafka -p mm2-checkpoint-ffi \
        -p mm2-checkpoint-capi --no-deps \
        && cargo package -q --workspace --exclude mm2-checkpoint-test-support --no-verify --allow-dirty
}
stage_crates() {
    run_stage "crates: cargo doc -D warnings, cargo package --no-verify (the five published crates)" crates_ready
}

stage_interop() {
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

# linux-aarch64: the cross build of the library (scripts/cross-aarch64.sh, its own
# target dir, so no host cargo command waits on its lock) and the C smoke tests under
# qemu-aarch64-static (ffi-tests/run.sh's cross mode), in a lane of their own: the build is
# minutes of CPU on a clean clone, and the emulated tests are mostly waiting. The Java stage
# packages that library: await_aarch64_library waits for the marker this lane leaves after the
# build (in serial mode this lane runs before the Java stage's), which also spares the emulated
# tests a cargo call.
AARCH64_BUILT="$BUILD_INFO/aarch64-built"
lane_aarch64() {
    # Not linted: the host build was (and clippy-driver would add its time to a cold build).
    # librdkafka without optimisation here: its code only runs in the short emulated tests. The
    # cross build took 157 CPU-s instead of 181, the emulated C tests 24 instead of 23
    # (measured on 2026-12-02, idle machine).
    run_stage "cross-aarch64: scripts/cross-aarch64.sh (the jar's default-feature cdylib, then cdylib + staticlib with the mock clusters)" \
        env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS CFLAGS="-O0 -g0" GNUMAKEFLAGS="$LIBRDKAFKA_C_ONLY" \
        bash scripts/cross-aarch64.sh
    touch "$AARCH64_BUILT"
    run_stage "ffi-tests/run.sh on aarch64 under qemu (MM2_FFI_TARGET=aarch64-unknown-linux-gnu)" \
        env MM2_FFI_TARGET=aarch64-unknown-linux-gnu bash ffi-tests/run.sh
}
await_aarch64_library() {
    local waited=0
    # A failed cross build fails the run, which kills this lane: the bound only guards a hang.
    while ! [ -f "$AARCH64_BUILT" ]; do
        if [ $waited -ge 1800 ]; then
            echo "test.sh: no linux-aarch64 library after 30 minutes (lane_aarch64)" >&2
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
}

# Lanes, and when each starts:
# - lane_setup and lane_build (rustfmt, the build, doc tests) at once: most of the setup is
#   waiting on downloads;
# - when both have ended, the other five: the linux-aarch64 cross build then its C tests under
#   qemu; java (whose last step waits for the aarch64 library); the test binaries (4 at a time;
#   much of it waits on brokers and timers); ffi-tests (its valgrind runs are single-threaded
#   and long, so they start early rather than close the run); the compatibility gates then
#   interop. The cross build does not start beside the host build, even at a lower priority:
#   tried, it stretched the build, which gates every lane, by minutes. The lanes then run at
#   different niceness (LANE_NICE below), the cross build first.
lane_java() {
    stage_java
}
lane_test_binaries() {
    stage_test_binaries
}
lane_ffi() {
    stage_ffi_tests
}
lane_compat_then_interop() {
    stage_compat
    stage_crates
    stage_interop
}
# lane_aarch64 first: the Java lane waits for its library (in serial mode too).
LATE_LANES=(lane_aarch64 lane_java lane_test_binaries lane_ffi lane_compat_then_interop)
# Niceness of the late lanes: the cross build and the Java stage go first when both cores are
# busy (the emulated tests and the Java stage's last step wait for the cross build, and the two
# end last); then ffi-tests (valgrind, one thread at a time), which ends next; the test binaries
# and interop, mostly waiting on brokers and timers, yield to all. Mildly: their timing bounds
# (stop latency, recovery after a fault) must hold beside the others.
declare -A LANE_NICE=([lane_ffi]=2 [lane_test_binaries]=5 [lane_compat_then_interop]=5)

if [ "${MM2_TEST_SERIAL:-0}" = 1 ]; then
    # One after another; lane_aarch64 before lane_java, which waits for its library.
    lane_setup
    after_setup
    lane_build
    after_setup_and_build
    for lane in "${LATE_LANES[@]}"; do "$lane"; done
else
    # Job control: each lane in a process group of its own, so a failure kills a whole lane.
    set -m
    LANE_LOGS="$(mktemp -d "${TMPDIR:-/tmp}/mm2-test-lanes.XXXXXX")"
    declare -A LANE_OF=()
    start_lane() {
        if [ -n "${LANE_NICE[$1]:-}" ]; then
            (renice -n "${LANE_NICE[$1]}" -p "$BASHPID" >/dev/null && "$1") >"$LANE_LOGS/$1.log" 2>&1 &
        else
            ("$1") >"$LANE_LOGS/$1.log" 2>&1 &
        fi
        LANE_OF[$!]="$1"
        note "lane started: $1"
    }
    start_lane lane_setup
    start_lane lane_build
    setup_done=0
    build_done=0
    while [ "${#LANE_OF[@]}" -gt 0 ]; do
        rc=0
        wait -n -p done_pid "${!LANE_OF[@]}" || rc=$?
        lane="${LANE_OF[$done_pid]}"
        unset "LANE_OF[$done_pid]"
        echo "---- $lane (exit $rc, at $((SECONDS - STARTED)) s)"
        cat "$LANE_LOGS/$lane.log"
        if [ $rc != 0 ]; then
            for p in "${!LANE_OF[@]}"; do kill -- -"$p" 2>/dev/null || true; done
            wait 2>/dev/null || true
            failed="$(awk -F'\t' '$2 == "FAILED" { print $3; exit }' "$STAGES")"
            fail "${failed:-$lane}"
        fi
        case "$lane" in
            lane_setup)
                setup_done=1
                after_setup
                ;;
            lane_build) build_done=1 ;;
        esac
        if [ "$lane" = lane_setup ] || [ "$lane" = lane_build ]; then
            if [ $setup_done = 1 ] && [ $build_done = 1 ]; then
                after_setup_and_build
                for late in "${LATE_LANES[@]}"; do start_lane "$late"; done
            fi
        fi
    done
    set +m
    rm -rf "$LANE_LOGS"
fi
rm -rf "$BUILD_INFO"

stop_shared_brokers
print_stage_table
rm -f "$STAGES" "$STAGES".times.* "$STAGES".broker-*
note "all stages passed"
