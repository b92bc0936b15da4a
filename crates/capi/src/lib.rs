//! The C library of mm2-checkpoint, `libmm2_checkpoint.so` and `libmm2_checkpoint.a`: the
//! exported functions are those of the crate `mm2-checkpoint-ffi` (include/mm2_checkpoint.h),
//! which a cdylib and a staticlib export from the crates they link. This crate adds the SONAME
//! (build.rs) and nothing else.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// The C ABI, linked in: its `#[no_mangle]` functions are the library's exports.
pub use mm2_checkpoint_ffi;
