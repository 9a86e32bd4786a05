//! The one internal vocabulary the owners call: each operation once, with a
//! `match` over the vendor table that calls the vendor's `result` function
//! ([`crate::acl`], [`crate::hip`], [`crate::cuda`]).
//!
//! Handles, addresses and contexts travel as integers (`u64`, `usize`): an
//! ACL or HIP handle is a pointer value, a CUDA one a `u64`; none is ever
//! dereferenced by this crate, only passed back to the library. An
//! operation a vendor lacks returns [`Error::unsupported`] with the vendor's
//! not-supported code, without calling the library.

use std::ffi::c_void;
use std::fmt;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::{Mutex, MutexGuard};

use vmmkit_sys::acl::{
    ACL_HBM_MEM, ACL_MEM_HANDLE_TYPE_NONE, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ACL_RT_VMM_EXPORT_FLAG_DEFAULT, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, AclApi, AclError,
    aclrtMemAccessDesc,
};
use vmmkit_sys::cuda::{
    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CUipcMemHandle, CUmemAccessDesc, CuResult, CudaApi,
};
use vmmkit_sys::hip::{
    HipApi, HipError, hipIpcMemHandle_t, hipIpcMemLazyEnablePeerAccess, hipMemAccessDesc,
    hipMemAllocationGranularityMinimum, hipMemAllocationGranularityRecommended, hipMemHandleTypePosixFileDescriptor,
    hipMemcpyDeviceToDevice, hipMemcpyDeviceToHost, hipMemcpyHostToDevice,
};

use crate::device::Granularity;
use crate::error::{Code, Error};
use crate::export::Sharing;
use crate::mapping::Access;
use crate::physical::{Location, PhysicalProps};
use crate::{acl, cuda, hip};

/// Which vendor's C API a table speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// Ascend ACL (`libascendcl.so`).
    Acl,
    /// AMD HIP (`libamdhip64.so`).
    Hip,
    /// The CUDA driver API (`libcuda.so.1`).
    Cuda,
}

impl Vendor {
    /// The vendor's name: `ACL`, `HIP`, `CUDA`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Acl => "ACL",
            Self::Hip => "HIP",
            Self::Cuda => "CUDA",
        }
    }

    /// The vendor's code for an operation it does not support.
    pub fn not_supported(self) -> Code {
        match self {
            Self::Acl => AclError::RT_FEATURE_NOT_SUPPORT.into(),
            Self::Hip => HipError::NOT_SUPPORTED.into(),
            Self::Cuda => CuResult::NOT_SUPPORTED.into(),
        }
    }

    /// How memory is shared between processes with this vendor's VMM API.
    pub fn vmm_sharing(self) -> &'static [Sharing] {
        match self {
            Self::Acl => &[Sharing::Trustlist, Sharing::AnyProcess],
            Self::Hip | Self::Cuda => &[Sharing::PosixFd],
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A vendor table (boxed: a table is one pointer per C function, hundreds
/// of them, and is read through a reference on every call).
pub(crate) enum Api {
    Acl(Box<AclApi>),
    Hip(Box<HipApi>),
    Cuda(Box<CudaApi>),
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Api::{}", self.vendor().name())
    }
}

/// The direction of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

fn ptr(v: u64) -> *mut c_void {
    v as usize as *mut c_void
}

impl Api {
    pub(crate) fn vendor(&self) -> Vendor {
        match self {
            Self::Acl(_) => Vendor::Acl,
            Self::Hip(_) => Vendor::Hip,
            Self::Cuda(_) => Vendor::Cuda,
        }
    }

    /// The error for `call` that this vendor cannot do.
    pub(crate) fn unsupported(&self, call: &'static str, why: &'static str) -> Error {
        Error::unsupported(call, self.vendor().not_supported(), why)
    }

    /// Initialises the library for this process; the guard finalises ACL
    /// after its last user (HIP and CUDA have no finalisation).
    pub(crate) fn init(&self) -> Result<InitGuard, Error> {
        match self {
            Self::Acl(a) => InitGuard::acl(a),
            Self::Hip(a) => hip::init(a, 0).map(|()| InitGuard { acl: None }),
            Self::Cuda(a) => cuda::init(a, 0).map(|()| InitGuard { acl: None }),
        }
    }

    pub(crate) fn device_count(&self) -> Result<u32, Error> {
        match self {
            Self::Acl(a) => acl::get_device_count(a),
            Self::Hip(a) => hip::get_device_count(a).map(|n| n.max(0) as u32),
            Self::Cuda(a) => cuda::device_get_count(a).map(|n| n.max(0) as u32),
        }
    }

    /// Opens device `id`: its context (ACL's default, CUDA's primary; HIP has
    /// none), to be given back with [`Api::close_device`].
    pub(crate) fn open_device(&self, id: i32) -> Result<usize, Error> {
        match self {
            Self::Acl(a) => {
                acl::set_device(a, id)?;
                acl::get_current_context(a).map(|c| c as usize).inspect_err(|_| {
                    let _ = acl::reset_device(a, id);
                })
            }
            Self::Hip(a) => hip::set_device(a, id).map(|()| 0),
            Self::Cuda(a) => {
                let d = cuda::device_get(a, id)?;
                cuda::device_primary_ctx_retain(a, d).map(|c| c as usize)
            }
        }
    }

    /// Gives back what [`Api::open_device`] took: ACL resets the device,
    /// CUDA releases the primary context; HIP holds nothing.
    pub(crate) fn close_device(&self, id: i32) -> Result<(), Error> {
        match self {
            Self::Acl(a) => acl::reset_device(a, id),
            Self::Hip(_) => Ok(()),
            Self::Cuda(a) => cuda::device_primary_ctx_release(a, id),
        }
    }

    /// Makes device `id` (context `ctx`) current on the calling thread.
    ///
    /// # Safety
    /// `ctx` must be what [`Api::open_device`] returned for `id`, not closed yet.
    pub(crate) unsafe fn bind(&self, id: i32, ctx: usize) -> Result<(), Error> {
        match self {
            // SAFETY: the caller's contract: a live context.
            Self::Acl(a) => unsafe { acl::set_current_context(a, ctx as *mut c_void) },
            Self::Hip(a) => hip::set_device(a, id),
            // SAFETY: as above.
            Self::Cuda(a) => unsafe { cuda::ctx_set_current(a, ctx as *mut c_void) },
        }
    }

    pub(crate) fn granularity(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        let min = which == Granularity::Minimum;
        match self {
            Self::Acl(a) => {
                let o =
                    if min { ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM } else { ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED };
                acl::mem_get_allocation_granularity(a, &props.to_acl(), o)
            }
            Self::Hip(a) => {
                let o = if min { hipMemAllocationGranularityMinimum } else { hipMemAllocationGranularityRecommended };
                hip::mem_get_allocation_granularity(a, &props.to_hip(), o)
            }
            Self::Cuda(a) => {
                let o = if min { CU_MEM_ALLOC_GRANULARITY_MINIMUM } else { CU_MEM_ALLOC_GRANULARITY_RECOMMENDED };
                cuda::mem_get_allocation_granularity(a, &props.to_cuda(), o)
            }
        }
    }

    /// Free and total bytes of the current device (ACL only: the HIP and
    /// CUDA tables of vmmkit-sys have no memory-info call).
    pub(crate) fn mem_info(&self) -> Result<(usize, usize), Error> {
        match self {
            Self::Acl(a) => acl::get_mem_info(a, ACL_HBM_MEM),
            _ => Err(self.unsupported("Device::mem_info", "the HIP and CUDA tables have no memory-info call")),
        }
    }

    pub(crate) fn alloc(&self, size: usize, props: &PhysicalProps) -> Result<u64, Error> {
        match self {
            Self::Acl(a) => acl::malloc_physical(a, size, &props.to_acl(), 0).map(|h| h as u64),
            Self::Hip(a) => hip::mem_create(a, size, &props.to_hip(), 0).map(|h| h as u64),
            Self::Cuda(a) => cuda::mem_create(a, size, &props.to_cuda(), 0),
        }
    }

    /// # Safety
    /// `handle` holds one reference of this process, given back here.
    pub(crate) unsafe fn free(&self, handle: u64) -> Result<(), Error> {
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe { acl::free_physical(a, ptr(handle)) },
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::mem_release(a, ptr(handle)) },
            // SAFETY: the caller's contract.
            Self::Cuda(a) => unsafe { cuda::mem_release(a, handle) },
        }
    }

    pub(crate) fn reserve(&self, size: usize) -> Result<u64, Error> {
        match self {
            Self::Acl(a) => acl::reserve_mem_address(a, size, 0, None, 0).map(|p| p as u64),
            Self::Hip(a) => hip::mem_address_reserve(a, size, 0, 0, 0).map(|p| p as u64),
            Self::Cuda(a) => cuda::mem_address_reserve(a, size, 0, 0, 0),
        }
    }

    /// # Safety
    /// `va..va+size` is a reservation of ours, with no mapping in use.
    pub(crate) unsafe fn release(&self, va: u64, size: usize) -> Result<(), Error> {
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe { acl::release_mem_address(a, ptr(va)) },
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::mem_address_free(a, ptr(va), size) },
            // SAFETY: the caller's contract.
            Self::Cuda(a) => unsafe { cuda::mem_address_free(a, va, size) },
        }
    }

    /// # Safety
    /// `handle` is live; the library checks the range.
    pub(crate) unsafe fn map(&self, va: u64, size: usize, handle: u64) -> Result<(), Error> {
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe { acl::map_mem(a, ptr(va), size, 0, ptr(handle), 0) },
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::mem_map(a, ptr(va), size, 0, ptr(handle), 0) },
            // SAFETY: the caller's contract.
            Self::Cuda(a) => unsafe { cuda::mem_map(a, va, size, 0, handle, 0) },
        }
    }

    /// # Safety
    /// `va..va+size` is our mapping, not used during or after the call.
    pub(crate) unsafe fn unmap(&self, va: u64, size: usize) -> Result<(), Error> {
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe { acl::unmap_mem(a, ptr(va)) },
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::mem_unmap(a, ptr(va), size) },
            // SAFETY: the caller's contract.
            Self::Cuda(a) => unsafe { cuda::mem_unmap(a, va, size) },
        }
    }

    /// # Safety
    /// `va..va+size` is our live mapping.
    pub(crate) unsafe fn set_access(&self, va: u64, size: usize, loc: Location, access: Access) -> Result<(), Error> {
        let flags = access.flags();
        match self {
            Self::Acl(a) => {
                let d = aclrtMemAccessDesc { flags: flags as _, location: loc.to_acl(), rsv: [0; 12] };
                // SAFETY: the caller's contract.
                unsafe { acl::mem_set_access(a, ptr(va), size, &[d]) }
            }
            Self::Hip(a) => {
                let d = hipMemAccessDesc { location: loc.to_hip(), flags: flags as _ };
                // SAFETY: as above.
                unsafe { hip::mem_set_access(a, ptr(va), size, &[d]) }
            }
            Self::Cuda(a) => {
                let d = CUmemAccessDesc { location: loc.to_cuda(), flags: flags as _ };
                // SAFETY: as above.
                unsafe { cuda::mem_set_access(a, va, size, &[d]) }
            }
        }
    }

    /// # Safety
    /// `va` is a device address of ours.
    pub(crate) unsafe fn get_access(&self, va: u64, loc: Location) -> Result<u64, Error> {
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe { acl::mem_get_access(a, ptr(va), loc.to_acl()) },
            // SAFETY: as above.
            Self::Hip(a) => unsafe { hip::mem_get_access(a, ptr(va), &loc.to_hip()) },
            Self::Cuda(a) => cuda::mem_get_access(a, va, &loc.to_cuda()),
        }
    }

    /// A synchronous copy of `len` bytes; host sides are pointers, device sides addresses.
    ///
    /// # Safety
    /// Host ranges valid for the reads and writes, device ranges mapped by us.
    pub(crate) unsafe fn copy(&self, dst: u64, src: u64, len: usize, dir: Dir) -> Result<(), Error> {
        match self {
            Self::Acl(a) => {
                let kind = match dir {
                    Dir::HostToDevice => ACL_MEMCPY_HOST_TO_DEVICE,
                    Dir::DeviceToHost => ACL_MEMCPY_DEVICE_TO_HOST,
                    Dir::DeviceToDevice => ACL_MEMCPY_DEVICE_TO_DEVICE,
                };
                // SAFETY: the caller's contract.
                unsafe { acl::memcpy(a, ptr(dst), len, ptr(src), len, kind) }
            }
            Self::Hip(a) => {
                let kind = match dir {
                    Dir::HostToDevice => hipMemcpyHostToDevice,
                    Dir::DeviceToHost => hipMemcpyDeviceToHost,
                    Dir::DeviceToDevice => hipMemcpyDeviceToDevice,
                };
                // SAFETY: as above.
                unsafe { hip::memcpy(a, ptr(dst), ptr(src), len, kind) }
            }
            Self::Cuda(a) => match dir {
                // SAFETY: the caller's contract.
                Dir::HostToDevice => unsafe { cuda::memcpy_htod(a, dst, ptr(src), len) },
                // SAFETY: the caller's contract.
                Dir::DeviceToHost => unsafe { cuda::memcpy_dtoh(a, ptr(dst), src, len) },
                // SAFETY: the caller's contract.
                Dir::DeviceToDevice => unsafe { cuda::memcpy_dtod(a, dst, src, len) },
            },
        }
    }

    /// ACL's export to a 64-bit shareable handle.
    ///
    /// # Safety
    /// `handle` is live.
    pub(crate) unsafe fn export_key(&self, handle: u64, sharing: Sharing) -> Result<u64, Error> {
        let flags = match sharing {
            Sharing::Trustlist => ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
            Sharing::AnyProcess => ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
            Sharing::PosixFd => {
                return Err(self.unsupported("PhysicalMemory::export", "ACL shares by 64-bit key, not by fd"));
            }
        };
        match self {
            // SAFETY: the caller's contract.
            Self::Acl(a) => unsafe {
                acl::mem_export_to_shareable_handle(a, ptr(handle), ACL_MEM_HANDLE_TYPE_NONE, flags)
            },
            _ => {
                Err(self.unsupported("PhysicalMemory::export", "HIP and CUDA share VMM memory by POSIX fd, not by key"))
            }
        }
    }

    /// HIP's and CUDA's export to a POSIX fd.
    ///
    /// # Safety
    /// `handle` is live.
    pub(crate) unsafe fn export_fd(&self, handle: u64) -> Result<OwnedFd, Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("PhysicalMemory::export", "ACL shares by 64-bit key, not by fd")),
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::mem_export_to_fd(a, ptr(handle), hipMemHandleTypePosixFileDescriptor, 0) },
            // SAFETY: as above.
            Self::Cuda(a) => unsafe { cuda::mem_export_to_fd(a, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) },
        }
    }

    pub(crate) fn set_pids(&self, key: u64, pids: &[i32]) -> Result<(), Error> {
        match self {
            Self::Acl(a) => acl::mem_set_pid_to_shareable_handle(a, key, pids),
            _ => Err(self.unsupported("Exported::set_pids", "the trustlist is ACL's; an fd is shared by passing it")),
        }
    }

    /// ACL's import by key onto `device` (needs a current context).
    pub(crate) fn import_key(&self, key: u64, device: i32) -> Result<u64, Error> {
        match self {
            Self::Acl(a) => acl::mem_import_from_shareable_handle(a, key, device).map(|h| h as u64),
            _ => Err(self.unsupported("Device::import", "HIP and CUDA import VMM memory from a POSIX fd")),
        }
    }

    /// HIP's and CUDA's import from a POSIX fd onto the current device.
    pub(crate) fn import_fd(&self, fd: BorrowedFd<'_>) -> Result<u64, Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("Device::import_fd", "ACL imports by 64-bit key")),
            Self::Hip(a) => hip::mem_import_from_fd(a, fd, hipMemHandleTypePosixFileDescriptor).map(|h| h as u64),
            Self::Cuda(a) => cuda::mem_import_from_fd(a, fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        }
    }

    /// The pid other processes put in a trustlist for this one.
    pub(crate) fn host_pid(&self) -> Result<i32, Error> {
        match self {
            Self::Acl(a) => acl::device_get_bare_tgid(a),
            _ => Ok(std::process::id() as i32),
        }
    }

    /// Linear device memory on the current device (HIP and CUDA).
    pub(crate) fn malloc(&self, size: usize) -> Result<u64, Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("Device::malloc", "legacy IPC buffers are HIP's and CUDA's")),
            Self::Hip(a) => hip::malloc(a, size).map(|p| p as u64),
            Self::Cuda(a) => cuda::mem_alloc(a, size),
        }
    }

    /// # Safety
    /// `p` came from [`Api::malloc`], is not freed and not in use.
    pub(crate) unsafe fn free_linear(&self, p: u64) -> Result<(), Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("DeviceBuffer::free", "legacy IPC buffers are HIP's and CUDA's")),
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::free(a, ptr(p)) },
            // SAFETY: as above.
            Self::Cuda(a) => unsafe { cuda::mem_free(a, p) },
        }
    }

    /// # Safety
    /// `p` is a device address of ours.
    pub(crate) unsafe fn ipc_get(&self, p: u64) -> Result<[u8; 64], Error> {
        match self {
            Self::Acl(_) => {
                Err(self.unsupported("DeviceBuffer::ipc_handle", "legacy IPC handles are HIP's and CUDA's"))
            }
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::ipc_get_mem_handle(a, ptr(p)) }.map(|h| h.reserved.map(|b| b as u8)),
            Self::Cuda(a) => cuda::ipc_get_mem_handle(a, p).map(|h| h.reserved.map(|b| b as u8)),
        }
    }

    /// Opens a legacy IPC handle on the current device, with lazy peer
    /// access (`hipIpcMemLazyEnablePeerAccess` as the 6.x+ headers define
    /// it, 1; `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, 1), the flag the
    /// vendors' samples pass.
    pub(crate) fn ipc_open(&self, handle: &[u8; 64]) -> Result<u64, Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("Device::open_ipc", "legacy IPC handles are HIP's and CUDA's")),
            Self::Hip(a) => {
                let h = hipIpcMemHandle_t { reserved: handle.map(|b| b as _) };
                hip::ipc_open_mem_handle(a, h, hipIpcMemLazyEnablePeerAccess).map(|p| p as u64)
            }
            Self::Cuda(a) => {
                let h = CUipcMemHandle { reserved: handle.map(|b| b as _) };
                cuda::ipc_open_mem_handle(a, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
            }
        }
    }

    /// # Safety
    /// `p` came from [`Api::ipc_open`], is not closed and not in use.
    pub(crate) unsafe fn ipc_close(&self, p: u64) -> Result<(), Error> {
        match self {
            Self::Acl(_) => Err(self.unsupported("IpcMemory::close", "legacy IPC handles are HIP's and CUDA's")),
            // SAFETY: the caller's contract.
            Self::Hip(a) => unsafe { hip::ipc_close_mem_handle(a, ptr(p)) },
            // SAFETY: as above.
            Self::Cuda(a) => unsafe { cuda::ipc_close_mem_handle(a, p) },
        }
    }
}

/// One initialisation of one ACL library.
#[derive(Debug)]
struct Init {
    /// The address of the library's `aclInit`: tells libraries apart.
    key: usize,
    /// Live runtimes over it.
    users: usize,
    /// Whether our `aclInit` succeeded (else someone else initialised it, and
    /// someone else finalises it).
    ours: bool,
}

/// The ACL libraries that runtimes of this process have initialised.
///
/// Why a global: `aclInit` and `aclFinalize` act on the whole process
/// (ACL-GEN-001: a second `aclInit` fails; ACL-GEN-002: `aclFinalize` tears
/// down everything), so two runtimes over one library must share one
/// initialisation and finalise once, after the last of them. Only
/// [`InitGuard::acl`] and its `Drop` take this lock. (`hipInit` and
/// `cuInit` may be called any number of times and have no finalisation.)
static INITS: Mutex<Vec<Init>> = Mutex::new(Vec::new());

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A runtime's share of its library's initialisation.
#[derive(Debug)]
pub(crate) struct InitGuard {
    /// The ACL table and its key in [`INITS`]; `None` for HIP and CUDA.
    acl: Option<(Box<AclApi>, usize)>,
}

impl InitGuard {
    fn acl(api: &AclApi) -> Result<Self, Error> {
        let key = api.aclInit as usize;
        let mut inits = lock(&INITS);
        if let Some(i) = inits.iter_mut().find(|i| i.key == key) {
            i.users += 1;
            return Ok(Self { acl: Some((Box::new(*api), key)) });
        }
        let ours = match acl::init(api, None) {
            Ok(()) => true,
            // Initialised by the program itself: it finalises too.
            Err(e) if e.code == AclError::REPEAT_INITIALIZE => false,
            Err(e) => return Err(e),
        };
        inits.push(Init { key, users: 1, ours });
        Ok(Self { acl: Some((Box::new(*api), key)) })
    }
}

impl Drop for InitGuard {
    fn drop(&mut self) {
        let Some((api, key)) = &self.acl else { return };
        let key = *key;
        let mut inits = lock(&INITS);
        let Some(at) = inits.iter().position(|i| i.key == key) else { return };
        inits[at].users -= 1;
        if inits[at].users > 0 {
            return;
        }
        let last = inits.swap_remove(at);
        if last.ours
            && let Err(e) = acl::finalize(api)
        {
            tracing::warn!(target: "vmmkit::runtime", "{e}");
        }
    }
}
