//! ACL-NTF: notifies, made, recorded, waited on and shared by key across
//! real processes.

use std::ffi::{c_char, c_void};
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, TWO_MIB, setup};
use crate::outcome::Failure;
use crate::peer::{Peer, Request};

/// Bytes of a notify key buffer: 64 characters and the NUL.
const KEY_LEN: usize = 65;
/// A well-formed key that names no notify.
const UNKNOWN_KEY: &[u8] = b"000000000000000000000000000000000000000000000000fffffffffffffff0";

/// A fresh notify on device 0.
pub(super) fn notify(cx: &Ctx) -> Result<aclrtNotify, Failure> {
    cx.device(0)?;
    let mut n: aclrtNotify = ptr::null_mut();
    setup("aclrtCreateNotify", cx.acl().aclrtCreateNotify(&mut n, ACL_NOTIFY_DEFAULT)?)?;
    Ok(n)
}

/// `aclrtNotifyGetExportKey(n, key[65], 65, flags)`: the code and the key.
fn get_key(cx: &Ctx, n: aclrtNotify, flags: u64) -> Result<(AclError, Vec<u8>), Failure> {
    let mut key = [0u8; KEY_LEN];
    let r = cx.acl().aclrtNotifyGetExportKey(n, key.as_mut_ptr().cast(), key.len(), flags)?;
    let end = key.iter().position(|&b| b == 0).unwrap_or(key.len());
    Ok((r, key[..end].to_vec()))
}

/// A fresh notify exported with `flags`, and its key.
fn exported(cx: &Ctx, flags: u64) -> Result<(aclrtNotify, Vec<u8>), Failure> {
    let n = notify(cx)?;
    let (r, key) = get_key(cx, n, flags)?;
    setup(&format!("aclrtNotifyGetExportKey(flags {flags})"), r)?;
    Ok((n, key))
}

fn c_key(bytes: &[u8]) -> Vec<c_char> {
    bytes.iter().chain(&[0]).map(|&b| b as c_char).collect()
}

fn import(cx: &Ctx, key: &[u8], flags: u64) -> Result<(AclError, aclrtNotify), Failure> {
    let mut n: aclrtNotify = ptr::null_mut();
    let r = cx.acl().aclrtNotifyImportByKey(&mut n, c_key(key).as_ptr(), flags)?;
    Ok((r, n))
}

fn peer_import(peer: &mut Peer, key: &[u8], flags: u64) -> Result<(AclError, usize), Failure> {
    let r = peer.call(&Request::NotifyImport { key: key.to_vec(), flags })?;
    Ok((AclError(r.code), r.slot))
}

/// [ACL-NTF-001](vmmkit_sys::acl::rules::NTF_001): NULL notify 100000; flag 2 and 4 107000; flags 0 and 1 make notifies.
pub fn create_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut n: aclrtNotify = ptr::null_mut();
    cx.expect("aclrtCreateNotify(NULL, 0)", AclError::INVALID_PARAM, acl.aclrtCreateNotify(ptr::null_mut(), 0)?)?;
    cx.expect("aclrtCreateNotify(flag 2)", AclError::RT_PARAM_INVALID, acl.aclrtCreateNotify(&mut n, 2)?)?;
    cx.expect("aclrtCreateNotify(flag 4)", AclError::RT_PARAM_INVALID, acl.aclrtCreateNotify(&mut n, 4)?)?;
    for flag in [ACL_NOTIFY_DEFAULT, ACL_NOTIFY_DEVICE_USE_ONLY] {
        cx.expect_ok(&format!("aclrtCreateNotify(flag {flag})"), acl.aclrtCreateNotify(&mut n, flag)?)?;
        cx.expect_ok("aclrtDestroyNotify", acl.aclrtDestroyNotify(n)?)?;
    }
    Ok(())
}

/// [ACL-NTF-002](vmmkit_sys::acl::rules::NTF_002): every NULL argument is 100000.
pub fn null_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let n = notify(cx)?;
    let acl = cx.acl();
    let p = AclError::INVALID_PARAM;
    let null: aclrtNotify = ptr::null_mut();
    let mut id = 0u32;
    let mut key = [0 as c_char; KEY_LEN];
    let mut pid = [1i32];
    cx.expect("aclrtDestroyNotify(NULL)", p, acl.aclrtDestroyNotify(null)?)?;
    cx.expect("aclrtRecordNotify(NULL)", p, acl.aclrtRecordNotify(null, ptr::null_mut())?)?;
    cx.expect("aclrtWaitAndResetNotify(NULL)", p, acl.aclrtWaitAndResetNotify(null, ptr::null_mut(), 0)?)?;
    cx.expect("aclrtGetNotifyId(NULL, id)", p, acl.aclrtGetNotifyId(null, &mut id)?)?;
    cx.expect("aclrtGetNotifyId(n, NULL)", p, acl.aclrtGetNotifyId(n, ptr::null_mut())?)?;
    cx.expect("aclrtNotifyGetExportKey(NULL)", p, acl.aclrtNotifyGetExportKey(null, key.as_mut_ptr(), KEY_LEN, 0)?)?;
    cx.expect("aclrtNotifyGetExportKey(key NULL)", p, acl.aclrtNotifyGetExportKey(n, ptr::null_mut(), KEY_LEN, 0)?)?;
    let k = c_key(UNKNOWN_KEY);
    cx.expect("aclrtNotifyImportByKey(NULL)", p, acl.aclrtNotifyImportByKey(ptr::null_mut(), k.as_ptr(), 0)?)?;
    let mut out: aclrtNotify = ptr::null_mut();
    cx.expect("aclrtNotifyImportByKey(key NULL)", p, acl.aclrtNotifyImportByKey(&mut out, ptr::null(), 0)?)?;
    cx.expect("aclrtNotifySetImportPid(NULL)", p, acl.aclrtNotifySetImportPid(null, pid.as_mut_ptr(), 1)?)?;
    cx.expect("aclrtNotifySetImportPid(pid NULL)", p, acl.aclrtNotifySetImportPid(n, ptr::null_mut(), 1)?)?;
    cx.expect_ok("state unchanged: aclrtGetNotifyId", acl.aclrtGetNotifyId(n, &mut id)?)?;
    cx.expect_ok("aclrtDestroyNotify", acl.aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-003](vmmkit_sys::acl::rules::NTF_003): len 0, flags 1 and 3, a 64-byte buffer are 107000; 65 bytes work.
pub fn export_key_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let n = notify(cx)?;
    let acl = cx.acl();
    let rt = AclError::RT_PARAM_INVALID;
    let mut key = [0 as c_char; KEY_LEN];
    let k = key.as_mut_ptr();
    cx.expect("GetExportKey(len 0)", rt, acl.aclrtNotifyGetExportKey(n, k, 0, 0)?)?;
    cx.expect("GetExportKey(flags 1)", rt, acl.aclrtNotifyGetExportKey(n, k, KEY_LEN, 1)?)?;
    cx.expect("GetExportKey(flags 3)", rt, acl.aclrtNotifyGetExportKey(n, k, KEY_LEN, 3)?)?;
    cx.expect("GetExportKey(len 64)", rt, acl.aclrtNotifyGetExportKey(n, k, KEY_LEN - 1, 0)?)?;
    cx.expect_ok("state unchanged: GetExportKey(len 65)", acl.aclrtNotifyGetExportKey(n, k, KEY_LEN, 0)?)?;
    let len = key.iter().position(|&c| c == 0);
    cx.ensure("key length (to its NUL)", len == Some(64), 64, format!("{len:?}"))?;
    cx.expect_ok("aclrtDestroyNotify", acl.aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-004](vmmkit_sys::acl::rules::NTF_004): a second export of the same notify is 507000.
pub fn export_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let (n, _key) = exported(cx, 0)?;
    let (r, _) = get_key(cx, n, 0)?;
    cx.expect_code("a second aclrtNotifyGetExportKey", r)?;
    cx.expect_ok("aclrtDestroyNotify", cx.acl().aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-005](vmmkit_sys::acl::rules::NTF_005): import flags 4 is 107000; a key that names no notify, and
/// one that is not a key at all, are 507899.
pub fn import_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (n, key) = exported(cx, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)?;
    let (r, _) = import(cx, &key, 4)?;
    cx.expect("ImportByKey(flags 4)", AclError::RT_PARAM_INVALID, r)?;
    let (r, _) = import(cx, UNKNOWN_KEY, 0)?;
    cx.expect("ImportByKey(a key no notify has)", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    let (r, _) = import(cx, b"not a key", 0)?;
    cx.expect("ImportByKey(\"not a key\")", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    let mut b = cx.peer("B")?;
    let (r, _) = peer_import(&mut b, &key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)?;
    cx.expect_ok("state unchanged: peer B imports the key (flags 2)", r)?;
    b.exit()?;
    cx.expect_ok("aclrtDestroyNotify", cx.acl().aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-006](vmmkit_sys::acl::rules::NTF_006): SetImportPid with num 0 is 107000; on a notify never exported, 507899.
pub fn set_pid_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let n = notify(cx)?;
    let acl = cx.acl();
    let mut pid = [std::process::id() as i32 + 1];
    cx.expect("SetImportPid(num 0)", AclError::RT_PARAM_INVALID, acl.aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 0)?)?;
    let r = acl.aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 1)?;
    cx.expect("SetImportPid of a notify never exported (empty name)", AclError::RT_PARAM_INVALID, r)?;
    let mut key = [0 as c_char; KEY_LEN];
    setup("aclrtNotifyGetExportKey", acl.aclrtNotifyGetExportKey(n, key.as_mut_ptr(), KEY_LEN, 0)?)?;
    cx.expect_ok("state unchanged: SetImportPid once exported", acl.aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 1)?)?;
    cx.expect_ok("aclrtDestroyNotify", acl.aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-009](vmmkit_sys::acl::rules::NTF_009): each bad argument is 107000 and lists nobody; then a list
/// of one entry lets peer B import.
pub fn inter_server_list(cx: &mut Ctx) -> Result<(), Failure> {
    let (n, key) = exported(cx, 0)?;
    let mut b = cx.peer("B")?;
    let acl = cx.acl();
    let rt = AclError::RT_PARAM_INVALID;
    let mut pid = [b.bare_tgid()?];
    let entry = |pid: *mut i32, num| aclrtServerPid { sdid: 0, pid, num };
    let mut good = [entry(pid.as_mut_ptr(), 1)];
    let null: aclrtNotify = ptr::null_mut();
    cx.expect("InterServer(NULL notify)", rt, acl.aclrtNotifySetImportPidInterServer(null, good.as_mut_ptr(), 1)?)?;
    cx.expect("InterServer(serverPids NULL)", rt, acl.aclrtNotifySetImportPidInterServer(n, ptr::null_mut(), 1)?)?;
    cx.expect("InterServer(num 0)", rt, acl.aclrtNotifySetImportPidInterServer(n, good.as_mut_ptr(), 0)?)?;
    let mut no_pid = [entry(ptr::null_mut(), 1)];
    cx.expect("InterServer(entry pid NULL)", rt, acl.aclrtNotifySetImportPidInterServer(n, no_pid.as_mut_ptr(), 1)?)?;
    let mut two = [entry(pid.as_mut_ptr(), 2)];
    cx.expect("InterServer(entry num 2)", rt, acl.aclrtNotifySetImportPidInterServer(n, two.as_mut_ptr(), 1)?)?;
    let (r, _) = peer_import(&mut b, &key, 0)?;
    cx.expect("peer B after the refused lists imports", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    let r = acl.aclrtNotifySetImportPidInterServer(n, good.as_mut_ptr(), 1)?;
    cx.expect_ok("aclrtNotifySetImportPidInterServer [B]", r)?;
    let (r, _) = peer_import(&mut b, &key, 0)?;
    cx.expect_ok("peer B (listed) imports", r)?;
    b.exit()?;
    cx.expect_ok("aclrtDestroyNotify", cx.acl().aclrtDestroyNotify(n)?)
}

/// [ACL-NTF-007](vmmkit_sys::acl::rules::NTF_007): B (not listed) is refused, then listed and imports; the
/// creator imports its own notify; with DISABLE_PID_VALIDATION C imports unlisted.
pub fn trustlist(cx: &mut Ctx) -> Result<(), Failure> {
    let (n, key) = exported(cx, 0)?;
    let mut b = cx.peer("B")?;
    let (r, _) = peer_import(&mut b, &key, 0)?;
    cx.expect_code("peer B (not listed) imports", r)?;
    let mut pid = [b.bare_tgid()?];
    setup("aclrtNotifySetImportPid [B]", cx.acl().aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 1)?)?;
    let (r, _) = peer_import(&mut b, &key, 0)?;
    cx.expect_ok("peer B (listed) imports", r)?;
    let (r, own) = import(cx, &key, 0)?;
    cx.expect_ok("the creator imports its own notify (wlist[0])", r)?;
    cx.expect_ok("aclrtDestroyNotify of the creator's import", cx.acl().aclrtDestroyNotify(own)?)?;
    let (open, key2) = exported(cx, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)?;
    let mut c = cx.peer("C")?;
    let (r, _) = peer_import(&mut c, &key2, 0)?;
    cx.expect_ok("peer C (no list, DISABLE_PID_VALIDATION) imports", r)?;
    b.exit()?;
    c.exit()?;
    cx.expect_ok("aclrtDestroyNotify", cx.acl().aclrtDestroyNotify(n)?)?;
    cx.expect_ok("aclrtDestroyNotify", cx.acl().aclrtDestroyNotify(open)?)
}

/// 2 MiB of `aclrtMalloc` on device 0 shared by an IPC key (flag 1), the
/// peer's mapping slot of it, and the key (closed by [`free_block`]).
pub(super) fn shared_block(cx: &Ctx, peer: &mut Peer) -> Result<(*mut c_void, usize, Vec<u8>), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut va: *mut c_void = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", acl.aclrtMalloc(&mut va, TWO_MIB, ACL_MEM_MALLOC_HUGE_FIRST))?;
    setup("aclrtMemset", acl.aclrtMemset(va, TWO_MIB, 0, TWO_MIB))?;
    let mut key = [0u8; ACL_IPC_KEY_MIN_LEN];
    setup("aclrtIpcMemGetExportKey", acl.aclrtIpcMemGetExportKey(va, TWO_MIB, key.as_mut_ptr().cast(), key.len(), 1))?;
    let end = key.iter().position(|&b| b == 0).unwrap_or(key.len());
    let r = peer.setup(&Request::IpcImport { key: key[..end].to_vec(), flags: 0, size: TWO_MIB as u64 })?;
    Ok((va, r.slot, key[..end].to_vec()))
}

/// Closes the key of a [`shared_block`] and frees it (the peer has exited).
pub(super) fn free_block(cx: &Ctx, va: *mut c_void, key: &[u8]) -> Result<(), Failure> {
    setup("aclrtIpcMemClose", cx.acl().aclrtIpcMemClose(c_key(key).as_ptr()))?;
    setup("aclrtFree", cx.acl().aclrtFree(va))
}

/// Writes the pattern `seed` over `va` with `aclrtMemcpyAsync` on a new
/// stream, then `record` on it; returns the stream and the host buffer
/// (which must live until the stream has run).
pub(super) fn write_async(
    cx: &Ctx,
    va: *mut c_void,
    seed: u8,
    record: impl FnOnce(aclrtStream) -> Result<AclError, Failure>,
) -> Result<(aclrtStream, Vec<u8>), Failure> {
    let acl = cx.acl();
    let mut s: aclrtStream = ptr::null_mut();
    setup("aclrtCreateStream", acl.aclrtCreateStream(&mut s))?;
    let data = crate::pattern::fill(seed, TWO_MIB);
    let r = acl.aclrtMemcpyAsync(va, TWO_MIB, data.as_ptr().cast(), TWO_MIB, ACL_MEMCPY_HOST_TO_DEVICE, s);
    setup("aclrtMemcpyAsync(host to device)", r)?;
    setup("record on the stream", record(s)?)?;
    Ok((s, data))
}

/// [ACL-NTF-008](vmmkit_sys::acl::rules::NTF_008): B waits on its stream, A's async copy and record come after;
/// B's read sees A's data. The wait reset the notify: a second wait, with no
/// timeout, holds B's stream (its synchronize with 1 ms is 507046) until A
/// copies again and records again, and B's held read then sees the new data.
pub fn ordering_across_processes(cx: &mut Ctx) -> Result<(), Failure> {
    let (n, key) = exported(cx, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)?;
    let mut b = cx.peer("B")?;
    let (va, map, mem_key) = shared_block(cx, &mut b)?;
    let (r, slot) = peer_import(&mut b, &key, 0)?;
    setup("peer B: aclrtNotifyImportByKey", r)?;
    let acl = cx.acl();
    let (s, _data) = write_async(cx, va, 21, |s| acl.aclrtRecordNotify(n, s))?;
    let got = b.call(&Request::NotifyWaitRead { notify: slot, map, seed: 21, timeout: 0 })?;
    cx.ensure_code(&format!("peer B waits and reads ({})", got.text), AclError::SUCCESS, AclError(got.code))?;
    cx.ensure("peer B reads A's data after the wait", got.value == 1, "pattern 21", &got.text)?;
    let held = b.call(&Request::NotifyWaitHeld { notify: slot, map })?;
    let step = format!("a second wait after the reset (no new record) holds peer B's stream ({})", held.text);
    cx.ensure_code(&step, AclError::RT_STREAM_SYNC_TIMEOUT, AclError(held.code))?;
    let (s2, _data2) = write_async(cx, va, 22, |s| acl.aclrtRecordNotify(n, s))?;
    let got = b.call(&Request::ReadHeld { seed: 22 })?;
    cx.ensure_code(&format!("peer B's held read ends ({})", got.text), AclError::SUCCESS, AclError(got.code))?;
    cx.ensure("peer B's held read sees A's data of the new record", got.value == 1, "pattern 22", &got.text)?;
    b.exit()?;
    for s in [s, s2] {
        setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
        setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))?;
    }
    free_block(cx, va, &mem_key)?;
    cx.expect_ok("aclrtDestroyNotify", acl.aclrtDestroyNotify(n)?)
}
