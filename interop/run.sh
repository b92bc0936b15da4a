#!/usr/bin/env bash
# Java MM2 against mm2-checkpoint on real Kafka (issue 13). Test and benchmark code only.
#
#   interop/run.sh differential   three clusters A, B, C; Java MM2's MirrorSourceTask mirrors A->B;
#                                 Java's checkpointing writes to B, ours (examples/checkpoint
#                                 --config) to C; both must agree byte for byte. Then the reverse:
#                                 our OffsetSyncWriter (examples/mirror) writes the syncs, both
#                                 checkpointers read them. Exit 1 on any difference.
#   interop/run.sh churn [N] [SYNCS]
#                                 start->stop churn (stop 0-50 ms after start) of Java's
#                                 MirrorCheckpointTask and of ours over an offset-syncs topic of
#                                 SYNCS records (default 200000), N cycles each (default 200);
#                                 prints the table of COMPARISON.md; asserts ours (0 errors,
#                                 0 leaks), reports Java's.
#   interop/run.sh cycle [SIZES] [RUNS] [STEADY]
#                                 the checkpoint cycle of Java's MirrorCheckpointTask.poll and of
#                                 ours over G groups x 10 partitions (SIZES, default
#                                 100,1000,10000), RUNS fresh tasks per size (default 5), each a
#                                 first cycle then STEADY cycles (default 3); A is the source, B the
#                                 target; prints the table of BENCHMARKS.md ("Checkpoint cycle").
#
# Brokers: scripts/kafka-broker.sh, with the Kafka jars of interop/pom.xml (the same version as
# the Java MM2 classes; see the note there), each watched by a watchdog tied to this shell.
# Knobs: MM2_INTEROP_HEAP (harness JVM heap, default 384m).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mode="${1:-differential}"

if [ -f .tools/env.sh ]; then
    # shellcheck source=/dev/null
    source .tools/env.sh
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

log() { echo "interop: $*" >&2; }

log "mvn package (interop/pom.xml: Java MM2 classes and broker jars)"
mvn -B -q -f interop/pom.xml package -DskipTests >&2
LIBS="$ROOT/interop/target/libs"
CP="$ROOT/interop/target/mm2-interop-0.jar:$LIBS/*"

if [ "$mode" = cycle ]; then
    log "cargo build --release --features internals --example interop_cycle"
    cargo build --release --features internals --example interop_cycle >&2
else
    log "cargo build --release --examples checkpoint, mirror, interop_churn"
    cargo build --release --example checkpoint --example mirror --example interop_churn >&2
fi
BIN="$ROOT/target/release/examples"

HANDLES=()
cleanup() {
    local h
    for h in "${HANDLES[@]}"; do
        MM2_KAFKA_LIBS="$LIBS" scripts/kafka-broker.sh stop "$h" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

# start_broker NAME: sets BOOT_<NAME>
start_broker() {
    local out
    out="$(MM2_KAFKA_LIBS="$LIBS" scripts/kafka-broker.sh start --owner-pid $$ \
        --prop group.initial.rebalance.delay.ms=0)"
    HANDLES+=("$(sed -n 's/^handle=//p' <<<"$out")")
    printf -v "BOOT_$1" '%s' "$(sed -n 's/^bootstrap=//p' <<<"$out")"
    log "cluster $1: $(sed -n 's/^bootstrap=//p' <<<"$out") (started in $(sed -n 's/^startup_ms=//p' <<<"$out") ms)"
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mm2-interop.XXXXXX")"
JVM=("$JAVA" "-Xmx${MM2_INTEROP_HEAP:-384m}" -XX:+UseSerialGC -cp "$CP")

case "$mode" in
differential)
    start_broker A
    start_broker B
    start_broker C
    # Java MM2 logs to stderr (its stop races its own scheduler and logs errors doing so); that
    # goes to a file, shown only when the comparison fails.
    if ! "${JVM[@]}" mm2interop.Differential "$BOOT_A" "$BOOT_B" "$BOOT_C" \
        "$BIN/checkpoint" "$BIN/mirror" "$WORK" 2>"$WORK/java-stderr.log"; then
        log "differential FAILED; Java's log: $WORK/java-stderr.log (last lines below); our logs: $WORK/*-ours.log"
        tail -n 40 "$WORK/java-stderr.log" >&2
        exit 1
    fi
    log "Java MM2 logged $(grep -cE '^[0-9:.]+ ERROR' "$WORK/java-stderr.log" || true) ERROR lines (not asserted)"
    ;;
churn)
    start_broker A
    start_broker B
    "${JVM[@]}" mm2interop.Churn "$BOOT_A" "$BOOT_B" "${2:-200}" "${3:-200000}" "$BIN" "$WORK"
    ;;
cycle)
    start_broker A
    start_broker B
    # Java MM2's log (warnings) and the progress lines go to a file; the table goes to stdout.
    log "load average: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc)"
    "$JAVA" "-Xmx${MM2_INTEROP_HEAP:-1g}" -XX:+UseSerialGC -cp "$CP" mm2interop.CycleBench \
        "$BOOT_A" "$BOOT_B" "${2:-100,1000,10000}" "${3:-5}" "${4:-3}" "$BIN" 2>"$WORK/cycle-stderr.log" \
        || { tail -n 40 "$WORK/cycle-stderr.log" >&2; exit 1; }
    grep -E '^cycle:|^interop_cycle:' "$WORK/cycle-stderr.log" >&2 || true
    log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    ;;
*)
    echo "usage: interop/run.sh differential | churn [N] [SYNCS] | cycle [SIZES] [RUNS] [STEADY]" >&2
    exit 2
    ;;
esac
rm -rf "$WORK"
