//! `Exported`: memory offered to other processes under a shareable handle:
//! a 64-bit key on ACL, a POSIX fd on HIP and CUDA.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use crate::error::Error;
use crate::physical::{PhysInner, PhysicalMemory};
use crate::types::{Shareable, Sharing};

/// The exported handle this owner keeps.
#[derive(Debug)]
enum Handle {
    Key(u64),
    Fd(OwnedFd),
}

/// Exported memory: the shareable handle to send to the importers (and,
/// on ACL, the trustlist).
///
/// It keeps the exporter's memory. ACL has no call that withdraws an
/// export: the key stays valid until the exporter and every importer have
/// released the memory ([ACL-LIFE-001](vmmkit_sys::acl::rules::LIFE_001)), so dropping this only drops its hold
/// on the memory. On HIP and CUDA dropping it closes the exporter's fd
/// (copies already sent stay valid).
#[derive(Debug)]
pub struct Exported {
    mem: Arc<PhysInner>,
    handle: Handle,
    sharing: Sharing,
}

impl Exported {
    pub(crate) fn new(mem: &PhysicalMemory, sharing: Sharing) -> Result<Self, Error> {
        mem.device().ready()?;
        let api = mem.device().api();
        let handle = match sharing {
            // SAFETY: `mem` holds a live reference of its handle.
            Sharing::PosixFd => Handle::Fd(unsafe { api.export_fd(mem.as_raw()) }?),
            // SAFETY: as above.
            Sharing::Trustlist | Sharing::AnyProcess => Handle::Key(unsafe { api.export_key(mem.as_raw(), sharing) }?),
        };
        Ok(Self { mem: mem.share(), handle, sharing })
    }

    /// The handle, as [`crate::Device::import`] takes it (in this process,
    /// e.g. onto another device).
    pub fn shareable(&self) -> Shareable<'_> {
        match &self.handle {
            Handle::Key(k) => Shareable::Key(*k),
            Handle::Fd(fd) => Shareable::Fd(fd.as_fd()),
        }
    }

    /// ACL-only: the 64-bit key (acl.md §2.5: share id in bits 0–31,
    /// exporting device in bits 32–39) to send to the importers; `None` for
    /// an fd export.
    pub fn key(&self) -> Option<u64> {
        match &self.handle {
            Handle::Key(k) => Some(*k),
            Handle::Fd(_) => None,
        }
    }

    /// Fd-only (HIP, CUDA): the exported POSIX fd, to send to the importers
    /// with [`crate::fd::send`]; `None` for an ACL export.
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        match &self.handle {
            Handle::Key(_) => None,
            Handle::Fd(fd) => Some(fd.as_fd()),
        }
    }

    /// Who may import.
    pub fn sharing(&self) -> Sharing {
        self.sharing
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.mem.size
    }

    /// ACL-only: adds host pids (see [`crate::Runtime::host_pid`]) to the
    /// trustlist (`aclrtMemSetPidToShareableHandle`). Set them after the
    /// importer started: an entry older than the process is not honoured
    /// ([ACL-PID-010](vmmkit_sys::acl::rules::PID_010)).
    ///
    /// # Errors
    /// The vendor's code: 207006 when exported with [`Sharing::AnyProcess`]
    /// ([ACL-PID-007](vmmkit_sys::acl::rules::PID_007)). An fd export has no trustlist:
    /// [`Error::is_unsupported`].
    pub fn set_pids(&self, pids: &[i32]) -> Result<(), Error> {
        let api = self.mem.dev.api();
        match self.handle {
            Handle::Key(k) => api.set_pids(k, pids),
            Handle::Fd(_) => {
                Err(api.unsupported("Exported::set_pids", "an fd export has no trustlist: the fd is the permission"))
            }
        }
    }
}

impl PhysicalMemory {
    /// Exports the memory for other processes (or other devices of this
    /// one) to import: ACL to a 64-bit key (`aclrtMemExportToShareableHandle`,
    /// [`Sharing::Trustlist`] or [`Sharing::AnyProcess`]), HIP and CUDA to a
    /// POSIX fd (`hipMemExportToShareableHandle`, `cuMemExportToShareableHandle`,
    /// [`Sharing::PosixFd`]; [`crate::Vendor::vmm_sharing`] says which). On
    /// ACL an allocation can be exported once ([ACL-EXP-008](vmmkit_sys::acl::rules::EXP_008)), and imported
    /// memory not at all ([ACL-EXP-007](vmmkit_sys::acl::rules::EXP_007)).
    ///
    /// # Errors
    /// The vendor's code: on ACL 507899 for a second export or an imported
    /// handle. A sharing this vendor lacks is [`Error::is_unsupported`].
    pub fn export(&self, sharing: Sharing) -> Result<Exported, Error> {
        Exported::new(self, sharing)
    }
}
