//! HIP at cudarc's `result` level: one thin function per C call, returning
//! `Result<_, Error>`, named after the call (`hipMemMap` → [`mem_map`]),
//! taking the table first.
//!
//! As in [`crate::acl`], calls that take only values are safe, and calls
//! that take an allocation handle or a device address are `unsafe`: a real
//! driver dereferences them. The emulator validates both.
//!
//! HIP has no per-thread error message in its C API (`hipGetErrorString`
//! describes a code). When the table is the in-process emulator's, a failure
//! carries the rule the emulator names in its thread's message; over a
//! loaded library (a real one, or vmmkit's drop-in with its own copy of the
//! emulator) it carries the code alone.

mod driver;

use std::ffi::c_void;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::ptr;

pub use vmmkit_sys::hip::{HipApi, HipError};
use vmmkit_sys::hip::{
    hipError_t, hipIpcMemHandle_t, hipMemAccessDesc, hipMemAllocationGranularity_flags, hipMemAllocationHandleType,
    hipMemAllocationProp, hipMemGenericAllocationHandle_t, hipMemLocation, hipMemcpyKind,
};

use crate::error::Error;
use crate::result::{exported_fd, out};

/// Whether `api` is the in-process emulator's table (whose thread message names rules).
fn emulated(api: &HipApi) -> bool {
    api.hipInit as usize == vmmkit_emulator::hip::api().hipInit as usize
}

/// `Ok(())` for `hipSuccess`, else the error of `call` (with the emulator's rule, see the module docs).
pub(crate) fn check(api: &HipApi, call: &'static str, rc: hipError_t) -> Result<(), Error> {
    Error::check(call, HipError(rc), || emulated(api).then(vmmkit_emulator::core::thread::message))
}

/// `hipInit(flags)`.
pub fn init(api: &HipApi, flags: u32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "hipInit", unsafe { (api.hipInit)(flags) })
}

/// `hipGetDeviceCount(&count)`: fails with 100 (`hipErrorNoDevice`) when there is none.
pub fn get_device_count(api: &HipApi) -> Result<i32, Error> {
    // SAFETY: `n` is a writable int.
    out(0, |n| check(api, "hipGetDeviceCount", unsafe { (api.hipGetDeviceCount)(n) }))
}

/// `hipSetDevice(id)`: makes `id` the calling thread's device.
pub fn set_device(api: &HipApi, id: i32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "hipSetDevice", unsafe { (api.hipSetDevice)(id) })
}

/// `hipGetDevice(&id)`: the calling thread's device.
pub fn get_device(api: &HipApi) -> Result<i32, Error> {
    // SAFETY: `id` is a writable int.
    out(0, |id| check(api, "hipGetDevice", unsafe { (api.hipGetDevice)(id) }))
}

/// `hipMemGetAllocationGranularity(&g, prop, option)`.
pub fn mem_get_allocation_granularity(
    api: &HipApi,
    prop: &hipMemAllocationProp,
    option: hipMemAllocationGranularity_flags,
) -> Result<usize, Error> {
    out(0, |g| {
        // SAFETY: `g` is a writable size_t, `prop` a live property record.
        check(api, "hipMemGetAllocationGranularity", unsafe { (api.hipMemGetAllocationGranularity)(g, prop, option) })
    })
}

/// `hipMemCreate(&handle, size, prop, flags)`: a new allocation handle, given back with [`mem_release`].
pub fn mem_create(
    api: &HipApi,
    size: usize,
    prop: &hipMemAllocationProp,
    flags: u64,
) -> Result<hipMemGenericAllocationHandle_t, Error> {
    // SAFETY: `h` is a writable handle slot, `prop` a live property record.
    out(ptr::null_mut(), |h| check(api, "hipMemCreate", unsafe { (api.hipMemCreate)(h, size, prop, flags) }))
}

/// `hipMemRelease(handle)`.
///
/// # Safety
/// `handle` must be a live handle of this process not yet released.
pub unsafe fn mem_release(api: &HipApi, handle: hipMemGenericAllocationHandle_t) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipMemRelease", unsafe { (api.hipMemRelease)(handle) })
}

/// `hipMemAddressReserve(&ptr, size, alignment, addr, flags)`: device
/// addresses with no backing. `addr` is a wish (0: none), passed as an
/// integer since the library never writes through it.
pub fn mem_address_reserve(
    api: &HipApi,
    size: usize,
    alignment: usize,
    addr: usize,
    flags: u64,
) -> Result<*mut c_void, Error> {
    let mut p = ptr::null_mut();
    let hint = addr as *mut c_void;
    // SAFETY: `p` is a writable pointer slot; `hint` is a value, never written through.
    check(api, "hipMemAddressReserve", unsafe { (api.hipMemAddressReserve)(&mut p, size, alignment, hint, flags) })?;
    Ok(p)
}

/// `hipMemAddressFree(ptr, size)`.
///
/// # Safety
/// `ptr..ptr+size` must be a reservation of this process, with nothing using its mappings.
pub unsafe fn mem_address_free(api: &HipApi, ptr: *mut c_void, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipMemAddressFree", unsafe { (api.hipMemAddressFree)(ptr, size) })
}

/// `hipMemMap(ptr, size, offset, handle, flags)`.
///
/// # Safety
/// `handle` must be live; `ptr..ptr+size` must lie in a reservation of this process.
pub unsafe fn mem_map(
    api: &HipApi,
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: hipMemGenericAllocationHandle_t,
    flags: u64,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipMemMap", unsafe { (api.hipMemMap)(ptr, size, offset, handle, flags) })
}

/// `hipMemUnmap(ptr, size)`.
///
/// # Safety
/// Nothing may copy through the range during or after the call.
pub unsafe fn mem_unmap(api: &HipApi, ptr: *mut c_void, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipMemUnmap", unsafe { (api.hipMemUnmap)(ptr, size) })
}

/// `hipMemSetAccess(ptr, size, desc, count)`.
///
/// # Safety
/// `ptr..ptr+size` must be mapped by this process.
pub unsafe fn mem_set_access(
    api: &HipApi,
    ptr: *mut c_void,
    size: usize,
    desc: &[hipMemAccessDesc],
) -> Result<(), Error> {
    // SAFETY: `desc` is `desc.len()` records; the range is the caller's contract.
    check(api, "hipMemSetAccess", unsafe { (api.hipMemSetAccess)(ptr, size, desc.as_ptr(), desc.len()) })
}

/// `hipMemGetAccess(&flags, location, ptr)`.
///
/// # Safety
/// `ptr` must be a device address of this process.
pub unsafe fn mem_get_access(api: &HipApi, ptr: *mut c_void, location: &hipMemLocation) -> Result<u64, Error> {
    // SAFETY: `f` is writable, `location` live; `ptr` is the caller's contract.
    out(0, |f| check(api, "hipMemGetAccess", unsafe { (api.hipMemGetAccess)(f, location, ptr) }))
}

/// `hipMemcpy(dst, src, size, kind)`: a synchronous copy.
///
/// # Safety
/// Host parts must be valid for the reads and writes, device parts mapped, as for `memmove`.
pub unsafe fn memcpy(
    api: &HipApi,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipMemcpy", unsafe { (api.hipMemcpy)(dst, src, size, kind) })
}

/// `hipMemExportToShareableHandle(&fd, handle, handleType, flags)` for a
/// POSIX fd (the only type exportable on Linux): the caller owns the fd.
///
/// # Safety
/// `handle` must be live.
pub unsafe fn mem_export_to_fd(
    api: &HipApi,
    handle: hipMemGenericAllocationHandle_t,
    handle_type: hipMemAllocationHandleType,
    flags: u64,
) -> Result<OwnedFd, Error> {
    let export = |fd: *mut c_void| {
        // SAFETY: `fd` points to a writable int; the handle is the caller's.
        let rc = unsafe { (api.hipMemExportToShareableHandle)(fd, handle, handle_type, flags) };
        check(api, "hipMemExportToShareableHandle", rc)
    };
    // SAFETY: on success HIP wrote a new descriptor (HIP-VMM-025), which the caller owns.
    unsafe { exported_fd(export) }
}

/// `hipMemImportFromShareableHandle(&handle, &fd, handleType)`: the fd is
/// passed as an `int*`, as HIP 6.2–7.x read it ([HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026)), and only
/// borrowed. The handle is bound to the calling thread's device.
pub fn mem_import_from_fd(
    api: &HipApi,
    fd: BorrowedFd<'_>,
    handle_type: hipMemAllocationHandleType,
) -> Result<hipMemGenericAllocationHandle_t, Error> {
    let mut raw = fd.as_raw_fd();
    out(ptr::null_mut(), |h| {
        // SAFETY: `h` is a writable handle slot, `raw` a readable int holding an open fd.
        let rc = unsafe { (api.hipMemImportFromShareableHandle)(h, (&raw mut raw).cast(), handle_type) };
        check(api, "hipMemImportFromShareableHandle", rc)
    })
}

/// `hipMalloc(&ptr, size)`: linear device memory, given back with [`free`].
pub fn malloc(api: &HipApi, size: usize) -> Result<*mut c_void, Error> {
    // SAFETY: `p` is a writable pointer slot.
    out(ptr::null_mut(), |p| check(api, "hipMalloc", unsafe { (api.hipMalloc)(p, size) }))
}

/// `hipFree(ptr)`.
///
/// # Safety
/// `ptr` must come from [`malloc`] and not be freed yet, nor in use.
pub unsafe fn free(api: &HipApi, ptr: *mut c_void) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipFree", unsafe { (api.hipFree)(ptr) })
}

/// `hipIpcGetMemHandle(&handle, ptr)`: the legacy IPC handle of a `hipMalloc` allocation.
///
/// # Safety
/// `ptr` must be a device address of this process.
pub unsafe fn ipc_get_mem_handle(api: &HipApi, ptr: *mut c_void) -> Result<hipIpcMemHandle_t, Error> {
    // SAFETY: `h` is a writable 64-byte record; `ptr` is the caller's contract.
    out(hipIpcMemHandle_t::default(), |h| check(api, "hipIpcGetMemHandle", unsafe { (api.hipIpcGetMemHandle)(h, ptr) }))
}

/// `hipIpcOpenMemHandle(&ptr, handle, flags)`: another process's allocation,
/// mapped here on the calling thread's device until [`ipc_close_mem_handle`].
pub fn ipc_open_mem_handle(api: &HipApi, handle: hipIpcMemHandle_t, flags: u32) -> Result<*mut c_void, Error> {
    // SAFETY: `p` is a writable pointer slot; the handle is passed by value.
    out(ptr::null_mut(), |p| check(api, "hipIpcOpenMemHandle", unsafe { (api.hipIpcOpenMemHandle)(p, handle, flags) }))
}

/// `hipIpcCloseMemHandle(ptr)`.
///
/// # Safety
/// `ptr` must come from [`ipc_open_mem_handle`], not be closed yet, nor in use.
pub unsafe fn ipc_close_mem_handle(api: &HipApi, ptr: *mut c_void) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "hipIpcCloseMemHandle", unsafe { (api.hipIpcCloseMemHandle)(ptr) })
}
