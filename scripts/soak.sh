#!/usr/bin/env bash
# The long soaks that scripts/test.sh runs with CI-sized counts. Run it before a
# release and keep its figures in BENCHMARKS.md ("Soak"). From any directory:
#   scripts/soak.sh [STEP...]      every step by default, in this order:
#
#   store-reference  the offset-sync store's run-length shortcut against its reference model
#                  over 420 streams, 2.1 million syncs (CI: 35 streams, every shape from every
#                  start once; crates/core/src/offset_sync_store.rs)
#   rust-churn     tests/runtime_kafka.rs start_stop_cycles_with_random_delays_never_share_a_client
#                  with the seed's 1,200 start->stop cycles (CI: 120)
#   elastic        tests/elastic_kafka.rs with 50 kill -9 / graceful-stop rounds (CI: 6)
#   c-churn        ffi-tests/run.sh with 200 test_threads lifecycles, 64 under valgrind and 200
#                  under AddressSanitizer (CI: 20, none, 20), the library itself instrumented too
#                  (nightly -Zsanitizer=address build into target/asan; CI links the C tests with
#                  ASan against the one debug build), and the release build's valgrind run of
#                  examples/checkpoint.c (CI has no release build)
#   interop-churn  interop/run.sh churn 200 200000 on the release examples, beside Java MM2's
#                  task (not in CI: the C, Rust and Java churns there check the same lifecycle)
#   cycle          interop/run.sh cycle 100,1000,10000: the 10,000-group checkpoint cycle of
#                  Java MM2 and ours (BENCHMARKS.md "Checkpoint cycle"; not in CI)
#   java-churn     java/verify.sh with -Dmm2.test.cycles=1000 (StopTest's lifecycles; CI: the
#                  pom's default)
#   fuzz           fuzz/run.sh 600 (not in CI: the decoders' property tests run there)
#   network-faults tests/network_faults_kafka.rs, every scenario (CI: the 12 marked `Always`)
#                  healing after 60 s (CI: 5 s), the partitions (blackholes) after 5 min, and
#                  tests/leader_election_kafka.rs five times
#
# Each step starts the brokers it needs (no MM2_SHARED_*: a soak's brokers are its own). Prints
# a table of step times and results at the end; exit 1 when any step failed (all still run).
# Knobs: each count above is the variable of the test it sizes (docs/DEVELOPMENT.md, "Soak
# tests"): MM2_SOAK_STORE_STREAMS, MM2_KAFKA_CHURN_CYCLES, MM2_ELASTIC_ROUNDS, MM2_FFI_CYCLES,
# MM2_SOAK_INTEROP_CYCLES, MM2_SOAK_JAVA_CYCLES, MM2_FAULT_HEAL_SECS and MM2_FAULT_SCENARIOS (of
# the first network-faults pass), MM2_FUZZ_SECONDS.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ALL=(store-reference rust-churn elastic c-churn interop-churn cycle java-churn fuzz network-faults)
steps=("$@")
[ "${#steps[@]}" -gt 0 ] || steps=("${ALL[@]}")

scripts/setup-test-env.sh --with-fuzz || { echo "soak.sh: scripts/setup-test-env.sh failed" >&2; exit 1; }
# shellcheck source=/dev/null
source "$ROOT/.tools/env.sh"
export MM2_KAFKA_LIBS MM2_KAFKA_JAVA MM2_JAVA17 MM2_JAVA22 MM2_JAVAC22 JAVA_HOME
unset MM2_SHARED_BOOTSTRAP MM2_SHARED_TARGET_BOOTSTRAP MM2_SHARED_SECURE_START

step_store_reference() {
    MM2_SOAK_STORE_STREAMS="${MM2_SOAK_STORE_STREAMS:-420}" cargo test --all-features --lib \
        run_length_shortcut_equals_the_reference -- --nocapture
}
step_rust_churn() {
    MM2_KAFKA_CHURN_CYCLES="${MM2_KAFKA_CHURN_CYCLES:-1200}" cargo test --all-features --test runtime_kafka \
        start_stop_cycles_with_random_delays_never_share_a_client -- --nocapture
}
step_elastic() {
    MM2_ELASTIC_ROUNDS="${MM2_ELASTIC_ROUNDS:-50}" cargo test --all-features --test elastic_kafka -- --nocapture
}
step_c_churn() {
    local cycles="${MM2_FFI_CYCLES:-200}"
    # A release library beside the debug one: ffi-tests/run.sh then also runs the example on it
    # under valgrind (the suppressions must match an optimised build).
    # (With the mock clusters, as the C tests and the example need.)
    cargo build --release -p mm2-checkpoint-capi --lib --features embedded || return 1
    MM2_FFI_CYCLES="$cycles" MM2_FFI_VALGRIND_CYCLES=$((cycles / 3)) MM2_FFI_ASAN_CYCLES="$cycles" \
        MM2_FFI_ASAN_BUILD=nightly bash ffi-tests/run.sh
}
step_interop_churn() {
    bash interop/run.sh churn "${MM2_SOAK_INTEROP_CYCLES:-200}" 200000
}
step_cycle() {
    bash interop/run.sh cycle 100,1000,10000
}
step_java_churn() {
    bash java/verify.sh -Dmm2.test.cycles="${MM2_SOAK_JAVA_CYCLES:-1000}"
}
step_network_faults() {
    local secs rc=0
    # Every scenario healing after a minute; the partitions (blackholes) after 5 minutes.
    MM2_FAULT_HEAL_SECS="${MM2_FAULT_HEAL_SECS:-60}" MM2_FAULT_SCENARIOS="${MM2_FAULT_SCENARIOS:-all}" \
        cargo test --all-features --test network_faults_kafka -- --nocapture || rc=1
    MM2_FAULT_HEAL_SECS=300 MM2_FAULT_SCENARIOS='blackhole-*' \
        cargo test --all-features --test network_faults_kafka -- --nocapture || rc=1
    for _ in 1 2 3 4 5; do
        cargo test --all-features --test leader_election_kafka -- --nocapture || rc=1
    done
    return $rc
}
step_fuzz() {
    bash fuzz/run.sh "${MM2_FUZZ_SECONDS:-600}"
}

names=() secs=() results=() failed=0
for step in "${steps[@]}"; do
    fn="step_${step//-/_}"
    if ! declare -F "$fn" >/dev/null; then
        echo "soak.sh: unknown step '$step' (steps: ${ALL[*]})" >&2
        exit 2
    fi
    echo "==> soak: $step ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
    began=$SECONDS
    if "$fn"; then result=ok; else result=FAILED; failed=1; fi
    names+=("$step")
    secs+=($((SECONDS - began)))
    results+=("$result")
done

echo "---- soak steps ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
for i in "${!names[@]}"; do
    printf '%6s s  %-14s %s\n' "${secs[$i]}" "${names[$i]}" "${results[$i]}"
done
exit $failed
