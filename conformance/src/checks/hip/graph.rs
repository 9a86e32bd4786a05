//! HIP-GRF: graphs and stream capture of copies, fills, host functions,
//! events and graph memory (clr 6.3 hip_graph.cpp, hip_graph_internal.cpp).
//! No check launches a kernel.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use vmmkit_sys::hip::*;

use super::stream::{destroy, stream};
use crate::hip::{Ctx, Va, setup};
use crate::outcome::Failure;

const INVALID_VALUE: HipError = HipError::INVALID_VALUE;
const N: usize = 4096;

/// The result of an optional function, or not-supported when the library lacks it.
fn opt(name: &str, r: Option<hipError_t>) -> Result<hipError_t, Failure> {
    r.ok_or_else(|| Failure::NotSupported(format!("the library has no {name}")))
}

/// Host-node runs, counted.
static RUNS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_run(_: *mut c_void) {
    RUNS.fetch_add(1, Ordering::SeqCst);
}

fn graph(cx: &Ctx) -> Result<hipGraph_t, Failure> {
    let mut g = ptr::null_mut();
    setup("hipGraphCreate", opt("hipGraphCreate", cx.hip().hipGraphCreate(&mut g, 0))?)?;
    Ok(g)
}

fn exec(cx: &Ctx, g: hipGraph_t) -> Result<hipGraphExec_t, Failure> {
    let mut x = ptr::null_mut();
    let r = cx.hip().hipGraphInstantiate(&mut x, g, ptr::null_mut(), ptr::null_mut(), 0);
    setup("hipGraphInstantiate", opt("hipGraphInstantiate", r)?)?;
    Ok(x)
}

fn drop_graph(cx: &Ctx, g: hipGraph_t) -> Result<(), Failure> {
    setup("hipGraphDestroy", opt("hipGraphDestroy", cx.hip().hipGraphDestroy(g))?)
}

fn empty(cx: &Ctx, g: hipGraph_t, deps: &[hipGraphNode_t]) -> Result<hipGraphNode_t, Failure> {
    let mut n = ptr::null_mut();
    let r = cx.hip().hipGraphAddEmptyNode(&mut n, g, deps.as_ptr(), deps.len());
    setup("hipGraphAddEmptyNode", opt("hipGraphAddEmptyNode", r)?)?;
    Ok(n)
}

fn fill(value: u8, dst: Va, width: usize) -> hipMemsetParams {
    hipMemsetParams { dst, elementSize: 1, height: 1, pitch: 0, value: u32::from(value), width }
}

fn read(cx: &Ctx, p: Va) -> Result<Vec<u8>, Failure> {
    super::stream::read(cx, p, N)
}

/// [HIP-GRF-001](vmmkit_sys::hip::rules::GRF_001).
pub fn create_destroy(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    cx.expect_code("hipGraphCreate(NULL)", opt("hipGraphCreate", hip.hipGraphCreate(ptr::null_mut(), 0))?)?;
    let mut g = ptr::null_mut();
    cx.expect_code("hipGraphCreate(flags 1)", opt("hipGraphCreate", hip.hipGraphCreate(&mut g, 1))?)?;
    cx.expect_code("hipGraphDestroy(NULL)", opt("hipGraphDestroy", hip.hipGraphDestroy(ptr::null_mut()))?)?;
    let g = graph(cx)?;
    let mut n = ptr::null_mut();
    let dev = cx.malloc(N)?;
    let p = fill(3, dev, N);
    setup(
        "hipGraphAddMemsetNode",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n, g, ptr::null(), 0, &p))?,
    )?;
    let x = exec(cx, g)?;
    cx.expect_ok("hipGraphDestroy(graph with an exec)", opt("hipGraphDestroy", hip.hipGraphDestroy(g))?)?;
    cx.expect("hipGraphDestroy(destroyed)", HipError::ILLEGAL_STATE, opt("hipGraphDestroy", hip.hipGraphDestroy(g))?)?;
    let s = stream(cx, hipStreamNonBlocking)?;
    cx.expect_ok("hipGraphLaunch(exec of a destroyed graph)", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let got = read(cx, dev)?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    destroy(cx, s)?;
    cx.free(dev)?;
    cx.ensure("the exec's fill ran", got.iter().all(|&b| b == 3), "all 3", format!("{:?}", &got[..4]))
}

/// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002).
pub fn add_null_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let g = graph(cx)?;
    let mut n = ptr::null_mut();
    let null = ptr::null_mut();
    cx.expect_code(
        "hipGraphAddEmptyNode(NULL node)",
        opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(ptr::null_mut(), g, ptr::null(), 0))?,
    )?;
    cx.expect_code(
        "hipGraphAddEmptyNode(NULL graph)",
        opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(&mut n, null, ptr::null(), 0))?,
    )?;
    cx.expect_code(
        "hipGraphAddEmptyNode(NULL deps, 1)",
        opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(&mut n, g, ptr::null(), 1))?,
    )?;
    let no_fn = hipHostNodeParams { fn_: None, userData: ptr::null_mut() };
    cx.expect_code(
        "hipGraphAddHostNode(NULL fn)",
        opt("hipGraphAddHostNode", hip.hipGraphAddHostNode(&mut n, g, ptr::null(), 0, &no_fn))?,
    )?;
    cx.expect_code(
        "hipGraphAddMemsetNode(NULL params)",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n, g, ptr::null(), 0, ptr::null()))?,
    )?;
    cx.expect_code(
        "hipGraphAddEventRecordNode(NULL event)",
        opt("hipGraphAddEventRecordNode", hip.hipGraphAddEventRecordNode(&mut n, g, ptr::null(), 0, null))?,
    )?;
    cx.expect_code(
        "hipGraphAddEventWaitNode(NULL event)",
        opt("hipGraphAddEventWaitNode", hip.hipGraphAddEventWaitNode(&mut n, g, ptr::null(), 0, null))?,
    )?;
    cx.expect_ok(
        "hipGraphAddEmptyNode(valid)",
        opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(&mut n, g, ptr::null(), 0))?,
    )?;
    drop_graph(cx, g)
}

/// [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003).
pub fn foreign_dependencies(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (g, other) = (graph(cx)?, graph(cx)?);
    let foreign = empty(cx, other, &[])?;
    let mut n = ptr::null_mut();
    let r = opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(&mut n, g, &foreign, 1))?;
    cx.expect_code("hipGraphAddEmptyNode(a node of another graph)", r)?;
    let a = empty(cx, g, &[])?;
    let twice = [a, a];
    let r = opt("hipGraphAddEmptyNode", hip.hipGraphAddEmptyNode(&mut n, g, twice.as_ptr(), 2))?;
    cx.expect_code("hipGraphAddEmptyNode(a node twice)", r)?;
    empty(cx, g, &[a])?;
    drop_graph(cx, g)?;
    drop_graph(cx, other)
}

/// [HIP-GRF-004](vmmkit_sys::hip::rules::GRF_004).
pub fn copy_fill_params(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let g = graph(cx)?;
    let dev = cx.malloc(N)?;
    let host = vec![0u8; N];
    let mut n = ptr::null_mut();
    let r = hip.hipGraphAddMemcpyNode1D(&mut n, g, ptr::null(), 0, dev, host.as_ptr().cast(), 0, hipMemcpyHostToDevice);
    cx.expect_code("hipGraphAddMemcpyNode1D(count 0)", opt("hipGraphAddMemcpyNode1D", r)?)?;
    let mut p = fill(1, dev, N);
    p.elementSize = 3;
    cx.expect_code(
        "hipGraphAddMemsetNode(element size 3)",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n, g, ptr::null(), 0, &p))?,
    )?;
    p.elementSize = 1;
    p.height = 0;
    cx.expect_code(
        "hipGraphAddMemsetNode(height 0)",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n, g, ptr::null(), 0, &p))?,
    )?;
    p.height = 2;
    p.pitch = N / 4;
    p.width = N / 2;
    cx.expect_code(
        "hipGraphAddMemsetNode(pitch < width)",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n, g, ptr::null(), 0, &p))?,
    )?;
    let r = hip.hipGraphAddMemcpyNode1D(&mut n, g, ptr::null(), 0, dev, host.as_ptr().cast(), N, hipMemcpyHostToDevice);
    cx.expect_ok("hipGraphAddMemcpyNode1D(valid)", opt("hipGraphAddMemcpyNode1D", r)?)?;
    drop_graph(cx, g)?;
    cx.free(dev)
}

/// Adds copy in → host function → fill half → copy out to `g`.
fn chain(cx: &Ctx, g: hipGraph_t, dev: Va, src: &[u8], dst: &mut [u8]) -> Result<(), Failure> {
    let hip = cx.hip();
    let mut n = [ptr::null_mut(); 4];
    let r =
        hip.hipGraphAddMemcpyNode1D(&mut n[0], g, ptr::null(), 0, dev, src.as_ptr().cast(), N, hipMemcpyHostToDevice);
    setup("hipGraphAddMemcpyNode1D", opt("hipGraphAddMemcpyNode1D", r)?)?;
    let host = hipHostNodeParams { fn_: Some(count_run), userData: ptr::null_mut() };
    setup("hipGraphAddHostNode", opt("hipGraphAddHostNode", hip.hipGraphAddHostNode(&mut n[1], g, &n[0], 1, &host))?)?;
    let p = fill(0x5a, dev, N / 2);
    setup(
        "hipGraphAddMemsetNode",
        opt("hipGraphAddMemsetNode", hip.hipGraphAddMemsetNode(&mut n[2], g, &n[1], 1, &p))?,
    )?;
    let r = hip.hipGraphAddMemcpyNode1D(&mut n[3], g, &n[2], 1, dst.as_mut_ptr().cast(), dev, N, hipMemcpyDeviceToHost);
    setup("hipGraphAddMemcpyNode1D", opt("hipGraphAddMemcpyNode1D", r)?)
}

fn wanted(src: u8) -> Vec<u8> {
    (0..N).map(|i| if i < N / 2 { 0x5a } else { src }).collect()
}

/// [HIP-GRF-005](vmmkit_sys::hip::rules::GRF_005).
pub fn launch_order(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    let mut src = vec![1u8; N];
    let mut dst = vec![0u8; N];
    let g = graph(cx)?;
    chain(cx, g, dev, &src, &mut dst)?;
    let x = exec(cx, g)?;
    let before = RUNS.load(Ordering::SeqCst);
    cx.expect_ok("hipGraphLaunch", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    cx.ensure("first launch", dst == wanted(1), "0x5a then 1", format!("{:?}", &dst[N / 2 - 1..N / 2 + 1]))?;
    src.fill(2);
    cx.expect_ok("hipGraphLaunch(again)", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    cx.ensure("second launch", dst == wanted(2), "0x5a then 2", format!("{:?}", &dst[N / 2 - 1..N / 2 + 1]))?;
    let runs = RUNS.load(Ordering::SeqCst) - before;
    cx.ensure("the host node ran at each launch", runs == 2, 2, runs)?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)?;
    destroy(cx, s)?;
    cx.free(dev)
}

/// [HIP-GRF-006](vmmkit_sys::hip::rules::GRF_006).
pub fn instantiate_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let g = graph(cx)?;
    empty(cx, g, &[])?;
    let mut x = ptr::null_mut();
    let r = hip.hipGraphInstantiate(ptr::null_mut(), g, ptr::null_mut(), ptr::null_mut(), 0);
    cx.expect_code("hipGraphInstantiate(NULL exec)", opt("hipGraphInstantiate", r)?)?;
    let r = hip.hipGraphInstantiate(&mut x, ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), 0);
    cx.expect_code("hipGraphInstantiate(NULL graph)", opt("hipGraphInstantiate", r)?)?;
    let r = hip.hipGraphInstantiateWithFlags(&mut x, g, 16);
    cx.expect_code("hipGraphInstantiateWithFlags(16)", opt("hipGraphInstantiateWithFlags", r)?)?;
    cx.expect_code("hipGraphExecDestroy(NULL)", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(ptr::null_mut()))?)?;
    let r = hip.hipGraphInstantiateWithFlags(&mut x, g, hipGraphInstantiateFlagAutoFreeOnLaunch);
    cx.expect_ok("hipGraphInstantiateWithFlags(AutoFreeOnLaunch)", opt("hipGraphInstantiateWithFlags", r)?)?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)
}

/// [HIP-GRF-007](vmmkit_sys::hip::rules::GRF_007).
pub fn launch_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    cx.expect(
        "hipGraphLaunch(NULL exec)",
        INVALID_VALUE,
        opt("hipGraphLaunch", hip.hipGraphLaunch(ptr::null_mut(), s))?,
    )?;
    let g = graph(cx)?;
    empty(cx, g, &[])?;
    let x = exec(cx, g)?;
    let dead = stream(cx, hipStreamNonBlocking)?;
    destroy(cx, dead)?;
    let r = opt("hipGraphLaunch", hip.hipGraphLaunch(x, dead))?;
    cx.expect("hipGraphLaunch(destroyed stream)", HipError::CONTEXT_IS_DESTROYED, r)?;
    cx.expect_ok("hipGraphLaunch(valid)", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)?;
    destroy(cx, s)
}

fn begin(cx: &Ctx, s: hipStream_t, mode: hipStreamCaptureMode) -> Result<hipError_t, Failure> {
    opt("hipStreamBeginCapture", cx.hip().hipStreamBeginCapture(s, mode))
}

fn end(cx: &Ctx, s: hipStream_t, g: *mut hipGraph_t) -> Result<hipError_t, Failure> {
    opt("hipStreamEndCapture", cx.hip().hipStreamEndCapture(s, g))
}

fn status(cx: &Ctx, s: hipStream_t) -> Result<hipStreamCaptureStatus, Failure> {
    let mut st = -1;
    setup("hipStreamIsCapturing", opt("hipStreamIsCapturing", cx.hip().hipStreamIsCapturing(s, &mut st))?)?;
    Ok(st)
}

/// [HIP-GRF-008](vmmkit_sys::hip::rules::GRF_008).
pub fn capture_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let s = stream(cx, hipStreamNonBlocking)?;
    cx.expect(
        "hipStreamBeginCapture(NULL stream)",
        HipError::STREAM_CAPTURE_UNSUPPORTED,
        begin(cx, ptr::null_mut(), 0)?,
    )?;
    cx.expect("hipStreamBeginCapture(mode 7)", INVALID_VALUE, begin(cx, s, 7)?)?;
    let mut g = ptr::null_mut();
    cx.expect("hipStreamEndCapture(not capturing)", HipError::ILLEGAL_STATE, end(cx, s, &mut g)?)?;
    cx.expect("hipStreamEndCapture(NULL stream)", HipError::ILLEGAL_STATE, end(cx, ptr::null_mut(), &mut g)?)?;
    cx.expect_ok("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect("hipStreamBeginCapture(capturing)", HipError::ILLEGAL_STATE, begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect("hipStreamEndCapture(NULL graph)", INVALID_VALUE, end(cx, s, ptr::null_mut())?)?;
    cx.expect_ok("hipStreamEndCapture", end(cx, s, &mut g)?)?;
    drop_graph(cx, g)?;
    destroy(cx, s)
}

/// [HIP-GRF-009](vmmkit_sys::hip::rules::GRF_009).
pub fn capture_runs_at_launch(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    let src = vec![4u8; N];
    let mut dst = vec![0u8; N];
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    let st = status(cx, s)?;
    let before = RUNS.load(Ordering::SeqCst);
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src.as_ptr().cast(), N, hipMemcpyHostToDevice, s))?;
    setup("hipLaunchHostFunc", opt("hipLaunchHostFunc", hip.hipLaunchHostFunc(s, Some(count_run), ptr::null_mut()))?)?;
    setup("hipMemsetAsync", hip.hipMemsetAsync(dev, 0x5a, N / 2, s))?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dst.as_mut_ptr().cast(), dev, N, hipMemcpyDeviceToHost, s))?;
    let mut g = ptr::null_mut();
    cx.expect_ok("hipStreamEndCapture", end(cx, s, &mut g)?)?;
    cx.ensure("status while capturing", st == hipStreamCaptureStatusActive, "Active (1)", st)?;
    let after = status(cx, s)?;
    cx.ensure("status after the end", after == hipStreamCaptureStatusNone, "None (0)", after)?;
    let untouched = dst.iter().all(|&b| b == 0) && RUNS.load(Ordering::SeqCst) == before;
    cx.ensure("captured work does not run", untouched, "nothing ran", "the copy or the host function ran")?;
    let x = exec(cx, g)?;
    cx.expect_ok("hipGraphLaunch", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let ran = RUNS.load(Ordering::SeqCst) - before;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)?;
    destroy(cx, s)?;
    cx.free(dev)?;
    cx.ensure(
        "the launch did the captured work",
        dst == wanted(4) && ran == 1,
        "0x5a then 4, one host run",
        format!("{:?}, {ran} runs", &dst[N / 2 - 1..N / 2 + 1]),
    )
}

/// [HIP-GRF-010](vmmkit_sys::hip::rules::GRF_010).
pub fn synchronize_invalidates(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect("hipStreamSynchronize(capturing)", HipError::STREAM_CAPTURE_UNSUPPORTED, hip.hipStreamSynchronize(s))?;
    let st = status(cx, s)?;
    let r = hip.hipMemsetAsync(dev, 1, N, s);
    let mut g = ptr::null_mut();
    let e = end(cx, s, &mut g)?;
    cx.ensure("status after the synchronize", st == hipStreamCaptureStatusInvalidated, "Invalidated (2)", st)?;
    cx.expect("hipMemsetAsync(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, r)?;
    cx.expect("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, e)?;
    cx.ensure("no graph", g.is_null(), "NULL", format!("{g:p}"))?;
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect("hipStreamQuery(capturing)", HipError::STREAM_CAPTURE_UNSUPPORTED, hip.hipStreamQuery(s))?;
    cx.expect("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, end(cx, s, &mut g)?)?;
    destroy(cx, s)?;
    cx.free(dev)
}

/// [HIP-GRF-011](vmmkit_sys::hip::rules::GRF_011).
pub fn sync_calls_while_capturing(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    let host = vec![0u8; N];
    let mut g = ptr::null_mut();
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeRelaxed)?)?;
    let r = hip.hipMemcpy(dev, host.as_ptr().cast(), N, hipMemcpyHostToDevice);
    let e = end(cx, s, &mut g)?;
    cx.expect("hipMemcpy while a relaxed capture runs", HipError::STREAM_CAPTURE_IMPLICIT, r)?;
    cx.ensure_code("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, e)?;
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect("hipMemset while capturing", HipError::STREAM_CAPTURE_IMPLICIT, hip.hipMemset(dev, 0, N))?;
    cx.ensure_code("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, end(cx, s, &mut g)?)?;
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    cx.expect(
        "hipDeviceSynchronize while capturing",
        HipError::STREAM_CAPTURE_UNSUPPORTED,
        hip.hipDeviceSynchronize(),
    )?;
    cx.ensure_code("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, end(cx, s, &mut g)?)?;
    cx.expect_ok("hipMemcpy after the capture", hip.hipMemcpy(dev, host.as_ptr().cast(), N, hipMemcpyHostToDevice))?;
    destroy(cx, s)?;
    cx.free(dev)
}

/// [HIP-GRF-012](vmmkit_sys::hip::rules::GRF_012).
pub fn allocation_while_capturing(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let mut g = ptr::null_mut();
    let mut p = ptr::null_mut();
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    let r = hip.hipMalloc(&mut p, 64);
    let e = end(cx, s, &mut g)?;
    if r == 0 {
        setup("hipFree", hip.hipFree(p))?;
    }
    cx.expect_code("hipMalloc during a global capture", r)?;
    cx.ensure_code("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, e)?;
    let mut mode = hipStreamCaptureModeRelaxed;
    let xchg = |m: &mut hipStreamCaptureMode| {
        opt("hipThreadExchangeStreamCaptureMode", hip.hipThreadExchangeStreamCaptureMode(m))
    };
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    setup("hipThreadExchangeStreamCaptureMode", xchg(&mut mode)?)?;
    let r = hip.hipMalloc(&mut p, 64);
    let f = if r == 0 { hip.hipFree(p) } else { 0 };
    setup("hipThreadExchangeStreamCaptureMode", xchg(&mut mode)?)?;
    let e = end(cx, s, &mut g)?;
    cx.expect_ok("hipMalloc by a relaxed thread", r)?;
    cx.expect_ok("hipFree by a relaxed thread", f)?;
    cx.expect_ok("hipStreamEndCapture", e)?;
    drop_graph(cx, g)?;
    destroy(cx, s)
}

/// [HIP-GRF-013](vmmkit_sys::hip::rules::GRF_013).
pub fn fork_join(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (s, t) = (stream(cx, hipStreamNonBlocking)?, stream(cx, hipStreamNonBlocking)?);
    let dev = cx.malloc(N)?;
    let src = vec![6u8; N];
    let mut dst = vec![0u8; N];
    let (mut fork, mut join) = (ptr::null_mut(), ptr::null_mut());
    setup("hipEventCreate", hip.hipEventCreate(&mut fork))?;
    setup("hipEventCreate", hip.hipEventCreate(&mut join))?;
    let mut g = ptr::null_mut();
    // Queried while captured: 907.
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    setup("hipEventRecord", hip.hipEventRecord(fork, s))?;
    cx.expect("hipEventQuery(recorded in a capture)", HipError::CAPTURED_EVENT, hip.hipEventQuery(fork))?;
    cx.ensure_code("hipStreamEndCapture(invalidated)", HipError::STREAM_CAPTURE_INVALIDATED, end(cx, s, &mut g)?)?;
    // A fork that is not joined: 904.
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src.as_ptr().cast(), N, hipMemcpyHostToDevice, s))?;
    setup("hipEventRecord", hip.hipEventRecord(fork, s))?;
    setup("hipStreamWaitEvent", hip.hipStreamWaitEvent(t, fork, 0))?;
    setup("hipMemsetAsync", hip.hipMemsetAsync(dev, 0x5a, N / 2, t))?;
    cx.expect("hipStreamEndCapture(unjoined)", HipError::STREAM_CAPTURE_UNJOINED, end(cx, s, &mut g)?)?;
    // Joined: the graph runs both streams' work in order.
    setup("hipStreamBeginCapture", begin(cx, s, hipStreamCaptureModeGlobal)?)?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src.as_ptr().cast(), N, hipMemcpyHostToDevice, s))?;
    setup("hipEventRecord", hip.hipEventRecord(fork, s))?;
    setup("hipStreamWaitEvent", hip.hipStreamWaitEvent(t, fork, 0))?;
    setup("hipMemsetAsync", hip.hipMemsetAsync(dev, 0x5a, N / 2, t))?;
    setup("hipEventRecord", hip.hipEventRecord(join, t))?;
    setup("hipStreamWaitEvent", hip.hipStreamWaitEvent(s, join, 0))?;
    setup("hipMemcpyAsync", hip.hipMemcpyAsync(dst.as_mut_ptr().cast(), dev, N, hipMemcpyDeviceToHost, s))?;
    cx.expect_ok("hipStreamEndCapture(joined)", end(cx, s, &mut g)?)?;
    let x = exec(cx, g)?;
    setup("hipGraphLaunch", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)?;
    for e in [fork, join] {
        setup("hipEventDestroy", hip.hipEventDestroy(e))?;
    }
    destroy(cx, s)?;
    destroy(cx, t)?;
    cx.free(dev)?;
    cx.ensure("the joined graph's result", dst == wanted(6), "0x5a then 6", format!("{:?}", &dst[N / 2 - 1..N / 2 + 1]))
}

/// [HIP-GRF-014](vmmkit_sys::hip::rules::GRF_014).
pub fn memory_nodes(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let s = stream(cx, hipStreamNonBlocking)?;
    let g = graph(cx)?;
    let mut params = hipMemAllocNodeParams {
        poolProps: hipMemPoolProps {
            allocType: hipMemAllocationTypePinned,
            location: hipMemLocation { type_: hipMemLocationTypeDevice, id: 0 },
            ..Default::default()
        },
        accessDescs: ptr::null(),
        accessDescCount: 0,
        bytesize: 0,
        dptr: ptr::null_mut(),
    };
    let (mut a, mut f) = (ptr::null_mut(), ptr::null_mut());
    let alloc = |n: &mut hipGraphNode_t, p: &mut hipMemAllocNodeParams| {
        opt("hipGraphAddMemAllocNode", hip.hipGraphAddMemAllocNode(n, g, ptr::null(), 0, p))
    };
    cx.expect_code("hipGraphAddMemAllocNode(size 0)", alloc(&mut a, &mut params)?)?;
    params.bytesize = N;
    cx.expect_ok("hipGraphAddMemAllocNode", alloc(&mut a, &mut params)?)?;
    let plain = cx.malloc(64)?;
    let r = opt("hipGraphAddMemFreeNode", hip.hipGraphAddMemFreeNode(&mut f, g, &a, 1, plain))?;
    cx.expect_code("hipGraphAddMemFreeNode(memory of no allocation node)", r)?;
    let x = exec(cx, g)?;
    cx.expect_ok("hipGraphLaunch", opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let again = opt("hipGraphLaunch", hip.hipGraphLaunch(x, s))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    cx.expect("hipGraphLaunch(allocation not freed)", INVALID_VALUE, again)?;
    let r = opt("hipGraphAddMemFreeNode", hip.hipGraphAddMemFreeNode(&mut f, g, &a, 1, params.dptr))?;
    cx.expect_ok("hipGraphAddMemFreeNode", r)?;
    let mut x2 = ptr::null_mut();
    let r = opt("hipGraphInstantiate", hip.hipGraphInstantiate(&mut x2, g, ptr::null_mut(), ptr::null_mut(), 0))?;
    cx.expect("hipGraphInstantiate(again, memory nodes)", HipError::NOT_SUPPORTED, r)?;
    setup("hipGraphExecDestroy", opt("hipGraphExecDestroy", hip.hipGraphExecDestroy(x))?)?;
    drop_graph(cx, g)?;
    cx.free(plain)?;
    destroy(cx, s)
}

/// [HIP-GRF-015](vmmkit_sys::hip::rules::GRF_015).
pub fn node_queries(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut count = 0usize;
    let r = opt("hipGraphGetNodes", hip.hipGraphGetNodes(ptr::null_mut(), ptr::null_mut(), &mut count))?;
    cx.expect_code("hipGraphGetNodes(NULL graph)", r)?;
    let g = graph(cx)?;
    cx.expect_code(
        "hipGraphGetNodes(NULL count)",
        opt("hipGraphGetNodes", hip.hipGraphGetNodes(g, ptr::null_mut(), ptr::null_mut()))?,
    )?;
    let r = opt("hipGraphGetRootNodes", hip.hipGraphGetRootNodes(g, ptr::null_mut(), ptr::null_mut()))?;
    cx.expect_code("hipGraphGetRootNodes(NULL count)", r)?;
    let a = empty(cx, g, &[])?;
    let b = empty(cx, g, &[a])?;
    let c = empty(cx, g, &[])?;
    cx.expect_ok(
        "hipGraphGetNodes(count)",
        opt("hipGraphGetNodes", hip.hipGraphGetNodes(g, ptr::null_mut(), &mut count))?,
    )?;
    cx.ensure("nodes", count == 3, 3, count)?;
    let mut nodes = [ptr::null_mut(); 3];
    setup("hipGraphGetNodes", opt("hipGraphGetNodes", hip.hipGraphGetNodes(g, nodes.as_mut_ptr(), &mut count))?)?;
    let pos = |n| nodes.iter().position(|&x| x == n);
    cx.ensure("a before b", pos(a) < pos(b) && pos(b).is_some(), "a dependency order", format!("{nodes:?}"))?;
    let mut roots = [ptr::null_mut(); 4];
    let mut nroots = 4usize;
    let r = opt("hipGraphGetRootNodes", hip.hipGraphGetRootNodes(g, roots.as_mut_ptr(), &mut nroots))?;
    cx.expect_ok("hipGraphGetRootNodes", r)?;
    let got: Vec<_> = roots[..nroots.min(4)].to_vec();
    cx.ensure("roots", nroots == 2 && got.contains(&a) && got.contains(&c), "a and c", format!("{got:?}"))?;
    drop_graph(cx, g)
}
