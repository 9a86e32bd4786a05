//! CUDA-EVT and CUDA-IEV: events within one process, and interprocess
//! events with a CUDA peer that opens the handle and waits on it.

use std::ptr;

use vmmkit_sys::cuda::*;

use super::stream::{destroy, held, pending, stream};
use crate::cuda::peer::Request;
use crate::cuda::{Ctx, setup};
use crate::outcome::Failure;

const LEN: usize = 64 << 10;

/// `cuEventCreate(flags)`.
pub(super) fn event(cx: &Ctx, flags: u32) -> Result<CUevent, Failure> {
    let mut e = ptr::null_mut();
    setup(&format!("cuEventCreate({flags})"), cx.cuda().cuEventCreate(&mut e, flags))?;
    Ok(e)
}

fn drop_event(cx: &Ctx, e: CUevent) -> Result<(), Failure> {
    setup("cuEventDestroy", cx.cuda().cuEventDestroy(e))
}

/// [CUDA-EVT-001](vmmkit_sys::cuda::rules::EVT_001).
pub fn create_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut e = ptr::null_mut();
    cx.expect_code("cuEventCreate(NULL)", cuda.cuEventCreate(ptr::null_mut(), 0))?;
    cx.expect_code("cuEventCreate(flags 8)", cuda.cuEventCreate(&mut e, 8))?;
    cx.expect_code("cuEventCreate(INTERPROCESS alone)", cuda.cuEventCreate(&mut e, CU_EVENT_INTERPROCESS))?;
    let ipc = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    cx.expect_ok("cuEventCreate(INTERPROCESS | DISABLE_TIMING)", cuda.cuEventCreate(&mut e, ipc))?;
    drop_event(cx, e)?;
    cx.expect_ok("cuEventCreate(BLOCKING_SYNC)", cuda.cuEventCreate(&mut e, CU_EVENT_BLOCKING_SYNC))?;
    drop_event(cx, e)
}

/// [CUDA-EVT-002](vmmkit_sys::cuda::rules::EVT_002).
pub fn query_pending(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let e = event(cx, CU_EVENT_DISABLE_TIMING)?;
    cx.expect_ok("cuEventQuery(never recorded)", cuda.cuEventQuery(e))?;
    setup("cuEventRecord(held stream)", cuda.cuEventRecord(e, h.stream))?;
    cx.expect_code("cuEventQuery(record pending)", cuda.cuEventQuery(e))?;
    h.release(cx)?;
    setup("cuEventSynchronize", cuda.cuEventSynchronize(e))?;
    cx.expect_ok("cuEventQuery(record complete)", cuda.cuEventQuery(e))?;
    drop_event(cx, e)?;
    h.finish(cx)
}

/// [CUDA-EVT-003](vmmkit_sys::cuda::rules::EVT_003).
pub fn synchronize_waits(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    cx.write(p, LEN, 23)?;
    let e = event(cx, CU_EVENT_BLOCKING_SYNC)?;
    let go = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let mut back = vec![0u8; LEN];
    setup("cuMemcpyDtoHAsync(held stream)", cuda.cuMemcpyDtoHAsync(back.as_mut_ptr().cast(), p, LEN, h.stream))?;
    setup("cuEventRecord", cuda.cuEventRecord(e, h.stream))?;
    setup("cuStreamWriteValue32(releases the held stream)", cuda.cuStreamWriteValue32(go, h.word, 1, 0))?;
    cx.expect_ok("cuEventSynchronize", cuda.cuEventSynchronize(e))?;
    let bad = crate::pattern::first_mismatch(23, &back);
    cx.ensure("the copy before the record", bad.is_none(), "pattern 23", format!("{bad:?}"))?;
    drop_event(cx, e)?;
    destroy(cx, go)?;
    cx.free(p)?;
    h.finish(cx)
}

/// [CUDA-EVT-004](vmmkit_sys::cuda::rules::EVT_004).
pub fn elapsed_codes(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let (t0, t1, off) = (event(cx, 0)?, event(cx, 0)?, event(cx, CU_EVENT_DISABLE_TIMING)?);
    let mut ms = 0f32;
    cx.expect("cuEventElapsedTime(NULL)", CuResult::INVALID_VALUE, cuda.cuEventElapsedTime(ptr::null_mut(), t0, t1))?;
    cx.expect_code("cuEventElapsedTime(never recorded)", cuda.cuEventElapsedTime(&mut ms, t0, t1))?;
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    for e in [t0, off, t1] {
        setup("cuEventRecord", cuda.cuEventRecord(e, s))?;
    }
    setup("cuStreamSynchronize", cuda.cuStreamSynchronize(s))?;
    cx.expect_code("cuEventElapsedTime(timing disabled)", cuda.cuEventElapsedTime(&mut ms, off, t1))?;
    cx.expect_ok("cuEventElapsedTime(both timed, complete)", cuda.cuEventElapsedTime(&mut ms, t0, t1))?;
    cx.ensure("elapsed time", ms >= 0.0, ">= 0 ms", ms)?;
    for e in [t0, t1, off] {
        drop_event(cx, e)?;
    }
    destroy(cx, s)
}

/// [CUDA-EVT-005](vmmkit_sys::cuda::rules::EVT_005).
pub fn elapsed_pending(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let (t0, t1) = (event(cx, 0)?, event(cx, 0)?);
    setup("cuEventRecord(held stream)", cuda.cuEventRecord(t0, h.stream))?;
    setup("cuEventRecord(held stream)", cuda.cuEventRecord(t1, h.stream))?;
    let mut ms = 0f32;
    cx.expect_code("cuEventElapsedTime(records pending)", cuda.cuEventElapsedTime(&mut ms, t0, t1))?;
    h.release(cx)?;
    setup("cuEventSynchronize", cuda.cuEventSynchronize(t1))?;
    cx.expect_ok("cuEventElapsedTime(complete)", cuda.cuEventElapsedTime(&mut ms, t0, t1))?;
    drop_event(cx, t0)?;
    drop_event(cx, t1)?;
    h.finish(cx)
}

/// [CUDA-EVT-006](vmmkit_sys::cuda::rules::EVT_006).
pub fn null_event(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let null = ptr::null_mut();
    cx.expect_code("cuEventRecord(NULL)", cuda.cuEventRecord(null, s))?;
    cx.expect_code("cuEventQuery(NULL)", cuda.cuEventQuery(null))?;
    cx.expect_code("cuEventSynchronize(NULL)", cuda.cuEventSynchronize(null))?;
    cx.expect_code("cuStreamWaitEvent(NULL)", cuda.cuStreamWaitEvent(s, null, 0))?;
    cx.expect_code("cuEventDestroy(NULL)", cuda.cuEventDestroy(null))?;
    destroy(cx, s)
}

/// [CUDA-IEV-001](vmmkit_sys::cuda::rules::IEV_001).
pub fn get_handle_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let plain = event(cx, CU_EVENT_DISABLE_TIMING)?;
    let ipc = event(cx, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING)?;
    let mut h = CUipcEventHandle::default();
    cx.expect_code("cuIpcGetEventHandle(event without INTERPROCESS)", cuda.cuIpcGetEventHandle(&mut h, plain))?;
    cx.expect("cuIpcGetEventHandle(NULL)", CuResult::INVALID_VALUE, cuda.cuIpcGetEventHandle(ptr::null_mut(), ipc))?;
    drop_event(cx, plain)?;
    drop_event(cx, ipc)
}

/// An interprocess event and its handle's 64 bytes.
fn exported(cx: &Ctx) -> Result<(CUevent, Vec<u8>), Failure> {
    let e = event(cx, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING)?;
    let mut h = CUipcEventHandle::default();
    setup("cuIpcGetEventHandle", cx.cuda().cuIpcGetEventHandle(&mut h, e))?;
    Ok((e, h.reserved.iter().map(|&c| c as u8).collect()))
}

/// [CUDA-IEV-002](vmmkit_sys::cuda::rules::IEV_002).
pub fn open_own(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let (e, bytes) = exported(cx)?;
    let mut h = CUipcEventHandle::default();
    for (d, s) in h.reserved.iter_mut().zip(&bytes) {
        *d = *s as std::ffi::c_char;
    }
    let mut own = ptr::null_mut();
    cx.expect_code("cuIpcOpenEventHandle(own handle)", cx.cuda().cuIpcOpenEventHandle(&mut own, h))?;
    drop_event(cx, e)
}

/// The 64 bytes of `p`'s IPC memory handle.
fn mem_handle(cx: &Ctx, p: CUdeviceptr) -> Result<Vec<u8>, Failure> {
    let mut h = CUipcMemHandle::default();
    setup("cuIpcGetMemHandle", cx.cuda().cuIpcGetMemHandle(&mut h, p))?;
    Ok(h.reserved.iter().map(|&c| c as u8).collect())
}

/// [CUDA-IEV-003](vmmkit_sys::cuda::rules::IEV_003): this process copies behind a held wait on a stream and
/// records an interprocess event after the copy; the peer opens the event
/// and finds its record pending, releases the wait by writing the word
/// through IPC memory, then waits on the event on a stream of its own,
/// synchronises and reads the copy's data.
pub fn across_processes(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    setup("cuMemsetD8", cuda.cuMemsetD8(p, 0, LEN))?;
    let data = crate::pattern::fill(47, LEN);
    setup("cuMemcpyHtoDAsync(held stream)", cuda.cuMemcpyHtoDAsync(p, data.as_ptr().cast(), LEN, h.stream))?;
    let (e, handle) = exported(cx)?;
    setup("cuEventRecord(held stream)", cuda.cuEventRecord(e, h.stream))?;
    let (mem, word) = (mem_handle(cx, p)?, mem_handle(cx, h.word)?);

    let mut peer = cx.peer("event importer", 0)?;
    let flags = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;
    let pp = peer.setup(&Request::IpcOpen { handle: mem, flags })?.value;
    let pw = peer.setup(&Request::IpcOpen { handle: word, flags })?.value;
    let r = peer.call(&Request::EventOpen { handle: handle.clone() })?;
    cx.expect_ok("peer: cuIpcOpenEventHandle", r.code)?;
    let ev = r.value;
    let r = peer.call(&Request::EventQuery { event: ev })?;
    pending(cx, "peer: cuEventQuery(record pending in the exporter)", r.code)?;
    peer.setup(&Request::Fill { ptr: pw, len: 4, seed: 1 })?;
    let r = peer.call(&Request::EventWait { event: ev, stream_wait: true })?;
    cx.expect_ok(&format!("peer: cuStreamWaitEvent + cuStreamSynchronize ({})", r.text), r.code)?;
    let r = peer.call(&Request::EventElapsed { event: ev })?;
    let (step, got) = ("peer: cuEventElapsedTime of the opened event (it keeps no time)", r.vendor_code());
    cx.ensure(step, got == CuResult::INVALID_HANDLE, CuResult::INVALID_HANDLE.to_string(), got.to_string())?;
    let r = peer.setup(&Request::Verify { ptr: pp, len: LEN as u64, seed: 47 })?;
    cx.ensure("peer reads after waiting on the event", r.value == 1, "pattern 47", r.text)?;
    peer.setup(&Request::EventClose { event: ev })?;
    peer.exit()?;

    setup("cuStreamSynchronize", cuda.cuStreamSynchronize(h.stream))?;
    drop_event(cx, e)?;
    cx.free(p)?;
    h.finish(cx)
}
