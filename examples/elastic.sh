#!/usr/bin/env bash
# The elastic mode (task.assignment=group) on two local brokers: starts the demo clusters
# (scripts/demo-clusters.sh), adds a few more consumer groups, mirrors `orders` once so offset
# syncs exist, then runs three checkpoint processes with examples/mm2-elastic.properties and
# shows how they share the coordination partitions; after a while it kills one with SIGKILL and
# shows the survivors taking its share over, then stops everything.
#
#   examples/elastic.sh            # needs scripts/setup-test-env.sh to have run once
#   MM2_ELASTIC_KEEP=1 examples/elastic.sh   # leave the clusters up afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LOGS="$ROOT/.tools/demo-elastic"
CONFIG="$ROOT/examples/mm2-elastic.properties"
BROKER="$ROOT/scripts/kafka-broker.sh"
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -n "${MM2_ELASTIC_KEEP:-}" ] || scripts/demo-clusters.sh down || true
}
trap cleanup EXIT

shares() {
    local i note
    for i in 0 1 2; do
        note=""
        [ "$i" != 0 ] || [ "${KILLED:-}" != 1 ] || note=" (killed; its last report)"
        printf '  process %d: %s%s\n' "$i" \
            "$(grep owned-partitions "$LOGS/process-$i.out" | tail -n 1 | cut -d' ' -f3)" "$note"
    done
}

cargo build --quiet --example checkpoint --example mirror
scripts/demo-clusters.sh up
for g in payments shipping fraud reporting search; do
    "$BROKER" tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
        --bootstrap-server 127.0.0.1:19092 --group "$g" --topic orders \
        --reset-offsets --to-offset 500 --execute >/dev/null
done
target/debug/examples/mirror 127.0.0.1:19092 127.0.0.1:29092 orders >/dev/null

mkdir -p "$LOGS"
for i in 0 1 2; do
    target/debug/examples/checkpoint --config "$CONFIG" \
        >"$LOGS/process-$i.out" 2>"$LOGS/process-$i.err" &
    PIDS+=($!)
done
echo "three processes started (logs in $LOGS); waiting 20 s for them to share the work"
sleep 20
echo "coordination partitions owned:"
shares
echo "kill -9 process 0 (pid ${PIDS[0]}); the survivors take its partitions over after the"
echo "session timeout (6 s)"
kill -9 "${PIDS[0]}"
KILLED=1
wait "${PIDS[0]}" 2>/dev/null || true
PIDS=("${PIDS[@]:1}")
sleep 12
echo "coordination partitions owned:"
shares
echo "last cycles of each process (a survivor re-emits nothing process 0 already wrote: it read"
echo "them back before adopting process 0's partitions):"
for i in 0 1 2; do
    echo "  process $i:"
    grep -E '^cycle ' "$LOGS/process-$i.out" | tail -n 3 | sed 's/^/    /'
done
