#!/usr/bin/env bash
# Makes the Java release of mm2-checkpoint: the files Maven Central takes for one version, laid
# out as a Maven repository under dist/maven/ and zipped as the Central Portal's upload bundle.
#
#   scripts/release-java.sh VERSION --url URL [--jar FILE --pom FILE] [--out DIR]
#
#   io/mm2checkpoint/mm2-checkpoint/VERSION/
#     mm2-checkpoint-VERSION.jar          the API, the Connect connector, and the release native
#                                         libraries for linux-x86_64 and linux-aarch64
#     mm2-checkpoint-VERSION-sources.jar  java/src/main/java and java/src/main/java22
#     mm2-checkpoint-VERSION-javadoc.jar  the API's javadoc
#     mm2-checkpoint-VERSION.pom          the flattened pom (no parent; licenses, developers, scm)
#   each with .md5, .sha1 and .sha256, and .asc when MM2_GPG_KEY names a signing key (Central
#   requires signatures: without a key the bundle is complete but for them, and the script says so).
#
# URL is the project's public address (the pom's url and scm; Central requires both).
# Without --jar: builds both release libraries (cargo build --release, scripts/cross-aarch64.sh
# --release) and the jar (mvn package). With --jar and --pom: packs that jar and flattened pom
# (java/verify.sh's build; scripts/test.sh checks the packing this way, with debug libraries).
# The jars' entries carry SOURCE_DATE_EPOCH (the commit's time unless set) as their time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
die() {
    echo "release-java.sh: ERROR: $*" >&2
    exit 1
}

VERSION="${1:-}"
[ -n "$VERSION" ] && [ "${VERSION#-}" = "$VERSION" ] \
    || die "usage: scripts/release-java.sh VERSION --url URL [--jar FILE --pom FILE] [--out DIR]"
shift
URL="" JAR="" POM="" OUT="$ROOT/dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --url) URL="${2:?}"; shift 2 ;;
        --jar) JAR="${2:?}"; shift 2 ;;
        --pom) POM="${2:?}"; shift 2 ;;
        --out) OUT="${2:?}"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
[ -n "$URL" ] || die "--url is required: the project's public address, which Central requires in the pom"
[ -z "$JAR" ] || [ -n "$POM" ] || die "--jar needs --pom (the flattened pom of the same build)"
pom_version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' java/parent/pom.xml | head -n 1)"
[ "$VERSION" = "$pom_version" ] || die "VERSION $VERSION is not the Java version $pom_version (java/parent/pom.xml)"
command -v javadoc >/dev/null || die "javadoc not found (a JDK 17+ on PATH)"

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
stamp="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
work="$(mktemp -d "${TMPDIR:-/tmp}/mm2-release-java.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [ -z "$JAR" ]; then
    echo "==> release libraries: linux-x86_64, then linux-aarch64" >&2
    cargo build --release >&2
    bash scripts/cross-aarch64.sh --release >&2
    cross="$(bash scripts/cross-aarch64.sh --release --print-libdir)"
    echo "==> mvn package (the jar with both libraries)" >&2
    mvn -B -q -f java/pom.xml package -DskipTests -Dmm2.project.url="$URL" \
        -Dmm2.native.lib="$ROOT/target/release/libmm2_checkpoint.so" \
        -Dmm2.native.lib.aarch64="$cross/default/libmm2_checkpoint.so" >&2
    JAR="$ROOT/java/target/mm2-checkpoint-$VERSION.jar"
    POM="$ROOT/java/target/.flattened-pom.xml"
fi
[ -f "$JAR" ] || die "no jar at $JAR"
[ -f "$POM" ] || die "no flattened pom at $POM"

# What Central checks in a pom, and what a jar for both platforms must hold.
for element in "<name>" "<description>" "<url>$URL</url>" "<license>" "<developer>" "<scm>"; do
    grep -qF "$element" "$POM" || die "the pom $POM has no $element (Central requires it)"
done
! grep -q "<parent>" "$POM" || die "the pom $POM names a parent: users would need to resolve it"
entries="$(unzip -Z1 "$JAR")"
for platform in linux-x86_64 linux-aarch64; do
    echo "$entries" | grep -qx "native/$platform/libmm2_checkpoint.so.2" \
        || die "the jar has no native/$platform/libmm2_checkpoint.so.2"
done
! echo "$entries" | grep -q '^native-test/' || die "the jar carries the test kit's libraries"

dir="$OUT/maven/io/mm2checkpoint/mm2-checkpoint/$VERSION"
base="$dir/mm2-checkpoint-$VERSION"
rm -rf "$OUT/maven"
mkdir -p "$dir"
cp "$JAR" "$base.jar"
cp "$POM" "$base.pom"

# Sources: both source trees, as the multi-release jar's classes come from both.
mkdir -p "$work/sources"
cp -r java/src/main/java/. "$work/sources/"
cp -r java/src/main/java22/. "$work/sources/"
jar --create --date="$stamp" --file "$base-sources.jar" -C "$work/sources" .

# Javadoc of the Java 17 API (the Java 22 tree holds the Panama binding only, no public API).
mvn -B -q -o -f java/pom.xml dependency:build-classpath -Dmdep.includeScope=compile \
    -Dmdep.outputFile="$work/classpath.txt" >&2 || die "mvn dependency:build-classpath"
javadoc -quiet -Xdoclint:none -notimestamp -d "$work/javadoc" -sourcepath java/src/main/java \
    -classpath "$(cat "$work/classpath.txt")" -subpackages io.mm2checkpoint \
    -windowtitle "mm2-checkpoint $VERSION" >&2 || die "javadoc"
[ -f "$work/javadoc/index.html" ] || die "javadoc wrote no index.html"
jar --create --date="$stamp" --file "$base-javadoc.jar" -C "$work/javadoc" .

signed=0
for f in "$base.jar" "$base-sources.jar" "$base-javadoc.jar" "$base.pom"; do
    md5sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.md5"
    sha1sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha1"
    sha256sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha256"
    if [ -n "${MM2_GPG_KEY:-}" ]; then
        gpg --batch --yes --local-user "$MM2_GPG_KEY" --armor --detach-sign --output "$f.asc" "$f"
        signed=1
    fi
done
find "$OUT/maven" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
bundle="$OUT/mm2-checkpoint-$VERSION-maven-bundle.zip"
rm -f "$bundle"
jar --create --no-manifest --date="$stamp" --file "$bundle" -C "$OUT/maven" io
(cd "$dir" && sha256sum "mm2-checkpoint-$VERSION"*.jar "mm2-checkpoint-$VERSION.pom")
echo "release-java.sh: $bundle$([ $signed = 1 ] || echo " (unsigned: set MM2_GPG_KEY to sign; Central requires .asc files)")"
