//! [`Dialect`] over the emulator's HIP table: VMM memory (`hipMemCreate`
//! with `requestedHandleType` PosixFileDescriptor) shared as POSIX fds
//! (hip.md HIP-VMM-024 … 031). No trustlist; the exporter may import its
//! own fd (HIP-VMM-028).

use std::ffi::c_void;
use std::fmt::Debug;
use std::os::fd::OwnedFd;
use std::ptr::null_mut;

use vmmkit_sys::hip::*;

use super::{Call, Code, Dialect, FdShareable, Handle, Ranges, rc};

/// The HIP table of the emulator, and the sizes of the ranges it made.
#[derive(Clone)]
pub struct Hip {
    /// The table every call goes through.
    pub api: HipApi,
    ranges: Ranges,
}

impl Debug for Hip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hip")
    }
}

impl Hip {
    fn memcpy(&self, dst: usize, src: usize, n: usize, kind: hipMemcpyKind) -> Result<(), Code> {
        // SAFETY: host sides are valid buffers of `n` bytes; device sides are looked up.
        rc(unsafe { (self.api.hipMemcpy)(dst as *mut c_void, src as *const c_void, n, kind) })
    }
}

impl Dialect for Hip {
    const NAME: &'static str = "hip";
    const OUT_OF_MEMORY: Code = 2;
    const UNKNOWN_SHAREABLE: Code = 1;
    const REFUSED: Code = 1;
    const NO_DEVICE: Code = 101;
    const GRANULE: usize = 4096;
    const SHAREABLE_HOLDS_MEMORY: bool = true;
    const TEARDOWN_RULE: Option<&'static str> = None;
    type Shareable = FdShareable;

    fn function(call: Call) -> Option<&'static str> {
        Some(match call {
            Call::Alloc => "hipMemCreate",
            Call::Map => "hipMemMap",
            Call::Write | Call::Read => "hipMemcpy",
            Call::Export => "hipMemExportToShareableHandle",
            Call::SetPids => return None,
            Call::Import => "hipMemImportFromShareableHandle",
            Call::Free => "hipMemRelease",
        })
    }

    fn refusal(_own_device: bool, _unlisted: bool) -> Option<&'static str> {
        None // HIP-VMM-028: even the exporter may import its own fd; no trustlist
    }

    fn to_wire(s: FdShareable) -> (String, Option<OwnedFd>) {
        s.into_wire()
    }

    fn from_wire(_text: &str, fd: Option<OwnedFd>) -> Option<FdShareable> {
        fd.map(FdShareable)
    }

    fn open() -> Self {
        Self { api: vmmkit_emulator::hip::api(), ranges: Ranges::default() }
    }

    fn describe(code: Code) -> String {
        HipError(code as i32).to_string()
    }

    fn last_message(&self) -> String {
        vmmkit_emulator::core::thread::message()
    }

    fn set_device(&self, device: u32) -> Result<(), Code> {
        // SAFETY: plain integer argument.
        rc(unsafe { (self.api.hipSetDevice)(device as i32) })
    }

    fn alloc(&self, device: u32, size: usize) -> Result<Handle, Code> {
        let prop = hipMemAllocationProp {
            type_: hipMemAllocationTypePinned,
            requestedHandleType: hipMemHandleTypePosixFileDescriptor,
            location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device as i32 },
            ..Default::default()
        };
        let mut h = null_mut();
        // SAFETY: valid out-pointer and property record.
        rc(unsafe { (self.api.hipMemCreate)(&mut h, size, &prop, 0) })?;
        Ok(h as Handle)
    }

    fn free(&self, h: Handle) -> Result<(), Code> {
        // SAFETY: handle values are looked up, never dereferenced.
        rc(unsafe { (self.api.hipMemRelease)(h as hipMemGenericAllocationHandle_t) })
    }

    fn reserve(&self, size: usize) -> Result<usize, Code> {
        let mut va = null_mut();
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.hipMemAddressReserve)(&mut va, size, 0, null_mut(), 0) })?;
        self.ranges.note(Ranges::RESERVED, va as usize, size);
        Ok(va as usize)
    }

    fn release(&self, va: usize) -> Result<(), Code> {
        // Taken out before the call: once `va` is freed, another thread may
        // get it and note a range of its own there.
        let size = self.ranges.take(Ranges::RESERVED, va);
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.hipMemAddressFree)(va as *mut c_void, size) })
            .inspect_err(|_| self.ranges.note(Ranges::RESERVED, va, size))
    }

    fn map(&self, va: usize, size: usize, h: Handle, device: u32) -> Result<(), Code> {
        // SAFETY: addresses and handles are looked up.
        rc(unsafe { (self.api.hipMemMap)(va as *mut c_void, size, 0, h as hipMemGenericAllocationHandle_t, 0) })?;
        self.ranges.note(Ranges::MAPPED, va, size);
        let desc = hipMemAccessDesc {
            location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device as i32 },
            flags: hipMemAccessFlagsProtReadWrite,
        };
        // SAFETY: one valid descriptor.
        rc(unsafe { (self.api.hipMemSetAccess)(va as *mut c_void, size, &desc, 1) })
    }

    fn unmap(&self, va: usize) -> Result<(), Code> {
        // Taken out before the call: once `va` is freed, another thread may
        // get it and note a range of its own there.
        let size = self.ranges.take(Ranges::MAPPED, va);
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.hipMemUnmap)(va as *mut c_void, size) })
            .inspect_err(|_| self.ranges.note(Ranges::MAPPED, va, size))
    }

    fn export(&self, h: Handle, _trustlist: bool) -> Result<FdShareable, Code> {
        let mut fd = -1i32;
        // SAFETY: room for the int fd (HIP-VMM-025); handles are looked up.
        rc(unsafe {
            (self.api.hipMemExportToShareableHandle)(
                (&raw mut fd).cast(),
                h as hipMemGenericAllocationHandle_t,
                hipMemHandleTypePosixFileDescriptor,
                0,
            )
        })?;
        Ok(FdShareable::adopt(fd))
    }

    fn set_pids(&self, _s: FdShareable, _pids: &[i32]) -> Result<(), Code> {
        unreachable!("HIP has no trustlist")
    }

    fn import(&self, s: FdShareable, device: u32) -> Result<Handle, Code> {
        // HIP-VMM-029: the handle belongs to the current device.
        self.set_device(device)?;
        let mut h = null_mut();
        // SAFETY: valid out-pointer; HIP-VMM-026: the fd value cast to a pointer (below 2^20).
        rc(unsafe {
            (self.api.hipMemImportFromShareableHandle)(
                &mut h,
                s.value() as usize as *mut c_void,
                hipMemHandleTypePosixFileDescriptor,
            )
        })?;
        Ok(h as Handle)
    }

    fn write(&self, va: usize, data: &[u8]) -> Result<(), Code> {
        self.memcpy(va, data.as_ptr() as usize, data.len(), hipMemcpyHostToDevice)
    }

    fn read(&self, va: usize, out: &mut [u8]) -> Result<(), Code> {
        self.memcpy(out.as_mut_ptr() as usize, va, out.len(), hipMemcpyDeviceToHost)
    }

    fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), Code> {
        self.memcpy(dst, src, n, hipMemcpyDeviceToDevice)
    }

    fn pid(&self) -> i32 {
        std::process::id() as i32
    }
}
