//! Gives the C shared library its SONAME, `libmm2_checkpoint.so.<ABI major>`, so programs linked
//! against it record the ABI they were built for and keep working across compatible releases
//! (as `librdkafka.so.1` does). The ABI major changes only when the C ABI breaks; it is not the
//! crate version. include/mm2_checkpoint.h (`MM2_CHECKPOINT_ABI_VERSION`) and README's link lines
//! follow it; crates/capi/tests/ffi_header.rs checks they agree.
//!
//! Writes nothing: the link `libmm2_checkpoint.so.<ABI major> -> libmm2_checkpoint.so` a program linked
//! from the build tree looks for is made by who runs such a program (ffi-tests/run.sh, an
//! installer), since a build script may write only below `OUT_DIR`.

/// Bumped only on an incompatible change of the C ABI.
const ABI_MAJOR: u32 = 2;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" || target_os == "freebsd" || target_os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmm2_checkpoint.so.{ABI_MAJOR}");
    }
    println!("cargo:rustc-env=MM2_CHECKPOINT_ABI_VERSION={ABI_MAJOR}");
}
