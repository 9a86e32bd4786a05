//! CUDA graphs and stream capture through the emulator's CUDA table, on the
//! core's graph model that HIP uses too: a captured copy → host function →
//! memset → copy launched twice under every schedule, a graph of memsets,
//! a host node and event nodes, and the codes of bad input and of a
//! synchronize during a capture. Each test runs in its own process and
//! `VMMKIT_ROOT`.

mod common;
mod cuda_common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use common::isolated;
use cuda_common::{cu, setup};
use vmmkit_sys::cuda::*;

const N: usize = 4096;
const MODES: [&str; 3] = ["eager", "async", "adversarial:7"];

/// cuok!/cuexpect! for the optional functions of the table (the emulator has them all).
macro_rules! gcall {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let f = $api.$f.expect(stringify!($f));
        // SAFETY: valid pointers, or deliberately bad values the emulator rejects.
        CuResult(unsafe { f($($a),*) })
    }};
}

macro_rules! gok {
    ($api:expr, $($t:tt)*) => {{
        let rc = gcall!($api, $($t)*);
        assert_eq!(rc, CuResult::SUCCESS, "{}: {}", stringify!($($t)*), cuda_common::message());
    }};
}

static SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn note(user: *mut c_void) {
    SEEN.lock().unwrap().push(user as usize);
}

fn stream(api: &CudaApi) -> CUstream {
    let mut s = null_mut();
    cuok!(api, cuStreamCreate(&mut s, CU_STREAM_NON_BLOCKING));
    s
}

fn exec(api: &CudaApi, g: CUgraph) -> CUgraphExec {
    let mut x = null_mut();
    gok!(api, cuGraphInstantiateWithFlags(&mut x, g, 0));
    x
}

fn expected(src: u8) -> Vec<u8> {
    (0..N).map(|i| if i < N / 2 { 0x5a } else { src }).collect()
}

#[test]
fn a_captured_sequence_runs_at_each_launch_eager() {
    captured("a_captured_sequence_runs_at_each_launch_eager", MODES[0]);
}

#[test]
fn a_captured_sequence_runs_at_each_launch_async() {
    captured("a_captured_sequence_runs_at_each_launch_async", MODES[1]);
}

#[test]
fn a_captured_sequence_runs_at_each_launch_adversarial() {
    captured("a_captured_sequence_runs_at_each_launch_adversarial", MODES[2]);
}

fn captured(name: &str, mode: &'static str) {
    {
        isolated(name, &[("VMMKIT_DEVICES", "2"), ("VMMKIT_STREAMS", mode)], |_| {
            let api = cu();
            setup(&api, 0);
            let s = stream(&api);
            let mut dev = 0;
            cuok!(api, cuMemAlloc(&mut dev, N));
            let mut src = vec![1u8; N];
            let mut dst = vec![0u8; N];
            gok!(api, cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
            cuok!(api, cuMemcpyHtoDAsync(dev, src.as_ptr().cast(), N, s));
            cuok!(api, cuLaunchHostFunc(s, Some(note), 5 as *mut c_void));
            cuok!(api, cuMemsetD8Async(dev, 0x5a, N / 2, s));
            cuok!(api, cuMemcpyDtoHAsync(dst.as_mut_ptr().cast(), dev, N, s));
            let mut st = 9;
            gok!(api, cuStreamIsCapturing(s, &mut st));
            assert_eq!(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
            let mut g = null_mut();
            gok!(api, cuStreamEndCapture(s, &mut g));
            cuok!(api, cuStreamSynchronize(s));
            assert!(dst.iter().all(|&b| b == 0) && SEEN.lock().unwrap().is_empty(), "nothing ran");
            let x = exec(&api, g);
            gok!(api, cuGraphLaunch(x, s));
            cuok!(api, cuStreamSynchronize(s));
            assert_eq!(dst, expected(1), "{mode}: first launch");
            src.fill(2);
            gok!(api, cuGraphLaunch(x, s));
            cuok!(api, cuStreamSynchronize(s));
            assert_eq!(dst, expected(2), "{mode}: second launch");
            assert_eq!(*SEEN.lock().unwrap(), vec![5, 5]);
            gok!(api, cuGraphExecDestroy(x));
            gok!(api, cuGraphDestroy(g));
        });
    }
}

#[test]
fn a_built_graph_of_memsets_host_and_event_nodes() {
    isolated("a_built_graph_of_memsets_host_and_event_nodes", &[("VMMKIT_STREAMS", "adversarial:3")], |_| {
        let api = cu();
        setup(&api, 0);
        let (s, t) = (stream(&api), stream(&api));
        let mut dev = 0;
        cuok!(api, cuMemAlloc(&mut dev, N));
        let mut ev = null_mut();
        cuok!(api, cuEventCreate(&mut ev, 0));
        let mut g = null_mut();
        gok!(api, cuGraphCreate(&mut g, 0));
        let mut n = [null_mut(); 4];
        let all = CUDA_MEMSET_NODE_PARAMS { dst: dev, pitch: 0, value: 1, elementSize: 1, width: N, height: 1 };
        gok!(api, cuGraphAddMemsetNode(&mut n[0], g, null(), 0, &all, null_mut()));
        let host = CUDA_HOST_NODE_PARAMS { fn_: Some(note), userData: 8 as *mut c_void };
        gok!(api, cuGraphAddHostNode(&mut n[1], g, &n[0], 1, &host));
        // Two rows of 16 bytes of 0x0707 (2-byte elements), 1024 bytes apart.
        let rows =
            CUDA_MEMSET_NODE_PARAMS { dst: dev, pitch: 1024, value: 0x0707, elementSize: 2, width: 8, height: 2 };
        gok!(api, cuGraphAddMemsetNode(&mut n[2], g, &n[1], 1, &rows, null_mut()));
        gok!(api, cuGraphAddEventRecordNode(&mut n[3], g, &n[2], 1, ev));
        let x = exec(&api, g);
        gok!(api, cuGraphLaunch(x, s));
        // Another stream waits for the graph's record, then reads.
        cuok!(api, cuStreamWaitEvent(t, ev, 0));
        let mut dst = vec![0u8; N];
        cuok!(api, cuMemcpyDtoHAsync(dst.as_mut_ptr().cast(), dev, N, t));
        cuok!(api, cuStreamSynchronize(t));
        let want: Vec<u8> = (0..N).map(|i| if i < 16 || (1024..1040).contains(&i) { 7 } else { 1 }).collect();
        assert_eq!(dst, want);
        assert_eq!(*SEEN.lock().unwrap(), vec![8]);
        gok!(api, cuGraphExecDestroy(x));
        gok!(api, cuGraphDestroy(g));
    });
}

#[test]
fn bad_input_and_a_synchronize_during_capture() {
    isolated("bad_input_and_a_synchronize_during_capture", &[], |_| {
        let api = cu();
        setup(&api, 0);
        let s = stream(&api);
        assert_eq!(gcall!(api, cuGraphCreate(null_mut(), 0)), CuResult::INVALID_VALUE);
        let mut g = null_mut();
        assert_eq!(gcall!(api, cuGraphCreate(&mut g, 2)), CuResult::INVALID_VALUE);
        gok!(api, cuGraphCreate(&mut g, 0));
        let mut n = null_mut();
        assert_eq!(gcall!(api, cuGraphAddEmptyNode(&mut n, g, null(), 1)), CuResult::INVALID_VALUE);
        let bad = CUDA_MEMSET_NODE_PARAMS { dst: 0x1000, pitch: 0, value: 0, elementSize: 1, width: 8, height: 1 };
        assert_eq!(gcall!(api, cuGraphAddMemsetNode(&mut n, g, null(), 0, &bad, null_mut())), CuResult::INVALID_VALUE);
        assert_eq!(gcall!(api, cuGraphLaunch(null_mut(), s)), CuResult::INVALID_VALUE);
        assert_eq!(gcall!(api, cuStreamBeginCapture(CU_STREAM_LEGACY, 0)), CuResult::INVALID_VALUE);
        let mut out = null_mut();
        assert_eq!(gcall!(api, cuStreamEndCapture(s, &mut out)), CuResult::ILLEGAL_STATE);
        gok!(api, cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        assert_eq!(cucall!(api, cuStreamSynchronize(s)), CuResult::STREAM_CAPTURE_UNSUPPORTED);
        let mut st = 0;
        gok!(api, cuStreamIsCapturing(s, &mut st));
        assert_eq!(st, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
        let mut dev = 0;
        cuok!(api, cuMemAlloc(&mut dev, 64));
        assert_eq!(cucall!(api, cuMemsetD8Async(dev, 0, 64, s)), CuResult::STREAM_CAPTURE_INVALIDATED);
        out = 1 as CUgraph;
        assert_eq!(gcall!(api, cuStreamEndCapture(s, &mut out)), CuResult::STREAM_CAPTURE_INVALIDATED);
        assert!(out.is_null());
        // The stream runs work again.
        cuok!(api, cuMemsetD8Async(dev, 0, 64, s));
        cuok!(api, cuStreamSynchronize(s));
        gok!(api, cuGraphDestroy(g));
    });
}
