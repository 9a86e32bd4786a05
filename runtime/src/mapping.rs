//! `Mapping`: physical memory mapped at device addresses, and copies
//! through it.

use std::ffi::c_void;
use std::sync::Arc;

use vmmkit_sys::acl::{
    ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_RT_MEM_ACCESS_FLAGS_NONE,
    ACL_RT_MEM_ACCESS_FLAGS_READ, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, aclrtMemAccessDesc,
};

use crate::error::Error;
use crate::physical::{Location, PhysInner, PhysicalMemory};
use crate::reservation::{Reservation, RsvInner};

/// Access rights of a location on a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// None.
    None,
    /// Read only (ACL reports it unsupported: 207000, ACL-ACC-003).
    Read,
    /// Read and write.
    ReadWrite,
}

impl Access {
    fn to_acl(self) -> i32 {
        match self {
            Self::None => ACL_RT_MEM_ACCESS_FLAGS_NONE,
            Self::Read => ACL_RT_MEM_ACCESS_FLAGS_READ,
            Self::ReadWrite => ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        }
    }

    fn from_acl(flags: u64) -> Option<Self> {
        match flags {
            0 => Some(Self::None),
            1 => Some(Self::Read),
            3 => Some(Self::ReadWrite),
            _ => None,
        }
    }
}

/// Physical memory mapped into a reservation (`aclrtMapMem`), unmapped with
/// `aclrtUnmapMem` on drop.
///
/// It holds both the memory and the reservation, so they are given back
/// after it, whatever order their owners are dropped in.
///
/// Host code never dereferences device addresses here (on hardware it
/// cannot): [`write`](Self::write), [`read`](Self::read) and
/// [`copy_to`](Self::copy_to) copy with `aclrtMemcpy`.
///
/// `Send` and `Sync`: the address is used as a value, passed to ACL calls,
/// which make the memory's device current on the calling thread first.
#[derive(Debug)]
pub struct Mapping {
    va: *mut c_void,
    size: usize,
    unmapped: bool,
    mem: Arc<PhysInner>,
    // Dropped after `mem`, though the order of these two does not matter:
    // both go after the unmap in `Drop`.
    _rsv: Arc<RsvInner>,
}

// SAFETY: see the type's documentation: `va` is never dereferenced by host
// code; the Arcs are `Send + Sync`.
unsafe impl Send for Mapping {}
// SAFETY: as above; `&Mapping` allows only copies through the driver, which
// are safe to make concurrently (the driver orders them).
unsafe impl Sync for Mapping {}

impl Mapping {
    pub(crate) fn new(rsv: &Reservation, offset: usize, mem: &PhysicalMemory) -> Result<Self, Error> {
        let va = rsv.inner.base.wrapping_byte_add(offset);
        let api = &mem.device().shared().api;
        // SAFETY: `mem` holds a live reference of its handle; the driver
        // checks that `va..va+size` lies in a reservation (ACL-MAP-006, 008).
        unsafe { crate::acl::map_mem(api, va, mem.size(), 0, mem.as_raw(), 0) }?;
        Ok(Self { va, size: mem.size(), unmapped: false, mem: mem.inner.clone(), _rsv: rsv.inner.clone() })
    }

    /// The first device address.
    pub fn addr(&self) -> *mut c_void {
        self.va
    }

    /// Bytes mapped.
    pub fn size(&self) -> usize {
        self.size
    }

    fn api(&self) -> &vmmkit_sys::acl::AclApi {
        &self.mem.dev.shared().api
    }

    /// Grants `access` to `location` over the whole mapping (`aclrtMemSetAccess`).
    /// Granting the owning device read-write is what the vendor samples do;
    /// ACL supports only read-write (ACL-ACC-003).
    ///
    /// # Errors
    /// The vendor's code: 207000 for [`Access::None`] or [`Access::Read`] on ACL.
    pub fn set_access(&self, location: Location, access: Access) -> Result<(), Error> {
        let desc = aclrtMemAccessDesc { flags: access.to_acl(), location: location.to_acl(), rsv: [0; 12] };
        // SAFETY: `va..va+size` is our live mapping.
        unsafe { crate::acl::mem_set_access(self.api(), self.va, self.size, &[desc]) }
    }

    /// The access `location` has (`aclrtMemGetAccess`), or `None` for flags
    /// this crate does not know.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn access(&self, location: Location) -> Result<Option<Access>, Error> {
        // SAFETY: `va` starts our live mapping.
        let f = unsafe { crate::acl::mem_get_access(self.api(), self.va, location.to_acl()) }?;
        Ok(Access::from_acl(f))
    }

    fn check_range(&self, what: &str, offset: usize, len: usize) {
        let fits = offset.checked_add(len).is_some_and(|end| end <= self.size);
        assert!(fits, "{what}: {len} bytes at offset {offset:#x} do not fit in a mapping of {:#x} bytes", self.size);
    }

    /// Copies `src` to the mapping at `offset` (`aclrtMemcpy`, host to device).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If `offset + src.len()` exceeds [`size`](Self::size).
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), Error> {
        self.check_range("write", offset, src.len());
        self.mem.dev.bind()?;
        let dst = self.va.wrapping_byte_add(offset);
        // SAFETY: the destination lies in our live mapping (checked above),
        // the source is `src`.
        unsafe {
            crate::acl::memcpy(
                self.api(),
                dst,
                self.size - offset,
                src.as_ptr().cast(),
                src.len(),
                ACL_MEMCPY_HOST_TO_DEVICE,
            )
        }
    }

    /// Copies from the mapping at `offset` into `dst` (`aclrtMemcpy`, device to host).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If `offset + dst.len()` exceeds [`size`](Self::size).
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        self.check_range("read", offset, dst.len());
        self.mem.dev.bind()?;
        let src = self.va.wrapping_byte_add(offset);
        // SAFETY: the source lies in our live mapping (checked above), the
        // destination is `dst`, writable for its length.
        unsafe {
            crate::acl::memcpy(
                self.api(),
                dst.as_mut_ptr().cast(),
                dst.len(),
                src,
                dst.len(),
                ACL_MEMCPY_DEVICE_TO_HOST,
            )
        }
    }

    /// Copies `len` bytes from this mapping at `offset` to `dst` at
    /// `dst_offset` (`aclrtMemcpy`, device to device).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If either range does not fit in its mapping.
    pub fn copy_to(&self, offset: usize, dst: &Mapping, dst_offset: usize, len: usize) -> Result<(), Error> {
        self.check_range("copy_to (source)", offset, len);
        dst.check_range("copy_to (destination)", dst_offset, len);
        self.mem.dev.bind()?;
        let (s, d) = (self.va.wrapping_byte_add(offset), dst.va.wrapping_byte_add(dst_offset));
        // SAFETY: both ranges lie in live mappings (checked above).
        unsafe { crate::acl::memcpy(self.api(), d, dst.size - dst_offset, s, len, ACL_MEMCPY_DEVICE_TO_DEVICE) }
    }

    /// Unmaps now, with the driver's code.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn unmap(mut self) -> Result<(), Error> {
        self.unmap_once()
    }

    fn unmap_once(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.unmapped, true) {
            return Ok(());
        }
        // SAFETY: `va` starts our mapping, unmapped once (`unmapped`); nothing
        // copies through it after this (`&mut self`).
        unsafe { crate::acl::unmap_mem(self.api(), self.va) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if let Err(e) = self.unmap_once() {
            self.mem.dev.shared().record(e);
        }
    }
}
