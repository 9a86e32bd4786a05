//! `Exported`: memory offered to other processes under a shareable handle.

use std::sync::Arc;

use vmmkit_sys::acl::{
    ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
};

use crate::error::Error;
use crate::physical::{PhysInner, PhysicalMemory};

/// Who may import exported memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// Only processes added with [`Exported::set_pids`] (ACL export flag 0,
    /// ACL-EXP-012), and only once they were running when added (ACL-PID-010).
    Trustlist,
    /// Any process (ACL `DISABLE_PID_VALIDATION`, ACL-IMP-013).
    AnyProcess,
}

/// Exported memory (`aclrtMemExportToShareableHandle`): the shareable handle
/// to send to the importers, and the trustlist.
///
/// It keeps the exporter's memory. ACL has no call that withdraws an export:
/// the shareable handle stays valid until the exporter and every importer
/// have released the memory (ACL-LIFE-001), so dropping this only drops its
/// hold on the memory.
#[derive(Debug)]
pub struct Exported {
    mem: Arc<PhysInner>,
    shareable: u64,
    sharing: Sharing,
}

impl Exported {
    pub(crate) fn new(mem: &PhysicalMemory, sharing: Sharing) -> Result<Self, Error> {
        let flags = match sharing {
            Sharing::Trustlist => ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
            Sharing::AnyProcess => ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
        };
        let api = &mem.device().shared().api;
        // SAFETY: `mem` holds a live reference of its handle.
        let shareable =
            unsafe { crate::acl::mem_export_to_shareable_handle(api, mem.as_raw(), ACL_MEM_HANDLE_TYPE_NONE, flags) }?;
        Ok(Self { mem: mem.inner.clone(), shareable, sharing })
    }

    /// The shareable handle (acl.md §2.5: share id in bits 0–31, exporting
    /// device in bits 32–39). Send it to the importers.
    pub fn shareable(&self) -> u64 {
        self.shareable
    }

    /// Who may import.
    pub fn sharing(&self) -> Sharing {
        self.sharing
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.mem.size
    }

    /// Adds host pids (see [`crate::Runtime::host_pid`]) to the trustlist
    /// (`aclrtMemSetPidToShareableHandle`). Set them after the importer
    /// started: an entry older than the process is not honoured (ACL-PID-010).
    ///
    /// # Errors
    /// The vendor's code: 207006 when exported with [`Sharing::AnyProcess`]
    /// (ACL-PID-007).
    pub fn set_pids(&self, pids: &[i32]) -> Result<(), Error> {
        crate::acl::mem_set_pid_to_shareable_handle(&self.mem.dev.shared().api, self.shareable, pids)
    }
}
