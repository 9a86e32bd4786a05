//! The last error and the names and descriptions of codes (hip.md §2.1).
#![allow(non_snake_case)]

use std::ffi::{CString, c_char};
use std::sync::OnceLock;

use vmmkit_sys::hip::*;

use super::call::last_error;
use crate::ffi::Out;

/// `hipError_t hipGetLastError(void)`: the thread's last error, reset to 0.
/// Profile 6.x: the last *returned* code, success included (hip.md §2.1).
pub extern "C" fn hipGetLastError() -> hipError_t {
    last_error(true)
}

/// `hipError_t hipPeekAtLastError(void)`: the same value, not reset.
pub extern "C" fn hipPeekAtLastError() -> hipError_t {
    last_error(false)
}

/// `hipError_t hipExtGetLastError(void)` (`@hip_6.0`): like hipGetLastError.
pub extern "C" fn hipExtGetLastError() -> hipError_t {
    last_error(true)
}

/// Every named code with its name and (5.3+) description, as C strings that live for the process.
fn table() -> &'static [(i32, CString, CString)] {
    // A cache, not state: hipGetErrorName/hipGetErrorString hand out
    // pointers that C callers keep, so the strings live for the process.
    static TABLE: OnceLock<Vec<(i32, CString, CString)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        HipError::ALL
            .iter()
            .map(|c| {
                let name = CString::new(c.name().unwrap_or("hipErrorUnknown")).unwrap_or_default();
                let desc = CString::new(c.description().unwrap_or("unknown error")).unwrap_or_default();
                (c.0, name, desc)
            })
            .collect()
    })
}

/// `const char *hipGetErrorName(hipError_t)`: the enumerator's name;
/// unknown → "hipErrorUnknown". Leaves the last error alone.
pub extern "C" fn hipGetErrorName(hipError: hipError_t) -> *const c_char {
    table().iter().find(|e| e.0 == hipError).map_or(c"hipErrorUnknown".as_ptr(), |e| e.1.as_ptr())
}

/// `const char *hipGetErrorString(hipError_t)`: the ≥5.3 lowercase
/// description; unknown → "unknown error". Leaves the last error alone.
pub extern "C" fn hipGetErrorString(hipError: hipError_t) -> *const c_char {
    table().iter().find(|e| e.0 == hipError).map_or(c"unknown error".as_ptr(), |e| e.2.as_ptr())
}

/// hipDrvGetErrorName / String (clr hip_error.cpp): NULL → 1; writes the
/// text; a code that is not a `hipError_t` → 1 (with the "unknown" text
/// written). Like clr, they leave the last error alone.
fn drv_text(code: hipError_t, out: Out<'_, *const c_char>, text: *const c_char) -> hipError_t {
    if !out.write_if_given(text) {
        return HipError::INVALID_VALUE.0;
    }
    let known = code == HipError::UNKNOWN.0 || table().iter().any(|e| e.0 == code);
    if known { HipError::SUCCESS.0 } else { HipError::INVALID_VALUE.0 }
}

/// `hipError_t hipDrvGetErrorName(hipError_t hipError, const char **errorString)` (`@hip_5.3`).
pub extern "C" fn hipDrvGetErrorName(hipError: hipError_t, errorString: Out<'_, *const c_char>) -> hipError_t {
    drv_text(hipError, errorString, hipGetErrorName(hipError))
}

/// `hipError_t hipDrvGetErrorString(hipError_t hipError, const char **errorString)` (`@hip_5.3`).
pub extern "C" fn hipDrvGetErrorString(hipError: hipError_t, errorString: Out<'_, *const c_char>) -> hipError_t {
    drv_text(hipError, errorString, hipGetErrorString(hipError))
}
