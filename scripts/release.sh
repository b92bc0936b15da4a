#!/usr/bin/env bash
# Makes the C release of mm2-checkpoint for one target: a tarball of what scripts/install.sh
# installs (libraries, header, pkg-config and CMake files, the symbol list, LICENSE, the
# third-party license notices) and its SHA-256 sum, in dist/.
#
#   scripts/release.sh VERSION [--target TRIPLE] [--from DIR --static-libs FLAGS] [--out DIR]
#
# VERSION must be the crates' version (Cargo.toml); the tarball is
# mm2-checkpoint-VERSION-<target>.tar.gz. Without --from, builds the release library (cargo
# build --release, as scripts/install.sh does).
#
# Reproducible: the same commit gives the same bytes from any directory. The build maps the
# source and home paths out of the binaries (--remap-path-prefix), the archive has sorted names,
# owner 0, and every mtime at SOURCE_DATE_EPOCH (the commit's time unless set), and gzip writes
# no name or time. scripts/test.sh checks that two packagings from two directories are identical.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
die() {
    echo "release.sh: ERROR: $*" >&2
    exit 1
}

VERSION="${1:-}"
[ -n "$VERSION" ] && [ "${VERSION#-}" = "$VERSION" ] || die "usage: scripts/release.sh VERSION [--target TRIPLE] [--from DIR --static-libs FLAGS] [--out DIR]"
shift
TARGET="" FROM="" STATIC_LIBS="" OUT="$ROOT/dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --target) TARGET="${2:?}"; shift 2 ;;
        --from) FROM="${2:?}"; shift 2 ;;
        --static-libs) STATIC_LIBS="${2?}"; shift 2 ;;
        --out) OUT="${2:?}"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
crate_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
[ "$VERSION" = "$crate_version" ] || die "VERSION $VERSION is not the crates' version $crate_version"
triple="${TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
# Paths that would otherwise be written into the binaries (panic locations, debug info).
export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$ROOT=/mm2-checkpoint --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"
export CFLAGS="${CFLAGS:-} -ffile-prefix-map=$ROOT=/mm2-checkpoint -ffile-prefix-map=${CARGO_HOME:-$HOME/.cargo}=/cargo"

name="mm2-checkpoint-$VERSION-$triple"
work="$(mktemp -d "${TMPDIR:-/tmp}/mm2-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT
install_args=(--prefix "/$name" --destdir "$work/stage" --relocatable)
[ -z "$TARGET" ] || install_args+=(--target "$TARGET")
[ -z "$FROM" ] || install_args+=(--from "$FROM" --static-libs "$STATIC_LIBS")
bash scripts/install.sh "${install_args[@]}" >&2

# The notices of what the library links in: every Rust crate of the build (name, version,
# license, from cargo's metadata) and librdkafka's own bundled-code notices.
notices="$work/stage/$name/share/doc/mm2_checkpoint/THIRD-PARTY-NOTICES"
{
    echo "libmm2_checkpoint links these Rust crates (name version: license):"
    cargo metadata --format-version 1 --locked --filter-platform "$triple" 2>/dev/null \
        | python3 scripts/lib/crate-notices.py
    echo
    lic="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*rdkafka-sys-*/librdkafka/LICENSES.txt' 2>/dev/null | sort | tail -n 1)"
    if [ -n "$lic" ]; then
        echo "librdkafka and the code it bundles:"
        cat "$lic"
    fi
} >"$notices"

mkdir -p "$OUT"
find "$work/stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --format=gnu -C "$work/stage" -cf - "$name" | gzip -6 -n >"$OUT/$name.tar.gz"
(cd "$OUT" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
cat "$OUT/$name.tar.gz.sha256"
