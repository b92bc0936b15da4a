#!/usr/bin/env bash
# Two local Apache Kafka clusters for the README's walk-through against real brokers.
#
#   scripts/demo-clusters.sh up     start cluster "source" on 127.0.0.1:19092 and "target" on
#                                   127.0.0.1:29092 (as in examples/mm2.properties), create the
#                                   topics, write 2,000 records to `orders` (2 partitions)
#                                   and commit two consumer groups on the source
#   scripts/demo-clusters.sh up --secure
#                                   the same, and each broker also listens with TLS and SASL
#                                   (SCRAM-SHA-512, user mm2-checkpoint, password change-me) on
#                                   127.0.0.1:19094 and 127.0.0.1:29094, as in
#                                   examples/mm2-tls-sasl.properties; each broker's CA is
#                                   .tools/demo/source/tls/ca.pem and .tools/demo/target/tls/ca.pem
#   scripts/demo-clusters.sh down   stop both and delete their data
#
# The brokers run in the background (scripts/kafka-broker.sh) until `down`; their handles and
# logs are in .tools/demo/. Ports: MM2_DEMO_SOURCE_PORT, MM2_DEMO_TARGET_PORT, and with
# --secure MM2_DEMO_SOURCE_SASL_PORT, MM2_DEMO_TARGET_SASL_PORT. The demo's own setup (topics,
# records, groups) goes through the PLAINTEXT listeners, which stay open in both modes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROKER="$ROOT/scripts/kafka-broker.sh"
DEMO="$ROOT/.tools/demo"
SOURCE_PORT="${MM2_DEMO_SOURCE_PORT:-19092}"
TARGET_PORT="${MM2_DEMO_TARGET_PORT:-29092}"
SOURCE="127.0.0.1:$SOURCE_PORT"
TARGET="127.0.0.1:$TARGET_PORT"
SOURCE_SASL_PORT="${MM2_DEMO_SOURCE_SASL_PORT:-19094}"
TARGET_SASL_PORT="${MM2_DEMO_TARGET_SASL_PORT:-29094}"
# The SCRAM user of examples/mm2-tls-sasl.properties (a demo secret, shipped in that file).
SASL_USER=mm2-checkpoint
SASL_PASSWORD=change-me

say() { echo "demo-clusters: $*" >&2; }

topic() {
    local bootstrap="$1" name="$2" partitions="$3"
    shift 3
    "$BROKER" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
        --create --if-not-exists --topic "$name" --partitions "$partitions" \
        --replication-factor 1 "$@" >/dev/null
}

up() {
    local secure=0 source_args=() target_args=()
    case "${1:-}" in
        "") ;;
        --secure) secure=1 ;;
        *)
            say "unknown option $1 (up takes --secure)"
            exit 2
            ;;
    esac
    [ ! -d "$DEMO/source" ] || {
        say "already up (run '$0 down' first)"
        exit 1
    }
    if [ $secure = 1 ]; then
        local scram=(--format-arg --add-scram
            --format-arg "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]")
        source_args=(--secure --listener-port "SASL_SSL=$SOURCE_SASL_PORT" "${scram[@]}")
        target_args=(--secure --listener-port "SASL_SSL=$TARGET_SASL_PORT" "${scram[@]}")
    fi
    mkdir -p "$DEMO"
    say "starting source on $SOURCE and target on $TARGET"
    "$BROKER" start --dir "$DEMO/source" --port "$SOURCE_PORT" \
        "${source_args[@]+"${source_args[@]}"}" >/dev/null
    "$BROKER" start --dir "$DEMO/target" --port "$TARGET_PORT" \
        "${target_args[@]+"${target_args[@]}"}" >/dev/null \
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
    if [ $secure = 1 ]; then
        cat <<EOF
source: $SOURCE   target: $TARGET   (PLAINTEXT)
source: 127.0.0.1:$SOURCE_SASL_PORT   target: 127.0.0.1:$TARGET_SASL_PORT   (SASL_SSL, SCRAM-SHA-512)
CAs: .tools/demo/source/tls/ca.pem, .tools/demo/target/tls/ca.pem
Next, from the repository's root (the file names the CAs relative to it):
  cargo run --example mirror -- --config examples/mm2-tls-sasl.properties --topic orders
  cargo run --example checkpoint -- --config examples/mm2-tls-sasl.properties
  scripts/demo-clusters.sh down
EOF
    else
        cat <<EOF
source: $SOURCE   target: $TARGET
Next:
  cargo run --example mirror -- $SOURCE $TARGET orders
  cargo run --example checkpoint -- --config examples/mm2.properties
  scripts/demo-clusters.sh down
EOF
    fi
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
    up) up "${2:-}" ;;
    down) down ;;
    *)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
