//! `Cuda`: the calls of a [`CudaApi`] table, one method per C function under
//! its table name (`cuMemAlloc` for the symbol `cuMemAlloc_v2`), each
//! returning what the function returns.
//!
//! This is the only module of the suite's CUDA side that calls through the
//! table. The methods take raw pointers because the suite passes NULL and
//! foreign values on purpose: the rules say how the driver must reject
//! them. Callers pass NULL, an address, handle or context the driver handed
//! out (never dereferenced by host code), a value that is not one (which
//! the rules say is looked up, not dereferenced), or a pointer to a live
//! local of the C type. The methods are `pub(crate)` for that reason: the
//! contract is the suite's, not a general one.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};
use std::os::fd::{FromRawFd, OwnedFd};

use vmmkit_sys::cuda::*;

/// A CUDA table, with a method per entry point.
#[derive(Debug, Clone, Copy)]
pub struct Cuda {
    api: CudaApi,
}

/// Defines the methods from the function list: required functions return
/// their C result; optional ones `None` when the table lacks them.
macro_rules! methods {
    (
        required { $( $(#[$rm:meta])* $r:ident $(= $rs:literal)? : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident $(= $os:literal)? : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        #[allow(dead_code)]
        impl Cuda {
            $(
                #[doc = concat!("`", stringify!($r), "`.")]
                pub(crate) fn $r(&self, $($ra: $rt),*) -> $rr {
                    // SAFETY: the table holds the backend's implementation of
                    // this C function with this signature (loaded by vmmkit-sys
                    // or filled by the emulator); the arguments follow the
                    // module's contract.
                    unsafe { (self.api.$r)($($ra),*) }
                }
            )*
            $(
                #[doc = concat!("`", stringify!($o), "`, if the table has it.")]
                pub(crate) fn $o(&self, $($oa: $ot),*) -> Option<$or> {
                    // SAFETY: as for the required functions.
                    self.api.$o.map(|f| unsafe { f($($oa),*) })
                }
            )*
        }
    };
}

vmmkit_sys::cuda_functions!(methods {});

impl Cuda {
    /// Wraps a table.
    pub fn new(api: CudaApi) -> Self {
        Self { api }
    }

    /// Optional symbols the table lacks.
    pub fn missing_optional(&self) -> Vec<&'static str> {
        self.api.missing_optional()
    }

    /// Takes ownership of an fd that `cuMemExportToShareableHandle` gave the
    /// caller (CUDA-VMM-016); `None` for a negative value.
    pub fn own_exported_fd(fd: i32) -> Option<OwnedFd> {
        // SAFETY: the export made this descriptor for the caller, who owns it
        // from here on; nothing else in the suite holds it.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// `cuGetErrorName(code)`: the code it returns and the text, if any.
    pub fn error_name(&self, code: CUresult) -> (CuResult, Option<String>) {
        let mut p: *const c_char = std::ptr::null();
        let r = CuResult(self.cuGetErrorName(code, &mut p));
        (r, text(p))
    }

    /// `cuGetErrorString(code)`: the code it returns and the text, if any.
    pub fn error_string(&self, code: CUresult) -> (CuResult, Option<String>) {
        let mut p: *const c_char = std::ptr::null();
        let r = CuResult(self.cuGetErrorString(code, &mut p));
        (r, text(p))
    }
}

fn text(p: *const c_char) -> Option<String> {
    // SAFETY: the CUDA name and string functions return static NUL-terminated strings, or NULL.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
