//! `PhysicalMemory`: a physical allocation held by this process.

use std::sync::Arc;

use vmmkit_sys::acl::{
    ACL_HBM_MEM_HUGE, ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_LOCATION_TYPE_DEVICE,
    ACL_MEM_LOCATION_TYPE_HOST, aclrtDrvMemHandle, aclrtMemAttr, aclrtMemLocation, aclrtPhysicalMemProp,
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
}

/// What to allocate: where, and (vendor-specific) what kind of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PhysicalProps {
    /// Where the memory lives.
    pub location: Location,
    /// ACL's `memAttr` (acl.md §2.3); `ACL_HBM_MEM_HUGE` by default.
    pub acl_mem_attr: aclrtMemAttr,
}

impl PhysicalProps {
    /// Huge-page HBM on device `id`, as vllm-ascend and torch_npu allocate it.
    pub fn device(id: u32) -> Self {
        Self { location: Location::Device(id), acl_mem_attr: ACL_HBM_MEM_HUGE }
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
}

/// A reference to physical memory: one `aclrtFreePhysical` is owed for it.
#[derive(Debug)]
pub(crate) struct PhysInner {
    /// The device the handle belongs to (for imports: the importing device).
    pub(crate) dev: Device,
    pub(crate) handle: aclrtDrvMemHandle,
    pub(crate) size: usize,
    /// Whether the reference was already given back (by [`PhysicalMemory::free`]).
    freed: bool,
}

// SAFETY: the handle is an opaque, process-wide value (acl.md §2.5: a pointer
// to a driver record of this process, not of a thread) that is only passed to
// ACL calls, which any thread may make; it is never dereferenced here.
unsafe impl Send for PhysInner {}
// SAFETY: as above; `&PhysInner` only hands out copies of the handle.
unsafe impl Sync for PhysInner {}

impl PhysInner {
    pub(crate) fn new(dev: &Device, handle: aclrtDrvMemHandle, size: usize) -> Self {
        Self { dev: dev.clone(), handle, size, freed: false }
    }

    fn free(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.freed, true) {
            return Ok(());
        }
        // SAFETY: this record owns one reference of the handle, given back
        // once (`freed`); mappings of it hold the record, so it is not freed
        // while they still use it.
        unsafe { crate::acl::free_physical(&self.dev.shared().api, self.handle) }
    }
}

impl Drop for PhysInner {
    fn drop(&mut self) {
        if let Err(e) = self.free() {
            self.dev.shared().record(e);
        }
    }
}

/// Physical memory held by this process (`aclrtMallocPhysical`, or an import,
/// see [`crate::Imported`]), given back with `aclrtFreePhysical` on drop.
///
/// Mappings and exports of it keep it: dropping (or [`free`](Self::free)ing)
/// it while they live defers the free to the last of them, so the driver
/// sees unmap before free whatever order the owners are dropped in (acl.md
/// §2.5 would accept the other order too: a freed handle lives while mapped,
/// ACL-FP-002).
#[derive(Debug)]
pub struct PhysicalMemory {
    pub(crate) inner: Arc<PhysInner>,
}

impl PhysicalMemory {
    pub(crate) fn alloc(dev: &Device, size: usize, props: &PhysicalProps) -> Result<Self, Error> {
        let h = crate::acl::malloc_physical(&dev.shared().api, size, &props.to_acl(), 0)?;
        Ok(Self { inner: Arc::new(PhysInner::new(dev, h, size)) })
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// The device the memory belongs to (for imported memory, the importing device).
    pub fn device(&self) -> &Device {
        &self.inner.dev
    }

    /// The raw handle, for calls of [`crate::acl`] (which are `unsafe`: this
    /// owner frees it when dropped).
    pub fn as_raw(&self) -> aclrtDrvMemHandle {
        self.inner.handle
    }

    /// Exports the memory (`aclrtMemExportToShareableHandle`) for other
    /// processes (or other devices of this one) to import. An allocation can
    /// be exported once (ACL-EXP-008), and imported memory not at all
    /// (ACL-EXP-007).
    ///
    /// # Errors
    /// The vendor's code: 507899 for a second export or an imported handle.
    pub fn export(&self, sharing: Sharing) -> Result<Exported, Error> {
        Exported::new(self, sharing)
    }

    /// Gives the memory back now, with the driver's code. If mappings or
    /// exports of it are alive, the free happens when the last of them is
    /// dropped (and an error then is kept by [`crate::Runtime::take_drop_errors`]).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn free(self) -> Result<(), Error> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => inner.free(),
            Err(_still_used) => Ok(()),
        }
    }
}
