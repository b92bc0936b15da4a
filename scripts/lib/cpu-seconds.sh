# Sourced, not run, by scripts/test.sh and scripts/run-test-binaries.sh.
#
# cpu_seconds_of_times FILE: prints, as a whole number, the CPU seconds (user + system) of a
# shell's finished children from what bash's `times` wrote to FILE (its second line, e.g.
# "1m2.500s 0m3.250s"). The caller runs `times >FILE` itself, in the shell whose children are
# to count: in a subshell, `$(...)` or a pipeline, `times` would see none of them.
cpu_seconds_of_times() {
    awk 'NR == 2 {
        total = 0
        for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); total += p[1] * 60 + p[2] }
        printf "%d", total
    }' "$1"
}
