//! ACL-IPK: IPC by key (`aclrtIpcMemGetExportKey`, `SetImportPid`,
//! `ImportByKey`, `Close`) on `aclrtMalloc` memory, across real processes.

use std::ffi::{c_char, c_void};
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, TWO_MIB, setup};
use crate::outcome::Failure;
use crate::peer::{Peer, Request};

type Va = *mut c_void;

/// A well-formed key (64 hex digits) that no process created.
const UNKNOWN_KEY: &[u8] = b"7fffffff7fffffffffffffff0000007fffffffffffffff000000000000000000";

/// `bytes` with a NUL, as C reads a key.
fn c_key(bytes: &[u8]) -> Vec<c_char> {
    bytes.iter().chain(&[0]).map(|&b| b as c_char).collect()
}

/// 2 MiB of `aclrtMalloc` on device 0, filled with the pattern `seed`.
fn block(cx: &Ctx, seed: u8) -> Result<Va, Failure> {
    cx.device(0)?;
    let mut va: Va = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", cx.acl().aclrtMalloc(&mut va, TWO_MIB, ACL_MEM_MALLOC_HUGE_FIRST))?;
    cx.write(va, TWO_MIB, seed)?;
    Ok(va)
}

/// `aclrtIpcMemGetExportKey(va, 2 MiB, key[65], 65, flags)`: the code and the key.
fn get_key(cx: &Ctx, va: Va, flags: u64) -> (AclError, Vec<u8>) {
    let mut key = [0u8; ACL_IPC_KEY_MIN_LEN];
    let r = cx.acl().aclrtIpcMemGetExportKey(va, TWO_MIB, key.as_mut_ptr().cast(), key.len(), flags);
    let end = key.iter().position(|&b| b == 0).unwrap_or(key.len());
    (r, key[..end].to_vec())
}

/// A key of a fresh block with pattern `seed`, exported with `flags`.
fn exported(cx: &Ctx, flags: u64, seed: u8) -> Result<(Va, Vec<u8>), Failure> {
    let va = block(cx, seed)?;
    let (r, key) = get_key(cx, va, flags);
    setup(&format!("aclrtIpcMemGetExportKey(flags {flags})"), r)?;
    Ok((va, key))
}

fn import(cx: &Ctx, key: &[u8], flags: u64) -> (AclError, Va) {
    let mut va: Va = ptr::null_mut();
    let r = cx.acl().aclrtIpcMemImportByKey(&mut va, c_key(key).as_ptr(), flags);
    (r, va)
}

fn close(cx: &Ctx, key: &[u8]) -> AclError {
    cx.acl().aclrtIpcMemClose(c_key(key).as_ptr())
}

fn set_pid(cx: &Ctx, key: &[u8], pids: &[i32]) -> AclError {
    let mut p = pids.to_vec();
    cx.acl().aclrtIpcMemSetImportPid(c_key(key).as_ptr(), p.as_mut_ptr(), p.len())
}

/// `peer` imports `key` with `flags`: the code and, on success, the mapping slot and address.
fn peer_import(peer: &mut Peer, key: &[u8], flags: u64) -> Result<(AclError, usize, u64), Failure> {
    let r = peer.call(&Request::IpcImport { key: key.to_vec(), flags, size: TWO_MIB as u64 })?;
    Ok((AclError(r.code), r.slot, r.value))
}

/// `peer` imports `key` and must read the pattern `seed` through it: the mapping slot.
fn peer_reads(cx: &Ctx, peer: &mut Peer, step: &str, key: &[u8], seed: u8) -> Result<usize, Failure> {
    let (r, slot, _) = peer_import(peer, key, 0)?;
    cx.ensure_code(&format!("{step}: peer {} imports", peer.name()), AclError::SUCCESS, r)?;
    peer_sees(cx, peer, step, slot, seed)?;
    Ok(slot)
}

fn peer_sees(cx: &Ctx, peer: &mut Peer, step: &str, slot: usize, seed: u8) -> Result<(), Failure> {
    let diff = peer.verify(slot, seed)?;
    cx.ensure(
        &format!("{step}: peer {} reads", peer.name()),
        diff.is_none(),
        format!("pattern {seed}"),
        diff.unwrap_or_default(),
    )
}

fn peer_close(peer: &mut Peer, key: &[u8]) -> Result<AclError, Failure> {
    peer.code(&Request::IpcClose { key: key.to_vec() })
}

/// [ACL-IPK-001](vmmkit_sys::acl::rules::IPK_001): 64 printable characters and a NUL, in a buffer of 128.
pub fn key_format(cx: &mut Ctx) -> Result<(), Failure> {
    let va = block(cx, 1)?;
    let mut buf = [0xaau8; 128];
    let r = cx.acl().aclrtIpcMemGetExportKey(va, TWO_MIB, buf.as_mut_ptr().cast(), buf.len(), 1);
    cx.ensure_code("aclrtIpcMemGetExportKey into 128 bytes", AclError::SUCCESS, r)?;
    let len = buf.iter().position(|&b| b == 0);
    cx.ensure("key length (to its NUL)", len == Some(64), 64, format!("{len:?}"))?;
    let printable = buf[..64].iter().all(|b| b.is_ascii_graphic());
    cx.ensure("key characters", printable, "printable ASCII", String::from_utf8_lossy(&buf[..64]))?;
    cx.ensure_code("close the key", AclError::SUCCESS, close(cx, &buf[..64]))
}

/// [ACL-IPK-002](vmmkit_sys::acl::rules::IPK_002): NULL pointers 100000; size 0, len 0, flags 2, len 64 107000.
pub fn get_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let va = block(cx, 2)?;
    let acl = cx.acl();
    let mut key = [0u8; ACL_IPC_KEY_MIN_LEN];
    let k: *mut c_char = key.as_mut_ptr().cast();
    let (p, rt) = (AclError::INVALID_PARAM, AclError::RT_PARAM_INVALID);
    cx.expect("GetExportKey(devPtr NULL)", p, acl.aclrtIpcMemGetExportKey(ptr::null_mut(), TWO_MIB, k, 65, 0))?;
    cx.expect("GetExportKey(key NULL)", p, acl.aclrtIpcMemGetExportKey(va, TWO_MIB, ptr::null_mut(), 65, 0))?;
    cx.expect("GetExportKey(size 0)", rt, acl.aclrtIpcMemGetExportKey(va, 0, k, 65, 0))?;
    cx.expect("GetExportKey(len 0)", rt, acl.aclrtIpcMemGetExportKey(va, TWO_MIB, k, 0, 0))?;
    cx.expect("GetExportKey(flags 2)", rt, acl.aclrtIpcMemGetExportKey(va, TWO_MIB, k, 65, 2))?;
    cx.expect("GetExportKey(len 64)", rt, acl.aclrtIpcMemGetExportKey(va, TWO_MIB, k, 64, 0))?;
    cx.expect_ok("state unchanged: GetExportKey(len 65)", acl.aclrtIpcMemGetExportKey(va, TWO_MIB, k, 65, 0))
}

/// [ACL-IPK-003](vmmkit_sys::acl::rules::IPK_003): host memory, an address off the memory's pages, a size past
/// the allocation and VMM memory exported as a shareable handle are 507899;
/// a page inside an allocation and a VMM mapping of memory never shared the
/// VMM way export, and a peer reads each through its key.
pub fn get_memory_kind(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let mut key = [0u8; ACL_IPC_KEY_MIN_LEN];
    let k: *mut c_char = key.as_mut_ptr().cast();
    let mut host: Va = ptr::null_mut();
    setup("aclrtMallocHost(2 MiB)", acl.aclrtMallocHost(&mut host, TWO_MIB))?;
    let r = acl.aclrtIpcMemGetExportKey(host, TWO_MIB, k, 65, 1);
    let _ = acl.aclrtFreeHost(host);
    cx.expect_code("GetExportKey of aclrtMallocHost memory", r)?;
    let shared = cx.alloc_mapped(TWO_MIB)?;
    let mut sh = 0u64;
    let r = acl.aclrtMemExportToShareableHandle(shared.handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &mut sh);
    setup("aclrtMemExportToShareableHandle", r)?;
    let r = acl.aclrtIpcMemGetExportKey(shared.va, TWO_MIB, k, 65, 1);
    cx.expect_code("GetExportKey of a VMM mapping exported as a shareable handle", r)?;
    cx.teardown(shared)?;
    cx.device(0)?;
    let mut va: Va = ptr::null_mut();
    setup("aclrtMalloc(4 MiB)", acl.aclrtMalloc(&mut va, 2 * TWO_MIB, ACL_MEM_MALLOC_HUGE_FIRST))?;
    let inner = va.wrapping_byte_add(TWO_MIB);
    cx.write(va, TWO_MIB, 3)?;
    cx.write(inner, TWO_MIB, 30)?;
    let off_page = va.wrapping_byte_add(4096);
    cx.expect_code("GetExportKey of base + 4 KiB", acl.aclrtIpcMemGetExportKey(off_page, TWO_MIB, k, 65, 1))?;
    cx.expect_code("GetExportKey of 6 MiB of 4", acl.aclrtIpcMemGetExportKey(va, 3 * TWO_MIB, k, 65, 1))?;
    let r = acl.aclrtIpcMemGetExportKey(inner, 2 * TWO_MIB, k, 65, 1);
    cx.expect_code("GetExportKey of 4 MiB at base + 2 MiB", r)?;
    let (r, inner_key) = get_key(cx, inner, 1);
    cx.ensure_code("GetExportKey of 2 MiB at base + 2 MiB (a page inside)", AclError::SUCCESS, r)?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, TWO_MIB, 31)?;
    let (r, vmm_key) = get_key(cx, m.va, 1);
    cx.ensure_code("GetExportKey of a VMM mapping never shared", AclError::SUCCESS, r)?;
    let mut b = cx.peer("B")?;
    peer_reads(cx, &mut b, "the key of base + 2 MiB", &inner_key, 30)?;
    peer_reads(cx, &mut b, "the VMM mapping's key", &vmm_key, 31)?;
    b.exit()?;
    cx.ensure_code("close the key of base + 2 MiB", AclError::SUCCESS, close(cx, &inner_key))?;
    cx.ensure_code("close the VMM mapping's key", AclError::SUCCESS, close(cx, &vmm_key))?;
    cx.teardown(m)
}

/// [ACL-IPK-004](vmmkit_sys::acl::rules::IPK_004): two keys of one block differ, and a peer reads through both.
pub fn repeated_get(cx: &mut Ctx) -> Result<(), Failure> {
    let va = block(cx, 4)?;
    let (r1, k1) = get_key(cx, va, 1);
    cx.ensure_code("first GetExportKey", AclError::SUCCESS, r1)?;
    let (r2, k2) = get_key(cx, va, 1);
    cx.ensure_code("second GetExportKey of the same block", AclError::SUCCESS, r2)?;
    cx.ensure("the two keys", k1 != k2, "different", String::from_utf8_lossy(&k2))?;
    let mut b = cx.peer("B")?;
    peer_reads(cx, &mut b, "first key", &k1, 4)?;
    peer_reads(cx, &mut b, "second key", &k2, 4)?;
    b.exit()
}

/// [ACL-IPK-005](vmmkit_sys::acl::rules::IPK_005): NULL key or pid 100000; num 0, num 32, an empty key and a
/// key without a NUL in 65 bytes 107000; one pid then works.
pub fn set_pid_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 0, 5)?;
    let acl = cx.acl();
    let k = c_key(&key);
    let mut pids: Vec<i32> = (4242..4242 + 32).collect();
    let pp = pids.as_mut_ptr();
    let (p, rt) = (AclError::INVALID_PARAM, AclError::RT_PARAM_INVALID);
    cx.expect("SetImportPid(key NULL)", p, acl.aclrtIpcMemSetImportPid(ptr::null(), pp, 1))?;
    cx.expect("SetImportPid(pid NULL)", p, acl.aclrtIpcMemSetImportPid(k.as_ptr(), ptr::null_mut(), 1))?;
    cx.expect("SetImportPid(num 0)", rt, acl.aclrtIpcMemSetImportPid(k.as_ptr(), pp, 0))?;
    cx.expect("SetImportPid(num 32)", rt, acl.aclrtIpcMemSetImportPid(k.as_ptr(), pp, 32))?;
    cx.expect("SetImportPid(key \"\")", rt, acl.aclrtIpcMemSetImportPid(c_key(b"").as_ptr(), pp, 1))?;
    let long = c_key(&[b'1'; 80]);
    cx.expect("SetImportPid(key of 80 characters)", rt, acl.aclrtIpcMemSetImportPid(long.as_ptr(), pp, 1))?;
    cx.expect_ok("state unchanged: SetImportPid of 31 pids", acl.aclrtIpcMemSetImportPid(k.as_ptr(), pp, 31))
}

/// [ACL-IPK-006](vmmkit_sys::acl::rules::IPK_006): an unknown key, a peer that did not create the key, only
/// zeros or the own pid, and a 32,769th pid are 507899.
pub fn set_pid_refusals(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 0, 6)?;
    cx.expect_code("SetImportPid on a key nobody created", set_pid(cx, UNKNOWN_KEY, &[4242]))?;
    let mut b = cx.peer("B")?;
    let bpid = b.bare_tgid()?;
    let r = b.code(&Request::IpcSetPid { key: key.clone(), pids: vec![bpid] })?;
    cx.expect_code("peer B (not the creator) lists itself", r)?;
    b.exit()?;
    let me = std::process::id() as i32;
    cx.expect_code("SetImportPid [0, 0]", set_pid(cx, &key, &[0, 0]))?;
    cx.expect_code("SetImportPid [own pid]", set_pid(cx, &key, &[me, 0]))?;
    cx.expect_ok("SetImportPid [0, own pid, 100000]", set_pid(cx, &key, &[0, me, 100_000]))?;
    // 1 listed; 1,057 calls of 31 fill the list to exactly 32,768.
    for c in 0..1057 {
        let pids: Vec<i32> = (0..31).map(|i| 100_001 + c * 31 + i).collect();
        setup(&format!("SetImportPid batch {c} of 31 pids"), set_pid(cx, &key, &pids))?;
    }
    cx.expect_code("SetImportPid of a 32,769th pid", set_pid(cx, &key, &[1_000_000]))
}

/// [ACL-IPK-007](vmmkit_sys::acl::rules::IPK_007): three processes: C is listed and imports, B is not and is
/// refused; B listed after its refusal then imports (the list is read at import).
pub fn trustlist_at_import(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 0, 7)?;
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    let (bpid, cpid) = (b.bare_tgid()?, c.bare_tgid()?);
    setup("SetImportPid [C]", set_pid(cx, &key, &[cpid]))?;
    let (r, _, _) = peer_import(&mut b, &key, 0)?;
    cx.expect_code("peer B (not listed) imports", r)?;
    peer_reads(cx, &mut c, "peer C (listed)", &key, 7)?;
    setup("SetImportPid [B]", set_pid(cx, &key, &[bpid]))?;
    peer_reads(cx, &mut b, "peer B (listed after its refusal)", &key, 7)?;
    b.exit()?;
    c.exit()
}

/// [ACL-IPK-008](vmmkit_sys::acl::rules::IPK_008): flag 1: a peer on no list imports and reads.
pub fn validation_disabled(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 1, 8)?;
    let mut b = cx.peer("B")?;
    peer_reads(cx, &mut b, "peer B (no SetImportPid, flag 1)", &key, 8)?;
    b.exit()
}

/// [ACL-IPK-009](vmmkit_sys::acl::rules::IPK_009): the creator imports its flag-0 key (507899) and its flag-1
/// key (0, a second address with the same data).
pub fn creator_imports(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key0) = exported(cx, 0, 9)?;
    let (r, _) = import(cx, &key0, 0);
    cx.expect_code("the creator imports its flag-0 key", r)?;
    let (va, key1) = exported(cx, 1, 9)?;
    let (r, second) = import(cx, &key1, 0);
    cx.expect_ok("the creator imports its flag-1 key", r)?;
    cx.ensure("the imported address", second != va, "a second address", format!("{second:p}"))?;
    cx.verify("the creator reads its own key", second, TWO_MIB, 9)?;
    cx.expect_ok("close the import", close(cx, &key1))
}

/// [ACL-IPK-010](vmmkit_sys::acl::rules::IPK_010): a repeated import gives the same address and needs its own
/// close; after the last, a further close is 507899; an import onto device 1
/// while open on device 0 is 507899.
pub fn repeated_import(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 1, 10)?;
    let mut b = cx.peer("B")?;
    let (r1, s1, a1) = peer_import(&mut b, &key, 0)?;
    let (r2, _, a2) = peer_import(&mut b, &key, 0)?;
    cx.ensure_code("peer B imports twice", AclError::SUCCESS, if r1.is_success() { r2 } else { r1 })?;
    cx.ensure("the second address", a1 == a2, format!("{a1:#x}"), format!("{a2:#x}"))?;
    cx.expect_ok("peer B closes once", peer_close(&mut b, &key)?)?;
    peer_sees(cx, &mut b, "after one close of two", s1, 10)?;
    b.setup(&Request::Start { device: Some(1) })?;
    let (r, _, _) = peer_import(&mut b, &key, 0)?;
    cx.expect_code("peer B imports onto device 1 while open on device 0", r)?;
    b.setup(&Request::Start { device: Some(0) })?;
    cx.expect_ok("peer B closes twice", peer_close(&mut b, &key)?)?;
    cx.expect_code("peer B closes a third time", peer_close(&mut b, &key)?)?;
    b.exit()
}

/// [ACL-IPK-011](vmmkit_sys::acl::rules::IPK_011): a peer on device 1 imports a device-0 key without peer
/// access; the creator imports its key onto device 1 with ENABLE_PEER_ACCESS
/// and device 1 then has access to device 0.
pub fn cross_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 1, 11)?;
    let mut b = Peer::spawn(cx.launcher(), "B")?;
    b.start(Some(1))?;
    peer_reads(cx, &mut b, "peer B on device 1, flags 0", &key, 11)?;
    b.exit()?;
    cx.device(1)?;
    let (r, va) = import(cx, &key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS);
    cx.ensure_code("the creator imports onto device 1 with ENABLE_PEER_ACCESS", AclError::SUCCESS, r)?;
    cx.verify("device 1 reads the key", va, TWO_MIB, 11)?;
    let mut status = 0i32;
    let r = cx.acl().aclrtDevicePeerAccessStatus(1, 0, &mut status)?;
    cx.ensure_code("aclrtDevicePeerAccessStatus(1, 0)", AclError::SUCCESS, r)?;
    cx.ensure("peer access from device 1 to 0", status == 1, 1, status)?;
    cx.ensure_code("close the import", AclError::SUCCESS, close(cx, &key))?;
    cx.device(0)
}

/// [ACL-IPK-012](vmmkit_sys::acl::rules::IPK_012): importers close first (all 0); the creator closes while B
/// has it open: C's import is 507899, B still reads and closes with 0.
pub fn close_order(cx: &mut Ctx) -> Result<(), Failure> {
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    let (_va, first) = exported(cx, 1, 12)?;
    peer_reads(cx, &mut b, "first key", &first, 12)?;
    cx.expect_ok("importer B closes first", peer_close(&mut b, &first)?)?;
    cx.expect_ok("then the creator closes", close(cx, &first))?;
    let (_va, key) = exported(cx, 1, 13)?;
    let slot = peer_reads(cx, &mut b, "second key", &key, 13)?;
    cx.expect_ok("the creator closes while B has the key open", close(cx, &key))?;
    let (r, _, _) = peer_import(&mut c, &key, 0)?;
    cx.expect_code("peer C imports the destroyed key", r)?;
    peer_sees(cx, &mut b, "B after the creator's close", slot, 13)?;
    cx.expect_ok("B closes after the creator", peer_close(&mut b, &key)?)?;
    b.exit()?;
    c.exit()
}

/// [ACL-IPK-013](vmmkit_sys::acl::rules::IPK_013): NULL 100000, "" 107000; an unknown key, another process's
/// key and a second close by the creator 507899.
pub fn close_errors(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let drv = AclError::RT_DRV_INTERNAL_ERROR;
    cx.expect("Close(NULL)", AclError::INVALID_PARAM, acl.aclrtIpcMemClose(ptr::null()))?;
    cx.expect("Close(\"\")", AclError::RT_PARAM_INVALID, close(cx, b""))?;
    cx.expect("Close of a key nobody created", drv, close(cx, UNKNOWN_KEY))?;
    let mut b = cx.peer("B")?;
    let slot = b.setup(&Request::IpcAlloc { size: TWO_MIB as u64, seed: 14 })?.slot;
    let theirs = b.setup(&Request::IpcGetKey { map: slot, flags: 1 })?.bytes;
    cx.expect("Close of peer B's key (neither created nor open here)", drv, close(cx, &theirs))?;
    let (_va, key) = exported(cx, 1, 14)?;
    peer_reads(cx, &mut b, "before the creator's close", &key, 14)?;
    cx.expect_ok("the creator closes its key", close(cx, &key))?;
    let again = close(cx, &key);
    cx.expect("the creator closes it again while peer B has it open", AclError::RT_INVALID_HANDLE, again)?;
    cx.expect_ok("peer B closes", peer_close(&mut b, &key)?)?;
    b.exit()?;
    cx.expect("the creator closes it again once no importer holds it", drv, close(cx, &key))
}

/// [ACL-IPK-014](vmmkit_sys::acl::rules::IPK_014): aclrtFree while B has the key open: 0; C's import 507899; B's close 0.
pub fn free_while_open(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, key) = exported(cx, 1, 15)?;
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    peer_reads(cx, &mut b, "before the free", &key, 15)?;
    cx.ensure_code("aclrtFree of the exported block", AclError::SUCCESS, cx.acl().aclrtFree(va))?;
    let (r, _, _) = peer_import(&mut c, &key, 0)?;
    cx.expect_code("peer C imports after the free", r)?;
    cx.expect_ok("peer B closes after the free", peer_close(&mut b, &key)?)?;
    b.exit()?;
    c.exit()
}

/// [ACL-IPK-015](vmmkit_sys::acl::rules::IPK_015): B exports and exits while C has its key open: the import here is 507899 (and of the key
/// with this process's pid written in it), C's close 0.
pub fn exporter_exited(cx: &mut Ctx) -> Result<(), Failure> {
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    let slot = b.setup(&Request::IpcAlloc { size: TWO_MIB as u64, seed: 16 })?.slot;
    let key = b.setup(&Request::IpcGetKey { map: slot, flags: 1 })?.bytes;
    let opened = peer_reads(cx, &mut c, "before B exits", &key, 16)?;
    b.exit()?;
    cx.device(0)?;
    let (r, _) = import(cx, &key, 0);
    cx.expect_code("import after the exporter exited", r)?;
    // A key is a name: the same key with this process's pid written over the
    // creator's names no export either (the creator is the driver's record).
    let forged: Vec<u8> = format!("{:08x}", std::process::id()).bytes().chain(key.iter().skip(8).copied()).collect();
    let (r, _) = import(cx, &forged, 0);
    cx.expect_code("import of the key with this process's pid written over the creator's", r)?;
    peer_sees(cx, &mut c, "C after B exited", opened, 16)?;
    cx.expect_ok("C closes after B exited", peer_close(&mut c, &key)?)?;
    c.exit()
}

/// [ACL-IPK-016](vmmkit_sys::acl::rules::IPK_016): NULL devPtr or key 100000; flags 2 and "" 107000; an unknown key 507899.
pub fn import_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (_va, key) = exported(cx, 1, 17)?;
    let acl = cx.acl();
    let k = c_key(&key);
    let mut va: Va = ptr::null_mut();
    let (p, rt) = (AclError::INVALID_PARAM, AclError::RT_PARAM_INVALID);
    cx.expect("ImportByKey(devPtr NULL)", p, acl.aclrtIpcMemImportByKey(ptr::null_mut(), k.as_ptr(), 0))?;
    cx.expect("ImportByKey(key NULL)", p, acl.aclrtIpcMemImportByKey(&mut va, ptr::null(), 0))?;
    cx.expect("ImportByKey(flags 2)", rt, acl.aclrtIpcMemImportByKey(&mut va, k.as_ptr(), 2))?;
    cx.expect("ImportByKey(\"\")", rt, import(cx, b"", 0).0)?;
    cx.expect("ImportByKey of a key nobody created", AclError::RT_DRV_INTERNAL_ERROR, import(cx, UNKNOWN_KEY, 0).0)?;
    cx.expect_ok("state unchanged: ImportByKey of a live key", import(cx, &key, 0).0)?;
    cx.expect_ok("close it", close(cx, &key))
}

/// This server's sdid as the emulator reckons it: the inode of the network namespace.
fn this_server() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self/ns/net").map_or(1, |m| m.ino() as u32)
}

/// [ACL-IPK-017](vmmkit_sys::acl::rules::IPK_017): aclrtIpcMemSetAttr's checks in the runtime's order, and
/// aclrtIpcMemImportPidInterServer's; this server's pid is listed.
pub fn set_attr_and_inter_server(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, key) = exported(cx, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, 0x17)?;
    let k = c_key(&key);
    let acl = cx.acl();
    let p = AclError::RT_PARAM_INVALID;
    let link = ACL_RT_IPC_MEM_ATTR_ACCESS_LINK;
    let checks = (|| {
        cx.expect("SetAttr(NULL key)", p, acl.aclrtIpcMemSetAttr(ptr::null(), link, 0)?)?;
        cx.expect("SetAttr(type 1)", p, acl.aclrtIpcMemSetAttr(k.as_ptr(), 1, 0)?)?;
        cx.expect("SetAttr(link 4)", p, acl.aclrtIpcMemSetAttr(k.as_ptr(), link, 4)?)?;
        let unknown = c_key(UNKNOWN_KEY);
        cx.expect(
            "SetAttr(unknown key)",
            AclError::RT_DRV_INTERNAL_ERROR,
            acl.aclrtIpcMemSetAttr(unknown.as_ptr(), link, 1)?,
        )?;
        cx.expect_ok("SetAttr(HCCS)", acl.aclrtIpcMemSetAttr(k.as_ptr(), link, 1)?)?;
        let mut pid = std::process::id() as i32 + 1;
        let mut sp = aclrtServerPid { sdid: this_server(), pid: &mut pid, num: 1 };
        cx.expect(
            "InterServer(NULL serverPids)",
            p,
            acl.aclrtIpcMemImportPidInterServer(k.as_ptr(), ptr::null_mut(), 1)?,
        )?;
        cx.expect("InterServer(num 0)", p, acl.aclrtIpcMemImportPidInterServer(k.as_ptr(), &mut sp, 0)?)?;
        cx.expect_ok("InterServer(this server)", acl.aclrtIpcMemImportPidInterServer(k.as_ptr(), &mut sp, 1)?)?;
        sp.sdid = this_server().wrapping_add(1);
        cx.expect_ok("InterServer(another server)", acl.aclrtIpcMemImportPidInterServer(k.as_ptr(), &mut sp, 1)?)?;
        sp.pid = ptr::null_mut();
        cx.expect("InterServer(NULL pid)", p, acl.aclrtIpcMemImportPidInterServer(k.as_ptr(), &mut sp, 1)?)
    })();
    setup("aclrtIpcMemClose", close(cx, &key))?;
    setup("aclrtFree", acl.aclrtFree(va))?;
    checks
}
