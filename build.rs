//! Gives the C shared library its SONAME, `libmm2_checkpoint.so.<ABI major>`, so programs linked
//! against it record the ABI they were built for and keep working across compatible releases
//! (as `librdkafka.so.1` does). The ABI major changes only when the C ABI breaks; it is not the
//! crate version. include/mm2_checkpoint.h (`MM2_CHECKPOINT_ABI_VERSION`) and README's link lines
//! follow it; tests/ffi_header.rs checks they agree.

/// Bumped only on an incompatible change of the C ABI.
const ABI_MAJOR: u32 = 1;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" || target_os == "freebsd" || target_os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmm2_checkpoint.so.{ABI_MAJOR}");
        link_soname_in_target_dir();
    }
    println!("cargo:rustc-env=MM2_CHECKPOINT_ABI_VERSION={ABI_MAJOR}");
}

/// A program linked with `-L target/<profile> -lmm2_checkpoint` records the SONAME and looks for
/// `libmm2_checkpoint.so.1` at run time. Cargo writes only `libmm2_checkpoint.so`, so the
/// symlink an installer would make (`ln -s libmm2_checkpoint.so libmm2_checkpoint.so.1`) is made
/// here, next to where the library will be, for the C tests, the JVM bindings and examples
/// run from the build tree. It dangles until the library is linked. Best effort: a failure only
/// means the caller makes the link itself, as README says.
fn link_soname_in_target_dir() {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        return;
    };
    // OUT_DIR is target/<profile>/build/<package>-<hash>/out.
    let Some(profile_dir) = std::path::Path::new(&out_dir).ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join(format!("libmm2_checkpoint.so.{ABI_MAJOR}"));
    if std::fs::symlink_metadata(&link).is_err() {
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("libmm2_checkpoint.so", &link);
    }
}
