//! The C API's configuration calls, from Rust tests: what a C caller sees for a properties
//! text (its description, or `mm_last_error` after the call that refused it).

use std::ffi::{c_char, c_int, CStr, CString};

// Links the C ABI crate into the test so that its exported symbols resolve.
use mm2_checkpoint_ffi as _;

/// An opaque `mm_conf_t` / `mm_task_t`.
#[repr(C)]
struct Opaque {
    _private: [u8; 0],
}

extern "C" {
    fn mm_conf_new(conf_out: *mut *mut Opaque) -> c_int;
    fn mm_conf_load_properties(conf: *mut Opaque, properties: *const c_char) -> c_int;
    fn mm_conf_describe(conf: *const Opaque, dest: *mut c_char, dest_size: *mut usize) -> c_int;
    fn mm_conf_destroy(conf: *mut Opaque);
    fn mm_task_new(conf: *mut Opaque, task_out: *mut *mut Opaque) -> c_int;
    fn mm_task_destroy(task: *mut Opaque);
    fn mm_last_error(dest: *mut c_char, dest_size: usize) -> usize;
}

/// `mm_last_error` of this thread.
pub fn last_error() -> String {
    let mut buf = vec![0 as c_char; 8192];
    // SAFETY: buf holds its length.
    unsafe { mm_last_error(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: NUL-terminated by mm_last_error.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// An `mm_conf_t` loaded from a properties text; destroyed on drop unless a task took it.
pub struct CConf(*mut Opaque);

impl CConf {
    /// `mm_conf_new` + `mm_conf_load_properties`; `Err` is `mm_last_error` after the refusal.
    pub fn load(text: &str) -> Result<CConf, String> {
        let text = CString::new(text).expect("no NUL in a text C can carry");
        let mut conf = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(unsafe { mm_conf_new(&mut conf) }, 0);
        let conf = CConf(conf);
        // SAFETY: a live conf and a C string.
        if unsafe { mm_conf_load_properties(conf.0, text.as_ptr()) } != 0 {
            return Err(last_error());
        }
        Ok(conf)
    }

    /// `mm_conf_describe` (size query, then the text), or `mm_last_error` after a refusal.
    pub fn describe(&self) -> Result<String, String> {
        let mut size = 0usize;
        // SAFETY: a size query with a NULL dest.
        if unsafe { mm_conf_describe(self.0, std::ptr::null_mut(), &mut size) } != 0 {
            return Err(last_error());
        }
        let mut buf = vec![0 as c_char; size];
        // SAFETY: buf holds size bytes.
        let r = unsafe { mm_conf_describe(self.0, buf.as_mut_ptr(), &mut size) };
        assert_eq!(r, 0, "{}", last_error());
        // SAFETY: NUL-terminated by mm_conf_describe.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// `mm_task_new`, then `mm_task_destroy` of the task it made; `Err` is `mm_last_error`
    /// after a refusal (the conf is then still ours, and dropped).
    pub fn new_task(self) -> Result<(), String> {
        let mut task = std::ptr::null_mut();
        // SAFETY: a live conf and a local out-pointer.
        if unsafe { mm_task_new(self.0, &mut task) } != 0 {
            return Err(last_error());
        }
        // The task owns the conf now.
        std::mem::forget(self);
        // SAFETY: made above.
        unsafe { mm_task_destroy(task) };
        Ok(())
    }
}

impl Drop for CConf {
    fn drop(&mut self) {
        // SAFETY: made by load, not taken by a task.
        unsafe { mm_conf_destroy(self.0) };
    }
}
