//! The example programs the tests run as a user would: `target/<profile>/examples/<name>`.

use std::path::PathBuf;
use std::process::Command;

/// The example `name`: the one scripts/test.sh built (its build-info directory, MM2_BUILD_INFO,
/// holds the marker `examples-built` once its `cargo test` build of the workspace has built the
/// examples as programs), else built now with `features` of the Rust API crate (pass the
/// calling test's own, e.g. from `cfg!`): `cargo test --test NAME` does not build examples.
pub fn example(name: &str, features: &[&str]) -> PathBuf {
    // Tests run from target/<profile>/deps; examples live in target/<profile>/examples.
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("a test binary under target/<profile>/deps");
    let bin = profile_dir.join("examples").join(name);
    let marker = std::env::var_os("MM2_BUILD_INFO")
        .map(|dir| PathBuf::from(dir).join("examples-built"))
        .filter(|m| m.exists());
    if let Some(marker) = marker {
        assert!(
            bin.exists(),
            "{} missing ({} says it is built)",
            bin.display(),
            marker.display()
        );
        return bin;
    }
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--workspace", "--example", name])
        .args(["--no-default-features", "--features", &features.join(",")])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .status()
        .expect("running cargo build");
    assert!(status.success(), "building example {name}: {status}");
    assert!(bin.exists(), "{} missing", bin.display());
    bin
}
