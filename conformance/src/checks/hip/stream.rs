//! HIP-STM: streams, stream-ordered copies and host functions (clr 6.3
//! hip_stream.cpp, hip_memory.cpp). Pending work is held with a host
//! function that waits on a `Gate`, so "not ready" is provoked on any
//! backend, without a kernel.

use std::collections::HashSet;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, Va, setup};
use crate::outcome::Failure;

const CONTEXT_IS_DESTROYED: HipError = HipError::CONTEXT_IS_DESTROYED;
const INVALID_HANDLE: HipError = HipError::INVALID_HANDLE;
const INVALID_VALUE: HipError = HipError::INVALID_VALUE;
const NOT_READY: HipError = HipError::NOT_READY;
/// How long a held host function waits at most (a check that fails to open its gate must not hang).
const HOLD_LIMIT: Duration = Duration::from_secs(20);

/// The gates opened so far, and the bell their host functions wait on.
/// Shared by every check of this process; each gate has its own number.
static OPEN: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static BELL: Condvar = Condvar::new();
static NEXT_GATE: AtomicUsize = AtomicUsize::new(1);

/// A host function that holds its stream until [`Gate::open`].
pub(crate) struct Gate(usize);

impl Gate {
    pub(crate) fn new() -> Self {
        Self(NEXT_GATE.fetch_add(1, Ordering::Relaxed))
    }

    /// Enqueues the hold on `stream` (hipStreamAddCallback: every HIP has it).
    pub(crate) fn hold(&self, cx: &Ctx, stream: hipStream_t) -> Result<(), Failure> {
        let cb: hipStreamCallback_t = Some(held);
        setup("hipStreamAddCallback(hold)", cx.hip().hipStreamAddCallback(stream, cb, self.0 as *mut c_void, 0))
    }

    pub(crate) fn open(&self) {
        let mut g = OPEN.lock().unwrap_or_else(|p| p.into_inner());
        g.get_or_insert_with(HashSet::new).insert(self.0);
        BELL.notify_all();
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.open(); // never leave a stream held
    }
}

/// The callback: waits until its gate (the user data, a number) is open.
extern "C" fn held(_: hipStream_t, _: hipError_t, user: *mut c_void) {
    let gate = user as usize;
    let mut g = OPEN.lock().unwrap_or_else(|p| p.into_inner());
    let deadline = std::time::Instant::now() + HOLD_LIMIT;
    while !g.as_ref().is_some_and(|s| s.contains(&gate)) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        g = BELL.wait_timeout(g, left).map_or_else(|p| p.into_inner().0, |r| r.0);
    }
}

/// Holds `held` with a [`Gate`], runs `call` and queries `queried` right
/// after it; waits for the device, and returns the call's code and the
/// query's. Another thread opens the gate once the query is made (a call
/// that returned with the work queued), or `ms` after the call began (a
/// call that waits for the held stream, which returns only then): so only a
/// call that waits takes `ms`, and a wait that should not be there reads 0.
pub(crate) fn call_while_held(
    cx: &Ctx,
    held: hipStream_t,
    ms: u64,
    call: &dyn Fn() -> hipError_t,
    queried: hipStream_t,
) -> Result<(hipError_t, hipError_t), Failure> {
    let gate = std::sync::Arc::new(Gate::new());
    gate.hold(cx, held)?;
    let (queried_tx, queried_rx) = std::sync::mpsc::channel::<()>();
    let opener = {
        let gate = std::sync::Arc::clone(&gate);
        std::thread::spawn(move || {
            let _ = queried_rx.recv_timeout(Duration::from_millis(ms));
            gate.open();
        })
    };
    let rc = call();
    let query = cx.hip().hipStreamQuery(queried);
    let _ = queried_tx.send(());
    let _ = opener.join();
    setup("hipDeviceSynchronize", cx.hip().hipDeviceSynchronize())?;
    Ok((rc, query))
}

/// A call made while a stream is held: what it is, the call, and whether
/// it is queued (the held stream's query then 600) rather than waited for
/// (then 0).
pub(crate) type HeldCall<'a> = (&'a str, &'a dyn Fn() -> hipError_t, bool);

/// Makes each of `calls` while the stream `held` (`name` in messages) is
/// held; each must return 0 and leave the stream held or not as it says.
pub(crate) fn calls_while_held(
    cx: &Ctx,
    (held, name): (hipStream_t, &str),
    calls: &[HeldCall<'_>],
) -> Result<(), Failure> {
    for &(what, call, queued) in calls {
        let (rc, query) = call_while_held(cx, held, 50, call, held)?;
        cx.expect_ok(what, rc)?;
        let label = format!("hipStreamQuery({name}) right after {what}");
        let want = if queued { HipError::NOT_READY } else { HipError::SUCCESS };
        ensure_query(cx, &label, want, query)?;
    }
    Ok(())
}

/// [`calls_while_held`] on the calling thread's default stream, whose own
/// work the synchronous `_spt` forms in `calls` queue or wait for, as their
/// plain forms do on the NULL stream (clr passes the per-thread stream to
/// the same functions). None where the library lacks `symbol` (HIP 5.2
/// added the forms): then false.
pub(crate) fn per_thread_calls_while_held(cx: &Ctx, symbol: &str, calls: &[HeldCall<'_>]) -> Result<bool, Failure> {
    use crate::calls::Table;
    if cx.hip().missing_optional().contains(&symbol) {
        return Ok(false);
    }
    calls_while_held(cx, (hipStreamPerThread, "hipStreamPerThread"), calls)?;
    Ok(true)
}

/// Checks that a query answered `want` (0 or 600) as a behaviour, not as
/// a code the rule's emulator reports (the query's own rule, [HIP-STM-005](vmmkit_sys::hip::rules::STM_005), does).
pub(crate) fn ensure_query(cx: &Ctx, step: &str, want: HipError, got: hipError_t) -> Result<(), Failure> {
    let got = HipError(got);
    cx.ensure(step, got == want, want.to_string(), got.to_string())
}

/// `hipStreamCreateWithFlags(flags)`.
pub(crate) fn stream(cx: &Ctx, flags: u32) -> Result<hipStream_t, Failure> {
    let mut s = ptr::null_mut();
    setup("hipStreamCreateWithFlags", cx.hip().hipStreamCreateWithFlags(&mut s, flags))?;
    Ok(s)
}

pub(crate) fn destroy(cx: &Ctx, s: hipStream_t) -> Result<(), Failure> {
    setup("hipStreamDestroy", cx.hip().hipStreamDestroy(s))
}

/// A stream made and destroyed: a value that names no live stream.
fn dead_stream(cx: &Ctx) -> Result<hipStream_t, Failure> {
    let s = stream(cx, hipStreamDefault)?;
    destroy(cx, s)?;
    Ok(s)
}

/// `hipHostMalloc(n)`: host memory HIP knows, so copies from it stay asynchronous.
pub(crate) fn pinned(cx: &Ctx, n: usize) -> Result<Va, Failure> {
    let mut p = ptr::null_mut();
    setup("hipHostMalloc", cx.hip().hipHostMalloc(&mut p, n, 0))?;
    Ok(p)
}

/// Reads `n` bytes of device memory at `p` with hipMemcpy.
pub(crate) fn read(cx: &Ctx, p: Va, n: usize) -> Result<Vec<u8>, Failure> {
    let mut b = vec![0u8; n];
    setup("hipMemcpy(DeviceToHost)", cx.hip().hipMemcpy(b.as_mut_ptr().cast(), p, n, hipMemcpyDeviceToHost))?;
    Ok(b)
}

/// [HIP-STM-001](vmmkit_sys::hip::rules::STM_001).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut s = ptr::null_mut();
    cx.expect_code("hipStreamCreate(NULL)", hip.hipStreamCreate(ptr::null_mut()))?;
    cx.expect_code("hipStreamCreateWithFlags(NULL, 0)", hip.hipStreamCreateWithFlags(ptr::null_mut(), 0))?;
    cx.expect_code("hipStreamCreateWithFlags(flags 2)", hip.hipStreamCreateWithFlags(&mut s, 2))?;
    cx.expect_code("hipStreamCreateWithPriority(flags 3)", hip.hipStreamCreateWithPriority(&mut s, 3, 0))?;
    cx.expect_ok("hipStreamCreateWithFlags(NonBlocking)", hip.hipStreamCreateWithFlags(&mut s, hipStreamNonBlocking))?;
    destroy(cx, s)
}

/// [HIP-STM-002](vmmkit_sys::hip::rules::STM_002).
pub fn priorities(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (mut least, mut greatest) = (9, 9);
    setup("hipDeviceGetStreamPriorityRange", hip.hipDeviceGetStreamPriorityRange(&mut least, &mut greatest))?;
    cx.ensure(
        "priority range (least, greatest)",
        (least, greatest) == (1, -1),
        "(1, -1)",
        format!("({least}, {greatest})"),
    )?;
    for (asked, want) in [(-5, -1), (0, 0), (7, 1)] {
        let mut s = ptr::null_mut();
        setup("hipStreamCreateWithPriority", hip.hipStreamCreateWithPriority(&mut s, 0, asked))?;
        let mut got = 9;
        setup("hipStreamGetPriority", hip.hipStreamGetPriority(s, &mut got))?;
        destroy(cx, s)?;
        cx.ensure(&format!("priority of a stream made with {asked}"), got == want, want, got)?;
    }
    let mut got = 9;
    setup("hipStreamGetPriority(NULL)", hip.hipStreamGetPriority(ptr::null_mut(), &mut got))?;
    cx.ensure("priority of the NULL stream", got == 0, 0, got)
}

/// [HIP-STM-003](vmmkit_sys::hip::rules::STM_003).
pub fn destroy_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    cx.expect("hipStreamDestroy(NULL)", INVALID_HANDLE, hip.hipStreamDestroy(ptr::null_mut()))?;
    cx.expect("hipStreamDestroy(hipStreamPerThread)", INVALID_HANDLE, hip.hipStreamDestroy(hipStreamPerThread))?;
    let s = stream(cx, hipStreamDefault)?;
    cx.expect_ok("hipStreamDestroy(made)", hip.hipStreamDestroy(s))?;
    cx.expect("hipStreamDestroy(destroyed)", CONTEXT_IS_DESTROYED, hip.hipStreamDestroy(s))
}

/// [HIP-STM-004](vmmkit_sys::hip::rules::STM_004).
pub fn dead_stream_calls(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = dead_stream(cx)?;
    let (mut flags, mut prio) = (0u32, 0i32);
    let cb: hipStreamCallback_t = Some(held);
    cx.expect("hipStreamSynchronize(destroyed)", CONTEXT_IS_DESTROYED, hip.hipStreamSynchronize(s))?;
    cx.expect("hipStreamQuery(destroyed)", CONTEXT_IS_DESTROYED, hip.hipStreamQuery(s))?;
    cx.expect("hipStreamGetFlags(destroyed)", CONTEXT_IS_DESTROYED, hip.hipStreamGetFlags(s, &mut flags))?;
    cx.expect("hipStreamGetPriority(destroyed)", CONTEXT_IS_DESTROYED, hip.hipStreamGetPriority(s, &mut prio))?;
    let r = hip.hipStreamAddCallback(s, cb, ptr::null_mut(), 0);
    cx.expect("hipStreamAddCallback(destroyed)", CONTEXT_IS_DESTROYED, r)?;
    cx.expect("hipStreamGetFlags(NULL stream)", INVALID_VALUE, hip.hipStreamGetFlags(ptr::null_mut(), &mut flags))?;
    let live = stream(cx, hipStreamNonBlocking)?;
    cx.expect("hipStreamGetFlags(NULL flags)", INVALID_VALUE, hip.hipStreamGetFlags(live, ptr::null_mut()))?;
    cx.expect("hipStreamGetPriority(NULL priority)", INVALID_VALUE, hip.hipStreamGetPriority(live, ptr::null_mut()))?;
    cx.expect_ok("hipStreamGetFlags(NonBlocking)", hip.hipStreamGetFlags(live, &mut flags))?;
    destroy(cx, live)?;
    cx.ensure("flags of a NonBlocking stream", flags == hipStreamNonBlocking, hipStreamNonBlocking, flags)
}

/// [HIP-STM-005](vmmkit_sys::hip::rules::STM_005).
pub fn query_pending(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    cx.expect_ok("hipStreamQuery(empty)", hip.hipStreamQuery(s))?;
    let gate = Gate::new();
    gate.hold(cx, s)?;
    let pending = hip.hipStreamQuery(s);
    gate.open();
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    cx.expect("hipStreamQuery(held)", NOT_READY, pending)?;
    cx.expect_ok("hipStreamQuery(after synchronize)", hip.hipStreamQuery(s))?;
    destroy(cx, s)
}

/// [HIP-STM-006](vmmkit_sys::hip::rules::STM_006).
pub fn wait_event(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (a, b) = (stream(cx, hipStreamNonBlocking)?, stream(cx, hipStreamNonBlocking)?);
    let mut ev = ptr::null_mut();
    setup("hipEventCreate", hip.hipEventCreate(&mut ev))?;
    cx.expect("hipStreamWaitEvent(NULL event)", INVALID_HANDLE, hip.hipStreamWaitEvent(b, ptr::null_mut(), 0))?;
    let dead = dead_stream(cx)?;
    cx.expect("hipStreamWaitEvent(destroyed stream)", INVALID_HANDLE, hip.hipStreamWaitEvent(dead, ev, 0))?;
    cx.expect("hipStreamWaitEvent(flags 1)", INVALID_VALUE, hip.hipStreamWaitEvent(b, ev, 1))?;
    cx.expect_ok("hipStreamWaitEvent(never recorded)", hip.hipStreamWaitEvent(b, ev, 0))?;
    cx.expect_ok("hipStreamQuery(after a wait on nothing)", hip.hipStreamQuery(b))?;
    // The order: b waits for a record on a, which a held host function delays.
    let gate = Gate::new();
    gate.hold(cx, a)?;
    setup("hipEventRecord", hip.hipEventRecord(ev, a))?;
    cx.expect_ok("hipStreamWaitEvent(recorded)", hip.hipStreamWaitEvent(b, ev, 0))?;
    let waiting = hip.hipStreamQuery(b);
    gate.open();
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(b))?;
    setup("hipEventDestroy", hip.hipEventDestroy(ev))?;
    destroy(cx, a)?;
    destroy(cx, b)?;
    cx.ensure_code("hipStreamQuery(b, waiting on a held record)", NOT_READY, waiting)
}

/// The order the host functions of `callback_order` ran in.
static RAN: Mutex<Vec<(usize, hipError_t)>> = Mutex::new(Vec::new());

extern "C" fn note(_: hipStream_t, status: hipError_t, user: *mut c_void) {
    RAN.lock().unwrap_or_else(|p| p.into_inner()).push((user as usize, status));
}

extern "C" fn note_host(user: *mut c_void) {
    RAN.lock().unwrap_or_else(|p| p.into_inner()).push((user as usize, 0));
}

/// The host functions of `callback_order` numbered `base..base + 3` that have run.
fn ran_from(base: usize) -> Vec<(usize, hipError_t)> {
    RAN.lock().unwrap_or_else(|p| p.into_inner()).iter().filter(|r| r.0 >= base && r.0 < base + 3).copied().collect()
}

/// [HIP-STM-007](vmmkit_sys::hip::rules::STM_007).
pub fn callbacks(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let cb: hipStreamCallback_t = Some(note);
    cx.expect_code("hipStreamAddCallback(NULL callback)", hip.hipStreamAddCallback(s, None, ptr::null_mut(), 0))?;
    cx.expect_code("hipStreamAddCallback(flags 1)", hip.hipStreamAddCallback(s, cb, ptr::null_mut(), 1))?;
    if let Some(r) = hip.hipLaunchHostFunc(s, None, ptr::null_mut()) {
        cx.expect_code("hipLaunchHostFunc(NULL fn)", r)?;
    }
    let base = 1000 + NEXT_GATE.fetch_add(1, Ordering::Relaxed) * 10;
    let gate = Gate::new();
    gate.hold(cx, s)?;
    setup("hipStreamAddCallback", hip.hipStreamAddCallback(s, cb, base as *mut c_void, 0))?;
    let host: hipHostFn_t = Some(note_host);
    let launched = hip.hipLaunchHostFunc(s, host, (base + 1) as *mut c_void).is_some();
    setup("hipStreamAddCallback", hip.hipStreamAddCallback(s, cb, (base + 2) as *mut c_void, 0))?;
    let early = ran_from(base);
    gate.open();
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    destroy(cx, s)?;
    let ran = ran_from(base);
    let want: Vec<_> =
        if launched { vec![(base, 0), (base + 1, 0), (base + 2, 0)] } else { vec![(base, 0), (base + 2, 0)] };
    cx.ensure("functions run before the held one ends", early.is_empty(), "none", format!("{early:?}"))?;
    cx.ensure("functions run, in order, with status 0", ran == want, format!("{want:?}"), format!("{ran:?}"))
}

/// [HIP-STM-008](vmmkit_sys::hip::rules::STM_008).
pub fn null_stream_order(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    const N: usize = 4096;
    let s = stream(cx, hipStreamDefault)?;
    let dev = cx.malloc(N)?;
    let src = pinned(cx, N)?;
    setup("hipMemset(pinned)", hip.hipMemset(src, 0x5a, N))?;
    setup("hipMemset(device)", hip.hipMemset(dev, 0, N))?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src, N, hipMemcpyHostToDevice, s))?;
    // No synchronize of s: the NULL stream's copy waits for it.
    let got = read(cx, dev, N)?;
    let ok = got.iter().all(|&b| b == 0x5a);
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src, N, hipMemcpyHostToDevice, s))?;
    cx.expect_ok("hipStreamSynchronize(NULL)", hip.hipStreamSynchronize(ptr::null_mut()))?;
    cx.expect_ok("hipStreamQuery(s) after hipStreamSynchronize(NULL)", hip.hipStreamQuery(s))?;
    destroy(cx, s)?;
    setup("hipHostFree", hip.hipHostFree(src))?;
    cx.free(dev)?;
    cx.ensure("hipMemcpy after an unsynchronised copy on a blocking stream", ok, "all 0x5a", format!("{:?}", &got[..8]))
}

/// [HIP-STM-009](vmmkit_sys::hip::rules::STM_009).
pub fn async_copy_dead_stream(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = dead_stream(cx)?;
    let dev = cx.malloc(64)?;
    let other = cx.malloc(64)?;
    let mut host = [0u8; 64];
    let h: *mut c_void = host.as_mut_ptr().cast();
    cx.expect_code("hipMemcpyAsync", hip.hipMemcpyAsync(dev, h, 64, hipMemcpyHostToDevice, s))?;
    cx.expect_code("hipMemcpyHtoDAsync", hip.hipMemcpyHtoDAsync(dev, h, 64, s))?;
    cx.expect_code("hipMemcpyDtoHAsync", hip.hipMemcpyDtoHAsync(h, dev, 64, s))?;
    cx.expect_code("hipMemcpyDtoDAsync", hip.hipMemcpyDtoDAsync(other, dev, 64, s))?;
    cx.expect_code("hipMemcpyPeerAsync", hip.hipMemcpyPeerAsync(other, 0, dev, 0, 64, s))?;
    cx.free(dev)?;
    cx.free(other)
}

/// [HIP-STM-010](vmmkit_sys::hip::rules::STM_010).
pub fn async_copies_land(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    const N: usize = 256;
    let s = stream(cx, hipStreamNonBlocking)?;
    let (a, b) = (cx.malloc(N)?, cx.malloc(N)?);
    let src = pinned(cx, N)?;
    setup("hipMemset(pinned)", hip.hipMemset(src, 7, N))?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(a, src, N, hipMemcpyHostToDevice, s))?;
    setup("hipMemcpyDtoDAsync", hip.hipMemcpyDtoDAsync(b, a, N, s))?;
    setup("hipMemsetAsync", hip.hipMemsetAsync(a, 1, 16, s))?;
    setup("hipMemsetD16Async", hip.hipMemsetD16Async(a.wrapping_byte_add(16), 0x0302, 8, s))?;
    setup("hipMemsetD32Async", hip.hipMemsetD32Async(a.wrapping_byte_add(32), 0x0706_0504, 4, s))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let (ga, gb) = (read(cx, a, N)?, read(cx, b, N)?);
    destroy(cx, s)?;
    setup("hipHostFree", hip.hipHostFree(src))?;
    cx.free(a)?;
    cx.free(b)?;
    let mut want = vec![7u8; N];
    want[..16].fill(1);
    for i in 0..8 {
        want[16 + 2 * i..18 + 2 * i].copy_from_slice(&[2, 3]);
    }
    for i in 0..4 {
        want[32 + 4 * i..36 + 4 * i].copy_from_slice(&[4, 5, 6, 7]);
    }
    cx.ensure("copy then copy on the stream", gb == vec![7u8; N], "all 7", format!("{:?}", &gb[..8]))?;
    cx.ensure("fills of 1, 2 and 4 bytes", ga == want, format!("{:?}", &want[..48]), format!("{:?}", &ga[..48]))
}

/// [HIP-STM-011](vmmkit_sys::hip::rules::STM_011): behind a held stream, a copy from pinned memory returns with
/// the stream still busy, and one from pageable memory returns only once the
/// stream has run it (a thread opens the gate after a while).
pub fn pageable_copy_waits(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    const N: usize = 4096;
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    let src = pinned(cx, N)?;
    let gate = Gate::new();
    gate.hold(cx, s)?;
    setup("hipMemcpyAsync(pinned)", hip.hipMemcpyAsync(dev, src, N, hipMemcpyHostToDevice, s))?;
    let pinned_pending = hip.hipStreamQuery(s);
    gate.open();
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let (step, got) = ("hipStreamQuery after a pinned copy behind a held stream", HipError(pinned_pending));
    cx.ensure(step, got == NOT_READY, NOT_READY.to_string(), got.to_string())?;

    let pageable = vec![0x5au8; N];
    let late = Gate::new();
    late.hold(cx, s)?;
    let opener = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            late.open();
        });
        let r = hip.hipMemcpyAsync(dev, pageable.as_ptr().cast(), N, hipMemcpyHostToDevice, s);
        (r, hip.hipStreamQuery(s))
    });
    setup("hipMemcpyAsync(pageable)", opener.0)?;
    cx.expect_ok("hipStreamQuery right after a pageable copy", opener.1)?;
    let got = read(cx, dev, N)?;
    destroy(cx, s)?;
    setup("hipHostFree", hip.hipHostFree(src))?;
    cx.free(dev)?;
    cx.ensure("the pageable copy has landed", got == pageable, "all 0x5a", format!("{:?}", &got[..8]))
}

/// [HIP-STM-012](vmmkit_sys::hip::rules::STM_012): a wait on stream B holds B's later write until stream A
/// writes the flag; then the word is there. A NULL ptr, an address HIP did
/// not allocate and a wait flag that is no comparison are 1.
pub fn memory_operations(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let missing = |name: &str| Failure::NotSupported(format!("the library has no {name}"));
    let wait32 =
        |s, p, v, f| hip.hipStreamWaitValue32(s, p, v, f, u32::MAX).ok_or_else(|| missing("hipStreamWaitValue32"));
    let write32 = |s, p, v| hip.hipStreamWriteValue32(s, p, v, 0).ok_or_else(|| missing("hipStreamWriteValue32"));
    let write64 = |s, p, v| hip.hipStreamWriteValue64(s, p, v, 0).ok_or_else(|| missing("hipStreamWriteValue64"));
    let flag = cx.malloc(64)?;
    setup("hipMemset", hip.hipMemset(flag, 0, 64))?;
    // The fill is queued on the NULL stream (HIP-MEM-010), which the
    // non-blocking streams below do not wait for.
    setup("hipStreamSynchronize(NULL)", hip.hipStreamSynchronize(ptr::null_mut()))?;
    let word = flag.cast::<u8>().wrapping_add(8).cast::<c_void>();
    let (a, b) = (stream(cx, hipStreamNonBlocking)?, stream(cx, hipStreamNonBlocking)?);
    cx.expect_ok("hipStreamWaitValue32(B, flag == 3)", wait32(b, flag, 3, hipStreamWaitValueEq)?)?;
    cx.expect_ok("hipStreamWriteValue64(B, word)", write64(b, word, 42)?)?;
    let pending = HipError(hip.hipStreamQuery(b));
    cx.ensure("B waits for the flag", pending == HipError::NOT_READY, HipError::NOT_READY, pending)?;
    cx.expect_ok("hipStreamWriteValue32(A, flag, 3)", write32(a, flag, 3)?)?;
    cx.expect_ok("hipStreamSynchronize(B)", hip.hipStreamSynchronize(b))?;
    let mut got = [0u8; 8];
    setup("hipMemcpy", hip.hipMemcpy(got.as_mut_ptr().cast(), word, 8, hipMemcpyDeviceToHost))?;
    cx.ensure("the word written after the wait", u64::from_le_bytes(got) == 42, 42, u64::from_le_bytes(got))?;
    cx.expect_code("hipStreamWriteValue32(NULL)", write32(a, ptr::null_mut(), 1)?)?;
    let mut local = [0u64; 1];
    cx.expect_code("hipStreamWriteValue64(a host address)", write64(a, local.as_mut_ptr().cast(), 1)?)?;
    cx.expect_code("hipStreamWaitValue32(flags 7)", wait32(a, flag, 0, 7)?)?;
    cx.expect_ok("hipStreamSynchronize(A)", hip.hipStreamSynchronize(a))?;
    destroy(cx, a)?;
    destroy(cx, b)?;
    cx.free(flag)
}

/// [HIP-STM-013](vmmkit_sys::hip::rules::STM_013) (hip-tests `Unit_hipStreamCreateWithFlags_DefaultStreamInteraction`):
/// with a blocking stream held, hipStreamQuery(NULL) is 600 and
/// hipStreamQuery(hipStreamPerThread) is 0; with a non-blocking stream held,
/// hipStreamQuery(NULL) is 0.
pub fn null_query_waits_for_blocking_streams(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    for (flags, name, want) in
        [(hipStreamDefault, "blocking", NOT_READY), (hipStreamNonBlocking, "non-blocking", HipError::SUCCESS)]
    {
        let s = stream(cx, flags)?;
        let gate = Gate::new();
        gate.hold(cx, s)?;
        let null = hip.hipStreamQuery(ptr::null_mut());
        // hipStreamPerThread is the handle 2 (hip_runtime_api.h).
        let per_thread = hip.hipStreamQuery(ptr::without_provenance_mut(2));
        gate.open();
        setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
        ensure_query(cx, &format!("hipStreamQuery(NULL) with a {name} stream held"), want, null)?;
        cx.expect_ok(&format!("hipStreamQuery(hipStreamPerThread) with a {name} stream held"), per_thread)?;
        cx.expect_ok("hipStreamQuery(NULL) after it ran", hip.hipStreamQuery(ptr::null_mut()))?;
        destroy(cx, s)?;
    }
    Ok(())
}
