//! ACL-STM: streams, and async copies on them.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// A new stream on device 0.
pub(super) fn stream(cx: &Ctx) -> Result<aclrtStream, Failure> {
    cx.device(0)?;
    let mut s: aclrtStream = ptr::null_mut();
    setup("aclrtCreateStream", cx.acl().aclrtCreateStream(&mut s))?;
    Ok(s)
}

/// `len` bytes of device memory (aclrtMalloc).
pub(super) fn device_buffer(cx: &Ctx, len: usize) -> Result<*mut c_void, Failure> {
    let mut p = ptr::null_mut();
    setup("aclrtMalloc", cx.acl().aclrtMalloc(&mut p, len, ACL_MEM_MALLOC_HUGE_FIRST))?;
    Ok(p)
}

/// [ACL-STM-001](vmmkit_sys::acl::rules::STM_001): NULL out-pointer of create, NULL stream of destroy, NULL status of query.
pub fn null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    cx.expect_code("aclrtCreateStream(NULL)", acl.aclrtCreateStream(ptr::null_mut()))?;
    cx.expect_code("aclrtDestroyStream(NULL)", acl.aclrtDestroyStream(ptr::null_mut()))?;
    cx.expect_code("aclrtStreamQuery(status NULL)", acl.aclrtStreamQuery(s, ptr::null_mut())?)?;
    cx.expect_ok("aclrtDestroyStream of a live stream", acl.aclrtDestroyStream(s))
}

/// [ACL-STM-002](vmmkit_sys::acl::rules::STM_002): timeouts -2 and 0 are refused, for a stream and for the device; -1 waits.
pub fn timeout_below_minus_one(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    for t in [-2, 0] {
        let r = acl.aclrtSynchronizeStreamWithTimeout(s, t)?;
        cx.expect_code(&format!("aclrtSynchronizeStreamWithTimeout(timeout {t})"), r)?;
        let r = acl.aclrtSynchronizeDeviceWithTimeout(t)?;
        cx.expect_code(&format!("aclrtSynchronizeDeviceWithTimeout(timeout {t})"), r)?;
    }
    cx.expect_ok("aclrtSynchronizeDeviceWithTimeout(timeout -1)", acl.aclrtSynchronizeDeviceWithTimeout(-1)?)?;
    cx.expect_ok("aclrtSynchronizeStreamWithTimeout(timeout -1)", acl.aclrtSynchronizeStreamWithTimeout(s, -1)?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-STM-003](vmmkit_sys::acl::rules::STM_003): a stream whose copy waits behind aclrtValueWait on a device
/// word nobody has written yet: its work cannot be done in 1 ms whatever the
/// copy's size or the schedule, so aclrtSynchronizeStreamWithTimeout(1 ms)
/// is 507046 at once. Then the word is written on another stream: the wait
/// ends and the copy still completes (its bytes are there).
pub fn timeout_expires(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 1 << 20;
    let (s, other) = (stream(cx)?, stream(cx)?);
    let word = device_buffer(cx, 8)?;
    let dev = device_buffer(cx, LEN)?;
    let acl = cx.acl();
    setup("aclrtMemset(word, 0)", acl.aclrtMemset(word, 8, 0, 8))?;
    setup("aclrtValueWait(word >= 1)", acl.aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s)?)?;
    let src = write_async(cx, s, dev, LEN, 0x3c)?;
    let got = acl.aclrtSynchronizeStreamWithTimeout(s, 1)?;
    // Whatever the answer, the word is written and the copy waited for: the
    // source must outlive the copy.
    setup("aclrtValueWrite(word, 1) on another stream", acl.aclrtValueWrite(word, 1, 0, other)?)?;
    // The write first: a schedule may hold it until its own stream is waited for.
    setup("aclrtSynchronizeStream (the other)", acl.aclrtSynchronizeStream(other))?;
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    cx.expect_code("aclrtSynchronizeStreamWithTimeout(1 ms) of a copy held behind a wait", got)?;
    drop(src);
    expect_bytes(cx, "bytes of the copy after the wait ended", &cx.read(dev, LEN)?, 0x3c)?;
    for (what, stream) in [("aclrtDestroyStream", s), ("aclrtDestroyStream (the other)", other)] {
        setup(what, acl.aclrtDestroyStream(stream))?;
    }
    setup("aclrtFree(word)", acl.aclrtFree(word))?;
    cx.expect_ok("aclrtFree", acl.aclrtFree(dev))
}

/// Every byte of `data` must be `seed`.
pub(super) fn expect_bytes(cx: &Ctx, step: &str, data: &[u8], seed: u8) -> Result<(), Failure> {
    let bad = data.iter().position(|&b| b != seed);
    cx.ensure(step, bad.is_none(), format!("all {seed:#04x}"), format!("{:?} at byte {bad:?}", bad.map(|i| data[i])))
}

/// Writes `len` bytes of `seed` to `dev` on `s` asynchronously; the source
/// is returned, for the caller to keep until the copy has run.
fn write_async(cx: &Ctx, s: aclrtStream, dev: *mut c_void, len: usize, seed: u8) -> Result<Vec<u8>, Failure> {
    let src = vec![seed; len];
    let r = cx.acl().aclrtMemcpyAsync(dev, len, src.as_ptr().cast(), len, ACL_MEMCPY_HOST_TO_DEVICE, s);
    setup("aclrtMemcpyAsync(host to device)", r)?;
    Ok(src)
}

/// [ACL-STM-004](vmmkit_sys::acl::rules::STM_004): aclrtMemcpyAsync then aclrtSynchronizeStream: the bytes are there.
pub fn async_copy_then_synchronize(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 1 << 20;
    let s = stream(cx)?;
    let dev = device_buffer(cx, LEN)?;
    let acl = cx.acl();
    let src = write_async(cx, s, dev, LEN, 0xa5)?;
    cx.expect_ok("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    drop(src);
    expect_bytes(cx, "bytes after the synchronize", &cx.read(dev, LEN)?, 0xa5)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-STM-005](vmmkit_sys::acl::rules::STM_005): aclrtDestroyStream right after an async copy: the copy completes first.
pub fn destroy_waits(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 8 << 20;
    let s = stream(cx)?;
    let dev = device_buffer(cx, LEN)?;
    let acl = cx.acl();
    let src = write_async(cx, s, dev, LEN, 0x5c)?;
    cx.expect_ok("aclrtDestroyStream with a copy pending", acl.aclrtDestroyStream(s))?;
    drop(src);
    expect_bytes(cx, "bytes after the destroy", &cx.read(dev, LEN)?, 0x5c)?;
    setup("aclrtFree", acl.aclrtFree(dev))
}

/// [ACL-STM-006](vmmkit_sys::acl::rules::STM_006): a stream with nothing pending is COMPLETE (0).
pub fn query_idle(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    let mut status: aclrtStreamStatus = -1;
    cx.expect_ok("aclrtStreamQuery of an idle stream", acl.aclrtStreamQuery(s, &mut status)?)?;
    cx.ensure("status", status == ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_COMPLETE, status)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-STM-007](vmmkit_sys::acl::rules::STM_007): aclrtResetDevice with a copy pending returns 0, and device 0
/// works again after aclrtSetDevice (a new stream copies).
pub fn reset_with_pending_work(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 4 << 20;
    let s = stream(cx)?;
    let dev = device_buffer(cx, LEN)?;
    let acl = cx.acl();
    let src = write_async(cx, s, dev, LEN, 0x42)?;
    cx.expect_ok("aclrtResetDevice(0) with a copy pending", acl.aclrtResetDevice(0))?;
    drop(src);
    let s2 = stream(cx)?;
    let dev2 = device_buffer(cx, LEN)?;
    let src2 = write_async(cx, s2, dev2, LEN, 0x24)?;
    cx.expect_ok("aclrtSynchronizeStream of a stream made after the reset", acl.aclrtSynchronizeStream(s2))?;
    drop(src2);
    expect_bytes(cx, "bytes copied after the reset", &cx.read(dev2, LEN)?, 0x24)?;
    setup("aclrtFree", acl.aclrtFree(dev2))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s2))
}

/// [ACL-STM-008](vmmkit_sys::acl::rules::STM_008): a record held behind a wait that never ends (a device word
/// nobody writes), then the stream aborted or force-destroyed: the event
/// completes and a stream waiting on it runs (each wait bounded, so a record
/// left pending reads 507047 / 507046 instead of hanging); the aborted
/// stream then runs new work.
pub fn dropped_record_completes(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let word = device_buffer(cx, 8)?;
    let acl = cx.acl();
    for force in [false, true] {
        let how = if force { "aclrtDestroyStreamForce" } else { "aclrtStreamAbort" };
        let (stuck, waiter) = (stream(cx)?, stream(cx)?);
        setup("aclrtMemset", acl.aclrtMemset(word, 8, 0, 8))?;
        let mut e: aclrtEvent = ptr::null_mut();
        setup("aclrtCreateEvent", acl.aclrtCreateEvent(&mut e)?)?;
        setup("aclrtValueWait", acl.aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, stuck)?)?;
        setup("aclrtRecordEvent", acl.aclrtRecordEvent(e, stuck)?)?;
        setup("aclrtStreamWaitEvent", acl.aclrtStreamWaitEvent(waiter, e)?)?;
        if force {
            cx.expect_ok(how, acl.aclrtDestroyStreamForce(stuck))?;
        } else {
            cx.expect_ok(how, acl.aclrtStreamAbort(stuck)?)?;
        }
        cx.expect_ok(
            &format!("aclrtSynchronizeEventWithTimeout after {how}"),
            acl.aclrtSynchronizeEventWithTimeout(e, 5000)?,
        )?;
        cx.expect_ok(
            &format!("aclrtSynchronizeStreamWithTimeout of the stream waiting on it, after {how}"),
            acl.aclrtSynchronizeStreamWithTimeout(waiter, 5000)?,
        )?;
        if !force {
            setup("aclrtMemset", acl.aclrtMemset(word, 8, 0, 8))?;
            let mut e2: aclrtEvent = ptr::null_mut();
            setup("aclrtCreateEvent", acl.aclrtCreateEvent(&mut e2)?)?;
            setup("aclrtRecordEvent", acl.aclrtRecordEvent(e2, stuck)?)?;
            cx.expect_ok("the aborted stream runs new work", acl.aclrtSynchronizeStreamWithTimeout(stuck, 5000)?)?;
            setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e2)?)?;
            setup("aclrtDestroyStream", acl.aclrtDestroyStream(stuck))?;
        }
        setup("aclrtDestroyStream", acl.aclrtDestroyStream(waiter))?;
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    setup("aclrtFree", acl.aclrtFree(word))
}
