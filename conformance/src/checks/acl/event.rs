//! ACL-EVT: events.

use std::ptr;

use vmmkit_sys::acl::*;

use super::stream::{device_buffer, expect_bytes, stream};
use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

fn event(cx: &Ctx, flag: Option<u32>) -> Result<aclrtEvent, Failure> {
    let mut e: aclrtEvent = ptr::null_mut();
    let r = match flag {
        None => cx.acl().aclrtCreateEvent(&mut e)?,
        Some(f) => cx.acl().aclrtCreateEventWithFlag(&mut e, f)?,
    };
    setup("aclrtCreateEvent", r)?;
    Ok(e)
}

/// [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001): NULL event pointers and events.
pub fn null_event(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    cx.expect_code("aclrtCreateEvent(NULL)", acl.aclrtCreateEvent(ptr::null_mut())?)?;
    cx.expect_code(
        "aclrtCreateEventWithFlag(NULL, SYNC)",
        acl.aclrtCreateEventWithFlag(ptr::null_mut(), ACL_EVENT_SYNC)?,
    )?;
    cx.expect_code("aclrtDestroyEvent(NULL)", acl.aclrtDestroyEvent(ptr::null_mut())?)?;
    cx.expect_code("aclrtRecordEvent(NULL)", acl.aclrtRecordEvent(ptr::null_mut(), s)?)?;
    cx.expect_code("aclrtSynchronizeEvent(NULL)", acl.aclrtSynchronizeEvent(ptr::null_mut())?)?;
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-EVT-002](vmmkit_sys::acl::rules::EVT_002): flags 0, 0x40 (IPC: aclrtCreateEventExWithFlag's), 0x21 are refused; 0x1 and 0x8 are made.
pub fn bad_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut e: aclrtEvent = ptr::null_mut();
    for flag in [0u32, 0x40, 0x21, 0x80] {
        cx.expect_code(
            &format!("aclrtCreateEventWithFlag(flag {flag:#x})"),
            acl.aclrtCreateEventWithFlag(&mut e, flag)?,
        )?;
    }
    for flag in [ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE] {
        cx.expect_ok(
            &format!("aclrtCreateEventWithFlag(flag {flag:#x})"),
            acl.aclrtCreateEventWithFlag(&mut e, flag)?,
        )?;
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    Ok(())
}

/// [ACL-EVT-003](vmmkit_sys::acl::rules::EVT_003): timeout -2 with a NULL event is 107000 (the timeout first); timeout 0 with NULL is 100000
/// (the event next); timeout 0 with an event is 107000 (the runtime).
pub fn synchronize_timeout_order(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let r = acl.aclrtSynchronizeEventWithTimeout(ptr::null_mut(), -2)?;
    cx.expect("aclrtSynchronizeEventWithTimeout(NULL, -2)", AclError::RT_PARAM_INVALID, r)?;
    let r = acl.aclrtSynchronizeEventWithTimeout(ptr::null_mut(), 0)?;
    cx.expect("aclrtSynchronizeEventWithTimeout(NULL, 0)", AclError::INVALID_PARAM, r)?;
    let e = event(cx, None)?;
    let r = acl.aclrtSynchronizeEventWithTimeout(e, 0)?;
    cx.expect("aclrtSynchronizeEventWithTimeout(event, 0)", AclError::RT_PARAM_INVALID, r)?;
    cx.expect_ok("aclrtSynchronizeEventWithTimeout(event, 5)", acl.aclrtSynchronizeEventWithTimeout(e, 5)?)?;
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)
}

/// [ACL-EVT-004](vmmkit_sys::acl::rules::EVT_004): never recorded: NOT_READY (0); recorded and synchronized: COMPLETE (1); NULL status: 100000.
pub fn query_status(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let e = event(cx, None)?;
    let acl = cx.acl();
    cx.expect_code("aclrtQueryEventStatus(status NULL)", acl.aclrtQueryEventStatus(e, ptr::null_mut())?)?;
    let mut st: aclrtEventRecordedStatus = -1;
    setup("aclrtQueryEventStatus", acl.aclrtQueryEventStatus(e, &mut st)?)?;
    cx.ensure("status before any record", st == ACL_EVENT_RECORDED_STATUS_NOT_READY, "0 (NOT_READY)", st)?;
    setup("aclrtRecordEvent", acl.aclrtRecordEvent(e, s)?)?;
    setup("aclrtSynchronizeEvent", acl.aclrtSynchronizeEvent(e)?)?;
    setup("aclrtQueryEventStatus", acl.aclrtQueryEventStatus(e, &mut st)?)?;
    cx.ensure("status after the record ran", st == ACL_EVENT_RECORDED_STATUS_COMPLETE, "1 (COMPLETE)", st)?;
    let ex = event_ex(cx)?;
    setup("aclrtQueryEventStatus", acl.aclrtQueryEventStatus(ex, &mut st)?)?;
    let what = "status of an aclrtCreateEventExWithFlag event before any record";
    cx.ensure(what, st == ACL_EVENT_RECORDED_STATUS_COMPLETE, "1 (COMPLETE)", st)?;
    for e in [e, ex] {
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// An event of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC).
fn event_ex(cx: &Ctx) -> Result<aclrtEvent, Failure> {
    let mut e: aclrtEvent = ptr::null_mut();
    setup("aclrtCreateEventExWithFlag", cx.acl().aclrtCreateEventExWithFlag(&mut e, ACL_EVENT_SYNC)?)?;
    Ok(e)
}

/// [ACL-EVT-008](vmmkit_sys::acl::rules::EVT_008): aclrtQueryEvent and aclrtQueryEventWaitStatus refuse a new-mode event; an old one is answered.
pub fn old_queries_refuse_new_mode(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (ex, old) = (event_ex(cx)?, event(cx, None)?);
    let acl = cx.acl();
    let (mut st, mut wst): (aclrtEventStatus, aclrtEventWaitStatus) = (-1, -1);
    cx.expect_code("aclrtQueryEvent(aclrtCreateEventExWithFlag event)", acl.aclrtQueryEvent(ex, &mut st)?)?;
    cx.expect_code("aclrtQueryEventWaitStatus(same)", acl.aclrtQueryEventWaitStatus(ex, &mut wst)?)?;
    cx.expect_ok("aclrtQueryEvent(aclrtCreateEvent event)", acl.aclrtQueryEvent(old, &mut st)?)?;
    cx.ensure("status of an event never recorded", st == ACL_EVENT_STATUS_COMPLETE, "0 (COMPLETE)", st)?;
    for e in [ex, old] {
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    Ok(())
}

/// [ACL-EVT-005](vmmkit_sys::acl::rules::EVT_005): NULL ms is 100000; an event never recorded is 507000.
pub fn elapsed_unrecorded(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (a, b) = (event(cx, None)?, event(cx, None)?);
    let acl = cx.acl();
    let r = acl.aclrtEventElapsedTime(ptr::null_mut(), a, b)?;
    cx.expect("aclrtEventElapsedTime(ms NULL)", AclError::INVALID_PARAM, r)?;
    let mut ms = 0f32;
    let r = acl.aclrtEventElapsedTime(&mut ms, a, b)?;
    cx.expect("aclrtEventElapsedTime of events never recorded", AclError::RT_INTERNAL_ERROR, r)?;
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(a)?)?;
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(b)?)
}

/// [ACL-EVT-006](vmmkit_sys::acl::rules::EVT_006): elapsed time of an ACL_EVENT_SYNC event is 107006; of aclrtCreateEvent's it is given.
pub fn elapsed_needs_timing(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let (timed, untimed) = (event(cx, None)?, event(cx, Some(ACL_EVENT_SYNC))?);
    let acl = cx.acl();
    for e in [timed, untimed] {
        setup("aclrtRecordEvent", acl.aclrtRecordEvent(e, s)?)?;
    }
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    let mut ms = -1f32;
    cx.expect_code("aclrtEventElapsedTime(SYNC-only start)", acl.aclrtEventElapsedTime(&mut ms, untimed, timed)?)?;
    cx.expect_ok("aclrtEventElapsedTime of timed events", acl.aclrtEventElapsedTime(&mut ms, timed, timed)?)?;
    cx.ensure("elapsed of an event against itself", ms == 0.0, "0", ms)?;
    for e in [timed, untimed] {
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-EVT-007](vmmkit_sys::acl::rules::EVT_007): stream 1 copies host to device and records; stream 2 waits and copies device to host.
pub fn orders_streams(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 4 << 20;
    let (s1, s2) = (stream(cx)?, stream(cx)?);
    let dev = device_buffer(cx, LEN)?;
    let e = event(cx, None)?;
    let acl = cx.acl();
    let src = vec![0x77u8; LEN];
    let mut back = vec![0u8; LEN];
    setup("aclrtMemset", acl.aclrtMemset(dev, LEN, 0, LEN))?;
    let r = acl.aclrtMemcpyAsync(dev, LEN, src.as_ptr().cast(), LEN, ACL_MEMCPY_HOST_TO_DEVICE, s1);
    setup("aclrtMemcpyAsync on stream 1", r)?;
    setup("aclrtRecordEvent on stream 1", acl.aclrtRecordEvent(e, s1)?)?;
    cx.expect_ok("aclrtStreamWaitEvent(stream 2)", acl.aclrtStreamWaitEvent(s2, e)?)?;
    let r = acl.aclrtMemcpyAsync(back.as_mut_ptr().cast(), LEN, dev, LEN, ACL_MEMCPY_DEVICE_TO_HOST, s2);
    setup("aclrtMemcpyAsync on stream 2", r)?;
    setup("aclrtSynchronizeStream(stream 2)", acl.aclrtSynchronizeStream(s2))?;
    setup("aclrtSynchronizeStream(stream 1)", acl.aclrtSynchronizeStream(s1))?;
    expect_bytes(cx, "stream 2's copy", &back, 0x77)?;
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    for s in [s1, s2] {
        setup("aclrtDestroyStream", acl.aclrtDestroyStream(s))?;
    }
    Ok(())
}
