//! `Imported`: memory of another process (or of another device of this one).

use std::ops::Deref;
use std::sync::Arc;

use crate::device::Device;
use crate::error::Error;
use crate::physical::{PhysInner, PhysicalMemory};

/// Memory imported onto a device (`aclrtMemImportFromShareableHandle`):
/// physical memory of this process, given back with `aclrtFreePhysical`.
///
/// ACL gives an importer no call that tells the size: the exporter sends it
/// along with the shareable handle ([`crate::Exported::size`]), and maps
/// must cover exactly that size (ACL-MAP-012).
///
/// It is a [`PhysicalMemory`] (through `Deref`) that cannot be exported
/// again (ACL-EXP-007). Importing the same shareable handle onto the same
/// device twice gives the same driver handle with one more reference
/// (ACL-IMP-014); each `Imported` gives back its own.
#[derive(Debug)]
pub struct Imported {
    mem: PhysicalMemory,
    shareable: u64,
}

impl Imported {
    pub(crate) fn new(dev: &Device, shareable: u64, size: usize) -> Result<Self, Error> {
        // ACL-IMP-008: the import needs a current context.
        dev.bind()?;
        let h = crate::acl::mem_import_from_shareable_handle(&dev.shared().api, shareable, dev.id() as i32)?;
        let mem = PhysicalMemory { inner: Arc::new(PhysInner::new(dev, h, size)) };
        Ok(Self { mem, shareable })
    }

    /// The shareable handle it was imported from.
    pub fn shareable(&self) -> u64 {
        self.shareable
    }

    /// The memory, as any other physical memory of this process.
    pub fn into_physical(self) -> PhysicalMemory {
        self.mem
    }

    /// Gives the memory back now, as [`PhysicalMemory::free`].
    ///
    /// # Errors
    /// The vendor's code.
    pub fn free(self) -> Result<(), Error> {
        self.mem.free()
    }
}

impl Deref for Imported {
    type Target = PhysicalMemory;

    fn deref(&self) -> &PhysicalMemory {
        &self.mem
    }
}
