//! `hipGetProcAddress` (6.1+; `docs/api/hip.tsv` files it under Memory
//! Management): every function of the emulator's HIP table, by name, as
//! clr's hipamd/src/hip_device.cpp:748-786 resolves them from its own library.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, run};
use crate::ffi::{CStrIn, Out};

/// `hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags, hipDriverProcAddressQueryResult *symbolStatus)`:
/// symbol NULL or empty, or pfn NULL → 1 (clr builds a `std::string` from
/// the symbol first, which a NULL crashes; the emulator answers 1);
/// `hipGetDeviceProperties` asked for with a version ≥ 600 is
/// `hipGetDevicePropertiesR0600`; a name the table holds → its entry point,
/// status 0; any other → `*pfn` NULL, status 1, and 1. `flags` is ignored,
/// as clr ignores it; `symbolStatus` may be NULL.
pub extern "C" fn hipGetProcAddress(
    symbol: CStrIn<'_>,
    pfn: Out<'_, *mut c_void>,
    hipVersion: i32,
    _flags: u64,
    symbolStatus: Out<'_, i32>,
) -> hipError_t {
    run("hipGetProcAddress", || {
        let not_found = HipError::INVALID_VALUE;
        let why = "symbol or pfn is NULL";
        crate::dialect::answer_proc_query(symbol, pfn, symbolStatus, true, why, |asked| {
            if asked.is_empty() {
                return Err(Fail::plain(HipError::INVALID_VALUE, "symbol is empty".into()));
            }
            let r0600 = asked == b"hipGetDeviceProperties" && hipVersion >= 600;
            Ok(if r0600 { b"hipGetDevicePropertiesR0600" } else { asked })
        }, super::entry_point, not_found)
    })
}
