//! Set-ups shared by the multi-process checks: memory exported by the check
//! or by a peer, and a peer importing and reading it.

use vmmkit_sys::acl::AclError;

use crate::acl::{Ctx, Mapped, TWO_MIB};
use crate::outcome::Failure;
use crate::peer::{Peer, Request};

/// The 2 MiB the check maps, fills with pattern `seed` and exports with `flags`.
pub(super) fn exported(cx: &Ctx, flags: u64, seed: u8) -> Result<(Mapped, u64), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, m.size, seed)?;
    let sh = cx.export(m.handle, flags)?;
    Ok((m, sh))
}

/// 2 MiB that `peer` allocates on device 0, maps, fills with pattern `seed`
/// and exports with flag 1 (no trustlist): the shareable handle.
pub(super) fn peer_exported(peer: &mut Peer, seed: u8) -> Result<u64, Failure> {
    let h = peer.alloc(0, TWO_MIB)?;
    let m = peer.map(h, TWO_MIB)?;
    peer.setup(&Request::Write { map: m, seed })?;
    Ok(peer.setup(&Request::Export { handle: h, flags: 1 })?.value)
}

/// `peer` imports `sh` onto `device`, maps it and finds pattern `seed`:
/// the handle and mapping slots. Every step is setup.
pub(super) fn peer_reads(peer: &mut Peer, sh: u64, device: i32, seed: u8) -> Result<(usize, usize), Failure> {
    let (code, h) = peer.import(sh, device)?;
    if !code.is_success() {
        return Err(Failure::setup(&format!("peer {}: aclrtMemImportFromShareableHandle", peer.name()), code));
    }
    let m = peer.map(h, TWO_MIB)?;
    if let Some(diff) = peer.verify(m, seed)? {
        return Err(Failure::Setup(format!("setup: peer {} read the imported memory: {diff}", peer.name())));
    }
    Ok((h, m))
}

/// `peer` reads mapping slot `map` and must find pattern `seed`.
pub(super) fn peer_sees(cx: &Ctx, peer: &mut Peer, step: &str, map: usize, seed: u8) -> Result<(), Failure> {
    let diff = peer.verify(map, seed)?;
    cx.ensure(step, diff.is_none(), format!("pattern {seed}"), diff.unwrap_or_default())
}

/// `peer` unmaps and releases mapping slot `map` and frees handle slot `h`.
pub(super) fn peer_teardown(peer: &mut Peer, map: usize, h: usize) -> Result<(), Failure> {
    peer.setup(&Request::Unmap { map })?;
    peer.setup(&Request::Release { map })?;
    peer.setup(&Request::Free { handle: h })?;
    Ok(())
}

/// A shareable handle no process exported: device 0, a share id far above
/// any a test run hands out.
pub(super) const UNKNOWN_SHAREABLE: u64 = 0x7fff_fff0;

/// The code as an `AclError`, for peers' replies.
pub(super) fn code(c: i32) -> AclError {
    AclError(c)
}
