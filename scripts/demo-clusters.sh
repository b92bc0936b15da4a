#!/usr/bin/env bash
# Two local Apache Kafka clusters for the README's walk-through against real brokers.
#
#   scripts/demo-clusters.sh up     start cluster "source" on 127.0.0.1:19092 and "target" on
#                                   127.0.0.1:29092 (as in examples/mm2.properties), create the
#                                   topics, write 2,000 records to `orders` (2 partitions)
#                                   and commit two consumer groups on the source
#   scripts/demo-clusters.sh down   stop both and delete their data
#
# The brokers run in the background (scripts/kafka-broker.sh) until `down`; their handles and
# logs are in .tools/demo/. Ports: MM2_DEMO_SOURCE_PORT, MM2_DEMO_TARGET_PORT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROKER="$ROOT/scripts/kafka-broker.sh"
DEMO="$ROOT/.tools/demo"
SOURCE_PORT="${MM2_DEMO_SOURCE_PORT:-19092}"
TARGET_PORT="${MM2_DEMO_TARGET_PORT:-29092}"
SOURCE="127.0.0.1:$SOURCE_PORT"
TARGET="127.0.0.1:$TARGET_PORT"

say() { echo "demo-clusters: $*" >&2; }

topic() {
    local bootstrap="$1" name="$2" partitions="$3"
    shift 3
    "$BROKER" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
        --create --if-not-exists --topic "$name" --partitions "$partitions" \
        --replication-factor 1 "$@" >/dev/null
}

up() {
    [ ! -d "$DEMO/source" ] || {
        say "already up (run '$0 down' first)"
        exit 1
    }
    mkdir -p "$DEMO"
    say "starting source on $SOURCE and target on $TARGET"
    "$BROKER" start --dir "$DEMO/source" --port "$SOURCE_PORT" >/dev/null
    "$BROKER" start --dir "$DEMO/target" --port "$TARGET_PORT" >/dev/null \
        || {
            "$BROKER" stop "$DEMO/source"
            exit 1
        }
    say "creating topics"
    topic "$SOURCE" orders 2
    topic "$SOURCE" mm2-offset-syncs.target.internal 1 --config cleanup.policy=compact
    topic "$TARGET" source.orders 2
    say "writing 2,000 records to orders"
    # Keyed records: the default partitioner spreads them over both partitions.
    seq 0 1999 | sed 's/.*/customer-&:order-&/' | "$BROKER" tool org.apache.kafka.tools.ConsoleProducer \
        --bootstrap-server "$SOURCE" --topic orders \
        --property parse.key=true --property key.separator=: >/dev/null
    # billing has read everything, analytics is behind.
    say "committing consumer groups billing (at the end) and analytics (at 980) on the source"
    "$BROKER" tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
        --bootstrap-server "$SOURCE" --group billing --topic orders \
        --reset-offsets --to-latest --execute >/dev/null
    "$BROKER" tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
        --bootstrap-server "$SOURCE" --group analytics --topic orders \
        --reset-offsets --to-offset 980 --execute >/dev/null
    cat <<EOF
source: $SOURCE   target: $TARGET
Next:
  cargo run --example mirror -- $SOURCE $TARGET orders
  cargo run --example checkpoint -- --config examples/mm2.properties
  scripts/demo-clusters.sh down
EOF
}

down() {
    local side
    for side in source target; do
        "$BROKER" stop "$DEMO/$side"
    done
    rmdir "$DEMO" 2>/dev/null || true
    say "stopped"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    *)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
