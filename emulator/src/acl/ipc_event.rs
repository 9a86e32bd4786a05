//! IPC events: `aclrtIpcGetEventHandle` / `aclrtIpcOpenEventHandle` over the
//! core's shared events (`core/ipc_event.rs`): the handle's first 8 bytes
//! are the event's registry key, as CANN's carry the event's shareable
//! handle (ipc_event.cc:196-203); the rest is zero (ACL-IEV-*).
#![allow(non_snake_case)]

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, run};
use crate::ffi::Out;
use super::event::{event_id, handle_of};
use crate::core::CoreError;

/// `aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)`:
/// [ACL-IEV-001](vmmkit_sys::acl::rules::IEV_001) (handle checked first), [ACL-IEV-002](vmmkit_sys::acl::rules::IEV_002), [ACL-IEV-003](vmmkit_sys::acl::rules::IEV_003) (the same handle each time).
pub extern "C" fn aclrtIpcGetEventHandle(event: aclrtEvent, handle: Out<'_, aclrtIpcEventHandle>) -> aclError {
    run("aclrtIpcGetEventHandle", || {
        ensure!(!handle.is_null(), rules::IEV_001, "handle is NULL");
        ensure!(!event.is_null(), rules::IEV_001, "event is NULL");
        let id = event_id(event)?;
        let key = match emu()?.event_export(id) {
            Ok(k) => k,
            Err(e @ CoreError::NotInterprocess(_)) => return Err(Fail::core_under(&rules::IEV_002, e)),
            Err(e) => return Err(Fail::plain(AclError::RT_PARAM_INVALID, e.to_string())),
        };
        let mut h = aclrtIpcEventHandle::default();
        for (d, b) in h.reserved.iter_mut().zip(key.to_le_bytes()) {
            *d = b as std::ffi::c_char;
        }
        handle.write(h)?;
        Ok(())
    })
}

/// `aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)`:
/// [ACL-IEV-001](vmmkit_sys::acl::rules::IEV_001), [ACL-IEV-003](vmmkit_sys::acl::rules::IEV_003) (a handle naming no IPC event: 107017). Waits on
/// the opened event end (507899 at the waiting call) once its creator is dead.
pub extern "C" fn aclrtIpcOpenEventHandle(handle: aclrtIpcEventHandle, event: Out<'_, aclrtEvent>) -> aclError {
    run("aclrtIpcOpenEventHandle", || {
        ensure!(!event.is_null(), rules::IEV_001, "event is NULL");
        current_device()?;
        let mut k = [0u8; 8];
        for (d, &b) in k.iter_mut().zip(&handle.reserved) {
            *d = b as u8;
        }
        let key = u64::from_le_bytes(k);
        let rest_zero = handle.reserved[8..].iter().all(|&b| b == 0);
        let id = match emu()?.event_open(key) {
            Ok(id) if rest_zero => id,
            Ok(id) => {
                let _ = emu()?.event_destroy(id);
                return Err(Fail::core_under(&rules::IEV_003, CoreError::UnknownSharedCell(key)));
            }
            Err(e @ CoreError::UnknownSharedCell(_)) => return Err(Fail::core_under(&rules::IEV_003, e)),
            Err(e) => return Err(Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, e.to_string())),
        };
        let h = handle_of(id)?;
        event.write(h)?;
        Ok(())
    })
}
