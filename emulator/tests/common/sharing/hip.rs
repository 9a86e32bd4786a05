//! [`Sharing`] over the emulator's HIP table: legacy IPC of `hipMalloc`
//! memory (hip.md §4.2–§4.4, profile 6.x) and both `osHandle` conventions
//! of a VMM fd's import (§4.5).

use std::ffi::c_void;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::ptr::null_mut;

use vmmkit_sys::hip::*;

use super::super::dialect::{Code, Dialect, Handle, Hip, rc};
use super::{IMPORTER, Sharing, bytes_from_hex, bytes_hex, ok};

impl Hip {
    /// The memory type and device hipPointerGetAttributes gives `p`.
    fn owner(&self, p: usize) -> (hipMemoryType, i32) {
        let mut attr = hipPointerAttribute_t::default();
        // SAFETY: valid out-pointer; addresses are looked up.
        ok(self, rc(unsafe { (self.api.hipPointerGetAttributes)(&mut attr, p as *const c_void) }), "attributes");
        (attr.type_, attr.device)
    }
}

impl Sharing for Hip {
    const OWN_OPEN: Code = HipError::INVALID_CONTEXT.0 as Code;
    /// Freed memory: its handle names no registry entry (HIP-IPC-046's late open).
    const FREED_OPEN: Code = HipError::INVALID_DEVICE_POINTER.0 as Code;
    /// HIP-IPC-027: the ≤5.7 value of the flag is accepted too.
    const REOPEN_FLAGS: u32 = hipIpcMemLazyEnablePeerAccess_R0500;

    fn malloc(&self, size: usize) -> Result<usize, Code> {
        let mut p = null_mut();
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.hipMalloc)(&mut p, size) })?;
        Ok(p as usize)
    }

    fn mem_free(&self, p: usize) -> Result<(), Code> {
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.hipFree)(p as *mut c_void) })
    }

    fn ipc_get(&self, p: usize) -> Result<String, Code> {
        let mut h = hipIpcMemHandle_t::default();
        // SAFETY: valid out-pointer; addresses are looked up.
        rc(unsafe { (self.api.hipIpcGetMemHandle)(&mut h, p as *mut c_void) })?;
        Ok(bytes_hex(&h.reserved))
    }

    fn ipc_open(&self, hex: &str, flags: u32) -> Result<usize, Code> {
        let mut h = hipIpcMemHandle_t::default();
        bytes_from_hex(hex, &mut h.reserved);
        let mut q = null_mut();
        // SAFETY: valid out-pointer; the handle is passed by value.
        rc(unsafe { (self.api.hipIpcOpenMemHandle)(&mut q, h, flags) })?;
        Ok(q as usize)
    }

    fn address_range(&self, p: usize) -> Result<(usize, usize), Code> {
        let (mut base, mut len) = (null_mut(), 0);
        // SAFETY: valid out-pointers; addresses are looked up (HIP-IPC-030 for opened memory).
        rc(unsafe { (self.api.hipMemGetAddressRange)(&mut base, &mut len, p as *mut c_void) })?;
        Ok((base as usize, len))
    }

    fn export_into(&self, h: Handle, slot: *mut c_void) -> Result<(), Code> {
        let posix = hipMemHandleTypePosixFileDescriptor;
        // SAFETY: the caller's slot has room for the int fd (HIP-VMM-025); handles are looked up.
        rc(unsafe { (self.api.hipMemExportToShareableHandle)(slot, h as hipMemGenericAllocationHandle_t, posix, 0) })
    }

    /// HIP-IPC-031: the opened memory belongs to the importer's current device.
    fn check_open(&self, q: usize) {
        assert_eq!(self.owner(q), (hipMemoryTypeDevice, IMPORTER as i32), "HIP-IPC-031");
    }

    /// Two closes, the second by an interior pointer (HIP-IPC-043), then one
    /// too many (HIP-IPC-042); then the pointer is unknown (HIP-IPC-044).
    fn close_all(&self, q: usize, _size: usize) {
        let close = |p: usize| {
            // SAFETY: addresses are looked up.
            rc(unsafe { (self.api.hipIpcCloseMemHandle)(p as *mut c_void) })
        };
        ok(self, close(q), "the first close");
        ok(self, close(q + 64), "HIP-IPC-043: the second close, by an interior pointer");
        assert_eq!(close(q), Err(HipError::INVALID_VALUE.0 as Code), "HIP-IPC-042: a third close");
        let rule = self.last_message();
        assert!(rule.starts_with("HIP-IPC-042:"), "the third close names HIP-IPC-042: {rule}");
        // HIP-IPC-044 (6.0+): Unregistered, device −2.
        assert_eq!(self.owner(q), (hipMemoryTypeUnregistered, -2), "HIP-IPC-044");
    }

    /// HIP-VMM-026: a pointer to the int (6.2 to 7.x) imports as well as the
    /// value; HIP-VMM-029: the handle is the importer's current device's.
    fn check_import(&self, fd: BorrowedFd<'_>, _size: usize) {
        let posix = hipMemHandleTypePosixFileDescriptor;
        let mut raw = fd.as_raw_fd();
        let mut h = null_mut();
        // SAFETY: valid out-pointer; a pointer to the int fd, one of the two conventions.
        ok(
            self,
            rc(unsafe { (self.api.hipMemImportFromShareableHandle)(&mut h, (&raw mut raw).cast(), posix) }),
            "by pointer",
        );
        let mut p = hipMemAllocationProp::default();
        // SAFETY: valid out-pointer; handles are looked up.
        ok(self, rc(unsafe { (self.api.hipMemGetAllocationPropertiesFromHandle)(&mut p, h) }), "properties");
        assert_eq!(
            (p.type_, p.requestedHandleType, p.location.type_, p.location.id),
            (hipMemAllocationTypePinned, posix, hipMemLocationTypeDevice, IMPORTER as i32),
            "HIP-VMM-029"
        );
        ok(self, self.free(h as Handle), "release the handle");
    }
}
