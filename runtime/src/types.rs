//! The values the owners and the vendor drivers both speak: what to
//! allocate and where, access rights, sharing modes, granularities. Plain
//! data, vendor-neutral; each vendor's module (`acl`, `hip`, `cuda`) turns
//! them into its C records.
#![forbid(unsafe_code)]

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use vmmkit_sys::acl::{ACL_HBM_MEM_HUGE, aclrtMemAttr};

/// Which granularity to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// The smallest size and alignment the driver accepts.
    Minimum,
    /// The one it recommends for performance.
    Recommended,
}

impl Granularity {
    /// The vendor's option for this granularity: `minimum` or `recommended`.
    pub(crate) fn pick<T>(self, minimum: T, recommended: T) -> T {
        match self {
            Self::Minimum => minimum,
            Self::Recommended => recommended,
        }
    }
}

/// Free and total device memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemInfo {
    /// Bytes free.
    pub free: usize,
    /// Bytes in all.
    pub total: usize,
}

/// Access rights of a location on a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// None.
    None,
    /// Read only (ACL reports it unsupported: 207000, [ACL-ACC-003](vmmkit_sys::acl::rules::ACC_003)).
    Read,
    /// Read and write.
    ReadWrite,
}

impl Access {
    /// The flags value, the same for the three vendors (ACL
    /// `ACL_RT_MEM_ACCESS_FLAGS_*`, HIP `hipMemAccessFlagsProt*`, CUDA
    /// `CU_MEM_ACCESS_FLAGS_PROT_*`: 0, 1, 3).
    pub(crate) fn flags(self) -> u64 {
        match self {
            Self::None => 0,
            Self::Read => 1,
            Self::ReadWrite => 3,
        }
    }

    pub(crate) fn from_flags(flags: u64) -> Option<Self> {
        match flags {
            0 => Some(Self::None),
            1 => Some(Self::Read),
            3 => Some(Self::ReadWrite),
            _ => None,
        }
    }
}

/// Where memory lives, or who is granted access to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// Host memory (ACL location HOST, id 0).
    Host,
    /// A device.
    Device(u32),
}

impl Location {
    /// The vendor's location type (`host` or `device`) and id (0 for the host).
    pub(crate) fn parts<T>(self, host: T, device: T) -> (T, u32) {
        match self {
            Self::Host => (host, 0),
            Self::Device(id) => (device, id),
        }
    }
}

/// What to allocate: where, and (vendor-specific) what kind of memory.
/// Each vendor's module converts it to its record (`to_acl`, `to_hip`, `to_cuda`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PhysicalProps {
    /// Where the memory lives.
    pub location: Location,
    /// ACL's `memAttr` (acl.md §2.3); `ACL_HBM_MEM_HUGE` by default. ACL-only.
    pub acl_mem_attr: aclrtMemAttr,
    /// Whether the memory may be exported as a POSIX fd (HIP's and CUDA's
    /// `requestedHandleType(s)` = POSIX_FILE_DESCRIPTOR, which export
    /// requires); `true` by default. Fd-only: ACL exports any allocation.
    pub fd_exportable: bool,
}

impl PhysicalProps {
    /// Memory on device `id`: huge-page HBM on ACL, as vllm-ascend and
    /// torch_npu allocate it; pinned and fd-exportable on HIP and CUDA.
    pub fn device(id: u32) -> Self {
        Self { location: Location::Device(id), acl_mem_attr: ACL_HBM_MEM_HUGE, fd_exportable: true }
    }

    /// The vendor's requested handle type: `fd` (POSIX fd) when
    /// [`fd_exportable`](Self::fd_exportable), else `none`.
    pub(crate) fn handle_type<T>(&self, fd: T, none: T) -> T {
        if self.fd_exportable { fd } else { none }
    }
}

/// Who may import exported memory, and how it travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// ACL-only: a 64-bit key that only processes added with
    /// [`crate::Exported::set_pids`] may import (ACL export flag 0, [ACL-EXP-012](vmmkit_sys::acl::rules::EXP_012)),
    /// and only once they were running when added ([ACL-PID-010](vmmkit_sys::acl::rules::PID_010)).
    Trustlist,
    /// ACL-only: a 64-bit key that any process may import (ACL
    /// `DISABLE_PID_VALIDATION`, [ACL-IMP-013](vmmkit_sys::acl::rules::IMP_013)).
    AnyProcess,
    /// HIP and CUDA only: a POSIX file descriptor
    /// (`POSIX_FILE_DESCRIPTOR`); whoever holds a copy may import, so it
    /// is sent to the importer with `SCM_RIGHTS` ([`crate::fd::send`]).
    PosixFd,
}

impl Sharing {
    /// Whether the handle is a POSIX fd (HIP, CUDA) rather than an ACL key.
    pub fn is_fd(self) -> bool {
        self == Self::PosixFd
    }
}

/// A shareable handle as an importer receives it: what
/// [`crate::Device::import`] takes.
#[derive(Debug, Clone, Copy)]
pub enum Shareable<'a> {
    /// ACL's 64-bit key (acl.md §2.5: share id in bits 0–31, exporting
    /// device in bits 32–39).
    Key(u64),
    /// HIP's or CUDA's POSIX fd, borrowed for the import.
    Fd(BorrowedFd<'a>),
}

impl From<u64> for Shareable<'_> {
    fn from(key: u64) -> Self {
        Self::Key(key)
    }
}

impl<'a> From<BorrowedFd<'a>> for Shareable<'a> {
    fn from(fd: BorrowedFd<'a>) -> Self {
        Self::Fd(fd)
    }
}

impl<'a> From<&'a OwnedFd> for Shareable<'a> {
    fn from(fd: &'a OwnedFd) -> Self {
        Self::Fd(fd.as_fd())
    }
}

/// A legacy IPC handle: 64 opaque bytes (`hipIpcMemHandle_t`,
/// `CUipcMemHandle`), sent to the importer by any means (they are plain
/// bytes, unlike an fd). IPC-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcHandle(pub [u8; 64]);

/// The direction of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

impl Dir {
    /// The vendor's copy kind for this direction.
    pub(crate) fn pick<T>(self, host_to_device: T, device_to_host: T, device_to_device: T) -> T {
        match self {
            Self::HostToDevice => host_to_device,
            Self::DeviceToHost => device_to_host,
            Self::DeviceToDevice => device_to_device,
        }
    }
}
