//! `Reservation`: a range of device addresses.

use std::ffi::c_void;
use std::sync::Arc;

use crate::device::Device;
use crate::error::Error;

/// A reserved range: one `aclrtReleaseMemAddress` (`hipMemAddressFree`,
/// `cuMemAddressFree`) is owed for it. `base` is a device address kept as an
/// integer: passed to the library as a value, never read or written through.
#[derive(Debug)]
pub(crate) struct RsvInner {
    pub(crate) dev: Device,
    pub(crate) base: u64,
    pub(crate) size: usize,
    released: bool,
}

impl RsvInner {
    fn release(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.released, true) {
            return Ok(());
        }
        self.dev.ready()?;
        // SAFETY: `base` starts a reservation of ours, released once
        // (`released`); every mapping inside it holds this record, so none is
        // left when it goes.
        unsafe { self.dev.api().release(self.base, self.size) }
    }
}

impl Drop for RsvInner {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            self.dev.shared().record(e);
        }
    }
}

/// Reserved device addresses (`aclrtReserveMemAddress`,
/// `hipMemAddressReserve`, `cuMemAddressReserve`), released with
/// `aclrtReleaseMemAddress`, `hipMemAddressFree`, `cuMemAddressFree` on drop.
///
/// Mappings inside it keep it: dropping (or [`free`](Self::free)ing) it while
/// they live defers the release to the last of them, so a release never
/// unmaps a [`crate::Mapping`] behind its back (which ACL does not promise to
/// tolerate: acl.md [ACL-REL-004](vmmkit_sys::acl::rules::REL_004) is undetermined).
#[derive(Debug)]
pub struct Reservation {
    pub(crate) inner: Arc<RsvInner>,
}

impl Reservation {
    pub(crate) fn new(dev: &Device, size: usize) -> Result<Self, Error> {
        dev.ready()?;
        let base = dev.api().reserve(size)?;
        Ok(Self { inner: Arc::new(RsvInner { dev: dev.clone(), base, size, released: false }) })
    }

    /// The first address.
    pub fn base(&self) -> *mut c_void {
        self.inner.base as usize as *mut c_void
    }

    /// Bytes asked for.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// Releases the range now, with the driver's code. If mappings inside it
    /// are alive, the release happens when the last of them is dropped (and
    /// an error then is kept by [`crate::Runtime::take_drop_errors`]).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn free(self) -> Result<(), Error> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => inner.release(),
            Err(_still_used) => Ok(()),
        }
    }
}

impl Device {
    /// Reserves `size` bytes of device addresses (`aclrtReserveMemAddress`,
    /// `hipMemAddressReserve`, `cuMemAddressReserve`); on ACL, requests
    /// below the granularity reserve one granule ([ACL-RSV-007](vmmkit_sys::acl::rules::RSV_007)).
    ///
    /// # Errors
    /// The vendor's code, e.g. 207001 when the address window is exhausted.
    pub fn reserve(&self, size: usize) -> Result<Reservation, Error> {
        Reservation::new(self, size)
    }
}
