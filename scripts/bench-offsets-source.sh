#!/usr/bin/env bash
# The offsets-source benchmarks, in one run: the offsets sources (`group.offsets.source = poll` and
# `consumer-offsets-topic`) against Java MM2's real MirrorCheckpointConnector/Task (the
# connect-mirror jars of .tools, interop/src/main/java/mm2interop/OffsetsSourceBench.java).
#
#   scripts/bench-offsets-source.sh [SIZES] [WINDOW]
#
# 1. Commit → checkpoint latency, p50/p99: ours with examples/bench `--only latency` (stream at
#    60 s, poll at 1 s and at 60 s), Java MM2 at its default emit.checkpoints.interval.seconds
#    (60) and at 1 s, each 60 commits spread over max(interval, 20 s), on one broker.
# 2. The cost of keeping G groups checkpointed (G in SIZES, default 10000,100000; one partition
#    per group, all committed before the checkpointers start, no commits while measuring):
#    for poll, stream (each ours: examples/checkpoint --config, a process of its own) and Java
#    (its own JVM), one after another, each at the default intervals: once it has written a
#    checkpoint for every group (and, for the stream, read `__consumer_offsets` to its end),
#    WINDOW seconds (default 120, two emission intervals) of
#    - CPU seconds of the checkpointing process (utime + stime from /proc/PID/stat, every
#      thread), per minute;
#    - requests to the source broker, per minute: the sum over request types of the broker's
#      kafka.network RequestMetrics RequestsPerSec Count (JMX; a Fetch once, not again as
#      FetchConsumer), the source broker's idle rate
#      over a window of the same length (measured first, nothing connected) subtracted. The
#      target is another broker, so writes of checkpoints are not counted.
# Prints one line per measurement; BENCHMARKS.md "Offsets source" has the tables.
#
# Knobs: MM2_BENCH_PROFILE (cargo profile of our binaries, default release; they are built
# first), MM2_BENCH_COST_PROFILE (the profile of part 2's examples/checkpoint, default the
# same; built when part 2 starts), MM2_BENCH_JAVA_HEAP (the checkpointing JVM's -Xmx, default 2g),
# MM2_BENCH_READY_SECONDS (longest wait for a checkpointer's first full cycle, default 1200),
# MM2_BENCH_PARTS (default latency,cost: which of the two to run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=/dev/null
[ -f .tools/env.sh ] && source .tools/env.sh

SIZES="${1:-10000,100000}"
WINDOW="${2:-120}"
PROFILE="${MM2_BENCH_PROFILE:-release}"
READY="${MM2_BENCH_READY_SECONDS:-1200}"
JAVA="${MM2_KAFKA_JAVA:-java}"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
LIBS="${MM2_KAFKA_LIBS:?source .tools/env.sh (scripts/setup-test-env.sh)}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mm2-bench-offsets-source.XXXXXX")"
HANDLES=()
CHILD=""
cleanup() {
    [ -n "$CHILD" ] && kill "$CHILD" 2>/dev/null
    for h in "${HANDLES[@]}"; do scripts/kafka-broker.sh stop "$h" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
log() { echo "bench-offsets-source: $(date -u +%T) $*" >&2; }
result() { echo "$*" | tee -a "$WORK/results.txt"; }

# examples_of PROFILE: builds the two examples in PROFILE (unless debug, which scripts/test.sh
# and `cargo test` build) and prints their directory.
examples_of() {
    if [ "$1" = release ]; then
        cargo build --release --all-features --example checkpoint --example bench >&2
    fi
    echo "target/$1/examples"
}
BIN="$(examples_of "$PROFILE")"
"$JAVAC" -nowarn -d "$WORK/classes" -cp "$LIBS/*" $(find interop/src/main/java -name '*.java') 2>&1 \
    | grep -v '^Note:' >&2 || true
CP="$WORK/classes:$ROOT/interop/src/main/resources:$LIBS/*"
harness() { "$JAVA" -Xmx512m -cp "$CP" mm2interop.OffsetsSourceBench "$@"; }

# start_broker VAR [JMX_PORT]: starts a broker watched by this shell; sets VAR to its bootstrap.
start_broker() {
    local out
    out="$(scripts/kafka-broker.sh start --owner-pid $$ --heap 1g ${2:+--jmx-port "$2"})"
    HANDLES+=("$(sed -n 's/^handle=//p' <<<"$out")")
    printf -v "$1" '%s' "$(sed -n 's/^bootstrap=//p' <<<"$out")"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_seconds() { awk -v t="$(getconf CLK_TCK)" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
requests() { harness requests "$JMX" | sed -n 's/^total=\([0-9]*\).*/\1/p'; }

PARTS=",${MM2_BENCH_PARTS:-latency,cost},"
# ------------------------------------------------------------------ 1. latency
if [[ $PARTS == *,latency,* ]]; then
log "latency: ours (examples/bench --only latency)"
"$BIN/bench" --only latency | tee "$WORK/ours-latency.txt" >&2
grep "commit → checkpoint" "$WORK/ours-latency.txt" | sed 's/^/ours: /' | tee -a "$WORK/results.txt"
start_broker LAT
for interval in 60 1; do
    log "latency: Java MM2, emit.checkpoints.interval.seconds=$interval"
    result "$(harness latency "$LAT" "jl$interval" "$interval" 60 | grep '^latency')"
done
scripts/kafka-broker.sh stop "${HANDLES[-1]}" >/dev/null
unset 'HANDLES[-1]'
fi
[[ $PARTS == *,cost,* ]] || exit 0

# ------------------------------------------------------------------ 2. cost
BIN="$(examples_of "${MM2_BENCH_COST_PROFILE:-$PROFILE}")"
JMX="$(free_port)"
start_broker SRC "$JMX"
start_broker TGT
log "source $SRC (JMX $JMX), target $TGT"
sleep 10
r0="$(requests)"
sleep "$WINDOW"
r1="$(requests)"
IDLE=$(( (r1 - r0) * 60 / WINDOW ))
result "idle source broker: $IDLE requests/min"

# measure LABEL GROUPS READY_REGEX CMD...: starts CMD (a checkpointer), waits until its output
# says it checkpointed every group, then samples its CPU and the broker's requests over WINDOW.
measure() {
    local label="$1" groups="$2" ready="$3" out="$WORK/$1-$2.log" began
    shift 3
    "$@" >"$out" 2>&1 &
    CHILD=$!
    began=$SECONDS
    until python3 - "$out" "$groups" "$ready" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
counts = [int(n) for n in re.findall(r"(?:emitted |\()(\d+)(?: \(cpu| since this process)", text)]
extra = sys.argv[3]
sys.exit(0 if counts and max(counts) >= int(sys.argv[2]) and (not extra or re.search(extra, text)) else 1)
PY
    do
        kill -0 "$CHILD" 2>/dev/null || { tail -20 "$out" >&2; echo "$label died" >&2; exit 1; }
        [ $((SECONDS - began)) -lt "$READY" ] || { tail -20 "$out" >&2; echo "$label: not ready in $READY s" >&2; exit 1; }
        sleep 2
    done
    local ready_after=$((SECONDS - began))
    sleep 5
    local c0 q0 c1 q1
    c0="$(cpu_seconds "$CHILD")"; q0="$(requests)"
    sleep "$WINDOW"
    c1="$(cpu_seconds "$CHILD")"; q1="$(requests)"
    kill "$CHILD"; wait "$CHILD" 2>/dev/null || true; CHILD=""
    result "$(python3 -c '
import sys
label, groups, ready, c0, c1, q0, q1, window, idle = sys.argv[1:]
w = float(window) / 60
print(f"cost {label} groups={groups} ready_after={ready}s cpu_s_per_min={(float(c1) - float(c0)) / w:.2f} "
      f"source_requests_per_min={(int(q1) - int(q0)) / w - int(idle):.0f} (raw {(int(q1) - int(q0)) / w:.0f})")
' "$label" "$groups" "$ready_after" "$c0" "$c1" "$q0" "$q1" "$WINDOW" "$IDLE")"
}

ours_config() { # SOURCE_ALIAS OFFSETS_SOURCE
    cat >"$WORK/$1.properties" <<EOF
source.cluster.alias = $1
target.cluster.alias = B
source.cluster.bootstrap.servers = $SRC
target.cluster.bootstrap.servers = $TGT
groups = bench-.*
topics = orders
group.offsets.source = $2
checkpoints.topic.replication.factor = 1
offset-syncs.topic.replication.factor = 1
EOF
    echo "$WORK/$1.properties"
}

done_groups=0
IFS=, read -r -a sizes <<<"$SIZES"
for g in "${sizes[@]}"; do
    log "populate: groups $done_groups..$g"
    harness populate "$SRC" "$done_groups" "$g" >&2
    done_groups=$g
    log "cost at $g groups: poll"
    measure poll "$g" "" env RUST_LOG=warn "$BIN/checkpoint" --config "$(ours_config "p$g" poll)"
    log "cost at $g groups: stream"
    measure stream "$g" 'read `__consumer_offsets` to its end' \
        env RUST_LOG="warn,mm2_checkpoint::runtime::group_offsets_stream=info" \
        "$BIN/checkpoint" --config "$(ours_config "s$g" consumer-offsets-topic)"
    log "cost at $g groups: Java MM2"
    measure java "$g" "" "$JAVA" "-Xmx${MM2_BENCH_JAVA_HEAP:-2g}" -cp "$CP" mm2interop.OffsetsSourceBench \
        hold "$SRC" "$TGT" "j$g" "$g"
done
log "results (also in $WORK/results.txt):"
cat "$WORK/results.txt"
