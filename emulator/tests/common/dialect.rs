//! The flows the reliability tests drive (allocate, map, export, trust,
//! import, copy, free), written once against [`Dialect`] so that another
//! vendor table (HIP, CUDA) can be plugged in by implementing it. Only
//! [`Acl`] exists today.
//!
//! A dialect says which of its codes mean the conditions the tests provoke
//! (out of memory, unknown shareable handle, refused import), so the tests
//! assert exact codes without naming a vendor.
//!
//! A shareable handle travels between workers as text ([`Dialect::Shareable`]
//! is `Display + FromStr`). Dialects whose shareable handle is a file
//! descriptor (HIP and CUDA POSIX-fd handles) need an `SCM_RIGHTS` transport
//! in the worker protocol as well; that is not written yet.

use std::ffi::c_void;
use std::fmt::{Debug, Display};
use std::ptr::{null, null_mut};
use std::str::FromStr;

use vmmkit_sys::acl::*;

/// A vendor return code as a number (ACL `aclError`, `hipError_t`, `CUresult`).
pub type Code = i64;

/// A process-local handle to physical memory, as the C ABI passes it.
pub type Handle = usize;

/// One vendor table seen by the reliability tests.
pub trait Dialect: Send + Sync + Sized + 'static {
    /// The dialect's name in reports.
    const NAME: &'static str;
    /// Out of device memory (capacity used up, or the host could not back it).
    const OUT_OF_MEMORY: Code;
    /// A shareable handle that names nothing (never exported, or released).
    const UNKNOWN_SHAREABLE: Code;
    /// An import the driver refuses: not on the trustlist, the exporter
    /// importing onto its own device, or an entry being torn down.
    const REFUSED: Code;
    /// The emulator cannot start (unusable root, bad setting).
    const NO_DEVICE: Code;
    /// Allocation granularity of the default memory kind.
    const GRANULE: usize;

    /// What a shareable handle is on the wire between workers.
    type Shareable: Copy + Debug + Display + FromStr + PartialEq + Send + Sync;

    /// The table of this process.
    fn open() -> Self;
    /// A code with its vendor name, for messages.
    fn describe(code: Code) -> String;
    /// The calling thread's last error message.
    fn last_message(&self) -> String;
    /// Makes `device` current for the calling thread.
    fn set_device(&self, device: u32) -> Result<(), Code>;
    /// Allocates `size` bytes of physical memory on `device`.
    fn alloc(&self, device: u32, size: usize) -> Result<Handle, Code>;
    /// Drops one reference to a handle.
    fn free(&self, h: Handle) -> Result<(), Code>;
    /// Reserves `size` bytes of device address space.
    fn reserve(&self, size: usize) -> Result<usize, Code>;
    /// Releases a reservation.
    fn release(&self, va: usize) -> Result<(), Code>;
    /// Maps all `size` bytes of `h` at `va` and makes them readable and
    /// writable from `device`.
    fn map(&self, va: usize, size: usize, h: Handle, device: u32) -> Result<(), Code>;
    /// Removes the mapping that starts at `va`.
    fn unmap(&self, va: usize) -> Result<(), Code>;
    /// Exports a handle; `trustlist` on means only listed processes may import.
    fn export(&self, h: Handle, trustlist: bool) -> Result<Self::Shareable, Code>;
    /// Adds processes to an exported handle's trustlist.
    fn set_pids(&self, s: Self::Shareable, pids: &[i32]) -> Result<(), Code>;
    /// Imports a shareable handle onto `device`.
    fn import(&self, s: Self::Shareable, device: u32) -> Result<Handle, Code>;
    /// Copies host bytes to device memory.
    fn write(&self, va: usize, data: &[u8]) -> Result<(), Code>;
    /// Copies device memory to host bytes.
    fn read(&self, va: usize, out: &mut [u8]) -> Result<(), Code>;
    /// Copies device memory to device memory.
    fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), Code>;
    /// The pid that trustlists name for this process.
    fn pid(&self) -> i32;
    /// Bytes in use on the current device, as the dialect reports them.
    fn used(&self) -> Result<u64, Code>;
}

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
    if code == 0 { Ok(()) } else { Err(Code::from(code)) }
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
    type Shareable = u64Hex;

    fn open() -> Self {
        Self { api: vmmkit_emulator::acl::api() }
    }

    fn describe(code: Code) -> String {
        AclError(code as i32).to_string()
    }

    fn last_message(&self) -> String {
        super::last_message(&self.api)
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

/// Calls `aclInit` once per process (a repeat is fine).
pub fn acl_init(api: &AclApi) {
    // SAFETY: NULL config path is allowed.
    let r = unsafe { (api.aclInit)(null()) };
    assert!(r == 0 || r == AclError::REPEAT_INITIALIZE.0, "aclInit: {r}");
}

/// A deterministic pattern of `n` bytes for `seed`: a 4 KiB block of a
/// splitmix sequence, repeated with each block's index and the seed mixed
/// into its first word, so every block differs and a swapped, shifted or
/// stale block is noticed. Built with block copies (fast in debug builds).
pub fn pattern(n: usize, seed: u64) -> Vec<u8> {
    const BLOCK: usize = 4096;
    let mut block = [0u8; BLOCK];
    for (i, w) in block.chunks_exact_mut(8).enumerate() {
        w.copy_from_slice(&splitmix(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64).to_le_bytes());
    }
    let mut out = vec![0u8; n];
    for (i, chunk) in out.chunks_mut(BLOCK).enumerate() {
        chunk.copy_from_slice(&block[..chunk.len()]);
        let tag = splitmix(seed ^ (i as u64).wrapping_mul(0xff51_afd7_ed55_8ccd)).to_le_bytes();
        let k = chunk.len().min(8);
        chunk[..k].copy_from_slice(&tag[..k]);
    }
    out
}

/// One step of splitmix64.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A checksum of `data` that notices any changed, swapped or missing 8-byte
/// word (FNV over the words' mix; for reports and the wire, where the data
/// itself cannot travel).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ data.len() as u64;
    let (head, words, tail) = {
        // SAFETY: any bytes are valid u64s; align_to splits off unaligned ends.
        unsafe { data.align_to::<u64>() }
    };
    for &b in head.iter().chain(tail) {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    for (i, &w) in words.iter().enumerate() {
        h = (h ^ w ^ i as u64).wrapping_mul(0x100_0000_01b3).rotate_left(29);
    }
    h
}
