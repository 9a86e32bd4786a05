//! [`Dialect`] over the emulator's CUDA table: VMM memory (`cuMemCreate`
//! with POSIX_FILE_DESCRIPTOR requested) shared as POSIX fds (cuda.md
//! CUDA-VMM-015 … 018, the memMapIPCDrv pattern), each thread on its
//! device's primary context. No trustlist; import in the exporting process
//! is allowed by the emulator (CUDA-VMM-018).

use std::ffi::c_void;
use std::fmt::Debug;
use std::os::fd::OwnedFd;

use vmmkit_sys::cuda::*;

use super::{Call, Code, Dialect, FdShareable, Handle, Ranges, rc};

/// The CUDA table of the emulator, and the sizes of the ranges it made.
#[derive(Clone)]
pub struct Cuda {
    /// The table every call goes through.
    pub api: CudaApi,
    ranges: Ranges,
}

impl Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cuda")
    }
}

fn loc(device: u32) -> CUmemLocation {
    CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device as i32 }
}

impl Dialect for Cuda {
    const NAME: &'static str = "cuda";
    const OUT_OF_MEMORY: Code = 2;
    const UNKNOWN_SHAREABLE: Code = 1;
    const REFUSED: Code = 1;
    const NO_DEVICE: Code = 100;
    const GRANULE: usize = 2 << 20;
    const SHAREABLE_HOLDS_MEMORY: bool = true;
    const TEARDOWN_RULE: Option<&'static str> = None;
    type Shareable = FdShareable;

    fn function(call: Call) -> Option<&'static str> {
        Some(match call {
            Call::Alloc => "cuMemCreate",
            Call::Map => "cuMemMap",
            Call::Write => "cuMemcpyHtoD",
            Call::Read => "cuMemcpyDtoH",
            Call::Export => "cuMemExportToShareableHandle",
            Call::SetPids => return None,
            Call::Import => "cuMemImportFromShareableHandle",
            Call::Free => "cuMemRelease",
        })
    }

    fn refusal(_own_device: bool, _unlisted: bool) -> Option<&'static str> {
        None // CUDA-VMM-018: import in the exporting process is allowed (emulator); no trustlist
    }

    fn to_wire(s: FdShareable) -> (String, Option<OwnedFd>) {
        s.into_wire()
    }

    fn from_wire(_text: &str, fd: Option<OwnedFd>) -> Option<FdShareable> {
        fd.map(FdShareable)
    }

    fn open() -> Self {
        Self { api: vmmkit_emulator::cuda::api(), ranges: Ranges::default() }
    }

    fn describe(code: Code) -> String {
        CuResult(code as u32).to_string()
    }

    fn last_message(&self) -> String {
        vmmkit_emulator::core::thread::message()
    }

    /// cuInit, then `device`'s primary context current on the calling thread.
    fn set_device(&self, device: u32) -> Result<(), Code> {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: valid out-pointer; plain integers.
        unsafe {
            rc((self.api.cuInit)(0))?;
            rc((self.api.cuDevicePrimaryCtxRetain)(&mut ctx, device as i32))?;
            rc((self.api.cuCtxSetCurrent)(ctx))
        }
    }

    fn alloc(&self, device: u32, size: usize) -> Result<Handle, Code> {
        let prop = CUmemAllocationProp {
            type_: CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            location: loc(device),
            ..Default::default()
        };
        let mut h = 0;
        // SAFETY: valid out-pointer and property record.
        rc(unsafe { (self.api.cuMemCreate)(&mut h, size, &prop, 0) })?;
        Ok(h as Handle)
    }

    fn free(&self, h: Handle) -> Result<(), Code> {
        // SAFETY: handle values are looked up.
        rc(unsafe { (self.api.cuMemRelease)(h as CUmemGenericAllocationHandle) })
    }

    fn reserve(&self, size: usize) -> Result<usize, Code> {
        let mut va = 0;
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.cuMemAddressReserve)(&mut va, size, 0, 0, 0) })?;
        self.ranges.note(Ranges::RESERVED, va as usize, size);
        Ok(va as usize)
    }

    fn release(&self, va: usize) -> Result<(), Code> {
        // Taken out before the call: once `va` is freed, another thread may
        // get it and note a range of its own there.
        let size = self.ranges.take(Ranges::RESERVED, va);
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.cuMemAddressFree)(va as CUdeviceptr, size) })
            .inspect_err(|_| self.ranges.note(Ranges::RESERVED, va, size))
    }

    fn map(&self, va: usize, size: usize, h: Handle, device: u32) -> Result<(), Code> {
        // SAFETY: addresses and handles are looked up.
        rc(unsafe { (self.api.cuMemMap)(va as CUdeviceptr, size, 0, h as CUmemGenericAllocationHandle, 0) })?;
        self.ranges.note(Ranges::MAPPED, va, size);
        // CUDA-VMM-012: a copy needs access for the device of the current
        // context, which may differ from `device` (memMapIPCDrv grants every
        // device of its peer set): `device` first, then every other one.
        let mut count = 0;
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.cuDeviceGetCount)(&mut count) })?;
        let descs: Vec<CUmemAccessDesc> = std::iter::once(device)
            .chain((0..count as u32).filter(|&d| d != device))
            .map(|d| CUmemAccessDesc { location: loc(d), flags: CU_MEM_ACCESS_FLAGS_PROT_READWRITE })
            .collect();
        // SAFETY: `descs.len()` valid descriptors.
        rc(unsafe { (self.api.cuMemSetAccess)(va as CUdeviceptr, size, descs.as_ptr(), descs.len()) })
    }

    fn unmap(&self, va: usize) -> Result<(), Code> {
        // Taken out before the call: once `va` is freed, another thread may
        // get it and note a range of its own there.
        let size = self.ranges.take(Ranges::MAPPED, va);
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.cuMemUnmap)(va as CUdeviceptr, size) })
            .inspect_err(|_| self.ranges.note(Ranges::MAPPED, va, size))
    }

    fn export(&self, h: Handle, _trustlist: bool) -> Result<FdShareable, Code> {
        let mut fd = -1i32;
        // SAFETY: room for the int fd (CUDA-VMM-016); handles are looked up.
        rc(unsafe {
            (self.api.cuMemExportToShareableHandle)(
                (&raw mut fd).cast(),
                h as CUmemGenericAllocationHandle,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            )
        })?;
        Ok(FdShareable::adopt(fd))
    }

    fn set_pids(&self, _s: FdShareable, _pids: &[i32]) -> Result<(), Code> {
        unreachable!("CUDA has no trustlist")
    }

    fn import(&self, s: FdShareable, device: u32) -> Result<Handle, Code> {
        // The import lands on the current context's device.
        self.set_device(device)?;
        let mut h = 0;
        // SAFETY: valid out-pointer; CUDA-VMM-017: the fd value cast to a pointer.
        rc(unsafe {
            (self.api.cuMemImportFromShareableHandle)(
                &mut h,
                s.value() as usize as *mut c_void,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            )
        })?;
        Ok(h as Handle)
    }

    fn write(&self, va: usize, data: &[u8]) -> Result<(), Code> {
        // SAFETY: `data` is a valid host buffer; the device side is looked up.
        rc(unsafe { (self.api.cuMemcpyHtoD)(va as CUdeviceptr, data.as_ptr().cast(), data.len()) })
    }

    fn read(&self, va: usize, out: &mut [u8]) -> Result<(), Code> {
        // SAFETY: `out` is a valid host buffer; the device side is looked up.
        rc(unsafe { (self.api.cuMemcpyDtoH)(out.as_mut_ptr().cast(), va as CUdeviceptr, out.len()) })
    }

    fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), Code> {
        // SAFETY: both sides are looked up.
        rc(unsafe { (self.api.cuMemcpyDtoD)(dst as CUdeviceptr, src as CUdeviceptr, n) })
    }

    fn pid(&self) -> i32 {
        std::process::id() as i32
    }
}
