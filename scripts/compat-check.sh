#!/usr/bin/env bash
# The compatibility gates (docs/VERSIONING.md): compares this tree with the baseline of the last
# release, abi/<version>/, and fails on a breaking change the version numbers do not declare.
#
#   scripts/compat-check.sh --lib PATH [--baseline abi/0.1.0]       # C ABI and Rust API
#   scripts/compat-check.sh --java-jar JAR [--baseline abi/0.1.0]   # Java API
#   scripts/compat-check.sh --write-baseline VERSION --java-jar JAR # keep this tree as a release's baseline
#   scripts/compat-check.sh --write-api                              # accept a change of the Rust API
#
# C ABI (against PATH, the default-feature libmm2_checkpoint.so): every function of the
# baseline's symbol list is exported; every function prototype of the baseline header is the
# same in the current header (the compiler checks: the baseline's declarations are repeated
# after the current header, and a changed one is a conflicting declaration); every struct's size,
# alignment and field offsets and sizes and every enum value of the baseline are unchanged. A
# difference is allowed only when MM2_CHECKPOINT_ABI_VERSION is higher than the baseline's.
#
# Rust API: the public items of the mm2-checkpoint crate (scripts/lib/public-api.py lists them
# from rustdoc's JSON, with what it re-exports from the core and Kafka layers) include every item
# of the baseline's list, unless the crate version's SemVer declares a break (the major, or the
# minor before 1.0); and they are exactly the committed list abi/rust-api.txt, so that every
# change of the API, an addition too, is a deliberate one (`--write-api` rewrites the list).
#
# Java API (against JAR, java/verify.sh's mm2-checkpoint jar): japicmp compares its public
# classes with the baseline's (abi/<version>/java-api.jar: the release jar's classes, without its
# native libraries); any binary or source incompatibility fails, unless the Java version
# (java/parent/pom.xml) declares a break as SemVer does. japicmp's jars come from
# scripts/setup-test-env.sh (MM2_JAPICMP_LIBS).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
die() {
    echo "compat-check.sh: $*" >&2
    exit 1
}

LIB="" BASELINE="" WRITE="" JAVA_JAR="" WRITE_API=""
while [ $# -gt 0 ]; do
    case "$1" in
        --lib) LIB="${2:?}"; shift 2 ;;
        --java-jar) JAVA_JAR="${2:?}"; shift 2 ;;
        --baseline) BASELINE="${2:?}"; shift 2 ;;
        --write-baseline) WRITE="${2:?}"; shift 2 ;;
        --write-api) WRITE_API=1; shift ;;
        *) die "unknown argument: $1 (see the comment at the top)" ;;
    esac
done
if [ -z "$BASELINE" ]; then
    BASELINE="abi/$(find abi -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V | tail -n 1)"
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mm2-compat.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# declares_break OLD NEW: whether version NEW may break what OLD offered (SemVer: a higher major,
# or before 1.0 a higher minor).
declares_break() {
    local o_major o_minor n_major n_minor
    IFS=. read -r o_major o_minor _ <<<"$1"
    IFS=. read -r n_major n_minor _ <<<"$2"
    [ "$n_major" -gt "$o_major" ] || { [ "$o_major" = 0 ] && [ "$n_major" = 0 ] && [ "$n_minor" -gt "$o_minor" ]; }
}

# The classes of a jar without its native libraries: what the Java API baseline keeps.
java_api_jar() {
    local jar="$1" out="$2" dir="$WORK/java-api-classes"
    rm -rf "$dir"
    mkdir -p "$dir"
    (cd "$dir" && unzip -q "$jar" && rm -rf native native-test META-INF/MANIFEST.MF) || die "cannot unpack $jar"
    jar --create --date=1980-01-01T00:00:02Z --file "$out" -C "$dir" . || die "cannot write $out"
}

# The Java gate: japicmp, its report on stderr; false when it finds an incompatible change.
japicmp_compatible() {
    local old="$1" new="$2"
    [ -n "${MM2_JAPICMP_LIBS:-}" ] && [ -d "$MM2_JAPICMP_LIBS" ] \
        || die "MM2_JAPICMP_LIBS names no directory (scripts/setup-test-env.sh copies japicmp there)"
    java -cp "$MM2_JAPICMP_LIBS/*" japicmp.JApiCmp --old "$old" --new "$new" -a public \
        --only-incompatible --ignore-missing-classes \
        --error-on-binary-incompatibility --error-on-source-incompatibility >"$WORK/japicmp.txt" 2>&1
}

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
    # rustdoc's JSON output is unstable; RUSTC_BOOTSTRAP lets the stable toolchain give it. The
    # lower layers' JSON lets the list follow what the API re-exports from them.
    local krate doc="${CARGO_TARGET_DIR:-target}/doc"
    for krate in mm2-checkpoint mm2-checkpoint-core mm2-checkpoint-kafka; do
        RUSTC_BOOTSTRAP=1 cargo rustdoc -q -p "$krate" --lib -- -D warnings -Z unstable-options --output-format json \
            || die "cargo rustdoc --output-format json failed for $krate"
    done
    python3 scripts/lib/public-api.py "$doc/mm2_checkpoint.json" "$doc/mm2_checkpoint_core.json" \
        "$doc/mm2_checkpoint_kafka.json" \
        || die "the Rust API names types it does not export (above): export them from src/lib.rs or stop naming them"
}

if [ -n "$WRITE_API" ]; then
    rust_api >abi/rust-api.txt
    echo "compat-check.sh: wrote abi/rust-api.txt ($(wc -l <abi/rust-api.txt) items); say the change in CHANGELOG.md"
    exit 0
fi

if [ -n "$WRITE" ]; then
    out="abi/$WRITE"
    mkdir -p "$out"
    cp include/mm2_checkpoint.h include/mm2_checkpoint.symbols "$out/"
    rust_api >"$out/rust-api.txt"
    [ -n "$JAVA_JAR" ] || die "--write-baseline needs --java-jar JAR (the release's Java jar)"
    cmp -s "$out/rust-api.txt" abi/rust-api.txt || die "the Rust API is not abi/rust-api.txt: run --write-api first"
    java_api_jar "$(realpath "$JAVA_JAR")" "$out/java-api.jar"
    echo "compat-check.sh: wrote $out"
    exit 0
fi

[ -d "$BASELINE" ] || die "no baseline $BASELINE"
[ -n "$LIB" ] || [ -n "$JAVA_JAR" ] \
    || die "--lib PATH (the default-feature libmm2_checkpoint.so) or --java-jar JAR is required"
failures=0
report() {
    echo "compat-check.sh: BREAKING ($1): $2" >&2
    failures=$((failures + 1))
}

# ---- Java API
if [ -n "$JAVA_JAR" ]; then
    [ -f "$JAVA_JAR" ] || die "no jar at $JAVA_JAR"
    [ -f "$BASELINE/java-api.jar" ] || die "no $BASELINE/java-api.jar"
    old_version="${BASELINE##*/}"
    new_version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' java/parent/pom.xml | head -n 1)"
    java_api_jar "$(realpath "$JAVA_JAR")" "$WORK/new-java-api.jar"
    if japicmp_compatible "$BASELINE/java-api.jar" "$WORK/new-java-api.jar"; then
        echo "compat-check.sh: Java API: compatible with $BASELINE (japicmp, public classes)"
    elif ! grep -qi 'incompatib' "$WORK/japicmp.txt"; then
        cat "$WORK/japicmp.txt" >&2
        die "japicmp failed without naming an incompatibility"
    elif declares_break "$old_version" "$new_version"; then
        echo "compat-check.sh: Java API: incompatible changes, declared by $old_version -> $new_version"
    else
        grep -E '^[[:space:]]*(\*\*\*|---|\+\+\+)' "$WORK/japicmp.txt" | grep -iv 'UNCHANGED' | head -n 30 \
            | sed 's/^/  Java: /' >&2
        report "Java API" "japicmp found binary or source incompatible changes against $BASELINE, and the Java version $new_version does not declare a break"
    fi
    [ -n "$LIB" ] || { [ "$failures" = 0 ] || die "$failures gate(s) failed (docs/VERSIONING.md)"; exit 0; }
fi

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
        report "C ABI" "$c_breaks incompatible changes against $BASELINE, and MM2_CHECKPOINT_ABI_VERSION is still $new_abi (raise it in crates/capi/build.rs)"
    fi
else
    echo "compat-check.sh: C ABI: compatible with $BASELINE ($(wc -l <"$WORK/old.layout") layouts and values, $(grep -vc '^#' "$BASELINE/mm2_checkpoint.symbols") functions)"
fi

# ---- Rust API
if [ -n "$LIB" ]; then
    rust_api >"$WORK/rust-api.txt"
    if ! diff -u abi/rust-api.txt "$WORK/rust-api.txt" >"$WORK/rust-api.diff"; then
        head -n 60 "$WORK/rust-api.diff" >&2
        echo "compat-check.sh: UNRECORDED (Rust API): the public items differ from abi/rust-api.txt (above, - committed, + now); if the change is meant, scripts/compat-check.sh --write-api, and a CHANGELOG.md entry" >&2
        failures=$((failures + 1))
    else
        echo "compat-check.sh: Rust API: as committed in abi/rust-api.txt ($(wc -l <abi/rust-api.txt) items)"
    fi
fi
if [ -n "$LIB" ] && [ -f "$BASELINE/rust-api.txt" ]; then
    old_version="${BASELINE##*/}"
    new_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
    missing="$(comm -23 <(sort "$BASELINE/rust-api.txt") <(sort "$WORK/rust-api.txt"))"
    if [ -n "$missing" ]; then
        if declares_break "$old_version" "$new_version"; then
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
