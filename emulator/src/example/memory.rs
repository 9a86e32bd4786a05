//! `exMemAlloc` and `exMemFree` (feature `example-vendor`): plain device
#![allow(non_snake_case)]
//! memory of the core on device 0, as CUDA's `cuMemAlloc` makes it.

use std::ffi::c_void;

use vmmkit_sys::example::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use crate::core::{DEVICE_WINDOW, ExtentKind, new_generation};
use crate::ffi::Out;
use crate::registry::Place;

/// `props[0]` of exMemAlloc memory. `props` are `[kind, granule, size, generation]`.
const KIND: u64 = u64::from_le_bytes(*b"exMemAlc");

/// `exResult exMemAlloc(void **ptr, size_t size)`: EX-MEM-002 (NULL `ptr`)
/// first, then EX-MEM-001 (`size` a non-zero multiple of 2 MiB); too big → 4.
pub extern "C" fn exMemAlloc(ptr: Out<'_, *mut c_void>, size: usize) -> exResult {
    run("exMemAlloc", || {
        let e = emu()?;
        ensure!(!ptr.is_null(), rules::MEM_002, "ptr is NULL");
        ensure!(
            size != 0 && size % EX_MEM_GRANULE == 0,
            rules::MEM_001,
            "size {size:#x} is not a non-zero multiple of {EX_MEM_GRANULE:#x}"
        );
        let granule = EX_MEM_GRANULE as u64;
        let props = [KIND, granule, size as u64, new_generation()];
        let va = e
            .alloc_plain(Place::Device(0), size as u64, granule, props, &DEVICE_WINDOW)
            .map_err(|e| Fail::core(Op::Alloc, e))?;
        ptr.write(va as *mut c_void)?;
        Ok(())
    })
}

/// `exResult exMemFree(void *ptr)`: `ptr` must be what exMemAlloc returned
/// and not freed yet (EX-MEM-003).
pub extern "C" fn exMemFree(ptr: *mut c_void) -> exResult {
    run("exMemFree", || {
        let e = emu()?;
        let p = ptr as usize;
        let ours = e.extent(p).is_some_and(|x| matches!(x.kind, ExtentKind::Plain(_)) && x.base == p && x.props[0] == KIND);
        ensure!(ours, rules::MEM_003, "{p:#x} is not a pointer exMemAlloc returned");
        e.free_plain(p).map_err(|e| Fail::core(Op::Free, e))
    })
}
