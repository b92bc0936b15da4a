# Sourced, not run, by scripts/test.sh: its stages (run_stage, note, fail) and the table of stage
# times that ends every run, passed or failed.
#
# Uses: ROOT. begin_stages sets STARTED (the run's start, in $SECONDS) and STAGES (the file of
# finished stages), and exports MM2_BROKER_START_LOG and MM2_BROKER_CPU_LOG; every other function
# here needs it to have run.

# Sets CPU_NOW to the CPU seconds (user + system) of this shell's finished children so far.
# shellcheck source=scripts/lib/cpu-seconds.sh
source "$ROOT/scripts/lib/cpu-seconds.sh"

begin_stages() {
    STARTED=$SECONDS
    # One line per finished stage: seconds, result, name, CPU seconds (lanes append from their
    # subshells).
    STAGES="$(mktemp "${TMPDIR:-/tmp}/mm2-test-stages.XXXXXX")"
    # Kafka broker JVMs (scripts/kafka-broker.sh writes a line at each start and, with its CPU
    # seconds, at each kill): nobody waits for them, so the cpu column of the table never counts
    # them; print_broker_cpu sums these files.
    export MM2_BROKER_START_LOG="$STAGES.broker-starts" MM2_BROKER_CPU_LOG="$STAGES.broker-cpu"
}

print_stage_table() {
    echo "---- stage times (lanes overlap: the total is wall time, not the sum; cpu: user+system"
    echo "     seconds of the stage's finished child processes, brokers shared across stages excluded)"
    awk -F'\t' '{ printf "%6s s  %6s cpu  %-6s %s\n", $1, $4, $2, $3 }' "$STAGES"
    children_cpu
    printf '%6s s  %6s cpu  %-6s %s\n' "$((SECONDS - STARTED))" "$CPU_NOW" "" "total (wall)"
    print_broker_cpu
}
print_broker_cpu() {
    touch "$MM2_BROKER_START_LOG" "$MM2_BROKER_CPU_LOG"
    awk -F'\t' '
        FNR == NR { n = split($0, f, " "); for (i = 1; i <= n; i++) if (f[i] ~ /^tag=/) {
                        t = substr(f[i], 5); starts[t == "" ? "-" : t]++; total_starts++ }
                    next }
        { t = ($1 == "" ? "-" : $1); cpu[t] += $2; total_cpu += $2; seen[t] = 1 }
        END {
            for (t in starts) seen[t] = 1
            line = ""
            for (t in seen) line = line sprintf("%s%s %d/%.0f", line == "" ? "" : ", ", t, starts[t], cpu[t])
            printf "       kafka broker JVMs: %d starts, %.0f CPU-s (not in the cpu column; by stage tag, starts/CPU-s: %s)\n",
                total_starts, total_cpu, line
        }' "$MM2_BROKER_START_LOG" "$MM2_BROKER_CPU_LOG"
}
children_cpu() {
    local file="$STAGES.times.$BASHPID"
    times >"$file"
    CPU_NOW="$(cpu_seconds_of_times "$file")"
}
fail() {
    print_stage_table >&2
    echo "test.sh: FAILED at stage: $*" >&2
    exit 1
}
# run_stage NAME COMMAND...: runs one stage, records its time; stops the run when it fails.
run_stage() {
    local name="$1" began=$SECONDS rc=0 cpu_before
    shift
    echo "==> [$((SECONDS - STARTED))s] $name"
    children_cpu
    cpu_before=$CPU_NOW
    MM2_BROKER_TAG="$(stage_tag "$name")" "$@" || rc=$?
    children_cpu
    printf '%s\t%s\t%s\t%s\n' "$((SECONDS - began))" "$([ $rc = 0 ] && echo ok || echo FAILED)" "$name" \
        "$((CPU_NOW - cpu_before))" >>"$STAGES"
    [ $rc = 0 ] || fail "$name"
}
# The broker tag of a stage (scripts/kafka-broker.sh): its name's first word, e.g. ffi-tests.
stage_tag() {
    local word="${1%%[ :]*}"
    echo "${word//\//-}"
}
note() { echo "==> [$((SECONDS - STARTED))s] $*"; }
