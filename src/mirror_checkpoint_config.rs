//! TODO: being written (see the module list in lib.rs).
