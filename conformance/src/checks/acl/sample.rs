//! ACL-FLOW: the vendor samples of acl.md §7, process A being the check and
//! process B a peer.

use vmmkit_sys::acl::*;

use super::sharing::peer_sees;
use crate::acl::{Ctx, Mapped, rw_desc, setup};
use crate::outcome::Failure;
use crate::peer::{Peer, Request};

/// The value sample 7's kernel writes; the pattern seed here.
const SOURCE_DATA: u8 = 123;
/// What B writes back.
const REPLY_DATA: u8 = 45;

/// Steps 1-7 of process A: device 0, the granularity g, `round_up(4096, g)`
/// bytes reserved, allocated, mapped, READWRITE for device 0, filled.
fn a_allocates(cx: &Ctx) -> Result<Mapped, Failure> {
    let g = cx.granule()?;
    let size = 4096usize.div_ceil(g) * g;
    let m = cx.alloc_mapped(size)?;
    let mut d = rw_desc(0);
    setup("aclrtMemSetAccess(READWRITE, device 0)", cx.acl().aclrtMemSetAccess(m.va, m.size, &mut d, 1))?;
    cx.write(m.va, m.size, SOURCE_DATA)?;
    Ok(m)
}

/// B's side after it has a handle slot: map, grant, read A's data, write back.
fn b_maps_reads_writes(cx: &Ctx, b: &mut Peer, slot: usize, size: usize) -> Result<usize, Failure> {
    let map = b.map(slot, size)?;
    b.setup(&Request::SetAccess { map, device: 0 })?;
    peer_sees(cx, b, "process B reads A's data (Destination data)", map, SOURCE_DATA)?;
    b.setup(&Request::Write { map, seed: REPLY_DATA })?;
    Ok(map)
}

/// The end of both samples: B unmaps and signals; then B releases and frees
/// while A unmaps, releases and frees, at the same time; both end cleanly.
fn release_concurrently(cx: &Ctx, mut b: Peer, m: Mapped, map: usize, slot: usize) -> Result<(), Failure> {
    b.setup(&Request::Unmap { map })?;
    let acl = cx.acl();
    let (va, handle) = (m.va as usize, m.handle as usize);
    let (b_done, a_done) = std::thread::scope(|s| {
        let b_side = s.spawn(move || -> Result<(), Failure> {
            b.setup(&Request::Release { map })?;
            b.setup(&Request::Free { handle: slot })?;
            b.exit()
        });
        let a_side = (|| -> Result<(), Failure> {
            setup("process A: aclrtUnmapMem", acl.aclrtUnmapMem(va as *mut _))?;
            setup("process A: aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(va as *mut _))?;
            setup("process A: aclrtFreePhysical", acl.aclrtFreePhysical(handle as *mut _))
        })();
        (b_side.join(), a_side)
    });
    a_done?;
    b_done.map_err(|_| Failure::Peer("the thread driving peer B panicked".into()))?
}

/// [ACL-FLOW-001](vmmkit_sys::acl::rules::FLOW_001): sample 7, with a trustlist.
pub fn with_trustlist(cx: &mut Ctx) -> Result<(), Failure> {
    let mut b = cx.peer("B")?;
    let pid = b.bare_tgid()?;
    let m = a_allocates(cx)?;
    let sh = cx.export(m.handle, ACL_RT_VMM_EXPORT_FLAG_DEFAULT)?;
    cx.set_pids(sh, &[pid])?;
    let (r, slot) = b.import(sh, 0)?;
    cx.ensure_code("process B imports A's handle onto device 0", AclError::SUCCESS, r)?;
    let map = b_maps_reads_writes(cx, &mut b, slot, m.size)?;
    cx.verify("process A reads B's write (same physical pages)", m.va, m.size, REPLY_DATA)?;
    release_concurrently(cx, b, m, map, slot)
}

/// [ACL-FLOW-002](vmmkit_sys::acl::rules::FLOW_002): sample 8, without a trustlist.
pub fn without_trustlist(cx: &mut Ctx) -> Result<(), Failure> {
    let mut b = cx.peer("B")?;
    let m = a_allocates(cx)?;
    let sh = cx.export(m.handle, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)?;
    let (r, slot) = b.import(sh, 0)?;
    cx.ensure_code("process B imports A's handle onto device 0", AclError::SUCCESS, r)?;
    let map = b_maps_reads_writes(cx, &mut b, slot, m.size)?;
    cx.verify("process A reads B's write (same physical pages)", m.va, m.size, REPLY_DATA)?;
    release_concurrently(cx, b, m, map, slot)
}

/// [ACL-FLOW-003](vmmkit_sys::acl::rules::FLOW_003): sample 12 on one host: FABRIC export with flag 1, V2
/// import on the client's current device, map, grant, release.
pub fn fabric_loopback(cx: &mut Ctx) -> Result<(), Failure> {
    let m = a_allocates(cx)?;
    let mut fab = [0u8; 128];
    let r = cx.acl().aclrtMemExportToShareableHandleV2(
        m.handle,
        1,
        ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
        fab.as_mut_ptr().cast(),
    )?;
    if r == AclError::RT_FEATURE_NOT_SUPPORT {
        return Err(Failure::NotSupported(
            "the platform reports no server id (FABRIC export returned 207000, A2 behaviour); sample 12 needs A3"
                .into(),
        ));
    }
    setup("server: export V2 FABRIC", r)?;
    let mut b = cx.peer("client")?;
    let reply =
        b.call(&Request::ImportV2 { shareable: fab.to_vec(), share_type: ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, flags: 0 })?;
    cx.ensure_code("client imports the fabric handle (V2, current device 0)", AclError::SUCCESS, AclError(reply.code))?;
    let slot = reply.slot;
    let map = b.map(slot, m.size)?;
    b.setup(&Request::SetAccess { map, device: 0 })?;
    release_concurrently(cx, b, m, map, slot)
}
