#!/usr/bin/env bash
# Builds the example program against the installed mm2-checkpoint artifact (run
# `mvn -f java/pom.xml install` first; scripts/test.sh does) and runs it once on the given java
# (default: java on PATH). Extra arguments go to the program. MM2_EXAMPLE_BUILT=1 skips the
# build when an earlier run did it (java/verify.sh runs the program on two JVMs).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAVA="${MM2_EXAMPLE_JAVA:-java}"

if [ "${MM2_EXAMPLE_BUILT:-0}" != 1 ] || [ ! -f "$HERE/target/classpath.txt" ]; then
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
