# Sourced by scripts/cross-aarch64.sh and scripts/install.sh: the environment of a cross build
# for linux-aarch64 with Debian's cross toolchain and arm64 libraries.
#
# The cc crate (zstd-sys) and rustc's linker read the per-target names. librdkafka's own
# ./configure (mklove, run by rdkafka-sys's build script) knows no target triple: it takes the
# plain CC, CXX, AR, RANLIB... of the environment, so those name the cross tools too, and the
# HOST_* names keep any C built for the host (build scripts' helpers) on the host compiler.
# pkg-config finds only the arm64 .pc files (openssl-sys, libz-sys, and librdkafka's configure).
cross_env_aarch64() {
    local gnu=aarch64-linux-gnu triple_env=aarch64_unknown_linux_gnu
    export "CC_$triple_env=$gnu-gcc" "CXX_$triple_env=$gnu-g++" "AR_$triple_env=$gnu-ar"
    export "CARGO_TARGET_${triple_env^^}_LINKER=$gnu-gcc"
    export CC="$gnu-gcc" CXX="$gnu-g++" AR="$gnu-ar" RANLIB="$gnu-ranlib" LD="$gnu-ld" \
        NM="$gnu-nm" STRIP="$gnu-strip" OBJDUMP="$gnu-objdump"
    export HOST_CC=gcc HOST_CXX=g++ HOST_AR=ar
    export PKG_CONFIG_ALLOW_CROSS=1
    export PKG_CONFIG_LIBDIR="/usr/lib/$gnu/pkgconfig:/usr/share/pkgconfig"
    unset PKG_CONFIG_PATH
}
