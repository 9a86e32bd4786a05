//! `PhysicalMemory`: a physical allocation held by this process.

use std::sync::{Arc, OnceLock};

use vmmkit_sys::acl::{
    ACL_HBM_MEM_HUGE, ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_LOCATION_TYPE_DEVICE,
    ACL_MEM_LOCATION_TYPE_HOST, aclrtMemAttr, aclrtMemLocation, aclrtPhysicalMemProp,
};
use vmmkit_sys::cuda::{
    CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_NONE, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
    CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_HOST, CUmemAllocationProp, CUmemLocation,
};
use vmmkit_sys::hip::{
    hipMemAllocationProp, hipMemAllocationTypePinned, hipMemHandleTypeNone, hipMemHandleTypePosixFileDescriptor,
    hipMemLocation, hipMemLocationTypeDevice, hipMemLocationTypeHost,
};

use crate::device::Device;
use crate::error::Error;
use crate::export::{Exported, Sharing};

/// Where memory lives, or who is granted access to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// Host memory (ACL location HOST, id 0).
    Host,
    /// A device.
    Device(u32),
}

impl Location {
    pub(crate) fn to_acl(self) -> aclrtMemLocation {
        match self {
            Self::Host => aclrtMemLocation { id: 0, type_: ACL_MEM_LOCATION_TYPE_HOST },
            Self::Device(id) => aclrtMemLocation { id, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        }
    }

    pub(crate) fn to_hip(self) -> hipMemLocation {
        match self {
            Self::Host => hipMemLocation { type_: hipMemLocationTypeHost, id: 0 },
            Self::Device(id) => hipMemLocation { type_: hipMemLocationTypeDevice, id: id as i32 },
        }
    }

    pub(crate) fn to_cuda(self) -> CUmemLocation {
        match self {
            Self::Host => CUmemLocation { type_: CU_MEM_LOCATION_TYPE_HOST, id: 0 },
            Self::Device(id) => CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: id as i32 },
        }
    }
}

/// What to allocate: where, and (vendor-specific) what kind of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PhysicalProps {
    /// Where the memory lives.
    pub location: Location,
    /// ACL's `memAttr` (acl.md §2.3); `ACL_HBM_MEM_HUGE` by default. ACL-only.
    pub acl_mem_attr: aclrtMemAttr,
    /// Whether the memory may be exported as a POSIX fd (HIP's and CUDA's
    /// `requestedHandleType(s)` = POSIX_FILE_DESCRIPTOR, which export
    /// requires); `true` by default. Fd-only: ACL exports any allocation.
    pub fd_exportable: bool,
}

impl PhysicalProps {
    /// Memory on device `id`: huge-page HBM on ACL, as vllm-ascend and
    /// torch_npu allocate it; pinned and fd-exportable on HIP and CUDA.
    pub fn device(id: u32) -> Self {
        Self { location: Location::Device(id), acl_mem_attr: ACL_HBM_MEM_HUGE, fd_exportable: true }
    }

    /// The ACL property record (handle type NONE, PINNED, reserve 0).
    pub fn to_acl(&self) -> aclrtPhysicalMemProp {
        aclrtPhysicalMemProp {
            handleType: ACL_MEM_HANDLE_TYPE_NONE,
            allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
            memAttr: self.acl_mem_attr,
            location: self.location.to_acl(),
            reserve: 0,
        }
    }

    /// The HIP property record (pinned; POSIX fd or no handle type).
    pub fn to_hip(&self) -> hipMemAllocationProp {
        hipMemAllocationProp {
            type_: hipMemAllocationTypePinned,
            requestedHandleType: if self.fd_exportable {
                hipMemHandleTypePosixFileDescriptor
            } else {
                hipMemHandleTypeNone
            },
            location: self.location.to_hip(),
            ..Default::default()
        }
    }

    /// The CUDA property record (pinned; POSIX fd or no handle type).
    pub fn to_cuda(&self) -> CUmemAllocationProp {
        CUmemAllocationProp {
            type_: CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: if self.fd_exportable {
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
            } else {
                CU_MEM_HANDLE_TYPE_NONE
            },
            location: self.location.to_cuda(),
            ..Default::default()
        }
    }
}

/// A reference to physical memory shared with mappings and exports: one
/// `aclrtFreePhysical` (`hipMemRelease`, `cuMemRelease`) is owed for it.
///
/// The handle is an opaque, process-wide value (acl.md §2.5: a pointer to a
/// driver record of this process, not of a thread; CUDA's a `u64`), kept as
/// an integer: only passed back to the library, which any thread may call.
#[derive(Debug)]
pub(crate) struct PhysInner {
    /// The device the handle belongs to (for imports: the importing device).
    pub(crate) dev: Device,
    pub(crate) handle: u64,
    pub(crate) size: usize,
    /// Whether the reference was already given back (by [`PhysicalMemory::free`]).
    freed: bool,
}

impl PhysInner {
    fn free(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.freed, true) {
            return Ok(());
        }
        // SAFETY: this record owns one reference of the handle, given back
        // once (`freed`); mappings of it hold the record, so it is not freed
        // while they still use it.
        unsafe { give_back(&self.dev, self.handle) }
    }
}

impl Drop for PhysInner {
    fn drop(&mut self) {
        if let Err(e) = self.free() {
            self.dev.shared().record(e);
        }
    }
}

/// Gives one reference of `handle` back to `dev`'s library.
///
/// # Safety
/// The caller owns that reference, and nothing uses the handle afterwards.
unsafe fn give_back(dev: &Device, handle: u64) -> Result<(), Error> {
    // SAFETY: the caller's contract; a call that fails (no current
    // context) gives nothing back, so a second one is still owed.
    dev.with_ready(|| unsafe { dev.api().free(handle) })
}

/// Physical memory held by this process (`aclrtMallocPhysical`,
/// `hipMemCreate`, `cuMemCreate`, or an import, see [`crate::Imported`]),
/// given back with `aclrtFreePhysical`, `hipMemRelease`, `cuMemRelease` on drop.
///
/// Mappings and exports of it keep it: dropping (or [`free`](Self::free)ing)
/// it while they live defers the free to the last of them, so the driver
/// sees unmap before free whatever order the owners are dropped in (acl.md
/// §2.5 would accept the other order too: a freed handle lives while mapped,
/// ACL-FP-002).
///
/// Until its first mapping or export, the owner holds the reference by
/// itself, without a shared record: memory imported and given back again
/// (a repeated import) costs no allocation.
#[derive(Debug)]
pub struct PhysicalMemory {
    /// The device the handle belongs to (for imports: the importing device).
    dev: Device,
    handle: u64,
    size: usize,
    /// The record the reference moved into at the first mapping or export,
    /// which then owes the free (shared with them); unset until then, when
    /// this owner owes it.
    shared: OnceLock<Arc<PhysInner>>,
    /// Whether [`PhysicalMemory::free`] ran (its `Drop` then has nothing to do).
    freed: bool,
}

impl PhysicalMemory {
    /// The owner of one reference of `handle`, a handle of `dev`.
    pub(crate) fn new(dev: &Device, handle: u64, size: usize) -> Self {
        Self { dev: dev.clone(), handle, size, shared: OnceLock::new(), freed: false }
    }

    pub(crate) fn alloc(dev: &Device, size: usize, props: &PhysicalProps) -> Result<Self, Error> {
        dev.ready()?;
        let h = dev.api().alloc(size, props)?;
        Ok(Self::new(dev, h, size))
    }

    /// The record mappings and exports keep; made at the first of them,
    /// when the reference moves into it.
    pub(crate) fn share(&self) -> Arc<PhysInner> {
        Arc::clone(self.shared.get_or_init(|| {
            Arc::new(PhysInner { dev: self.dev.clone(), handle: self.handle, size: self.size, freed: false })
        }))
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The device the memory belongs to (for imported memory, the importing device).
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// The raw handle as an integer, for calls of [`crate::acl`],
    /// [`crate::hip`] (both: a pointer value, `h as aclrtDrvMemHandle`) or
    /// [`crate::cuda`] (a `CUmemGenericAllocationHandle`). Those calls are
    /// `unsafe`: this owner frees it when dropped.
    pub fn as_raw(&self) -> u64 {
        self.handle
    }

    /// Exports the memory for other processes (or other devices of this
    /// one) to import: ACL to a 64-bit key (`aclrtMemExportToShareableHandle`,
    /// [`Sharing::Trustlist`] or [`Sharing::AnyProcess`]), HIP and CUDA to a
    /// POSIX fd (`hipMemExportToShareableHandle`, `cuMemExportToShareableHandle`,
    /// [`Sharing::PosixFd`]; [`crate::Vendor::vmm_sharing`] says which). On
    /// ACL an allocation can be exported once (ACL-EXP-008), and imported
    /// memory not at all (ACL-EXP-007).
    ///
    /// # Errors
    /// The vendor's code: on ACL 507899 for a second export or an imported
    /// handle. A sharing this vendor lacks is [`Error::is_unsupported`].
    pub fn export(&self, sharing: Sharing) -> Result<Exported, Error> {
        Exported::new(self, sharing)
    }

    /// Gives the memory back now, with the driver's code. If mappings or
    /// exports of it are alive, the free happens when the last of them is
    /// dropped (and an error then is kept by [`crate::Runtime::take_drop_errors`]).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn free(mut self) -> Result<(), Error> {
        self.freed = true;
        match self.shared.take() {
            Some(shared) => match Arc::try_unwrap(shared) {
                Ok(mut inner) => inner.free(),
                Err(_still_used) => Ok(()),
            },
            // SAFETY: this owner owns the reference (nothing shares it), and
            // `freed` keeps its `Drop` from giving it back again.
            None => unsafe { give_back(&self.dev, self.handle) },
        }
    }
}

impl Drop for PhysicalMemory {
    fn drop(&mut self) {
        // Shared: the record gives the reference back when its last holder goes.
        if self.freed || self.shared.get().is_some() {
            return;
        }
        // SAFETY: this owner owns the reference, nothing shares it, and it
        // is dropped once.
        if let Err(e) = unsafe { give_back(&self.dev, self.handle) } {
            self.dev.shared().record(e);
        }
    }
}
