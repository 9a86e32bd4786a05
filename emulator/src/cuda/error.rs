//! The names and descriptions of codes ([CUDA-GEN-003](vmmkit_sys::cuda::rules::GEN_003)).
#![allow(non_snake_case)]

use std::ffi::{CString, c_char};
use std::sync::OnceLock;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, ensure, run};
use crate::ffi::Out;

/// Every named code with its name and description, as C strings that live for the process.
fn table() -> &'static [(u32, CString, CString)] {
    // A cache, not state: cuGetErrorName/cuGetErrorString hand out pointers
    // that C callers keep, so the strings live for the process.
    static TABLE: OnceLock<Vec<(u32, CString, CString)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        CuResult::ALL
            .iter()
            .map(|c| {
                let name = CString::new(c.name().unwrap_or_default()).unwrap_or_default();
                let desc = CString::new(c.description().unwrap_or_default()).unwrap_or_default();
                (c.0, name, desc)
            })
            .collect()
    })
}

/// Writes the string of `error` (its name with `name`, else its
/// description) at `pStr`. [CUDA-GEN-003](vmmkit_sys::cuda::rules::GEN_003): an unknown code → 1 with `*pStr`
/// set to NULL. Needs no cuInit.
fn describe(error: CUresult, pStr: Out<'_, *const c_char>, name: bool) -> Result<(), Fail> {
    if pStr.is_null() {
        return Err(Fail::plain(CuResult::INVALID_VALUE, "pStr is NULL".into()));
    }
    let hit = table().iter().find(|e| e.0 == error);
    let s = hit.map_or(std::ptr::null(), |e| if name { e.1.as_ptr() } else { e.2.as_ptr() });
    pStr.write(s)?;
    ensure!(hit.is_some(), rules::GEN_003, "{error} is not a CUresult this driver knows");
    Ok(())
}

/// `CUresult cuGetErrorName(CUresult error, const char **pStr)`: the
/// enumerator's name (`CUDA_ERROR_INVALID_VALUE`).
pub extern "C" fn cuGetErrorName(error: CUresult, pStr: Out<'_, *const c_char>) -> CUresult {
    run("cuGetErrorName", || describe(error, pStr, true))
}

/// `CUresult cuGetErrorString(CUresult error, const char **pStr)`: a short
/// description (vmmkit's wording; cuda.md does not give the driver's).
pub extern "C" fn cuGetErrorString(error: CUresult, pStr: Out<'_, *const c_char>) -> CUresult {
    run("cuGetErrorString", || describe(error, pStr, false))
}
