#!/usr/bin/env bash
# Launches Apache Kafka clusters (KRaft, each node a combined broker + controller; one node
# unless --nodes says more) on 127.0.0.1 for tests, benchmarks and demos. One implementation for every language: the Rust tests
# (tests/support/broker.rs), the C and JVM test scripts and the benchmarks all call this.
#
#   kafka-broker.sh start [options]     formats a fresh log dir, starts the broker, waits until
#                                       it is ready; prints `key=value` lines (see below)
#   kafka-broker.sh kill HANDLE         SIGKILL the broker (a crash); the handle stays usable
#                                       (for a cluster of several nodes: a node's handle)
#   kafka-broker.sh restart HANDLE [--fresh]
#                                       kill if running, start again on the same ports, with the
#                                       same log dir (data kept) or, with --fresh, a newly
#                                       formatted one (an empty cluster at the same address)
#   kafka-broker.sh stop HANDLE         kill the broker and its watchdog, delete the handle dir
#   kafka-broker.sh status HANDLE       exit 0 when the broker process is alive
#   kafka-broker.sh tool CLASS ARGS...  runs a Kafka command-line tool by its main class, e.g.
#                                       org.apache.kafka.tools.TopicCommand (kafka-topics)
#   kafka-broker.sh cds-archive         writes the class-data archive every later JVM of this
#                                       script maps (quicker starts; see cds_archive below),
#                                       unless it exists; prints its path
#
# start options:
#   --dir DIR            handle directory to create (default: a new mktemp dir)
#   --nodes N            a cluster of N nodes (default 1), every one a voter of the controller
#                        quorum, internal topics with N replicas (at most 3) and
#                        default.replication.factor N; the nodes start side by side and each
#                        is a handle of its own, DIR/node-I, for kill, restart and status; stop
#                        DIR stops them all. With N > 1 only --dir, --heap, --prop and the
#                        lifeline options apply
#   --port PORT          the PLAINTEXT port (default: a free one); no retry if it is taken
#   --heap SIZE          the broker JVM's -Xmx (default 256m); kept for restart
#   --jmx-port PORT      serve the broker's JMX on that port of 127.0.0.1, no authentication;
#                        kept for restart
#   --prop KEY=VALUE     extra server property (repeatable; wins over the defaults)
#   --listener NAME=PROTOCOL
#                        an extra listener on its own free port, e.g. SSL=SSL or
#                        SASL_SSL=SASL_SSL (repeatable); its address is printed as
#                        `listener.NAME=127.0.0.1:PORT`; configure it with --prop
#   --listener-port NAME=PORT
#                        the port of listener NAME (one of --listener or --secure's) instead
#                        of a free one (repeatable); no retry if it is taken
#   --format-arg ARG     extra argument for `kafka-storage format`, e.g. --add-scram
#                        'SCRAM-SHA-512=[name=alice,password=secret]' (repeatable)
#   --secure             adds the listeners SSL (TLS), MTLS (TLS with a required client
#                        certificate) and SASL_SSL (TLS with PLAIN, SCRAM-SHA-256,
#                        SCRAM-SHA-512 and unsecured OAUTHBEARER), signed by a CA made for this
#                        broker (scripts/kafka/secure.sh), and one user for every mechanism;
#                        also prints ssl.ca.location=PATH, ssl.untrusted.ca.location=PATH (a
#                        CA that signed nothing), ssl.client.certificate.location=PATH,
#                        ssl.client.key.location=PATH, sasl.username=NAME and
#                        sasl.password=SECRET
#   --lifeline-stdin     a watchdog reads stdin; on EOF (the caller exited or was killed) it
#                        kills the broker and deletes the handle dir
#   --owner-pid PID      a watchdog polls PID; when it is gone, same as above
#
# start prints, one per line: bootstrap=127.0.0.1:PORT, handle=DIR, pid=PID, startup_ms=N,
# and listener.NAME=... for each extra listener. A cluster of several nodes prints bootstrap
# with every node's address (comma-separated), the cluster's handle=DIR and startup_ms, and for
# each node I: node.I.handle=DIR/node-I, node.I.pid=PID and node.I.bootstrap=127.0.0.1:PORT. Broker output goes to DIR/broker.log.
#
# Environment: MM2_BROKER_TAG (marks the broker's JVM with -Dmm2.broker.tag=TAG, so that
# scripts/test.sh can tell which of its stages left a broker running), MM2_BROKER_START_LOG
# (a file that gets one line per JVM start or restart: time, tag, port), MM2_KAFKA_LIBS (directory of the broker jars; default .tools/kafka-<version>/libs
# from scripts/setup-test-env.sh), MM2_KAFKA_JAVA (java 17+; default $JAVA_HOME/bin/java, then
# java on PATH), MM2_KAFKA_READY_SECONDS (default 180; start-up
# takes about 3 s on an idle 2-core machine, and took 40 s on one loaded far beyond its cores),
# MM2_KAFKA_CDS_DIR (where the class-data archive is kept; default .tools/kafka-cds),
# MM2_KAFKA_FORMAT_DIR (where formatted-log-dir templates are kept; default .tools/kafka-format),
# MM2_BROKER_CPU_LOG (a file that gets one line per broker JVM this script kills: its tag and
# CPU seconds).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SELF="$ROOT/scripts/kafka-broker.sh"
# shellcheck source=kafka/secure.sh
source "$ROOT/scripts/kafka/secure.sh"

die() {
    echo "kafka-broker.sh: $*" >&2
    exit 1
}

# The one pinned Kafka version lives in the parent of every pom (setup-test-env.sh resolves it).
kafka_version() {
    sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$ROOT/java/parent/pom.xml"
}

kafka_libs() {
    local libs="${MM2_KAFKA_LIBS:-$ROOT/.tools/kafka-$(kafka_version)/libs}"
    [ -d "$libs" ] && compgen -G "$libs/kafka_2.13-*.jar" >/dev/null \
        || die "no Kafka jars in $libs; run scripts/setup-test-env.sh first"
    echo "$libs"
}

java_bin() {
    if [ -n "${MM2_KAFKA_JAVA:-}" ]; then
        echo "$MM2_KAFKA_JAVA"
    elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
        echo "$JAVA_HOME/bin/java"
    else
        command -v java || die "no java found (set MM2_KAFKA_JAVA or JAVA_HOME)"
    fi
}

# Ports are picked below the kernel's ephemeral range, so an outgoing connection never holds
# one, and are only "free a moment ago": a broker that loses the race fails to bind and start
# retries on other ports. With DIRs, never a port one of those handles already names (its PLAINTEXT,
# controller and listener ports are picked one after another, none bound yet: two listeners
# once drew the same port, which the format step refused, failing the start).
random_free_port() {
    local port tries=0 taken=" " d
    for d in "$@"; do
        taken="$taken$(cat "$d/port" "$d/controller_port" 2>/dev/null | tr '\n' ' ') "
        taken="$taken$(awk '{ printf "%s ", $3 }' "$d/listeners" 2>/dev/null)"
    done
    while [ $tries -lt 200 ]; do
        port=$((15000 + (RANDOM * 32768 + RANDOM) % 17000))
        tries=$((tries + 1))
        [[ "$taken" != *" $port "* ]] || continue
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    die "no free port found"
}

# Class-data sharing: `kafka-broker.sh cds-archive` (scripts/setup-test-env.sh runs
# it) starts one broker with -XX:ArchiveClassesAtExit and shuts it down in order, which writes
# every class it loaded, parsed and verified, into an archive that every later JVM of this script
# (the storage format, the broker, the tools) maps instead of loading them again. Measured on
# 2026-12-02 on an idle 2-core machine: format + start to "started" took 4.6 CPU-s and 2.3 s
# instead of 7.5 CPU-s and 4.2 s. The archive's name hashes the java and the jar directory it was
# made from; a JVM that cannot use it (another JVM build) runs without it, its CDS log muted so
# that a tool's output stays its own.
# The jar directory's identity, for the keys of the archive and the format templates: its path
# and its inode and modification time (setup-test-env.sh replaces the directory whole).
libs_identity() {
    local libs
    libs="$(kafka_libs)"
    printf '%s\n%s\n' "$(readlink -f "$libs")" "$(stat -c '%i %Y' "$libs")"
}
cds_archive() {
    local key
    key="$({ readlink -f "$(java_bin)"; libs_identity; } | cksum | cut -d' ' -f1)"
    echo "${MM2_KAFKA_CDS_DIR:-$ROOT/.tools/kafka-cds}/broker-$key.jsa"
}
cds_flags() {
    local archive
    # While the archive is being written, nothing maps an older one.
    [ -z "${MM2_KAFKA_CDS_DUMP:-}" ] || return 0
    archive="$(cds_archive)"
    [ -f "$archive" ] || return 0
    echo "-XX:SharedArchiveFile=$archive -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
}

# Java flags for a quick start on a small shared machine: a small heap (start --heap, kept in
# DIR/heap), the serial collector, the C1 compiler only, no perf-data file, and the class-data
# archive when there is one.
jvm_flags() {
    local heap=256m
    [ ! -s "$1/heap" ] || heap="$(cat "$1/heap")"
    echo "-Xms32m -Xmx$heap -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
    cds_flags
    echo "-XX:-UsePerfData -Djava.awt.headless=true -Dlog4j2.configurationFile=$1/log4j2.properties"
    # Marks our brokers in `ps` so scripts/test.sh can find any this tree left behind, and
    # which of its stages started them (MM2_BROKER_TAG at start, kept in the handle dir).
    echo "-Dmm2.broker.root=$ROOT -Dmm2.broker.tag=$(cat "$1/tag" 2>/dev/null)"
}

# jmx_flags DIR: with start --jmx-port (kept in DIR/jmx_port), the broker's MBeans (e.g.
# kafka.network RequestMetrics, counted by scripts/bench-offsets-source.sh) on that port of
# 127.0.0.1, without authentication: loopback only.
jmx_flags() {
    [ -s "$1/jmx_port" ] || return 0
    local p
    p="$(cat "$1/jmx_port")"
    echo "-Dcom.sun.management.jmxremote.port=$p -Dcom.sun.management.jmxremote.rmi.port=$p"
    echo "-Dcom.sun.management.jmxremote.host=127.0.0.1 -Djava.rmi.server.hostname=127.0.0.1"
    echo "-Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false"
}

write_log4j() {
    cat >"$1/log4j2.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d{HH:mm:ss.SSS}] %p %m (%c{1})%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = out
# Its INFO line "Kafka Server started" is the readiness signal.
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
EOF
}

# write_config DIR: server.properties from the ports and extra settings recorded in DIR.
write_config() {
    local dir="$1" port controller listeners advertised protomap name proto p
    port="$(cat "$dir/port")"
    controller="$(cat "$dir/controller_port")"
    listeners="PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller"
    advertised="PLAINTEXT://127.0.0.1:$port"
    protomap="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
    while read -r name proto p; do
        [ -n "$name" ] || continue
        listeners="$listeners,$name://127.0.0.1:$p"
        advertised="$advertised,$name://127.0.0.1:$p"
        protomap="$protomap,$name:$proto"
    done <"$dir/listeners"
    local node=1 voters="1@127.0.0.1:$controller" replicas=1
    [ ! -s "$dir/node_id" ] || node="$(cat "$dir/node_id")"
    [ ! -s "$dir/voters" ] || voters="$(cat "$dir/voters")"
    [ ! -s "$dir/replicas" ] || replicas="$(cat "$dir/replicas")"
    {
        echo "process.roles=broker,controller"
        echo "node.id=$node"
        echo "controller.quorum.voters=$voters"
        echo "controller.listener.names=CONTROLLER"
        echo "inter.broker.listener.name=PLAINTEXT"
        echo "listeners=$listeners"
        echo "advertised.listeners=$advertised"
        echo "listener.security.protocol.map=$protomap"
        echo "log.dirs=$dir/data"
        # Internal topics have a replica on every node (at most 3); with several, a write
        # needs two in sync, so one node can be down.
        local min_isr=$((replicas > 1 ? 2 : 1))
        echo "offsets.topic.replication.factor=$replicas"
        echo "offsets.topic.num.partitions=1"
        echo "transaction.state.log.replication.factor=$replicas"
        echo "transaction.state.log.min.isr=$min_isr"
        echo "transaction.state.log.num.partitions=1"
        echo "share.coordinator.state.topic.replication.factor=$replicas"
        echo "share.coordinator.state.topic.min.isr=$min_isr"
        if [ "$replicas" -gt 1 ]; then
            echo "default.replication.factor=$replicas"
            echo "min.insync.replicas=$min_isr"
        fi
        # Tests join groups and expect the assignment at once.
        echo "group.initial.rebalance.delay.ms=0"
        # Heartbeats were most of an idle broker's CPU (at 200 ms, 1.8 CPU-s a minute;
        # at 1 s, 1.2, with start-up as quick: the broker is unfenced after a heartbeat, and one
        # comes as soon as it has caught up). A restarted broker registers again only once its
        # previous incarnation's session has expired on the controller (default 9 s): 3 s here,
        # three missed heartbeats, so a broker starved of CPU for a moment is not fenced.
        echo "broker.heartbeat.interval.ms=1000"
        echo "broker.session.timeout.ms=3000"
        # No no-op records in the metadata log every 500 ms while nothing changes: an idle
        # broker took 1.6 CPU-s a minute instead of 2.1 (three of them run all along).
        echo "metadata.max.idle.interval.ms=0"
        echo "num.network.threads=2"
        echo "num.io.threads=2"
        echo "num.recovery.threads.per.data.dir=1"
        echo "log.cleaner.threads=1"
        echo "log.cleaner.dedupe.buffer.size=8388608"
        # Extra settings last, so that they win.
        cat "$dir/props"
    } >"$dir/server.properties"
}

# A random Kafka Uuid in its text form (base64url of 16 bytes, unpadded), never starting with
# '-': kafka-storage would take it for an option (Kafka's own Uuid.randomUuid avoids it too).
random_uuid() {
    local id="-"
    while [ "${id:0:1}" = - ]; do
        id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    done
    echo "$id"
}

# Formatting a log dir (`kafka-storage format`) writes two files: meta.properties (the cluster,
# node and directory ids) and bootstrap.checkpoint (the metadata version and the SCRAM
# credentials of the format arguments, nothing of the cluster's). The first format with a given
# set of arguments runs the tool and keeps its bootstrap.checkpoint as a template, under
# .tools/kafka-format/ (MM2_KAFKA_FORMAT_DIR), keyed by the arguments, the jar directory and
# any extra `unstable.*` server property (the only ones that change what format writes);
# later ones copy it and write meta.properties themselves, which spares a JVM start per broker
# (21 formats took 31 CPU-s).
format_template() {
    local key
    key="$({ cat "$1/format_args"; grep '^unstable\.' "$1/props" || true; libs_identity; } \
        | cksum | cut -d' ' -f1)"
    echo "${MM2_KAFKA_FORMAT_DIR:-$ROOT/.tools/kafka-format}/$key"
}

format_dir() {
    local dir="$1" java libs template
    rm -rf "$dir/data"
    template="$(format_template "$dir")"
    if [ -f "$template/bootstrap.checkpoint" ]; then
        mkdir -p "$dir/data"
        cp "$template/bootstrap.checkpoint" "$dir/data/"
        {
            echo "node.id=$(cat "$dir/node_id" 2>/dev/null || echo 1)"
            echo "directory.id=$(random_uuid)"
            echo "version=1"
            echo "cluster.id=$(cat "$dir/cluster_id")"
        } >"$dir/data/meta.properties"
        echo "--- [kafka-broker.sh] log dir formatted from $template" >>"$dir/broker.log"
        return 0
    fi
    java="$(java_bin)"
    libs="$(kafka_libs)"
    local args=()
    while IFS= read -r -d '' a; do args+=("$a"); done <"$dir/format_args"
    # shellcheck disable=SC2046
    "$java" $(jvm_flags "$dir") -cp "$libs/*" kafka.tools.StorageTool format \
        --config "$dir/server.properties" --cluster-id "$(cat "$dir/cluster_id")" \
        "${args[@]}" >>"$dir/broker.log" 2>&1 \
        || {
            tail -n 20 "$dir/broker.log" >&2
            die "kafka-storage format failed in $dir"
        }
    # Kept whole (renamed into place), so a broker formatting beside this one never copies half.
    if [ -f "$dir/data/bootstrap.checkpoint" ] && mkdir -p "$template" &&
        cp "$dir/data/bootstrap.checkpoint" "$template/bootstrap.checkpoint.partial.$$"; then
        mv -f "$template/bootstrap.checkpoint.partial.$$" "$template/bootstrap.checkpoint"
    fi
}

# launch DIR: starts the broker in the background and waits until it is ready. Returns 2 when
# a port was taken (the caller may pick others), 1 on any other failure.
launch() {
    spawn "$1"
    await_ready "$1"
}

# spawn DIR: starts the broker's JVM in the background; await_ready DIR waits for it.
spawn() {
    local dir="$1" java libs port
    java="$(java_bin)"
    libs="$(kafka_libs)"
    port="$(cat "$dir/port")"
    echo "--- [kafka-broker.sh] starting on port $port at $(date +%T.%N)" >>"$dir/broker.log"
    if [ -n "${MM2_BROKER_START_LOG:-}" ]; then
        echo "$(date +%T) tag=$(cat "$dir/tag" 2>/dev/null) port=$port" >>"$MM2_BROKER_START_LOG"
    fi
    wc -l <"$dir/broker.log" >"$dir/log_mark"
    # exec: the recorded pid is the JVM's own, so SIGKILL reaches the broker itself.
    # shellcheck disable=SC2046
    (exec "$java" $(jvm_flags "$dir") $(jmx_flags "$dir") ${MM2_KAFKA_CDS_DUMP:+"-XX:ArchiveClassesAtExit=$MM2_KAFKA_CDS_DUMP"} \
        -cp "$libs/*" kafka.Kafka "$dir/server.properties" \
        </dev/null >>"$dir/broker.log" 2>&1) &
    echo $! >"$dir/pid"
}

# await_ready DIR: waits until the broker spawn DIR started is ready; returns as launch does.
await_ready() {
    local dir="$1" pid deadline mark
    pid="$(cat "$dir/pid")"
    mark="$(cat "$dir/log_mark")"
    deadline=$((SECONDS + ${MM2_KAFKA_READY_SECONDS:-180}))
    while :; do
        if tail -n +"$((mark + 1))" "$dir/broker.log" | grep -q "Kafka Server started"; then
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null || true
            if tail -n +"$((mark + 1))" "$dir/broker.log" | grep -qi "address already in use"; then
                return 2
            fi
            tail -n 30 "$dir/broker.log" >&2
            echo "kafka-broker.sh: broker exited before it was ready (log: $dir/broker.log)" >&2
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            kill -9 "$pid" 2>/dev/null || true
            tail -n 30 "$dir/broker.log" >&2
            echo "kafka-broker.sh: broker not ready in ${MM2_KAFKA_READY_SECONDS:-180}s (log: $dir/broker.log)" >&2
            return 1
        fi
        sleep 0.05
    done
}

kill_broker() {
    local dir="$1" pid
    [ -f "$dir/pid" ] || return 0
    pid="$(cat "$dir/pid")"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        record_cpu "$dir" "$pid"
        kill -9 "$pid" 2>/dev/null || true
        # Not our child when called from a later invocation: poll until it is gone.
        while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
    fi
    : >"$dir/pid"
}

# record_cpu DIR PID: with MM2_BROKER_CPU_LOG, appends the broker JVM's CPU seconds (user +
# system, from /proc) and its tag, just before it is killed: a broker is nobody's waited-for
# child, so no caller's CPU count includes it (scripts/test.sh sums these).
record_cpu() {
    [ -n "${MM2_BROKER_CPU_LOG:-}" ] || return 0
    local stat
    stat="$(cat "/proc/$2/stat" 2>/dev/null)" || return 0
    # Fields 14 and 15 (utime, stime), counted after the command name, which may hold spaces.
    awk -v tag="$(cat "$1/tag" 2>/dev/null)" -v hz="$(getconf CLK_TCK)" \
        '{ printf "%s\t%.1f\n", tag, ($12 + $13) / hz }' <<<"${stat##*) }" >>"$MM2_BROKER_CPU_LOG"
}

# handle_dir [DIR]: creates DIR (a new temporary directory when none is given) and prints its
# absolute path.
handle_dir() {
    if [ -z "${1:-}" ]; then
        mktemp -d "${TMPDIR:-/tmp}/mm2-kafka.XXXXXX"
    else
        mkdir -p "$1"
        (cd "$1" && pwd)
    fi
}

# init_handle DIR [HEAP]: a handle's first files: no pid yet, an empty log, the broker's tag,
# and its heap when start --heap gave one.
init_handle() {
    : >"$1/pid"
    : >"$1/broker.log"
    # No spaces: the tag becomes one JVM argument.
    printf '%s' "${MM2_BROKER_TAG:-}" | tr -c 'A-Za-z0-9._-' _ >"$1/tag"
    if [ -n "${2:-}" ]; then echo "$2" >"$1/heap"; fi
}

check_handle() {
    [ -n "${1:-}" ] && [ -f "$1/server.properties" ] || die "not a broker handle: ${1:-<none>}"
}

# The watchdog outlives this script; its stdout/stderr must not hold the caller's pipes.
start_watchdog() {
    local dir="$1" mode="$2" owner="${3:-}"
    if [ "$mode" = stdin ]; then
        # Reads the caller's pipe (our stdin) until EOF: the caller exited, closed it, or died.
        # `read` is a builtin, so killing this subshell leaves no reader behind.
        # The explicit <&0 matters: without job control bash gives background jobs /dev/null.
        (
            while read -r _; do :; done
            "$SELF" stop "$dir"
        ) <&0 >/dev/null 2>&1 &
    else
        (
            while kill -0 "$owner" 2>/dev/null; do sleep 0.2; done
            "$SELF" stop "$dir" >/dev/null 2>&1
        ) </dev/null >/dev/null 2>&1 &
    fi
    echo $! >"$dir/watchdog"
}

cmd_start() {
    local dir="" lifeline="" owner="" port="" props=() listeners=() fargs=() secure=0
    local authorizer=0 fixed_ports=() nodes=1 heap="" jmx_port=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) dir="$2"; shift 2 ;;
            --nodes) nodes="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            --heap) heap="$2"; shift 2 ;;
            --jmx-port) jmx_port="$2"; shift 2 ;;
            --prop) props+=("$2"); shift 2 ;;
            --listener) listeners+=("$2"); shift 2 ;;
            --listener-port) fixed_ports+=("$2"); shift 2 ;;
            --format-arg) fargs+=("$2"); shift 2 ;;
            --secure) secure=1; shift ;;
            --authorizer) authorizer=1; shift ;;
            --lifeline-stdin) lifeline=stdin; shift ;;
            --owner-pid) lifeline=pid; owner="$2"; shift 2 ;;
            *) die "start: unknown option $1" ;;
        esac
    done
    [ $authorizer = 0 ] || [ $secure = 1 ] || die "start: --authorizer needs --secure"
    [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "start: --nodes takes a positive count, not $nodes"
    if [ "$nodes" -gt 1 ]; then
        [ $secure = 0 ] && [ -z "$port" ] && [ -z "$jmx_port" ] && [ ${#listeners[@]} = 0 ] \
            && [ ${#fixed_ports[@]} = 0 ] && [ ${#fargs[@]} = 0 ] \
            || die "start: with --nodes, only --dir, --heap, --prop and a lifeline"
        start_cluster "$dir" "$nodes" "$lifeline" "$owner" "$heap" "${props[@]+"${props[@]}"}"
        return
    fi
    local began
    began="$(date +%s%N)"
    dir="$(handle_dir "$dir")"
    init_handle "$dir" "$heap"
    if [ -n "$jmx_port" ]; then echo "$jmx_port" >"$dir/jmx_port"; fi
    if [ $secure = 1 ]; then
        secure_certs "$dir/tls"
        listeners=(SSL=SSL MTLS=SSL SASL_SSL=SASL_SSL "${listeners[@]+"${listeners[@]}"}")
        local line
        # First, so that the caller's --prop and --format-arg can override or add to them.
        while IFS= read -r line; do props=("$line" "${props[@]+"${props[@]}"}"); done \
            < <(secure_props "$dir/tls" | tac)
        while IFS= read -r line; do fargs+=("$line"); done < <(secure_format_args)
        if [ $authorizer = 1 ]; then
            while IFS= read -r line; do props=("$line" "${props[@]}"); done \
                < <(authorizer_props | tac)
            while IFS= read -r line; do fargs+=("$line"); done < <(authorizer_format_args)
        fi
    fi
    printf '%s\n' "${props[@]+"${props[@]}"}" >"$dir/props"
    if [ "${#fargs[@]}" -gt 0 ]; then printf '%s\0' "${fargs[@]}"; fi >"$dir/format_args"
    # A fixed, valid cluster id per handle.
    random_uuid >"$dir/cluster_id"
    write_log4j "$dir"
    # Armed before the broker exists, so a caller killed during start-up leaves nothing behind.
    if [ -n "$lifeline" ]; then start_watchdog "$dir" "$lifeline" "$owner"; fi

    local attempt rc=2
    for attempt in 1 2 3 4 5; do
        : >"$dir/controller_port"
        : >"$dir/listeners"
        if [ -n "$port" ]; then echo "$port" >"$dir/port"; else random_free_port "$dir" >"$dir/port"; fi
        random_free_port "$dir" >"$dir/controller_port"
        local l f lport
        for l in "${listeners[@]+"${listeners[@]}"}"; do
            lport=""
            for f in "${fixed_ports[@]+"${fixed_ports[@]}"}"; do
                [ "${f%%=*}" != "${l%%=*}" ] || lport="${f#*=}"
            done
            echo "${l%%=*} ${l#*=} ${lport:-$(random_free_port "$dir")}" >>"$dir/listeners"
        done
        write_config "$dir"
        format_dir "$dir"
        rc=0
        launch "$dir" || rc=$?
        [ $rc = 2 ] && [ -z "$port" ] || break
        echo "--- [kafka-broker.sh] a port was taken; attempt $attempt failed" >>"$dir/broker.log"
    done
    if [ $rc != 0 ]; then
        [ $rc != 2 ] || grep -i "address already in use" "$dir/broker.log" | tail -n 1 >&2
        "$SELF" stop "$dir" >/dev/null 2>&1 || true
        die "could not start a broker${port:+ on port $port}"
    fi
    echo "bootstrap=127.0.0.1:$(cat "$dir/port")"
    echo "handle=$dir"
    echo "pid=$(cat "$dir/pid")"
    echo "startup_ms=$((($(date +%s%N) - began) / 1000000))"
    local name proto p
    while read -r name proto p; do
        [ -n "$name" ] && echo "listener.$name=127.0.0.1:$p"
    done <"$dir/listeners"
    if [ $secure = 1 ]; then secure_report "$dir/tls"; fi
    if [ $authorizer = 1 ]; then authorizer_report; fi
}

# start_cluster DIR NODES LIFELINE OWNER HEAP PROPS...: `start --nodes NODES`. Each node is a
# handle of its own under DIR; they share the cluster id and the quorum, and start side by side
# (a node is ready only once a quorum of them runs).
start_cluster() {
    local dir="$1" nodes="$2" lifeline="$3" owner="$4" heap="$5" began i node attempt rc
    shift 5
    began="$(date +%s%N)"
    dir="$(handle_dir "$dir")"
    echo "$nodes" >"$dir/nodes"
    random_uuid >"$dir/cluster_id"
    if [ -n "$lifeline" ]; then start_watchdog "$dir" "$lifeline" "$owner"; fi
    local all=()
    for i in $(seq "$nodes"); do
        node="$dir/node-$i"
        all+=("$node")
        mkdir -p "$node"
        init_handle "$node" "$heap"
        : >"$node/listeners"
        : >"$node/format_args"
        cp "$dir/cluster_id" "$node/cluster_id"
        echo "$i" >"$node/node_id"
        echo $((nodes < 3 ? nodes : 3)) >"$node/replicas"
        printf '%s\n' "$@" >"$node/props"
        write_log4j "$node"
    done
    for attempt in 1 2 3 4 5; do
        for node in "${all[@]}"; do : >"$node/port"; : >"$node/controller_port"; done
        for node in "${all[@]}"; do
            random_free_port "${all[@]}" >"$node/port"
            random_free_port "${all[@]}" >"$node/controller_port"
        done
        local voters=""
        for i in $(seq "$nodes"); do
            voters="$voters${voters:+,}$i@127.0.0.1:$(cat "$dir/node-$i/controller_port")"
        done
        for node in "${all[@]}"; do
            echo "$voters" >"$node/voters"
            write_config "$node"
            format_dir "$node"
        done
        for node in "${all[@]}"; do spawn "$node"; done
        rc=0
        for node in "${all[@]}"; do
            await_ready "$node" || { rc=$?; break; }
        done
        [ $rc = 2 ] || break
        for node in "${all[@]}"; do kill_broker "$node"; done
        echo "--- [kafka-broker.sh] a port was taken; attempt $attempt failed" >>"$dir/node-1/broker.log"
    done
    if [ $rc != 0 ]; then
        "$SELF" stop "$dir" >/dev/null 2>&1 || true
        die "could not start a cluster of $nodes nodes"
    fi
    local bootstrap=""
    for node in "${all[@]}"; do bootstrap="$bootstrap${bootstrap:+,}127.0.0.1:$(cat "$node/port")"; done
    echo "bootstrap=$bootstrap"
    echo "handle=$dir"
    echo "startup_ms=$((($(date +%s%N) - began) / 1000000))"
    for i in $(seq "$nodes"); do
        echo "node.$i.handle=$dir/node-$i"
        echo "node.$i.pid=$(cat "$dir/node-$i/pid")"
        echo "node.$i.bootstrap=127.0.0.1:$(cat "$dir/node-$i/port")"
    done
}

cmd_restart() {
    local dir="${1:-}" fresh=0
    check_handle "$dir"
    [ "${2:-}" = --fresh ] && fresh=1
    local began rc=1 attempt
    began="$(date +%s%N)"
    kill_broker "$dir"
    [ $fresh = 0 ] || format_dir "$dir"
    # Same ports as before (clients keep their bootstrap address); right after a kill the port
    # can still be held briefly, so retry a few times.
    for attempt in 1 2 3 4 5; do
        rc=0
        launch "$dir" || rc=$?
        [ $rc = 2 ] || break
        sleep 0.5
    done
    [ $rc = 0 ] || die "broker in $dir did not restart"
    echo "bootstrap=127.0.0.1:$(cat "$dir/port")"
    echo "handle=$dir"
    echo "pid=$(cat "$dir/pid")"
    echo "startup_ms=$((($(date +%s%N) - began) / 1000000))"
}

cmd_stop() {
    local dir="${1:-}" wd node
    [ -n "$dir" ] && [ -d "$dir" ] || return 0
    kill_broker "$dir"
    for node in "$dir"/node-*; do
        [ -f "$dir/nodes" ] && [ -d "$node" ] || continue
        kill_broker "$node"
    done
    if [ -f "$dir/watchdog" ]; then
        wd="$(cat "$dir/watchdog")"
        # Not when the watchdog itself is stopping us: it is then our parent, or (bash runs the
        # last command of a subshell with exec) this very process.
        if [ -n "$wd" ] && [ "$wd" != "$PPID" ] && [ "$wd" != $$ ]; then
            kill "$wd" 2>/dev/null || true
        fi
    fi
    # Only a directory this script laid out is deleted.
    if [ -f "$dir/cluster_id" ]; then rm -rf "$dir"; fi
}

cmd_tool() {
    local java libs class="${1:-}"
    [ -n "$class" ] || die "tool: which main class?"
    shift
    java="$(java_bin)"
    libs="$(kafka_libs)"
    local log4j
    log4j="$(mktemp -d "${TMPDIR:-/tmp}/mm2-kafka-tool.XXXXXX")"
    write_log4j "$log4j"
    local rc=0
    # shellcheck disable=SC2046
    "$java" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData $(cds_flags) \
        -Dlog4j2.configurationFile="$log4j/log4j2.properties" -cp "$libs/*" "$class" "$@" || rc=$?
    rm -rf "$log4j"
    return $rc
}

# Writes the class-data archive (see cds_archive), unless it exists: a broker started with
# -XX:ArchiveClassesAtExit, then shut down in order (SIGTERM), which is when the JVM writes it.
# Prints its path.
cmd_cds_archive() {
    local archive dir pid waited=0
    archive="$(cds_archive)"
    if [ -f "$archive" ]; then
        echo "$archive"
        return 0
    fi
    mkdir -p "$(dirname "$archive")"
    dir="$(mktemp -d "${TMPDIR:-/tmp}/mm2-kafka-cds.XXXXXX")"
    # The JVM writes the archive to a name of its own; it is renamed into place whole.
    MM2_KAFKA_CDS_DUMP="$archive.partial.$$" MM2_BROKER_TAG=cds-archive \
        cmd_start --dir "$dir" --owner-pid $$ >/dev/null \
        || die "cds-archive: the broker did not start (log: $dir/broker.log)"
    pid="$(cat "$dir/pid")"
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null; do
        if [ $waited -ge 1200 ]; then
            tail -n 20 "$dir/broker.log" >&2
            cmd_stop "$dir"
            die "cds-archive: the broker did not shut down within 120 s"
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    if [ ! -s "$archive.partial.$$" ]; then
        tail -n 20 "$dir/broker.log" >&2
        cmd_stop "$dir"
        rm -f "$archive.partial.$$"
        die "cds-archive: the JVM wrote no archive (log above)"
    fi
    mv -f "$archive.partial.$$" "$archive"
    cmd_stop "$dir"
    echo "$archive"
}

case "${1:-}" in
    start) shift; cmd_start "$@" ;;
    cds-archive) cmd_cds_archive ;;
    kill) check_handle "${2:-}"; kill_broker "$2" ;;
    restart) shift; cmd_restart "$@" ;;
    stop) cmd_stop "${2:-}" ;;
    status) check_handle "${2:-}"; pid="$(cat "$2/pid")"; [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null ;;
    tool) shift; cmd_tool "$@" ;;
    version) kafka_version ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
