#!/usr/bin/env bash
# Cross-builds the C library (cdylib + staticlib, default features: TLS, SASL, gzip, zstd) for
# linux-aarch64 on an x86_64 Debian machine. From any directory:
#   bash scripts/cross-aarch64.sh [--release] [--print-libdir]
#
# Needs what scripts/setup-test-env.sh installs: the rustup target aarch64-unknown-linux-gnu,
# Debian's cross gcc/g++ (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu) and the arm64 OpenSSL
# and zlib headers and libraries (libssl-dev:arm64, zlib1g-dev:arm64, with
# `dpkg --add-architecture arm64`).
#
# Writes two variants under target/cross/aarch64-unknown-linux-gnu/{debug,release}/, each
# copied into a directory of its own right after its build, since both come out of cargo as the
# same file (read the copies, never cargo's own output, which the next build of either replaces):
#   default/libmm2_checkpoint.so   the library as users get it (default features): the jar's;
#   testkit/libmm2_checkpoint.{so,a} and testkit/rustc-notes.txt   with the test-only mock
#       clusters (feature `embedded`: the C tests under emulation and the Java test kit), and the
#       native libraries a static link needs (rustc's native-static-libs note).
# --print-libdir prints the directory holding default/ and testkit/, and builds nothing.
# target/cross, not target/: cargo locks the host directory (target/debug) for the whole of a
# --target build too, and a cold cross build of librdkafka takes minutes, during which every
# host cargo command (scripts/test.sh's lanes run some) would wait. MM2_CROSS_TARGET_DIR moves it.
#
# Other targets: the same variables with another triple and its cross toolchain (docs/C_API.md,
# "Platforms").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TARGET=aarch64-unknown-linux-gnu
GNU=aarch64-linux-gnu
PROFILE=debug
CARGO_PROFILE_ARGS=()
PRINT_LIBDIR=0
for arg in "$@"; do
    case "$arg" in
        --release)
            PROFILE=release
            CARGO_PROFILE_ARGS=(--release)
            ;;
        --print-libdir) PRINT_LIBDIR=1 ;;
        *)
            echo "usage: $0 [--release] [--print-libdir]" >&2
            exit 2
            ;;
    esac
done
CROSS_TARGET_DIR="${MM2_CROSS_TARGET_DIR:-$ROOT/target/cross}"
LIBDIR="$CROSS_TARGET_DIR/$TARGET/$PROFILE"
if [ "$PRINT_LIBDIR" = 1 ]; then
    echo "$LIBDIR"
    exit 0
fi

die() {
    echo "cross-aarch64.sh: ERROR: $*" >&2
    exit 1
}
command -v "$GNU-gcc" >/dev/null || die "$GNU-gcc not found (scripts/setup-test-env.sh installs gcc-$GNU)"
command -v "$GNU-g++" >/dev/null || die "$GNU-g++ not found (scripts/setup-test-env.sh installs g++-$GNU)"
[ -f "/usr/lib/$GNU/pkgconfig/openssl.pc" ] || die "no arm64 OpenSSL (apt-get install libssl-dev:arm64)"
[ -f "/usr/lib/$GNU/pkgconfig/zlib.pc" ] || die "no arm64 zlib (apt-get install zlib1g-dev:arm64)"
rustup target list --installed 2>/dev/null | grep -qx "$TARGET" \
    || die "the Rust standard library for $TARGET is missing (rustup target add $TARGET)"

# shellcheck source=scripts/lib/cross-env.sh
source "$ROOT/scripts/lib/cross-env.sh"
cross_env_aarch64

mkdir -p "$LIBDIR/default" "$LIBDIR/testkit"
# keep SRC DEST: a copy that appears whole (renamed into place), so a reader never sees a
# half-written library, even when this script runs again beside one.
keep() {
    cp "$1" "$2.partial.$$" && mv -f "$2.partial.$$" "$2"
}
# The library users get; kept aside, since the next build takes its place (only this package's
# own crates are compiled again: the features of every dependency stay the same).
cargo build -p mm2-checkpoint-capi --lib --target "$TARGET" --target-dir "$CROSS_TARGET_DIR" \
    "${CARGO_PROFILE_ARGS[@]}" || die "cargo build --target $TARGET (default features) failed"
keep "$LIBDIR/libmm2_checkpoint.so" "$LIBDIR/default/libmm2_checkpoint.so"
notes="$LIBDIR/rustc-notes.txt"
# With the mock clusters (`embedded`).
cargo rustc -p mm2-checkpoint-capi --lib --features embedded --target "$TARGET" \
    --target-dir "$CROSS_TARGET_DIR" "${CARGO_PROFILE_ARGS[@]}" \
    -- --print=native-static-libs 2>"$notes" \
    || {
        cat "$notes" >&2
        die "cargo rustc --target $TARGET failed"
    }
for f in libmm2_checkpoint.so libmm2_checkpoint.a rustc-notes.txt; do
    [ -f "$LIBDIR/$f" ] || die "cargo did not write $LIBDIR/$f"
    keep "$LIBDIR/$f" "$LIBDIR/testkit/$f"
done
echo "cross-aarch64.sh: built $LIBDIR/default/libmm2_checkpoint.so and $LIBDIR/testkit/libmm2_checkpoint.{so,a} (with the mock clusters)"
