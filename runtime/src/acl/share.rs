//! Export, trustlist and import (acl.md §4.7–§4.9).

use std::ptr;

use vmmkit_sys::acl::{AclApi, aclrtDrvMemHandle, aclrtMemHandleType};

use super::check;
use crate::error::Error;
use crate::result::out;

/// `aclrtMemExportToShareableHandle(handle, handleType, flags, &shareableHandle)`
/// (ACL-EXP-*): the 64-bit shareable handle of acl.md §2.5.
///
/// # Safety
/// `handle` must hold a reference of this process (see [`super::free_physical`]).
pub unsafe fn mem_export_to_shareable_handle(
    api: &AclApi,
    handle: aclrtDrvMemHandle,
    handle_type: aclrtMemHandleType,
    flags: u64,
) -> Result<u64, Error> {
    out(0, |key| {
        // SAFETY: `key` is a writable uint64_t; the handle is the caller's contract.
        check(api, "aclrtMemExportToShareableHandle", unsafe {
            (api.aclrtMemExportToShareableHandle)(handle, handle_type, flags, key)
        })
    })
}

/// `aclrtMemSetPidToShareableHandle(shareableHandle, pid, pidNum)` (ACL-PID-*).
pub fn mem_set_pid_to_shareable_handle(api: &AclApi, shareable: u64, pids: &[i32]) -> Result<(), Error> {
    // The C signature takes a non-const pointer; the library only reads it.
    let mut p = pids.to_vec();
    let ptr = if p.is_empty() { ptr::null_mut() } else { p.as_mut_ptr() };
    // SAFETY: `ptr` points to `p.len()` pids (or is NULL for none).
    let rc = unsafe { (api.aclrtMemSetPidToShareableHandle)(shareable, ptr, p.len()) };
    check(api, "aclrtMemSetPidToShareableHandle", rc)
}

/// `aclrtMemImportFromShareableHandle(shareableHandle, deviceId, &handle)`
/// (ACL-IMP-*): a handle of this process for shared memory, bound to
/// `device`, to be given back with [`super::free_physical`].
pub fn mem_import_from_shareable_handle(api: &AclApi, shareable: u64, device: i32) -> Result<aclrtDrvMemHandle, Error> {
    out(ptr::null_mut(), |h| {
        // SAFETY: `h` is a writable handle slot; the other arguments are values.
        check(api, "aclrtMemImportFromShareableHandle", unsafe {
            (api.aclrtMemImportFromShareableHandle)(shareable, device, h)
        })
    })
}
