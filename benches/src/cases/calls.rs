//! The cost of a call itself: a cheap call (`aclrtGetDevice`) and a call
//! that fails its first check (`aclrtMapMem` with a NULL address: 100000,
//! with the error message written for `aclGetRecentErrMsg`), made through
//! the raw ACL table of each ACL backend (HIP and CUDA backends are
//! skipped, with a note).
//!
//! On the emulator, the same functions are also called `direct`: the
//! dialect's function itself, without the instrumentation layer that every
//! entry of the table goes through (fault injection, the `VMMKIT_LOG`
//! span, the call name for leak reports). The `calls` bench runs with
//! `VMMKIT_LOG` as the environment has it (unset, normally); the
//! `calls_log_off` bench sets `VMMKIT_LOG=off` first, and its function ids
//! end in `_log_off`, so the report can show that logging switched off
//! costs nothing over logging never configured.

use std::ptr;

use vmmkit_sys::acl::{AclApi, AclError, aclError};

use super::{Entry, Env, timed};
use crate::error::{BenchError, Result};

/// The group.
pub const GROUP: &str = "call_overhead";

/// The variable whose value `calls_log_off` sets.
pub const LOG_ENV: &str = "VMMKIT_LOG";

/// The suffix of the function ids for the current `VMMKIT_LOG`: none when
/// unset or empty, `_log_off` for `off`, `_log_on` for anything else.
pub fn log_suffix() -> &'static str {
    match std::env::var(LOG_ENV).ok().as_deref().map(str::trim) {
        None | Some("") => "",
        Some("off") => "_log_off",
        Some(_) => "_log_on",
    }
}

type MapCall = unsafe extern "C" fn(*mut std::ffi::c_void, usize, usize, *mut std::ffi::c_void, u64) -> aclError;

/// `aclrtGetDevice` through `f`, which is given a writable `int32_t`.
fn get_device(f: impl Fn(&mut i32) -> aclError) -> Result<()> {
    let mut d = -1;
    expect(f(&mut d), AclError::SUCCESS, "aclrtGetDevice")
}

fn map_null(f: MapCall) -> Result<()> {
    // SAFETY: a NULL address and handle are refused before anything is
    // dereferenced (ACL-MAP-001), by the emulator and the real runtime.
    let rc = unsafe { f(ptr::null_mut(), 2 << 20, 0, ptr::null_mut(), 0) };
    expect(rc, AclError::INVALID_PARAM, "aclrtMapMem(NULL)")
}

fn expect(rc: aclError, want: AclError, call: &str) -> Result<()> {
    if AclError(rc) == want {
        Ok(())
    } else {
        Err(BenchError::Check(format!("{call} returned {}, expected {want}", AclError(rc))))
    }
}

/// The entries: per call, through the table, and (on the emulator, with
/// `VMMKIT_LOG` unset) direct.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    for b in env.backends() {
        let Some(api) = b.rt().acl_api() else {
            env.note(format!("{GROUP}: {} skipped, it has no ACL table", b.name()));
            continue;
        };
        let api: AclApi = *api;
        let suffix = log_suffix();
        let table = format!("{}{suffix}", b.name());
        out.push(Entry::new(GROUP, &table, "aclrtGetDevice", move |n| {
            // SAFETY: `d` is a writable int32_t, as aclrtGetDevice takes.
            timed(n, |_| get_device(|d| unsafe { (api.aclrtGetDevice)(d) }))
        }));
        out.push(Entry::new(GROUP, &table, "aclrtMapMem_null", move |n| timed(n, |_| map_null(api.aclrtMapMem))));
        if b.name() == "emulator" && suffix.is_empty() {
            use vmmkit_emulator::acl::{device, vmm};
            out.push(Entry::new(GROUP, "direct", "aclrtGetDevice", |n| {
                timed(n, |_| get_device(|d| device::aclrtGetDevice(vmmkit_emulator::ffi::Out::from_mut(d))))
            }));
            out.push(Entry::new(GROUP, "direct", "aclrtMapMem_null", |n| timed(n, |_| map_null(vmm::aclrtMapMem))));
        }
    }
    Ok(out)
}
