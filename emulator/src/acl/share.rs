//! Export, trustlist and import of physical memory (acl.md §4.7–§4.10, orders of §5).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, emu, ensure, run};
use crate::ffi::{In, Out};
use super::codes::Op;
use super::device::{note_peer, server_id};
use super::vmm::{from_handle, to_handle};
use crate::core::{HandleId, thread};
use crate::registry::{Place, Trust};

/// Bits 0-39 of a u64 shareable handle: share id and device. The driver
/// reads only these (devmm_get_share_id / devmm_get_share_devid,
/// devmm_svm.c:6309-6317), so bits 40-63 are ignored.
const KEY_BITS: u64 = (1 << 40) - 1;

/// The 128-byte fabric form of a key (acl.md §2.5, [ACL-SHV-001](vmmkit_sys::acl::rules::SHV_001)): type FABRIC,
/// this server's sdid, device, physical device, share id, zeros.
fn fabric_of(key: u64) -> aclrtMemFabricHandle {
    let dev = ((key >> 32) & 0xff) as u32;
    aclrtMemFabricHandle::from_head(&aclrtMemFabricHandleHead {
        handle_type: MEM_HANDLE_TYPE_FABRIC,
        sdid: server_id(),
        devid: dev,
        phy_devid: dev,
        share_id: key as u32 as i32,
    })
}

/// The key of a fabric handle ([ACL-SHV-003](vmmkit_sys::acl::rules::SHV_003): its type word must be FABRIC).
/// A handle of this server is imported like a DEFAULT one ([ACL-IMP-006](vmmkit_sys::acl::rules::IMP_006)); one
/// of another server is a fabric import ([ACL-SHV-006](vmmkit_sys::acl::rules::SHV_006)), which the emulator
/// resolves in the same root.
fn key_of_fabric(h: &aclrtMemFabricHandle) -> Result<u64, Fail> {
    let head = h.head();
    let kind = head.handle_type;
    ensure!(kind == MEM_HANDLE_TYPE_FABRIC, rules::SHV_003, "fabric handle of driver type {kind}, not FABRIC (1)");
    Ok(head.shareable())
}

/// Reads the key a V2 call passes by pointer, for `shareType` (already checked to be 1 or 2).
/// `p` points to a `uint64_t` (DEFAULT) or an `aclrtMemFabricHandle` (FABRIC).
fn read_key(p: In<'_, c_void>, shareType: aclrtMemSharedHandleType) -> Result<u64, Fail> {
    if shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC {
        key_of_fabric(&p.cast::<aclrtMemFabricHandle>().read()?)
    } else {
        Ok(p.cast::<u64>().read()? & KEY_BITS)
    }
}

/// Who may import what an export with `flags` (already checked to be 0 or 1)
/// shares: `ACL_RT_VMM_EXPORT_FLAG_*` and `ACL_RT_IPC_MEM_EXPORT_FLAG_*` have
/// the same two values.
pub(super) fn trust_of(flags: u64) -> Trust {
    if flags == ACL_RT_VMM_EXPORT_FLAG_DEFAULT { Trust::Trustlist } else { Trust::AnyProcess }
}

fn export(handle: aclrtDrvMemHandle, flags: u64) -> Result<u64, Fail> {
    ensure!(flags <= 1, rules::EXP_002, "flags must be 0 or 1, got {flags}");
    let id = from_handle(handle).unwrap_or(HandleId(0));
    let e = emu()?;
    ensure!(e.handle_exists(id), rules::EXP_006, "{handle:p} is not a live handle of this process");
    e.export(id, trust_of(flags)).map_err(|e| Fail::core(Op::Export, e))
}

/// `aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags, uint64_t *shareableHandle)`:
/// [ACL-EXP-001](vmmkit_sys::acl::rules::EXP_001), 002, 006, 007, 008.
pub extern "C" fn aclrtMemExportToShareableHandle(
    handle: aclrtDrvMemHandle,
    handleType: aclrtMemHandleType,
    flags: u64,
    shareableHandle: Out<'_, u64>,
) -> aclError {
    run("aclrtMemExportToShareableHandle", || {
        ensure!(!handle.is_null(), rules::EXP_001, "handle is NULL");
        ensure!(
            handleType == ACL_MEM_HANDLE_TYPE_NONE,
            rules::EXP_001,
            "handleType must be NONE (0), got {handleType}"
        );
        ensure!(!shareableHandle.is_null(), rules::EXP_001, "shareableHandle is NULL");
        let key = export(handle, flags)?;
        shareableHandle.write(key)?;
        Ok(())
    })
}

/// `aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags, aclrtMemSharedHandleType shareType, void *shareableHandle)`:
/// [ACL-EXP-003](vmmkit_sys::acl::rules::EXP_003), 004, 002, 005, then as V1. FABRIC writes 128 bytes ([ACL-EXP-010](vmmkit_sys::acl::rules::EXP_010)).
pub extern "C" fn aclrtMemExportToShareableHandleV2(
    handle: aclrtDrvMemHandle,
    flags: u64,
    shareType: aclrtMemSharedHandleType,
    shareableHandle: Out<'_, c_void>,
) -> aclError {
    run("aclrtMemExportToShareableHandleV2", || {
        ensure!(!handle.is_null(), rules::EXP_003, "handle is NULL");
        ensure!(!shareableHandle.is_null(), rules::EXP_003, "shareableHandle is NULL");
        let fabric = shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
        ensure!(
            fabric || shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
            rules::EXP_004,
            "shareType must be 1 or 2, got {shareType}"
        );
        ensure!(flags <= 1, rules::EXP_002, "flags must be 0 or 1, got {flags}");
        if fabric {
            ensure!(
                thread::current_device().is_some(),
                rules::EXP_005 => AclError::RT_CONTEXT_NULL,
                "FABRIC export needs a current context"
            );
            ensure!(
                super::profile::chip().has_fabric(),
                rules::EXP_005 => AclError::RT_FEATURE_NOT_SUPPORT,
                "FABRIC handles need a server id, which {} has not (VMMKIT_SOC)",
                super::profile::soc().name.to_string_lossy()
            );
        }
        let key = export(handle, flags)?;
        // The caller passes room for the chosen form.
        if fabric {
            shareableHandle.cast::<aclrtMemFabricHandle>().write(fabric_of(key))?;
        } else {
            shareableHandle.cast::<u64>().write(key)?;
        }
        Ok(())
    })
}

fn set_pid(key: u64, pid: In<'_, i32>, pidNum: usize) -> Result<(), Fail> {
    ensure!(pidNum <= ACL_TRUSTLIST_MAX_PIDS, rules::PID_003, "pidNum {pidNum} exceeds 65535");
    // ACL-PID-005: the device field (bits 32-39) must name a device or the host;
    // bits 40-63 are ignored (devmm_share_handle_para_check, devmm_svm.c:6488-6499).
    let key = key & KEY_BITS;
    let dev = (key >> 32) & 0xff;
    let well_formed = emu()?.is_physical_device(dev as i64) || dev >= 64;
    ensure!(well_formed, rules::PID_005, "{key:#x} is not a shareable handle");
    let pids = pid.to_vec(pidNum)?;
    emu()?.set_trusted(key, &pids).map_err(|e| Fail::core(Op::SetPid, e))
}

/// `aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)`:
/// [ACL-PID-001](vmmkit_sys::acl::rules::PID_001), 003, 005, 006, 007, 008, 004 (and 009, 012: refresh, no liveness check).
pub extern "C" fn aclrtMemSetPidToShareableHandle(
    shareableHandle: u64,
    pid: In<'_, i32>,
    pidNum: usize,
) -> aclError {
    run("aclrtMemSetPidToShareableHandle", || {
        ensure!(!pid.is_null(), rules::PID_001, "pid is NULL");
        ensure!(pidNum >= 1, rules::PID_001, "pidNum is 0");
        set_pid(shareableHandle, pid, pidNum)
    })
}

/// `aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType, int32_t *pid, size_t pidNum)`:
/// [ACL-PID-002](vmmkit_sys::acl::rules::PID_002), then as V1.
pub extern "C" fn aclrtMemSetPidToShareableHandleV2(
    shareableHandle: In<'_, c_void>,
    shareType: aclrtMemSharedHandleType,
    pid: In<'_, i32>,
    pidNum: usize,
) -> aclError {
    run("aclrtMemSetPidToShareableHandleV2", || {
        ensure!(!shareableHandle.is_null(), rules::PID_002, "shareableHandle is NULL");
        ensure!(!pid.is_null(), rules::PID_002, "pid is NULL");
        ensure!(pidNum >= 1, rules::PID_002, "pidNum is 0");
        ensure!(
            matches!(shareType, 1 | 2),
            rules::PID_002 => AclError::RT_PARAM_INVALID,
            "shareType must be 1 or 2, got {shareType}"
        );
        // It points to the form `shareType` names.
        let key = read_key(shareableHandle, shareType)?;
        set_pid(key, pid, pidNum)
    })
}

/// The common import path from the shareable-handle lookup on.
fn import(key: u64, device: u32, v1: bool) -> Result<aclrtDrvMemHandle, Fail> {
    let e = emu()?;
    // A repeated import (ACL-IMP-014) is answered by the import cache under
    // one lock, with ACL-IMP-016's peer access, and no system call: the key
    // exists (this process's hold keeps the entry), so ACL-IMP-007 passes, and
    // V1's context check (ACL-IMP-008) is made first.
    if (!v1 || thread::current_device().is_some())
        && let Some((id, _)) = e.import_again(key, Place::Device(device), true)
    {
        return Ok(to_handle(id));
    }
    // ACL-IMP-007 (the key exists) comes before ACL-IMP-008 (V1's context)
    // and before a fault injected on the key. When neither can answer
    // first (V2, or V1 with a context, and no fault on the key), the
    // lookup's own `open` finds a missing key with the same code, rule and
    // message (`CoreError::UnknownShareable`), so no separate `stat` of
    // the entry is made: one path walk per first import, not two.
    let has_context = !v1 || thread::current_device().is_some();
    let injected = crate::faults::on_key(crate::instrument::current_call(), key).is_some();
    if !has_context || injected {
        let known = e.holds_import(key, Place::Device(device)) || e.share_exists(key);
        ensure!(known, rules::IMP_007, "no exported memory has shareable handle {key:#x}");
        // ACL-IMP-008: V1 checks the context after the lookup.
        ensure!(has_context, rules::IMP_008, "no current context");
    }
    let id = e.import(key, Place::Device(device)).map_err(|e| Fail::core(Op::Import, e))?;
    // ACL-IMP-016: a cross-device import enables peer access by itself.
    if let Ok(info) = e.describe(id)
        && let Place::Device(src) = info.place
    {
        note_peer(e, device, src);
        note_peer(e, src, device);
    }
    Ok(to_handle(id))
}

/// `aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle *handle)`:
/// [ACL-IMP-001](vmmkit_sys::acl::rules::IMP_001), 002, 007, 008, then 009, 018, 011, 012 (cache hit: [ACL-IMP-014](vmmkit_sys::acl::rules::IMP_014)).
pub extern "C" fn aclrtMemImportFromShareableHandle(
    shareableHandle: u64,
    deviceId: i32,
    handle: Out<'_, aclrtDrvMemHandle>,
) -> aclError {
    run("aclrtMemImportFromShareableHandle", || {
        ensure!(!handle.is_null(), rules::IMP_001, "handle is NULL");
        let ok = emu()?.is_device(i64::from(deviceId));
        ensure!(ok, rules::IMP_002, "device {deviceId} does not exist");
        // Bits 40-63 are ignored: the driver repacks share id and device (devmm_svm.c:6697-6701).
        let h = import(shareableHandle & KEY_BITS, deviceId.max(0) as u32, true)?;
        handle.write(h)?;
        Ok(())
    })
}

/// `aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType, uint64_t flags, aclrtDrvMemHandle *handle)`:
/// [ACL-IMP-003](vmmkit_sys::acl::rules::IMP_003), 004, 005, 006, then as V1 onto the current device.
pub extern "C" fn aclrtMemImportFromShareableHandleV2(
    shareableHandle: In<'_, c_void>,
    shareType: aclrtMemSharedHandleType,
    flags: u64,
    handle: Out<'_, aclrtDrvMemHandle>,
) -> aclError {
    run("aclrtMemImportFromShareableHandleV2", || {
        ensure!(!shareableHandle.is_null(), rules::IMP_003, "shareableHandle is NULL");
        ensure!(!handle.is_null(), rules::IMP_003, "handle is NULL");
        ensure!(flags == 0, rules::IMP_003, "flags must be 0, got {flags}");
        let cur = thread::current_device();
        ensure!(cur.is_some(), rules::IMP_004, "V2 imports onto the current device; there is none");
        ensure!(matches!(shareType, 1 | 2), rules::IMP_005, "shareType must be 1 or 2, got {shareType}");
        ensure!(
            shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC || super::profile::chip().has_fabric(),
            rules::IMP_006 => AclError::RT_FEATURE_NOT_SUPPORT,
            "FABRIC handles need a server id, which {} has not (VMMKIT_SOC)",
            super::profile::soc().name.to_string_lossy()
        );
        // It points to the form `shareType` names.
        let key = read_key(shareableHandle, shareType)?;
        let h = import(key, cur.unwrap_or(0), false)?;
        handle.write(h)?;
        Ok(())
    })
}
