//! ACL-EXP: `aclrtMemExportToShareableHandle` (V1 and V2).

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::{exported, peer_exported, peer_sees};
use crate::acl::{Ctx, Handle, TWO_MIB, prop, setup};
use crate::outcome::Failure;

/// `aclrtMemExportToShareableHandle(h, NONE, flags)`: the code and the handle.
fn export(cx: &Ctx, h: Handle, flags: u64) -> (AclError, u64) {
    let mut sh = 0u64;
    let r = cx.acl().aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut sh);
    (r, sh)
}

/// [ACL-EXP-001](vmmkit_sys::acl::rules::EXP_001): NULL handle, POSIX handle type, NULL output; then it works.
pub fn v1_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut sh = 0u64;
    cx.expect_code("export V1(handle NULL)", acl.aclrtMemExportToShareableHandle(ptr::null_mut(), 0, 0, &mut sh))?;
    cx.expect_code("export V1(handleType POSIX)", acl.aclrtMemExportToShareableHandle(m.handle, 2, 0, &mut sh))?;
    cx.expect_code("export V1(handleType 1)", acl.aclrtMemExportToShareableHandle(m.handle, 1, 0, &mut sh))?;
    cx.expect_code("export V1(out NULL)", acl.aclrtMemExportToShareableHandle(m.handle, 0, 0, ptr::null_mut()))?;
    cx.expect_ok("state unchanged: export V1 with valid arguments", export(cx, m.handle, 0).0)
}

/// [ACL-EXP-002](vmmkit_sys::acl::rules::EXP_002): flags 2 and 3 on V1, and 2 on V2 where it exists.
pub fn flags(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    for f in [2, 3] {
        cx.expect_code(&format!("export V1(flags {f})"), export(cx, m.handle, f).0)?;
    }
    cx.expect_ok("state unchanged: export V1(flags 0)", export(cx, m.handle, 0).0)?;
    let h2 = cx.malloc(TWO_MIB)?;
    let mut out = 0u64;
    match cx.acl().aclrtMemExportToShareableHandleV2(h2, 2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, (&raw mut out).cast()) {
        Ok(r) => cx.expect_code("export V2(flags 2, DEFAULT)", r),
        Err(_) => {
            cx.note("the backend has no export V2: only V1 was checked");
            Ok(())
        }
    }
}

/// [ACL-EXP-003](vmmkit_sys::acl::rules::EXP_003): V2 with NULL handle, then NULL output.
pub fn v2_null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut out = [0u8; 128];
    let default = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;
    cx.expect_code(
        "export V2(handle NULL)",
        acl.aclrtMemExportToShareableHandleV2(ptr::null_mut(), 0, default, out.as_mut_ptr().cast())?,
    )?;
    cx.expect_code("export V2(out NULL)", acl.aclrtMemExportToShareableHandleV2(m.handle, 0, default, ptr::null_mut())?)
}

/// [ACL-EXP-004](vmmkit_sys::acl::rules::EXP_004): V2 share types 0 and 3.
pub fn v2_share_type(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let mut out = [0u8; 128];
    for t in [0, 3] {
        let r = cx.acl().aclrtMemExportToShareableHandleV2(m.handle, 0, t, out.as_mut_ptr().cast())?;
        cx.expect_code(&format!("export V2(shareType {t})"), r)?;
    }
    Ok(())
}

/// [ACL-EXP-005](vmmkit_sys::acl::rules::EXP_005): V2 FABRIC from a thread with no current device (107002),
/// then with device 0 current (0 on A3, 207000 on 910B: no server id).
pub fn v2_fabric(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let handle = m.handle as usize;
    let fabric = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
    // A new thread has no current device: the context is per thread.
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            let mut out = [0u8; 128];
            acl.aclrtMemExportToShareableHandleV2(handle as Handle, 1, fabric, out.as_mut_ptr().cast())
        })
        .join()
    })
    .map_err(|_| Failure::Setup("setup: the thread without a current device panicked".into()))??;
    cx.expect("export V2 FABRIC from a thread with no current device", AclError::RT_CONTEXT_NULL, r)?;
    let mut out = [0u8; 128];
    let r = acl.aclrtMemExportToShareableHandleV2(m.handle, 1, fabric, out.as_mut_ptr().cast())?;
    // A3 has a server id and exports; 910B has none (207000).
    let want = if cx.is_profile(chips::PROFILE_910B) { AclError::RT_FEATURE_NOT_SUPPORT } else { AclError::SUCCESS };
    cx.expect("export V2 FABRIC with device 0 current", want, r)
}

/// [ACL-EXP-006](vmmkit_sys::acl::rules::EXP_006): a freed handle.
pub fn dead_handle(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let keep = cx.malloc(TWO_MIB)?;
    let h = cx.malloc(TWO_MIB)?;
    setup("aclrtFreePhysical", cx.acl().aclrtFreePhysical(h))?;
    cx.expect_code("export V1 of a freed handle", export(cx, h, 0).0)?;
    cx.expect_ok("state unchanged: export of a live handle", export(cx, keep, 0).0)
}

/// [ACL-EXP-007](vmmkit_sys::acl::rules::EXP_007): exporting an imported handle is refused; a retained alias
/// of this process's allocation exports.
pub fn imported_handle(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let mut b = cx.peer("B")?;
    let sh = peer_exported(&mut b, 3)?;
    cx.device(0)?;
    let mut imported: Handle = ptr::null_mut();
    setup("aclrtMemImportFromShareableHandle", acl.aclrtMemImportFromShareableHandle(sh, 0, &mut imported))?;
    cx.expect_code("export V1 of an imported handle", export(cx, imported, 1).0)?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    let mut alias: Handle = ptr::null_mut();
    setup("aclrtMemRetainAllocationHandle", acl.aclrtMemRetainAllocationHandle(m.va, &mut alias))?;
    cx.expect_ok("export V1 of a retained handle of a local allocation", export(cx, alias, 1).0)?;
    b.exit()
}

/// [ACL-EXP-008](vmmkit_sys::acl::rules::EXP_008): a second export with flags 0 and 1, and through a retained
/// alias, are refused; the first handle still serves an importer.
pub fn twice(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, _) = exported(cx, 1, 8)?;
    let acl = cx.acl();
    for f in [0, 1] {
        cx.expect_code(&format!("second export (flags {f})"), export(cx, m.handle, f).0)?;
    }
    let mut alias: Handle = ptr::null_mut();
    setup("aclrtMemRetainAllocationHandle", acl.aclrtMemRetainAllocationHandle(m.va, &mut alias))?;
    cx.expect_code("export of a retained alias of an exported allocation", export(cx, alias, 1).0)
}

/// Checks a u64 shareable handle's layout: device in bits 32-39, zero above.
fn layout(cx: &Ctx, step: &str, sh: u64, device: u64) -> Result<(), Failure> {
    cx.ensure(
        step,
        (sh >> 32) & 0xff == device && sh >> 40 == 0,
        format!("device {device} in bits 32-39, zero in 40-63"),
        format!("{sh:#018x}"),
    )
}

/// [ACL-EXP-010](vmmkit_sys::acl::rules::EXP_010): V1 handles on each device, V2 DEFAULT and V2 FABRIC.
pub fn handle_layout(cx: &mut Ctx) -> Result<(), Failure> {
    let n = cx.device_count()?.min(2);
    cx.device(0)?;
    let acl = cx.acl();
    for d in 0..n {
        let h = cx.malloc_with(&prop(d), TWO_MIB)?;
        let (r, sh) = export(cx, h, 0);
        cx.expect_code(&format!("export V1 on device {d}"), r)?;
        layout(cx, &format!("export V1 on device {d}"), sh, u64::from(d))?;
    }
    let h = cx.malloc(TWO_MIB)?;
    let mut out = 0u64;
    let default = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;
    let Ok(r) = acl.aclrtMemExportToShareableHandleV2(h, 0, default, (&raw mut out).cast::<c_void>()) else {
        cx.note("no export V2 in this backend: V1 only");
        return Ok(());
    };
    cx.expect_code("export V2 DEFAULT", r)?;
    layout(cx, "export V2 DEFAULT", out, 0)?;
    let h = cx.malloc(TWO_MIB)?;
    let mut fab = [0u8; 128];
    let r = acl.aclrtMemExportToShareableHandleV2(h, 1, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, fab.as_mut_ptr().cast())?;
    if r == AclError::RT_FEATURE_NOT_SUPPORT {
        cx.note("FABRIC export unsupported (no server id): its layout was not checked");
        return Ok(());
    }
    cx.expect_code("export V2 FABRIC", r)?;
    let word = |o: usize| u32::from_le_bytes([fab[o], fab[o + 1], fab[o + 2], fab[o + 3]]);
    cx.ensure(
        "export V2 FABRIC layout",
        word(0) == 1 && word(8) == 0 && fab[20..].iter().all(|&b| b == 0),
        "type 1 at 0, device 0 at 8, zero from 20",
        format!("type {} device {} tail zero {}", word(0), word(8), fab[20..].iter().all(|&b| b == 0)),
    )
}

/// [ACL-EXP-011](vmmkit_sys::acl::rules::EXP_011): HOST-located physical memory exports.
pub fn host_memory(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = crate::acl::prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 0);
    let h = cx.malloc_with(&p, TWO_MIB)?;
    cx.expect_code("export V1 of HOST memory", export(cx, h, 1).0)
}

/// [ACL-EXP-012](vmmkit_sys::acl::rules::EXP_012): with flag 0 an unlisted peer is refused; once listed it imports.
pub fn trustlist_starts_empty(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 12)?;
    let mut b = cx.peer("B")?;
    let (r, _) = b.import(sh, 0)?;
    cx.ensure_code("peer B imports before any SetPid", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    let pid = b.bare_tgid()?;
    cx.set_pids(sh, &[pid])?;
    let (r, h) = b.import(sh, 0)?;
    cx.ensure_code("peer B imports once listed", AclError::SUCCESS, r)?;
    let map = b.map(h, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the exported data", map, 12)?;
    b.exit()
}
