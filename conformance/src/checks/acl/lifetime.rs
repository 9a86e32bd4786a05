//! ACL-LIFE: how long shared memory lives.

use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::{exported, peer_exported, peer_reads, peer_sees, peer_teardown};
use crate::acl::{Ctx, Handle, TWO_MIB, setup};
use crate::outcome::Failure;
use crate::peer::Request;

/// [ACL-LIFE-001](vmmkit_sys::acl::rules::LIFE_001): A exports and frees everything while B holds: the device
/// memory stays used and B reads; when B releases, the memory comes back
/// and the handle is gone.
pub fn lives_until_last_holder(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (free0, _) = cx.mem_info()?;
    let (m, sh) = exported(cx, 1, 21)?;
    let mut b = cx.peer("B")?;
    let (h, map) = peer_reads(&mut b, sh, 0, 21)?;
    cx.teardown(m)?;
    let (held, _) = cx.mem_info()?;
    cx.ensure("free device memory while only B holds", held + TWO_MIB == free0, free0 - TWO_MIB, held)?;
    peer_sees(cx, &mut b, "peer B reads after A freed everything", map, 21)?;
    peer_teardown(&mut b, map, h)?;
    let (free1, _) = cx.mem_info()?;
    cx.ensure("free device memory after the last holder released", free1 == free0, free0, free1)?;
    let mut c = cx.peer("C")?;
    let (r, _) = c.import(sh, 0)?;
    cx.ensure_code("peer C imports after every holder released", AclError::RT_INVALID_HANDLE, r)?;
    b.exit()?;
    c.exit()
}

/// [ACL-LIFE-002](vmmkit_sys::acl::rules::LIFE_002): after the exporter's free, B's mapping keeps the data and
/// takes writes.
pub fn exporter_free_keeps_importers(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, sh) = exported(cx, 1, 22)?;
    let mut b = cx.peer("B")?;
    let (_h, map) = peer_reads(&mut b, sh, 0, 22)?;
    cx.teardown(m)?;
    peer_sees(cx, &mut b, "peer B reads after the exporter freed", map, 22)?;
    b.setup(&Request::Write { map, seed: 23 })?;
    peer_sees(cx, &mut b, "peer B reads its own write", map, 23)?;
    b.exit()
}

/// [ACL-LIFE-003](vmmkit_sys::acl::rules::LIFE_003): after every holder released, SetPid by the exporter and
/// an import by a new process fail with 107017.
pub fn handle_invalid_after_last(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, sh) = exported(cx, 0, 24)?;
    let mut b = cx.peer("B")?;
    let pid = b.bare_tgid()?;
    cx.set_pids(sh, &[pid])?;
    let (h, map) = peer_reads(&mut b, sh, 0, 24)?;
    cx.teardown(m)?;
    peer_teardown(&mut b, map, h)?;
    let mut p = [pid];
    cx.expect_code(
        "SetPid by the exporter after every holder released",
        cx.acl().aclrtMemSetPidToShareableHandle(sh, p.as_mut_ptr(), 1),
    )?;
    let mut c = cx.peer("C")?;
    let (r, _) = c.import(sh, 0)?;
    cx.expect_code("peer C imports after every holder released", r)?;
    b.exit()?;
    c.exit()
}

/// [ACL-LIFE-004](vmmkit_sys::acl::rules::LIFE_004): exporter P1 and importer P2 are killed; P2 reads until it
/// dies; afterwards the handle is gone, and the whole (4 MiB) device can be
/// allocated again.
pub fn process_exit_releases(cx: &mut Ctx) -> Result<(), Failure> {
    let mut p1 = cx.peer("P1")?;
    let sh = peer_exported(&mut p1, 25)?;
    let mut p2 = cx.peer("P2")?;
    let (_h, map) = peer_reads(&mut p2, sh, 0, 25)?;
    p1.kill()?;
    peer_sees(cx, &mut p2, "peer P2 reads after the exporter was killed", map, 25)?;
    p2.kill()?;
    cx.device(0)?;
    let mut h: Handle = ptr::null_mut();
    let r = cx.acl().aclrtMemImportFromShareableHandle(sh, 0, &mut h);
    cx.ensure_code("import after exporter and importer were killed", AclError::RT_INVALID_HANDLE, r)?;
    let (_, total) = cx.mem_info()?;
    let all = cx.malloc(total)?;
    setup("aclrtFreePhysical", cx.acl().aclrtFreePhysical(all))
}

/// [ACL-LIFE-005](vmmkit_sys::acl::rules::LIFE_005): mapping a handle whose memory was released; the code is
/// recorded (undefined on hardware; the process must survive).
pub fn use_after_release(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.teardown(m)?;
    let va = cx.reserve(TWO_MIB)?;
    let r = cx.acl().aclrtMapMem(va, TWO_MIB, 0, m.handle, 0);
    cx.note(format!("aclrtMapMem with a released handle returned {r}"));
    Ok(())
}
