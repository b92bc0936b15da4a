#!/usr/bin/env bash
# The project's one test command (README and CI run exactly this).
#
# Installs what the tests need (scripts/setup-test-env.sh), then: rustfmt check, clippy with
# warnings as errors, doc tests, every cargo test target (integration tests start their own
# Kafka brokers through scripts/kafka-broker.sh), and the later stages whose folders exist:
# ffi-tests/, java/ (java/verify.sh), fuzz/. Stops at the first failing stage with its name and a non-zero exit.
#
# Knobs: MM2_FUZZ_SECONDS (per fuzz target, default 30).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ "${CI:-}" = true ]; then
    export CARGO_TERM_COLOR=never
fi

STARTED=$SECONDS
stage() { echo "==> [$((SECONDS - STARTED))s] $*"; }
fail() {
    echo "test.sh: FAILED at stage: $*" >&2
    exit 1
}

stage "setup: scripts/setup-test-env.sh"
scripts/setup-test-env.sh || fail "setup (scripts/setup-test-env.sh)"
# shellcheck source=/dev/null
source "$ROOT/.tools/env.sh"
export MM2_KAFKA_VERSION MM2_KAFKA_LIBS MM2_KAFKA_JAVA MM2_JAVAC MM2_JAVA17 MM2_JAVA22 MM2_JAVAC22 JAVA_HOME

# Kafka brokers that scripts/kafka-broker.sh started from this tree (their JVMs carry
# -Dmm2.broker.root=<this tree>) and that are still running: a test that leaked its broker.
leaked_brokers() {
    local cmdline pid
    for cmdline in /proc/[0-9]*/cmdline; do
        pid="${cmdline#/proc/}"
        pid="${pid%/cmdline}"
        if tr '\0' '\n' <"$cmdline" 2>/dev/null | grep -qxF -- "-Dmm2.broker.root=$ROOT"; then
            echo "$pid"
        fi
    done
    return 0
}
check_no_leaked_brokers() {
    local leaked waited=0
    # A test binary's exit closes its lifeline pipes; the watchdogs then kill the brokers,
    # which takes a moment.
    while leaked="$(leaked_brokers | tr '\n' ' ')" && [ -n "$leaked" ] && [ $waited -lt 100 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    if [ -n "$leaked" ]; then
        echo "test.sh: Kafka brokers left running after $1: pids $leaked" >&2
        fail "$1 leaked Kafka brokers"
    fi
}
# Brokers from an earlier, interrupted run would be blamed on this one.
preexisting="$(leaked_brokers | tr '\n' ' ')"
if [ -n "$preexisting" ]; then
    echo "test.sh: note: Kafka brokers of this tree already running before the tests (pids $preexisting); leak checks are off" >&2
fi

stage "cargo fmt --check"
cargo fmt --check || fail "cargo fmt --check (run 'cargo fmt' to fix)"

stage "cargo clippy --all-targets --all-features -- -D warnings"
cargo clippy --all-targets --all-features -- -D warnings || fail "cargo clippy"

# --all-targets leaves out doc tests, so examples in doc comments get their own run (first,
# so that the last cargo summary printed is the main suite's).
# --all-features: docs/TYPE_GUARANTEES.md's compile-fail tests name `internals` items.
stage "cargo test --doc --all-features"
cargo test --doc --all-features || fail "cargo test --doc"

stage "cargo test --all-targets --all-features"
cargo test --all-targets --all-features || fail "cargo test --all-targets"
[ -n "$preexisting" ] || check_no_leaked_brokers "cargo test"

# Java MM2 beside ours on real brokers (issue 13): the differential must agree byte for byte;
# the churn asserts ours (0 errors, 0 leaks) and only reports Java's figures.
if [ -f interop/run.sh ]; then
    stage "interop/run.sh differential"
    bash interop/run.sh differential || fail "interop/run.sh differential"
    stage "interop/run.sh churn 30 200000"
    bash interop/run.sh churn 30 200000 || fail "interop/run.sh churn"
    [ -n "$preexisting" ] || check_no_leaked_brokers "interop/run.sh"
else
    stage "interop/run.sh: not present, skipped"
fi

if [ -f ffi-tests/run.sh ]; then
    stage "ffi-tests/run.sh"
    bash ffi-tests/run.sh || fail "ffi-tests/run.sh"
    [ -n "$preexisting" ] || check_no_leaked_brokers "ffi-tests/run.sh"
else
    stage "ffi-tests/run.sh: not present yet, skipped"
fi

if [ -f java/verify.sh ]; then
    stage "java/verify.sh (Maven: JUnit on Java 17/JNI and 22+/Panama, Connect tests, example)"
    bash java/verify.sh || fail "java/verify.sh"
    [ -n "$preexisting" ] || check_no_leaked_brokers "java/verify.sh"
else
    stage "java/verify.sh: not present yet, skipped"
fi

if [ -d fuzz ]; then
    if [ "${MM2_NIGHTLY:-0}" = 1 ] && cargo +nightly fuzz --version >/dev/null 2>&1; then
        seconds="${MM2_FUZZ_SECONDS:-30}"
        targets="$(cargo +nightly fuzz list)" || fail "cargo +nightly fuzz list"
        for target in $targets; do
            stage "cargo +nightly fuzz build $target"
            cargo +nightly fuzz build "$target" || fail "fuzz build of $target (a build error, not a crash)"
            stage "cargo +nightly fuzz run $target (${seconds}s)"
            cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" \
                || fail "fuzz target $target (crash input under fuzz/artifacts/$target/)"
        done
    else
        stage "fuzz: nightly Rust or cargo-fuzz unavailable; fuzzing skipped, the proptests cover these inputs"
    fi
else
    stage "fuzz/: not present yet, skipped"
fi

stage "all stages passed"
