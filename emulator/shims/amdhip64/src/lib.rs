//! Drop-in `libamdhip64.so`: the HIP C ABI of reference hip.md §2, backed by
//! the vmmkit emulator (profile 6.x).
//!
//! Every function of [`vmmkit_sys::hip_functions!`] (required and optional)
//! is exported under its C name with its C signature, and forwards once into
//! the emulator's HIP dialect through its instrumentation layer
//! (`vmmkit_emulator::hip::entry`), which owns every check, its order and
//! its code. No rule lives here. The only addition is the FFI backstop of
//! STYLE.md §8: each body runs in `catch_unwind`, and a panic there becomes
//! 999 `hipErrorUnknown` (or a fixed message for the functions that return
//! a string) instead of unwinding into C.
//!
//! The library also exports `const char *vmmkit_shim_info(void)`, the marker
//! by which `vmmkit-sys`'s loader recognises (and, in its default search,
//! skips) vmmkit's own drop-in libraries. All of it is
//! [`vmmkit_emulator::export_shim!`], shared with `libascendcl.so`.
//!
//! This crate is a cdylib: the plain `cargo build` leaves
//! `target/<profile>/libamdhip64.so` with soname `libamdhip64.so.6` and the
//! vendor's ELF symbol versions (`libamdhip64.map`: `hip_4.2` … `hip_6.3`,
//! each function in the node of the real library), plus the link
//! `libamdhip64.so.6`. `build.rs` says how, and why rustc alone cannot
//! (hip.md §1.3).

vmmkit_emulator::export_shim! {
    functions: vmmkit_sys::hip_functions,
    types: vmmkit_sys::hip,
    dialect: vmmkit_emulator::hip::entry,
    vendor: "HIP",
    table: "HipApi",
    panic_code: HipError::UNKNOWN.0,
    panic_message: c"vmmkit libamdhip64: internal error in the emulator (a panic); please report it",
    info: "vmmkit emulator libamdhip64, HIP 6.x profile",
}
