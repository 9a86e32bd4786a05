//! Virtual memory management: granularity, physical memory, reservations,
//! maps and access rights (acl.md §4.2–§4.6).

use std::ffi::c_void;
use std::ptr::{self, NonNull};

use vmmkit_sys::acl::{
    AclApi, aclrtDrvMemHandle, aclrtMemAccessDesc, aclrtMemGranularityOptions, aclrtMemLocation, aclrtPhysicalMemProp,
};

use super::check;
use crate::error::Error;
use crate::result::out;

/// `aclrtMemGetAllocationGranularity(prop, option, &granularity)` (ACL-GRAN-*).
pub fn mem_get_allocation_granularity(
    api: &AclApi,
    prop: &aclrtPhysicalMemProp,
    option: aclrtMemGranularityOptions,
) -> Result<usize, Error> {
    // The C signature takes a non-const pointer; the library only reads it.
    let mut p = *prop;
    out(0, |g| {
        // SAFETY: `p` is a property record and `g` a writable size_t, both live for the call.
        check(api, "aclrtMemGetAllocationGranularity", unsafe {
            (api.aclrtMemGetAllocationGranularity)(&mut p, option, g)
        })
    })
}

/// `aclrtMallocPhysical(&handle, size, prop, flags)` (ACL-MP-*): a new
/// handle with one reference, to be given back with [`free_physical`].
pub fn malloc_physical(
    api: &AclApi,
    size: usize,
    prop: &aclrtPhysicalMemProp,
    flags: u64,
) -> Result<aclrtDrvMemHandle, Error> {
    out(ptr::null_mut(), |h| {
        // SAFETY: `h` is a writable handle slot, `prop` a live property record.
        check(api, "aclrtMallocPhysical", unsafe { (api.aclrtMallocPhysical)(h, size, prop, flags) })
    })
}

/// `aclrtFreePhysical(handle)` (ACL-FP-*): drops one reference.
///
/// # Safety
/// `handle` must hold a reference of this process (from [`malloc_physical`],
/// an import or a retain) not yet given back: a real driver dereferences it.
pub unsafe fn free_physical(api: &AclApi, handle: aclrtDrvMemHandle) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtFreePhysical", unsafe { (api.aclrtFreePhysical)(handle) })
}

/// `aclrtReserveMemAddress(&virPtr, size, alignment, expectPtr, flags)`
/// (ACL-RSV-*): a range of device addresses with no backing.
///
/// `expect` (C `expectPtr`, `None` for NULL) is a wish, not a place to
/// write: the library refuses a range that is taken ([ACL-RSV-006](vmmkit_sys::acl::rules::RSV_006)).
pub fn reserve_mem_address(
    api: &AclApi,
    size: usize,
    alignment: usize,
    expect: Option<NonNull<c_void>>,
    flags: u64,
) -> Result<*mut c_void, Error> {
    let mut va = ptr::null_mut();
    let expect = expect.map_or(ptr::null_mut(), NonNull::as_ptr);
    // SAFETY: `va` is a writable pointer slot; `expect` is only compared and
    // reserved by the library, never written through.
    let rc = unsafe { (api.aclrtReserveMemAddress)(&mut va, size, alignment, expect, flags) };
    check(api, "aclrtReserveMemAddress", rc)?;
    Ok(va)
}

/// `aclrtReleaseMemAddress(virPtr)` (ACL-REL-*).
///
/// # Safety
/// `va` must be the start of a reservation of this process that nothing
/// else will use afterwards.
pub unsafe fn release_mem_address(api: &AclApi, va: *mut c_void) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtReleaseMemAddress", unsafe { (api.aclrtReleaseMemAddress)(va) })
}

/// `aclrtMapMem(virPtr, size, offset, handle, flags)` (ACL-MAP-*).
///
/// # Safety
/// `handle` must hold a reference of this process (see [`free_physical`]).
pub unsafe fn map_mem(
    api: &AclApi,
    va: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtMapMem", unsafe { (api.aclrtMapMem)(va, size, offset, handle, flags) })
}

/// `aclrtUnmapMem(virPtr)` (ACL-UNMAP-*).
///
/// # Safety
/// `va` must be the start of a mapping of this process that nothing will
/// read or write afterwards.
pub unsafe fn unmap_mem(api: &AclApi, va: *mut c_void) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtUnmapMem", unsafe { (api.aclrtUnmapMem)(va) })
}

/// `aclrtMemSetAccess(virPtr, size, desc, count)` ([ACL-ACC-001](vmmkit_sys::acl::rules::ACC_001) … 008).
///
/// # Safety
/// `va..va+size` must be mapped by this process.
pub unsafe fn mem_set_access(
    api: &AclApi,
    va: *mut c_void,
    size: usize,
    desc: &[aclrtMemAccessDesc],
) -> Result<(), Error> {
    // The C signature takes a non-const pointer; the library only reads it.
    let mut d = desc.to_vec();
    let p = if d.is_empty() { ptr::null_mut() } else { d.as_mut_ptr() };
    // SAFETY: `p` points to `d.len()` descriptors (or is NULL for none); the
    // range is the caller's contract.
    check(api, "aclrtMemSetAccess", unsafe { (api.aclrtMemSetAccess)(va, size, p, d.len()) })
}

/// `aclrtMemGetAccess(virPtr, &location, &flag)` ([ACL-ACC-009](vmmkit_sys::acl::rules::ACC_009), 010): the
/// access flags `location` has on the mapping at `va`.
///
/// # Safety
/// `va` must lie in a mapping of this process.
pub unsafe fn mem_get_access(api: &AclApi, va: *mut c_void, location: aclrtMemLocation) -> Result<u64, Error> {
    let mut loc = location;
    // SAFETY: both pointers are to locals; the address is the caller's contract.
    out(0, |flag| check(api, "aclrtMemGetAccess", unsafe { (api.aclrtMemGetAccess)(va, &mut loc, flag) }))
}

/// `aclrtMemRetainAllocationHandle(virPtr, &handle)` ([ACL-RET-001](vmmkit_sys::acl::rules::RET_001)): the
/// handle mapped at `va`, with one more reference.
///
/// # Safety
/// `va` must lie in a mapping of this process.
pub unsafe fn mem_retain_allocation_handle(api: &AclApi, va: *mut c_void) -> Result<aclrtDrvMemHandle, Error> {
    out(ptr::null_mut(), |h| {
        // SAFETY: `h` is a writable handle slot; the address is the caller's contract.
        check(api, "aclrtMemRetainAllocationHandle", unsafe { (api.aclrtMemRetainAllocationHandle)(va, h) })
    })
}

/// `aclrtMemGetAllocationPropertiesFromHandle(handle, &prop)`.
///
/// # Safety
/// `handle` must hold a reference of this process (see [`free_physical`]).
pub unsafe fn mem_get_allocation_properties_from_handle(
    api: &AclApi,
    handle: aclrtDrvMemHandle,
) -> Result<aclrtPhysicalMemProp, Error> {
    out(aclrtPhysicalMemProp::default(), |p| {
        // SAFETY: `p` is a writable property record; the handle is the caller's contract.
        check(api, "aclrtMemGetAllocationPropertiesFromHandle", unsafe {
            (api.aclrtMemGetAllocationPropertiesFromHandle)(handle, p)
        })
    })
}
