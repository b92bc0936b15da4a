#!/usr/bin/env bash
# The compatibility gates (docs/VERSIONING.md): compares this tree with the baseline of the last
# release, abi/<version>/, and fails on a breaking change the version numbers do not declare.
#
#   scripts/compat-check.sh --lib PATH [--baseline abi/0.1.0]   # check
#   scripts/compat-check.sh --write-baseline VERSION             # keep this tree as a release's baseline
#
# C ABI (against PATH, the default-feature libmm2_checkpoint.so): every function of the
# baseline's symbol list is exported; every function prototype of the baseline header is the
# same in the current header (the compiler checks: the baseline's declarations are repeated
# after the current header, and a changed one is a conflicting declaration); every struct's size,
# alignment and field offsets and sizes and every enum value of the baseline are unchanged. A
# difference is allowed only when MM2_CHECKPOINT_ABI_VERSION is higher than the baseline's.
#
# Rust API: the public items of the mm2-checkpoint crate (scripts/lib/public-api.py lists them
# from rustdoc's JSON) include every item of the baseline's list, unless the crate version's
# SemVer declares a break (the major, or the minor before 1.0).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
die() {
    echo "compat-check.sh: $*" >&2
    exit 1
}

LIB="" BASELINE="" WRITE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --lib) LIB="${2:?}"; shift 2 ;;
        --baseline) BASELINE="${2:?}"; shift 2 ;;
        --write-baseline) WRITE="${2:?}"; shift 2 ;;
        *) die "unknown argument: $1 (see the comment at the top)" ;;
    esac
done
if [ -z "$BASELINE" ]; then
    BASELINE="abi/$(find abi -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V | tail -n 1)"
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mm2-compat.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

define_of() { sed -n "s/^#define $1 \"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}\$/\\1/p" "$2"; }

# Prints one line per struct (size, alignment), struct field (offset, size) and enum value of a
# header, from a probe program compiled against it.
layout_of() {
    local header="$1" probe="$WORK/probe-$2"
    python3 scripts/lib/c-layout-probe.py "$header" >"$probe.c" || die "cannot read the layouts of $header"
    gcc -std=c11 -I"$(dirname "$header")" -include "$header" "$probe.c" -o "$probe" \
        || die "the layout probe of $header does not compile"
    "$probe" | sort
}

rust_api() {
    # rustdoc's JSON output is unstable; RUSTC_BOOTSTRAP lets the stable toolchain give it.
    RUSTC_BOOTSTRAP=1 cargo rustdoc -q -p mm2-checkpoint --lib -- -D warnings -Z unstable-options --output-format json \
        || die "cargo rustdoc --output-format json failed"
    python3 scripts/lib/public-api.py target/doc/mm2_checkpoint.json
}

if [ -n "$WRITE" ]; then
    out="abi/$WRITE"
    mkdir -p "$out"
    cp include/mm2_checkpoint.h include/mm2_checkpoint.symbols "$out/"
    rust_api >"$out/rust-api.txt"
    echo "compat-check.sh: wrote $out"
    exit 0
fi

[ -d "$BASELINE" ] || die "no baseline $BASELINE"
[ -n "$LIB" ] || die "--lib PATH (the default-feature libmm2_checkpoint.so) is required"
failures=0
report() {
    echo "compat-check.sh: BREAKING ($1): $2" >&2
    failures=$((failures + 1))
}

# ---- C ABI
old_abi="$(define_of MM2_CHECKPOINT_ABI_VERSION "$BASELINE/mm2_checkpoint.h")"
new_abi="$(define_of MM2_CHECKPOINT_ABI_VERSION include/mm2_checkpoint.h)"
c_breaks=0
exported="$(nm -D --defined-only "$LIB" | awk '$2 == "T" {print $3}' | sort)"
while read -r sym; do
    grep -qx "$sym" <<<"$exported" || { echo "  C: $sym is no longer exported" >&2; c_breaks=$((c_breaks + 1)); }
done < <(grep -v '^#' "$BASELINE/mm2_checkpoint.symbols")
# The baseline's prototypes, repeated after the current header: any change is a conflict.
python3 scripts/lib/c-prototypes.py "$BASELINE/mm2_checkpoint.h" >"$WORK/prototypes.c"
if ! gcc -std=c11 -fsyntax-only -Werror -Iinclude -include include/mm2_checkpoint.h "$WORK/prototypes.c" 2>"$WORK/prototypes.err"; then
    sed 's/^/  C: /' "$WORK/prototypes.err" | grep -E 'error|note' | head -n 20 >&2
    c_breaks=$((c_breaks + 1))
fi
layout_of "$BASELINE/mm2_checkpoint.h" old >"$WORK/old.layout"
layout_of include/mm2_checkpoint.h new >"$WORK/new.layout"
while read -r line; do
    echo "  C: layout or value changed or removed: $line" >&2
    c_breaks=$((c_breaks + 1))
done < <(comm -23 "$WORK/old.layout" "$WORK/new.layout")
if [ "$c_breaks" -gt 0 ]; then
    if [ "$new_abi" -gt "$old_abi" ]; then
        echo "compat-check.sh: C ABI: $c_breaks incompatible changes, declared by ABI $old_abi -> $new_abi"
    else
        report "C ABI" "$c_breaks incompatible changes against $BASELINE, and MM2_CHECKPOINT_ABI_VERSION is still $new_abi (raise it in capi/build.rs)"
    fi
else
    echo "compat-check.sh: C ABI: compatible with $BASELINE ($(wc -l <"$WORK/old.layout") layouts and values, $(grep -vc '^#' "$BASELINE/mm2_checkpoint.symbols") functions)"
fi

# ---- Rust API
if [ -f "$BASELINE/rust-api.txt" ]; then
    old_version="${BASELINE##*/}"
    new_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
    rust_api >"$WORK/rust-api.txt"
    missing="$(comm -23 <(sort "$BASELINE/rust-api.txt") <(sort "$WORK/rust-api.txt"))"
    if [ -n "$missing" ]; then
        IFS=. read -r o_major o_minor _ <<<"$old_version"
        IFS=. read -r n_major n_minor _ <<<"$new_version"
        if [ "$n_major" -gt "$o_major" ] || { [ "$o_major" = 0 ] && [ "$n_major" = 0 ] && [ "$n_minor" -gt "$o_minor" ]; }; then
            echo "compat-check.sh: Rust API: $(wc -l <<<"$missing") items gone, declared by $old_version -> $new_version"
        else
            sed 's/^/  Rust: removed or changed: /' <<<"$missing" | head -n 30 >&2
            report "Rust API" "$(wc -l <<<"$missing") public items of $old_version are gone and the version $new_version does not declare a break"
        fi
    else
        echo "compat-check.sh: Rust API: compatible with $BASELINE ($(wc -l <"$BASELINE/rust-api.txt") items)"
    fi
fi

[ "$failures" = 0 ] || die "$failures gate(s) failed (docs/VERSIONING.md)"
