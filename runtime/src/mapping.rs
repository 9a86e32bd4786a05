//! `Mapping`: physical memory mapped at device addresses, and copies
//! through it.

use std::ffi::c_void;
use std::sync::Arc;

use crate::device::Device;
use crate::driver::Driver;
use crate::error::Error;
use crate::physical::{PhysInner, PhysicalMemory};
use crate::reservation::{Reservation, RsvInner};
use crate::types::{Access, Dir, Location};

/// Physical memory mapped into a reservation (`aclrtMapMem`, `hipMemMap`,
/// `cuMemMap`), unmapped with `aclrtUnmapMem`, `hipMemUnmap`, `cuMemUnmap` on drop.
///
/// It holds both the memory and the reservation, so they are given back
/// after it, whatever order their owners are dropped in.
///
/// Host code never dereferences device addresses here (on hardware it
/// cannot): [`write`](Self::write), [`read`](Self::read) and
/// [`copy_to`](Self::copy_to) copy with `aclrtMemcpy`, `hipMemcpy`,
/// `cuMemcpy*`, after making the memory's device current on the calling
/// thread. The address is kept as an integer, passed to the library as a value.
#[derive(Debug)]
pub struct Mapping {
    va: u64,
    size: usize,
    unmapped: bool,
    mem: Arc<PhysInner>,
    // Dropped after `mem`, though the order of these two does not matter:
    // both go after the unmap in `Drop`.
    _rsv: Arc<RsvInner>,
}

impl Mapping {
    pub(crate) fn new(rsv: &Reservation, offset: usize, mem: &PhysicalMemory) -> Result<Self, Error> {
        let va = rsv.inner.base.wrapping_add(offset as u64);
        rsv.inner.dev.ready()?;
        // SAFETY: `mem` holds a live reference of its handle; the driver
        // checks that `va..va+size` lies in a reservation (ACL-MAP-006, 008).
        unsafe { rsv.inner.dev.api().map(va, mem.size(), mem.as_raw()) }?;
        Ok(Self { va, size: mem.size(), unmapped: false, mem: mem.share(), _rsv: rsv.inner.clone() })
    }

    /// The first device address.
    pub fn addr(&self) -> *mut c_void {
        self.va as usize as *mut c_void
    }

    /// Bytes mapped.
    pub fn size(&self) -> usize {
        self.size
    }

    fn api(&self) -> &dyn Driver {
        self.mem.dev.api()
    }

    /// Grants `access` to `location` over the whole mapping
    /// (`aclrtMemSetAccess`, `hipMemSetAccess`, `cuMemSetAccess`). Granting
    /// the owning device read-write is what the vendor samples do; ACL
    /// supports only read-write ([ACL-ACC-003](vmmkit_sys::acl::rules::ACC_003)).
    ///
    /// # Errors
    /// The vendor's code: 207000 for [`Access::None`] or [`Access::Read`] on ACL.
    pub fn set_access(&self, location: Location, access: Access) -> Result<(), Error> {
        self.mem.dev.ready()?;
        // SAFETY: `va..va+size` is our live mapping.
        unsafe { self.api().set_access(self.va, self.size, location, access) }
    }

    /// The access `location` has (`aclrtMemGetAccess`, `hipMemGetAccess`,
    /// `cuMemGetAccess`), or `None` for flags this crate does not know.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn access(&self, location: Location) -> Result<Option<Access>, Error> {
        self.mem.dev.ready()?;
        // SAFETY: `va` starts our live mapping.
        let f = unsafe { self.api().get_access(self.va, location) }?;
        Ok(Access::from_flags(f))
    }

    fn check_range(&self, what: &str, offset: usize, len: usize) {
        check_range(what, self.size, offset, len);
    }

    /// Copies `src` to the mapping at `offset` (host to device).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If `offset + src.len()` exceeds [`size`](Self::size).
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), Error> {
        write_at(&self.mem.dev, self.va, self.size, offset, src)
    }

    /// Copies from the mapping at `offset` into `dst` (device to host).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If `offset + dst.len()` exceeds [`size`](Self::size).
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        read_at(&self.mem.dev, self.va, self.size, offset, dst)
    }

    /// Copies `len` bytes from this mapping at `offset` to `dst` at
    /// `dst_offset` (device to device).
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
        let (s, d) = (self.va.wrapping_add(offset as u64), dst.va.wrapping_add(dst_offset as u64));
        // SAFETY: both ranges lie in live mappings (checked above).
        unsafe { self.api().copy(d, s, len, Dir::DeviceToDevice) }
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
        self.mem.dev.ready()?;
        // SAFETY: `va` starts our mapping, unmapped once (`unmapped`); nothing
        // copies through it after this (`&mut self`).
        unsafe { self.api().unmap(self.va, self.size) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if let Err(e) = self.unmap_once() {
            self.mem.dev.shared().record(e);
        }
    }
}

impl Reservation {
    /// Maps all of `mem` at `base() + offset` (`aclrtMapMem`, `hipMemMap`,
    /// `cuMemMap`). The offset must be a multiple of the granularity and the
    /// memory must fit; on ACL a reservation holds memory of one device
    /// only, from its first map on ([ACL-MAP-010](vmmkit_sys::acl::rules::MAP_010)).
    ///
    /// # Errors
    /// The vendor's code: on ACL 507899 for a misaligned offset
    /// ([ACL-MAP-007](vmmkit_sys::acl::rules::MAP_007)), a range past the end ([ACL-MAP-008](vmmkit_sys::acl::rules::MAP_008)), an overlap
    /// ([ACL-MAP-009](vmmkit_sys::acl::rules::MAP_009)) or another device's memory ([ACL-MAP-010](vmmkit_sys::acl::rules::MAP_010)).
    pub fn map(&self, offset: usize, mem: &PhysicalMemory) -> Result<Mapping, Error> {
        Mapping::new(self, offset, mem)
    }
}

/// Panics unless `len` bytes at `offset` fit in `size` (the owners' copies
/// promise it: a range past the end is a bug of the caller, not a driver error).
fn check_range(what: &str, size: usize, offset: usize, len: usize) {
    let fits = offset.checked_add(len).is_some_and(|end| end <= size);
    assert!(fits, "{what}: {len} bytes at offset {offset:#x} do not fit in {size:#x} bytes of device memory");
}

/// Copies `src` to `va + offset` of a live device range of `size` bytes
/// owned by the caller, on `dev` (host to device).
pub(crate) fn write_at(dev: &Device, va: u64, size: usize, offset: usize, src: &[u8]) -> Result<(), Error> {
    check_range("write", size, offset, src.len());
    dev.bind()?;
    // SAFETY: the destination lies in the caller's live range (checked
    // above), the source is `src`, readable for its length.
    unsafe { dev.api().copy(va.wrapping_add(offset as u64), src.as_ptr() as u64, src.len(), Dir::HostToDevice) }
}

/// Copies from `va + offset` of a live device range of `size` bytes owned
/// by the caller into `dst`, on `dev` (device to host).
pub(crate) fn read_at(dev: &Device, va: u64, size: usize, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
    check_range("read", size, offset, dst.len());
    dev.bind()?;
    // SAFETY: the source lies in the caller's live range (checked above),
    // the destination is `dst`, writable for its length.
    unsafe { dev.api().copy(dst.as_mut_ptr() as u64, va.wrapping_add(offset as u64), dst.len(), Dir::DeviceToHost) }
}
