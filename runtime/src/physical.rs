//! `PhysicalMemory`: a physical allocation held by this process.

use std::sync::{Arc, OnceLock};

use crate::device::Device;
use crate::error::Error;
use crate::types::PhysicalProps;

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
/// [ACL-FP-002](vmmkit_sys::acl::rules::FP_002)).
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

impl Device {
    /// Allocates `size` bytes of physical memory on this device
    /// (`aclrtMallocPhysical`, HBM with huge pages; `hipMemCreate`,
    /// `cuMemCreate`, pinned, exportable as a POSIX fd). `size` must be a
    /// multiple of the granularity.
    ///
    /// # Errors
    /// The vendor's code: on ACL 507899 for a size that is not a multiple of 2 MiB
    /// ([ACL-MP-013](vmmkit_sys::acl::rules::MP_013)), 207001 when the device is full ([ACL-MP-015](vmmkit_sys::acl::rules::MP_015)).
    pub fn alloc_physical(&self, size: usize) -> Result<PhysicalMemory, Error> {
        self.alloc_physical_with(size, &PhysicalProps::device(self.id()))
    }

    /// Allocates physical memory with other properties (e.g. on the host).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn alloc_physical_with(&self, size: usize, props: &PhysicalProps) -> Result<PhysicalMemory, Error> {
        PhysicalMemory::alloc(self, size, props)
    }
}
