//! Copies (acl.md §4.11, ACL-CPY-*).

use std::ffi::c_void;

use vmmkit_sys::acl::{AclApi, aclrtMemcpyKind};

use super::check;
use crate::error::Error;

/// `aclrtMemcpy(dst, destMax, src, count, kind)`: a synchronous copy.
///
/// # Safety
/// Host parts of `dst..dst+dest_max` and `src..src+count` must be valid for
/// writes and reads, and device parts mapped by this process, as for `memmove`.
pub unsafe fn memcpy(
    api: &AclApi,
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtMemcpy", unsafe { (api.aclrtMemcpy)(dst, dest_max, src, count, kind) })
}
