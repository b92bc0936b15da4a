//! Everything that crosses a foreign boundary, and the only place with `unsafe`:
//! - the C ABI (`include/mm2_checkpoint.h`, generated from these modules by cbindgen):
//!   [`conf`], [`task`], [`flows`], [`stats`], [`batch`], [`diagnostics`], [`log`], `embedded` (the
//!   test-only mock clusters, with the `embedded` feature only), [`remote_cluster_utils`],
//!   [`failback`] and [`offset_sync_writer`], all running inside the one [`boundary`] that checks pointers, catches panics and maps errors;
//!
//! The exported functions are `unsafe extern "C"`: their safety contract is the C one written in
//! each function's documentation (a pointer is NULL or valid as described). NULL is always
//! checked; validity of a non-NULL pointer cannot be, as in any C library. (`unsafe` is allowed
//! for this crate only.)
//!
//! A crate of its own (`mm2-checkpoint-ffi`) above the Rust API crate `mm2-checkpoint`, which
//! it reaches through that crate's public API only (plus the two hooks of its `ffi_support`).
//! The crate `mm2-checkpoint-capi` (folder capi) links it into libmm2_checkpoint.so/.a.

#![deny(missing_docs)]

#[deny(unsafe_op_in_unsafe_fn)]
pub mod batch;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod boundary;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod conf;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod diagnostics;
#[cfg(feature = "embedded")]
#[deny(unsafe_op_in_unsafe_fn)]
pub mod embedded;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod failback;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod flows;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod log;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod offset_sync_writer;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod remote_cluster_utils;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod stats;
#[deny(unsafe_op_in_unsafe_fn)]
pub mod task;

// The list row structs (`mm_*_row`) hold text pointers beside 64-bit numbers and are copied as
// plain bytes (`boundary::Growable`): only sound without padding, i.e. with 64-bit pointers.
#[cfg(not(target_pointer_width = "64"))]
compile_error!("the C ABI's row structs assume 64-bit pointers");
