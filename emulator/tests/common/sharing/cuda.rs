//! [`Sharing`] over the emulator's CUDA table: legacy IPC of `cuMemAlloc`
//! memory (cuda.md §4) and the checks of the memMapIPCDrv path.

use std::ffi::c_void;
use std::os::fd::{AsRawFd, BorrowedFd};

use vmmkit_sys::cuda::*;

use super::super::dialect::{Code, Cuda, Dialect, Handle, rc};
use super::{EXPORTER, IMPORTER, Sharing, bytes_from_hex, bytes_hex, ok};

impl Sharing for Cuda {
    const OWN_OPEN: Code = CuResult::INVALID_CONTEXT.0 as Code;
    /// Freed memory: its handle names nothing live (400).
    const FREED_OPEN: Code = CuResult::INVALID_HANDLE.0 as Code;
    const REOPEN_FLAGS: u32 = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;

    fn malloc(&self, size: usize) -> Result<usize, Code> {
        let mut p = 0;
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.cuMemAlloc)(&mut p, size) })?;
        Ok(p as usize)
    }

    fn mem_free(&self, p: usize) -> Result<(), Code> {
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.cuMemFree)(p as CUdeviceptr) })
    }

    fn ipc_get(&self, p: usize) -> Result<String, Code> {
        let mut h = CUipcMemHandle::default();
        // SAFETY: valid out-pointer; addresses are looked up.
        rc(unsafe { (self.api.cuIpcGetMemHandle)(&mut h, p as CUdeviceptr) })?;
        Ok(bytes_hex(&h.reserved))
    }

    fn ipc_open(&self, hex: &str, flags: u32) -> Result<usize, Code> {
        let mut h = CUipcMemHandle::default();
        bytes_from_hex(hex, &mut h.reserved);
        let mut q = 0;
        // SAFETY: valid out-pointer; the handle is passed by value.
        rc(unsafe { (self.api.cuIpcOpenMemHandle)(&mut q, h, flags) })?;
        Ok(q as usize)
    }

    fn address_range(&self, p: usize) -> Result<(usize, usize), Code> {
        let (mut base, mut len) = (0, 0);
        // SAFETY: valid out-pointers; addresses are looked up.
        rc(unsafe { (self.api.cuMemGetAddressRange)(&mut base, &mut len, p as CUdeviceptr) })?;
        Ok((base as usize, len))
    }

    fn export_into(&self, h: Handle, slot: *mut c_void) -> Result<(), Code> {
        let posix = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        // SAFETY: the caller's slot has room for the int fd (CUDA-VMM-016); handles are looked up.
        rc(unsafe { (self.api.cuMemExportToShareableHandle)(slot, h as CUmemGenericAllocationHandle, posix, 0) })
    }

    fn check_open(&self, _q: usize) {}

    fn close_all(&self, q: usize, _size: usize) {
        let close = |p: usize| {
            // SAFETY: addresses are looked up.
            rc(unsafe { (self.api.cuIpcCloseMemHandle)(p as CUdeviceptr) })
        };
        let mut byte = [0u8];
        // CUDA-IPC-009: an interior pointer is not what Open returned.
        assert_eq!(close(q + 1), Err(CuResult::INVALID_VALUE.0 as Code), "CUDA-IPC-009: an interior close");
        ok(self, close(q), "the first close");
        // One open left: the memory is still there.
        ok(self, self.read(q, &mut byte), "a read with one open left");
        ok(self, close(q), "the second close");
        // Closed as often as opened: the pointer is gone, a third close fails.
        let gone = Err(CuResult::INVALID_VALUE.0 as Code);
        assert_eq!(close(q), gone, "a third close");
        assert_eq!(self.read(q, &mut byte), gone, "a read after the last close");
    }

    fn check_import(&self, fd: BorrowedFd<'_>, size: usize) {
        let posix = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        // CUDA-VMM-017: the classic bug, a pointer to the fd, is refused, not taken for one.
        let mut raw = fd.as_raw_fd();
        let mut h = 0;
        // SAFETY: valid out-pointer; the pointer to the int is what is under test.
        let wrong = rc(unsafe { (self.api.cuMemImportFromShareableHandle)(&mut h, (&raw mut raw).cast(), posix) });
        assert_eq!(wrong, Err(CuResult::INVALID_VALUE.0 as Code), "CUDA-VMM-017: a pointer to the fd");
        // SAFETY: valid out-pointer; CUDA-VMM-017: the fd value cast to a pointer.
        let by_value = rc(unsafe {
            (self.api.cuMemImportFromShareableHandle)(&mut h, fd.as_raw_fd() as usize as *mut c_void, posix)
        });
        ok(self, by_value, "an import by value");
        // The properties are the exporter's: its device, its handle types.
        let mut p = CUmemAllocationProp::default();
        // SAFETY: valid out-pointer; handles are looked up.
        ok(self, rc(unsafe { (self.api.cuMemGetAllocationPropertiesFromHandle)(&mut p, h) }), "properties");
        assert_eq!(
            (p.location.type_, p.location.id, p.requestedHandleTypes),
            (CU_MEM_LOCATION_TYPE_DEVICE, EXPORTER as i32, posix),
            "the exporter's properties"
        );
        // CUDA-VMM-012: mapped, but no access yet, for the importer's own device either.
        let va = ok(self, self.reserve(size), "reserve");
        // SAFETY: addresses and handles are looked up.
        ok(self, rc(unsafe { (self.api.cuMemMap)(va as CUdeviceptr, size, 0, h, 0) }), "map");
        let mut byte = [0u8];
        let before = self.read(va, &mut byte);
        assert_eq!(
            before,
            Err(CuResult::INVALID_VALUE.0 as Code),
            "CUDA-VMM-012 on device {IMPORTER} before SetAccess"
        );
        // SAFETY: addresses are looked up.
        ok(self, rc(unsafe { (self.api.cuMemUnmap)(va as CUdeviceptr, size) }), "unmap");
        ok(self, self.release(va), "release the reservation");
        ok(self, self.free(h as Handle), "release the handle");
    }
}
