//! The operations the benches measure, in a vendor-neutral vocabulary, and
//! their implementation over an ACL table (the emulator's or a real
//! `libascendcl.so`), through the runtime's result layer ([`vmmkit_runtime::acl`]).
//!
//! The vocabulary is what ACL, HIP and CUDA share: allocate physical memory,
//! reserve device addresses, map one into the other and grant access,
//! export and import, copy. Handles and addresses travel as tokens
//! ([`Mem`], [`Va`], [`Mapped`]) that only a backend makes and that the
//! calls giving them back consume, so bench code cannot free a handle twice
//! or pass another backend's: that is what lets these methods be safe while
//! the result layer's calls on raw handles are `unsafe`.
//!
//! HIP and CUDA: vmmkit-sys has their tables, but the runtime's safe paths
//! for them do not exist yet; [`open`] reports them as not supported. A HIP
//! or CUDA implementation of [`Vmm`] maps one to one (`hipMemCreate`,
//! `hipMemAddressReserve`, `hipMemMap`, `hipMemSetAccess`, `hipMemUnmap`,
//! `hipMemExportToShareableHandle`, `hipMemcpy`), except the shareable
//! handle: a POSIX fd, not a 64-bit key, which the peer protocol would carry
//! with `SCM_RIGHTS` instead of in the message.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use vmmkit_runtime::acl::{self, AclApi};
use vmmkit_runtime::{Device, PhysicalProps, Runtime, Sharing};
use vmmkit_sys::acl::{
    ACL_MEM_HANDLE_TYPE_NONE, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_RT_MEM_ACCESS_FLAGS_READWRITE, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
    ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, aclrtMemAccessDesc, aclrtMemLocation, aclrtPhysicalMemProp,
};

use crate::error::{BenchError, Result};

/// Tells backends apart, so that a token is only given back to the backend that made it.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// Physical memory held by this process: one free is owed for it.
#[derive(Debug)]
#[must_use = "physical memory must be given back with Vmm::free"]
pub struct Mem {
    owner: u64,
    raw: *mut c_void,
    size: usize,
}

impl Mem {
    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// Reserved device addresses: one release is owed for them.
#[derive(Debug)]
#[must_use = "a reservation must be given back with Vmm::release"]
pub struct Va {
    owner: u64,
    base: *mut c_void,
    size: usize,
}

impl Va {
    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// A mapping of physical memory at device addresses: one unmap is owed for it.
#[derive(Debug)]
#[must_use = "a mapping must be given back with Vmm::unmap"]
pub struct Mapped {
    owner: u64,
    addr: *mut c_void,
    size: usize,
}

impl Mapped {
    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// A shareable handle, as sent to another process (ACL: the 64-bit key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shareable(pub u64);

/// The operations the benches measure. Every method is one driver call
/// unless its documentation says otherwise.
pub trait Vmm {
    /// The backend's name as bench ids show it (`emulator`, `ascend`).
    fn name(&self) -> &str;

    /// Devices of the backend.
    ///
    /// # Errors
    /// The driver's code.
    fn device_count(&self) -> Result<u32>;

    /// The minimum granularity of device memory on device 0.
    ///
    /// # Errors
    /// The driver's code.
    fn granularity(&self) -> Result<usize>;

    /// Allocates `size` bytes of physical memory on `device`.
    ///
    /// # Errors
    /// The driver's code.
    fn alloc(&self, device: u32, size: usize) -> Result<Mem>;

    /// Gives physical memory back.
    ///
    /// # Errors
    /// The driver's code.
    fn free(&self, mem: Mem) -> Result<()>;

    /// Reserves `size` bytes of device addresses.
    ///
    /// # Errors
    /// The driver's code.
    fn reserve(&self, size: usize) -> Result<Va>;

    /// Releases a reservation (with nothing mapped in it).
    ///
    /// # Errors
    /// The driver's code.
    fn release(&self, va: Va) -> Result<()>;

    /// Maps all of `mem` at the start of `va`.
    ///
    /// # Errors
    /// The driver's code.
    fn map(&self, va: &Va, mem: &Mem) -> Result<Mapped>;

    /// Grants `device` read-write access to the whole mapping.
    ///
    /// # Errors
    /// The driver's code.
    fn set_access(&self, m: &Mapped, device: u32) -> Result<()>;

    /// Unmaps (the reservation stays).
    ///
    /// # Errors
    /// The driver's code.
    fn unmap(&self, m: Mapped) -> Result<()>;

    /// Exports memory for other processes.
    ///
    /// # Errors
    /// The driver's code.
    fn export(&self, mem: &Mem, sharing: Sharing) -> Result<Shareable>;

    /// Adds host pids to the trustlist of an export.
    ///
    /// # Errors
    /// The driver's code.
    fn allow(&self, s: Shareable, pids: &[i32]) -> Result<()>;

    /// Imports `size` bytes exported as `s` onto `device`.
    ///
    /// # Errors
    /// The driver's code.
    fn import(&self, s: Shareable, device: u32, size: usize) -> Result<Mem>;

    /// Host to device: copies `src` to the mapping at `offset`.
    ///
    /// # Errors
    /// The driver's code, or [`BenchError::Check`] for a range outside the mapping.
    fn write(&self, dst: &Mapped, offset: usize, src: &[u8]) -> Result<()>;

    /// Device to host: copies from the mapping at `offset` into `dst`.
    ///
    /// # Errors
    /// As [`Vmm::write`].
    fn read(&self, src: &Mapped, offset: usize, dst: &mut [u8]) -> Result<()>;

    /// Device to device: copies the first `len` bytes of `src` to `dst`.
    ///
    /// # Errors
    /// As [`Vmm::write`].
    fn copy(&self, dst: &Mapped, src: &Mapped, len: usize) -> Result<()>;

    /// The host pid other processes put in a trustlist for this one.
    ///
    /// # Errors
    /// The driver's code.
    fn host_pid(&self) -> Result<i32>;

    /// The cheapest call there is (ACL: `aclrtGetDevice`), for the cost of
    /// a call through the table.
    ///
    /// # Errors
    /// The driver's code.
    fn cheap_call(&self) -> Result<()>;

    /// The ACL table, when the backend is one (for benches of single calls).
    fn acl_api(&self) -> Option<&AclApi>;
}

/// Opens the backend that `VMMKIT_BACKEND` names, or that the runtime's
/// selection picks ([`Runtime::auto`]: a real ACL library with a device,
/// else the emulator), with devices 0 and (if there is one) 1 open and
/// device 0 current on the calling thread.
///
/// # Errors
/// [`BenchError::Unsupported`] for HIP and CUDA (no safe runtime path yet),
/// or the failure to open the library.
pub fn open() -> Result<Box<dyn Vmm>> {
    Ok(Box::new(AclVmm::open(Runtime::auto()?)?))
}

/// [`Vmm`] over an ACL table.
#[derive(Debug)]
pub struct AclVmm {
    rt: Runtime,
    /// The runtime's ACL table (checked at open).
    api: AclApi,
    name: String,
    owner: u64,
    /// Devices kept open (set) for the benches' lifetime; device 0 first.
    devices: Vec<Device>,
}

impl AclVmm {
    /// Opens devices 0 and 1 (when there are two) of `rt`, device 0 current.
    ///
    /// # Errors
    /// The driver's code.
    pub fn open(rt: Runtime) -> Result<Self> {
        let Some(&api) = rt.acl_api() else {
            return Err(BenchError::Unsupported(format!("{}: these benches drive ACL tables only", rt.backend())));
        };
        let n = rt.device_count()?;
        if n == 0 {
            return Err(BenchError::Unsupported(format!("{}: no device", rt.backend())));
        }
        let devices = (0..n.min(2)).map(|d| rt.device(d)).collect::<Result<Vec<_>, _>>()?;
        devices[0].bind()?;
        let name = rt.backend().name().to_owned();
        Ok(Self { rt, api, name, owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed), devices })
    }

    fn api(&self) -> &AclApi {
        &self.api
    }

    fn props(device: u32) -> aclrtPhysicalMemProp {
        PhysicalProps::device(device).to_acl()
    }

    fn mine(&self, owner: u64, what: &str) -> Result<()> {
        if owner == self.owner { Ok(()) } else { Err(BenchError::Check(format!("{what} of another backend instance"))) }
    }

    fn fits(m: &Mapped, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_some_and(|e| e <= m.size) {
            Ok(())
        } else {
            Err(BenchError::Check(format!("{len} bytes at {offset:#x} do not fit in a mapping of {:#x}", m.size)))
        }
    }
}

impl Vmm for AclVmm {
    fn name(&self) -> &str {
        &self.name
    }

    fn device_count(&self) -> Result<u32> {
        Ok(self.rt.device_count()?)
    }

    fn granularity(&self) -> Result<usize> {
        Ok(acl::mem_get_allocation_granularity(self.api(), &Self::props(0), ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM)?)
    }

    fn alloc(&self, device: u32, size: usize) -> Result<Mem> {
        let raw = acl::malloc_physical(self.api(), size, &Self::props(device), 0)?;
        Ok(Mem { owner: self.owner, raw, size })
    }

    fn free(&self, mem: Mem) -> Result<()> {
        self.mine(mem.owner, "memory")?;
        // SAFETY: `mem` was made by this backend (checked) from a malloc or
        // an import, and is consumed here, so the handle is given back once.
        Ok(unsafe { acl::free_physical(self.api(), mem.raw) }?)
    }

    fn reserve(&self, size: usize) -> Result<Va> {
        let base = acl::reserve_mem_address(self.api(), size, 0, None, 0)?;
        Ok(Va { owner: self.owner, base, size })
    }

    fn release(&self, va: Va) -> Result<()> {
        self.mine(va.owner, "reservation")?;
        // SAFETY: `va` starts a reservation of this backend (checked), consumed here.
        Ok(unsafe { acl::release_mem_address(self.api(), va.base) }?)
    }

    fn map(&self, va: &Va, mem: &Mem) -> Result<Mapped> {
        self.mine(va.owner, "reservation")?;
        self.mine(mem.owner, "memory")?;
        // SAFETY: `mem` holds a live reference of this backend (it is freed
        // only by consuming it); the driver checks the range.
        unsafe { acl::map_mem(self.api(), va.base, mem.size, 0, mem.raw, 0) }?;
        Ok(Mapped { owner: self.owner, addr: va.base, size: mem.size })
    }

    fn set_access(&self, m: &Mapped, device: u32) -> Result<()> {
        self.mine(m.owner, "mapping")?;
        let desc = aclrtMemAccessDesc {
            flags: ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
            location: aclrtMemLocation { id: device, type_: vmmkit_sys::acl::ACL_MEM_LOCATION_TYPE_DEVICE },
            rsv: [0; 12],
        };
        // SAFETY: `m` is a live mapping of this backend (unmapped only by consuming it).
        Ok(unsafe { acl::mem_set_access(self.api(), m.addr, m.size, &[desc]) }?)
    }

    fn unmap(&self, m: Mapped) -> Result<()> {
        self.mine(m.owner, "mapping")?;
        // SAFETY: `m` starts a live mapping of this backend, consumed here;
        // bench code copies through it only while holding it.
        Ok(unsafe { acl::unmap_mem(self.api(), m.addr) }?)
    }

    fn export(&self, mem: &Mem, sharing: Sharing) -> Result<Shareable> {
        self.mine(mem.owner, "memory")?;
        let flags = match sharing {
            Sharing::Trustlist => ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
            Sharing::AnyProcess => ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
            Sharing::PosixFd => return Err(BenchError::Unsupported("ACL shares by key, not by fd".into())),
        };
        // SAFETY: `mem` holds a live reference of this backend.
        let key = unsafe { acl::mem_export_to_shareable_handle(self.api(), mem.raw, ACL_MEM_HANDLE_TYPE_NONE, flags) }?;
        Ok(Shareable(key))
    }

    fn allow(&self, s: Shareable, pids: &[i32]) -> Result<()> {
        Ok(acl::mem_set_pid_to_shareable_handle(self.api(), s.0, pids)?)
    }

    fn import(&self, s: Shareable, device: u32, size: usize) -> Result<Mem> {
        let device = i32::try_from(device).map_err(|_| BenchError::Check(format!("device {device}")))?;
        let raw = acl::mem_import_from_shareable_handle(self.api(), s.0, device)?;
        Ok(Mem { owner: self.owner, raw, size })
    }

    fn write(&self, dst: &Mapped, offset: usize, src: &[u8]) -> Result<()> {
        self.mine(dst.owner, "mapping")?;
        Self::fits(dst, offset, src.len())?;
        let d = dst.addr.wrapping_byte_add(offset);
        // SAFETY: the destination lies in a live mapping (checked), the source is `src`.
        let r = unsafe {
            acl::memcpy(self.api(), d, dst.size - offset, src.as_ptr().cast(), src.len(), ACL_MEMCPY_HOST_TO_DEVICE)
        };
        Ok(r?)
    }

    fn read(&self, src: &Mapped, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.mine(src.owner, "mapping")?;
        Self::fits(src, offset, dst.len())?;
        let s = src.addr.wrapping_byte_add(offset);
        // SAFETY: the source lies in a live mapping (checked), the destination is `dst`.
        let r = unsafe {
            acl::memcpy(self.api(), dst.as_mut_ptr().cast(), dst.len(), s, dst.len(), ACL_MEMCPY_DEVICE_TO_HOST)
        };
        Ok(r?)
    }

    fn copy(&self, dst: &Mapped, src: &Mapped, len: usize) -> Result<()> {
        self.mine(dst.owner, "mapping")?;
        self.mine(src.owner, "mapping")?;
        Self::fits(dst, 0, len)?;
        Self::fits(src, 0, len)?;
        // SAFETY: both ranges lie in live mappings (checked).
        let r = unsafe { acl::memcpy(self.api(), dst.addr, dst.size, src.addr, len, ACL_MEMCPY_DEVICE_TO_DEVICE) };
        Ok(r?)
    }

    fn host_pid(&self) -> Result<i32> {
        Ok(self.rt.host_pid()?)
    }

    fn cheap_call(&self) -> Result<()> {
        acl::get_device(self.api())?;
        Ok(())
    }

    fn acl_api(&self) -> Option<&AclApi> {
        Some(self.api())
    }
}

impl Drop for AclVmm {
    fn drop(&mut self) {
        // Devices reset (releasing anything a failed bench left) before the runtime finalises.
        self.devices.clear();
    }
}
