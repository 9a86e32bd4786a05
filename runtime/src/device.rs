//! `Device`: an opened device and its default context.

use std::sync::Arc;

use vmmkit_sys::acl::{ACL_HBM_MEM, aclrtContext};

use crate::error::Error;
use crate::import::Imported;
use crate::physical::{PhysicalMemory, PhysicalProps};
use crate::reservation::Reservation;
use crate::runtime::{Runtime, Shared};

/// Which granularity to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// The smallest size and alignment the driver accepts.
    Minimum,
    /// The one it recommends for performance.
    Recommended,
}

/// Free and total device memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemInfo {
    /// Bytes free.
    pub free: usize,
    /// Bytes in all.
    pub total: usize,
}

/// A device, opened with `aclrtSetDevice` and reset (`aclrtResetDevice`)
/// when the last clone and the last owner made from it are gone. The reset
/// is reference-counted by the runtime: the last one of the process
/// releases all of its memory on the device, raw handles included.
///
/// Cloning is cheap. Calls that need a current context (copies, imports)
/// make this device's context current on the calling thread first, so a
/// device may be used from any thread.
#[derive(Debug, Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

#[derive(Debug)]
pub(crate) struct DeviceInner {
    pub(crate) rt: Arc<Shared>,
    id: u32,
    /// The default context `aclrtSetDevice` made.
    ctx: aclrtContext,
}

// SAFETY: `ctx` is an opaque, process-wide value that is only passed back to
// `aclrtSetCurrentContext`, which any thread may call; the rest is `Send`.
unsafe impl Send for DeviceInner {}
// SAFETY: as above; `&DeviceInner` only hands out copies of `ctx` and `id`.
unsafe impl Sync for DeviceInner {}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        if let Err(e) = crate::acl::reset_device(&self.rt.api, self.id as i32) {
            self.rt.record(e);
        }
    }
}

impl Device {
    pub(crate) fn open(rt: &Runtime, id: u32) -> Result<Self, Error> {
        let api = rt.api();
        // An id beyond i32 is not a device; the driver says so with its code (107001).
        let raw = i32::try_from(id).unwrap_or(i32::MAX);
        crate::acl::set_device(api, raw)?;
        match crate::acl::get_current_context(api) {
            Ok(ctx) => Ok(Self { inner: Arc::new(DeviceInner { rt: rt.shared.clone(), id, ctx }) }),
            Err(e) => {
                let _ = crate::acl::reset_device(api, raw);
                Err(e)
            }
        }
    }

    /// The device id.
    pub fn id(&self) -> u32 {
        self.inner.id
    }

    /// The runtime it belongs to.
    pub fn runtime(&self) -> Runtime {
        Runtime { shared: self.inner.rt.clone() }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.inner.rt
    }

    /// Makes this device's context current on the calling thread
    /// (`aclrtSetCurrentContext`), as its calls that need one do by themselves.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn bind(&self) -> Result<(), Error> {
        // SAFETY: `ctx` is the live default context of this device: the device
        // is reset only when `DeviceInner` drops, and `self` keeps it.
        unsafe { crate::acl::set_current_context(&self.shared().api, self.inner.ctx) }
    }

    /// The granularity of physical memory on this device (ACL: 2 MiB for
    /// the default properties, ACL-GRAN-009). Sizes and addresses of maps
    /// must be multiples of it.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn granularity(&self, which: Granularity) -> Result<usize, Error> {
        self.granularity_for(&PhysicalProps::device(self.id()), which)
    }

    /// The granularity for other properties.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn granularity_for(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        let option = match which {
            Granularity::Minimum => vmmkit_sys::acl::ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
            Granularity::Recommended => vmmkit_sys::acl::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
        };
        crate::acl::mem_get_allocation_granularity(&self.shared().api, &props.to_acl(), option)
    }

    /// Free and total memory of this device (`aclrtGetMemInfo(ACL_HBM_MEM)`).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn mem_info(&self) -> Result<MemInfo, Error> {
        self.bind()?;
        let (free, total) = crate::acl::get_mem_info(&self.shared().api, ACL_HBM_MEM)?;
        Ok(MemInfo { free, total })
    }

    /// Allocates `size` bytes of physical memory on this device
    /// (`aclrtMallocPhysical`, HBM with huge pages). `size` must be a
    /// multiple of the granularity.
    ///
    /// # Errors
    /// The vendor's code: 507899 for a size that is not a multiple of 2 MiB
    /// (ACL-MP-013), 207001 when the device is full (ACL-MP-015).
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

    /// Reserves `size` bytes of device addresses (`aclrtReserveMemAddress`);
    /// requests below the granularity reserve one granule (ACL-RSV-007).
    ///
    /// # Errors
    /// The vendor's code, e.g. 207001 when the address window is exhausted.
    pub fn reserve(&self, size: usize) -> Result<Reservation, Error> {
        Reservation::new(self, size)
    }

    /// Imports the `size` bytes that a process exported as `shareable` onto
    /// this device (`aclrtMemImportFromShareableHandle`). ACL cannot tell an
    /// importer the size; the exporter sends it with the handle.
    ///
    /// # Errors
    /// The vendor's code: 107017 for a handle that never existed or was
    /// released (ACL-IMP-007), 507899 when this process is not in the
    /// trustlist (ACL-IMP-011) or exported the memory from this device
    /// itself (ACL-IMP-009).
    pub fn import(&self, shareable: u64, size: usize) -> Result<Imported, Error> {
        Imported::new(self, shareable, size)
    }
}
