//! CUDA-STM: streams, stream-ordered copies and memsets, value writes and
//! waits, host functions (one process).
//!
//! A stream is "held" by a value wait on a zeroed device word
//! (cuStreamWaitValue32 with AND 0xffffffff): its later work cannot run
//! until the word is written, so "pending" is a state the check makes, not
//! a race it hopes to win. The word is written by a synchronous memset
//! (the legacy stream, not ordered with a non-blocking stream) or by
//! cuStreamWriteValue32 on another stream.

use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use vmmkit_sys::cuda::*;

use crate::cuda::{Ctx, setup};
use crate::outcome::Failure;

const BAD_STREAM: CUstream = 0x7777 as CUstream;
const LEN: usize = 64 << 10;

/// `cuStreamCreate(flags)`.
pub(super) fn stream(cx: &Ctx, flags: u32) -> Result<CUstream, Failure> {
    let mut s = ptr::null_mut();
    setup(&format!("cuStreamCreate({flags})"), cx.cuda().cuStreamCreate(&mut s, flags))?;
    Ok(s)
}

/// `cuStreamDestroy`.
pub(super) fn destroy(cx: &Ctx, s: CUstream) -> Result<(), Failure> {
    setup("cuStreamDestroy", cx.cuda().cuStreamDestroy(s))
}

/// A zeroed device word of 8 bytes.
fn word(cx: &Ctx) -> Result<CUdeviceptr, Failure> {
    let w = cx.alloc(8)?;
    setup("cuMemsetD8", cx.cuda().cuMemsetD8(w, 0, 8))?;
    Ok(w)
}

/// A stream whose later work waits until a device word becomes non-zero.
pub(super) struct Held {
    /// The word.
    pub word: CUdeviceptr,
    /// The stream.
    pub stream: CUstream,
}

/// A stream made with `flags`, held (see the module's text).
pub(super) fn held(cx: &Ctx, flags: u32) -> Result<Held, Failure> {
    cx.context(0)?;
    let word = word(cx)?;
    let stream = stream(cx, flags)?;
    let r = cx.cuda().cuStreamWaitValue32(stream, word, u32::MAX, CU_STREAM_WAIT_VALUE_AND);
    setup("cuStreamWaitValue32(AND 0xffffffff)", r)?;
    Ok(Held { word, stream })
}

impl Held {
    /// Writes the word from the host (a synchronous memset): lets the stream go.
    pub fn release(&self, cx: &Ctx) -> Result<(), Failure> {
        setup("cuMemsetD8(word, 1)", cx.cuda().cuMemsetD8(self.word, 1, 4))
    }

    /// Lets the stream go, waits for it, destroys it and frees the word.
    pub fn finish(self, cx: &Ctx) -> Result<(), Failure> {
        self.release(cx)?;
        setup("cuStreamSynchronize", cx.cuda().cuStreamSynchronize(self.stream))?;
        destroy(cx, self.stream)?;
        cx.free(self.word)
    }
}

/// Reads `len` bytes at `p` (synchronously).
fn read(cx: &Ctx, p: CUdeviceptr, len: usize) -> Result<Vec<u8>, Failure> {
    let mut out = vec![0u8; len];
    setup("cuMemcpyDtoH", cx.cuda().cuMemcpyDtoH(out.as_mut_ptr().cast(), p, len))?;
    Ok(out)
}

/// Checks that `len` bytes at `p` are all `byte`.
pub(super) fn all(cx: &Ctx, step: &str, p: CUdeviceptr, len: usize, byte: u8) -> Result<(), Failure> {
    let got = read(cx, p, len)?;
    let bad = got.iter().position(|&b| b != byte);
    cx.ensure(step, bad.is_none(), format!("{len} bytes of {byte:#04x}"), format!("byte {bad:?} differs"))
}

/// A behaviour step: `got` must be 600 (work pending).
pub(super) fn pending(cx: &Ctx, step: &str, got: CUresult) -> Result<(), Failure> {
    cx.ensure(step, got == CuResult::NOT_READY.0, CuResult::NOT_READY, CuResult(got))
}

/// [CUDA-STM-001](vmmkit_sys::cuda::rules::STM_001).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut s = ptr::null_mut();
    cx.expect_code("cuStreamCreate(NULL)", cuda.cuStreamCreate(ptr::null_mut(), 0))?;
    cx.expect_code("cuStreamCreate(flags 2)", cuda.cuStreamCreate(&mut s, 2))?;
    cx.expect_code("cuStreamCreateWithPriority(flags 4)", cuda.cuStreamCreateWithPriority(&mut s, 4, 0))?;
    cx.expect_ok("cuStreamCreate(NON_BLOCKING)", cuda.cuStreamCreate(&mut s, CU_STREAM_NON_BLOCKING))?;
    destroy(cx, s)
}

/// [CUDA-STM-002](vmmkit_sys::cuda::rules::STM_002).
pub fn bad_stream(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    cx.expect_code("cuStreamSynchronize(not a stream)", cuda.cuStreamSynchronize(BAD_STREAM))?;
    cx.expect_code("cuStreamQuery(not a stream)", cuda.cuStreamQuery(BAD_STREAM))?;
    cx.expect_code("cuStreamDestroy(NULL)", cuda.cuStreamDestroy(ptr::null_mut()))?;
    let p = cx.alloc(4096)?;
    let data = [0u8; 16];
    cx.expect_code("cuMemcpyHtoDAsync(not a stream)", cuda.cuMemcpyHtoDAsync(p, data.as_ptr().cast(), 16, BAD_STREAM))?;
    cx.expect_ok("cuStreamSynchronize(CU_STREAM_PER_THREAD)", cuda.cuStreamSynchronize(CU_STREAM_PER_THREAD))?;
    cx.expect_ok("cuStreamSynchronize(CU_STREAM_LEGACY)", cuda.cuStreamSynchronize(CU_STREAM_LEGACY))?;
    cx.free(p)
}

/// [CUDA-STM-003](vmmkit_sys::cuda::rules::STM_003).
pub fn query_pending(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    cx.expect_code("cuStreamQuery(held stream)", cuda.cuStreamQuery(h.stream))?;
    h.release(cx)?;
    setup("cuStreamSynchronize", cuda.cuStreamSynchronize(h.stream))?;
    cx.expect_ok("cuStreamQuery(after synchronize)", cuda.cuStreamQuery(h.stream))?;
    h.finish(cx)
}

/// [CUDA-STM-004](vmmkit_sys::cuda::rules::STM_004).
pub fn in_order(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let data = crate::pattern::fill(61, LEN);
    let mut back = vec![0u8; LEN];
    setup("cuMemcpyHtoDAsync", cuda.cuMemcpyHtoDAsync(p, data.as_ptr().cast(), LEN, s))?;
    setup("cuMemsetD32Async", cuda.cuMemsetD32Async(p, 0x0101_0101, 16, s))?;
    setup("cuMemcpyDtoHAsync", cuda.cuMemcpyDtoHAsync(back.as_mut_ptr().cast(), p, LEN, s))?;
    cx.expect_ok("cuStreamSynchronize", cuda.cuStreamSynchronize(s))?;
    let mut want = data;
    want[..64].fill(1);
    let bad = back.iter().zip(&want).position(|(a, b)| a != b);
    cx.ensure(
        "the copy back after the copy and memset",
        bad.is_none(),
        "what was written, in order",
        format!("byte {bad:?} differs"),
    )?;
    destroy(cx, s)?;
    cx.free(p)
}

/// [CUDA-STM-005](vmmkit_sys::cuda::rules::STM_005).
pub fn destroy_pending(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    setup("cuMemsetD8Async", cuda.cuMemsetD8Async(p, 0x3c, LEN, h.stream))?;
    cx.expect_ok("cuStreamDestroy(work pending)", cuda.cuStreamDestroy(h.stream))?;
    h.release(cx)?;
    cx.expect_ok("cuCtxSynchronize", cuda.cuCtxSynchronize())?;
    all(cx, "the memset of the destroyed stream", p, LEN, 0x3c)?;
    cx.free(p)?;
    cx.free(h.word)
}

/// [CUDA-STM-006](vmmkit_sys::cuda::rules::STM_006).
pub fn wait_event_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let ev = super::event::event(cx, CU_EVENT_DISABLE_TIMING)?;
    setup("cuEventRecord", cuda.cuEventRecord(ev, s))?;
    cx.expect_code("cuStreamWaitEvent(flags 2)", cuda.cuStreamWaitEvent(s, ev, 2))?;
    cx.expect_ok("cuStreamWaitEvent(flags 0)", cuda.cuStreamWaitEvent(s, ev, 0))?;
    setup("cuStreamSynchronize", cuda.cuStreamSynchronize(s))?;
    setup("cuEventDestroy", cuda.cuEventDestroy(ev))?;
    destroy(cx, s)
}

/// [CUDA-STM-007](vmmkit_sys::cuda::rules::STM_007).
pub fn wait_event_orders(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    let ev = super::event::event(cx, CU_EVENT_DISABLE_TIMING)?;
    let other = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let free = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let p = cx.alloc(LEN)?;
    setup("cuEventRecord(held stream)", cuda.cuEventRecord(ev, h.stream))?;
    setup("cuStreamWaitEvent", cuda.cuStreamWaitEvent(other, ev, 0))?;
    setup("cuMemsetD8Async(after the wait)", cuda.cuMemsetD8Async(p, 0x5a, LEN, other))?;
    setup("cuMemsetD8Async(a stream with no wait)", cuda.cuMemsetD8Async(p, 0x11, 8, free))?;
    cx.expect_ok("cuStreamSynchronize(a stream with no wait)", cuda.cuStreamSynchronize(free))?;
    pending(cx, "cuStreamQuery(waiting stream)", cuda.cuStreamQuery(other))?;
    h.release(cx)?;
    cx.expect_ok("cuStreamSynchronize(waiting stream)", cuda.cuStreamSynchronize(other))?;
    all(cx, "the memset after the wait", p, LEN, 0x5a)?;
    setup("cuEventDestroy", cuda.cuEventDestroy(ev))?;
    destroy(cx, other)?;
    destroy(cx, free)?;
    cx.free(p)?;
    h.finish(cx)
}

/// Polls cuStreamQuery(NULL) until 0, for at most 10 s.
fn legacy_done(cx: &Ctx) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if cx.cuda().cuStreamQuery(ptr::null_mut()) == 0 {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

/// [CUDA-STM-008](vmmkit_sys::cuda::rules::STM_008).
pub fn legacy_stream(cx: &mut Ctx) -> Result<(), Failure> {
    let blocking = held(cx, CU_STREAM_DEFAULT)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    let go = stream(cx, CU_STREAM_NON_BLOCKING)?;
    setup("cuMemsetD8Async(NULL stream)", cuda.cuMemsetD8Async(p, 1, LEN, ptr::null_mut()))?;
    pending(cx, "cuStreamQuery(NULL) behind a held blocking stream", cuda.cuStreamQuery(ptr::null_mut()))?;
    // The NULL stream waits for the blocking one: release it from a non-blocking stream.
    setup("cuStreamWriteValue32", cuda.cuStreamWriteValue32(go, blocking.word, 1, 0))?;
    cx.expect_ok("cuStreamSynchronize(NULL)", cuda.cuStreamSynchronize(ptr::null_mut()))?;
    all(cx, "the NULL stream's memset", p, LEN, 1)?;
    destroy(cx, blocking.stream)?;
    let nb = held(cx, CU_STREAM_NON_BLOCKING)?;
    setup("cuMemsetD8Async(NULL stream)", cuda.cuMemsetD8Async(p, 2, LEN, ptr::null_mut()))?;
    let done = legacy_done(cx);
    cx.ensure("the NULL stream beside a held non-blocking stream", done, "done within 10 s", "still pending")?;
    all(cx, "the NULL stream's second memset", p, LEN, 2)?;
    nb.finish(cx)?;
    destroy(cx, go)?;
    cx.free(blocking.word)?;
    cx.free(p)
}

/// [CUDA-STM-009](vmmkit_sys::cuda::rules::STM_009).
pub fn flags_and_priority(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut s = ptr::null_mut();
    setup("cuStreamCreateWithPriority", cuda.cuStreamCreateWithPriority(&mut s, CU_STREAM_NON_BLOCKING, -100))?;
    let (mut flags, mut prio) = (7u32, 7i32);
    cx.expect_ok("cuStreamGetFlags", cuda.cuStreamGetFlags(s, &mut flags))?;
    cx.expect_ok("cuStreamGetPriority", cuda.cuStreamGetPriority(s, &mut prio))?;
    cx.ensure("flags", flags == CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING, flags)?;
    cx.ensure("priority -100, clamped", (-5..=0).contains(&prio), "in [-5, 0]", prio)?;
    cx.note(format!("priority -100 reads back as {prio}"));
    destroy(cx, s)?;
    let d = stream(cx, CU_STREAM_DEFAULT)?;
    cx.expect_ok("cuStreamGetFlags(default)", cuda.cuStreamGetFlags(d, &mut flags))?;
    cx.expect_ok("cuStreamGetPriority(default)", cuda.cuStreamGetPriority(d, &mut prio))?;
    cx.ensure("default stream's flags and priority", (flags, prio) == (0, 0), "(0, 0)", format!("({flags}, {prio})"))?;
    destroy(cx, d)
}

/// [CUDA-STM-010](vmmkit_sys::cuda::rules::STM_010).
pub fn value_ops(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let w = word(cx)?;
    let a = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let b = stream(cx, CU_STREAM_NON_BLOCKING)?;
    cx.expect_code("cuStreamWaitValue32(flags 4)", cuda.cuStreamWaitValue32(a, w, 0, 4))?;
    cx.expect_code("cuStreamWriteValue32(flags 2)", cuda.cuStreamWriteValue32(a, w, 0, 2))?;
    setup("cuStreamWaitValue64(EQ 7)", cuda.cuStreamWaitValue64(a, w, 7, CU_STREAM_WAIT_VALUE_EQ))?;
    setup("cuStreamWriteValue64(7)", cuda.cuStreamWriteValue64(b, w, 7, 0))?;
    cx.expect_ok("cuStreamSynchronize(waiter)", cuda.cuStreamSynchronize(a))?;
    destroy(cx, a)?;
    destroy(cx, b)?;
    cx.free(w)
}

static CALLS: AtomicU32 = AtomicU32::new(0);

extern "C" fn host_fn(_data: *mut std::ffi::c_void) {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

extern "C" fn callback(_s: CUstream, _status: CUresult, _data: *mut std::ffi::c_void) {
    CALLS.fetch_add(10, Ordering::SeqCst);
}

/// [CUDA-STM-011](vmmkit_sys::cuda::rules::STM_011).
pub fn host_functions(cx: &mut Ctx) -> Result<(), Failure> {
    let h = held(cx, CU_STREAM_NON_BLOCKING)?;
    let cuda = cx.cuda();
    cx.expect_code("cuLaunchHostFunc(NULL)", cuda.cuLaunchHostFunc(h.stream, None, ptr::null_mut()))?;
    cx.expect_code(
        "cuStreamAddCallback(flags 1)",
        cuda.cuStreamAddCallback(h.stream, Some(callback), ptr::null_mut(), 1),
    )?;
    let before = CALLS.load(Ordering::SeqCst);
    setup("cuLaunchHostFunc", cuda.cuLaunchHostFunc(h.stream, Some(host_fn), ptr::null_mut()))?;
    setup("cuStreamAddCallback", cuda.cuStreamAddCallback(h.stream, Some(callback), ptr::null_mut(), 0))?;
    let early = CALLS.load(Ordering::SeqCst) - before;
    cx.ensure("host functions behind a held wait", early == 0, "not run yet", format!("{early}"))?;
    h.release(cx)?;
    setup("cuStreamSynchronize", cuda.cuStreamSynchronize(h.stream))?;
    let ran = CALLS.load(Ordering::SeqCst) - before;
    cx.ensure("host functions after the wait", ran == 11, "both run", format!("{ran}"))?;
    h.finish(cx)
}

/// A host function that takes 50 ms: a call that waits for it returns
/// after it, one that does not returns within microseconds and finds it
/// still running.
extern "C" fn pause(_data: *mut std::ffi::c_void) {
    std::thread::sleep(Duration::from_millis(50));
}

/// [CUDA-STM-012](vmmkit_sys::cuda::rules::STM_012): a memset held on a blocking stream is released 50 ms
/// later by a non-blocking stream (a host function that sleeps, then a value
/// write); a synchronous cuMemcpyDtoH made meanwhile waits for it and reads
/// it. Beside a held non-blocking stream, the synchronous read does not wait.
pub fn sync_copies_on_the_legacy_stream(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let (p, q) = (cx.alloc(LEN)?, cx.alloc(LEN)?);
    setup("cuMemsetD8(p)", cuda.cuMemsetD8(p, 0, LEN))?;
    setup("cuMemsetD8(q)", cuda.cuMemsetD8(q, 0, LEN))?;
    let blocking = held(cx, CU_STREAM_DEFAULT)?;
    setup("cuMemsetD8Async(blocking)", cuda.cuMemsetD8Async(p, 3, LEN, blocking.stream))?;
    let go = stream(cx, CU_STREAM_NON_BLOCKING)?;
    setup("cuLaunchHostFunc(sleep)", cuda.cuLaunchHostFunc(go, Some(pause), ptr::null_mut()))?;
    setup("cuStreamWriteValue32(release)", cuda.cuStreamWriteValue32(go, blocking.word, 1, 0))?;
    all(cx, "cuMemcpyDtoH after a blocking stream's memset", p, LEN, 3)?;
    setup("cuStreamSynchronize(go)", cuda.cuStreamSynchronize(go))?;
    destroy(cx, go)?;
    destroy(cx, blocking.stream)?;
    cx.free(blocking.word)?;

    let nb = held(cx, CU_STREAM_NON_BLOCKING)?;
    setup("cuMemsetD8Async(non-blocking)", cuda.cuMemsetD8Async(q, 4, LEN, nb.stream))?;
    all(cx, "cuMemcpyDtoH beside a held non-blocking stream", q, LEN, 0)?;
    nb.finish(cx)?;
    all(cx, "the non-blocking stream's memset, once released", q, LEN, 4)?;
    cx.free(p)?;
    cx.free(q)
}

/// [CUDA-STM-013](vmmkit_sys::cuda::rules::STM_013): with a host function sleeping 50 ms on the NULL stream,
/// cuMemFree of cuMemAlloc memory returns once it ran: cuStreamQuery(NULL)
/// right after the free is 0.
pub fn free_synchronises(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(LEN)?;
    setup(
        "cuLaunchHostFunc(NULL stream, sleep)",
        cuda.cuLaunchHostFunc(ptr::null_mut(), Some(pause), ptr::null_mut()),
    )?;
    let rc = cuda.cuMemFree(p);
    let query = cuda.cuStreamQuery(ptr::null_mut());
    setup("cuCtxSynchronize", cuda.cuCtxSynchronize())?;
    cx.expect_ok("cuMemFree", rc)?;
    cx.expect_ok("cuStreamQuery(NULL) right after cuMemFree", query)
}
