//! `Imported`: memory of another process (or of another device of this one).

use std::ops::Deref;

use crate::device::Device;
use crate::error::Error;
use crate::physical::PhysicalMemory;
use crate::types::Shareable;

/// Memory imported onto a device (`aclrtMemImportFromShareableHandle`,
/// `hipMemImportFromShareableHandle`, `cuMemImportFromShareableHandle`):
/// physical memory of this process, given back as any other.
///
/// No vendor gives an importer a call that tells the size: the exporter
/// sends it along with the handle ([`crate::Exported::size`]), and on ACL
/// maps must cover exactly that size ([ACL-MAP-012](vmmkit_sys::acl::rules::MAP_012)).
///
/// It is a [`PhysicalMemory`] (through `Deref`); on ACL it cannot be
/// exported again ([ACL-EXP-007](vmmkit_sys::acl::rules::EXP_007)). Importing the same ACL key onto the same
/// device twice gives the same driver handle with one more reference
/// ([ACL-IMP-014](vmmkit_sys::acl::rules::IMP_014)); each `Imported` gives back its own.
#[derive(Debug)]
pub struct Imported {
    mem: PhysicalMemory,
    key: Option<u64>,
}

impl Imported {
    pub(crate) fn new(dev: &Device, shareable: Shareable<'_>, size: usize) -> Result<Self, Error> {
        let (h, key) = match shareable {
            // A key import needs a current context, though it names its
            // device: any context will do (ACL-IMP-008).
            Shareable::Key(k) => {
                let import = || dev.api().import_key(k, dev.id() as i32);
                (dev.with_some_context(|e| dev.api().lacks_context(e), import)?, Some(k))
            }
            // HIP and CUDA import onto the current device: it must be this one.
            Shareable::Fd(fd) => {
                dev.bind()?;
                (dev.api().import_fd(fd)?, None)
            }
        };
        Ok(Self { mem: PhysicalMemory::new(dev, h, size), key })
    }

    /// ACL-only: the key it was imported from; `None` for an fd import.
    pub fn key(&self) -> Option<u64> {
        self.key
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

impl Device {
    /// Imports the `size` bytes that a process exported as `shareable` onto
    /// this device: an ACL key (`aclrtMemImportFromShareableHandle`; a `u64`
    /// converts) or a HIP or CUDA POSIX fd (`hipMemImportFromShareableHandle`,
    /// `cuMemImportFromShareableHandle`; a `BorrowedFd` converts, and is
    /// only borrowed). No vendor tells an importer the size; the exporter
    /// sends it with the handle ([`crate::Exported::size`]).
    ///
    /// # Errors
    /// The vendor's code: on ACL 107017 for a handle that never existed or
    /// was released ([ACL-IMP-007](vmmkit_sys::acl::rules::IMP_007)), 507899 when this process is not in the
    /// trustlist ([ACL-IMP-011](vmmkit_sys::acl::rules::IMP_011)) or exported the memory from this device
    /// itself ([ACL-IMP-009](vmmkit_sys::acl::rules::IMP_009)). A key on HIP or CUDA, or an fd on ACL, is
    /// [`Error::is_unsupported`].
    pub fn import<'a>(&self, shareable: impl Into<Shareable<'a>>, size: usize) -> Result<Imported, Error> {
        Imported::new(self, shareable.into(), size)
    }
}
