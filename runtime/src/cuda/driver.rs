//! What CUDA writes for the runtime: its [`Facts`] and its [`Driver`] over
//! the result functions of this module, and its conversions of the
//! runtime's values.

use std::ffi::c_void;
use std::os::fd::{BorrowedFd, OwnedFd};

use vmmkit_sys::cuda::{
    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_NONE, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
    CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_HOST, CUipcMemHandle, CUmemAccessDesc, CUmemAllocationProp,
    CUmemLocation, CuResult, CudaApi, rules,
};
use vmmkit_sys::vendor::Cuda;

use crate::driver::{Driver, Facts, InitGuard, Vendor, ptr};
use crate::error::Error;
use crate::types::{Access, Dir, Granularity, Location, PhysicalProps, Sharing};

impl Location {
    pub(crate) fn to_cuda(self) -> CUmemLocation {
        let (type_, id) = self.parts(CU_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_DEVICE);
        CUmemLocation { type_, id: id as i32 }
    }
}

impl PhysicalProps {
    /// The CUDA property record (pinned; POSIX fd or no handle type).
    pub fn to_cuda(&self) -> CUmemAllocationProp {
        CUmemAllocationProp {
            type_: CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: self.handle_type(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CU_MEM_HANDLE_TYPE_NONE),
            location: self.location.to_cuda(),
            ..Default::default()
        }
    }
}

impl Facts for Cuda {
    const NOT_SUPPORTED: CuResult = CuResult::NOT_SUPPORTED;
    const VMM_SHARING: &'static [Sharing] = &[Sharing::PosixFd];

    fn emulator() -> CudaApi {
        vmmkit_emulator::cuda::api()
    }
}

impl Driver for CudaApi {
    fn vendor(&self) -> Vendor {
        Vendor::Cuda
    }

    /// `cuInit(0)`: may be called any number of times, and has no finalisation.
    fn init(&self) -> Result<InitGuard, Error> {
        super::init(self, 0).map(|()| InitGuard::NONE)
    }

    /// Every VMM call needs a current context ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)).
    fn needs_context(&self) -> bool {
        true
    }

    /// Any context serves a call that names its object ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)).
    fn lacks_context(&self, e: &Error) -> bool {
        rules::GEN_002.lists(e.code)
    }

    fn device_count(&self) -> Result<u32, Error> {
        super::device_get_count(self).map(|n| n.max(0) as u32)
    }

    /// The device's primary context, retained.
    fn open_device(&self, id: i32) -> Result<usize, Error> {
        let d = super::device_get(self, id)?;
        super::device_primary_ctx_retain(self, d).map(|c| c as usize)
    }

    fn close_device(&self, id: i32) -> Result<(), Error> {
        super::device_primary_ctx_release(self, id)
    }

    unsafe fn bind(&self, _id: i32, ctx: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract: a live context.
        unsafe { super::ctx_set_current(self, ctx as *mut c_void) }
    }

    fn granularity(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        let option = which.pick(CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        super::mem_get_allocation_granularity(self, &props.to_cuda(), option)
    }

    fn alloc(&self, size: usize, props: &PhysicalProps) -> Result<u64, Error> {
        super::mem_create(self, size, &props.to_cuda(), 0)
    }

    unsafe fn free(&self, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_release(self, handle) }
    }

    fn reserve(&self, size: usize) -> Result<u64, Error> {
        super::mem_address_reserve(self, size, 0, 0, 0)
    }

    unsafe fn release(&self, va: u64, size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_address_free(self, va, size) }
    }

    unsafe fn map(&self, va: u64, size: usize, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_map(self, va, size, 0, handle, 0) }
    }

    unsafe fn unmap(&self, va: u64, size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_unmap(self, va, size) }
    }

    unsafe fn set_access(&self, va: u64, size: usize, loc: Location, access: Access) -> Result<(), Error> {
        let d = CUmemAccessDesc { location: loc.to_cuda(), flags: access.flags() as _ };
        // SAFETY: the caller's contract.
        unsafe { super::mem_set_access(self, va, size, &[d]) }
    }

    unsafe fn get_access(&self, va: u64, loc: Location) -> Result<u64, Error> {
        super::mem_get_access(self, va, &loc.to_cuda())
    }

    /// One entry point per direction (`cuMemcpyHtoD`, `DtoH`, `DtoD`).
    unsafe fn copy(&self, dst: u64, src: u64, len: usize, dir: Dir) -> Result<(), Error> {
        match dir {
            // SAFETY: the caller's contract.
            Dir::HostToDevice => unsafe { super::memcpy_htod(self, dst, ptr(src), len) },
            // SAFETY: the caller's contract.
            Dir::DeviceToHost => unsafe { super::memcpy_dtoh(self, ptr(dst), src, len) },
            // SAFETY: the caller's contract.
            Dir::DeviceToDevice => unsafe { super::memcpy_dtod(self, dst, src, len) },
        }
    }

    unsafe fn export_fd(&self, handle: u64) -> Result<OwnedFd, Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_export_to_fd(self, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) }
    }

    fn import_fd(&self, fd: BorrowedFd<'_>) -> Result<u64, Error> {
        super::mem_import_from_fd(self, fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    }

    fn malloc(&self, size: usize) -> Result<u64, Error> {
        super::mem_alloc(self, size)
    }

    unsafe fn free_linear(&self, p: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_free(self, p) }
    }

    unsafe fn ipc_get(&self, p: u64) -> Result<[u8; 64], Error> {
        super::ipc_get_mem_handle(self, p).map(|h| h.reserved.map(|b| b as u8))
    }

    /// With lazy peer access (`CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, 1), the
    /// flag the vendor's samples pass.
    fn ipc_open(&self, handle: &[u8; 64]) -> Result<u64, Error> {
        let h = CUipcMemHandle { reserved: handle.map(|b| b as _) };
        super::ipc_open_mem_handle(self, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
    }

    unsafe fn ipc_close(&self, p: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::ipc_close_mem_handle(self, p) }
    }
}
