//! What HIP writes for the runtime: its [`Facts`] and its [`Driver`] over
//! the result functions of this module, and its conversions of the
//! runtime's values.

use std::os::fd::{BorrowedFd, OwnedFd};

use vmmkit_sys::hip::{
    HipApi, HipError, hipIpcMemHandle_t, hipIpcMemLazyEnablePeerAccess, hipMemAccessDesc,
    hipMemAllocationGranularityMinimum, hipMemAllocationGranularityRecommended, hipMemAllocationProp,
    hipMemAllocationTypePinned, hipMemHandleTypeNone, hipMemHandleTypePosixFileDescriptor, hipMemLocation,
    hipMemLocationTypeDevice, hipMemLocationTypeHost, hipMemcpyDeviceToDevice, hipMemcpyDeviceToHost,
    hipMemcpyHostToDevice,
};
use vmmkit_sys::vendor::Hip;

use crate::driver::{Driver, Facts, InitGuard, Vendor, ptr};
use crate::error::Error;
use crate::types::{Access, Dir, Granularity, Location, PhysicalProps, Sharing};

impl Location {
    pub(crate) fn to_hip(self) -> hipMemLocation {
        let (type_, id) = self.parts(hipMemLocationTypeHost, hipMemLocationTypeDevice);
        hipMemLocation { type_, id: id as i32 }
    }
}

impl PhysicalProps {
    /// The HIP property record (pinned; POSIX fd or no handle type).
    pub fn to_hip(&self) -> hipMemAllocationProp {
        hipMemAllocationProp {
            type_: hipMemAllocationTypePinned,
            requestedHandleType: self.handle_type(hipMemHandleTypePosixFileDescriptor, hipMemHandleTypeNone),
            location: self.location.to_hip(),
            ..Default::default()
        }
    }
}

impl Facts for Hip {
    const NOT_SUPPORTED: HipError = HipError::NOT_SUPPORTED;
    const VMM_SHARING: &'static [Sharing] = &[Sharing::PosixFd];

    fn emulator() -> HipApi {
        vmmkit_emulator::hip::api()
    }
}

impl Driver for HipApi {
    fn vendor(&self) -> Vendor {
        Vendor::Hip
    }

    /// `hipInit(0)`: may be called any number of times, and has no finalisation.
    fn init(&self) -> Result<InitGuard, Error> {
        super::init(self, 0).map(|()| InitGuard::NONE)
    }

    fn device_count(&self) -> Result<u32, Error> {
        super::get_device_count(self).map(|n| n.max(0) as u32)
    }

    /// `hipSetDevice`: HIP has no context to keep (0).
    fn open_device(&self, id: i32) -> Result<usize, Error> {
        super::set_device(self, id).map(|()| 0)
    }

    /// Nothing to give back.
    fn close_device(&self, _id: i32) -> Result<(), Error> {
        Ok(())
    }

    unsafe fn bind(&self, id: i32, _ctx: usize) -> Result<(), Error> {
        super::set_device(self, id)
    }

    fn granularity(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        let option = which.pick(hipMemAllocationGranularityMinimum, hipMemAllocationGranularityRecommended);
        super::mem_get_allocation_granularity(self, &props.to_hip(), option)
    }

    fn alloc(&self, size: usize, props: &PhysicalProps) -> Result<u64, Error> {
        super::mem_create(self, size, &props.to_hip(), 0).map(|h| h as u64)
    }

    unsafe fn free(&self, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_release(self, ptr(handle)) }
    }

    fn reserve(&self, size: usize) -> Result<u64, Error> {
        super::mem_address_reserve(self, size, 0, 0, 0).map(|p| p as u64)
    }

    unsafe fn release(&self, va: u64, size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_address_free(self, ptr(va), size) }
    }

    unsafe fn map(&self, va: u64, size: usize, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_map(self, ptr(va), size, 0, ptr(handle), 0) }
    }

    unsafe fn unmap(&self, va: u64, size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_unmap(self, ptr(va), size) }
    }

    unsafe fn set_access(&self, va: u64, size: usize, loc: Location, access: Access) -> Result<(), Error> {
        let d = hipMemAccessDesc { location: loc.to_hip(), flags: access.flags() as _ };
        // SAFETY: the caller's contract.
        unsafe { super::mem_set_access(self, ptr(va), size, &[d]) }
    }

    unsafe fn get_access(&self, va: u64, loc: Location) -> Result<u64, Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_get_access(self, ptr(va), &loc.to_hip()) }
    }

    unsafe fn copy(&self, dst: u64, src: u64, len: usize, dir: Dir) -> Result<(), Error> {
        let kind = dir.pick(hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice);
        // SAFETY: the caller's contract.
        unsafe { super::memcpy(self, ptr(dst), ptr(src), len, kind) }
    }

    unsafe fn export_fd(&self, handle: u64) -> Result<OwnedFd, Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_export_to_fd(self, ptr(handle), hipMemHandleTypePosixFileDescriptor, 0) }
    }

    fn import_fd(&self, fd: BorrowedFd<'_>) -> Result<u64, Error> {
        super::mem_import_from_fd(self, fd, hipMemHandleTypePosixFileDescriptor).map(|h| h as u64)
    }

    fn malloc(&self, size: usize) -> Result<u64, Error> {
        super::malloc(self, size).map(|p| p as u64)
    }

    unsafe fn free_linear(&self, p: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::free(self, ptr(p)) }
    }

    unsafe fn ipc_get(&self, p: u64) -> Result<[u8; 64], Error> {
        // SAFETY: the caller's contract.
        unsafe { super::ipc_get_mem_handle(self, ptr(p)) }.map(|h| h.reserved.map(|b| b as u8))
    }

    /// With lazy peer access (`hipIpcMemLazyEnablePeerAccess` as the 6.x+
    /// headers define it, 1), the flag the vendor's samples pass.
    fn ipc_open(&self, handle: &[u8; 64]) -> Result<u64, Error> {
        let h = hipIpcMemHandle_t { reserved: handle.map(|b| b as _) };
        super::ipc_open_mem_handle(self, h, hipIpcMemLazyEnablePeerAccess).map(|p| p as u64)
    }

    unsafe fn ipc_close(&self, p: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::ipc_close_mem_handle(self, ptr(p)) }
    }
}
