//! `Cuda`: the calls of a [`CudaApi`] table, one method per C function under
//! its table name (`cuMemAlloc` for the symbol `cuMemAlloc_v2`; see
//! [`crate::calls`]), and the few helpers that do more than pass a call
//! through.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};
use std::os::fd::{FromRawFd, OwnedFd};

use vmmkit_sys::cuda::*;

vmmkit_sys::cuda_functions!(crate::calls::calls {
    /// A CUDA table, with a method per entry point.
    Cuda(CudaApi);
});
crate::calls::returns_as_is!(Cuda);

impl Cuda {
    /// Takes ownership of an fd that `cuMemExportToShareableHandle` gave the
    /// caller ([CUDA-VMM-016](vmmkit_sys::cuda::rules::VMM_016)); `None` for a negative value.
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
