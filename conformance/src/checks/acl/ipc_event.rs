//! ACL-IEV: IPC events (`aclrtIpcGetEventHandle`, `aclrtIpcOpenEventHandle`)
//! across real processes.

use std::ptr;

use vmmkit_sys::acl::*;

use super::notify::{free_block, shared_block, write_async};
use crate::acl::{Ctx, setup};
use crate::outcome::Failure;
use crate::peer::Request;

/// A fresh event on device 0 made with `flag` by aclrtCreateEventExWithFlag.
fn event(cx: &Ctx, flag: u32) -> Result<aclrtEvent, Failure> {
    cx.device(0)?;
    let mut e: aclrtEvent = ptr::null_mut();
    setup(&format!("aclrtCreateEventExWithFlag({flag:#x})"), cx.acl().aclrtCreateEventExWithFlag(&mut e, flag)?)?;
    Ok(e)
}

fn handle(cx: &Ctx, e: aclrtEvent) -> Result<(AclError, aclrtIpcEventHandle), Failure> {
    let mut h = aclrtIpcEventHandle::default();
    let r = cx.acl().aclrtIpcGetEventHandle(e, &mut h)?;
    Ok((r, h))
}

fn bytes(h: &aclrtIpcEventHandle) -> Vec<u8> {
    h.reserved.iter().map(|&c| c as u8).collect()
}

/// [ACL-IEV-001](vmmkit_sys::acl::rules::IEV_001): NULL handle (checked before the event), NULL event: 100000.
pub fn null_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let e = event(cx, ACL_EVENT_IPC)?;
    let acl = cx.acl();
    let p = AclError::INVALID_PARAM;
    let mut h = aclrtIpcEventHandle::default();
    cx.expect(
        "GetEventHandle(NULL event, NULL handle)",
        p,
        acl.aclrtIpcGetEventHandle(ptr::null_mut(), ptr::null_mut())?,
    )?;
    cx.expect("GetEventHandle(event, NULL handle)", p, acl.aclrtIpcGetEventHandle(e, ptr::null_mut())?)?;
    cx.expect("GetEventHandle(NULL event)", p, acl.aclrtIpcGetEventHandle(ptr::null_mut(), &mut h)?)?;
    cx.expect("OpenEventHandle(handle, NULL)", p, acl.aclrtIpcOpenEventHandle(h, ptr::null_mut())?)?;
    cx.expect_ok("state unchanged: GetEventHandle", acl.aclrtIpcGetEventHandle(e, &mut h)?)?;
    cx.expect_ok("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)
}

/// [ACL-IEV-002](vmmkit_sys::acl::rules::IEV_002): an event made without ACL_EVENT_IPC has no handle (107000).
pub fn needs_ipc_flag(cx: &mut Ctx) -> Result<(), Failure> {
    let e = event(cx, ACL_EVENT_SYNC)?;
    let (r, _) = handle(cx, e)?;
    cx.expect_code("GetEventHandle of an ACL_EVENT_SYNC event", r)?;
    cx.expect_ok("aclrtDestroyEvent", cx.acl().aclrtDestroyEvent(e)?)
}

/// [ACL-IEV-003](vmmkit_sys::acl::rules::IEV_003): the same handle twice; an all-zero handle and one of a
/// destroyed event are 107017 to open.
pub fn handles(cx: &mut Ctx) -> Result<(), Failure> {
    let e = event(cx, ACL_EVENT_IPC)?;
    let (r1, h1) = handle(cx, e)?;
    let (r2, h2) = handle(cx, e)?;
    cx.expect_ok("GetEventHandle twice", if r1.is_success() { r2 } else { r1 })?;
    cx.ensure("the second handle", h1 == h2, "the first", "another")?;
    let acl = cx.acl();
    let mut opened: aclrtEvent = ptr::null_mut();
    let zero = acl.aclrtIpcOpenEventHandle(aclrtIpcEventHandle::default(), &mut opened)?;
    cx.expect_code("OpenEventHandle of an all-zero handle", zero)?;
    cx.expect_ok("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    let gone = acl.aclrtIpcOpenEventHandle(h1, &mut opened)?;
    cx.expect_code("OpenEventHandle of the handle of a destroyed event", gone)
}

/// [ACL-IEV-004](vmmkit_sys::acl::rules::IEV_004): A copies asynchronously and records; B opens the handle,
/// makes its stream wait on the event and reads A's data.
pub fn ordering_across_processes(cx: &mut Ctx) -> Result<(), Failure> {
    let e = event(cx, ACL_EVENT_IPC)?;
    let mut b = cx.peer("B")?;
    let (va, map, mem_key) = shared_block(cx, &mut b)?;
    let acl = cx.acl();
    let (s, _data) = write_async(cx, va, 31, |s| acl.aclrtRecordEvent(e, s))?;
    let (r, h) = handle(cx, e)?;
    setup("aclrtIpcGetEventHandle", r)?;
    let opened = b.call(&Request::EventOpen { handle: bytes(&h) })?;
    cx.ensure_code("peer B opens the handle", AclError::SUCCESS, AclError(opened.code))?;
    let got = b.call(&Request::EventWaitRead { event: opened.slot, map, seed: 31 })?;
    cx.ensure_code(&format!("peer B waits and reads ({})", got.text), AclError::SUCCESS, AclError(got.code))?;
    cx.ensure("peer B reads A's data after the wait", got.value == 1, "pattern 31", &got.text)?;
    b.exit()?;
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))?;
    free_block(cx, va, &mem_key)?;
    cx.expect_ok("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)
}

/// [ACL-IEV-005](vmmkit_sys::acl::rules::IEV_005): the creator A lives, peer B opens A's IPC event and records
/// it behind a wait that never ends, and B is killed: A's wait on its own
/// event ends with 507899 instead of waiting for a record nobody will make
/// (bounded by a timeout, so a wait that does not end reads 507047).
pub fn dead_recorder(cx: &mut Ctx) -> Result<(), Failure> {
    let e = event(cx, ACL_EVENT_IPC)?;
    let mut b = cx.peer("B")?;
    let (r, h) = handle(cx, e)?;
    setup("aclrtIpcGetEventHandle", r)?;
    let opened = b.call(&Request::EventOpen { handle: bytes(&h) })?;
    cx.ensure_code("peer B opens the handle", AclError::SUCCESS, AclError(opened.code))?;
    let stuck = b.call(&Request::EventRecordStuck { event: opened.slot })?;
    cx.ensure_code(&format!("peer B records behind a wait ({})", stuck.text), AclError::SUCCESS, AclError(stuck.code))?;
    let acl = cx.acl();
    let pending = acl.aclrtSynchronizeEventWithTimeout(e, 10)?;
    cx.ensure_code("the record is pending while B lives", AclError::RT_EVENT_SYNC_TIMEOUT, pending)?;
    b.kill()?;
    cx.expect_code(
        "aclrtSynchronizeEventWithTimeout after the recorder died",
        acl.aclrtSynchronizeEventWithTimeout(e, 10_000)?,
    )?;
    cx.expect_ok("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)
}
