#!/usr/bin/env bash
# Puts the native files into the jar's classes (called by Maven in process-classes):
#   libmm2_checkpoint.so[.N]  the library, built by cargo, debug info stripped (60 MB -> 15),
#                             named by its SONAME when it has one
#   index.properties          the two file names, for the loader
#   libmm2_checkpoint_jni.so  the JNI bridge (Java 17+), linked against the library above with
#                             rpath $ORIGIN, so that both extracted into one directory find
#                             each other without LD_LIBRARY_PATH
# The bridge is compiled with the JNI prototypes javac -h wrote for JniBinding's native methods
# included, so a C definition whose types disagree with its Java declaration does not compile,
# and every declared native method must be defined by the bridge.
# Usage: build-native.sh REPO_ROOT PROFILE OUT_DIR JAVA_HOME JNI_HEADERS_DIR --native-lib=[PATH]
#            [--cross=PREFIX] [--mock-clusters]
#   --native-lib=PATH  package this already built libmm2_checkpoint.so (absolute path) and run no
#                      cargo: CI reuses the debug library its earlier stages built
#   --native-lib=      run `cargo build -p mm2-checkpoint-capi --lib` at PROFILE (release or
#                      debug), then take the library from the target directory cargo reports
#                      (CARGO_TARGET_DIR honoured)
#   --mock-clusters    the test kit's files (classifier testkit): the library with the test-only
#                      mock clusters (cargo feature `embedded`). Without it, the jar's: the library
#                      as users get it (default features). Either way the library's exports are
#                      checked: the mock clusters' functions must be there, or must not.
#                      The bridge is the same for both: it references the mock clusters weakly.
#   --cross=PREFIX     another platform's files (aarch64-linux-gnu- for linux-aarch64):
#                      the library is the cross-built one --native-lib names (scripts/cross-aarch64.sh
#                      builds it; Maven runs no cross cargo build), the bridge is compiled with
#                      PREFIXgcc, and the binutils are PREFIX's. With an empty --native-lib= nothing
#                      is packaged for that platform (a developer build).
set -euo pipefail
root="$1" profile="$2" out="$3" java_home="$4" jni_headers="$5"
native_lib="" cross="" mock_clusters=0
shift 5
for option in "$@"; do
    case "$option" in
        --native-lib=*) native_lib="${option#--native-lib=}" ;;
        --cross=*) cross="${option#--cross=}" ;;
        --mock-clusters) mock_clusters=1 ;;
        *)
            echo "build-native.sh: unknown option $option" >&2
            exit 2
            ;;
    esac
done

die() {
    echo "build-native.sh: $*" >&2
    exit 1
}

# The Maven property that names the library, for messages.
property="mm2.native.lib${cross:+.${cross%%-*}}"
if [ "$mock_clusters" = 1 ]; then property="$property.testkit"; fi
if [ -n "$cross" ] && [ -z "$native_lib" ]; then
    rm -rf "$out"
    echo "build-native.sh: no ${cross%-} library given: the jar carries no $(basename "$out") files"
    exit 0
fi
if [ -n "$native_lib" ]; then
    case "$native_lib" in
        /*) ;;
        *) die "$property must be an absolute path, got '$native_lib'" ;;
    esac
    lib="$native_lib"
    [ -f "$lib" ] || die "$property names $lib, which does not exist"
else
    case "$profile" in
        debug) flags=() ;;
        release) flags=(--release) ;;
        *) die "mm2.cargo.profile is '$profile'; expected release or debug" ;;
    esac
    command -v cargo >/dev/null || die "no cargo on PATH (https://rustup.rs), or pass -Dmm2.native.lib=/abs/path/libmm2_checkpoint.so"
    flags+=(-p mm2-checkpoint-capi)
    if [ "$mock_clusters" = 1 ]; then flags+=(--features embedded); fi
    # cargo's own progress lines: a cold build (librdkafka from source) takes minutes.
    echo "build-native.sh: cargo build --lib ${flags[*]} (a first build compiles librdkafka: minutes)"
    (cd "$root" && cargo build --lib "${flags[@]}") || die "cargo build --lib ${flags[*]}"
    # Cargo knows where it put the library: CARGO_TARGET_DIR, build.target-dir or ./target.
    target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps \
        | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
    [ -n "$target_dir" ] || die "cargo metadata reported no target_directory"
    lib="$target_dir/$profile/libmm2_checkpoint.so"
    [ -f "$lib" ] || die "$lib is missing after cargo build --lib ${flags[*]}"
fi
# The jar's library must not carry the test-only mock clusters, and the test kit's must.
mock_exports="$("${cross}nm" -D --defined-only "$lib" | awk '$3 ~ /^mm_embedded_/ { print $3 }' | wc -l)"
if [ "$mock_clusters" = 1 ] && [ "$mock_exports" = 0 ]; then
    die "$property: $lib has no mock clusters (no mm_embedded_* export); the test kit needs a build with --features embedded"
fi
if [ "$mock_clusters" = 0 ] && [ "$mock_exports" != 0 ]; then
    die "$property: $lib exports the test-only mock clusters ($mock_exports mm_embedded_* functions); the jar takes a build with default features"
fi
[ -f "$java_home/include/jni.h" ] || die "no JNI headers under $java_home/include"
[ -f "$jni_headers/io_mm2checkpoint_JniBinding.h" ] || die "no $jni_headers/io_mm2checkpoint_JniBinding.h (javac -h)"

# The library goes into the jar under its SONAME when it has one (libmm2_checkpoint.so.<ABI>):
# that is the name the bridge records as needed, so the loader extracts it under that name.
soname="$("${cross}objdump" -p "$lib" | awk '$1 == "SONAME" { print $2 }')"
file="${soname:-libmm2_checkpoint.so}"
rm -rf "$out"
mkdir -p "$out"
"${cross}objcopy" --strip-debug "$lib" "$out/$file"
# The bridge, then the prototypes javac wrote for every class with native methods (JniBinding and
# the generated JniCalls): C rejects a declaration incompatible with the definition.
unit="$jni_headers/bridge_checked.c"
prototypes=("$jni_headers"/io_mm2checkpoint_*.h)
[ -e "${prototypes[0]}" ] || die "no JNI prototypes in $jni_headers"
{
    printf '#include "%s"\n' "$(cd "$(dirname "$0")" && pwd)/mm2_checkpoint_jni.c"
    printf '#include "%s"\n' "${prototypes[@]##*/}"
} > "$unit"
"${cross}gcc" -std=c11 -shared -fPIC -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wconversion \
    -I"$java_home/include" -I"$java_home/include/linux" -I"$root/include" -I"$jni_headers" \
    -o "$out/libmm2_checkpoint_jni.so" "$unit" \
    -L"$out" -l:"$file" -Wl,-rpath,'$ORIGIN' -Wl,--no-undefined -lpthread \
    || die "gcc: the JNI bridge"
declared="$(sed -n 's/.*JNICALL \(Java_[A-Za-z0-9_]*\).*/\1/p' "${prototypes[@]}" | sort -u)"
defined="$("${cross}nm" -D --defined-only "$out/libmm2_checkpoint_jni.so" | awk '{ print $3 }' | grep '^Java_' | sort -u)"
missing="$(comm -23 <(echo "$declared") <(echo "$defined"))"
[ -z "$missing" ] || die "the Java classes declare native methods the bridge does not define: $missing"
[ -n "$declared" ] || die "no JNI prototypes in $jni_headers"
printf 'library=%s\nbridge=libmm2_checkpoint_jni.so\n' "$file" > "$out/index.properties"
