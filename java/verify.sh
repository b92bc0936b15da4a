#!/usr/bin/env bash
# The Java stage of scripts/test.sh: `mvn install` of java/ (cargo build, JNI bridge, the
# multi-release jar, then the JUnit 5 suite on Java 17 over JNI and on Java 22+ over Panama, and
# the Connect tests on a real Kafka broker), a check that -Xcheck:jni stayed silent, then the
# example program built against the installed artifact.
#
# Uses MM2_JAVA17, MM2_JAVA22, MM2_JAVAC22 from scripts/setup-test-env.sh (run here when unset).
# Extra arguments go to mvn (e.g. -Dtest=TaskTest -Dsurefire.failIfNoSpecifiedTests=false,
# -Dmm2.skip.connect=true).
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

step "mvn clean install (java/pom.xml)"
mvn -B -f java/pom.xml clean install \
    -Dmm2.java17="$MM2_JAVA17" -Dmm2.java22="$MM2_JAVA22" -Dmm2.javac22="$MM2_JAVAC22" "$@" \
    || die "mvn install (reports: java/target/surefire-reports/)"

# -Xcheck:jni reports misuse as warnings without failing the JVM; any is a bridge bug.
if grep -rl "WARNING in native method\|FATAL ERROR in native method" java/target/surefire-reports/jni 2>/dev/null; then
    die "-Xcheck:jni reported JNI misuse (files above)"
fi

step "example program on Java 17 (examples/jvm, JNI)"
MM2_EXAMPLE_JAVA="$MM2_JAVA17" examples/jvm/run.sh || die "the example program on Java 17"
step "example program on Java 22+ (examples/jvm, Panama)"
MM2_EXAMPLE_JAVA="$MM2_JAVA22" examples/jvm/run.sh || die "the example program on Java 22+"
step "passed"
