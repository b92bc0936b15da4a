#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer's instrumentation and AddressSanitizer (nightly Rust)
# and runs each for a fixed time. scripts/test.sh runs this; scripts/soak.sh runs it longer.
#   bash fuzz/run.sh [SECONDS]      SECONDS per target (default: MM2_FUZZ_SECONDS, else 30)
#
# The flags are the ones `cargo fuzz build` passes (sanitizer-coverage for libFuzzer, --cfg
# fuzzing, debug assertions, ASan, release profile), given to a plain `cargo +nightly build`, so
# no `cargo install cargo-fuzz` is needed; `cargo fuzz run decode_records` still works by hand.
# Inputs found to be interesting are kept in fuzz/corpus/<target>/ (gitignored), a crashing
# input in fuzz/artifacts/<target>/. Fails, never skips: without a nightly toolchain it exits 1.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
seconds="${1:-${MM2_FUZZ_SECONDS:-30}}"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"

die() {
    echo "fuzz/run.sh: FAILED: $*" >&2
    exit 1
}

cargo +nightly --version >/dev/null 2>&1 \
    || die "no nightly Rust toolchain (rustup toolchain install nightly --profile minimal): -Zsanitizer needs one"

flags=(
    --cfg fuzzing
    -Cpasses=sancov-module
    -Cllvm-args=-sanitizer-coverage-level=4
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
    -Cllvm-args=-sanitizer-coverage-pc-table
    -Cllvm-args=-sanitizer-coverage-trace-compares
    -Cdebug-assertions
    -Coverflow-checks
    -Zsanitizer=address
)
# LLVM's prebuilt libFuzzer when scripts/setup-test-env.sh found one (MM2_FUZZ_LIBFUZZER):
# libfuzzer-sys then links it instead of compiling libFuzzer's C++ sources (most of the build).
if [ -n "${MM2_FUZZ_LIBFUZZER:-}" ]; then
    [ -f "$MM2_FUZZ_LIBFUZZER" ] || die "MM2_FUZZ_LIBFUZZER names no file: $MM2_FUZZ_LIBFUZZER"
    echo "==> libFuzzer: $MM2_FUZZ_LIBFUZZER (prebuilt)"
    export CUSTOM_LIBFUZZER_PATH="$MM2_FUZZ_LIBFUZZER"
else
    echo "==> libFuzzer: libfuzzer-sys's own copy, compiled now (MM2_FUZZ_LIBFUZZER unset)"
    unset CUSTOM_LIBFUZZER_PATH
fi
# An explicit --target keeps the flags off build scripts and proc macros (thiserror's).
RUSTFLAGS="${flags[*]}" cargo +nightly build --release --bins --target "$TRIPLE" \
    || die "cargo +nightly build of the fuzz targets (a build error, not a crash)"

targets="$(sed -n 's/^name = "\(.*\)"$/\1/p' <(sed -n '/^\[\[bin\]\]/,/^$/p' Cargo.toml))"
[ -n "$targets" ] || die "no [[bin]] fuzz targets in fuzz/Cargo.toml"
for target in $targets; do
    mkdir -p "corpus/$target" "artifacts/$target"
    echo "==> fuzz $target for ${seconds}s"
    "target/$TRIPLE/release/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" "corpus/$target" \
        || die "fuzz target $target (crash input under fuzz/artifacts/$target/)"
done
