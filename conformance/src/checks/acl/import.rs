//! ACL-IMP: `aclrtMemImportFromShareableHandle` (V1 and V2).

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::{UNKNOWN_SHAREABLE, code, exported, peer_reads, peer_sees, peer_teardown};
use crate::acl::{Ctx, Handle, MIB, TWO_MIB, prop_with, setup};
use crate::outcome::Failure;
use crate::peer::Request;

/// V1 import: the code and the handle.
fn import(cx: &Ctx, sh: u64, device: i32) -> (AclError, Handle) {
    let mut h: Handle = ptr::null_mut();
    let r = cx.acl().aclrtMemImportFromShareableHandle(sh, device, &mut h);
    (r, h)
}

/// [ACL-IMP-001](vmmkit_sys::acl::rules::IMP_001): NULL handle output.
pub fn v1_null_out(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 1)?;
    cx.expect_code("import V1(handle NULL)", cx.acl().aclrtMemImportFromShareableHandle(sh, 0, ptr::null_mut()))
}

/// [ACL-IMP-002](vmmkit_sys::acl::rules::IMP_002): device ids -1 and the device count.
pub fn v1_bad_device(cx: &mut Ctx) -> Result<(), Failure> {
    let n = cx.device_count()? as i32;
    let (_m, sh) = exported(cx, 1, 2)?;
    cx.expect_code(&format!("import V1(deviceId {n} of {n})"), import(cx, sh, n).0)?;
    cx.expect_code("import V1(deviceId -1)", import(cx, sh, -1).0)
}

/// [ACL-IMP-003](vmmkit_sys::acl::rules::IMP_003): V2 with NULL handle, NULL output, flags 1.
pub fn v2_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, mut sh) = exported(cx, 1, 3)?;
    let acl = cx.acl();
    let shp: *mut c_void = (&raw mut sh).cast();
    let default = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;
    let mut h: Handle = ptr::null_mut();
    cx.expect_code(
        "import V2(shareableHandle NULL)",
        acl.aclrtMemImportFromShareableHandleV2(ptr::null_mut(), default, 0, &mut h)?,
    )?;
    cx.expect_code(
        "import V2(handle NULL)",
        acl.aclrtMemImportFromShareableHandleV2(shp, default, 0, ptr::null_mut())?,
    )?;
    cx.expect_code("import V2(flags 1)", acl.aclrtMemImportFromShareableHandleV2(shp, default, 1, &mut h)?)
}

/// [ACL-IMP-004](vmmkit_sys::acl::rules::IMP_004): V2 with no current device.
pub fn v2_needs_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let mut sh = UNKNOWN_SHAREABLE;
    let mut h: Handle = ptr::null_mut();
    let r = cx.acl().aclrtMemImportFromShareableHandleV2(
        (&raw mut sh).cast(),
        ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
        0,
        &mut h,
    )?;
    cx.expect_code("import V2 with no current device", r)
}

/// [ACL-IMP-005](vmmkit_sys::acl::rules::IMP_005): V2 share types 0 and 3.
pub fn v2_share_type(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, mut sh) = exported(cx, 1, 5)?;
    let mut h: Handle = ptr::null_mut();
    for t in [0, 3] {
        let r = cx.acl().aclrtMemImportFromShareableHandleV2((&raw mut sh).cast(), t, 0, &mut h)?;
        cx.expect_code(&format!("import V2(shareType {t})"), r)?;
    }
    Ok(())
}

/// [ACL-IMP-006](vmmkit_sys::acl::rules::IMP_006): a peer exports FABRIC. Without a server id that fails, and
/// importing a fabric handle fails too (207000); with one, the fabric
/// handle imports like a DEFAULT one and shows the peer's data.
pub fn v2_fabric(cx: &mut Ctx) -> Result<(), Failure> {
    let mut b = cx.peer("B")?;
    let h = b.alloc(0, TWO_MIB)?;
    let map = b.map(h, TWO_MIB)?;
    b.setup(&Request::Write { map, seed: 6 })?;
    let r = b.call(&Request::ExportV2 { handle: h, flags: 1, share_type: ACL_MEM_SHARE_HANDLE_TYPE_FABRIC })?;
    cx.device(0)?;
    let acl = cx.acl();
    let fabric = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
    let mut imported: Handle = ptr::null_mut();
    if cx.is_profile(chips::PROFILE_910B) {
        cx.expect("peer B: export V2 FABRIC on 910B (no server id)", AclError::RT_FEATURE_NOT_SUPPORT, code(r.code))?;
        // No server id: a fabric handle as A3 would write it (type 1, device 0, share id 1).
        let mut fab = [0u8; 128];
        fab[0] = 1;
        fab[16] = 1;
        let r = acl.aclrtMemImportFromShareableHandleV2(fab.as_mut_ptr().cast(), fabric, 0, &mut imported)?;
        cx.expect_code("import V2 FABRIC without a server id", r)?;
        return b.exit();
    }
    if r.code != 0 {
        return Err(Failure::setup("peer B: export V2 FABRIC", code(r.code)));
    }
    let mut bytes = r.bytes;
    bytes.resize(128, 0);
    let r = acl.aclrtMemImportFromShareableHandleV2(bytes.as_mut_ptr().cast(), fabric, 0, &mut imported)?;
    cx.expect_ok("import V2 FABRIC of a same-server handle", r)?;
    let va = cx.reserve(TWO_MIB)?;
    cx.map(va, TWO_MIB, imported)?;
    cx.verify("B's data through the fabric import", va, TWO_MIB, 6)?;
    b.exit()
}

/// [ACL-IMP-007](vmmkit_sys::acl::rules::IMP_007): a share id never exported, and a handle every holder released.
pub fn unknown_handle(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("import V1 of a never-exported share id", import(cx, UNKNOWN_SHAREABLE, 0).0)?;
    let (m, sh) = exported(cx, 1, 7)?;
    cx.teardown(m)?;
    cx.expect_code("import V1 after every holder released", import(cx, sh, 0).0)
}

/// [ACL-IMP-008](vmmkit_sys::acl::rules::IMP_008): a peer with no current device imports a live handle
/// (107002), and an unknown one (107017: the lookup comes first).
pub fn v1_needs_context_after_lookup(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 8)?;
    let mut b = crate::peer::Peer::spawn(cx.launcher(), "B")?;
    b.start(None)?;
    let (r, _) = b.import(sh, 0)?;
    cx.expect("peer B with no current device imports a live handle", AclError::RT_CONTEXT_NULL, r)?;
    let (r, _) = b.import(UNKNOWN_SHAREABLE, 0)?;
    cx.expect("peer B with no current device imports an unknown handle", AclError::RT_INVALID_HANDLE, r)?;
    b.exit()
}

/// [ACL-IMP-009](vmmkit_sys::acl::rules::IMP_009): the exporter imports its own handle onto device 0.
pub fn exporter_same_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 9)?;
    cx.expect_code("the exporter imports onto the memory's device", import(cx, sh, 0).0)
}

/// [ACL-IMP-010](vmmkit_sys::acl::rules::IMP_010): the exporter imports onto device 1 and reads its data there.
pub fn exporter_other_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 10)?;
    let (r, h) = import(cx, sh, 1);
    cx.expect_code("the exporter imports onto device 1", r)?;
    let va = cx.reserve(TWO_MIB)?;
    cx.map(va, TWO_MIB, h)?;
    cx.verify("the exporter's data through device 1", va, TWO_MIB, 10)
}

/// [ACL-IMP-011](vmmkit_sys::acl::rules::IMP_011): three processes: listed B imports, unlisted C is refused.
pub fn not_listed(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 11)?;
    let mut b = cx.peer("B")?;
    let mut c = cx.peer("C")?;
    let pid = b.bare_tgid()?;
    cx.set_pids(sh, &[pid])?;
    peer_reads(&mut b, sh, 0, 11)?;
    let (r, _) = c.import(sh, 0)?;
    cx.expect_code("peer C (not listed) imports", r)?;
    b.exit()?;
    c.exit()
}

/// [ACL-IMP-013](vmmkit_sys::acl::rules::IMP_013): with flag 1, an unlisted peer imports and reads.
pub fn validation_disabled(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 13)?;
    let mut b = cx.peer("B")?;
    let (r, h) = b.import(sh, 0)?;
    cx.expect_code("peer B (never listed) imports", r)?;
    let map = b.map(h, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the exported data", map, 13)?;
    b.exit()
}

/// [ACL-IMP-014](vmmkit_sys::acl::rules::IMP_014): a peer imports twice onto device 0: the same handle value;
/// after one free the handle still maps; the second free succeeds.
pub fn repeat_same_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 14)?;
    let mut b = cx.peer("B")?;
    let first = b.call(&Request::Import { shareable: sh, device: 0 })?;
    cx.expect_code("peer B's first import", code(first.code))?;
    let second = b.call(&Request::Import { shareable: sh, device: 0 })?;
    cx.expect_code("peer B's second import of the same handle", code(second.code))?;
    cx.ensure(
        "handle value of the repeated import",
        first.value == second.value,
        format!("{:#x}", first.value),
        format!("{:#x}", second.value),
    )?;
    cx.expect_ok("peer B frees once", b.code(&Request::Free { handle: first.slot })?)?;
    let map = b.map(second.slot, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B maps and reads after one free", map, 14)?;
    b.setup(&Request::Unmap { map })?;
    cx.expect_ok("peer B frees the second reference", b.code(&Request::Free { handle: second.slot })?)?;
    b.exit()
}

/// [ACL-IMP-015](vmmkit_sys::acl::rules::IMP_015): a peer imports onto devices 0 and 1: two handles.
pub fn other_device_new_handle(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 15)?;
    let mut b = cx.peer("B")?;
    let on0 = b.call(&Request::Import { shareable: sh, device: 0 })?;
    cx.expect_code("peer B imports onto device 0", code(on0.code))?;
    let on1 = b.call(&Request::Import { shareable: sh, device: 1 })?;
    cx.expect_code("peer B imports onto device 1", code(on1.code))?;
    cx.ensure(
        "handles on two devices",
        on0.value != on1.value,
        "two handle values",
        format!("{:#x} twice", on0.value),
    )?;
    cx.expect_ok("peer B frees the device 0 handle", b.code(&Request::Free { handle: on0.slot })?)?;
    cx.expect_ok("peer B frees the device 1 handle", b.code(&Request::Free { handle: on1.slot })?)?;
    b.exit()
}

/// [ACL-IMP-016](vmmkit_sys::acl::rules::IMP_016): a peer on device 1 imports device 0's memory without
/// enabling peer access, and reads it.
pub fn cross_device_without_peer_enable(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 16)?;
    let mut b = crate::peer::Peer::spawn(cx.launcher(), "B")?;
    b.start(Some(1))?;
    let (r, h) = b.import(sh, 1)?;
    cx.expect_code("peer B (device 1, no EnablePeerAccess) imports device 0's memory", r)?;
    let map = b.map(h, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads through device 1", map, 16)?;
    b.exit()
}

/// [ACL-IMP-017](vmmkit_sys::acl::rules::IMP_017): 4 MiB of `ACL_HBM_MEM_NORMAL`: the import reports the
/// exporter's memory type, the importing device, and maps as 4 MiB.
pub fn inherits_properties(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let p = prop_with(ACL_HBM_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
    let h = cx.malloc_with(&p, 4 * MIB)?;
    let va = cx.reserve(4 * MIB)?;
    cx.map(va, 4 * MIB, h)?;
    cx.write(va, 4 * MIB, 17)?;
    let mut own = aclrtPhysicalMemProp::default();
    setup("aclrtMemGetAllocationPropertiesFromHandle", acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut own))?;
    let sh = cx.export(h, 1)?;
    let mut b = cx.peer("B")?;
    let (r, slot) = b.import(sh, 0)?;
    if !r.is_success() {
        return Err(Failure::setup("peer B: import", r));
    }
    let props = b.setup(&Request::Props { handle: slot })?.bytes;
    let word = |i: usize| props.get(i * 4..i * 4 + 4).map_or(-1, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    cx.ensure(
        "properties of the imported handle",
        word(0) == own.memAttr && word(1) == ACL_MEM_LOCATION_TYPE_DEVICE && word(2) == 0,
        format!("memAttr {}, DEVICE 0", own.memAttr),
        format!("memAttr {}, location type {} id {}", word(0), word(1), word(2)),
    )?;
    let r = b.call(&Request::Map { handle: slot, size: 4 * MIB as u64 })?;
    cx.ensure_code("peer B maps the imported handle as 4 MiB", AclError::SUCCESS, code(r.code))?;
    peer_sees(cx, &mut b, "peer B reads the 4 MiB", r.slot, 17)?;
    b.exit()
}

/// [ACL-IMP-019](vmmkit_sys::acl::rules::IMP_019): A exports, B imports, A frees everything, then C imports
/// and reads.
pub fn after_exporter_free(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, sh) = exported(cx, 1, 19)?;
    let mut b = cx.peer("B")?;
    peer_reads(&mut b, sh, 0, 19)?;
    cx.teardown(m)?;
    let mut c = cx.peer("C")?;
    let (r, h) = c.import(sh, 0)?;
    cx.expect_code("peer C imports after the exporter freed (B still holds)", r)?;
    let map = c.map(h, TWO_MIB)?;
    peer_sees(cx, &mut c, "peer C reads the data", map, 19)?;
    peer_teardown(&mut c, map, h)?;
    b.exit()?;
    c.exit()
}
