//! Initialisation, devices and contexts (acl.md §1.2, §4.1).

use std::ffi::CStr;
use std::ptr;

use vmmkit_sys::acl::{AclApi, aclrtContext, aclrtMemAttr};

use super::check;
use crate::error::Error;
use crate::result::out;

/// `aclInit(configPath)`: initialises ACL for the process. A second call
/// fails with 100002 ([ACL-GEN-001](vmmkit_sys::acl::rules::GEN_001)).
pub fn init(api: &AclApi, config_path: Option<&CStr>) -> Result<(), Error> {
    let p = config_path.map_or(ptr::null(), CStr::as_ptr);
    // SAFETY: `p` is NULL or a NUL-terminated string that outlives the call.
    check(api, "aclInit", unsafe { (api.aclInit)(p) })
}

/// `aclFinalize()`: tears down everything of the process ([ACL-GEN-002](vmmkit_sys::acl::rules::GEN_002)).
pub fn finalize(api: &AclApi) -> Result<(), Error> {
    // SAFETY: no arguments.
    check(api, "aclFinalize", unsafe { (api.aclFinalize)() })
}

/// `aclrtSetDevice(deviceId)`: makes the device current for the calling
/// thread, with its default context ([ACL-GEN-003](vmmkit_sys::acl::rules::GEN_003)).
pub fn set_device(api: &AclApi, device: i32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "aclrtSetDevice", unsafe { (api.aclrtSetDevice)(device) })
}

/// `aclrtResetDevice(deviceId)`: drops one reference of [`set_device`]; the
/// last one frees the process's resources on the device.
pub fn reset_device(api: &AclApi, device: i32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check(api, "aclrtResetDevice", unsafe { (api.aclrtResetDevice)(device) })
}

/// `aclrtGetDevice(&deviceId)`: the calling thread's current device ([ACL-GEN-004](vmmkit_sys::acl::rules::GEN_004)).
pub fn get_device(api: &AclApi) -> Result<i32, Error> {
    // SAFETY: `d` is a writable int32_t.
    out(-1, |d| check(api, "aclrtGetDevice", unsafe { (api.aclrtGetDevice)(d) }))
}

/// `aclrtGetDeviceCount(&count)`.
pub fn get_device_count(api: &AclApi) -> Result<u32, Error> {
    // SAFETY: `n` is a writable uint32_t.
    out(0, |n| check(api, "aclrtGetDeviceCount", unsafe { (api.aclrtGetDeviceCount)(n) }))
}

/// `aclrtGetCurrentContext(&ctx)`: the calling thread's context.
pub fn get_current_context(api: &AclApi) -> Result<aclrtContext, Error> {
    // SAFETY: `c` is a writable aclrtContext.
    out(ptr::null_mut(), |c| check(api, "aclrtGetCurrentContext", unsafe { (api.aclrtGetCurrentContext)(c) }))
}

/// `aclrtSetCurrentContext(ctx)`: makes `ctx` the calling thread's context.
///
/// # Safety
/// `ctx` must be a live context of this process (from
/// [`get_current_context`] or `aclrtCreateContext`); a real runtime
/// dereferences it.
pub unsafe fn set_current_context(api: &AclApi, ctx: aclrtContext) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    check(api, "aclrtSetCurrentContext", unsafe { (api.aclrtSetCurrentContext)(ctx) })
}

/// `aclrtDeviceGetBareTgid(&pid)`: the host pid to put in trustlists ([ACL-TGID-002](vmmkit_sys::acl::rules::TGID_002)).
pub fn device_get_bare_tgid(api: &AclApi) -> Result<i32, Error> {
    // SAFETY: `pid` is a writable int32_t.
    out(0, |pid| check(api, "aclrtDeviceGetBareTgid", unsafe { (api.aclrtDeviceGetBareTgid)(pid) }))
}

/// `aclrtGetMemInfo(attr, &free, &total)` for the current device: (free, total) bytes.
pub fn get_mem_info(api: &AclApi, attr: aclrtMemAttr) -> Result<(usize, usize), Error> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: both outputs are writable size_t.
    check(api, "aclrtGetMemInfo", unsafe { (api.aclrtGetMemInfo)(attr, &mut free, &mut total) })?;
    Ok((free, total))
}

/// `aclrtGetSocName()`: the chip name, if the library reports one.
pub fn get_soc_name(api: &AclApi) -> Option<String> {
    // SAFETY: no arguments; the result is NULL or a static NUL-terminated string.
    let p = unsafe { (api.aclrtGetSocName)() };
    // SAFETY: non-null and NUL-terminated, as above.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}
