//! ACL at cudarc's `result` level: one thin function per C call, returning
//! `Result<_, Error>`, named after the call (`aclrtMapMem` → [`map_mem`]),
//! taking the table first.
//!
//! Functions whose arguments are only values (sizes, device ids, shareable
//! handles) are safe: the library checks them. Functions that take a
//! physical-memory handle or a device address are `unsafe`: a real driver
//! dereferences a handle it is given (acl.md [ACL-FP-004](vmmkit_sys::acl::rules::FP_004): freeing an unknown
//! handle is a use-after-free in the real library), and copies write through
//! addresses. The emulator validates both, which is what the misuse tests
//! rely on; the safe owners of the crate root never pass a stale one.
//!
//! Each failure carries the rule the library names in `aclGetRecentErrMsg`,
//! read on the same thread right after the failing call.

mod device;
mod driver;
mod memory;
mod share;
mod vmm;

pub use device::*;
pub use memory::*;
pub use share::*;
pub use vmm::*;
pub use vmmkit_sys::acl::{AclApi, AclError};

use std::ffi::CStr;

use vmmkit_sys::acl::aclError;

use crate::error::Error;

/// `Ok(())` for 0, else the error of `call` with the library's last message.
#[inline]
pub(crate) fn check(api: &AclApi, call: &'static str, rc: aclError) -> Result<(), Error> {
    Error::check(call, AclError(rc), || get_recent_err_msg(api))
}

/// `const char *aclGetRecentErrMsg(void)`: the calling thread's last error
/// message, if the library has one.
pub fn get_recent_err_msg(api: &AclApi) -> Option<String> {
    // SAFETY: no arguments; the result is NULL or a NUL-terminated string of
    // the library's, valid until this thread's next failing call.
    let p = unsafe { (api.aclGetRecentErrMsg)() };
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated (above), copied before any other call.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    (!s.is_empty()).then_some(s)
}
