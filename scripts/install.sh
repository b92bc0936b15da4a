#!/usr/bin/env bash
# Installs the C library of mm2-checkpoint into a prefix: what `cargo cinstall` gives, without
# needing cargo-c.
#
#   scripts/install.sh --prefix /usr/local            # release build (default features), install
#   scripts/install.sh --prefix P --destdir STAGING   # the same, staged under STAGING (packagers)
#   scripts/install.sh --prefix P --from DIR --static-libs "-lz -lssl ..."   # install a library
#                                                     # already built in DIR (no cargo call)
#
# The installed tree:
#   include/mm2_checkpoint.h
#   lib/libmm2_checkpoint.so.<ABI>          the shared library, its SONAME (stripped in a release)
#   lib/libmm2_checkpoint.so -> .so.<ABI>   the development link (`-lmm2_checkpoint`)
#   lib/libmm2_checkpoint.a                 the static library
#   lib/pkgconfig/mm2_checkpoint.pc         pkg-config (Libs.private: a static link's needs)
#   lib/cmake/mm2_checkpoint/               find_package(mm2_checkpoint): imported targets
#                                           mm2_checkpoint::mm2_checkpoint (shared) and
#                                           mm2_checkpoint::mm2_checkpoint_static
#   lib/.debug/libmm2_checkpoint.so.<ABI>.debug  the shared library's debug info (a release
#                                           build), where its debuglink leads gdb and valgrind
#   lib/debug/.build-id/xx/yyyy.debug       the same file by build id (gdb's
#                                           `set debug-file-directory <prefix>/lib/debug`)
#   share/doc/mm2_checkpoint/               README.md, CHANGELOG.md, LICENSE, the symbol list
#
# Options: --prefix DIR (required), --destdir DIR, --target TRIPLE (cross build: cargo's
# --target; the cross toolchain as scripts/cross-aarch64.sh sets it up), --from DIR with
# --static-libs FLAGS (install that build; FLAGS as rustc's native-static-libs note gives them),
# --no-strip (keep debug info inside the shared library), --relocatable (the pkg-config file
# finds its prefix from its own place, for a tree unpacked anywhere), --features LIST (cargo features of
# mm2-checkpoint-capi beyond the defaults; for test kits only: `embedded` adds the mock clusters).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

die() {
    echo "install.sh: ERROR: $*" >&2
    exit 1
}
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

PREFIX="" DESTDIR_ARG="" TARGET="" FROM="" STATIC_LIBS="" DO_STRIP=1 FEATURES="" RELOCATABLE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="${2:?--prefix needs a directory}"; shift 2 ;;
        --destdir) DESTDIR_ARG="${2:?--destdir needs a directory}"; shift 2 ;;
        --target) TARGET="${2:?--target needs a triple}"; shift 2 ;;
        --from) FROM="${2:?--from needs a directory}"; shift 2 ;;
        --static-libs) STATIC_LIBS="${2?--static-libs needs flags}"; shift 2 ;;
        --no-strip) DO_STRIP=0; shift ;;
        --relocatable) RELOCATABLE=1; shift ;;
        --features) FEATURES="${2:?--features needs a list}"; shift 2 ;;
        -h | --help) usage ;;
        *) echo "install.sh: unknown argument: $1" >&2; usage ;;
    esac
done
[ -n "$PREFIX" ] || die "--prefix is required"
case "$PREFIX" in /*) ;; *) die "--prefix must be an absolute path (it is written into the pkg-config and CMake files)" ;; esac
DEST="${DESTDIR_ARG}${PREFIX}"

version="$(sed -n 's/^#define MM2_CHECKPOINT_VERSION "\(.*\)"$/\1/p' include/mm2_checkpoint.h)"
abi="$(sed -n 's/^#define MM2_CHECKPOINT_ABI_VERSION \([0-9]*\)$/\1/p' include/mm2_checkpoint.h)"
[ -n "$version" ] && [ -n "$abi" ] || die "include/mm2_checkpoint.h names no MM2_CHECKPOINT_VERSION or ABI version"

OBJCOPY=objcopy STRIP_PROGRAM=strip
if [ -n "$TARGET" ] && [ "$TARGET" != "$(rustc -vV | sed -n 's/^host: //p')" ]; then
    gnu="${TARGET/-unknown-/-}"
    OBJCOPY="$gnu-objcopy" STRIP_PROGRAM="$gnu-strip"
fi

if [ -z "$FROM" ]; then
    # Where cargo puts its output: CARGO_TARGET_DIR (or build.target-dir) when set, else target/.
    target_dir="$(cargo metadata --format-version 1 --no-deps \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')" \
        || die "cargo metadata failed"
    cargo_args=(--release -p mm2-checkpoint-capi --lib)
    [ -z "$FEATURES" ] || cargo_args+=(--features "$FEATURES")
    if [ -n "$TARGET" ]; then
        if [ "$TARGET" = aarch64-unknown-linux-gnu ]; then
            # The cross tools and the arm64 libraries, as scripts/cross-aarch64.sh uses them.
            # shellcheck source=scripts/lib/cross-env.sh
            source "$ROOT/scripts/lib/cross-env.sh"
            cross_env_aarch64
        fi
        cargo_args+=(--target "$TARGET")
        FROM="$target_dir/$TARGET/release"
    else
        FROM="$target_dir/release"
    fi
    notes="$(mktemp)"
    trap 'rm -f "$notes"' EXIT
    cargo rustc "${cargo_args[@]}" -- --print=native-static-libs 2>"$notes" || { cat "$notes" >&2; die "cargo build failed"; }
    STATIC_LIBS="$(sed -n 's/^note: native-static-libs: //p' "$notes" | tail -n 1)"
    [ -n "$STATIC_LIBS" ] || die "rustc reported no native-static-libs"
fi
[ -f "$FROM/libmm2_checkpoint.so" ] || die "no libmm2_checkpoint.so in $FROM"
[ -f "$FROM/libmm2_checkpoint.a" ] || die "no libmm2_checkpoint.a in $FROM"

lib="$DEST/lib"
mkdir -p "$DEST/include" "$lib/pkgconfig" "$lib/cmake/mm2_checkpoint" "$DEST/share/doc/mm2_checkpoint"
install -m644 include/mm2_checkpoint.h "$DEST/include/mm2_checkpoint.h"
install -m755 "$FROM/libmm2_checkpoint.so" "$lib/libmm2_checkpoint.so.$abi"
ln -sfn "libmm2_checkpoint.so.$abi" "$lib/libmm2_checkpoint.so"
install -m644 "$FROM/libmm2_checkpoint.a" "$lib/libmm2_checkpoint.a"

if [ "$DO_STRIP" = 1 ]; then
    so="$lib/libmm2_checkpoint.so.$abi"
    build_id="$(readelf -n "$so" | sed -n 's/^ *Build ID: *//p')"
    if [ -n "$build_id" ] && readelf -S "$so" | grep -q '\.debug_info'; then
        # The debug info moves to a file of its own, found through the library's debuglink and
        # by its build id (as Debian's -dbgsym packages lay it out).
        dbg="$lib/.debug/libmm2_checkpoint.so.$abi.debug"
        by_id="$lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
        mkdir -p "$lib/.debug" "$(dirname "$by_id")"
        "$OBJCOPY" --only-keep-debug --compress-debug-sections=zlib "$so" "$dbg"
        chmod 644 "$dbg"
        ln -sfn "../../../.debug/libmm2_checkpoint.so.$abi.debug" "$by_id"
        "$STRIP_PROGRAM" --strip-debug --strip-unneeded "$so"
        "$OBJCOPY" --add-gnu-debuglink="$dbg" "$so"
    else
        "$STRIP_PROGRAM" --strip-debug --strip-unneeded "$so"
    fi
    "$STRIP_PROGRAM" --strip-debug "$lib/libmm2_checkpoint.a"
fi

pc_prefix="$PREFIX"
# A tree meant to be unpacked anywhere (scripts/release.sh): the prefix from the file's place.
[ "$RELOCATABLE" = 0 ] || pc_prefix='${pcfiledir}/../..'
sed -e "s|@PREFIX@|$pc_prefix|" -e "s|@VERSION@|$version|" -e "s|@NATIVE_STATIC_LIBS@|$STATIC_LIBS|" \
    -e '/^#/d' mm2_checkpoint.pc.in >"$lib/pkgconfig/mm2_checkpoint.pc"

# CMake: the static target's link interface is the same list pkg-config's Libs.private gives,
# without the -l prefixes (CMake adds them back).
cmake_libs=""
for flag in $STATIC_LIBS; do
    case "$flag" in -l*) cmake_libs="$cmake_libs${cmake_libs:+;}${flag#-l}" ;; esac
done
sed -e "s|@ABI@|$abi|g" -e "s|@STATIC_LIBS@|$cmake_libs|" cmake/mm2_checkpointConfig.cmake.in \
    >"$lib/cmake/mm2_checkpoint/mm2_checkpointConfig.cmake"
sed -e "s|@VERSION@|$version|" cmake/mm2_checkpointConfigVersion.cmake.in \
    >"$lib/cmake/mm2_checkpoint/mm2_checkpointConfigVersion.cmake"

install -m644 README.md CHANGELOG.md LICENSE include/mm2_checkpoint.symbols "$DEST/share/doc/mm2_checkpoint/"
echo "install.sh: installed mm2-checkpoint $version (C ABI $abi) into ${DESTDIR_ARG:+$DESTDIR_ARG }$PREFIX"
