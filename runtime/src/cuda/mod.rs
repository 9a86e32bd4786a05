//! The CUDA driver API at cudarc's `result` level: one thin function per C
//! call, returning `Result<_, Error>`, named after the call (`cuMemMap` →
//! [`mem_map`]), taking the table first.
//!
//! As in [`crate::acl`], calls that take only values are safe, and calls
//! that take an allocation handle, a context or a device address are
//! `unsafe`. Rules come from the in-process emulator's thread message, as
//! for [`crate::hip`]; a loaded library's failures carry the code alone.

mod driver;

use std::ffi::c_void;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::ptr;

use vmmkit_sys::cuda::{
    CUcontext, CUdevice, CUdeviceptr, CUipcMemHandle, CUmemAccessDesc, CUmemAllocationGranularity_flags,
    CUmemAllocationHandleType, CUmemAllocationProp, CUmemGenericAllocationHandle, CUmemLocation, CUresult,
};
pub use vmmkit_sys::cuda::{CuResult, CudaApi};

use crate::error::Error;
use crate::result::{exported_fd, out};

/// Whether `api` is the in-process emulator's table (whose thread message names rules).
fn emulated(api: &CudaApi) -> bool {
    api.cuInit as usize == vmmkit_emulator::cuda::api().cuInit as usize
}

/// `Ok(())` for `CUDA_SUCCESS`, else the error of `call` (with the emulator's rule, see the module docs).
pub(crate) fn check(api: &CudaApi, call: &'static str, rc: CUresult) -> Result<(), Error> {
    Error::check(call, CuResult(rc), || emulated(api).then(vmmkit_emulator::core::thread::message))
}

/// `cuInit(flags)`: flags must be 0.
pub fn init(api: &CudaApi, flags: u32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "cuInit", unsafe { (api.cuInit)(flags) })
}

/// `cuDeviceGetCount(&count)`.
pub fn device_get_count(api: &CudaApi) -> Result<i32, Error> {
    // SAFETY: `n` is a writable int.
    out(0, |n| check(api, "cuDeviceGetCount", unsafe { (api.cuDeviceGetCount)(n) }))
}

/// `cuDeviceGet(&device, ordinal)`.
pub fn device_get(api: &CudaApi, ordinal: i32) -> Result<CUdevice, Error> {
    // SAFETY: `d` is a writable int.
    out(0, |d| check(api, "cuDeviceGet", unsafe { (api.cuDeviceGet)(d, ordinal) }))
}

/// `cuDevicePrimaryCtxRetain(&ctx, device)`: one reference of the device's
/// primary context, given back with [`device_primary_ctx_release`].
pub fn device_primary_ctx_retain(api: &CudaApi, device: CUdevice) -> Result<CUcontext, Error> {
    out(ptr::null_mut(), |c| {
        // SAFETY: `c` is a writable context slot.
        check(api, "cuDevicePrimaryCtxRetain", unsafe { (api.cuDevicePrimaryCtxRetain)(c, device) })
    })
}

/// `cuDevicePrimaryCtxRelease(device)` (the `_v2` entry point).
pub fn device_primary_ctx_release(api: &CudaApi, device: CUdevice) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "cuDevicePrimaryCtxRelease", unsafe { (api.cuDevicePrimaryCtxRelease)(device) })
}

/// `cuCtxSetCurrent(ctx)`.
///
/// # Safety
/// `ctx` must be a live context (or NULL).
pub unsafe fn ctx_set_current(api: &CudaApi, ctx: CUcontext) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuCtxSetCurrent", unsafe { (api.cuCtxSetCurrent)(ctx) })
}

/// `cuMemGetAllocationGranularity(&g, prop, option)`.
pub fn mem_get_allocation_granularity(
    api: &CudaApi,
    prop: &CUmemAllocationProp,
    option: CUmemAllocationGranularity_flags,
) -> Result<usize, Error> {
    out(0, |g| {
        // SAFETY: `g` is a writable size_t, `prop` a live property record.
        check(api, "cuMemGetAllocationGranularity", unsafe { (api.cuMemGetAllocationGranularity)(g, prop, option) })
    })
}

/// `cuMemCreate(&handle, size, prop, flags)`: a new allocation handle, given back with [`mem_release`].
pub fn mem_create(
    api: &CudaApi,
    size: usize,
    prop: &CUmemAllocationProp,
    flags: u64,
) -> Result<CUmemGenericAllocationHandle, Error> {
    // SAFETY: `h` is a writable handle slot, `prop` a live property record.
    out(0, |h| check(api, "cuMemCreate", unsafe { (api.cuMemCreate)(h, size, prop, flags) }))
}

/// `cuMemRelease(handle)`.
///
/// # Safety
/// `handle` must be a live handle of this process not yet released.
pub unsafe fn mem_release(api: &CudaApi, handle: CUmemGenericAllocationHandle) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemRelease", unsafe { (api.cuMemRelease)(handle) })
}

/// `cuMemAddressReserve(&ptr, size, alignment, addr, flags)`.
pub fn mem_address_reserve(
    api: &CudaApi,
    size: usize,
    alignment: usize,
    addr: CUdeviceptr,
    flags: u64,
) -> Result<CUdeviceptr, Error> {
    // SAFETY: `p` is a writable slot; the other arguments are values.
    out(0, |p| check(api, "cuMemAddressReserve", unsafe { (api.cuMemAddressReserve)(p, size, alignment, addr, flags) }))
}

/// `cuMemAddressFree(ptr, size)`.
///
/// # Safety
/// `ptr..ptr+size` must be a reservation of this process, with nothing using its mappings.
pub unsafe fn mem_address_free(api: &CudaApi, ptr: CUdeviceptr, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemAddressFree", unsafe { (api.cuMemAddressFree)(ptr, size) })
}

/// `cuMemMap(ptr, size, offset, handle, flags)`.
///
/// # Safety
/// `handle` must be live; `ptr..ptr+size` must lie in a reservation of this process.
pub unsafe fn mem_map(
    api: &CudaApi,
    ptr: CUdeviceptr,
    size: usize,
    offset: usize,
    handle: CUmemGenericAllocationHandle,
    flags: u64,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemMap", unsafe { (api.cuMemMap)(ptr, size, offset, handle, flags) })
}

/// `cuMemUnmap(ptr, size)`.
///
/// # Safety
/// Nothing may copy through the range during or after the call.
pub unsafe fn mem_unmap(api: &CudaApi, ptr: CUdeviceptr, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemUnmap", unsafe { (api.cuMemUnmap)(ptr, size) })
}

/// `cuMemSetAccess(ptr, size, desc, count)`.
///
/// # Safety
/// `ptr..ptr+size` must be mapped by this process.
pub unsafe fn mem_set_access(
    api: &CudaApi,
    ptr: CUdeviceptr,
    size: usize,
    desc: &[CUmemAccessDesc],
) -> Result<(), Error> {
    // SAFETY: `desc` is `desc.len()` records; the range is the caller's contract.
    check(api, "cuMemSetAccess", unsafe { (api.cuMemSetAccess)(ptr, size, desc.as_ptr(), desc.len()) })
}

/// `cuMemGetAccess(&flags, location, ptr)`.
pub fn mem_get_access(api: &CudaApi, ptr: CUdeviceptr, location: &CUmemLocation) -> Result<u64, Error> {
    // SAFETY: `f` is writable, `location` live; the address is a value the driver looks up.
    out(0, |f| check(api, "cuMemGetAccess", unsafe { (api.cuMemGetAccess)(f, location, ptr) }))
}

/// `cuMemcpyHtoD(dst, src, size)`.
///
/// # Safety
/// `src..src+size` must be readable, `dst..dst+size` mapped by this process.
pub unsafe fn memcpy_htod(api: &CudaApi, dst: CUdeviceptr, src: *const c_void, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemcpyHtoD", unsafe { (api.cuMemcpyHtoD)(dst, src, size) })
}

/// `cuMemcpyDtoH(dst, src, size)`.
///
/// # Safety
/// `dst..dst+size` must be writable, `src..src+size` mapped by this process.
pub unsafe fn memcpy_dtoh(api: &CudaApi, dst: *mut c_void, src: CUdeviceptr, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemcpyDtoH", unsafe { (api.cuMemcpyDtoH)(dst, src, size) })
}

/// `cuMemcpyDtoD(dst, src, size)`.
///
/// # Safety
/// Both ranges must be mapped by this process.
pub unsafe fn memcpy_dtod(api: &CudaApi, dst: CUdeviceptr, src: CUdeviceptr, size: usize) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemcpyDtoD", unsafe { (api.cuMemcpyDtoD)(dst, src, size) })
}

/// `cuMemExportToShareableHandle(&fd, handle, POSIX_FILE_DESCRIPTOR, flags)`: the caller owns the fd.
///
/// # Safety
/// `handle` must be live.
pub unsafe fn mem_export_to_fd(
    api: &CudaApi,
    handle: CUmemGenericAllocationHandle,
    handle_type: CUmemAllocationHandleType,
    flags: u64,
) -> Result<OwnedFd, Error> {
    let export = |fd: *mut c_void| {
        // SAFETY: `fd` points to a writable int; the handle is the caller's.
        let rc = unsafe { (api.cuMemExportToShareableHandle)(fd, handle, handle_type, flags) };
        check(api, "cuMemExportToShareableHandle", rc)
    };
    // SAFETY: on success the driver wrote a new descriptor, which the caller owns.
    unsafe { exported_fd(export) }
}

/// `cuMemImportFromShareableHandle(&handle, (void*)(uintptr_t)fd, POSIX_FILE_DESCRIPTOR)`:
/// CUDA takes the fd value cast to a pointer (cuda.h), and only borrows it.
/// Needs a current context.
pub fn mem_import_from_fd(
    api: &CudaApi,
    fd: BorrowedFd<'_>,
    handle_type: CUmemAllocationHandleType,
) -> Result<CUmemGenericAllocationHandle, Error> {
    let value = fd.as_raw_fd() as usize as *mut c_void;
    out(0, |h| {
        // SAFETY: `h` is a writable handle slot; the fd is passed by value, not dereferenced.
        let rc = unsafe { (api.cuMemImportFromShareableHandle)(h, value, handle_type) };
        check(api, "cuMemImportFromShareableHandle", rc)
    })
}

/// `cuMemAlloc(&ptr, size)`: linear device memory in the current context, given back with [`mem_free`].
pub fn mem_alloc(api: &CudaApi, size: usize) -> Result<CUdeviceptr, Error> {
    // SAFETY: `p` is a writable slot.
    out(0, |p| check(api, "cuMemAlloc", unsafe { (api.cuMemAlloc)(p, size) }))
}

/// `cuMemFree(ptr)`.
///
/// # Safety
/// `ptr` must come from [`mem_alloc`] and not be freed yet, nor in use.
pub unsafe fn mem_free(api: &CudaApi, ptr: CUdeviceptr) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuMemFree", unsafe { (api.cuMemFree)(ptr) })
}

/// `cuIpcGetMemHandle(&handle, ptr)`: the legacy IPC handle of a `cuMemAlloc` allocation.
pub fn ipc_get_mem_handle(api: &CudaApi, ptr: CUdeviceptr) -> Result<CUipcMemHandle, Error> {
    // SAFETY: `h` is a writable 64-byte record; the address is a value the driver looks up.
    out(CUipcMemHandle::default(), |h| check(api, "cuIpcGetMemHandle", unsafe { (api.cuIpcGetMemHandle)(h, ptr) }))
}

/// `cuIpcOpenMemHandle(&ptr, handle, flags)` (the `_v2` entry point).
pub fn ipc_open_mem_handle(api: &CudaApi, handle: CUipcMemHandle, flags: u32) -> Result<CUdeviceptr, Error> {
    // SAFETY: `p` is a writable slot; the handle is passed by value.
    out(0, |p| check(api, "cuIpcOpenMemHandle", unsafe { (api.cuIpcOpenMemHandle)(p, handle, flags) }))
}

/// `cuIpcCloseMemHandle(ptr)`.
///
/// # Safety
/// `ptr` must come from [`ipc_open_mem_handle`], not be closed yet, nor in use.
pub unsafe fn ipc_close_mem_handle(api: &CudaApi, ptr: CUdeviceptr) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "cuIpcCloseMemHandle", unsafe { (api.cuIpcCloseMemHandle)(ptr) })
}
