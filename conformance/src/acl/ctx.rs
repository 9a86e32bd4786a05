//! `Ctx`: what an ACL check gets. The table, the rule being checked, setup
//! helpers whose failures read "setup: `<call>` returned `<code>`", peers, and
//! the judging helpers that compare a code with the catalog's.
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;
use vmmkit_sys::vendor;

use super::table::Acl;
use crate::ctx::{Suite, nonzero};
use crate::outcome::Failure;
use crate::pattern;
use crate::peer::Peer;

/// 1 MiB.
pub const MIB: usize = 1 << 20;
/// The granularity of every non-1G attribute (acl.md §2.6).
pub const TWO_MIB: usize = 2 * MIB;
/// The granularity of the 1G attributes.
pub const GIB: usize = 1 << 30;

/// A device address as the checks handle it.
pub type Va = *mut c_void;
/// A process-local physical-memory handle.
pub type Handle = aclrtDrvMemHandle;

/// A mapped allocation made by [`Ctx::alloc_mapped`].
#[derive(Debug, Clone, Copy)]
pub struct Mapped {
    /// Start of the reservation, where the handle is mapped.
    pub va: Va,
    /// The physical handle.
    pub handle: Handle,
    /// Bytes, reservation and allocation alike.
    pub size: usize,
}

/// The property record of the samples: NONE, PINNED, `ACL_HBM_MEM_HUGE`,
/// DEVICE `device`, reserve 0.
pub fn prop(device: u32) -> aclrtPhysicalMemProp {
    prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE, device)
}

/// A property record with `attr` at location (`kind`, `id`).
pub fn prop_with(attr: aclrtMemAttr, kind: aclrtMemLocationType, id: u32) -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: attr,
        location: aclrtMemLocation { id, type_: kind },
        reserve: 0,
    }
}

/// An access descriptor granting READWRITE to device `device`.
pub fn rw_desc(device: u32) -> aclrtMemAccessDesc {
    aclrtMemAccessDesc {
        flags: ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        location: aclrtMemLocation { id: device, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        rsv: [0; 12],
    }
}

/// The context of one ACL check.
pub type Ctx = crate::ctx::Ctx<vendor::Acl>;

impl Suite for vendor::Acl {
    type Table = Acl;

    /// Not the CANN stub (every call 100039), and some device. Asked
    /// without `aclInit`, so rules about initialisation still see a fresh
    /// process.
    fn probe(acl: &Acl) -> Result<(), String> {
        let mut n = 0u32;
        let r = acl.aclrtGetDeviceCount(&mut n);
        if r == AclError::COMPILING_STUB_MODE {
            return Err(format!("the library is the CANN stub: aclrtGetDeviceCount gave {r}"));
        }
        if r == AclError::RT_NO_DEVICE || (r.is_success() && n == 0) {
            return Err(format!("no device: aclrtGetDeviceCount gave {r}, {n} devices"));
        }
        Ok(())
    }

    fn devices(cx: &Ctx) -> Result<u32, Failure> {
        cx.device_count()
    }

    /// The chip family of the SoC name `aclrtGetSocName` reports
    /// ([`Chip::of_soc`](vmmkit_sys::acl::Chip::of_soc)): `"A3"` or
    /// `"910B"`; `None` (the default expectations) for other chips.
    fn profile(acl: &Acl) -> Option<&'static str> {
        acl.soc_name().as_deref().and_then(Chip::of_soc).map(Chip::profile)
    }
}

impl Ctx {
    /// The table.
    pub fn acl(&self) -> Acl {
        self.table()
    }

    // ---- setup ----------------------------------------------------------

    /// `aclInit(NULL)`; 100002 (already initialised) is fine.
    pub fn init(&self) -> Result<(), Failure> {
        let r = self.acl().aclInit(ptr::null());
        if r.is_success() || r == AclError::REPEAT_INITIALIZE {
            Ok(())
        } else {
            Err(Failure::setup("aclInit(NULL)", r))
        }
    }

    /// `aclInit` then `aclrtSetDevice(device)`.
    pub fn device(&self, device: i32) -> Result<(), Failure> {
        self.init()?;
        setup(&format!("aclrtSetDevice({device})"), self.acl().aclrtSetDevice(device))
    }

    /// `aclrtGetDeviceCount`, after `aclInit`.
    pub fn device_count(&self) -> Result<u32, Failure> {
        self.init()?;
        let mut n = 0u32;
        setup("aclrtGetDeviceCount", self.acl().aclrtGetDeviceCount(&mut n))?;
        Ok(n)
    }

    /// Free and total bytes of the current device (`aclrtGetMemInfo(ACL_HBM_MEM)`).
    pub fn mem_info(&self) -> Result<(usize, usize), Failure> {
        let (mut free, mut total) = (0usize, 0usize);
        setup("aclrtGetMemInfo(ACL_HBM_MEM)", self.acl().aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total))?;
        Ok((free, total))
    }

    /// Device 0 made current, and the MINIMUM granularity of [`prop`]`(0)`.
    pub fn granule(&self) -> Result<usize, Failure> {
        self.device(0)?;
        let mut p = prop(0);
        let mut g = 0usize;
        let r = self.acl().aclrtMemGetAllocationGranularity(&mut p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &mut g);
        nonzero::<AclError>("aclrtMemGetAllocationGranularity", r, g)
    }

    /// `aclrtMallocPhysical(size)` with [`prop`]`(0)`.
    pub fn malloc(&self, size: usize) -> Result<Handle, Failure> {
        self.malloc_with(&prop(0), size)
    }

    /// `aclrtMallocPhysical(size)` with `p`.
    pub fn malloc_with(&self, p: &aclrtPhysicalMemProp, size: usize) -> Result<Handle, Failure> {
        let mut h: Handle = ptr::null_mut();
        let step = format!("aclrtMallocPhysical({} MiB, attr {}, location {:?})", size >> 20, p.memAttr, p.location);
        setup(&step, self.acl().aclrtMallocPhysical(&mut h, size, p, 0))?;
        Ok(h)
    }

    /// `aclrtReserveMemAddress(size)`, flags 0, anywhere.
    pub fn reserve(&self, size: usize) -> Result<Va, Failure> {
        let mut va: Va = ptr::null_mut();
        setup(
            &format!("aclrtReserveMemAddress({} MiB)", size >> 20),
            self.acl().aclrtReserveMemAddress(&mut va, size, 0, ptr::null_mut(), 0),
        )?;
        Ok(va)
    }

    /// `aclrtMapMem(va, size, 0, h, 0)`.
    pub fn map(&self, va: Va, size: usize, h: Handle) -> Result<(), Failure> {
        setup(&format!("aclrtMapMem({} MiB)", size >> 20), self.acl().aclrtMapMem(va, size, 0, h, 0))
    }

    /// Device 0, then reserve, allocate and map `size` bytes.
    pub fn alloc_mapped(&self, size: usize) -> Result<Mapped, Failure> {
        self.device(0)?;
        let va = self.reserve(size)?;
        let handle = self.malloc(size)?;
        self.map(va, size, handle)?;
        Ok(Mapped { va, handle, size })
    }

    /// Writes `len` bytes of the pattern `seed` at `va` (`aclrtMemcpy` host to device).
    pub fn write(&self, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = pattern::fill(seed, len);
        let r = self.acl().aclrtMemcpy(va, len, data.as_ptr().cast(), len, ACL_MEMCPY_HOST_TO_DEVICE);
        setup("aclrtMemcpy(host to device)", r)
    }

    /// Reads `len` bytes at `va` (`aclrtMemcpy` device to host).
    pub fn read(&self, va: Va, len: usize) -> Result<Vec<u8>, Failure> {
        let mut data = vec![0u8; len];
        let r = self.acl().aclrtMemcpy(data.as_mut_ptr().cast(), len, va.cast_const(), len, ACL_MEMCPY_DEVICE_TO_HOST);
        setup("aclrtMemcpy(device to host)", r)?;
        Ok(data)
    }

    /// Reads `len` bytes at `va` and checks they are the pattern `seed`.
    ///
    /// # Errors
    /// A mismatch names the first differing byte.
    pub fn verify(&self, step: &str, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = self.read(va, len)?;
        self.expect_pattern(step, seed, &data)
    }

    /// `aclrtMemExportToShareableHandle(h, NONE, flags)`.
    pub fn export(&self, h: Handle, flags: u64) -> Result<u64, Failure> {
        let mut sh = 0u64;
        setup(
            &format!("aclrtMemExportToShareableHandle(flags {flags})"),
            self.acl().aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut sh),
        )?;
        Ok(sh)
    }

    /// `aclrtMemSetPidToShareableHandle(sh, pids)`.
    pub fn set_pids(&self, sh: u64, pids: &[i32]) -> Result<(), Failure> {
        let mut p = pids.to_vec();
        setup(
            &format!("aclrtMemSetPidToShareableHandle({pids:?})"),
            self.acl().aclrtMemSetPidToShareableHandle(sh, p.as_mut_ptr(), p.len()),
        )
    }

    /// `aclrtUnmapMem`, `aclrtReleaseMemAddress` and `aclrtFreePhysical` of `m`.
    pub fn teardown(&self, m: Mapped) -> Result<(), Failure> {
        setup("aclrtUnmapMem", self.acl().aclrtUnmapMem(m.va))?;
        setup("aclrtReleaseMemAddress", self.acl().aclrtReleaseMemAddress(m.va))?;
        setup("aclrtFreePhysical", self.acl().aclrtFreePhysical(m.handle))
    }

    /// A peer process, started on device 0 (`aclInit`, `aclrtSetDevice(0)`).
    pub fn peer(&self, name: &str) -> Result<Peer, Failure> {
        let mut p = Peer::spawn(self.launcher(), name)?;
        p.start(Some(0))?;
        Ok(p)
    }

    // ---- judging --------------------------------------------------------
}

/// `Ok` for success, else a setup failure for `call`.
pub fn setup(call: &str, r: AclError) -> Result<(), Failure> {
    crate::ctx::setup::<AclError>(call, r)
}
