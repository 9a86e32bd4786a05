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
//! skips) vmmkit's own drop-in libraries.
//!
//! This crate is a staticlib. `link.sh` beside this crate's `Cargo.toml`
//! links it into `libamdhip64.so` with soname `libamdhip64.so.6` and the
//! vendor's ELF symbol versions (`libamdhip64.map`: `hip_4.2` … `hip_6.3`,
//! each function in the node of the real library), which a cdylib cannot
//! carry (hip.md §1.3); `build.sh` does both steps for a release build and
//! leaves `target/release/libamdhip64.so` and `libamdhip64.so.6`.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use vmmkit_sys::hip::*;

/// The dialect's entry points under their C names, through the emulator's
/// instrumentation layer, so fault injection (`VMMKIT_FAULTS`), logs
/// (`VMMKIT_LOG`) and the leak report work through this library too.
mod dialect {
    pub use vmmkit_emulator::hip::entry::*;
}

/// What an exported function returns when the call panicked.
trait OnPanic {
    fn on_panic() -> Self;
}

impl OnPanic for hipError_t {
    fn on_panic() -> Self {
        HipError::UNKNOWN.0
    }
}

impl OnPanic for *const c_char {
    fn on_panic() -> Self {
        c"vmmkit libamdhip64: internal error in the emulator (a panic); please report it".as_ptr()
    }
}

/// Runs one forwarded call; a panic becomes the vendor's unknown error.
///
/// This is the backstop STYLE.md §8 asks of every shim body. The dialect's
/// entry points catch their own panics (`hip::call::run`, which also sets the
/// thread's message and last error); being `extern "C"` themselves, a panic
/// escaping one would abort at its own boundary before reaching this frame,
/// so the guard covers the shim's frame and keeps the export sound should
/// the dialect's entry points ever become plain Rust functions.
fn guard<R: OnPanic>(call: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| R::on_panic())
}

/// Emits one `#[no_mangle]` export per function of the list, each a single
/// forward into the dialect's function of the same name.
macro_rules! export_all {
    (
        required { $( $(#[$rm:meta])* $r:ident : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        $(
            #[doc = concat!("`", stringify!($r), "`, forwarded to the emulator's HIP dialect.")]
            ///
            /// # Safety
            /// The C contract of the HIP function of the same name.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $r($($ra: $rt),*) -> $rr {
                // SAFETY: same C signature; the caller's contract is passed on unchanged.
                guard(|| unsafe { dialect::$r($($ra),*) })
            }
        )*
        $(
            #[doc = concat!("`", stringify!($o), "` (optional in `HipApi`), forwarded to the emulator's HIP dialect.")]
            ///
            /// # Safety
            /// The C contract of the HIP function of the same name.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $o($($oa: $ot),*) -> $or {
                // SAFETY: same C signature; the caller's contract is passed on unchanged.
                guard(|| unsafe { dialect::$o($($oa),*) })
            }
        )*
    };
}

vmmkit_sys::hip_functions!(export_all {});

/// `const char *vmmkit_shim_info(void)`: marks this library as vmmkit's own
/// drop-in (`vmmkit_sys::loader::SHIM_MARKER`) and says what it is.
#[unsafe(no_mangle)]
pub extern "C" fn vmmkit_shim_info() -> *const c_char {
    const INFO: &std::ffi::CStr = {
        let s =
            concat!("vmmkit emulator libamdhip64, HIP 6.x profile (vmmkit-emulator ", env!("CARGO_PKG_VERSION"), ")\0");
        match std::ffi::CStr::from_bytes_with_nul(s.as_bytes()) {
            Ok(c) => c,
            Err(_) => panic!("the info string has one NUL, at its end"),
        }
    };
    INFO.as_ptr()
}

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
