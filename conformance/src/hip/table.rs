//! `Hip`: the calls of a [`HipApi`] table, one method per C function under
//! its C name, each returning what the function returns.
//!
//! This is the only module of the suite's HIP side that calls through the
//! table. The methods take raw pointers because the suite passes NULL,
//! garbage and foreign addresses on purpose: the rules say how the library
//! must reject them. Callers pass NULL, an address or handle the library
//! handed out (never dereferenced by host code), a value that is not one
//! (which the rules say is looked up, not dereferenced), or a pointer to a
//! live local of the C type. The methods are `pub(crate)` for that reason:
//! the contract is the suite's, not a general one.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};

use vmmkit_sys::hip::*;

/// A HIP table, with a method per entry point.
#[derive(Debug, Clone, Copy)]
pub struct Hip {
    api: HipApi,
}

/// Defines the methods from the function list: required functions return
/// their C result; optional ones `None` when the table lacks them.
macro_rules! methods {
    (
        required { $( $(#[$rm:meta])* $r:ident : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        // The vendor's signatures decide the arity (`__hipRegisterFunction` has 10,
        // hipMemcpy2DAsync 8).
        #[allow(dead_code, clippy::too_many_arguments)]
        impl Hip {
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

vmmkit_sys::hip_functions!(methods {});

impl Hip {
    /// Wraps a table.
    pub fn new(api: HipApi) -> Self {
        Self { api }
    }

    /// Optional symbols the table lacks.
    pub fn missing_optional(&self) -> Vec<&'static str> {
        self.api.missing_optional()
    }

    /// Closes an fd that `hipMemExportToShareableHandle` gave the caller,
    /// who owns it (HIP-VMM-025). Negative values are ignored.
    pub fn close_exported_fd(fd: i32) {
        drop(Self::own_exported_fd(fd));
    }

    /// Takes ownership of an fd that `hipMemExportToShareableHandle` gave
    /// the caller (HIP-VMM-025); `None` for a negative value.
    pub fn own_exported_fd(fd: i32) -> Option<std::os::fd::OwnedFd> {
        use std::os::fd::{FromRawFd, OwnedFd};
        // SAFETY: the export made this descriptor for the caller, who owns
        // it from here; nothing else in the suite holds it, and the OwnedFd
        // closes it once.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// `hipGetErrorName(code)` as text.
    pub fn error_name(&self, code: HipError) -> String {
        text(self.hipGetErrorName(code.0))
    }

    /// `hipGetErrorString(code)` as text.
    pub fn error_string(&self, code: HipError) -> String {
        text(self.hipGetErrorString(code.0))
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "(NULL)".into();
    }
    // SAFETY: the HIP name and string functions return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
