//! IPC by key (samples 10 and 11): a plain aclrtMalloc allocation shared
//! under a printable key. The key is `vmmkit:` and the shareable handle in hex.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};

use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, put, run};
use super::codes::Op;
use super::share::trust_of;
use super::state::{lock, state};
use super::vmm::{GRANULE, WINDOW};
use crate::registry::Place;

const PREFIX: &str = "vmmkit:";

fn parse(key: *const c_char) -> Result<u64, Fail> {
    if key.is_null() {
        return Err(Fail::plain(AclError::INVALID_PARAM, "key is NULL".into()));
    }
    // SAFETY: a NUL-terminated key string is the C contract; reading stops at 64 + NUL.
    let s = unsafe { CStr::from_ptr(key) };
    s.to_str()
        .ok()
        .and_then(|s| s.strip_prefix(PREFIX))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| Fail::plain(AclError::RT_PARAM_INVALID, format!("{s:?} is not an IPC key of this emulator")))
}

/// `aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)`.
pub unsafe extern "C" fn aclrtIpcMemGetExportKey(
    devPtr: *mut c_void,
    size: usize,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    run("aclrtIpcMemGetExportKey", || {
        if devPtr.is_null() || key.is_null() || size == 0 || flags > 1 {
            return Err(Fail::plain(AclError::INVALID_PARAM, "devPtr/key NULL, size 0 or flags > 1".into()));
        }
        if len < ACL_IPC_KEY_MIN_LEN {
            return Err(Fail::plain(
                AclError::INVALID_PARAM,
                format!("key buffer of {len} bytes; at least 65 are needed"),
            ));
        }
        let e = emu()?;
        let (base, alloc_len) = e.plain_at(devPtr as usize).ok_or_else(|| {
            Fail::plain(AclError::RT_PARAM_INVALID, format!("{devPtr:p} is not memory from aclrtMalloc"))
        })?;
        if base != devPtr as usize || size > alloc_len {
            return Err(Fail::plain(
                AclError::RT_PARAM_INVALID,
                "devPtr/size must lie at the start of one allocation".into(),
            ));
        }
        let (_, m) = e.mapping(base).ok_or_else(|| Fail::plain(AclError::RT_PARAM_INVALID, "not mapped".into()))?;
        let info = e.describe(m.handle).map_err(|e| Fail::core(Op::Export, e))?;
        let k = match info.key {
            Some(k) => k,
            None => e.export(m.handle, trust_of(flags)).map_err(|e| Fail::core(Op::Export, e))?,
        };
        let text = format!("{PREFIX}{k:016x}\0");
        // SAFETY: `key` has room for `len` >= 65 bytes; the text is 24 bytes with its NUL.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), key.cast::<u8>(), text.len()) };
        Ok(())
    })
}

/// `aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)`: at most 31 pids a call.
pub unsafe extern "C" fn aclrtIpcMemSetImportPid(key: *const c_char, pid: *mut i32, num: usize) -> aclError {
    run("aclrtIpcMemSetImportPid", || {
        let k = parse(key)?;
        if pid.is_null() || num == 0 {
            return Err(Fail::plain(AclError::INVALID_PARAM, "pid is NULL or num is 0".into()));
        }
        if num > ACL_IPC_MAX_PIDS_PER_CALL {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{num} pids; one call takes at most 31")));
        }
        // SAFETY: the caller passes `num` pids.
        let pids: Vec<i32> = (0..num).map(|i| unsafe { pid.add(i).read_unaligned() }).collect();
        emu()?.set_trusted(k, &pids).map_err(|e| Fail::core(Op::SetPid, e))
    })
}

/// `aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)`: maps the memory on the current device.
pub unsafe extern "C" fn aclrtIpcMemImportByKey(devPtr: *mut *mut c_void, key: *const c_char, flags: u64) -> aclError {
    run("aclrtIpcMemImportByKey", || {
        if devPtr.is_null() || flags > 1 {
            return Err(Fail::plain(AclError::INVALID_PARAM, "devPtr is NULL or flags > 1".into()));
        }
        let k = parse(key)?;
        let d = current_device()?;
        let e = emu()?;
        let id = e.import(k, Place::Device(d)).map_err(|e| Fail::core(Op::Import, e))?;
        let va = e.map_anywhere(id, GRANULE as usize, &WINDOW).map_err(|e| Fail::core(Op::MapMem, e))?;
        lock(&state(e).imported).insert(k, va);
        // SAFETY: checked non-null.
        unsafe { put(devPtr, va as *mut c_void) };
        Ok(())
    })
}

/// `aclError aclrtIpcMemClose(const char *key)`: unmaps an imported key; for the exporter, nothing to do.
pub unsafe extern "C" fn aclrtIpcMemClose(key: *const c_char) -> aclError {
    run("aclrtIpcMemClose", || {
        let k = parse(key)?;
        let e = emu()?;
        let va = lock(&state(e).imported).remove(&k);
        match va {
            Some(va) => e.release(va).map_err(|e| Fail::core(Op::Release, e)),
            None if e.share_exists(k) => Ok(()),
            None => Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("key {k:#x} is not open in this process"))),
        }
    })
}
