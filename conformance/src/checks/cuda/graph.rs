//! CUDA-GRF: graphs and stream capture of memsets, copies, host functions
//! and events (the driver API's Graph Management and cuStream*Capture).
//! No check launches a kernel.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use vmmkit_sys::cuda::*;

use super::stream::{destroy, stream};
use crate::cuda::{Ctx, setup};
use crate::outcome::Failure;

const N: usize = 4096;

fn opt(name: &str, r: Option<CUresult>) -> Result<CUresult, Failure> {
    r.ok_or_else(|| Failure::NotSupported(format!("the library has no {name}")))
}

static RUNS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_run(_: *mut c_void) {
    RUNS.fetch_add(1, Ordering::SeqCst);
}

fn graph(cx: &Ctx) -> Result<CUgraph, Failure> {
    let mut g = ptr::null_mut();
    setup("cuGraphCreate", opt("cuGraphCreate", cx.cuda().cuGraphCreate(&mut g, 0))?)?;
    Ok(g)
}

fn exec(cx: &Ctx, g: CUgraph) -> Result<CUgraphExec, Failure> {
    let mut x = ptr::null_mut();
    setup(
        "cuGraphInstantiateWithFlags",
        opt("cuGraphInstantiateWithFlags", cx.cuda().cuGraphInstantiateWithFlags(&mut x, g, 0))?,
    )?;
    Ok(x)
}

fn drop_all(cx: &Ctx, x: CUgraphExec, g: CUgraph) -> Result<(), Failure> {
    setup("cuGraphExecDestroy", opt("cuGraphExecDestroy", cx.cuda().cuGraphExecDestroy(x))?)?;
    setup("cuGraphDestroy", opt("cuGraphDestroy", cx.cuda().cuGraphDestroy(g))?)
}

fn memset(dst: CUdeviceptr, value: u8, width: usize) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS { dst, pitch: 0, value: u32::from(value), elementSize: 1, width, height: 1 }
}

fn read(cx: &Ctx, p: CUdeviceptr) -> Result<Vec<u8>, Failure> {
    let mut b = vec![0u8; N];
    setup("cuMemcpyDtoH", cx.cuda().cuMemcpyDtoH(b.as_mut_ptr().cast(), p, N))?;
    Ok(b)
}

/// [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001).
pub fn create_and_add_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cu = cx.cuda();
    cx.expect_code("cuGraphCreate(NULL)", opt("cuGraphCreate", cu.cuGraphCreate(ptr::null_mut(), 0))?)?;
    let mut g = ptr::null_mut();
    cx.expect_code("cuGraphCreate(flags 1)", opt("cuGraphCreate", cu.cuGraphCreate(&mut g, 1))?)?;
    let (g, other) = (graph(cx)?, graph(cx)?);
    let mut n = ptr::null_mut();
    let add_empty = |n: *mut CUgraphNode, g: CUgraph, d: *const CUgraphNode, k: usize| {
        opt("cuGraphAddEmptyNode", cu.cuGraphAddEmptyNode(n, g, d, k))
    };
    cx.expect_code("cuGraphAddEmptyNode(NULL node)", add_empty(ptr::null_mut(), g, ptr::null(), 0)?)?;
    cx.expect_code("cuGraphAddEmptyNode(NULL graph)", add_empty(&mut n, ptr::null_mut(), ptr::null(), 0)?)?;
    cx.expect_code("cuGraphAddEmptyNode(NULL deps, 1)", add_empty(&mut n, g, ptr::null(), 1)?)?;
    let mut foreign = ptr::null_mut();
    setup("cuGraphAddEmptyNode", add_empty(&mut foreign, other, ptr::null(), 0)?)?;
    cx.expect_code("cuGraphAddEmptyNode(a node of another graph)", add_empty(&mut n, g, &foreign, 1)?)?;
    let no_fn = CUDA_HOST_NODE_PARAMS { fn_: None, userData: ptr::null_mut() };
    let r = opt("cuGraphAddHostNode", cu.cuGraphAddHostNode(&mut n, g, ptr::null(), 0, &no_fn))?;
    cx.expect_code("cuGraphAddHostNode(NULL fn)", r)?;
    let r =
        opt("cuGraphAddMemsetNode", cu.cuGraphAddMemsetNode(&mut n, g, ptr::null(), 0, ptr::null(), ptr::null_mut()))?;
    cx.expect_code("cuGraphAddMemsetNode(NULL params)", r)?;
    let r = opt("cuGraphAddEventRecordNode", cu.cuGraphAddEventRecordNode(&mut n, g, ptr::null(), 0, ptr::null_mut()))?;
    cx.expect_code("cuGraphAddEventRecordNode(NULL event)", r)?;
    cx.expect_code("cuGraphDestroy(NULL)", opt("cuGraphDestroy", cu.cuGraphDestroy(ptr::null_mut()))?)?;
    cx.expect_ok("cuGraphAddEmptyNode(valid)", add_empty(&mut n, g, ptr::null(), 0)?)?;
    setup("cuGraphDestroy", opt("cuGraphDestroy", cu.cuGraphDestroy(g))?)?;
    setup("cuGraphDestroy", opt("cuGraphDestroy", cu.cuGraphDestroy(other))?)
}

/// [CUDA-GRF-002](vmmkit_sys::cuda::rules::GRF_002).
pub fn launch_order(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cu = cx.cuda();
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let dev = cx.alloc(N)?;
    let (mut ev, g) = (ptr::null_mut(), graph(cx)?);
    setup("cuEventCreate", cu.cuEventCreate(&mut ev, 0))?;
    let mut n = [ptr::null_mut(); 4];
    let p = memset(dev, 1, N);
    setup(
        "cuGraphAddMemsetNode",
        opt("cuGraphAddMemsetNode", cu.cuGraphAddMemsetNode(&mut n[0], g, ptr::null(), 0, &p, ptr::null_mut()))?,
    )?;
    let host = CUDA_HOST_NODE_PARAMS { fn_: Some(count_run), userData: ptr::null_mut() };
    setup("cuGraphAddHostNode", opt("cuGraphAddHostNode", cu.cuGraphAddHostNode(&mut n[1], g, &n[0], 1, &host))?)?;
    let p2 = memset(dev, 2, N / 2);
    setup(
        "cuGraphAddMemsetNode",
        opt("cuGraphAddMemsetNode", cu.cuGraphAddMemsetNode(&mut n[2], g, &n[1], 1, &p2, ptr::null_mut()))?,
    )?;
    setup(
        "cuGraphAddEventRecordNode",
        opt("cuGraphAddEventRecordNode", cu.cuGraphAddEventRecordNode(&mut n[3], g, &n[2], 1, ev))?,
    )?;
    let x = exec(cx, g)?;
    let before = RUNS.load(Ordering::SeqCst);
    cx.expect_ok("cuGraphLaunch", opt("cuGraphLaunch", cu.cuGraphLaunch(x, s))?)?;
    cx.expect_ok("cuGraphLaunch(again)", opt("cuGraphLaunch", cu.cuGraphLaunch(x, s))?)?;
    setup("cuEventSynchronize", cu.cuEventSynchronize(ev))?;
    let got = read(cx, dev)?;
    let runs = RUNS.load(Ordering::SeqCst) - before;
    drop_all(cx, x, g)?;
    setup("cuEventDestroy", cu.cuEventDestroy(ev))?;
    destroy(cx, s)?;
    cx.free(dev)?;
    let ok = got[..N / 2].iter().all(|&b| b == 2) && got[N / 2..].iter().all(|&b| b == 1);
    cx.ensure("the fills in dependency order", ok, "2 then 1", format!("{:?}", &got[N / 2 - 1..N / 2 + 1]))?;
    cx.ensure("the host node ran at each launch", runs == 2, 2, runs)
}

/// [CUDA-GRF-003](vmmkit_sys::cuda::rules::GRF_003).
pub fn instantiate_launch_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cu = cx.cuda();
    let g = graph(cx)?;
    let mut x = ptr::null_mut();
    let r = opt("cuGraphInstantiateWithFlags", cu.cuGraphInstantiateWithFlags(ptr::null_mut(), g, 0))?;
    cx.expect_code("cuGraphInstantiateWithFlags(NULL exec)", r)?;
    let r = opt("cuGraphInstantiateWithFlags", cu.cuGraphInstantiateWithFlags(&mut x, ptr::null_mut(), 0))?;
    cx.expect_code("cuGraphInstantiateWithFlags(NULL graph)", r)?;
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    cx.expect_code("cuGraphLaunch(NULL)", opt("cuGraphLaunch", cu.cuGraphLaunch(ptr::null_mut(), s))?)?;
    cx.expect_code("cuGraphExecDestroy(NULL)", opt("cuGraphExecDestroy", cu.cuGraphExecDestroy(ptr::null_mut()))?)?;
    let x = exec(cx, g)?;
    cx.expect_ok("cuGraphLaunch(empty graph)", opt("cuGraphLaunch", cu.cuGraphLaunch(x, s))?)?;
    setup("cuStreamSynchronize", cu.cuStreamSynchronize(s))?;
    drop_all(cx, x, g)?;
    destroy(cx, s)
}

fn begin(cx: &Ctx, s: CUstream, mode: CUstreamCaptureMode) -> Result<CUresult, Failure> {
    opt("cuStreamBeginCapture", cx.cuda().cuStreamBeginCapture(s, mode))
}

fn end(cx: &Ctx, s: CUstream, g: *mut CUgraph) -> Result<CUresult, Failure> {
    opt("cuStreamEndCapture", cx.cuda().cuStreamEndCapture(s, g))
}

/// [CUDA-GRF-004](vmmkit_sys::cuda::rules::GRF_004).
pub fn capture_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    cx.expect("cuStreamBeginCapture(legacy)", CuResult::INVALID_VALUE, begin(cx, CU_STREAM_LEGACY, 0)?)?;
    cx.expect("cuStreamBeginCapture(mode 7)", CuResult::INVALID_VALUE, begin(cx, s, 7)?)?;
    let mut g = ptr::null_mut();
    cx.expect("cuStreamEndCapture(not capturing)", CuResult::ILLEGAL_STATE, end(cx, s, &mut g)?)?;
    cx.expect_ok("cuStreamBeginCapture", begin(cx, s, CU_STREAM_CAPTURE_MODE_GLOBAL)?)?;
    cx.expect(
        "cuStreamBeginCapture(capturing)",
        CuResult::ILLEGAL_STATE,
        begin(cx, s, CU_STREAM_CAPTURE_MODE_GLOBAL)?,
    )?;
    cx.expect("cuStreamEndCapture(NULL graph)", CuResult::INVALID_VALUE, end(cx, s, ptr::null_mut())?)?;
    cx.expect_ok("cuStreamEndCapture", end(cx, s, &mut g)?)?;
    setup("cuGraphDestroy", opt("cuGraphDestroy", cx.cuda().cuGraphDestroy(g))?)?;
    destroy(cx, s)
}

/// [CUDA-GRF-005](vmmkit_sys::cuda::rules::GRF_005).
pub fn capture_runs_at_launch(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cu = cx.cuda();
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let dev = cx.alloc(N)?;
    let src = vec![4u8; N];
    let mut dst = vec![0u8; N];
    setup("cuStreamBeginCapture", begin(cx, s, CU_STREAM_CAPTURE_MODE_GLOBAL)?)?;
    let mut st = 9;
    setup("cuStreamIsCapturing", opt("cuStreamIsCapturing", cu.cuStreamIsCapturing(s, &mut st))?)?;
    let before = RUNS.load(Ordering::SeqCst);
    setup("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(dev, src.as_ptr().cast(), N, s))?;
    setup("cuLaunchHostFunc", cu.cuLaunchHostFunc(s, Some(count_run), ptr::null_mut()))?;
    setup("cuMemsetD8Async", cu.cuMemsetD8Async(dev, 0x5a, N / 2, s))?;
    setup("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(dst.as_mut_ptr().cast(), dev, N, s))?;
    let mut g = ptr::null_mut();
    cx.expect_ok("cuStreamEndCapture", end(cx, s, &mut g)?)?;
    cx.ensure("status while capturing", st == CU_STREAM_CAPTURE_STATUS_ACTIVE, "Active (1)", st)?;
    let untouched = dst.iter().all(|&b| b == 0) && RUNS.load(Ordering::SeqCst) == before;
    cx.ensure("captured work does not run", untouched, "nothing ran", "the copy or the host function ran")?;
    let x = exec(cx, g)?;
    cx.expect_ok("cuGraphLaunch", opt("cuGraphLaunch", cu.cuGraphLaunch(x, s))?)?;
    setup("cuStreamSynchronize", cu.cuStreamSynchronize(s))?;
    let ran = RUNS.load(Ordering::SeqCst) - before;
    drop_all(cx, x, g)?;
    destroy(cx, s)?;
    cx.free(dev)?;
    let want: Vec<u8> = (0..N).map(|i| if i < N / 2 { 0x5a } else { 4 }).collect();
    cx.ensure(
        "the launch did the captured work",
        dst == want && ran == 1,
        "0x5a then 4, one host run",
        format!("{:?}, {ran} runs", &dst[N / 2 - 1..N / 2 + 1]),
    )
}

/// [CUDA-GRF-006](vmmkit_sys::cuda::rules::GRF_006).
pub fn synchronize_invalidates(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cu = cx.cuda();
    let s = stream(cx, CU_STREAM_NON_BLOCKING)?;
    let dev = cx.alloc(N)?;
    setup("cuStreamBeginCapture", begin(cx, s, CU_STREAM_CAPTURE_MODE_GLOBAL)?)?;
    cx.expect("cuStreamSynchronize(capturing)", CuResult::STREAM_CAPTURE_UNSUPPORTED, cu.cuStreamSynchronize(s))?;
    let r = cu.cuMemsetD8Async(dev, 1, N, s);
    let mut g = 1 as CUgraph;
    let e = end(cx, s, &mut g)?;
    cx.expect("cuMemsetD8Async(invalidated)", CuResult::STREAM_CAPTURE_INVALIDATED, r)?;
    cx.expect("cuStreamEndCapture(invalidated)", CuResult::STREAM_CAPTURE_INVALIDATED, e)?;
    cx.ensure("no graph", g.is_null(), "NULL", format!("{g:p}"))?;
    setup("cuStreamBeginCapture", begin(cx, s, CU_STREAM_CAPTURE_MODE_GLOBAL)?)?;
    cx.expect("cuStreamQuery(capturing)", CuResult::STREAM_CAPTURE_UNSUPPORTED, cu.cuStreamQuery(s))?;
    cx.expect("cuStreamEndCapture(invalidated)", CuResult::STREAM_CAPTURE_INVALIDATED, end(cx, s, &mut g)?)?;
    destroy(cx, s)?;
    cx.free(dev)
}
