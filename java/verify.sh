#!/usr/bin/env bash
# The Java stage of scripts/test.sh: `mvn install -Pintegration` of java/ (the native library,
# the JNI bridge, the multi-release jar, then under failsafe the JUnit 5 suite on Java 17 over
# JNI and on Java 22+ over Panama, and the Connect tests on a real Kafka broker: the run's shared
# one when MM2_SHARED_BOOTSTRAP is set), a check that -Xcheck:jni stayed silent, then the
# example program built against the installed artifact.
#
# Uses MM2_JAVA17, MM2_JAVA22, MM2_JAVAC22 from scripts/setup-test-env.sh (run here when unset);
# the pom reads them from the environment. Extra arguments go to mvn, e.g.
#   -Dmm2.native.lib=/abs/default/libmm2_checkpoint.so             package that library (default
#   -Dmm2.native.lib.testkit=/abs/embedded/libmm2_checkpoint.so     features) and, in the test kit,
#                                                                   that one (--features embedded),
#                                                                   no cargo
#   -Dit.test=TaskTest -Dfailsafe.failIfNoSpecifiedTests=false     one test class
# Maven runs offline (-o) when everything is in the local repository already; when something is
# missing there (a fresh machine, a new plugin), the run is repeated once online.
#
#   java/verify.sh --aarch64-pass -Dmm2.native.lib=... -Dmm2.native.lib.testkit=...
#       -Dmm2.native.lib.aarch64=... -Dmm2.native.lib.aarch64.testkit=...
# is the second half CI runs once scripts/cross-aarch64.sh has built the linux-aarch64 library,
# so the whole suite above need not wait minutes for that build: on the tree the full run left,
# `mvn verify` repackages the jar with native/linux-aarch64 and runs only the tests that
# read those files (NativeEntriesTest, and Aarch64JvmTest's aarch64 JVM under qemu), then checks
# from failsafe's reports that they ran and none was skipped.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STARTED=$SECONDS
step() { echo "==> java [$((SECONDS - STARTED))s] $*"; }
die() {
    echo "java/verify.sh: FAILED: $*" >&2
    exit 1
}

cd "$ROOT"
if [ -z "${MM2_JAVA17:-}" ]; then
    scripts/setup-test-env.sh || die "scripts/setup-test-env.sh"
    # shellcheck source=/dev/null
    source "$ROOT/.tools/env.sh"
fi
[ -x "${MM2_JAVA17:-}" ] || die "no Java 17 (MM2_JAVA17='${MM2_JAVA17:-}')"
# The multi-release jar needs javac 22+ for META-INF/versions/22, and the suite a Java 22+
# runtime for Panama: both are required, never skipped.
[ -x "${MM2_JAVAC22:-}" ] || die "no javac 22+ (MM2_JAVAC22='${MM2_JAVAC22:-}'): needed for META-INF/versions/22"
[ -x "${MM2_JAVA22:-}" ] || die "no Java 22+ runtime (MM2_JAVA22='${MM2_JAVA22:-}')"
export MM2_JAVA17 MM2_JAVA22 MM2_JAVAC22

if [ "${1:-}" = "--aarch64-pass" ]; then
    shift
    AARCH64_TESTS=(NativeEntriesTest Aarch64JvmTest)
    step "mvn -o verify -Dit.test=${AARCH64_TESTS[*]} (the jar with linux-aarch64)"
    rm -rf java/target/failsafe-reports
    mvn -B -o -f java/pom.xml verify -Dit.test="$(IFS=,; echo "${AARCH64_TESTS[*]}")" "$@" \
        || die "mvn verify of the aarch64 jar (reports: java/target/failsafe-reports/)"
    # The emulated JVM runs in the JNI execution only (Aarch64JvmTest says so); the jar's entries
    # are read in both.
    for run in jni/NativeEntriesTest panama/NativeEntriesTest jni/Aarch64JvmTest; do
        report="java/target/failsafe-reports/${run%%/*}/TEST-io.mm2checkpoint.test.${run#*/}.xml"
        [ -f "$report" ] || die "${run#*/} did not run over ${run%%/*} ($report missing)"
        grep -q 'skipped="0"' "$report" \
            || die "${run#*/} was skipped over ${run%%/*}: the jar carries no linux-aarch64 files ($report)"
    done
    step "passed"
    exit 0
fi

log="$(mktemp)"
# The build-info directory (scripts/test.sh's, else one of this run's), where the marker
# jvm-example-built tells examples/jvm/run.sh's second run that the first built the program.
if [ -n "${MM2_BUILD_INFO:-}" ]; then
    info="$MM2_BUILD_INFO"
    own_info=""
else
    info="$(mktemp -d)"
    own_info="$info"
fi
trap 'rm -f "$log"; if [ -n "$own_info" ]; then rm -rf "$own_info"; fi' EXIT

# A newcomer's Maven on a default JDK 17 (no MM2_* settings): the build stops at once, in the
# validate phase, naming the remedy.
step "mvn validate on JDK 17 alone stops at once and names the remedy"
jdk17_home="$(dirname "$(dirname "$(readlink -f "$MM2_JAVA17")")")"
if env -u MM2_JAVAC22 -u MM2_JAVA22 -u MM2_JAVA17 JAVA_HOME="$jdk17_home" \
    mvn -B -o -q -f java/pom.xml validate >"$log" 2>&1; then
    die "mvn validate on JDK 17 alone passed; it must stop for want of javac 22+"
fi
grep -q "needs javac 22 or later" "$log" && grep -q -- "-Dmm2.javac22=" "$log" \
    || { cat "$log" >&2; die "mvn validate on JDK 17 alone did not name the remedy"; }
echo "java/verify.sh: $(grep -o 'needs javac 22 or later[^:]*' "$log" | head -n 1)"

install() {
    mvn -B -f java/pom.xml clean install -Pintegration "$@" 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
}
step "mvn -o clean install -Pintegration (java/pom.xml)"
if ! install -o "$@"; then
    # Only an artifact missing from the local repository earns a second, online run.
    grep -q "in offline mode\|has not been downloaded from it before" "$log" \
        || die "mvn install (reports: java/target/failsafe-reports/)"
    step "some artifact is not in the local repository: mvn clean install -Pintegration, online"
    install "$@" || die "mvn install (reports: java/target/failsafe-reports/)"
fi

# -Xcheck:jni reports misuse as warnings without failing the JVM; any is a bridge bug.
if grep -rl "WARNING in native method\|FATAL ERROR in native method" java/target/failsafe-reports/jni 2>/dev/null; then
    die "-Xcheck:jni reported JNI misuse (files above)"
fi

step "example program on Java 17 (examples/jvm, JNI)"
rm -f "$info/jvm-example-built"
MM2_EXAMPLE_JAVA="$MM2_JAVA17" examples/jvm/run.sh || die "the example program on Java 17"
touch "$info/jvm-example-built"
step "example program on Java 22+ (examples/jvm, Panama)"
MM2_EXAMPLE_JAVA="$MM2_JAVA22" MM2_BUILD_INFO="$info" examples/jvm/run.sh || die "the example program on Java 22+"
step "passed"
