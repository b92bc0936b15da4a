#!/usr/bin/env bash
# Java MM2 against mm2-checkpoint on real Kafka. Test and benchmark code only.
#
#   interop/run.sh differential   three clusters A, B, C; Java MM2's MirrorSourceTask mirrors A->B;
#                                 Java's checkpointing writes to B, ours (examples/checkpoint
#                                 --config) to C; both must agree byte for byte. Then the same
#                                 with a transactional offset commit left open on A and ours
#                                 reading A's __consumer_offsets itself. Then the reverse:
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
#   interop/run.sh load [RECORDS] [RUNS]
#                                 start-up load of an offset-syncs topic of RECORDS syncs (default
#                                 1000000): Java MM2's OffsetSyncStore.start(true), ours
#                                 (bench_load_offset_syncs) and a raw librdkafka C consumer
#                                 (interop/load_floor.c, whole batches, linked against the
#                                 librdkafka rdkafka-sys built) in RUNS interleaved rounds (default
#                                 5), default and tuned fetch settings; prints the table of
#                                 BENCHMARKS.md "Start-up load". A benchmark: not in scripts/test.sh.
#
# Brokers: scripts/kafka-broker.sh, with the setup's Kafka jars, else those of interop/pom.xml
# (both the version of the Java MM2 classes; see the note there), each watched by a watchdog
# tied to this shell, all of a mode started at once. They are this script's own, not the run's
# shared ones: the differential and the churn use MM2's example names (`orders`, aliases A/B,
# source/target) and discover every group of their clusters, which must hold nothing else.
# Knobs: MM2_INTEROP_HEAP (harness JVM heap, default 384m); MM2_INTEROP_PROFILE (differential
# and churn: the cargo profile of our example binaries, release by default; scripts/test.sh
# uses debug, the build it already has); MM2_BUILD_INFO=DIR (scripts/test.sh's build-info
# directory: with the marker DIR/examples-built, those binaries are built, no cargo call).
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

LIBS="$ROOT/interop/target/libs"
JAR="$ROOT/interop/target/mm2-interop-0.jar"
CP="$JAR:$LIBS/*"
# Maven only when the harness jar is older than its sources (scripts/setup-test-env.sh packages
# it, and leaves every artifact it needs in the local repository: scripts/test.sh's interop
# stage starts no Maven).
if [ -f "$JAR" ] && [ -d "$LIBS" ] &&
    [ -z "$(find interop/pom.xml interop/src java/parent/pom.xml -newer "$JAR" -print -quit)" ]; then
    log "interop/target: the harness jar is newer than interop/pom.xml and interop/src (no mvn run)"
else
    log "mvn package (interop/pom.xml: Java MM2 classes and broker jars)"
    mvn -B -q -f interop/pom.xml package -DskipTests >&2
fi

if [ "$mode" = cycle ]; then
    log "cargo build --release --features internals --example interop_cycle"
    cargo build --release --features internals --example interop_cycle >&2
fi
BIN="$ROOT/target/release/examples"
if [ "$mode" != load ] && [ "$mode" != cycle ]; then
    profile="${MM2_INTEROP_PROFILE:-release}"
    case "$profile" in
        release) profile_args=(--release) ;;
        # --all-features: the feature set of `cargo test --all-features`, whose build this reuses.
        debug) profile_args=(--all-features) ;;
        *) log "MM2_INTEROP_PROFILE is '$profile'; expected release or debug"; exit 2 ;;
    esac
    BIN="$ROOT/target/$profile/examples"
    if [ -n "${MM2_BUILD_INFO:-}" ] && [ -f "$MM2_BUILD_INFO/examples-built" ]; then
        log "examples checkpoint, mirror, interop_churn: built by the caller ($MM2_BUILD_INFO/examples-built)"
    else
        log "cargo build ${profile_args[*]} --examples checkpoint, mirror, interop_churn"
        cargo build "${profile_args[@]}" --example checkpoint --example mirror --example interop_churn >&2
    fi
fi

# The brokers run on the setup's Kafka jars when there are some (MM2_KAFKA_LIBS, from
# .tools/env.sh: the same version, java/parent/pom.xml's, and the class-data archive
# scripts/kafka-broker.sh keeps for that directory, so each start costs less), else on this
# module's own copy.
BROKER_LIBS="${MM2_KAFKA_LIBS:-$LIBS}"
HANDLES=()
cleanup() {
    local h
    for h in "${HANDLES[@]}"; do
        MM2_KAFKA_LIBS="$BROKER_LIBS" scripts/kafka-broker.sh stop "$h" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mm2-interop.XXXXXX")"

# start_brokers NAME...: starts one broker per NAME, all at once (much of a start is waiting);
# sets BOOT_<NAME>.
start_brokers() {
    local name pids=() rc=0 p out
    for name in "$@"; do
        MM2_KAFKA_LIBS="$BROKER_LIBS" scripts/kafka-broker.sh start --owner-pid $$ \
            --prop group.initial.rebalance.delay.ms=0 >"$WORK/broker-$name.out" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    for name in "$@"; do
        out="$(cat "$WORK/broker-$name.out")"
        if [ -n "$(sed -n 's/^handle=//p' <<<"$out")" ]; then HANDLES+=("$(sed -n 's/^handle=//p' <<<"$out")"); fi
        printf -v "BOOT_$name" '%s' "$(sed -n 's/^bootstrap=//p' <<<"$out")"
        log "cluster $name: $(sed -n 's/^bootstrap=//p' <<<"$out") (started in $(sed -n 's/^startup_ms=//p' <<<"$out") ms)"
    done
    [ $rc = 0 ] || { log "a broker did not start"; exit 1; }
}
JVM=("$JAVA" "-Xmx${MM2_INTEROP_HEAP:-384m}" -XX:+UseSerialGC -cp "$CP")

case "$mode" in
differential)
    start_brokers A B C
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
    start_brokers A B
    "${JVM[@]}" mm2interop.Churn "$BOOT_A" "$BOOT_B" "${2:-200}" "${3:-200000}" "$BIN" "$WORK"
    ;;
cycle)
    start_brokers A B
    # Java MM2's log (warnings) and the progress lines go to a file; the table goes to stdout.
    log "load average: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc)"
    "$JAVA" "-Xmx${MM2_INTEROP_HEAP:-1g}" -XX:+UseSerialGC -cp "$CP" mm2interop.CycleBench \
        "$BOOT_A" "$BOOT_B" "${2:-100,1000,10000}" "${3:-5}" "${4:-3}" "$BIN" 2>"$WORK/cycle-stderr.log" \
        || { tail -n 40 "$WORK/cycle-stderr.log" >&2; exit 1; }
    grep -E '^cycle:|^interop_cycle:' "$WORK/cycle-stderr.log" >&2 || true
    log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    ;;
load)
    log "cargo build --release --features internals --example interop_load"
    cargo build --release --features internals --example interop_load >&2
    # The librdkafka (static library and headers) that rdkafka-sys built for that example, and
    # the codec and TLS libraries it was configured with; the newest build wins.
    rdk_out="$(ls -td target/release/build/rdkafka-sys-*/out 2>/dev/null | while read -r d; do
        [ -f "$d/src/librdkafka.a" ] && { echo "$d"; break; }; done)"
    [ -n "$rdk_out" ] || { log "no librdkafka.a under target/release/build/rdkafka-sys-*/out/src"; exit 1; }
    zstd_lib="$(ls -td target/release/build/zstd-sys-*/out 2>/dev/null | while read -r d; do
        [ -f "$d/libzstd.a" ] && { echo "$d"; break; }; done)"
    FLOOR="$ROOT/target/release/examples/load_floor"
    log "cc interop/load_floor.c against $rdk_out/src/librdkafka.a"
    cc -O2 -Wall -Wextra -o "$FLOOR" interop/load_floor.c -isystem "$rdk_out/src" \
        "$rdk_out/src/librdkafka.a" ${zstd_lib:+"$zstd_lib/libzstd.a"} \
        -lssl -lcrypto -lz -lpthread -lm -ldl -lrt
    start_brokers A
    log "load: $(uptime)"
    "$JAVA" -Xms1g -Xmx1g -XX:+UseG1GC -cp "$CP" org.apache.kafka.connect.mirror.LoadStart \
        "$BOOT_A" "${2:-1000000}" "${3:-5}" "$BIN/interop_load" "$FLOOR"
    log "load: $(uptime)"
    ;;
*)
    echo "usage: interop/run.sh differential | churn [N] [SYNCS] | cycle [SIZES] [RUNS] [STEADY] | load [RECORDS] [RUNS]" >&2
    exit 2
    ;;
esac
rm -rf "$WORK"
