//! ACL-PID: `aclrtMemSetPidToShareableHandle` (V1 and V2) and the trustlist.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::{UNKNOWN_SHAREABLE, exported, peer_reads, peer_sees};
use crate::acl::{Ctx, TWO_MIB};
use crate::outcome::Failure;
use crate::peer::{Request, steer};

/// `aclrtMemSetPidToShareableHandle(sh, pids)`.
fn set(cx: &Ctx, sh: u64, pids: &[i32]) -> AclError {
    let mut p = pids.to_vec();
    cx.acl().aclrtMemSetPidToShareableHandle(sh, p.as_mut_ptr(), p.len())
}

/// [ACL-PID-001](vmmkit_sys::acl::rules::PID_001): NULL `pid`, then `pidNum` 0; one pid then works.
pub fn v1_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 1)?;
    let acl = cx.acl();
    let mut pid = 4242i32;
    cx.expect_code("SetPid V1(pid NULL)", acl.aclrtMemSetPidToShareableHandle(sh, ptr::null_mut(), 1))?;
    cx.expect_code("SetPid V1(pidNum 0)", acl.aclrtMemSetPidToShareableHandle(sh, &mut pid, 0))?;
    cx.expect_ok("state unchanged: SetPid V1 of one pid", set(cx, sh, &[pid]))
}

/// [ACL-PID-002](vmmkit_sys::acl::rules::PID_002): V2 with NULL handle, NULL pid, pidNum 0 (100000), share
/// types 0 and 3 (107000); then it works.
pub fn v2_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, mut sh) = exported(cx, 0, 2)?;
    let acl = cx.acl();
    let mut pid = 4242i32;
    let default = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;
    let shp: *mut c_void = (&raw mut sh).cast();
    let param = AclError::INVALID_PARAM;
    cx.expect(
        "SetPid V2(handle NULL)",
        param,
        acl.aclrtMemSetPidToShareableHandleV2(ptr::null_mut(), default, &mut pid, 1)?,
    )?;
    cx.expect("SetPid V2(pid NULL)", param, acl.aclrtMemSetPidToShareableHandleV2(shp, default, ptr::null_mut(), 1)?)?;
    cx.expect("SetPid V2(pidNum 0)", param, acl.aclrtMemSetPidToShareableHandleV2(shp, default, &mut pid, 0)?)?;
    for t in [0, 3] {
        let r = acl.aclrtMemSetPidToShareableHandleV2(shp, t, &mut pid, 1)?;
        cx.expect(&format!("SetPid V2(shareType {t})"), AclError::RT_PARAM_INVALID, r)?;
    }
    cx.expect_ok(
        "state unchanged: SetPid V2 DEFAULT of one pid",
        acl.aclrtMemSetPidToShareableHandleV2(shp, default, &mut pid, 1)?,
    )
}

/// [ACL-PID-003](vmmkit_sys::acl::rules::PID_003): 65,536 pids in one call.
pub fn too_many_in_call(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 3)?;
    let pids: Vec<i32> = (1..=65_536).collect();
    cx.expect_code("SetPid of 65,536 pids", set(cx, sh, &pids))?;
    cx.expect_ok("state unchanged: SetPid of 65,535 pids", set(cx, sh, &pids[..65_535]))
}

/// [ACL-PID-004](vmmkit_sys::acl::rules::PID_004): 65,535 distinct pids fill the list; one more is refused.
pub fn list_full(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 4)?;
    let pids: Vec<i32> = (1..=65_535).collect();
    cx.expect_ok("SetPid of 65,535 distinct pids", set(cx, sh, &pids))?;
    cx.expect_code("SetPid of a 65,536th distinct pid", set(cx, sh, &[65_536]))
}

/// [ACL-PID-005](vmmkit_sys::acl::rules::PID_005): a share id never exported, a bad device field, and a
/// handle every holder released.
pub fn unknown_handle(cx: &mut Ctx) -> Result<(), Failure> {
    let (m, sh) = exported(cx, 0, 5)?;
    cx.expect_code("SetPid on a never-exported share id", set(cx, UNKNOWN_SHAREABLE, &[4242]))?;
    cx.expect_code("SetPid with device field 200", set(cx, (200 << 32) | (sh & 0xffff_ffff), &[4242]))?;
    // The driver reads bits 0-39 only: high bits do not make another handle.
    cx.expect_ok("SetPid with bits 40-63 set on a live handle", set(cx, sh | (0xab_cdef << 40), &[4242]))?;
    cx.teardown(m)?;
    cx.expect_code("SetPid after every holder released", set(cx, sh, &[4242]))
}

/// [ACL-PID-006](vmmkit_sys::acl::rules::PID_006): a peer that did not export sets a pid; the exporter can.
pub fn not_exporter(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 6)?;
    let mut b = cx.peer("B")?;
    let pid = b.bare_tgid()?;
    let r = b.code(&Request::SetPid { shareable: sh, pids: vec![pid] })?;
    cx.expect_code("peer B (not the exporter) sets its own pid", r)?;
    cx.expect_ok("state unchanged: the exporter sets B's pid", set(cx, sh, &[pid]))?;
    b.exit()
}

/// [ACL-PID-007](vmmkit_sys::acl::rules::PID_007): SetPid after export with DISABLE_PID_VALIDATION.
pub fn validation_disabled(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 1, 7)?;
    cx.expect_code("SetPid on a handle exported with flag 1", set(cx, sh, &[4242]))
}

/// [ACL-PID-008](vmmkit_sys::acl::rules::PID_008): all-zero lists are refused; zeros beside a real pid are
/// skipped and the pid is listed.
pub fn zero_pids(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 8)?;
    cx.expect_code("SetPid [0]", set(cx, sh, &[0]))?;
    cx.expect_code("SetPid [0, 0, 0]", set(cx, sh, &[0, 0, 0]))?;
    let mut b = cx.peer("B")?;
    let pid = b.bare_tgid()?;
    cx.expect_ok("SetPid [0, B, 0]", set(cx, sh, &[0, pid, 0]))?;
    peer_reads(&mut b, sh, 0, 8)?;
    b.exit()
}

/// [ACL-PID-009](vmmkit_sys::acl::rules::PID_009): listing a pid again succeeds; and (with pid steering) the
/// repeat refreshes an entry older than its process, which then imports.
pub fn repeat_pid(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 9)?;
    let mut b = cx.peer("B")?;
    let pid = b.bare_tgid()?;
    cx.expect_code("SetPid of B", set(cx, sh, &[pid]))?;
    cx.expect_code("SetPid of B again", set(cx, sh, &[pid]))?;
    peer_reads(&mut b, sh, 0, 9)?;
    b.exit()?;
    if let Err(reason) = steer::available() {
        return Err(Failure::NotSupported(format!(
            "the repeat returned 0, but the refresh needs pid steering: {reason}"
        )));
    }
    let steering = steer::Steering::begin()?;
    let old = steering.exited_pid(cx.launcher())?;
    cx.expect_code(&format!("SetPid of pid {old} (no process has it)"), set(cx, sh, &[old]))?;
    steer::let_start_clock_tick();
    let mut c = steering.spawn_with_pid(cx.launcher(), "C", old)?;
    drop(steering);
    c.start(Some(0))?;
    cx.expect_code(&format!("SetPid of pid {old} again, now C's"), set(cx, sh, &[old]))?;
    let (r, _) = c.import(sh, 0)?;
    cx.ensure_code("peer C imports with the refreshed entry", AclError::SUCCESS, r)?;
    c.exit()
}

/// [ACL-PID-010](vmmkit_sys::acl::rules::PID_010) and [ACL-IMP-012](vmmkit_sys::acl::rules::IMP_012): an entry set for a pid before the process
/// that now has it started is refused (507899); set again, it works.
pub fn entry_before_start(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 10)?;
    let steering = steer::Steering::begin()?;
    let old = steering.exited_pid(cx.launcher())?;
    cx.set_pids(sh, &[old])?;
    steer::let_start_clock_tick();
    let mut c = steering.spawn_with_pid(cx.launcher(), "C", old)?;
    drop(steering);
    c.start(Some(0))?;
    let (r, _) = c.import(sh, 0)?;
    cx.ensure_code(
        &format!("peer C (pid {old}, started after its entry was set) imports"),
        AclError::RT_DRV_INTERNAL_ERROR,
        r,
    )?;
    cx.set_pids(sh, &[old])?;
    let (r, h) = c.import(sh, 0)?;
    cx.ensure_code("peer C imports after its pid was set again", AclError::SUCCESS, r)?;
    let map = c.map(h, TWO_MIB)?;
    peer_sees(cx, &mut c, "peer C reads the exported data", map, 10)?;
    c.exit()
}

/// [ACL-PID-011](vmmkit_sys::acl::rules::PID_011): the pid aclrtDeviceGetBareTgid gives is the one to list.
pub fn bare_tgid_pids(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 11)?;
    let mut b = cx.peer("B")?;
    let tgid = b.bare_tgid()?;
    cx.ensure("peer B's bare tgid", i64::from(tgid) == i64::from(b.pid()), b.pid(), tgid)?;
    cx.set_pids(sh, &[tgid])?;
    let (r, h) = b.import(sh, 0)?;
    cx.ensure_code("peer B imports, listed by its bare tgid", AclError::SUCCESS, r)?;
    let map = b.map(h, TWO_MIB)?;
    peer_sees(cx, &mut b, "peer B reads the exported data", map, 11)?;
    b.exit()
}

/// [ACL-PID-012](vmmkit_sys::acl::rules::PID_012): a pid no process can have (above any pid_max) is accepted.
pub fn dead_pid_accepted(cx: &mut Ctx) -> Result<(), Failure> {
    let (_m, sh) = exported(cx, 0, 12)?;
    cx.expect_code("SetPid of pid 2147483646 (no such process)", set(cx, sh, &[i32::MAX - 1]))
}
