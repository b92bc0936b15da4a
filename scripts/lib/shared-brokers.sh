# Sourced, not run, by scripts/test.sh: the run's shared Kafka brokers, and the check that no
# stage leaves a broker of its own running.
#
# Three brokers are started once, as soon as the setup has installed Kafka, with
# scripts/kafka-broker.sh, and shared by every stage: a plain source and a plain target broker
# (MM2_SHARED_BOOTSTRAP, MM2_SHARED_TARGET_BOOTSTRAP) and a secured one (MM2_SHARED_SECURE_START
# names the file with its start output; tests/support/secure_kafka.rs reads it). Tests keep to
# unique names on them. Tests that kill, restart or otherwise disturb a broker, and the interop
# differential (which compares every group of its clusters), start their own.
#
# Uses: ROOT (the working directory), STAGES, note, fail and stage_tag (scripts/lib/stages.sh),
# SHARED_STARTER (the pid of `start_shared_brokers &`, which after_setup, scripts/lib/lanes.sh,
# records). begin_shared_brokers sets SHARED_DIR, SHARED_HANDLES, SHARED_PIDS, preexisting and
# SHARING (1, or 0 under MM2_TEST_SKIP_BROKER_SHARING=1), and the EXIT trap that stops the
# brokers; every other function here needs it to have run.

begin_shared_brokers() {
    SHARED_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mm2-shared-brokers.XXXXXX")"
    SHARED_HANDLES=()
    SHARED_PIDS=()
    trap stop_shared_brokers EXIT
    # Brokers from an earlier, interrupted run would be blamed on this one.
    preexisting="$(leaked_brokers | tr '\n' ' ')"
    if [ -n "$preexisting" ]; then
        echo "test.sh: note: Kafka brokers of this tree already running before the tests (pids $preexisting); leak checks are off" >&2
    fi
    SHARING=1
    if [ "${MM2_TEST_SKIP_BROKER_SHARING:-0}" = 1 ]; then
        SHARING=0
        note "shared brokers: off (MM2_TEST_SKIP_BROKER_SHARING=1); every test binary starts its own"
        unset MM2_SHARED_BOOTSTRAP MM2_SHARED_TARGET_BOOTSTRAP MM2_SHARED_SECURE_START
    fi
}

stop_shared_brokers() {
    local h
    for h in "${SHARED_HANDLES[@]+"${SHARED_HANDLES[@]}"}"; do
        scripts/kafka-broker.sh stop "$h" >/dev/null 2>&1 || true
    done
    SHARED_HANDLES=()
    SHARED_PIDS=()
    rm -rf "$SHARED_DIR"
}

# Kafka brokers that scripts/kafka-broker.sh started from this tree (their JVMs carry
# -Dmm2.broker.root=<this tree>) and that are still running, other than the run's shared
# ones: a test that leaked its broker. With a TAG, only those a stage of that tag started.
leaked_brokers() {
    local tag="${1:-}" file pid shared
    # One grep over every process's NUL-separated arguments (-z: each argument is a line), not a
    # tr and a grep per process: with a few hundred processes that costs seconds of CPU per call,
    # and check_no_leaked_brokers calls it up to 100 times while a watchdog is still at work.
    while IFS= read -r file; do
        pid="${file#/proc/}"
        pid="${pid%/cmdline}"
        for shared in "${SHARED_PIDS[@]+"${SHARED_PIDS[@]}"}"; do
            [ "$pid" != "$shared" ] || continue 2
        done
        if [ -z "$tag" ] || grep -qzxF -- "-Dmm2.broker.tag=$tag" "$file" 2>/dev/null; then
            echo "$pid"
        fi
    done < <(grep -lzxF -- "-Dmm2.broker.root=$ROOT" /proc/[0-9]*/cmdline 2>/dev/null || true)
    return 0
}
# check_no_leaked_brokers STAGE-NAME: fails the run if brokers that stage started still run.
check_no_leaked_brokers() {
    local leaked waited=0 tag
    [ -z "$preexisting" ] || return 0
    tag="$(stage_tag "$1")"
    # A test binary's exit closes its lifeline pipes; the watchdogs then kill the brokers,
    # which takes a moment.
    while leaked="$(leaked_brokers "$tag" | tr '\n' ' ')" && [ -n "$leaked" ] && [ $waited -lt 100 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    if [ -n "$leaked" ]; then
        echo "test.sh: Kafka brokers left running after $1: pids $leaked" >&2
        printf '0\tFAILED\t%s\n' "$1 leaked Kafka brokers" >>"$STAGES"
        fail "$1 leaked Kafka brokers"
    fi
}

# The three shared brokers, started at once in the background right after setup (much of a
# start is waiting), and awaited just before the stages that use them.
start_shared_brokers() {
    local name
    for name in source target secure; do
        MM2_BROKER_TAG=shared scripts/kafka-broker.sh start --owner-pid $$ \
            $([ $name != secure ] || echo --secure) \
            >"$SHARED_DIR/$name.start" 2>"$SHARED_DIR/$name.err" &
    done
    wait
}
await_shared_brokers() {
    local name handle pid rc=0
    wait "$SHARED_STARTER" || true
    for name in source target secure; do
        handle="$(sed -n 's/^handle=//p' "$SHARED_DIR/$name.start")"
        pid="$(sed -n 's/^pid=//p' "$SHARED_DIR/$name.start")"
        if [ -n "$handle" ]; then SHARED_HANDLES+=("$handle"); fi
        if [ -n "$pid" ]; then SHARED_PIDS+=("$pid"); fi
        if ! grep -q '^bootstrap=' "$SHARED_DIR/$name.start"; then
            cat "$SHARED_DIR/$name.err" >&2
            echo "test.sh: the shared $name broker did not start" >&2
            rc=1
        else
            echo "shared $name broker: $(sed -n 's/^bootstrap=//p' "$SHARED_DIR/$name.start") (started in $(sed -n 's/^startup_ms=//p' "$SHARED_DIR/$name.start") ms)"
        fi
    done
    return $rc
}
# After await_shared_brokers, in the main shell, before the lanes that use them start.
export_shared_brokers() {
    MM2_SHARED_BOOTSTRAP="$(sed -n 's/^bootstrap=//p' "$SHARED_DIR/source.start")"
    MM2_SHARED_TARGET_BOOTSTRAP="$(sed -n 's/^bootstrap=//p' "$SHARED_DIR/target.start")"
    MM2_SHARED_SECURE_START="$SHARED_DIR/secure.start"
    export MM2_SHARED_BOOTSTRAP MM2_SHARED_TARGET_BOOTSTRAP MM2_SHARED_SECURE_START
}
