#!/usr/bin/env bash
# Builds the example program against the installed mm2-checkpoint artifact (run
# `mvn -f java/pom.xml install` first; scripts/test.sh does) and runs it once on the given java
# (default: java on PATH). Extra arguments go to the program. MM2_BUILD_INFO=DIR skips the
# build when DIR holds the marker jvm-example-built, which java/verify.sh leaves there after an
# earlier run (it runs the program on two JVMs).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAVA="${MM2_EXAMPLE_JAVA:-java}"

if [ -z "${MM2_BUILD_INFO:-}" ] || [ ! -f "$MM2_BUILD_INFO/jvm-example-built" ] ||
    [ ! -f "$HERE/target/classpath.txt" ]; then
    mvn -B -q -f "$HERE/pom.xml" package dependency:build-classpath -Dmdep.outputFile="$HERE/target/classpath.txt"
fi
native_access=()
if [ "$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')" -ge 22 ]; then
    native_access=(--enable-native-access=ALL-UNNAMED)
fi
exec "$JAVA" -Xmx128m "${native_access[@]}" \
    -Djava.util.logging.SimpleFormatter.format='%1$tT %4$s %3$s: %5$s%6$s%n' \
    -cp "$HERE/target/classes:$(cat "$HERE/target/classpath.txt")" \
    io.mm2checkpoint.example.CheckpointExample "$@"
