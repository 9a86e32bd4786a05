//! [`Dialect`] over the emulator's ACL table: shareable handles are 64-bit
//! keys with a trustlist, written as hex on the wire.

use std::ffi::c_void;
use std::fmt::{Debug, Display};
use std::os::fd::OwnedFd;
use std::ptr::null_mut;
use std::str::FromStr;

use vmmkit_sys::acl::*;

use super::{Call, Code, Dialect, Handle};

/// The ACL table of the emulator.
#[derive(Clone, Copy)]
pub struct Acl {
    /// The table every call goes through.
    pub api: AclApi,
}

impl Debug for Acl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Acl")
    }
}

/// Turns an ACL return value into a result.
fn rc(code: aclError) -> Result<(), Code> {
    super::rc(code)
}

/// The default properties: HBM huge pages on a device.
pub fn acl_prop(device: u32) -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: ACL_HBM_MEM_HUGE,
        location: aclrtMemLocation { id: device, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        reserve: 0,
    }
}

impl Dialect for Acl {
    const NAME: &'static str = "acl";
    const OUT_OF_MEMORY: Code = 207_001;
    const UNKNOWN_SHAREABLE: Code = 107_017;
    const REFUSED: Code = 507_899;
    const NO_DEVICE: Code = 207_004;
    const GRANULE: usize = 2 << 20;
    const SHAREABLE_HOLDS_MEMORY: bool = false;
    const TEARDOWN_RULE: Option<&'static str> = Some("ACL-IMP-018");
    type Shareable = u64Hex;

    fn function(call: Call) -> Option<&'static str> {
        Some(match call {
            Call::Alloc => "aclrtMallocPhysical",
            Call::Map => "aclrtMapMem",
            Call::Write | Call::Read => "aclrtMemcpy",
            Call::Export => "aclrtMemExportToShareableHandle",
            Call::SetPids => "aclrtMemSetPidToShareableHandle",
            Call::Import => "aclrtMemImportFromShareableHandle",
            Call::Free => "aclrtFreePhysical",
        })
    }

    fn refusal(own_device: bool, unlisted: bool) -> Option<&'static str> {
        if own_device {
            Some("ACL-IMP-009")
        } else if unlisted {
            Some("ACL-IMP-011")
        } else {
            None
        }
    }

    fn to_wire(s: u64Hex) -> (String, Option<OwnedFd>) {
        (s.to_string(), None)
    }

    fn from_wire(text: &str, _fd: Option<OwnedFd>) -> Option<u64Hex> {
        text.parse().ok()
    }

    fn open() -> Self {
        Self { api: vmmkit_emulator::acl::api() }
    }

    fn describe(code: Code) -> String {
        AclError(code as i32).to_string()
    }

    fn last_message(&self) -> String {
        crate::common::last_message(&self.api)
    }

    fn set_device(&self, device: u32) -> Result<(), Code> {
        // SAFETY: plain integer argument.
        rc(unsafe { (self.api.aclrtSetDevice)(device as i32) })
    }

    fn alloc(&self, device: u32, size: usize) -> Result<Handle, Code> {
        let mut h = null_mut();
        // SAFETY: valid out-pointer and property record.
        rc(unsafe { (self.api.aclrtMallocPhysical)(&mut h, size, &acl_prop(device), 0) })?;
        Ok(h as Handle)
    }

    fn free(&self, h: Handle) -> Result<(), Code> {
        // SAFETY: handle values are looked up, never dereferenced.
        rc(unsafe { (self.api.aclrtFreePhysical)(h as aclrtDrvMemHandle) })
    }

    fn reserve(&self, size: usize) -> Result<usize, Code> {
        let mut va = null_mut();
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.aclrtReserveMemAddress)(&mut va, size, 0, null_mut(), 0) })?;
        Ok(va as usize)
    }

    fn release(&self, va: usize) -> Result<(), Code> {
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.aclrtReleaseMemAddress)(va as *mut c_void) })
    }

    fn map(&self, va: usize, size: usize, h: Handle, device: u32) -> Result<(), Code> {
        // SAFETY: addresses and handles are looked up.
        rc(unsafe { (self.api.aclrtMapMem)(va as *mut c_void, size, 0, h as aclrtDrvMemHandle, 0) })?;
        let mut desc = aclrtMemAccessDesc {
            flags: ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
            location: aclrtMemLocation { id: device, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
            rsv: [0; 12],
        };
        // SAFETY: one valid descriptor.
        rc(unsafe { (self.api.aclrtMemSetAccess)(va as *mut c_void, size, &mut desc, 1) })
    }

    fn unmap(&self, va: usize) -> Result<(), Code> {
        // SAFETY: addresses are looked up.
        rc(unsafe { (self.api.aclrtUnmapMem)(va as *mut c_void) })
    }

    fn export(&self, h: Handle, trustlist: bool) -> Result<u64Hex, Code> {
        let mut key = 0u64;
        let flags =
            if trustlist { ACL_RT_VMM_EXPORT_FLAG_DEFAULT } else { ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION };
        // SAFETY: valid out-pointer; handles are looked up.
        rc(unsafe {
            (self.api.aclrtMemExportToShareableHandle)(
                h as aclrtDrvMemHandle,
                ACL_MEM_HANDLE_TYPE_NONE,
                flags,
                &mut key,
            )
        })?;
        Ok(u64Hex(key))
    }

    fn set_pids(&self, s: u64Hex, pids: &[i32]) -> Result<(), Code> {
        let mut pids = pids.to_vec();
        // SAFETY: `pids.len()` valid pids.
        rc(unsafe { (self.api.aclrtMemSetPidToShareableHandle)(s.0, pids.as_mut_ptr(), pids.len()) })
    }

    fn import(&self, s: u64Hex, device: u32) -> Result<Handle, Code> {
        let mut h = null_mut();
        // SAFETY: valid out-pointer.
        rc(unsafe { (self.api.aclrtMemImportFromShareableHandle)(s.0, device as i32, &mut h) })?;
        Ok(h as Handle)
    }

    fn write(&self, va: usize, data: &[u8]) -> Result<(), Code> {
        // SAFETY: `data` is a valid host buffer; the device side is checked by the emulator.
        rc(unsafe {
            (self.api.aclrtMemcpy)(
                va as *mut c_void,
                data.len(),
                data.as_ptr().cast(),
                data.len(),
                ACL_MEMCPY_HOST_TO_DEVICE,
            )
        })
    }

    fn read(&self, va: usize, out: &mut [u8]) -> Result<(), Code> {
        // SAFETY: `out` is a valid host buffer; the device side is checked by the emulator.
        rc(unsafe {
            (self.api.aclrtMemcpy)(
                out.as_mut_ptr().cast(),
                out.len(),
                va as *const c_void,
                out.len(),
                ACL_MEMCPY_DEVICE_TO_HOST,
            )
        })
    }

    fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), Code> {
        // SAFETY: both sides are device addresses, checked by the emulator.
        rc(unsafe {
            (self.api.aclrtMemcpy)(dst as *mut c_void, n, src as *const c_void, n, ACL_MEMCPY_DEVICE_TO_DEVICE)
        })
    }

    fn pid(&self) -> i32 {
        let mut pid = 0;
        // SAFETY: valid out-pointer.
        let r = unsafe { (self.api.aclrtDeviceGetBareTgid)(&mut pid) };
        assert_eq!(r, 0, "aclrtDeviceGetBareTgid");
        pid
    }

    fn used(&self) -> Result<u64, Code> {
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: valid out-pointers.
        rc(unsafe { (self.api.aclrtGetMemInfo)(ACL_HBM_MEM, &mut free, &mut total) })?;
        Ok((total - free) as u64)
    }
}

/// An ACL shareable handle, written as hex on the wire.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct u64Hex(pub u64);

impl Display for u64Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x}", self.0)
    }
}

impl FromStr for u64Hex {
    type Err = std::num::ParseIntError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        u64::from_str_radix(s.trim_start_matches("0x"), 16).map(u64Hex)
    }
}
