#!/usr/bin/env bash
# What `cargo test --all-features` (and with --benches) does, with the test binaries run several
# at a time: scripts/test.sh runs this. From any directory:
#   scripts/run-test-binaries.sh [-j JOBS] [-- ARGS...]
#
# 1. `cargo test --workspace --all-features --no-run --message-format=json` (and the same with
#    --benches) builds every unit `cargo test` would run (lib tests, integration tests, the bench
#    in test mode; the examples as programs, which hold no test) and names each executable
#    (with MM2_BUILD_INFO=DIR, scripts/test.sh's build-info directory, the messages of that
#    build are read from DIR/cargo-test.json instead);
# 2. runs each one as cargo does: from the package root, with each binary's own harness and the
#    ARGS given after `--` (libtest filters, --nocapture, ...), JOBS at a time (default:
#    MM2_TEST_JOBS, else 2), the slowest known ones first;
# 3. prints each binary's whole output when it ends (never interleaved), its exit code and
#    seconds, then one line per binary sorted by time and a closing
#    `N passed, N failed` line (binaries), with libtest's own totals summed.
# Exit 1 when any binary fails (all are still run, as `cargo test --no-fail-fast` would).
#
# Binaries that share brokers do so through MM2_SHARED_* (tests/support/broker.rs), with
# unique names per test; the parallelism is across binaries, the tests in one binary keep
# libtest's own threads.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

jobs="${MM2_TEST_JOBS:-2}"
while [ $# -gt 0 ]; do
    case "$1" in
        -j) jobs="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [-j JOBS] [-- ARGS...]" >&2; exit 2 ;;
    esac
done

# shellcheck source=scripts/lib/cpu-seconds.sh
source "$ROOT/scripts/lib/cpu-seconds.sh"
OUT="$ROOT/target/test-binaries"
rm -rf "$OUT"
mkdir -p "$OUT"

# Binaries that take longest go first, so that the last to start is a short one. Names are
# cargo target names; unknown ones follow in cargo's order.
# (Measured in a full CI run beside the other lanes, 2 at a time: kafka_broker 94 s,
# example_cli 140 (46 since), the library's unit tests 117 (CPU-bound property tests),
# security_kafka 61, elastic_kafka 52; runtime_faults took 181 s and is now four binaries of
# 45-80 s each, alone: the kill/restart tests, the offset-syncs faults, the group-discovery
# faults and the group-offset-sync faults; offsets_source_differential_kafka, the two offsets
# sources over 1,000 groups, about 120 s alone and 175-240 s beside three more Kafka binaries
# at a load average of 20.)
SLOW_FIRST=(network_faults_kafka offsets_source_differential_kafka kafka_broker leader_election_kafka mm2_checkpoint mm2_checkpoint_kafka
    runtime_group_faults
    runtime_faults_offset_syncs runtime_faults example_cli security_kafka elastic_kafka
    runtime_group_offset_sync_faults acl_kafka offset_sync_store group_discovery_kafka
    mirror_failover runtime_kafka runtime_wake elastic_handover_kafka runtime_bad_bootstrap
    librdkafka_stderr)

# Reads cargo's JSON messages; writes KIND-NAME<TAB>EXECUTABLE per unit, slowest first.
PICK_UNITS=$(cat <<'PY'
import json, sys
out, slow = sys.argv[1], sys.argv[2:]
units = []
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    msg = json.loads(line)
    if msg.get("reason") == "build-finished" and not msg.get("success"):
        sys.exit(1)
    if msg.get("reason") != "compiler-artifact" or not msg.get("profile", {}).get("test"):
        continue
    if not msg.get("executable"):
        continue
    if any(exe == msg["executable"] for _, _, exe in units):
        continue  # `--benches` selects the libraries' unit tests again (bench = true)
    target = msg["target"]
    kind = target["kind"][0]
    units.append((kind, target["name"], msg["executable"]))
rank = {name: i for i, name in enumerate(slow)}
units.sort(key=lambda u: rank.get(u[1], len(slow)))
with open(out, "w") as f:
    for kind, name, exe in units:
        f.write(f"{kind}-{name}\t{exe}\n")
PY
)
if [ -n "${MM2_BUILD_INFO:-}" ] && [ -f "$MM2_BUILD_INFO/cargo-test.json" ]; then
    # scripts/test.sh built them already and kept cargo's messages (no cargo call here).
    cp "$MM2_BUILD_INFO/cargo-test.json" "$OUT/cargo.json"
else
    # As scripts/test.sh builds them: cargo test's own selection (examples built as programs,
    # holding no test), then the bench in test mode.
    { cargo test --workspace --all-features --no-run --message-format=json-render-diagnostics &&
        cargo test --workspace --all-features --no-run --benches --message-format=json-render-diagnostics; } \
        >"$OUT/cargo.json" || { echo "run-test-binaries.sh: cargo test --no-run failed" >&2; exit 1; }
fi
python3 -c "$PICK_UNITS" "$OUT/units.tsv" "${SLOW_FIRST[@]}" <"$OUT/cargo.json"

count="$(wc -l <"$OUT/units.tsv")"
echo "run-test-binaries.sh: $count test binaries, $jobs at a time"

# run_one NAME EXE ARGS...: runs one binary, its output to NAME.log, then prints it whole.
run_one() {
    local name="$1" exe="$2" began rc=0
    shift 2
    began=$SECONDS
    touch "$OUT/$name.started"
    # Core dumps on, so that a native crash leaves its threads' stacks for crash_report (a crash
    # that does not come again on demand otherwise leaves nothing but its signal).
    (ulimit -c unlimited 2>/dev/null || true; exec "$exe" "$@") >"$OUT/$name.log" 2>&1 </dev/null || rc=$?
    # The binary's CPU seconds (user + system): bash's `times`, run in this subshell itself (in
    # a pipeline it would count nothing), whose only finished child the binary is (brokers it
    # started are nobody's children: never counted here).
    local cpu
    times >"$OUT/$name.times"
    cpu="$(cpu_seconds_of_times "$OUT/$name.times")"
    echo "$rc $((SECONDS - began)) $cpu" >"$OUT/$name.rc"
    if [ "$rc" -gt 128 ]; then
        crash_report "$name" "$exe" "$rc" >>"$OUT/$name.log" 2>&1
    fi
    {
        echo "---- $name ($exe): exit $rc, $((SECONDS - began)) s"
        cat "$OUT/$name.log"
    } | flock "$OUT/print.lock" cat
}

# crash_report NAME EXE RC: for a binary killed by a signal, every thread's backtrace from the
# core dump the kernel wrote into the package root (core_pattern `core` or `core.PID`; with a
# piped core_pattern, such as systemd-coredump's, it says where to look instead). The core is
# moved to target/test-binaries/NAME.core for a later look.
crash_report() {
    local name="$1" exe="$2" rc="$3" core
    echo "---- $name: killed by signal $((rc - 128)); core_pattern: $(cat /proc/sys/kernel/core_pattern 2>/dev/null)"
    core="$(find "$ROOT" -maxdepth 1 -name 'core*' -type f -newer "$OUT/$name.started" 2>/dev/null | head -1)"
    if [ -z "$core" ]; then
        echo "no core dump in $ROOT (ulimit -c: $(ulimit -c))"
        return
    fi
    mv "$core" "$OUT/$name.core"
    if command -v gdb >/dev/null; then
        timeout 300 gdb -batch -nx -ex 'info threads' -ex 'thread apply all bt 40' "$exe" "$OUT/$name.core" 2>&1 \
            | grep -v '^\[New LWP\|^warning: ' || true
    else
        echo "gdb not found: the core is $OUT/$name.core"
    fi
}

running=0
while IFS=$'\t' read -r name exe; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_one "$name" "$exe" "$@" &
    running=$((running + 1))
done <"$OUT/units.tsv"
wait || true

passed=0 failed=0 tests_passed=0 tests_failed=0 failures=()
echo "---- test binaries by time (wall s, CPU s)"
while IFS=$'\t' read -r name _; do
    read -r rc secs cpu <"$OUT/$name.rc" 2>/dev/null || { rc=missing; secs=0; cpu=0; }
    printf '%6s %6s  %-40s %s\n' "$secs" "${cpu:-?}" "$name" "$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")"
    if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$name"); fi
    # libtest's summary lines: "test result: ok. 12 passed; 0 failed; ..."
    while read -r p f; do
        tests_passed=$((tests_passed + p))
        tests_failed=$((tests_failed + f))
    done < <(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed;.*/\1 \2/p' "$OUT/$name.log")
done < <(while IFS=$'\t' read -r name exe; do
    read -r _ secs <"$OUT/$name.rc" 2>/dev/null || secs=0
    printf '%s\t%s\n' "$name" "$secs"
done <"$OUT/units.tsv" | sort -t$'\t' -k2,2nr)
echo "test binaries: $passed passed, $failed failed (tests: $tests_passed passed, $tests_failed failed)"
if [ "$failed" -gt 0 ]; then
    echo "failed binaries: ${failures[*]} (logs: $OUT/<name>.log)" >&2
    exit 1
fi
