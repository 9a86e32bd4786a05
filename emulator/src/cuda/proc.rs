//! `cuGetProcAddress_v2`, through which CUDA 12 runtimes resolve most entry
//! points (cuda.md §1.2): every function of the emulator's table, by its
//! base name.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::cuda::*;

use super::call::run;
use crate::ffi::{CStrIn, Out};

/// `CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)`:
/// symbol or pfn NULL, or flags other than 0, 1 (legacy stream) or 2
/// (per-thread stream) → 1; a base name the table holds → its entry point
/// (the `_v2` semantics whatever `cudaVersion`), status 0; any other →
/// `*pfn` NULL, status 1, 500. `symbolStatus` may be NULL. Needs no cuInit.
pub extern "C" fn cuGetProcAddress(
    symbol: CStrIn<'_>,
    pfn: Out<'_, *mut c_void>,
    _cudaVersion: i32,
    flags: u64,
    symbolStatus: Out<'_, i32>,
) -> CUresult {
    run("cuGetProcAddress", || {
        crate::dialect::answer_proc_query(
            symbol,
            pfn,
            symbolStatus,
            flags <= 2,
            "symbol or pfn is NULL, or flags is not 0, 1 or 2",
            |asked| Ok(asked),
            super::entry_point,
            CuResult::NOT_FOUND,
        )
    })
}
