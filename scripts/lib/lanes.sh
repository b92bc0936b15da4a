# Sourced, not run, by scripts/test.sh: run_lanes, the scheduler of its lanes.
#
# lane_setup and lane_build start at once. Once lane_setup has ended, after_setup loads the
# environment the setup wrote and starts the shared brokers in the background; once both have
# ended, after_setup_and_build awaits the brokers and exports MM2_SHARED_* (both in the main
# shell, so every later lane inherits that), and then every lane of LATE_LANES starts, each at the
# niceness LANE_NICE gives it (if any). Each lane runs in a background subshell with its output
# in a file, printed when the lane ends. The first lane that fails kills the others and fails the
# run with the name of the first stage recorded as failed. MM2_TEST_SERIAL=1 runs the same in the
# main shell, one lane after another, in the order above (LATE_LANES in its order).
#
# Uses, from scripts/test.sh: ROOT, the functions lane_setup, lane_build and every lane LATE_LANES
# names, the array LATE_LANES, the associative array LANE_NICE; STARTED, STAGES, run_stage, note
# and fail (scripts/lib/stages.sh); SHARING, start_shared_brokers, await_shared_brokers and
# export_shared_brokers (scripts/lib/shared-brokers.sh). Sets SHARED_STARTER (the brokers'
# starter, for await_shared_brokers), LANE_LOGS, LANE_OF and its loop's variables, as globals.

# After lane_setup: its tools.
load_setup_env() {
    # shellcheck source=/dev/null
    source "$ROOT/.tools/env.sh"
    export MM2_KAFKA_LIBS MM2_KAFKA_JAVA MM2_JAVA17 MM2_JAVA22 MM2_JAVAC22 JAVA_HOME
}
# In the main shell, once lane_setup has ended: its environment, and the shared brokers started
# in the background (much of a start is waiting), awaited by after_setup_and_build.
after_setup() {
    load_setup_env
    if [ $SHARING = 1 ]; then
        note "starting the shared brokers (plain source, plain target, secure) in the background"
        start_shared_brokers &
        SHARED_STARTER=$!
    fi
}
# In the main shell, once both lane_setup and lane_build have ended, before the late lanes start.
after_setup_and_build() {
    if [ $SHARING = 1 ]; then
        run_stage "shared brokers: awaiting the three started after setup" await_shared_brokers
        export_shared_brokers
    fi
}

# start_lane LANE: starts the function LANE in a background subshell (its own process group under
# set -m), at its niceness.
start_lane() {
    if [ -n "${LANE_NICE[$1]:-}" ]; then
        (renice -n "${LANE_NICE[$1]}" -p "$BASHPID" >/dev/null && "$1") >"$LANE_LOGS/$1.log" 2>&1 &
    else
        ("$1") >"$LANE_LOGS/$1.log" 2>&1 &
    fi
    LANE_OF[$!]="$1"
    note "lane started: $1"
}

run_lanes() {
    if [ "${MM2_TEST_SERIAL:-0}" = 1 ]; then
        # One after another; lane_aarch64 before lane_java, which waits for its library.
        lane_setup
        after_setup
        lane_build
        after_setup_and_build
        for lane in "${LATE_LANES[@]}"; do "$lane"; done
    else
        # Job control: each lane in a process group of its own, so a failure kills a whole lane.
        set -m
        LANE_LOGS="$(mktemp -d "${TMPDIR:-/tmp}/mm2-test-lanes.XXXXXX")"
        declare -gA LANE_OF=()
        start_lane lane_setup
        start_lane lane_build
        setup_done=0
        build_done=0
        while [ "${#LANE_OF[@]}" -gt 0 ]; do
            rc=0
            wait -n -p done_pid "${!LANE_OF[@]}" || rc=$?
            lane="${LANE_OF[$done_pid]}"
            unset "LANE_OF[$done_pid]"
            echo "---- $lane (exit $rc, at $((SECONDS - STARTED)) s)"
            cat "$LANE_LOGS/$lane.log"
            if [ $rc != 0 ]; then
                for p in "${!LANE_OF[@]}"; do kill -- -"$p" 2>/dev/null || true; done
                wait 2>/dev/null || true
                failed="$(awk -F'\t' '$2 == "FAILED" { print $3; exit }' "$STAGES")"
                fail "${failed:-$lane}"
            fi
            case "$lane" in
                lane_setup)
                    setup_done=1
                    after_setup
                    ;;
                lane_build) build_done=1 ;;
            esac
            if [ "$lane" = lane_setup ] || [ "$lane" = lane_build ]; then
                if [ $setup_done = 1 ] && [ $build_done = 1 ]; then
                    after_setup_and_build
                    for late in "${LATE_LANES[@]}"; do start_lane "$late"; done
                fi
            fi
        done
        set +m
        rm -rf "$LANE_LOGS"
    fi
}
