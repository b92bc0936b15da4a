//! The Rust API crate (`mm2-checkpoint`) cannot import the C ABI crate (`mm2-checkpoint-ffi`):
//! the C ABI crate depends on it, so the import would need a dependency cycle, which cargo
//! refuses before compiling anything. This test asks cargo, on a copy of the workspace whose
//! top manifest gains that dependency (the other files are the real ones, linked in), and on a
//! twin copy without it, so a failure for another reason does not pass for the refusal.
//! (The compile-fail doctests of crates/core/src/lib.rs and crates/kafka/src/lib.rs show the
//! boundaries below.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

/// The platform rustc builds for by default (`host:` of `rustc -vV`).
fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("running rustc -vV");
    let text = String::from_utf8(out.stdout).expect("rustc -vV is UTF-8");
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names its host")
        .to_string()
}

/// `cargo metadata` on a copy of the workspace whose top Cargo.toml is `manifest`: its output
/// and whether it succeeded.
fn metadata_with(manifest: &str, name: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("mm2-upward-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = root();
    for entry in std::fs::read_dir(&root).unwrap() {
        let entry = entry.unwrap();
        let file = entry.file_name();
        if file == "Cargo.toml" || file == "target" || file == ".git" {
            continue;
        }
        if file == "Cargo.lock" {
            // A copy: cargo may rewrite the lock file of the changed workspace.
            std::fs::copy(entry.path(), dir.join(&file)).unwrap();
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), dir.join(&file)).unwrap();
    }
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Offline, and for this machine's platform only: the build downloaded the packages of that
    // platform, and no others (an unfiltered resolve wants every platform's, e.g. Android's).
    let out = Command::new(cargo)
        .args(["metadata", "--offline", "--format-version", "1"])
        .args(["--filter-platform", &host_triple()])
        .current_dir(&dir)
        .output()
        .expect("running cargo metadata");
    std::fs::remove_dir_all(&dir).unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), text)
}

#[test]
fn the_rust_api_crate_cannot_depend_on_the_c_abi_crate() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let (ok, err) = metadata_with(&manifest, "twin");
    assert!(ok, "the unchanged workspace must resolve: {err}");

    let upward = manifest.replacen(
        "[dependencies]\n",
        "[dependencies]\nmm2-checkpoint-ffi = { path = \"crates/ffi\" }\n",
        1,
    );
    assert_ne!(upward, manifest);
    let (ok, err) = metadata_with(&upward, "upward");
    assert!(!ok, "cargo accepted the upward dependency");
    assert!(err.contains("cyclic package dependency"), "{err}");
}
