//! `mm_conf_t`: MM2 properties as string key/value pairs, librdkafka-style. Values are checked
//! key by key where that is possible without the other keys; `mm_task_new` checks the whole.

use std::collections::BTreeMap;
use std::ffi::c_char;

use super::boundary::{
    borrow, borrow_mut, copy_out, destroy, give, into_handle, mm_result, out, run, text, Failure,
};
use mm2_checkpoint::ConfigError;
use mm2_checkpoint::{ConfigWarning, MirrorCheckpointConfig};

/// A configuration: MM2 property names and values (connector style such as
/// `source.cluster.alias`, or dedicated `mm2.properties` style with `clusters`), plus librdkafka
/// client settings in MM2's `consumer.`/`producer.`/`admin.` layers. Opaque.
#[allow(non_camel_case_types)]
#[derive(Clone, Debug, Default)]
pub struct mm_conf_t {
    /// Trimmed keys, as MM2 trims them, so two spellings of one key cannot both be present.
    entries: BTreeMap<String, String>,
}

impl mm_conf_t {
    /// Parses the whole configuration, as `mm_task_new` does.
    pub(crate) fn parse(
        &self,
    ) -> Result<(MirrorCheckpointConfig, Vec<ConfigWarning>), ConfigError> {
        MirrorCheckpointConfig::from_properties(
            self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )
    }

    /// The keys and values as set (keys trimmed).
    pub(crate) fn entries(&self) -> &BTreeMap<String, String> {
        &self.entries
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), Failure> {
        let key = key.trim();
        MirrorCheckpointConfig::check_setting(key, value)?;
        self.entries.insert(key.to_string(), value.to_string());
        Ok(())
    }
}

/// Makes an empty configuration and writes it to `*conf_out`. Free it with `mm_conf_destroy`,
/// or hand it to a successful `mm_task_new`, which takes it. `MM_RESULT_NULL_PARAMETER` when
/// `conf_out` is NULL. Non-blocking, any thread.
///
/// # Safety
/// `conf_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_new(conf_out: *mut *mut mm_conf_t) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(conf_out, "conf_out", || {
            Ok(into_handle(mm_conf_t::default()))
        })
    })
}

/// Sets `key` to `value` (both UTF-8, copied). Keys are trimmed, as MM2 trims them; a later set
/// of the same key replaces its value.
///
/// The value is checked now when the key alone tells how (booleans, numbers, intervals, class
/// names, regexes of MM2 keys, a `clusters` list naming no alias), by the same rules as the Rust
/// API: on `MM_RESULT_INVALID_CONFIG` the conf is unchanged and `mm_last_error` reads
/// `"<key>: <reason>"`, never a secret value. Unknown keys and client settings are stored; they
/// are checked by `mm_task_new` (and by librdkafka when the clients are created).
///
/// Returns `MM_RESULT_NULL_PARAMETER` when `conf`, `key` or `value` is NULL,
/// `MM_RESULT_INVALID_ARGUMENT` for non-UTF-8 text, `MM_RESULT_INVALID_CONFIG` for an empty key
/// or a rejected value.
///
/// Non-blocking. One thread at a time per conf.
///
/// # Safety
/// `conf` is NULL or a live conf; `key` and `value` are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_set(
    conf: *mut mm_conf_t,
    key: *const c_char,
    value: *const c_char,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, key, value) = unsafe {
            (
                borrow_mut(conf, "conf")?,
                text(key, "key")?,
                text(value, "value")?,
            )
        };
        conf.set(key, value)
    })
}

/// Removes `key` (trimmed). `MM_RESULT_NOT_FOUND` when it was not set;
/// `MM_RESULT_NULL_PARAMETER` when `conf` or `key` is NULL. Non-blocking; one thread at a time
/// per conf.
///
/// # Safety
/// `conf` is NULL or a live conf; `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_unset(conf: *mut mm_conf_t, key: *const c_char) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, key) = unsafe { (borrow_mut(conf, "conf")?, text(key, "key")?) };
        match conf.entries.remove(key.trim()) {
            Some(_) => Ok(()),
            None => Err(Failure::new(
                mm_result::NotFound,
                format!("`{}` is not set", key.trim()),
            )),
        }
    })
}

/// Reads the value of `key` (trimmed) into `dest`, NUL-terminated.
///
/// `*dest_size` is the capacity of `dest` in bytes; on return it holds the size the value needs
/// (its length + 1). With `dest` NULL only that size is written (a size query, returns
/// `MM_RESULT_OK`). When the capacity is too small, returns `MM_RESULT_BUFFER_TOO_SMALL`, writes
/// the needed size and leaves `dest` untouched. `MM_RESULT_NOT_FOUND` when `key` is not set (no
/// output written); `MM_RESULT_NULL_PARAMETER` when `conf`, `key` or `dest_size` is NULL.
///
/// Non-blocking. May run concurrently with other reads of the same conf, not with writes.
///
/// # Safety
/// `conf` is NULL or a live conf; `key` is NULL or NUL-terminated; `dest_size` is NULL or valid
/// for reading and writing; `dest` is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_get(
    conf: *const mm_conf_t,
    key: *const c_char,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, key, size) = unsafe {
            (
                borrow(conf, "conf")?,
                text(key, "key")?,
                borrow_mut(dest_size, "dest_size")?,
            )
        };
        let key = key.trim();
        let value = conf
            .entries
            .get(key)
            .ok_or_else(|| Failure::new(mm_result::NotFound, format!("`{key}` is not set")))?;
        // SAFETY: this function's contract.
        unsafe { copy_out(value, &format!("the value of `{key}`"), dest, size) }
    })
}

/// Copies a configuration into `*conf_out`. The copy is independent and freed with
/// `mm_conf_destroy`. `MM_RESULT_NULL_PARAMETER` when a pointer is NULL. Non-blocking; may run
/// concurrently with reads of `conf`.
///
/// # Safety
/// `conf` is NULL or a live conf; `conf_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_dup(
    conf: *const mm_conf_t,
    conf_out: *mut *mut mm_conf_t,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(conf_out, "conf_out", || {
            Ok(into_handle(borrow(conf, "conf")?.clone()))
        })
    })
}

/// Frees a configuration that was not handed to a successful `mm_task_new`. NULL is ignored.
/// Non-blocking; no other call may use `conf` during or after it.
///
/// # Safety
/// `conf` is NULL or a conf from `mm_conf_new`/`mm_conf_dup` not freed or taken yet.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_destroy(conf: *mut mm_conf_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(conf) };
}

/// Sets every key of a Java `.properties` text (an `mm2.properties` file's content, UTF-8) as
/// `mm_conf_set` would. A key given twice takes its last value, as in `java.util.Properties`.
/// All or nothing: on any failure the conf is unchanged and `mm_last_error` names the key (or
/// line) and why. Returns as `mm_conf_set`. Non-blocking; one thread at a time per
/// conf.
///
/// # Safety
/// As `mm_conf_set`, with `properties` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_load_properties(
    conf: *mut mm_conf_t,
    properties: *const c_char,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, properties) =
            unsafe { (borrow_mut(conf, "conf")?, text(properties, "properties")?) };
        let (last, warnings) = MirrorCheckpointConfig::properties_from_text(properties)?;
        for warning in warnings {
            log::warn!("{warning}");
        }
        let mut updated = conf.clone();
        for (key, value) in &last {
            updated.set(key, value)?;
        }
        *conf = updated;
        Ok(())
    })
}

/// Writes the resolved configuration, as `mm_task_new` would read `conf`, into `dest`: one
/// canonical text, one line per setting, secret values shown as `[hidden]`. First
/// `key = value` for every setting of the task under its MM2 key, sorted, defaults included (a
/// disabled interval is `-1`); then `<client>: key = value` for every final librdkafka setting
/// of every client the task makes (`source-admin: bootstrap.servers = a:9092`). Lines may be
/// added in later versions, never renamed. The Rust API's
/// `MirrorCheckpointConfig::describe` gives the same text for the same properties, so any two
/// bindings can be compared. Sizes as `mm_conf_get`: `*dest_size` is the capacity and receives
/// the size needed; `dest` NULL asks only for the size; `MM_RESULT_BUFFER_TOO_SMALL` leaves
/// `dest` untouched. `MM_RESULT_INVALID_CONFIG` (with `mm_last_error`) when `mm_task_new` would
/// refuse the configuration; `MM_RESULT_NULL_PARAMETER` when `conf` or `dest_size` is NULL.
///
/// Non-blocking, no I/O. May run concurrently with other reads of the same conf.
///
/// # Safety
/// `conf` is NULL or a live conf; `dest_size` is NULL or valid for reading and writing; `dest`
/// is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_describe(
    conf: *const mm_conf_t,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, size) = unsafe { (borrow(conf, "conf")?, borrow_mut(dest_size, "dest_size")?) };
        let (config, _) = conf.parse()?;
        // SAFETY: this function's contract.
        unsafe { copy_out(&config.describe(), "the description", dest, size) }
    })
}

/// Writes the number of keys set into `*count_out`. `MM_RESULT_NULL_PARAMETER` when a pointer is
/// NULL. Non-blocking; may run concurrently with reads.
///
/// # Safety
/// `conf` is NULL or a live conf; `count_out` is NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_count(conf: *const mm_conf_t, count_out: *mut usize) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, count) = unsafe { (borrow(conf, "conf")?, out(count_out, "count_out")?) };
        count.write(conf.entries.len());
        Ok(())
    })
}

/// Reads the key at `index` (from 0, below `mm_conf_count`) into `dest`, NUL-terminated: the keys
/// in byte order of their trimmed text, so a caller can list what a conf holds (with
/// `mm_conf_get` for each value) after `mm_conf_load_properties`. Sizes as `mm_conf_get`:
/// `*dest_size` is the capacity and receives the size needed; `dest` NULL asks only for the
/// size; `MM_RESULT_BUFFER_TOO_SMALL` leaves `dest` untouched. `MM_RESULT_INVALID_ARGUMENT` when
/// `index` is not below the count; `MM_RESULT_NULL_PARAMETER` when `conf` or `dest_size` is NULL.
///
/// Non-blocking. May run concurrently with other reads of the same conf, not with writes.
///
/// # Safety
/// `conf` is NULL or a live conf; `dest_size` is NULL or valid for reading and writing; `dest`
/// is NULL or valid for writing `*dest_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_conf_key(
    conf: *const mm_conf_t,
    index: usize,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, size) = unsafe { (borrow(conf, "conf")?, borrow_mut(dest_size, "dest_size")?) };
        let key = conf.entries.keys().nth(index).ok_or_else(|| {
            Failure::new(
                mm_result::InvalidArgument,
                format!(
                    "key index {index} is out of range: the conf holds {} keys",
                    conf.entries.len()
                ),
            )
        })?;
        // SAFETY: this function's contract.
        unsafe { copy_out(key, "the key", dest, size) }
    })
}

#[cfg(test)]
mod tests {
    use super::super::boundary::last_error_text;
    use super::*;
    use std::ffi::{CStr, CString};

    struct Conf(*mut mm_conf_t);
    impl Drop for Conf {
        fn drop(&mut self) {
            // SAFETY: made by mm_conf_new and not freed elsewhere.
            unsafe { mm_conf_destroy(self.0) }
        }
    }

    fn new_conf() -> Conf {
        let mut p = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(unsafe { mm_conf_new(&mut p) }, mm_result::Ok);
        Conf(p)
    }

    fn set(conf: &Conf, key: &str, value: &str) -> (mm_result, String) {
        let (k, v) = (CString::new(key).unwrap(), CString::new(value).unwrap());
        // SAFETY: live conf, C strings.
        let r = unsafe { mm_conf_set(conf.0, k.as_ptr(), v.as_ptr()) };
        (r, last_error_text())
    }

    fn get(conf: &Conf, key: &str) -> Option<String> {
        let k = CString::new(key).unwrap();
        let mut size = 0usize;
        // SAFETY: size query with a NULL dest.
        let r = unsafe { mm_conf_get(conf.0, k.as_ptr(), std::ptr::null_mut(), &mut size) };
        if r == mm_result::NotFound {
            return None;
        }
        assert_eq!(r, mm_result::Ok);
        let mut buf = vec![0 as c_char; size];
        // SAFETY: buf holds size bytes.
        let r = unsafe { mm_conf_get(conf.0, k.as_ptr(), buf.as_mut_ptr(), &mut size) };
        assert_eq!(r, mm_result::Ok);
        // SAFETY: NUL-terminated by mm_conf_get.
        Some(
            unsafe { CStr::from_ptr(buf.as_ptr()) }
                .to_str()
                .unwrap()
                .to_string(),
        )
    }

    #[test]
    fn set_checks_values_of_known_keys_and_names_the_key() {
        let conf = new_conf();
        let cases = [
            (
                "emit.checkpoints.enabled",
                "yes",
                Some("emit.checkpoints.enabled: expected `true` or `false`, got `yes`"),
            ),
            (
                "admin.timeout.ms",
                "0",
                Some("admin.timeout.ms: must be positive, got 0"),
            ),
            (
                "admin.timeout.ms",
                "ten",
                Some("admin.timeout.ms: `ten` is not a valid long"),
            ),
            (
                "offset-syncs.topic.location",
                "Source",
                Some("offset-syncs.topic.location: must be `source` or `target`"),
            ),
            (
                "replication.policy.class",
                "com.example.Mine",
                Some("replication.policy.class: `com.example.Mine` is not supported"),
            ),
            ("", "x", Some("the key is empty")),
            ("  ", "x", Some("the key is empty")),
            (
                "source.cluster.alias",
                "",
                Some("source.cluster.alias: must not be empty"),
            ),
            ("emit.checkpoints.interval.seconds", "5", None),
            ("enabled", "true", None),
            ("consumer.fetch.min.bytes", "whatever", None),
            ("no.such.key", "1", None),
            ("clusters", "A, B", None),
        ];
        for (key, value, error) in cases {
            let (r, msg) = set(&conf, key, value);
            match error {
                Some(prefix) => {
                    assert_eq!(r, mm_result::InvalidConfig, "{key}={value}");
                    assert!(msg.starts_with(prefix), "{key}={value}: {msg}");
                    if !key.trim().is_empty() {
                        assert_eq!(get(&conf, key), None, "rejected {key} was stored");
                    }
                }
                None => {
                    assert_eq!(r, mm_result::Ok, "{key}={value}: {msg}");
                    assert_eq!(get(&conf, key).as_deref(), Some(value));
                }
            }
        }
    }

    #[test]
    fn keys_are_trimmed_and_replaced_in_place() {
        let conf = new_conf();
        assert_eq!(set(&conf, " topics ", "a").0, mm_result::Ok);
        assert_eq!(set(&conf, "topics", "b").0, mm_result::Ok);
        assert_eq!(get(&conf, "topics").as_deref(), Some("b"));
        let mut n = 0;
        // SAFETY: live conf, local out.
        assert_eq!(unsafe { mm_conf_count(conf.0, &mut n) }, mm_result::Ok);
        assert_eq!(n, 1);
        let k = CString::new("topics").unwrap();
        // SAFETY: live conf, C string.
        assert_eq!(unsafe { mm_conf_unset(conf.0, k.as_ptr()) }, mm_result::Ok);
        // SAFETY: as above.
        assert_eq!(
            unsafe { mm_conf_unset(conf.0, k.as_ptr()) },
            mm_result::NotFound
        );
    }

    /// The key at `index`, or the result that refused it.
    fn key_at(conf: &Conf, index: usize) -> Result<String, mm_result> {
        let mut size = 0usize;
        // SAFETY: size query with a NULL dest.
        let r = unsafe { mm_conf_key(conf.0, index, std::ptr::null_mut(), &mut size) };
        if r != mm_result::Ok {
            return Err(r);
        }
        let mut buf = vec![0 as c_char; size];
        // SAFETY: buf holds `size` bytes.
        let r = unsafe { mm_conf_key(conf.0, index, buf.as_mut_ptr(), &mut size) };
        assert_eq!(r, mm_result::Ok);
        // SAFETY: NUL-terminated by the successful call.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string())
    }

    #[test]
    fn keys_are_listed_in_order_by_index() {
        let conf = new_conf();
        for key in ["topics", " clusters ", "A.bootstrap.servers"] {
            assert_eq!(set(&conf, key, "x").0, mm_result::Ok);
        }
        let keys: Vec<String> = (0..3).map(|i| key_at(&conf, i).unwrap()).collect();
        assert_eq!(keys, ["A.bootstrap.servers", "clusters", "topics"]);
        assert_eq!(key_at(&conf, 3), Err(mm_result::InvalidArgument));
        assert!(last_error_text().contains("key index 3 is out of range: the conf holds 3 keys"));
        assert_eq!(key_at(&conf, usize::MAX), Err(mm_result::InvalidArgument));
        let mut size = 0usize;
        // SAFETY: a NULL conf is refused before anything is read.
        let r = unsafe { mm_conf_key(std::ptr::null(), 0, std::ptr::null_mut(), &mut size) };
        assert_eq!(r, mm_result::NullParameter);
    }

    #[test]
    fn get_reports_the_size_needed_and_writes_nothing_when_too_small() {
        let conf = new_conf();
        set(&conf, "topics", "orders");
        let k = CString::new("topics").unwrap();
        let mut buf = [0x55 as c_char; 8];
        for (capacity, expected) in [
            (0, mm_result::BufferTooSmall),
            (6, mm_result::BufferTooSmall),
            (7, mm_result::Ok),
        ] {
            let mut size = capacity;
            // SAFETY: buf holds 8 >= capacity bytes.
            let r = unsafe { mm_conf_get(conf.0, k.as_ptr(), buf.as_mut_ptr(), &mut size) };
            assert_eq!((r, size), (expected, 7), "capacity {capacity}");
            if expected != mm_result::Ok {
                assert_eq!(buf[0], 0x55, "wrote into a too-small buffer");
            }
        }
        // SAFETY: NUL-terminated by the successful call.
        assert_eq!(
            unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(),
            "orders"
        );
    }

    #[test]
    fn load_properties_is_all_or_nothing() {
        let conf = new_conf();
        let good = CString::new("# flow\nsource.cluster.alias = A\ntopics=orders\n").unwrap();
        // SAFETY: live conf, C string, local buffer.
        let r = unsafe { mm_conf_load_properties(conf.0, good.as_ptr()) };
        assert_eq!(r, mm_result::Ok);
        assert_eq!(get(&conf, "source.cluster.alias").as_deref(), Some("A"));
        let bad = CString::new("groups = g.*\nadmin.timeout.ms = -5\n").unwrap();
        // SAFETY: as above.
        let r = unsafe { mm_conf_load_properties(conf.0, bad.as_ptr()) };
        assert_eq!(r, mm_result::InvalidConfig);
        let msg = last_error_text();
        assert!(
            msg.starts_with("admin.timeout.ms: must be positive"),
            "{msg}"
        );
        assert_eq!(get(&conf, "groups"), None, "a failed load changed the conf");
    }

    #[test]
    fn load_properties_keeps_the_last_value_of_a_repeated_key_and_checks_only_it() {
        let conf = new_conf();
        let text = CString::new("admin.timeout.ms = -5\ntopics=a\nadmin.timeout.ms = 5\n").unwrap();
        // SAFETY: live conf, C string.
        let r = unsafe { mm_conf_load_properties(conf.0, text.as_ptr()) };
        assert_eq!(r, mm_result::Ok);
        assert_eq!(get(&conf, "admin.timeout.ms").as_deref(), Some("5"));
        let text = CString::new("admin.timeout.ms = 5\nadmin.timeout.ms = -5\n").unwrap();
        // SAFETY: as above.
        let r = unsafe { mm_conf_load_properties(conf.0, text.as_ptr()) };
        assert_eq!(r, mm_result::InvalidConfig);
    }

    #[test]
    fn dup_is_independent() {
        let conf = new_conf();
        set(&conf, "topics", "a");
        let mut p = std::ptr::null_mut();
        // SAFETY: live conf, local out.
        assert_eq!(unsafe { mm_conf_dup(conf.0, &mut p) }, mm_result::Ok);
        let copy = Conf(p);
        set(&conf, "topics", "b");
        assert_eq!(get(&copy, "topics").as_deref(), Some("a"));
        let mut untouched = 0x1 as *mut mm_conf_t;
        // SAFETY: NULL conf is reported.
        let r = unsafe { mm_conf_dup(std::ptr::null(), &mut untouched) };
        assert_eq!(r, mm_result::NullParameter);
        assert_eq!(
            untouched, 0x1 as *mut mm_conf_t,
            "an output was written on failure"
        );
    }

    #[test]
    fn the_elastic_mode_is_set_through_mm_conf_set_and_its_values_are_checked() {
        let conf = new_conf();
        for (key, value) in [
            ("task.assignment", "group"),
            ("task.coordination.group.id", "my-flow"),
            ("task.coordination.topic", "my-flow-coordination"),
            ("task.coordination.partitions", "32"),
        ] {
            let (r, msg) = set(&conf, key, value);
            assert_eq!(r, mm_result::Ok, "{key}={value}: {msg}");
        }
        let (r, msg) = set(&conf, "task.assignment", "dynamic");
        assert_eq!(r, mm_result::InvalidConfig);
        assert!(
            msg.starts_with("task.assignment: must be `static` or `group`"),
            "{msg}"
        );
        let (r, msg) = set(&conf, "task.coordination.partitions", "0");
        assert_eq!(r, mm_result::InvalidConfig);
        assert!(msg.starts_with("task.coordination.partitions:"), "{msg}");
        assert_eq!(get(&conf, "task.assignment").as_deref(), Some("group"));
    }
}

/// Load cost per key (`cargo test --lib load_cost -- --ignored --nocapture`): debug build,
/// 2 shared cores: 10 ms per key before `check_setting` skipped keys that cannot fail alone
/// (2,000 keys took 20 s), 15–25 µs per key after (250,000 keys in 4–6 s, 1 s of it parsing).
#[cfg(test)]
mod load_cost {
    use super::*;
    use std::ffi::CString;

    #[test]
    #[ignore = "measurement"]
    fn measure_load_properties() {
        for n in [2_000usize, 250_000] {
            let mut text = String::from("source.cluster.alias=A\n");
            for i in 0..n {
                text.push_str(&format!("consumer.x{i}=v{i}\n"));
            }
            let text = CString::new(text).unwrap();
            let t = std::time::Instant::now();
            let pairs = mm2_checkpoint::parse_properties(text.to_str().unwrap())
                .unwrap()
                .len();
            eprintln!("parse alone: {pairs} pairs in {:?}", t.elapsed());
            let mut conf = std::ptr::null_mut();
            // SAFETY: a local out-pointer.
            assert_eq!(unsafe { mm_conf_new(&mut conf) }, mm_result::Ok);
            let t = std::time::Instant::now();
            // SAFETY: live conf, C string.
            let r = unsafe { mm_conf_load_properties(conf, text.as_ptr()) };
            let took = t.elapsed();
            assert_eq!(r, mm_result::Ok);
            eprintln!("{n} keys: {took:?} ({:?} per key)", took / n as u32);
            // SAFETY: live conf.
            unsafe { mm_conf_destroy(conf) };
            if took > std::time::Duration::from_secs(5) {
                break;
            }
        }
    }

    /// `cargo test --lib --all-features measure_huge_unknown_key -- --ignored --nocapture`:
    /// a 1 MB unknown key through `mm_conf_load_properties` and the parse `mm_task_new` does.
    #[test]
    #[ignore = "measurement"]
    fn measure_huge_unknown_key() {
        let text = format!(
            "source.cluster.alias=A\nsource.cluster.bootstrap.servers=a:1\ntarget.cluster.bootstrap.servers=b:1\n{}=1\n",
            "x".repeat(1 << 20)
        );
        let text = CString::new(text).unwrap();
        let mut conf = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(unsafe { mm_conf_new(&mut conf) }, mm_result::Ok);
        let t = std::time::Instant::now();
        // SAFETY: live conf, C string.
        assert_eq!(
            unsafe { mm_conf_load_properties(conf, text.as_ptr()) },
            mm_result::Ok
        );
        // SAFETY: live conf.
        let (_, warnings) = unsafe { &*conf }.parse().unwrap();
        eprintln!(
            "1 MB unknown key: {:?} ({} warning)",
            t.elapsed(),
            warnings.len()
        );
        // SAFETY: live conf.
        unsafe { mm_conf_destroy(conf) };
    }
}
