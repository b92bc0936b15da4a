#!/usr/bin/env bash
# Checks the JDKs the Java build uses before anything is compiled, and says which Java each test
# run is on (Maven's validate phase, java/pom.xml):
#   check-jdks.sh JAVAC22 JAVA17 JAVA22
# JAVAC22 compiles the Panama binding for META-INF/versions/22 and must be javac 22+; JAVA22
# runs the Panama suite and must be 22+; JAVA17 runs the JNI suite (17 or later; a later one is
# said, since the run is then not on 17). A wrong JDK stops the build here, naming the remedy,
# instead of javac's "release version 22 not supported" minutes later.
set -euo pipefail
javac22="$1" java17="$2" java22="$3"

remedy="run Maven on a JDK 22 or later (JAVA_HOME=/path/to/jdk-22+ mvn ...), or name one with
  -Dmm2.javac22=/path/to/jdk-22+/bin/javac -Dmm2.java22=/path/to/jdk-22+/bin/java
  (or the environment's MM2_JAVAC22 and MM2_JAVA22; scripts/setup-test-env.sh sets them)"

# The feature release of a `java -version` / `javac -version` line: 17 of "17.0.15", 1 of "1.8".
major() {
    local version
    version="$("$1" -version 2>&1 | sed -n 's/^[^0-9]*\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
    echo "${version%%.*}"
}

[ -x "$javac22" ] || { echo "check-jdks.sh: no javac at $javac22; $remedy" >&2; exit 1; }
[ -x "$java22" ] || { echo "check-jdks.sh: no java at $java22; $remedy" >&2; exit 1; }
[ -x "$java17" ] || { echo "check-jdks.sh: no java at $java17 (-Dmm2.java17, MM2_JAVA17)" >&2; exit 1; }
javac_major="$(major "$javac22")"
java22_major="$(major "$java22")"
java17_major="$(major "$java17")"
if [ -z "$javac_major" ] || [ "$javac_major" -lt 22 ]; then
    echo "check-jdks.sh: the jar's Panama binding (META-INF/versions/22) needs javac 22 or later; $javac22 is javac ${javac_major:-of an unknown version}: $remedy" >&2
    exit 1
fi
if [ -z "$java22_major" ] || [ "$java22_major" -lt 22 ]; then
    echo "check-jdks.sh: the Panama suite needs Java 22 or later; $java22 is Java ${java22_major:-of an unknown version}: $remedy" >&2
    exit 1
fi
if [ -z "$java17_major" ] || [ "$java17_major" -lt 17 ]; then
    echo "check-jdks.sh: the JNI suite needs Java 17 or later; $java17 is Java ${java17_major:-of an unknown version} (-Dmm2.java17, MM2_JAVA17)" >&2
    exit 1
fi
note=""
[ "$java17_major" = 17 ] || note=" (not 17: -Dmm2.java17 or MM2_JAVA17 names a Java 17 to test the oldest supported one)"
echo "check-jdks.sh: JNI suite on Java $java17_major ($java17)$note; Panama suite on Java $java22_major ($java22); Panama binding compiled by javac $javac_major ($javac22)"
