//! ACL-SHV: V2 export and import, FABRIC handles, another server.

use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::{code, peer_sees};
use crate::acl::{Ctx, Handle, Mapped, TWO_MIB, setup};
use crate::outcome::Failure;
use crate::peer::{Peer, Request};

const FABRIC: aclrtMemSharedHandleType = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
const DEFAULT: aclrtMemSharedHandleType = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;

/// 2 MiB the check maps on device 0, fills with pattern `seed` and exports
/// with V2 FABRIC and `flags`. Not supported where the platform has no server
/// id (207000, A2 behaviour).
fn fabric_exported(cx: &Ctx, flags: u64, seed: u8) -> Result<(Mapped, aclrtMemFabricHandle), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, m.size, seed)?;
    let mut fab = aclrtMemFabricHandle::default();
    let r = cx.acl().aclrtMemExportToShareableHandleV2(m.handle, flags, FABRIC, (&raw mut fab).cast())?;
    if r == AclError::RT_FEATURE_NOT_SUPPORT {
        return Err(Failure::NotSupported("FABRIC export returned 207000: the platform has no server id (A2)".into()));
    }
    setup(&format!("aclrtMemExportToShareableHandleV2(FABRIC, flags {flags})"), r)?;
    Ok((m, fab))
}

/// `peer` imports `bytes` with V2 as `share_type`: the code and handle slot.
fn peer_import_v2(peer: &mut Peer, bytes: &[u8], share_type: i32) -> Result<(AclError, usize), Failure> {
    let r = peer.call(&Request::ImportV2 { shareable: bytes.to_vec(), share_type, flags: 0 })?;
    Ok((code(r.code), r.slot))
}

/// [ACL-SHV-001](vmmkit_sys::acl::rules::SHV_001): the FABRIC handle's head; its u64 form imports with V1 in a peer.
pub fn fabric_layout(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, fab) = fabric_exported(cx, 1, 41)?;
    let head = fab.head();
    cx.ensure(
        "FABRIC handle: type FABRIC at 0, device 0 at 8, zeros from 20",
        head.handle_type == MEM_HANDLE_TYPE_FABRIC && head.devid == 0 && fab.data[20..].iter().all(|&b| b == 0),
        "type 1, device 0, zeros",
        format!("{head:?}, tail zero {}", fab.data[20..].iter().all(|&b| b == 0)),
    )?;
    let mut b = cx.peer("B")?;
    let (r, slot) = b.import(head.shareable(), 0)?;
    cx.expect_ok(&format!("peer B imports the u64 form {:#x} with V1", head.shareable()), r)?;
    let map = b.map(slot, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the data through the u64 form", map, 41)?;
    b.exit()
}

/// [ACL-SHV-002](vmmkit_sys::acl::rules::SHV_002): V2 DEFAULT writes 8 bytes; a V1 handle imports with V2 DEFAULT.
pub fn default_form(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, m.size, 42)?;
    let mut buf = [0xa5u8; 128];
    let r = cx.acl().aclrtMemExportToShareableHandleV2(m.handle, 1, DEFAULT, buf.as_mut_ptr().cast())?;
    cx.expect_ok("export V2 DEFAULT into a 128-byte buffer of 0xa5", r)?;
    cx.ensure(
        "export V2 DEFAULT leaves bytes 8-127 alone",
        buf[8..].iter().all(|&b| b == 0xa5),
        "0xa5 from byte 8",
        format!("{:02x?}", &buf[8..16]),
    )?;
    let mut first = [0u8; 8];
    first.copy_from_slice(&buf[..8]);
    let v2 = u64::from_le_bytes(first);
    let other = cx.alloc_mapped(TWO_MIB)?;
    cx.write(other.va, other.size, 43)?;
    let v1 = cx.export(other.handle, 1)?;
    let mut b = cx.peer("B")?;
    let (r, slot) = b.import(v2, 0)?;
    cx.expect_ok("peer B imports the V2 DEFAULT value with V1", r)?;
    let map = b.map(slot, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the V2 DEFAULT export", map, 42)?;
    let (r, slot) = peer_import_v2(&mut b, &v1.to_le_bytes(), DEFAULT)?;
    cx.expect_ok("peer B imports the V1 value with V2 DEFAULT", r)?;
    let map = b.map(slot, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the V1 export", map, 43)?;
    b.exit()
}

/// [ACL-SHV-003](vmmkit_sys::acl::rules::SHV_003): type words NONE and POSIX in a fabric handle, for import V2
/// and SetPid V2; the true handle's SetPid V2 then works.
pub fn type_word(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, fab) = fabric_exported(cx, 0, 3)?;
    let acl = cx.acl();
    for t in [MEM_HANDLE_TYPE_NONE, MEM_HANDLE_TYPE_POSIX] {
        let mut bad = fab;
        bad.data[..4].copy_from_slice(&t.to_le_bytes());
        let mut h: Handle = ptr::null_mut();
        let r = acl.aclrtMemImportFromShareableHandleV2((&raw mut bad).cast(), FABRIC, 0, &mut h)?;
        cx.expect_code(&format!("import V2 FABRIC of a handle with type word {t}"), r)?;
        let mut pid = [4242i32];
        let r = acl.aclrtMemSetPidToShareableHandleV2((&raw mut bad).cast(), FABRIC, pid.as_mut_ptr(), 1)?;
        cx.expect_code(&format!("SetPid V2 FABRIC of a handle with type word {t}"), r)?;
    }
    let mut good = fab;
    let mut pid = [4242i32];
    let r = acl.aclrtMemSetPidToShareableHandleV2((&raw mut good).cast(), FABRIC, pid.as_mut_ptr(), 1)?;
    cx.expect_ok("SetPid V2 FABRIC of the handle as exported", r)
}

/// [ACL-SHV-004](vmmkit_sys::acl::rules::SHV_004): three processes: the exporter lists B through SetPid V2 with
/// the fabric handle; C, not listed, is refused; B imports and reads.
pub fn fabric_trustlist(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, mut fab) = fabric_exported(cx, 0, 44)?;
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    let mut pid = [b.bare_tgid()?];
    let r = cx.acl().aclrtMemSetPidToShareableHandleV2((&raw mut fab).cast(), FABRIC, pid.as_mut_ptr(), 1)?;
    setup("aclrtMemSetPidToShareableHandleV2(FABRIC, [B])", r)?;
    let (r, _) = peer_import_v2(&mut c, &fab.data, FABRIC)?;
    cx.expect("peer C (not listed) imports the fabric handle", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    let (r, slot) = peer_import_v2(&mut b, &fab.data, FABRIC)?;
    cx.expect_ok("peer B (listed) imports the fabric handle", r)?;
    let map = b.map(slot, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the exported data", map, 44)?;
    c.exit()?;
    b.exit()
}

/// [ACL-SHV-005](vmmkit_sys::acl::rules::SHV_005): the exporter imports its own fabric handle onto device 0
/// (refused) and onto device 1 (a device-1 handle of the same memory).
pub fn cross_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, mut fab) = fabric_exported(cx, 1, 45)?;
    let acl = cx.acl();
    let mut h: Handle = ptr::null_mut();
    let r = acl.aclrtMemImportFromShareableHandleV2((&raw mut fab).cast(), FABRIC, 0, &mut h)?;
    cx.expect("the exporter imports onto device 0, where the memory lives", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    cx.device(1)?;
    let r = acl.aclrtMemImportFromShareableHandleV2((&raw mut fab).cast(), FABRIC, 0, &mut h)?;
    cx.expect_ok("the exporter imports onto device 1 (current)", r)?;
    let mut p = aclrtPhysicalMemProp::default();
    setup("aclrtMemGetAllocationPropertiesFromHandle", acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut p))?;
    cx.ensure("the imported handle's device", p.location.id == 1, "device 1", format!("{:?}", p.location))?;
    let va = cx.reserve(TWO_MIB)?;
    cx.map(va, TWO_MIB, h)?;
    cx.verify("the data through the device-1 handle", va, TWO_MIB, 45)
}

/// [ACL-SHV-006](vmmkit_sys::acl::rules::SHV_006): sample 12 across two servers. The server (this process)
/// exports FABRIC with flag 1; the client, in a network namespace of its
/// own, exports a handle of its own (another sdid), imports the server's
/// with V2, maps it, reads 123 and releases.
pub fn other_server(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, fab) = fabric_exported(cx, 1, 123)?;
    let mut client = Peer::spawn_other_server(cx.launcher(), "client")?;
    client.start(Some(0))?;
    let own = client.alloc(0, TWO_MIB)?;
    let r = client.setup(&Request::ExportV2 { handle: own, flags: 1, share_type: FABRIC })?;
    let mut theirs = aclrtMemFabricHandle::default();
    let n = r.bytes.len().min(128);
    theirs.data[..n].copy_from_slice(&r.bytes[..n]);
    let (ours, other) = (fab.head().sdid, theirs.head().sdid);
    cx.ensure("the client's server has another sdid", ours != other, format!("an sdid other than {ours:#x}"), other)?;
    let (r, slot) = peer_import_v2(&mut client, &fab.data, FABRIC)?;
    cx.expect_ok("client imports the server's fabric handle (V2, current device 0)", r)?;
    let map = client.map(slot, TWO_MIB)?;
    client.setup(&Request::SetAccess { map, device: 0 })?;
    peer_sees(cx, &mut client, "client reads the server's data (Source data: 123)", map, 123)?;
    super::sharing::peer_teardown(&mut client, map, slot)?;
    client.exit()?;
    cx.teardown(m)
}
