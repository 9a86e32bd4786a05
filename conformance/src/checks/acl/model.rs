//! ACL-MRI: model capture (aclmdlRICapture*, aclmdlRIExecute*, aclmdlRIDestroy).

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use vmmkit_sys::acl::*;

use super::stream::{device_buffer, stream};
use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// The tags the host functions of the checks ran with, in the order they ran.
static RAN: Mutex<Vec<usize>> = Mutex::new(Vec::new());
/// The next tag a check takes (each its own, so checks may run side by side).
static NEXT_TAG: AtomicUsize = AtomicUsize::new(1);

/// A host function that notes its argument (a tag, never dereferenced).
extern "C" fn note(args: *mut c_void) {
    RAN.lock().unwrap_or_else(|p| p.into_inner()).push(args as usize);
}

/// How many times the host function ran with `tag`.
fn runs(tag: usize) -> usize {
    RAN.lock().unwrap_or_else(|p| p.into_inner()).iter().filter(|&&t| t == tag).count()
}

/// `aclmdlRICaptureGetInfo` of `s`: its status and model.
fn info(cx: &Ctx, s: aclrtStream) -> Result<(aclmdlRICaptureStatus, aclmdlRI), Failure> {
    let (mut st, mut m): (aclmdlRICaptureStatus, aclmdlRI) = (-1, ptr::null_mut());
    setup("aclmdlRICaptureGetInfo", cx.acl().aclmdlRICaptureGetInfo(s, &mut st, &mut m)?)?;
    Ok((st, m))
}

/// Begins a GLOBAL capture of `s`.
fn begin(cx: &Ctx, s: aclrtStream) -> Result<(), Failure> {
    setup("aclmdlRICaptureBegin(GLOBAL)", cx.acl().aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)?)
}

/// Ends the capture of `s`: its model.
fn end(cx: &Ctx, s: aclrtStream) -> Result<aclmdlRI, Failure> {
    let mut m: aclmdlRI = ptr::null_mut();
    setup("aclmdlRICaptureEnd", cx.acl().aclmdlRICaptureEnd(s, &mut m)?)?;
    Ok(m)
}

/// A model of one captured fill of `dev` (8 bytes) on `s`.
fn captured_model(cx: &Ctx, s: aclrtStream, dev: *mut c_void) -> Result<aclmdlRI, Failure> {
    begin(cx, s)?;
    setup("aclrtMemsetAsync (captured)", cx.acl().aclrtMemsetAsync(dev, 8, 0x5a, 8, s)?)?;
    end(cx, s)
}

/// A new event.
fn event(cx: &Ctx) -> Result<aclrtEvent, Failure> {
    let mut e: aclrtEvent = ptr::null_mut();
    setup("aclrtCreateEvent", cx.acl().aclrtCreateEvent(&mut e)?)?;
    Ok(e)
}

/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001): the front end's NULL checks.
pub fn null_arguments(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    let (mut st, mut m): (aclmdlRICaptureStatus, aclmdlRI) = (0, ptr::null_mut());
    let null = ptr::null_mut();
    cx.expect_code(
        "aclmdlRICaptureBegin(NULL stream)",
        acl.aclmdlRICaptureBegin(null, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)?,
    )?;
    cx.expect_code("aclmdlRICaptureGetInfo(NULL stream)", acl.aclmdlRICaptureGetInfo(null, &mut st, &mut m)?)?;
    let r = acl.aclmdlRICaptureGetInfo(s, ptr::null_mut(), ptr::null_mut())?;
    cx.expect_code("aclmdlRICaptureGetInfo(status and modelRI NULL)", r)?;
    cx.expect_code("aclmdlRICaptureEnd(NULL stream)", acl.aclmdlRICaptureEnd(null, &mut m)?)?;
    cx.expect_code("aclmdlRIExecuteAsync(NULL modelRI)", acl.aclmdlRIExecuteAsync(null, s)?)?;
    cx.expect_code("aclmdlRIExecute(NULL modelRI)", acl.aclmdlRIExecute(null, -1)?)?;
    cx.expect_code("aclmdlRIDestroy(NULL modelRI)", acl.aclmdlRIDestroy(null)?)?;
    cx.expect_code("aclmdlRICaptureThreadExchangeMode(NULL)", acl.aclmdlRICaptureThreadExchangeMode(ptr::null_mut())?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-002](vmmkit_sys::acl::rules::MRI_002): modes 3 and -1, to begin and to exchange; the stream does not capture.
pub fn bad_mode(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    for mode in [3, -1] {
        cx.expect_code(&format!("aclmdlRICaptureBegin(mode {mode})"), acl.aclmdlRICaptureBegin(s, mode)?)?;
        let mut m = mode;
        cx.expect_code(
            &format!("aclmdlRICaptureThreadExchangeMode({mode})"),
            acl.aclmdlRICaptureThreadExchangeMode(&mut m)?,
        )?;
    }
    let (st, _) = info(cx, s)?;
    cx.ensure("status after the refused begins", st == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "NONE (0)", st)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-003](vmmkit_sys::acl::rules::MRI_003): a second begin on a capturing stream; the first capture still ends well.
pub fn begin_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    begin(cx, s)?;
    cx.expect_code("aclmdlRICaptureBegin (second)", acl.aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED)?)?;
    let m = end(cx, s)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-004](vmmkit_sys::acl::rules::MRI_004): an end without a begin; modelRI is left as it was.
pub fn end_without_begin(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    let sentinel = 0x5151 as aclmdlRI;
    let mut m = sentinel;
    cx.expect_code("aclmdlRICaptureEnd of a stream not capturing", acl.aclmdlRICaptureEnd(s, &mut m)?)?;
    cx.ensure("modelRI after the refused end", m == sentinel, format!("{sentinel:p}"), format!("{m:p}"))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-005](vmmkit_sys::acl::rules::MRI_005): a NULL modelRI to end a capture; the capture goes on.
pub fn end_null_model(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    begin(cx, s)?;
    cx.expect_code("aclmdlRICaptureEnd(modelRI NULL)", acl.aclmdlRICaptureEnd(s, ptr::null_mut())?)?;
    let (st, _) = info(cx, s)?;
    cx.ensure("status after it", st == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "ACTIVE (1)", st)?;
    let m = end(cx, s)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-006](vmmkit_sys::acl::rules::MRI_006): a stream that joined the capture cannot end it; joined
/// back, the origin stream ends it.
pub fn end_on_joined_stream(cx: &mut Ctx) -> Result<(), Failure> {
    let (s1, s2) = (stream(cx)?, stream(cx)?);
    let (fork, join) = (event(cx)?, event(cx)?);
    let acl = cx.acl();
    begin(cx, s1)?;
    setup("aclrtRecordEvent(fork, origin)", acl.aclrtRecordEvent(fork, s1)?)?;
    setup("aclrtStreamWaitEvent(joined, fork)", acl.aclrtStreamWaitEvent(s2, fork)?)?;
    let mut m: aclmdlRI = ptr::null_mut();
    cx.expect_code("aclmdlRICaptureEnd on the joined stream", acl.aclmdlRICaptureEnd(s2, &mut m)?)?;
    setup("aclrtRecordEvent(join, joined)", acl.aclrtRecordEvent(join, s2)?)?;
    setup("aclrtStreamWaitEvent(origin, join)", acl.aclrtStreamWaitEvent(s1, join)?)?;
    let m = end(cx, s1)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    for e in [fork, join] {
        setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    }
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s2))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s1))
}

/// [ACL-MRI-007](vmmkit_sys::acl::rules::MRI_007): another thread ends a GLOBAL capture: 107038, and the
/// stream no longer captures (the begin thread's end is 107029).
pub fn end_on_other_thread(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    begin(cx, s)?;
    let handle = s as usize;
    let got = std::thread::scope(|t| {
        t.spawn(move || {
            let set = acl.aclrtSetDevice(0);
            if !set.is_success() {
                return Err(Failure::setup("aclrtSetDevice(0) on the other thread", set));
            }
            let mut m: aclmdlRI = ptr::null_mut();
            let got = acl.aclmdlRICaptureEnd(handle as aclrtStream, &mut m);
            let _ = acl.aclrtResetDevice(0);
            got
        })
        .join()
        .unwrap_or_else(|_| Err(Failure::NotSupported("the other thread panicked".into())))
    })?;
    cx.expect_code("aclmdlRICaptureEnd on another thread", got)?;
    let mut m: aclmdlRI = ptr::null_mut();
    let again = acl.aclmdlRICaptureEnd(s, &mut m)?;
    cx.ensure_code("aclmdlRICaptureEnd on the begin thread after it", AclError::RT_STREAM_NOT_CAPTURED, again)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-008](vmmkit_sys::acl::rules::MRI_008): work on a joined stream that the origin never waits for.
pub fn unjoined_work(cx: &mut Ctx) -> Result<(), Failure> {
    let (s1, s2) = (stream(cx)?, stream(cx)?);
    let fork = event(cx)?;
    let dev = device_buffer(cx, 8)?;
    let acl = cx.acl();
    begin(cx, s1)?;
    setup("aclrtRecordEvent(fork, origin)", acl.aclrtRecordEvent(fork, s1)?)?;
    setup("aclrtStreamWaitEvent(joined, fork)", acl.aclrtStreamWaitEvent(s2, fork)?)?;
    setup("aclrtMemsetAsync on the joined stream", acl.aclrtMemsetAsync(dev, 8, 1, 8, s2)?)?;
    let mut m = 0x5151 as aclmdlRI;
    cx.expect_code("aclmdlRICaptureEnd with unjoined work", acl.aclmdlRICaptureEnd(s1, &mut m)?)?;
    cx.ensure("modelRI after it", m.is_null(), "NULL", format!("{m:p}"))?;
    for s in [s1, s2] {
        let (st, _) = info(cx, s)?;
        cx.ensure("status after the end", st == ACL_MODEL_RI_CAPTURE_STATUS_NONE, "NONE (0)", st)?;
    }
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(fork)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s2))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s1))
}

/// [ACL-MRI-009](vmmkit_sys::acl::rules::MRI_009): the status and model before, during and after a capture.
pub fn capture_info(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    let (st, m) = info(cx, s)?;
    cx.ensure("before: status, model", st == 0 && m.is_null(), "NONE (0), NULL", format!("{st}, {m:p}"))?;
    begin(cx, s)?;
    let (st, during) = info(cx, s)?;
    cx.ensure(
        "during: status, model",
        st == 1 && !during.is_null(),
        "ACTIVE (1), a model",
        format!("{st}, {during:p}"),
    )?;
    let m = end(cx, s)?;
    cx.ensure("the model of the end", m == during, format!("{during:p}"), format!("{m:p}"))?;
    let (st, after) = info(cx, s)?;
    cx.ensure("after: status, model", st == 0 && after.is_null(), "NONE (0), NULL", format!("{st}, {after:p}"))?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-010](vmmkit_sys::acl::rules::MRI_010): synchronize, query and destroy of a capturing stream; it still captures.
pub fn capturing_stream_calls(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    begin(cx, s)?;
    cx.expect_code("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    cx.expect_code("aclrtSynchronizeStreamWithTimeout(-1)", acl.aclrtSynchronizeStreamWithTimeout(s, -1)?)?;
    let mut status: aclrtStreamStatus = -1;
    cx.expect_code("aclrtStreamQuery", acl.aclrtStreamQuery(s, &mut status)?)?;
    cx.expect_code("aclrtDestroyStream", acl.aclrtDestroyStream(s))?;
    let (st, _) = info(cx, s)?;
    cx.ensure("status after them", st == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "ACTIVE (1)", st)?;
    let m = end(cx, s)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    cx.expect_ok("aclrtDestroyStream after the end", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-011](vmmkit_sys::acl::rules::MRI_011): host waits and queries of an event recorded in the capture.
pub fn captured_event_calls(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let e = event(cx)?;
    let acl = cx.acl();
    begin(cx, s)?;
    setup("aclrtRecordEvent (captured)", acl.aclrtRecordEvent(e, s)?)?;
    cx.expect_code("aclrtSynchronizeEvent", acl.aclrtSynchronizeEvent(e)?)?;
    cx.expect_code("aclrtSynchronizeEventWithTimeout(-1)", acl.aclrtSynchronizeEventWithTimeout(e, -1)?)?;
    let mut status: aclrtEventRecordedStatus = -1;
    cx.expect_code("aclrtQueryEventStatus", acl.aclrtQueryEventStatus(e, &mut status)?)?;
    let m = end(cx, s)?;
    cx.expect_ok("aclrtSynchronizeEvent after the end", acl.aclrtSynchronizeEvent(e)?)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    setup("aclrtDestroyEvent", acl.aclrtDestroyEvent(e)?)?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-012](vmmkit_sys::acl::rules::MRI_012): synchronous copies (1-D and 2-D) and fills during a GLOBAL capture; the
/// thread's RELAXED mode lets them run; a RELAXED capture refuses none.
pub fn unsafe_calls_by_mode(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let dev = device_buffer(cx, 64)?;
    let acl = cx.acl();
    let host = [7u8; 64];
    let copy = || acl.aclrtMemcpy(dev, 64, host.as_ptr().cast(), 64, ACL_MEMCPY_HOST_TO_DEVICE);
    begin(cx, s)?;
    cx.expect_code("aclrtMemcpy during a GLOBAL capture", copy())?;
    cx.expect_code("aclrtMemset during a GLOBAL capture", acl.aclrtMemset(dev, 64, 0, 64))?;
    let copy_2d = acl.aclrtMemcpy2d(dev, 64, host.as_ptr().cast(), 64, 64, 1, ACL_MEMCPY_HOST_TO_DEVICE);
    cx.expect_code("aclrtMemcpy2d during a GLOBAL capture", copy_2d?)?;
    let mut mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    cx.expect_ok("aclmdlRICaptureThreadExchangeMode(RELAXED)", acl.aclmdlRICaptureThreadExchangeMode(&mut mode)?)?;
    cx.ensure("the old mode", mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, "GLOBAL (0)", mode)?;
    cx.expect_ok("aclrtMemcpy in RELAXED mode", copy())?;
    cx.expect_ok("aclmdlRICaptureThreadExchangeMode(GLOBAL)", acl.aclmdlRICaptureThreadExchangeMode(&mut mode)?)?;
    let (st, _) = info(cx, s)?;
    cx.ensure("status after the refused calls", st == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "ACTIVE (1)", st)?;
    let m = end(cx, s)?;
    setup("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    setup("aclmdlRICaptureBegin(RELAXED)", acl.aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED)?)?;
    cx.expect_ok("aclrtMemcpy during a RELAXED capture", copy())?;
    let m = end(cx, s)?;
    setup("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-013](vmmkit_sys::acl::rules::MRI_013): a captured copy, fill (of the first half, after the copy)
/// and host function run at neither capture nor end, and at each execution
/// in that order.
pub fn replay_in_order(cx: &mut Ctx) -> Result<(), Failure> {
    const LEN: usize = 4096;
    let s = stream(cx)?;
    let dev = device_buffer(cx, LEN)?;
    let acl = cx.acl();
    let tag = NEXT_TAG.fetch_add(1, Ordering::Relaxed);
    let src = vec![0x11u8; LEN];
    setup("aclrtMemset(0)", acl.aclrtMemset(dev, LEN, 0, LEN))?;
    begin(cx, s)?;
    let r = acl.aclrtMemcpyAsync(dev, LEN, src.as_ptr().cast(), LEN, ACL_MEMCPY_HOST_TO_DEVICE, s);
    setup("aclrtMemcpyAsync (captured)", r)?;
    setup("aclrtMemsetAsync (captured)", acl.aclrtMemsetAsync(dev, LEN, 0x22, LEN / 2, s)?)?;
    setup("aclrtLaunchHostFunc (captured)", acl.aclrtLaunchHostFunc(s, Some(note), tag as *mut c_void)?)?;
    let m = end(cx, s)?;
    super::stream::expect_bytes(cx, "bytes before any execution", &cx.read(dev, LEN)?, 0)?;
    cx.ensure("host function runs before any execution", runs(tag) == 0, 0, runs(tag))?;
    let expect = |step: &str, n: usize| -> Result<(), Failure> {
        let data = cx.read(dev, LEN)?;
        super::stream::expect_bytes(cx, &format!("{step}: the filled half"), &data[..LEN / 2], 0x22)?;
        super::stream::expect_bytes(cx, &format!("{step}: the copied half"), &data[LEN / 2..], 0x11)?;
        cx.ensure(&format!("{step}: host function runs"), runs(tag) == n, n, runs(tag))
    };
    cx.expect_ok("aclmdlRIExecuteAsync", acl.aclmdlRIExecuteAsync(m, s)?)?;
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    expect("after one execution", 1)?;
    setup("aclrtMemset(0)", acl.aclrtMemset(dev, LEN, 0, LEN))?;
    for i in 0..2 {
        cx.expect_ok(&format!("aclmdlRIExecuteAsync ({})", i + 2), acl.aclmdlRIExecuteAsync(m, s)?)?;
    }
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    expect("after three executions", 3)?;
    drop(src);
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-014](vmmkit_sys::acl::rules::MRI_014): a model executed on a stream that captures.
pub fn execute_on_capturing_stream(cx: &mut Ctx) -> Result<(), Failure> {
    let (s1, s2) = (stream(cx)?, stream(cx)?);
    let dev = device_buffer(cx, 8)?;
    let acl = cx.acl();
    let m = captured_model(cx, s2, dev)?;
    begin(cx, s1)?;
    cx.expect_code("aclmdlRIExecuteAsync on a capturing stream", acl.aclmdlRIExecuteAsync(m, s1)?)?;
    let inner = end(cx, s1)?;
    for model in [inner, m] {
        cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(model)?)?;
    }
    setup("aclrtFree", acl.aclrtFree(dev))?;
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s2))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s1))
}

/// [ACL-MRI-015](vmmkit_sys::acl::rules::MRI_015): aclmdlRIExecute of a captured model, with a bad and a good timeout.
pub fn execute_synchronously(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let dev = device_buffer(cx, 8)?;
    let acl = cx.acl();
    let m = captured_model(cx, s, dev)?;
    cx.expect_code("aclmdlRIExecute(timeout 0)", acl.aclmdlRIExecute(m, 0)?)?;
    cx.expect_code("aclmdlRIExecute(timeout -1)", acl.aclmdlRIExecute(m, -1)?)?;
    cx.expect_ok("aclmdlRIExecuteAsync still works", acl.aclmdlRIExecuteAsync(m, s)?)?;
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-016](vmmkit_sys::acl::rules::MRI_016): a destroyed model executed and destroyed again.
pub fn destroyed_model(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let dev = device_buffer(cx, 8)?;
    let acl = cx.acl();
    let m = captured_model(cx, s, dev)?;
    cx.expect_ok("aclmdlRIDestroy", acl.aclmdlRIDestroy(m)?)?;
    cx.expect_code("aclmdlRIExecuteAsync of it", acl.aclmdlRIExecuteAsync(m, s)?)?;
    cx.expect_code("aclmdlRIExecute of it", acl.aclmdlRIExecute(m, -1)?)?;
    cx.expect_code("aclmdlRIDestroy of it", acl.aclmdlRIDestroy(m)?)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-MRI-017](vmmkit_sys::acl::rules::MRI_017): the model of a capture that goes on, executed and destroyed.
pub fn model_still_capturing(cx: &mut Ctx) -> Result<(), Failure> {
    let (s1, s2) = (stream(cx)?, stream(cx)?);
    let acl = cx.acl();
    begin(cx, s1)?;
    let (_, m) = info(cx, s1)?;
    cx.expect_code("aclmdlRIExecuteAsync of it", acl.aclmdlRIExecuteAsync(m, s2)?)?;
    cx.expect_code("aclmdlRIDestroy of it", acl.aclmdlRIDestroy(m)?)?;
    let ended = end(cx, s1)?;
    cx.expect_ok("aclmdlRIDestroy after the end", acl.aclmdlRIDestroy(ended)?)?;
    setup("aclrtDestroyStream", acl.aclrtDestroyStream(s2))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s1))
}

/// [ACL-MRI-018](vmmkit_sys::acl::rules::MRI_018): the default stream's own handle neither begins nor ends a capture.
pub fn default_stream(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut d: aclrtStream = ptr::null_mut();
    setup("aclrtCtxGetCurrentDefaultStream", acl.aclrtCtxGetCurrentDefaultStream(&mut d)?)?;
    cx.expect_code(
        "aclmdlRICaptureBegin(default stream)",
        acl.aclmdlRICaptureBegin(d, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)?,
    )?;
    let mut m: aclmdlRI = ptr::null_mut();
    cx.expect_code("aclmdlRICaptureEnd(default stream)", acl.aclmdlRICaptureEnd(d, &mut m)?)
}
