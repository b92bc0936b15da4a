#!/usr/bin/env bash
# Stages the native files of the jar (called by Maven in generate-resources):
#   libmm2_checkpoint.so[.N]  the library, built by cargo, debug info stripped (60 MB -> 15),
#                             named by its SONAME when it has one
#   index.properties          the two file names, for the loader
#   libmm2_checkpoint_jni.so  the JNI bridge (Java 17+), linked against the library above with
#                             rpath $ORIGIN, so that both extracted into one directory find
#                             each other without LD_LIBRARY_PATH
# Usage: build-native.sh REPO_ROOT PROFILE OUT_DIR JAVA_HOME SKIP_CARGO
set -euo pipefail
root="$1" profile="$2" out="$3" java_home="$4" skip_cargo="$5"

die() {
    echo "build-native.sh: $*" >&2
    exit 1
}

if [ "$skip_cargo" != true ]; then
    case "$profile" in
        debug) (cd "$root" && cargo build --lib --quiet) || die "cargo build --lib" ;;
        release) (cd "$root" && cargo build --lib --release --quiet) || die "cargo build --lib --release" ;;
        *) die "mm2.cargo.profile is '$profile'; expected debug or release" ;;
    esac
fi
lib="$root/target/$profile/libmm2_checkpoint.so"
[ -f "$lib" ] || die "$lib is missing (cargo build --lib${profile/debug/})"
[ -f "$java_home/include/jni.h" ] || die "no JNI headers under $java_home/include"

# The library goes into the jar under its SONAME when it has one (libmm2_checkpoint.so.<ABI>):
# that is the name the bridge records as needed, so the loader extracts it under that name.
soname="$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')"
file="${soname:-libmm2_checkpoint.so}"
rm -rf "$out"
mkdir -p "$out"
objcopy --strip-debug "$lib" "$out/$file"
gcc -std=c11 -shared -fPIC -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wconversion \
    -I"$java_home/include" -I"$java_home/include/linux" -I"$root/include" \
    -o "$out/libmm2_checkpoint_jni.so" "$(dirname "$0")/mm2_checkpoint_jni.c" \
    -L"$out" -l:"$file" -Wl,-rpath,'$ORIGIN' -Wl,--no-undefined -lpthread \
    || die "gcc: the JNI bridge"
printf 'library=%s\nbridge=libmm2_checkpoint_jni.so\n' "$file" > "$out/index.properties"
