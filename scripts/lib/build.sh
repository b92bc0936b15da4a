# Sourced, not run, by scripts/test.sh: the one build every stage uses, its settings, and the
# build-info directory it leaves for the later stages.
#
# One debug build serves every later stage: the test binaries, the examples interop runs, and
# the cdylib/staticlib the C tests and the Java stage load (no release or sanitizer build; one
# librdkafka build, shared by all the commands). All of it runs in lane_build, before the late
# lanes, which then build none of it again.
#
# Uses: ROOT (the working directory), fail (scripts/lib/stages.sh). begin_build exports the build
# settings below and MM2_BUILD_INFO, and sets BUILD_INFO, DEFAULT_LIB, AARCH64_BUILT and
# LIBRDKAFKA_C_ONLY; build_all and await_aarch64_library need it to have run.

begin_build() {
    # Clippy is this same build: cargo runs our crate's compilations through clippy-driver (what
    # `cargo clippy` does, there with `cargo check`), which lints and then compiles as rustc does,
    # so what `cargo clippy --all-targets --all-features -- -D warnings` checks costs no second
    # compilation of the crate (250 s as a stage of its own; every target is built: the examples
    # as programs, holding no cfg(test) code). CLIPPY_ARGS carries the `-D warnings` in the form
    # cargo-clippy gives it. Both stay exported for the whole run, as they are part of the build's
    # fingerprint: a cargo call without them would rebuild the crate.
    CLIPPY_DRIVER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
    [ -x "$CLIPPY_DRIVER" ] || fail "clippy-driver not found (rustup component add clippy)"
    export RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER"
    export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
    # Settings for a one-shot build (measured on 2026-12-02, a cold test build alone: 238 s wall /
    # 449 CPU-s without them, 178 / 335 with the first two). A clean clone compiles everything
    # once, so incremental compilation's bookkeeping is pure cost: our crates' units take 101
    # CPU-s instead of 155. The C dependencies are built without debug info, and librdkafka at
    # -O1: its configure reads only CFLAGS, which its makefile puts after its own `-g -O2` (make
    # alone: 84 CPU-s instead of 145). The cc crate (zstd-sys, here and in the cross build)
    # appends CFLAGS_<target> after CFLAGS, so zstd keeps the -O0 of the debug profile: at -O1 it
    # takes 27 s instead of 15, and 33 s in the cross build, on the way to librdkafka, which
    # needs it. Our own crates and their Rust dependencies are built without debug info (the dev
    # profile keeps line tables for developers): `cargo test --no-run` alone takes 300 CPU-s
    # instead of 347, and the doc tests compile no second variant of 17 crates (36 CPU-s). Panics
    # still name their file and line (that is not debug info); backtraces, valgrind and gdb name
    # functions. All of it stays exported for the whole run, like the clippy wrapper: any cargo
    # call without it would rebuild. A developer's own `cargo test` afterwards rebuilds
    # librdkafka once.
    export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0
    export CFLAGS="-O1 -g0"
    export "CFLAGS_$(rustc -vV | sed -n 's/^host: //p' | tr '-' '_')=-O0" CFLAGS_aarch64_unknown_linux_gnu=-O0
    # rdkafka-sys runs librdkafka's `make libs`, which also builds librdkafka++, the C++ wrapper,
    # which nothing here links: its makefile loops over LIBSUBDIRS, and GNU make takes a variable
    # given in GNUMAKEFLAGS as if on its command line (cargo replaces MAKEFLAGS with its jobserver).
    # make alone: 64 CPU-s instead of 73 (host), in the host and the cross build. Given only to
    # those two builds' cargo commands; no fingerprint reads it.
    LIBRDKAFKA_C_ONLY="LIBSUBDIRS=src"
    # Maven's own JVM (the setup's resolution, interop's and java's builds, the JVM example):
    # short-lived, so C1 alone and the serial collector; `mvn -o package` of java/ takes 13.6 CPU-s
    # instead of 25.1. The test JVMs get the same from java/pom.xml's mm2.test.argLine.
    export MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC${MAVEN_OPTS:+ $MAVEN_OPTS}"
    # What the build leaves, for the stages that would otherwise build it again: the build-info
    # directory, one file per fact, read by the scripts and tests named here:
    #   cargo-test.json               cargo's messages of the test build (scripts/run-test-binaries.sh)
    #   examples-built                the examples are built as programs, in target/debug/examples
    #                                 (interop/run.sh, tests/support/examples.rs)
    #   rustc-notes.txt               the native libraries of a static link (ffi-tests/run.sh)
    #   default/libmm2_checkpoint.so  the default-feature library (ffi-tests/run.sh, DEFAULT_LIB)
    #   aarch64-built                 lane_aarch64's cross build is done (ffi-tests/run.sh's cross
    #                                 mode, await_aarch64_library)
    #   jvm-example-built             java/verify.sh's first run of examples/jvm/run.sh built the
    #                                 program (examples/jvm/run.sh, at its second run)
    BUILD_INFO="$(mktemp -d "${TMPDIR:-/tmp}/mm2-test-build.XXXXXX")"
    export MM2_BUILD_INFO="$BUILD_INFO"
    DEFAULT_LIB="$BUILD_INFO/default/libmm2_checkpoint.so"
    AARCH64_BUILT="$BUILD_INFO/aarch64-built"
}

build_all() {
    # --workspace: every crate (the layers are crates under crates/, and the Rust API at the top).
    # cargo test's own target selection: the unit tests, the integration tests, and the examples
    # built as the programs `cargo run --example` runs, which interop/run.sh and
    # tests/example_cli.rs run (the marker examples-built below). Then the bench in test mode
    # (criterion runs each benchmark once). Not --all-targets: it builds the examples as test
    # harnesses holding no test, and they are then built again as programs. (It also compiles a
    # second variant of 30 dependencies that the doc tests reuse; without it they compile that
    # themselves, 19 s, so the saving is small: 412 CPU-s instead of 421.)
    GNUMAKEFLAGS="$LIBRDKAFKA_C_ONLY" cargo test --workspace --all-features --no-run \
        --message-format=json-render-diagnostics >"$BUILD_INFO/cargo-test.json" || return 1
    cargo test --workspace --all-features --no-run --benches --message-format=json-render-diagnostics \
        >>"$BUILD_INFO/cargo-test.json" || return 1
    local example
    for example in checkpoint mirror interop_churn; do
        [ -x "target/debug/examples/$example" ] || { echo "build_all: no target/debug/examples/$example" >&2; return 1; }
    done
    touch "$BUILD_INFO/examples-built"
    # ffi-tests/run.sh's builds of the cdylib and staticlib: with default features, as users get
    # them (run.sh checks it exports no mock cluster; kept aside, since the next build takes its
    # place), then with the mock clusters, which the C and Java tests use, and the native
    # libraries a static link needs. That one has every feature, so it is a re-link of what the
    # test build above compiled (with `internals`, which no C function uses), not a third build
    # of the Rust API crate.
    # README's own command for C users (there with --release, which changes no feature): the
    # default members only, so what it exports is what users get (ffi-tests/run.sh compares it
    # with include/mm2_checkpoint.symbols).
    cargo build || return 1
    mkdir -p "$BUILD_INFO/default"
    cp target/debug/libmm2_checkpoint.so "$BUILD_INFO/default/" || return 1
    cargo rustc -p mm2-checkpoint-capi --lib --all-features -- --print=native-static-libs \
        2>"$BUILD_INFO/rustc-notes.txt" || { cat "$BUILD_INFO/rustc-notes.txt" >&2; return 1; }
}

# lane_aarch64 leaves AARCH64_BUILT after its cross build; the Java stage, which packages that
# library, waits for it here (in serial mode lane_aarch64 runs before lane_java).
await_aarch64_library() {
    local waited=0
    # A failed cross build fails the run, which kills this lane: the bound only guards a hang.
    while ! [ -f "$AARCH64_BUILT" ]; do
        if [ $waited -ge 1800 ]; then
            echo "test.sh: no linux-aarch64 library after 30 minutes (lane_aarch64)" >&2
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
}
