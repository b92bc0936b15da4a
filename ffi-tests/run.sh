#!/usr/bin/env bash
# The C ABI tests (scripts/test.sh runs this after `cargo test`). From any directory:
#   bash ffi-tests/run.sh
#
# 1. builds the cdylib and staticlib (debug, the crate mm2-checkpoint-capi) twice: with default
#    features, as users get them, and with the test-only mock clusters (`embedded`), which every
#    test below links; and reads the native libraries rustc says a static link needs;
# 2. compiles the header alone as C99 and as C++, and a C++ program using it;
#    Every ```c block of README.md and docs/ is compiled and linked (scripts/lib/doc-snippets.py);
# 3. checks that the default library exports exactly the functions
#    include/mm2_checkpoint.symbols lists (no mock cluster), that the test library exports
#    exactly those the header declares and the two symbol lists name (and nothing else: no
#    other global function), that
#    its SONAME is libmm2_checkpoint.so.<MM2_CHECKPOINT_ABI_VERSION>, and that test_api.c calls
#    every function;
# 4. builds every C test with -Wall -Wextra -Werror against the shared library and runs them
#    (test_api also linked statically);
# 5. runs them again under valgrind memcheck (no errors, no definite leak; ffi-tests/
#    valgrind.supp names the one upstream leak it suppresses);
# 6. runs the tests built with -fsanitize=address and linked statically with the same debug
#    library (leaks checked; ffi-tests/lsan.supp): ASan instruments the C side and, through its
#    malloc interposition, checks every allocation, the library's included (use after free,
#    double free, leaks); valgrind in step 5 instruments every instruction, the library's
#    included. No second (nightly, sanitizer) build of the library and of librdkafka;
#    scripts/soak.sh keeps the fully instrumented nightly build (MM2_FFI_ASAN_BUILD=nightly);
# 7. installs into a prefix with scripts/install.sh and builds examples/checkpoint.c through its
#    pkg-config file, shared and static, and a C++ program through its CMake package
#    (ffi-tests/cmake_consumer), all seeing the prefix alone; runs them (the example against
#    embedded clusters);
#    On the host, scripts/release.sh packs that build twice, from two clones, into identical
#    tarballs;
# 8. runs that example against two real Kafka brokers: the run's shared ones when
#    MM2_SHARED_BOOTSTRAP and MM2_SHARED_TARGET_BOOTSTRAP name them (scripts/test.sh), else two
#    started here by scripts/kafka-broker.sh;
# 9. on those brokers, runs test_elastic: two tasks in the elastic mode (task.assignment=group)
#    share the source's groups, and stopping one hands its groups to the other.
#
# Knobs: MM2_FFI_CYCLES (test_threads lifecycles, default 20), MM2_FFI_VALGRIND_CYCLES
# (test_threads under valgrind, default none), MM2_FFI_ASAN_CYCLES (default 20), MM2_FFI_SKIP_ASAN=1, MM2_FFI_SKIP_VALGRIND=1,
# MM2_FFI_ASAN_BUILD=nightly (also instrument the library: a nightly -Zsanitizer=address build
# into target/asan, as scripts/soak.sh runs it), MM2_BUILD_INFO=DIR (scripts/test.sh's
# build-info directory; no cargo call when it holds the build: in cross mode the marker
# DIR/aarch64-built, scripts/cross-aarch64.sh has run; on the host DIR/rustc-notes.txt, the
# stderr of `cargo rustc -p mm2-checkpoint-capi --lib --all-features --
# --print=native-static-libs`, and DIR/default/libmm2_checkpoint.so, the default-feature
# library that build was preceded by).
#
# Cross mode, `MM2_FFI_TARGET=aarch64-unknown-linux-gnu bash ffi-tests/run.sh`: the
# library from scripts/cross-aarch64.sh (run here; a no-op when fresh), the header checks, steps
# 3, 4 and 7 built with the cross gcc/g++ and run under qemu-aarch64-static: every C test (fewer
# lifecycles and seeded syncs: emulation is ~10x slower), test_api also static, and the example
# on embedded clusters, shared and static. Not under emulation: valgrind and ASan (they check
# the same code on the host) and the real brokers (steps 8 and 9).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="${MM2_FFI_TARGET:-}"
case "$TARGET" in
    "")
        BUILD="$ROOT/ffi-tests/build"
        LIBDIR="$ROOT/target/debug"
        CC=gcc CXX=g++ NM=nm
        RUN=()
        ;;
    aarch64-unknown-linux-gnu)
        BUILD="$ROOT/ffi-tests/build/$TARGET"
        # The copy of the build with the mock clusters (never cargo's own output file, which
        # the default-feature build shares).
        LIBDIR="$(bash scripts/cross-aarch64.sh --print-libdir)/testkit"
        CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ NM=aarch64-linux-gnu-nm
        # The arm64 C library and OpenSSL are installed multiarch (scripts/setup-test-env.sh), so
        # the emulated dynamic loader finds them without -L.
        RUN=(qemu-aarch64-static)
        export MM2_FFI_CYCLES="${MM2_FFI_CYCLES:-5}" MM2_FFI_SEED_SYNCS="${MM2_FFI_SEED_SYNCS:-5000}" MM2_FFI_SYNCS="${MM2_FFI_SYNCS:-5000}"
        ;;
    *)
        echo "ffi-tests/run.sh: MM2_FFI_TARGET=$TARGET: only aarch64-unknown-linux-gnu is cross-tested" >&2
        exit 2
        ;;
esac
ASAN_TARGET=x86_64-unknown-linux-gnu
ASAN_LIBDIR="$ROOT/target/asan/$ASAN_TARGET/debug"
mkdir -p "$BUILD"

STARTED=$SECONDS
step() { echo "==> ffi-tests [$((SECONDS - STARTED))s] $*"; }
fail() {
    echo "ffi-tests/run.sh: FAILED: $*" >&2
    exit 1
}

# MM2_CHECKPOINT_EMBEDDED: the tests use the mock clusters, declared only on request.
CFLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -DMM2_CHECKPOINT_EMBEDDED -Wall -Wextra -Werror -pthread -g -I"$ROOT/include" -I"$ROOT/ffi-tests")
TESTS=(test_api test_misuse test_threads test_abi)

step "cargo build (cdylib + staticlib; default features, then with the mock clusters) and the native libraries of a static link"
notes="$BUILD/rustc-notes.txt"
DEFAULT_LIB=""
INFO="${MM2_BUILD_INFO:-}"
if [ -n "$TARGET" ]; then
    # scripts/test.sh's aarch64 lane has just built it (a second run would only be a no-op).
    if [ -z "$INFO" ] || [ ! -f "$INFO/aarch64-built" ]; then
        bash scripts/cross-aarch64.sh || fail "scripts/cross-aarch64.sh"
    fi
    cp "$LIBDIR/rustc-notes.txt" "$notes"
elif [ -n "$INFO" ] && [ -f "$INFO/rustc-notes.txt" ]; then
    # scripts/test.sh built the library before its lanes (and runs cargo nowhere else while
    # clippy holds the build lock): its output of this very command is in that file.
    cp "$INFO/rustc-notes.txt" "$notes" || fail "copying $INFO/rustc-notes.txt"
    DEFAULT_LIB="$INFO/default/libmm2_checkpoint.so"
    [ -f "$DEFAULT_LIB" ] || fail "$DEFAULT_LIB missing (scripts/test.sh writes it beside $INFO/rustc-notes.txt)"
else
    # The library users get, kept aside: the build with the mock clusters takes its place.
    cargo build -p mm2-checkpoint-capi --lib || fail "cargo build -p mm2-checkpoint-capi"
    mkdir -p "$BUILD/default"
    cp "$LIBDIR/libmm2_checkpoint.so" "$BUILD/default/"
    DEFAULT_LIB="$BUILD/default/libmm2_checkpoint.so"
    cargo rustc -p mm2-checkpoint-capi --lib --features embedded -- --print=native-static-libs 2>"$notes" \
        || { cat "$notes" >&2; fail "cargo rustc"; }
fi
# Cargo replays the note when the library is already fresh.
NATIVE_LIBS="$(sed -n 's/^note: native-static-libs: //p' "$notes" | tail -n 1)"
[ -n "$NATIVE_LIBS" ] || fail "rustc did not report native-static-libs (see $notes)"
echo "native-static-libs: $NATIVE_LIBS"
read -r -a NATIVE_LIB_ARGS <<<"$NATIVE_LIBS"
abi="$(sed -n 's/^#define MM2_CHECKPOINT_ABI_VERSION \([0-9]*\)$/\1/p' include/mm2_checkpoint.h)"
# What an installer does: the SONAME link next to the library (cargo makes only the .so), which
# every program below that links -lmm2_checkpoint from target/ looks for at run time.
ln -sf libmm2_checkpoint.so "$LIBDIR/libmm2_checkpoint.so.$abi"

step "header: C99 pedantic, C++ syntax, C++ program"
for define in "" -DMM2_CHECKPOINT_EMBEDDED; do
    "$CC" -std=c99 -pedantic -Wall -Wextra -Werror $define -fsyntax-only -x c include/mm2_checkpoint.h || fail "header as C99 $define"
    "$CXX" -std=c++11 -pedantic -Wall -Wextra -Werror $define -fsyntax-only -x c++ include/mm2_checkpoint.h || fail "header as C++ $define"
done
"$CXX" -std=c++11 -pedantic -Wall -Wextra -Werror -DMM2_CHECKPOINT_EMBEDDED -I"$ROOT/include" ffi-tests/cxx_header.cpp \
    -L"$LIBDIR" -lmm2_checkpoint -Wl,-rpath,"$LIBDIR" -o "$BUILD/cxx_header" || fail "C++ program"
"${RUN[@]}" "$BUILD/cxx_header" || fail "C++ program run"

step "every C snippet of README.md and docs/ compiles and links (scripts/lib/doc-snippets.py)"
python3 scripts/lib/doc-snippets.py README.md docs/*.md >"$BUILD/doc_snippets.c" || fail "extracting the C snippets"
"$CC" -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -I"$ROOT/include" "$BUILD/doc_snippets.c" \
    -L"$LIBDIR" -lmm2_checkpoint -Wl,-rpath,"$LIBDIR" -o "$BUILD/doc_snippets" || fail "a C snippet of the docs does not compile"

step "the header declares every exported function, and test_api.c (with common.h) calls each"
exports_of() { "$NM" -D --defined-only "$1" | awk '$2 == "T" && $3 ~ /^mm_/ {print $3}' | sort; }
listed=$(grep -hv '^#' include/mm2_checkpoint.symbols include/mm2_checkpoint_embedded.symbols | sort)
if [ -n "$DEFAULT_LIB" ]; then
    # The library users get: the stable functions, no mock cluster.
    default_exported=$(exports_of "$DEFAULT_LIB")
    default_listed=$(grep -v '^#' include/mm2_checkpoint.symbols | sort)
    [ "$default_exported" = "$default_listed" ] || fail "the default-feature library ($DEFAULT_LIB) and include/mm2_checkpoint.symbols differ: $(diff <(echo "$default_listed") <(echo "$default_exported") | grep '^[<>]' | tr '\n' ' ')"
    echo "the default-feature library exports the $(echo "$default_exported" | wc -l) listed functions, no mm_embedded_*"
fi
exported=$(exports_of "$LIBDIR/libmm2_checkpoint.so")
declared=$(grep -oE '^[a-z0-9_ ]+[ *]+mm_[a-z0-9_]+\(' include/mm2_checkpoint.h | grep -oE 'mm_[a-z0-9_]+\($' | tr -d '(' | sort -u)
[ "$exported" = "$declared" ] || fail "exported and declared functions differ: $(diff <(echo "$exported") <(echo "$declared") | grep '^[<>]' | tr '\n' ' ')"
[ "$exported" = "$listed" ] || fail "exported functions and include/mm2_checkpoint{,_embedded}.symbols differ (update the list only for an added function): $(diff <(echo "$listed") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
others=$("$NM" -D --defined-only "$LIBDIR/libmm2_checkpoint.so" | awk '$2 == "T" && $3 !~ /^mm_/ {print $3}')
[ -z "$others" ] || fail "the library exports functions outside the C ABI: $others"
soname="$(readelf -d "$LIBDIR/libmm2_checkpoint.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[ "$soname" = "libmm2_checkpoint.so.$abi" ] || fail "SONAME is '$soname', expected libmm2_checkpoint.so.$abi"
missing=()
for fn in $exported; do
    grep -qw "$fn" ffi-tests/test_api.c ffi-tests/common.h || missing+=("$fn")
done
[ "${#missing[@]}" -eq 0 ] || fail "test_api.c does not call: ${missing[*]}"
echo "all $(echo "$exported" | wc -l) exported functions are declared and called"

step "build the C tests (shared library; test_api also static)"
for t in "${TESTS[@]}"; do
    "$CC" "${CFLAGS[@]}" "ffi-tests/$t.c" -L"$LIBDIR" -lmm2_checkpoint -Wl,-rpath,"$LIBDIR" -o "$BUILD/$t" \
        || fail "compiling $t"
done
"$CC" "${CFLAGS[@]}" ffi-tests/test_api.c "$LIBDIR/libmm2_checkpoint.a" -lm "${NATIVE_LIB_ARGS[@]}" \
    -o "$BUILD/test_api.static" || fail "linking test_api statically"

step "run the C tests${TARGET:+ under ${RUN[*]}}"
for t in "${TESTS[@]}"; do
    "${RUN[@]}" "$BUILD/$t" || fail "$t"
done
"${RUN[@]}" "$BUILD/test_api.static" || fail "test_api (static)"

if [ -n "$TARGET" ]; then
    step "valgrind and AddressSanitizer: host only (not under emulation)"
elif [ "${MM2_FFI_SKIP_VALGRIND:-0}" = 1 ]; then
    step "valgrind: skipped (MM2_FFI_SKIP_VALGRIND=1)"
elif ! command -v valgrind >/dev/null; then
    fail "valgrind is not installed (apt-get install valgrind, or MM2_FFI_SKIP_VALGRIND=1)"
else
    for t in "${TESTS[@]}"; do
        # test_threads is a race test: valgrind runs one thread at a time, so it sees few of the
        # interleavings AddressSanitizer (step 6, real threads) does. Run only with
        # MM2_FFI_VALGRIND_CYCLES set (scripts/soak.sh c-churn: 64 lifecycles).
        if [ "$t" = test_threads ] && [ "${MM2_FFI_VALGRIND_CYCLES:-0}" = 0 ]; then
            step "valgrind memcheck: test_threads skipped (MM2_FFI_VALGRIND_CYCLES unset; AddressSanitizer runs it)"
            continue
        fi
        step "valgrind memcheck: $t"
        # test_threads' stop bound is 10 s natively; valgrind runs 20-50 times slower, and CI
        # runs this beside other stages (a stop once took 21 s under both), so 40 s here.
        MM2_FFI_CYCLES="${MM2_FFI_VALGRIND_CYCLES:-0}" MM2_FFI_LANES=2 MM2_FFI_SEED_SYNCS=5000 MM2_FFI_SYNCS=5000 \
            MM2_FFI_STOP_BOUND_MS=40000 \
            valgrind --quiet --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite \
            --show-leak-kinds=definite --suppressions="$ROOT/ffi-tests/valgrind.supp" --num-callers=40 \
            "$BUILD/$t" || fail "$t under valgrind (exit $?)"
    done

    # The suppressions must also match an optimised build (inlined rust-rdkafka frames, legacy
    # symbol names). Checked when a release build of this ABI exists; run.sh does not build one.
    RELDIR="$ROOT/target/release"
    if [ -f "$RELDIR/libmm2_checkpoint.so" ] &&
        [ "$(nm -D --defined-only "$RELDIR/libmm2_checkpoint.so" | awk '$2 == "T" && $3 ~ /^mm_/ {print $3}' | sort)" = "$exported" ]; then
        step "valgrind memcheck: examples/checkpoint.c on the release build"
        ln -sf libmm2_checkpoint.so "$RELDIR/libmm2_checkpoint.so.$abi"
        gcc -std=c11 -Wall -Wextra -Werror -pthread -g -I"$ROOT/include" examples/checkpoint.c -L"$RELDIR" \
            -lmm2_checkpoint -Wl,-rpath,"$RELDIR" -o "$BUILD/checkpoint.release" || fail "example (release build)"
        valgrind --quiet --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite \
            --show-leak-kinds=definite --suppressions="$ROOT/ffi-tests/valgrind.supp" --num-callers=40 \
            "$BUILD/checkpoint.release" >"$BUILD/checkpoint.release.out" 2>&1 || {
            cat "$BUILD/checkpoint.release.out" >&2
            fail "example (release build) under valgrind (exit $?)"
        }
    else
        step "valgrind on a release build: skipped (no current target/release/libmm2_checkpoint.so; cargo build --release)"
    fi
fi

if [ -n "$TARGET" ]; then
    :
elif [ "${MM2_FFI_SKIP_ASAN:-0}" = 1 ]; then
    step "AddressSanitizer: skipped (MM2_FFI_SKIP_ASAN=1)"
else
    ASAN_LIB="$LIBDIR/libmm2_checkpoint.a"
    if [ "${MM2_FFI_ASAN_BUILD:-}" = nightly ]; then
        cargo +nightly --version >/dev/null 2>&1 || fail "MM2_FFI_ASAN_BUILD=nightly: no nightly toolchain (-Zsanitizer needs one)"
        step "AddressSanitizer: build the library instrumented too (nightly, target/asan)"
        # An explicit --target keeps RUSTFLAGS off build scripts and proc macros, which must not
        # be instrumented. librdkafka's C code (built by rdkafka-sys) is not instrumented either;
        # its allocations are still checked through ASan's malloc interposition.
        # Without the zstd feature: cc passes the sanitizer flag on to zstd-sys's C build, whose
        # link check then lacks the ASan runtime and fails.
        RUSTFLAGS="-Zsanitizer=address" cargo +nightly build -p mm2-checkpoint-capi --lib --target "$ASAN_TARGET" \
            --no-default-features --features ssl,gzip,embedded \
            --target-dir "$ROOT/target/asan" || fail "AddressSanitizer build"
        ASAN_LIB="$ASAN_LIBDIR/libmm2_checkpoint.a"
    fi
    step "AddressSanitizer: the C tests with -fsanitize=address, linked with $ASAN_LIB"
    for t in "${TESTS[@]}"; do
        gcc "${CFLAGS[@]}" -fsanitize=address -fno-omit-frame-pointer "ffi-tests/$t.c" \
            "$ASAN_LIB" -lm "${NATIVE_LIB_ARGS[@]}" -o "$BUILD/$t.asan" \
            || fail "linking $t with AddressSanitizer (gcc's libasan is needed: apt-get install gcc)"
    done
    # fast_unwind_on_malloc=0: the frame-pointer unwinder stops at the first uninstrumented Rust
    # frame (no frame pointers), and lsan.supp's patterns name Rust frames.
    for t in "${TESTS[@]}"; do
        step "AddressSanitizer: $t"
        MM2_FFI_CYCLES="${MM2_FFI_ASAN_CYCLES:-20}" MM2_FFI_SEED_SYNCS=20000 \
            ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=98:fast_unwind_on_malloc=0" \
            LSAN_OPTIONS="suppressions=$ROOT/ffi-tests/lsan.supp:print_suppressions=0" \
            "$BUILD/$t.asan" || fail "$t under AddressSanitizer (exit $?)"
    done
fi

step "scripts/install.sh into a prefix; examples/checkpoint.c through pkg-config (shared, static), a C++ program through CMake"
version="$(sed -n 's/^#define MM2_CHECKPOINT_VERSION "\(.*\)"$/\1/p' include/mm2_checkpoint.h)"
PREFIX="$BUILD/prefix"
rm -rf "$PREFIX"
install_args=(--prefix "$PREFIX" --from "$LIBDIR" --static-libs "$NATIVE_LIBS")
[ -z "$TARGET" ] || install_args+=(--target "$TARGET")
bash scripts/install.sh "${install_args[@]}" || fail "scripts/install.sh"
[ -L "$PREFIX/lib/libmm2_checkpoint.so" ] && [ "$(readlink "$PREFIX/lib/libmm2_checkpoint.so")" = "libmm2_checkpoint.so.$abi" ] \
    || fail "install: the development link libmm2_checkpoint.so -> libmm2_checkpoint.so.$abi"
readelf -d "$PREFIX/lib/libmm2_checkpoint.so.$abi" | grep -q "SONAME.*\[libmm2_checkpoint.so.$abi\]" || fail "install: SONAME"
if readelf -S "$PREFIX/lib/libmm2_checkpoint.so.$abi" | grep -q '\.debug_info'; then fail "install: the shared library keeps its debug info"; fi
# Nothing below may find the build tree: the programs see the prefix alone.
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig"
[ "$(pkg-config --modversion mm2_checkpoint)" = "$version" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Wextra -Werror -pthread -DMM2_CHECKPOINT_EMBEDDED examples/checkpoint.c \
    $(pkg-config --cflags --libs mm2_checkpoint) -Wl,-rpath,"$PREFIX/lib" -o "$BUILD/checkpoint" \
    || fail "example (shared, pkg-config)"
# The static library by path: beside the shared one, -lmm2_checkpoint would pick the shared.
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Wextra -Werror -pthread -DMM2_CHECKPOINT_EMBEDDED examples/checkpoint.c $(pkg-config --cflags mm2_checkpoint) \
    "$(pkg-config --variable=libdir mm2_checkpoint)/libmm2_checkpoint.a" \
    $(pkg-config --static --libs-only-l mm2_checkpoint | sed 's/-lmm2_checkpoint//') -o "$BUILD/checkpoint.static" \
    || fail "example (static, pkg-config --static)"
unset PKG_CONFIG_LIBDIR
if [ -n "$DEFAULT_LIB" ]; then
    # README's link line against the library users get: the example builds without the demo,
    # and says so when asked for it.
    "$CC" -std=c11 -Wall -Wextra -Werror -pthread examples/checkpoint.c -I include -L"$(dirname "$DEFAULT_LIB")" \
        -lmm2_checkpoint -o "$BUILD/checkpoint.default" || fail "example against the default library (README's link line)"
    ln -sf libmm2_checkpoint.so "$(dirname "$DEFAULT_LIB")/libmm2_checkpoint.so.$abi"
    if LD_LIBRARY_PATH="$(dirname "$DEFAULT_LIB")" "$BUILD/checkpoint.default" >"$BUILD/checkpoint.default.out" 2>&1 \
        || ! grep -q "built without the mock clusters" "$BUILD/checkpoint.default.out"; then
        fail "example against the default library: the demo mode must say it is absent"
    fi
fi
cmake_args=(-S ffi-tests/cmake_consumer -B "$BUILD/cmake_consumer" -DCMAKE_PREFIX_PATH="$PREFIX"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_RPATH="$PREFIX/lib")
[ -z "$TARGET" ] || cmake_args+=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_CXX_COMPILER="$CXX")
rm -rf "$BUILD/cmake_consumer"
cmake "${cmake_args[@]}" >"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log" >&2; fail "cmake configure (find_package)"; }
cmake --build "$BUILD/cmake_consumer" >>"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log" >&2; fail "cmake build"; }
"${RUN[@]}" "$BUILD/cmake_consumer/consumer_shared" || fail "C++ program (CMake, shared)"
"${RUN[@]}" "$BUILD/cmake_consumer/consumer_static" || fail "C++ program (CMake, static)"
readelf -d "$BUILD/cmake_consumer/consumer_shared" | grep -q "NEEDED.*libmm2_checkpoint.so.$abi" \
    || fail "the CMake program does not need libmm2_checkpoint.so.$abi"
if readelf -d "$BUILD/checkpoint.static" | grep NEEDED | grep -q mm2_checkpoint; then
    fail "the static example links the shared library"
fi
"${RUN[@]}" "$BUILD/checkpoint" -h >/dev/null || fail "example -h"
if "${RUN[@]}" "$BUILD/checkpoint" onlyone >/dev/null 2>&1; then fail "example accepted one bootstrap list"; fi
"${RUN[@]}" "$BUILD/checkpoint" || fail "example (shared, embedded clusters)"
"${RUN[@]}" "$BUILD/checkpoint.static" || fail "example (static, embedded clusters)"
if [ -z "$TARGET" ]; then
    step "scripts/release.sh packs the same build into the same bytes from two directories"
    rm -rf "$BUILD/release-a" "$BUILD/release-b"
    for side in a b; do
        git clone -q "$ROOT" "$BUILD/release-$side" || fail "cloning the repository for release.sh"
        (cd "$BUILD/release-$side" && bash scripts/release.sh "$version" --from "$LIBDIR" --static-libs "$NATIVE_LIBS" \
            --out "$BUILD/release-$side/dist" >/dev/null 2>"$BUILD/release-$side.log") \
            || { cat "$BUILD/release-$side.log" >&2; fail "scripts/release.sh"; }
    done
    cmp "$BUILD"/release-a/dist/*.tar.gz "$BUILD"/release-b/dist/*.tar.gz \
        || fail "scripts/release.sh gave two different tarballs from two directories"
    cat "$BUILD"/release-a/dist/*.sha256
    rm -rf "$BUILD/release-a" "$BUILD/release-b"
fi
if [ -n "$TARGET" ]; then
    step "passed for $TARGET (the real-broker steps run on the host only)"
    exit 0
fi

# The watchdogs (--owner-pid) stop the brokers if this script dies; the trap does on any exit.
BROKERS=()
stop_brokers() {
    local h
    for h in "${BROKERS[@]+"${BROKERS[@]}"}"; do scripts/kafka-broker.sh stop "$h"; done
}
trap stop_brokers EXIT
if [ -n "${MM2_SHARED_BOOTSTRAP:-}" ] && [ -n "${MM2_SHARED_TARGET_BOOTSTRAP:-}" ]; then
    step "examples/checkpoint.c against the run's shared Kafka brokers"
    source_bs="$MM2_SHARED_BOOTSTRAP"
    target_bs="$MM2_SHARED_TARGET_BOOTSTRAP"
else
    step "examples/checkpoint.c against two real Kafka brokers (scripts/kafka-broker.sh)"
    for side in source target; do
        out="$(scripts/kafka-broker.sh start --owner-pid $$)" || fail "starting the $side broker"
        BROKERS+=("$(sed -n 's/^handle=//p' <<<"$out")")
        declare "${side}_bs=$(sed -n 's/^bootstrap=//p' <<<"$out")"
    done
fi
# 15 s: start-up reads the (missing) checkpoints topic for 5 s before it asks whether it exists.
# shellcheck disable=SC2154
"$BUILD/checkpoint" -t 15 "$source_bs" "$target_bs" checkpoints.topic.replication.factor=1 \
    >"$BUILD/checkpoint-kafka.out" 2>&1 || {
    cat "$BUILD/checkpoint-kafka.out" >&2
    fail "example against real brokers"
}
grep -q "stop took" "$BUILD/checkpoint-kafka.out" || fail "example against real brokers: no stop report"
# Start-up found no checkpoints topic on the target and created it, compacted.
# shellcheck disable=SC2154
scripts/kafka-broker.sh tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$target_bs" \
    --describe --topic source.checkpoints.internal 2>/dev/null | grep -q "cleanup.policy=compact" \
    || fail "example against real brokers: source.checkpoints.internal missing or not compacted"

step "test_elastic: two tasks in the elastic mode share the groups (the same real brokers)"
gcc "${CFLAGS[@]}" ffi-tests/test_elastic.c -L"$LIBDIR" -lmm2_checkpoint -Wl,-rpath,"$LIBDIR" \
    -o "$BUILD/test_elastic" || fail "compiling test_elastic"
# 24 groups over 16 coordination partitions: the chance that all land on one task's share is
# negligible. Each gets a commit on `orders` (offset 0), which is what discovery adopts.
ELASTIC_GROUPS=24
group_args=()
for i in $(seq 0 $((ELASTIC_GROUPS - 1))); do group_args+=(--group "elastic-$i"); done
scripts/kafka-broker.sh tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$source_bs" \
    --create --if-not-exists --topic orders --partitions 2 >/dev/null 2>&1 || fail "creating orders"
scripts/kafka-broker.sh tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
    --bootstrap-server "$source_bs" --reset-offsets --to-earliest --execute --topic orders \
    "${group_args[@]}" >/dev/null 2>&1 || fail "committing the elastic test's groups"
"$BUILD/test_elastic" "$source_bs" "$target_bs" elastic- "$ELASTIC_GROUPS" || fail "test_elastic"
stop_brokers
BROKERS=()

step "all C ABI tests passed"
