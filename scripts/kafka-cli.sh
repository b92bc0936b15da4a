#!/usr/bin/env bash
# Apache Kafka's command-line tools by their usual names, run from the jars in .tools/ (after
# scripts/setup-test-env.sh; no Kafka installation needed), to look at what the job and the
# mirror wrote:
#
#   scripts/kafka-cli.sh TOOL ARGS...      e.g.
#   scripts/kafka-cli.sh kafka-consumer-groups --bootstrap-server 127.0.0.1:29092 --describe --all-groups
#   scripts/kafka-cli.sh kafka-console-consumer --bootstrap-server 127.0.0.1:29092 \
#       --topic source.checkpoints.internal --partition 0 --offset earliest --timeout-ms 5000 \
#       --formatter org.apache.kafka.connect.mirror.formatters.CheckpointFormatter
#   scripts/kafka-cli.sh kafka-console-consumer --bootstrap-server 127.0.0.1:19092 \
#       --topic mm2-offset-syncs.target.internal --partition 0 --offset earliest --timeout-ms 5000 \
#       --formatter org.apache.kafka.connect.mirror.formatters.OffsetSyncFormatter
#
# TOOL is one of kafka-topics, kafka-consumer-groups, kafka-console-consumer,
# kafka-console-producer, kafka-get-offsets (the `.sh` suffix of Kafka's own scripts may be
# kept), or a main class. MM2's formatters (CheckpointFormatter, OffsetSyncFormatter,
# HeartbeatFormatter) come from connect-mirror's jar, which setup-test-env.sh puts beside the
# broker's. For a secured listener, pass the client settings in a file with --command-config
# (kafka-consumer-groups, kafka-topics) or --consumer.config (kafka-console-consumer).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

[ $# -gt 0 ] || usage
tool="${1%.sh}"
shift
case "$tool" in
    kafka-topics) class=org.apache.kafka.tools.TopicCommand ;;
    kafka-consumer-groups) class=org.apache.kafka.tools.consumer.group.ConsumerGroupCommand ;;
    kafka-console-consumer) class=org.apache.kafka.tools.consumer.ConsoleConsumer ;;
    kafka-console-producer) class=org.apache.kafka.tools.ConsoleProducer ;;
    kafka-get-offsets) class=org.apache.kafka.tools.GetOffsetShell ;;
    -h | --help) usage ;;
    *.*) class="$tool" ;;
    *) echo "kafka-cli.sh: unknown tool $tool (see --help)" >&2; exit 2 ;;
esac
exec "$ROOT/scripts/kafka-broker.sh" tool "$class" "$@"
