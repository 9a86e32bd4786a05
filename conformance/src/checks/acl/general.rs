//! ACL-GEN and ACL-TGID: initialisation, devices, the current device, the
//! caller's host pid.

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, Handle, TWO_MIB, Va, prop, prop_with, setup};
use crate::outcome::Failure;

/// [ACL-GEN-001](vmmkit_sys::acl::rules::GEN_001): a second `aclInit` returns 100002; ACL stays initialised.
pub fn init_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    cx.expect_ok("first aclInit(NULL) in a fresh process", acl.aclInit(ptr::null()))?;
    cx.expect_code("second aclInit(NULL)", acl.aclInit(ptr::null()))?;
    cx.expect_ok("aclrtSetDevice(0) after the refused aclInit", acl.aclrtSetDevice(0))
}

/// [ACL-GEN-002](vmmkit_sys::acl::rules::GEN_002): `aclFinalize` ends ACL even after two `aclInit`; a second
/// `aclFinalize` returns 100037.
pub fn finalize_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    cx.init()?;
    cx.init()?; // a second reference, which aclFinalize ignores
    cx.expect_ok("aclFinalize after two aclInit", acl.aclFinalize())?;
    cx.expect_code("second aclFinalize", acl.aclFinalize())
}

/// [ACL-GEN-003](vmmkit_sys::acl::rules::GEN_003): `aclrtSetDevice` of the device count and of -1.
pub fn set_device_out_of_range(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let n = cx.device_count()? as i32;
    cx.expect_code(&format!("aclrtSetDevice({n}) with {n} devices"), acl.aclrtSetDevice(n))?;
    cx.expect_code("aclrtSetDevice(-1)", acl.aclrtSetDevice(-1))?;
    cx.expect_ok("aclrtSetDevice(0) afterwards", acl.aclrtSetDevice(0))
}

/// [ACL-GEN-004](vmmkit_sys::acl::rules::GEN_004): `aclrtGetDevice` before any `aclrtSetDevice`.
pub fn get_device_without_current(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    cx.init()?;
    let mut d = -1;
    cx.expect_code("aclrtGetDevice with no current device", acl.aclrtGetDevice(&mut d))?;
    setup("aclrtSetDevice(0)", acl.aclrtSetDevice(0))?;
    cx.expect_ok("aclrtGetDevice after aclrtSetDevice(0)", acl.aclrtGetDevice(&mut d))?;
    cx.ensure("aclrtGetDevice after aclrtSetDevice(0)", d == 0, "device 0", format!("device {d}"))
}

/// [ACL-GEN-005](vmmkit_sys::acl::rules::GEN_005): each listed call, made before any `aclrtSetDevice`.
pub fn current_device_required(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    cx.init()?;
    let mut stream: aclrtStream = ptr::null_mut();
    cx.expect_code("aclrtCreateStream", acl.aclrtCreateStream(&mut stream))?;
    let src = [7u8; 16];
    let mut dst = [0u8; 16];
    cx.expect_code(
        "aclrtMemcpy(16 bytes host to host)",
        acl.aclrtMemcpy(dst.as_mut_ptr().cast(), 16, src.as_ptr().cast(), 16, ACL_MEMCPY_HOST_TO_HOST),
    )?;
    cx.expect_code("aclrtDeviceEnablePeerAccess(1, 0)", acl.aclrtDeviceEnablePeerAccess(1, 0))?;
    cx.expect_code("aclrtDeviceDisablePeerAccess(1)", acl.aclrtDeviceDisablePeerAccess(1))?;
    let numa = prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST_NUMA, 0);
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("aclrtMallocPhysical(HOST_NUMA 0)", acl.aclrtMallocPhysical(&mut h, TWO_MIB, &numa, 0))
}

/// [ACL-GEN-006](vmmkit_sys::acl::rules::GEN_006): a DEVICE location and an import device id equal to the
/// device count, and -1 for the import.
pub fn vmm_device_ids(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let n = cx.device_count()?;
    cx.device(0)?;
    let mut h: Handle = ptr::null_mut();
    let p = prop(n);
    cx.expect_code(&format!("aclrtMallocPhysical(DEVICE {n})"), acl.aclrtMallocPhysical(&mut h, TWO_MIB, &p, 0))?;
    let sh = 1u64;
    cx.expect_code(
        &format!("aclrtMemImportFromShareableHandle(deviceId {n})"),
        acl.aclrtMemImportFromShareableHandle(sh, n as i32, &mut h),
    )?;
    cx.expect_code(
        "aclrtMemImportFromShareableHandle(deviceId -1)",
        acl.aclrtMemImportFromShareableHandle(sh, -1, &mut h),
    )
}

/// The VMM calls of [ACL-GEN-007](vmmkit_sys::acl::rules::GEN_007) and [ACL-GEN-008](vmmkit_sys::acl::rules::GEN_008), made in that state.
fn vmm_calls(cx: &Ctx, export: bool) -> Result<(), Failure> {
    let acl = cx.acl();
    let mut p = prop(0);
    let mut g = 0usize;
    cx.expect_code(
        "aclrtMemGetAllocationGranularity",
        acl.aclrtMemGetAllocationGranularity(&mut p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &mut g),
    )?;
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("aclrtMallocPhysical(DEVICE 0)", acl.aclrtMallocPhysical(&mut h, TWO_MIB, &p, 0))?;
    let mut va: Va = ptr::null_mut();
    cx.expect_code("aclrtReserveMemAddress", acl.aclrtReserveMemAddress(&mut va, TWO_MIB, 0, ptr::null_mut(), 0))?;
    cx.expect_code("aclrtMapMem", acl.aclrtMapMem(va, TWO_MIB, 0, h, 0))?;
    if export {
        let mut sh = 0u64;
        cx.expect_code(
            "aclrtMemExportToShareableHandle",
            acl.aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut sh),
        )?;
    }
    Ok(())
}

/// [ACL-GEN-007](vmmkit_sys::acl::rules::GEN_007): VMM calls after `aclInit` but before any `aclrtSetDevice`.
pub fn vmm_before_set_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    vmm_calls(cx, true)
}

/// [ACL-GEN-008](vmmkit_sys::acl::rules::GEN_008): VMM calls before `aclInit`.
pub fn vmm_before_init(cx: &mut Ctx) -> Result<(), Failure> {
    vmm_calls(cx, false)
}

/// [ACL-TGID-001](vmmkit_sys::acl::rules::TGID_001): `aclrtDeviceGetBareTgid(NULL)`.
pub fn bare_tgid_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    cx.expect_code("aclrtDeviceGetBareTgid(NULL)", cx.acl().aclrtDeviceGetBareTgid(ptr::null_mut()))
}

/// [ACL-TGID-002](vmmkit_sys::acl::rules::TGID_002): the bare tgid is this process's pid (outside a container;
/// inside one, the outermost pid `/proc/self/status` shows).
pub fn bare_tgid_is_host_pid(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let mut pid = 0i32;
    cx.expect_code("aclrtDeviceGetBareTgid", cx.acl().aclrtDeviceGetBareTgid(&mut pid))?;
    let own = std::process::id() as i32;
    let outer = outermost_pid().unwrap_or(own);
    cx.ensure(
        "aclrtDeviceGetBareTgid",
        pid == own || pid == outer,
        format!("the host pid {outer} (getpid() = {own})"),
        pid,
    )
}

/// The first pid of the `NSpid:` line: this process in the outermost pid
/// namespace that `/proc` shows.
fn outermost_pid() -> Option<i32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// 2 MiB of device 2 of this process, mapped, filled with pattern `seed`
/// and exported with flag 1 (no trustlist): the mapping and the shareable handle.
fn exported_from_device_2(cx: &Ctx, seed: u8) -> Result<(crate::acl::Mapped, u64), Failure> {
    cx.device(2)?;
    let va = cx.reserve(TWO_MIB)?;
    let handle = cx.malloc_with(&prop(2), TWO_MIB)?;
    cx.map(va, TWO_MIB, handle)?;
    cx.write(va, TWO_MIB, seed)?;
    let sh = cx.export(handle, 1)?;
    Ok((crate::acl::Mapped { va, handle, size: TWO_MIB }, sh))
}

/// A peer whose environment adds `env`, started without a device.
fn masked_peer(cx: &Ctx, env: &[(&str, &str)]) -> Result<crate::peer::Peer, Failure> {
    crate::peer::Peer::spawn(&cx.launcher().with_env(env), "masked")
}

/// [ACL-GEN-011](vmmkit_sys::acl::rules::GEN_011): this process (every device) exports 2 MiB of device 2. A
/// peer that sees `ASCEND_RT_VISIBLE_DEVICES=1,2,9,3` (the list stops at 9)
/// has two devices, physical 1 and 2; it imports the memory onto its device
/// 1 (physical 2, where it lives) and reads it there. Lists the runtime
/// refuses (`2,1` out of order, `1,2,2` repeated, `x`) make
/// aclrtGetDeviceCount 207004.
pub fn visible_devices(cx: &mut Ctx) -> Result<(), Failure> {
    use crate::peer::Request;
    let (m, sh) = exported_from_device_2(cx, 85)?;
    let mut peer = masked_peer(cx, &[("ASCEND_RT_VISIBLE_DEVICES", "1,2,9,3")])?;
    let r = peer.call(&Request::Devices)?;
    cx.expect_ok("peer with 1,2,9,3: aclrtGetDeviceCount", AclError(r.code))?;
    let phys: Vec<i32> = r.bytes.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    cx.ensure(
        "peer with 1,2,9,3: its devices' physical ids",
        r.value == 2 && phys == [1, 2],
        "2 devices: [1, 2]",
        format!("{}: {phys:?}", r.value),
    )?;
    peer.start(Some(1))?;
    let (code, h) = peer.import(sh, 1)?;
    cx.expect_ok("peer with 1,2,9,3: aclrtMemImportFromShareableHandle onto its device 1", code)?;
    let map = peer.map(h, TWO_MIB)?;
    let diff = peer.verify(map, 85)?;
    cx.ensure("peer with 1,2,9,3 reads the memory", diff.is_none(), "pattern 85", diff.unwrap_or_default())?;
    super::sharing::peer_teardown(&mut peer, map, h)?;
    peer.exit()?;
    for list in ["2,1", "1,2,2", "x"] {
        let mut peer = masked_peer(cx, &[("ASCEND_RT_VISIBLE_DEVICES", list)])?;
        let r = peer.call(&Request::Devices)?;
        cx.expect_code(&format!("peer with ASCEND_RT_VISIBLE_DEVICES={list}: aclrtGetDeviceCount"), AclError(r.code))?;
        peer.exit()?;
    }
    cx.teardown(m)
}

/// [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012): a peer that sees `ASCEND_RT_VISIBLE_DEVICES=1,2` finds the
/// device of a handle exported from physical device 2 (the key's device
/// field) as its user id 1; logic id 0 (not in its list) and a negative
/// user id are 107001.
pub fn device_ids(cx: &mut Ctx) -> Result<(), Failure> {
    use crate::peer::Request;
    let (m, sh) = exported_from_device_2(cx, 86)?;
    let key_device = ((sh >> 32) & 0xff) as i32;
    let mut peer = masked_peer(cx, &[("ASCEND_RT_VISIBLE_DEVICES", "1,2")])?;
    peer.setup(&Request::Devices)?;
    let r = peer.call(&Request::UserOf { logic: key_device })?;
    cx.expect_ok(&format!("peer with 1,2: aclrtGetUserDevIdByLogicDevId({key_device})"), AclError(r.code))?;
    cx.ensure("the user id of the exporting device", r.value == 1, 1, r.value as i32)?;
    let r = peer.call(&Request::UserOf { logic: 0 })?;
    cx.expect_code("peer with 1,2: aclrtGetUserDevIdByLogicDevId(0)", AclError(r.code))?;
    peer.exit()?;
    let mut logic = 0;
    cx.expect_code("aclrtGetUserDevIdByLogicDevId(-1)", cx.acl().aclrtGetUserDevIdByLogicDevId(-1, &mut logic)?)?;
    cx.teardown(m)
}
