//! One text, one meaning: every shipped `.properties` file resolves to the same configuration
//! through the Rust API and through the C API (`mm_conf_load_properties`, then what
//! `mm_task_new` reads, described by `mm_conf_describe`). The Java bindings call the same C
//! functions with the same text. Rejected texts fail with the same message in both.

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;

use mm2_checkpoint::mirror_checkpoint_config::MirrorCheckpointConfig;

/// An opaque `mm_conf_t`.
#[repr(C)]
struct Conf {
    _private: [u8; 0],
}

// Links the library into this test so that its exported symbols resolve.
use mm2_checkpoint as _;

extern "C" {
    fn mm_conf_new(conf_out: *mut *mut Conf) -> c_int;
    fn mm_conf_load_properties(conf: *mut Conf, properties: *const c_char) -> c_int;
    fn mm_conf_describe(conf: *const Conf, dest: *mut c_char, dest_size: *mut usize) -> c_int;
    fn mm_conf_destroy(conf: *mut Conf);
    fn mm_last_error(dest: *mut c_char, dest_size: usize) -> usize;
}

fn last_error() -> String {
    let mut buf = vec![0 as c_char; 4096];
    // SAFETY: buf holds 4096 bytes.
    unsafe { mm_last_error(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: NUL-terminated by mm_last_error.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// The C API's description of `text`, or its error message.
fn through_c(text: &str) -> Result<String, String> {
    let text = CString::new(text).expect("no NUL in the file");
    let mut conf = std::ptr::null_mut();
    // SAFETY: a local out-pointer.
    assert_eq!(unsafe { mm_conf_new(&mut conf) }, 0);
    let result = (|| {
        // SAFETY: live conf, C string.
        if unsafe { mm_conf_load_properties(conf, text.as_ptr()) } != 0 {
            return Err(last_error());
        }
        let mut size = 0usize;
        // SAFETY: size query with a NULL dest.
        if unsafe { mm_conf_describe(conf, std::ptr::null_mut(), &mut size) } != 0 {
            return Err(last_error());
        }
        let mut buf = vec![0 as c_char; size];
        // SAFETY: buf holds size bytes.
        let r = unsafe { mm_conf_describe(conf, buf.as_mut_ptr(), &mut size) };
        assert_eq!(r, 0, "{}", last_error());
        // SAFETY: NUL-terminated by mm_conf_describe.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string())
    })();
    // SAFETY: made above, not taken.
    unsafe { mm_conf_destroy(conf) };
    result
}

/// The Rust API's description of `text`, or its error as C would print it.
fn through_rust(text: &str) -> Result<String, String> {
    MirrorCheckpointConfig::from_properties_text(text)
        .map(|(config, _)| config.describe())
        .map_err(|e| match e.key.as_str() {
            "" => e.reason,
            key => format!("{key}: {}", e.reason),
        })
}

fn shipped_properties() -> Vec<std::path::PathBuf> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "properties"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_properties_file_resolves_identically_through_rust_and_c() {
    let files = shipped_properties();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rust = through_rust(&text).unwrap_or_else(|e| panic!("{}: Rust: {e}", file.display()));
        let c = through_c(&text).unwrap_or_else(|e| panic!("{}: C: {e}", file.display()));
        assert_eq!(rust, c, "{}", file.display());
        assert!(rust.contains("bootstrap.servers"), "{rust}");
    }
}

#[test]
fn the_demo_file_with_aliases_source_and_target_loads_through_c() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mm2.properties"),
    )
    .unwrap();
    let described = through_c(&text).unwrap();
    assert!(
        described.contains("source_cluster_alias: \"source\""),
        "{described}"
    );
}

#[test]
fn a_rejected_text_fails_with_the_same_message_through_rust_and_c() {
    let texts = [
        "clusters = ,\n",
        "source.cluster.alias = A\n = orphan value\n",
        "clusters = so\\u0000urce, target\nsource->target.enabled = true\n",
        "clusters = A, B\nA->B.enabled = true\nB->A.enabled = true\n",
        "source.cluster.alias = A\nadmin.timeout.ms = -5\n",
        "source.cluster.alias = A\nemit.checkpoints.enabled = maybe\n",
        "clusters = A, B\nA->B.enabled = true\nA.sasl.jaas.config = com.example.Nope required;\n",
    ];
    for text in texts {
        let rust = through_rust(text).expect_err(text);
        let c = through_c(text).expect_err(text);
        assert_eq!(rust, c, "{text}");
    }
}

#[test]
fn a_missing_ca_file_is_named_with_its_key_when_the_task_is_created() {
    use mm2_checkpoint::checkpoint_task::CheckpointTask;
    let text = "clusters = A, B\nA->B.enabled = true\nA.bootstrap.servers = 127.0.0.1:1\n\
                B.bootstrap.servers = 127.0.0.1:1\nB.security.protocol = SSL\n\
                B.ssl.ca.location = /nowhere/backup-ca.pem\n";
    let (config, _) = MirrorCheckpointConfig::from_properties_text(text).unwrap();
    let Err(e) = CheckpointTask::new(config) else {
        panic!("a missing CA file was accepted");
    };
    assert_eq!(
        e.to_string(),
        "invalid value for configuration `B.ssl.ca.location`: the file `/nowhere/backup-ca.pem` does not exist"
    );
}
