//! Notifies: `aclrtCreateNotify`, record, wait-and-reset, and sharing them
//! across processes by key (`aclrtNotifyGetExportKey`, `SetImportPid`,
//! `ImportByKey`), over the core's shared cells (`core/ipc_event.rs`):
//! record is a stream work that sets the notify, wait-and-reset one that
//! waits until it is set and clears it (ACL-NTF-*, docs/emulator.md
//! "Shared events and notifies").
//!
//! An `aclrtNotify` is `NOTIFY_BASE` + the core's event number. A key is the
//! core's key in 64 hex digits and a NUL, as the emulator's IPC memory keys.
#![allow(non_snake_case)]

use std::ffi::c_char;
use std::time::Duration;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, non_null, run};
use crate::ffi::{CStrIn, In, Out};
use super::device::stream_id;
use super::state::{lock, state};
use crate::core::{CoreError, EventId};

const NOTIFY_BASE: usize = 0x00e7_f000_0000_0000;
/// Characters of a key, without its NUL.
pub(super) const KEY_CHARS: usize = 64;


/// The core event of `n`, which must be a notify of this process (107000 otherwise).
fn notify_id(n: aclrtNotify) -> Result<EventId, Fail> {
    let e = emu()?;
    let id = EventId((n as usize).wrapping_sub(NOTIFY_BASE) as u64);
    if !lock(&state(e).notifies).contains(&(n as usize)) || !e.notify_exists(id) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{n:p} is not a notify of this process")));
    }
    Ok(id)
}

fn handle_of(e: &crate::core::Emulator, id: EventId) -> aclrtNotify {
    let h = NOTIFY_BASE + id.0 as usize;
    lock(&state(e).notifies).insert(h);
    h as aclrtNotify
}

/// A key's text: the core key in 64 hex digits.
pub(super) fn key_text(key: u64) -> String {
    format!("{key:0KEY_CHARS$x}")
}

/// The core key `text` spells, if it is one of this emulator's keys.
pub(super) fn parse_key(text: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(text).ok().filter(|s| s.len() == KEY_CHARS)?;
    let (zeros, hex) = s.split_at(KEY_CHARS - 16);
    if !zeros.bytes().all(|b| b == b'0') {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// The bytes of a key argument up to its NUL, reading at most 65 bytes
/// (`key` checked non-null).
fn key_arg(key: CStrIn<'_>) -> Result<Vec<u8>, Fail> {
    Ok(key.bytes_up_to(KEY_CHARS + 1)?)
}

/// A refusal of the driver (507899) under `rule`, or success when the rule is mutated away.
fn refused(rule: &'static vmmkit_sys::rule::Rule, msg: String) -> Fail {
    if crate::mutation::enforced(rule) {
        Fail::rule_code(rule, AclError::RT_DRV_INTERNAL_ERROR, msg)
    } else {
        Fail::plain(AclError::SUCCESS, String::new())
    }
}

fn core_fail(e: CoreError) -> Fail {
    match e {
        CoreError::UnknownEvent(_) | CoreError::UnknownStream(_) | CoreError::NotInterprocess(_) => {
            Fail::plain(AclError::RT_PARAM_INVALID, e.to_string())
        }
        other => Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, other.to_string()),
    }
}

/// `aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)`: [ACL-NTF-001](vmmkit_sys::acl::rules::NTF_001).
pub extern "C" fn aclrtCreateNotify(notify: Out<'_, aclrtNotify>, flag: u64) -> aclError {
    run("aclrtCreateNotify", || {
        ensure!(!notify.is_null(), rules::NTF_001 => AclError::INVALID_PARAM, "notify is NULL");
        ensure!(flag == ACL_NOTIFY_DEFAULT || flag == ACL_NOTIFY_DEVICE_USE_ONLY, rules::NTF_001 => AclError::RT_PARAM_INVALID,
            "flag {flag:#x} is neither ACL_NOTIFY_DEFAULT nor ACL_NOTIFY_DEVICE_USE_ONLY");
        current_device()?;
        let id = emu()?.notify_create().map_err(core_fail)?;
        notify.write(handle_of(emu()?, id))?;
        Ok(())
    })
}

/// `aclError aclrtDestroyNotify(aclrtNotify notify)`: [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002). Records
/// already enqueued still complete; the last holder's destroy removes the
/// shared notify.
pub extern "C" fn aclrtDestroyNotify(notify: aclrtNotify) -> aclError {
    run("aclrtDestroyNotify", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        let id = notify_id(notify)?;
        lock(&state(emu()?).notifies).remove(&(notify as usize));
        emu()?.event_destroy(id).map_err(core_fail)
    })
}

/// `aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)`:
/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002); sets the notify once the stream's earlier work has run.
pub extern "C" fn aclrtRecordNotify(notify: aclrtNotify, stream: aclrtStream) -> aclError {
    run("aclrtRecordNotify", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        let id = notify_id(notify)?;
        emu()?.notify_record(id, stream_id(stream)?).map_err(core_fail)
    })
}

/// `aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)`:
/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002), [ACL-NTF-008](vmmkit_sys::acl::rules::NTF_008). The stream's later work waits until the notify
/// is set, then it is reset. `timeout` is in seconds as the runtime passes it
/// to the wait task (api_impl.cc:4909-4940 logs it as `%us`); 0 and
/// `UINT32_MAX` wait without bound (api_c_event.cc:149-155).
pub extern "C" fn aclrtWaitAndResetNotify(notify: aclrtNotify, stream: aclrtStream, timeout: u32) -> aclError {
    run("aclrtWaitAndResetNotify", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        let id = notify_id(notify)?;
        let t = (timeout != 0 && timeout != u32::MAX).then(|| Duration::from_secs(u64::from(timeout)));
        emu()?.notify_wait_reset(id, stream_id(stream)?, t).map_err(core_fail)
    })
}

/// `aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)`:
/// NULL `notifies` is 100000 (notify.cpp:83-92), `num` 0 or above
/// `UINT32_MAX` 107000 (rtsNotifyBatchReset, api_c_event.cc:161-176), then
/// each notify in turn is reset on the current context's default stream
/// (ApiImpl::NotifyReset, api_impl.cc:4855-4885), the first one that is not a
/// notify of this process (NULL included) ending the batch with 107000;
/// those before it stay reset.
pub extern "C" fn aclrtNotifyBatchReset(notifies: In<'_, aclrtNotify>, num: usize) -> aclError {
    run("aclrtNotifyBatchReset", || {
        non_null(notifies, "notifies")?;
        if num == 0 || num > u32::MAX as usize {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("num {num} is not in (0, {}]", u32::MAX)));
        }
        let stream = stream_id(std::ptr::null_mut())?;
        for i in 0..num {
            // The caller passes `num` notifies at `notifies` (acl_rt.h).
            let n = notifies.read_at(i)?;
            emu()?.notify_reset(notify_id(n)?, stream).map_err(core_fail)?;
        }
        Ok(())
    })
}

/// `aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)`: [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002).
pub extern "C" fn aclrtGetNotifyId(notify: aclrtNotify, notifyId: Out<'_, u32>) -> aclError {
    run("aclrtGetNotifyId", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        ensure!(!notifyId.is_null(), rules::NTF_002, "notifyId is NULL");
        let id = notify_id(notify)?;
        notifyId.write(id.0 as u32)?;
        Ok(())
    })
}

/// `aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)`:
/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002), [ACL-NTF-003](vmmkit_sys::acl::rules::NTF_003), [ACL-NTF-004](vmmkit_sys::acl::rules::NTF_004).
pub extern "C" fn aclrtNotifyGetExportKey(notify: aclrtNotify, key: Out<'_, c_char>, len: usize, flags: u64) -> aclError {
    run("aclrtNotifyGetExportKey", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        ensure!(!key.is_null(), rules::NTF_002, "key is NULL");
        ensure!(len != 0, rules::NTF_003, "len is 0");
        let none = ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION;
        ensure!(flags == 0 || flags == none, rules::NTF_003, "flags {flags:#x} are neither 0 nor {none:#x}");
        ensure!(len > KEY_CHARS, rules::NTF_003, "key buffer of {len} bytes; the key takes 65 with its NUL");
        let id = notify_id(notify)?;
        let e = emu()?;
        let exported = lock(&state(e).exported_notifies).contains(&id);
        if (exported || e.shared_origin(id).map_err(core_fail)? == Some(false)) && crate::mutation::enforced(&rules::NTF_004) {
            return Err(Fail::rule(&rules::NTF_004, "the notify is an IPC notify already (exported or imported)".into()));
        }
        let k = e.notify_export(id, flags == none).map_err(core_fail)?;
        lock(&state(e).exported_notifies).insert(id);
        let text = key_text(k);
        let out = text.as_bytes().iter().chain(&[0]).map(|&b| b as c_char).collect::<Vec<_>>();
        // `key` has room for `len` > 64 bytes: 64 characters and the NUL.
        key.write_slice(&out)?;
        Ok(())
    })
}


/// `aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)`:
/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002), [ACL-NTF-005](vmmkit_sys::acl::rules::NTF_005), [ACL-NTF-007](vmmkit_sys::acl::rules::NTF_007).
pub extern "C" fn aclrtNotifyImportByKey(notify: Out<'_, aclrtNotify>, key: CStrIn<'_>, flags: u64) -> aclError {
    run("aclrtNotifyImportByKey", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        ensure!(!key.is_null(), rules::NTF_002, "key is NULL");
        let max = ACL_NOTIFY_DEVICE_USE_ONLY | ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS;
        ensure!(flags <= max, rules::NTF_005 => AclError::RT_PARAM_INVALID, "flags {flags:#x} above {max:#x}");
        current_device()?;
        let text = key_arg(key)?;
        let e = emu()?;
        let unknown = || refused(&rules::NTF_005, format!("no exported notify has key {}", String::from_utf8_lossy(&text)));
        let Some(k) = parse_key(&text) else { return Err(unknown()) };
        match e.shared_cell_info(k) {
            Ok(i) if i.kind == crate::registry::CellKind::Notify => {}
            _ => return Err(unknown()),
        }
        let id = match e.notify_open(k) {
            Ok(id) => id,
            Err(CoreError::NotTrusted { .. }) => {
                return Err(refused(&rules::NTF_007, "this process is not on the notify's trustlist".into()));
            }
            Err(CoreError::UnknownSharedCell(_)) => return Err(unknown()),
            Err(other) => return Err(core_fail(other)),
        };
        // The creator is the list's first entry (ACL-NTF-007, trs_shr_id_node.c:85): it imports its own notify.
        notify.write(handle_of(emu()?, id))?;
        Ok(())
    })
}

/// The notify of a SetImportPid call with `num` entries: num in (0,
/// INT32_MAX] after the runtime's int32 cast ([ACL-NTF-006](vmmkit_sys::acl::rules::NTF_006)), a notify of this
/// process that was exported (it has a name; otherwise the driver refuses).
fn exported_notify(notify: aclrtNotify, num: usize) -> Result<EventId, Fail> {
    ensure!(num as i32 > 0, rules::NTF_006 => AclError::RT_PARAM_INVALID, "num {num} is not in (0, INT32_MAX]");
    let id = notify_id(notify)?;
    ensure!(
        lock(&state(emu()?).exported_notifies).contains(&id),
        rules::NTF_006 => AclError::RT_PARAM_INVALID,
        "the notify was never exported: the driver refuses its empty name"
    );
    Ok(id)
}

/// Lists `pids` on notify `id`'s trustlist (the driver refuses only zeros and a full list).
fn trust(id: EventId, pids: &[i32]) -> Result<(), Fail> {
    emu()?.notify_trust(id, pids).map_err(|e| match e {
        CoreError::NoPids | CoreError::TrustlistFull(_) => Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, e.to_string()),
        other => core_fail(other),
    })
}

/// `aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)`:
/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002), [ACL-NTF-006](vmmkit_sys::acl::rules::NTF_006).
pub extern "C" fn aclrtNotifySetImportPid(notify: aclrtNotify, pid: In<'_, i32>, num: usize) -> aclError {
    run("aclrtNotifySetImportPid", || {
        ensure!(!notify.is_null(), rules::NTF_002, "notify is NULL");
        ensure!(!pid.is_null(), rules::NTF_002, "pid is NULL");
        let id = exported_notify(notify, num)?;
        // The caller's array of `num` pids (num checked positive as an i32).
        let pids = pid.to_vec(num as i32 as usize)?;
        trust(id, &pids)
    })
}

/// `aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids, size_t num)`:
/// [ACL-NTF-009](vmmkit_sys::acl::rules::NTF_009). The runtime checks every argument (the ACL layer none),
/// then lists each entry's pid; the super-pod id is not told apart.
pub extern "C" fn aclrtNotifySetImportPidInterServer(
    notify: aclrtNotify,
    serverPids: In<'_, aclrtServerPid>,
    num: usize,
) -> aclError {
    run("aclrtNotifySetImportPidInterServer", || {
        ensure!(!notify.is_null(), rules::NTF_009, "notify is NULL");
        ensure!(!serverPids.is_null(), rules::NTF_009, "serverPids is NULL");
        ensure!(num != 0, rules::NTF_009, "num is 0");
        let id = notify_id(notify)?;
        // The caller's array of `num` entries, as the runtime reads it.
        let entries = serverPids.to_vec(num)?;
        let mut pids = Vec::with_capacity(entries.len());
        for (i, s) in entries.iter().enumerate() {
            ensure!(!s.pid.is_null(), rules::NTF_009, "serverPids[{i}].pid is NULL");
            ensure!(s.num == 1, rules::NTF_009, "serverPids[{i}].num is {}, not 1", s.num);
            // The one pid the entry names.
            pids.push(serverPids.held_at(i, |s| s.pid.cast_const())?.read()?);
        }
        ensure!(
            lock(&state(emu()?).exported_notifies).contains(&id),
            rules::NTF_006 => AclError::RT_PARAM_INVALID,
            "the notify was never exported: the driver refuses its empty name"
        );
        trust(id, &pids)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_are_64_characters() {
        let k = (1u64 << 63) | 0x1234;
        let t = key_text(k);
        assert_eq!(t.len(), KEY_CHARS);
        assert_eq!(parse_key(t.as_bytes()), Some(k));
        assert_eq!(parse_key(b"12"), None);
        let mut bad = t.clone().into_bytes();
        bad[0] = b'1';
        assert_eq!(parse_key(&bad), None);
    }
}
