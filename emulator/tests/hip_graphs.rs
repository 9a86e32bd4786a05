//! HIP graphs and stream capture through the HIP table: a graph of copy →
//! host function → fill → copy launched twice (eager and adversarial
//! schedules), the same sequence captured from a stream, event nodes, a
//! capture that forks and joins, allocation and free nodes, and the codes
//! of bad input and of calls a capture forbids. Each test runs in its own
//! process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use common::isolated;
use hip_common::hip;
use vmmkit_sys::hip::*;

/// hok! for the optional functions of the table (the emulator has them all).
macro_rules! gok {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let f = $api.$f.expect(stringify!($f));
        // SAFETY: valid pointers, or deliberately bad values the emulator rejects.
        let rc = HipError(unsafe { f($($a),*) });
        assert_eq!(rc, HipError::SUCCESS, "{} failed: {}", stringify!($f), hip_common::message());
    }};
}

/// hexpect! for the optional functions of the table.
macro_rules! gexpect {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? ), $want:expr) => {{
        let f = $api.$f.expect(stringify!($f));
        // SAFETY: valid pointers, or deliberately bad values the emulator rejects.
        let rc = HipError(unsafe { f($($a),*) });
        assert_eq!(rc, $want, "{}: expected {}, got {} ({})", stringify!($f), $want, rc, hip_common::message());
    }};
}

const ADVERSARIAL: &[(&str, &str)] = &[("VMMKIT_STREAMS", "adversarial:7"), ("VMMKIT_DEVICES", "2")];
const EAGER: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2")];
const N: usize = 4096;

/// What the host functions saw, in order.
static SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn note(user: *mut c_void) {
    SEEN.lock().unwrap().push(user as usize);
}

fn seen() -> Vec<usize> {
    SEEN.lock().unwrap().clone()
}

fn stream(api: &HipApi) -> hipStream_t {
    let mut s = null_mut();
    hok!(api, hipStreamCreateWithFlags(&mut s, hipStreamNonBlocking));
    s
}

fn graph(api: &HipApi) -> hipGraph_t {
    let mut g = null_mut();
    gok!(api, hipGraphCreate(&mut g, 0));
    g
}

fn exec(api: &HipApi, g: hipGraph_t) -> hipGraphExec_t {
    let mut x = null_mut();
    gok!(api, hipGraphInstantiate(&mut x, g, null_mut(), null_mut(), 0));
    x
}

fn memset_params(dst: *mut c_void, value: u8, width: usize) -> hipMemsetParams {
    hipMemsetParams { dst, elementSize: 1, height: 1, pitch: 0, value: u32::from(value), width }
}

/// Device memory, a source and a destination host buffer.
struct Bufs {
    dev: *mut c_void,
    src: Vec<u8>,
    dst: Vec<u8>,
}

fn bufs(api: &HipApi) -> Bufs {
    let mut dev = null_mut();
    hok!(api, hipMalloc(&mut dev, N));
    Bufs { dev, src: vec![1u8; N], dst: vec![0u8; N] }
}

/// What the destination must hold after copy(src) → fill(first half, 0x5a) → copy back.
fn expected(src: u8) -> Vec<u8> {
    (0..N).map(|i| if i < N / 2 { 0x5a } else { src }).collect()
}

/// Adds H2D copy → host function → fill → D2H copy, each after the one before.
fn build(api: &HipApi, g: hipGraph_t, b: &mut Bufs) -> [hipGraphNode_t; 4] {
    let mut n = [null_mut(); 4];
    gok!(api, hipGraphAddMemcpyNode1D(&mut n[0], g, null(), 0, b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice));
    let host = hipHostNodeParams { fn_: Some(note), userData: 7 as *mut c_void };
    gok!(api, hipGraphAddHostNode(&mut n[1], g, &n[0], 1, &host));
    let set = memset_params(b.dev, 0x5a, N / 2);
    gok!(api, hipGraphAddMemsetNode(&mut n[2], g, &n[1], 1, &set));
    gok!(
        api,
        hipGraphAddMemcpyNode1D(&mut n[3], g, &n[2], 1, b.dst.as_mut_ptr().cast(), b.dev, N, hipMemcpyDeviceToHost)
    );
    n
}

fn launched_twice(env: &'static [(&'static str, &'static str)], name: &str) {
    isolated(name, env, |_| {
        let api = hip();
        let s = stream(&api);
        let mut b = bufs(&api);
        let g = graph(&api);
        build(&api, g, &mut b);
        let mut count = 0usize;
        gok!(api, hipGraphGetNodes(g, null_mut(), &mut count));
        assert_eq!(count, 4);
        let mut roots = [null_mut(); 2];
        let mut nroots = 2usize;
        gok!(api, hipGraphGetRootNodes(g, roots.as_mut_ptr(), &mut nroots));
        assert_eq!(nroots, 1);
        let x = exec(&api, g);
        assert!(seen().is_empty(), "nothing runs before the launch");
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        assert_eq!(b.dst, expected(1), "first launch");
        // The same exec again, with new source data: it runs again, in order.
        b.src.fill(2);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        assert_eq!(b.dst, expected(2), "second launch");
        assert_eq!(seen(), vec![7, 7], "the host node ran once per launch");
        gok!(api, hipGraphExecDestroy(x));
        gok!(api, hipGraphDestroy(g));
        hok!(api, hipFree(b.dev));
        hok!(api, hipStreamDestroy(s));
    });
}

#[test]
fn a_graph_of_copy_host_fill_copy_runs_in_order_at_each_launch() {
    launched_twice(EAGER, "a_graph_of_copy_host_fill_copy_runs_in_order_at_each_launch");
}

#[test]
fn under_the_adversarial_schedule_a_graph_keeps_its_node_order() {
    launched_twice(ADVERSARIAL, "under_the_adversarial_schedule_a_graph_keeps_its_node_order");
}

#[test]
fn a_launch_runs_in_stream_order_with_other_work() {
    isolated("a_launch_runs_in_stream_order_with_other_work", ADVERSARIAL, |_| {
        let api = hip();
        let s = stream(&api);
        let mut b = bufs(&api);
        let g = graph(&api);
        let mut n = null_mut();
        let set = memset_params(b.dev, 9, N);
        gok!(api, hipGraphAddMemsetNode(&mut n, g, null(), 0, &set));
        let x = exec(&api, g);
        // Copy in 1s, launch the fill of 9s, copy out: the copy out sees the 9s.
        hok!(api, hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s));
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipMemcpyAsync(b.dst.as_mut_ptr().cast(), b.dev, N, hipMemcpyDeviceToHost, s));
        hok!(api, hipStreamSynchronize(s));
        assert!(b.dst.iter().all(|&v| v == 9));
    });
}

fn capture_sequence(api: &HipApi, s: hipStream_t, b: &mut Bufs) {
    hok!(api, hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s));
    gok!(api, hipLaunchHostFunc(s, Some(note), 9 as *mut c_void));
    hok!(api, hipMemsetAsync(b.dev, 0x5a, N / 2, s));
    hok!(api, hipMemcpyAsync(b.dst.as_mut_ptr().cast(), b.dev, N, hipMemcpyDeviceToHost, s));
}

#[test]
fn a_captured_sequence_runs_only_when_its_graph_is_launched() {
    isolated("a_captured_sequence_runs_only_when_its_graph_is_launched", ADVERSARIAL, |_| {
        let api = hip();
        let s = stream(&api);
        let mut b = bufs(&api);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        let mut st = hipStreamCaptureStatusNone;
        gok!(api, hipStreamIsCapturing(s, &mut st));
        assert_eq!(st, hipStreamCaptureStatusActive);
        let mut id = 0u64;
        gok!(api, hipStreamGetCaptureInfo(s, &mut st, &mut id));
        assert_ne!(id, 0);
        capture_sequence(&api, s, &mut b);
        let mut g = null_mut();
        gok!(api, hipStreamEndCapture(s, &mut g));
        assert!(!g.is_null());
        gok!(api, hipStreamIsCapturing(s, &mut st));
        assert_eq!(st, hipStreamCaptureStatusNone);
        hok!(api, hipStreamSynchronize(s));
        assert!(b.dst.iter().all(|&v| v == 0) && seen().is_empty(), "captured work did not run");
        let mut count = 0usize;
        gok!(api, hipGraphGetNodes(g, null_mut(), &mut count));
        assert_eq!(count, 4);
        let x = exec(&api, g);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        assert_eq!(b.dst, expected(1));
        b.src.fill(3);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        assert_eq!(b.dst, expected(3));
        assert_eq!(seen(), vec![9, 9]);
        gok!(api, hipGraphExecDestroy(x));
        gok!(api, hipGraphDestroy(g));
    });
}

#[test]
fn bad_graph_input_gets_clrs_codes() {
    isolated("bad_graph_input_gets_clrs_codes", EAGER, |_| {
        let api = hip();
        let s = stream(&api);
        gexpect!(api, hipGraphCreate(null_mut(), 0), HipError::INVALID_VALUE);
        let mut g = null_mut();
        gexpect!(api, hipGraphCreate(&mut g, 1), HipError::INVALID_VALUE);
        let (g, other) = (graph(&api), graph(&api));
        let mut n = null_mut();
        gexpect!(api, hipGraphAddEmptyNode(null_mut(), g, null(), 0), HipError::INVALID_VALUE);
        gexpect!(api, hipGraphAddEmptyNode(&mut n, null_mut(), null(), 0), HipError::INVALID_VALUE);
        gexpect!(api, hipGraphAddEmptyNode(&mut n, g, null(), 1), HipError::INVALID_VALUE);
        let host = hipHostNodeParams { fn_: None, userData: null_mut() };
        gexpect!(api, hipGraphAddHostNode(&mut n, g, null(), 0, &host), HipError::INVALID_VALUE);
        gexpect!(api, hipGraphAddEventRecordNode(&mut n, g, null(), 0, null_mut()), HipError::INVALID_VALUE);
        // A dependency of another graph, and one named twice.
        let mut foreign = null_mut();
        gok!(api, hipGraphAddEmptyNode(&mut foreign, other, null(), 0));
        gexpect!(api, hipGraphAddEmptyNode(&mut n, g, &foreign, 1), HipError::INVALID_VALUE);
        let mut a = null_mut();
        gok!(api, hipGraphAddEmptyNode(&mut a, g, null(), 0));
        let twice = [a, a];
        gexpect!(api, hipGraphAddEmptyNode(&mut n, g, twice.as_ptr(), 2), HipError::INVALID_VALUE);
        // Copy and fill parameters.
        let mut dev = null_mut();
        hok!(api, hipMalloc(&mut dev, N));
        let host_buf = vec![0u8; N];
        gexpect!(
            api,
            hipGraphAddMemcpyNode1D(&mut n, g, null(), 0, dev, host_buf.as_ptr().cast(), 0, hipMemcpyHostToDevice),
            HipError::INVALID_VALUE
        );
        let mut set = memset_params(dev, 1, N);
        set.elementSize = 3;
        gexpect!(api, hipGraphAddMemsetNode(&mut n, g, null(), 0, &set), HipError::INVALID_VALUE);
        let mut count = 0usize;
        gexpect!(api, hipGraphGetNodes(null_mut(), null_mut(), &mut count), HipError::INVALID_VALUE);
        gok!(api, hipGraphGetNodes(g, null_mut(), &mut count));
        assert_eq!(count, 1, "refused adds add nothing");
        // Instantiate, launch, destroy.
        let mut x = null_mut();
        gexpect!(api, hipGraphInstantiate(null_mut(), g, null_mut(), null_mut(), 0), HipError::INVALID_VALUE);
        gexpect!(api, hipGraphInstantiateWithFlags(&mut x, g, 16), HipError::INVALID_VALUE);
        gexpect!(api, hipGraphLaunch(null_mut(), s), HipError::INVALID_VALUE);
        let x = exec(&api, g);
        gexpect!(api, hipGraphExecDestroy(null_mut()), HipError::INVALID_VALUE);
        // A graph destroyed while its exec lives: the exec still runs.
        gok!(api, hipGraphDestroy(g));
        gexpect!(api, hipGraphDestroy(g), HipError::ILLEGAL_STATE);
        gexpect!(api, hipGraphDestroy(null_mut()), HipError::INVALID_VALUE);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        gok!(api, hipGraphExecDestroy(x));
        gexpect!(api, hipGraphLaunch(x, s), HipError::INVALID_VALUE);
        // Capture on the legacy stream, a bad mode, twice, an end without a begin.
        gexpect!(
            api,
            hipStreamBeginCapture(null_mut(), hipStreamCaptureModeGlobal),
            HipError::STREAM_CAPTURE_UNSUPPORTED
        );
        gexpect!(api, hipStreamBeginCapture(s, 7), HipError::INVALID_VALUE);
        let mut out = null_mut();
        gexpect!(api, hipStreamEndCapture(s, &mut out), HipError::ILLEGAL_STATE);
        gexpect!(api, hipStreamEndCapture(s, null_mut()), HipError::INVALID_VALUE);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        gexpect!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), HipError::ILLEGAL_STATE);
        gok!(api, hipStreamEndCapture(s, &mut out));
        gok!(api, hipGraphDestroy(out));
        gok!(api, hipGraphDestroy(other));
        hok!(api, hipFree(dev));
    });
}

#[test]
fn a_synchronize_of_a_capturing_stream_invalidates_the_capture() {
    isolated("a_synchronize_of_a_capturing_stream_invalidates_the_capture", EAGER, |_| {
        let api = hip();
        let s = stream(&api);
        let mut b = bufs(&api);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hexpect!(api, hipStreamSynchronize(s), HipError::STREAM_CAPTURE_UNSUPPORTED);
        let mut st = hipStreamCaptureStatusNone;
        gok!(api, hipStreamIsCapturing(s, &mut st));
        assert_eq!(st, hipStreamCaptureStatusInvalidated);
        hexpect!(
            api,
            hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s),
            HipError::STREAM_CAPTURE_INVALIDATED
        );
        let mut g = 1 as hipGraph_t;
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_INVALIDATED);
        assert!(g.is_null());
        // The stream works again after the capture ended.
        hok!(api, hipMemcpyAsync(b.dst.as_mut_ptr().cast(), b.dev, N, hipMemcpyDeviceToHost, s));
        hok!(api, hipStreamSynchronize(s));
        let _ = &mut b;
    });
}

#[test]
fn synchronous_copies_and_allocations_break_a_global_capture() {
    isolated("synchronous_copies_and_allocations_break_a_global_capture", EAGER, |_| {
        let api = hip();
        let s = stream(&api);
        let b = bufs(&api);
        let mut g = null_mut();
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hexpect!(
            api,
            hipMemcpy(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice),
            HipError::STREAM_CAPTURE_IMPLICIT
        );
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_INVALIDATED);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        let mut p = null_mut();
        hexpect!(api, hipMalloc(&mut p, 64), HipError::STREAM_CAPTURE_UNSUPPORTED);
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_INVALIDATED);
        // A relaxed thread may allocate; the capture goes on.
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        let mut mode = hipStreamCaptureModeRelaxed;
        gok!(api, hipThreadExchangeStreamCaptureMode(&mut mode));
        hok!(api, hipMalloc(&mut p, 64));
        hok!(api, hipFree(p));
        gok!(api, hipThreadExchangeStreamCaptureMode(&mut mode));
        hexpect!(api, hipDeviceSynchronize(), HipError::STREAM_CAPTURE_UNSUPPORTED);
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_INVALIDATED);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed));
        hok!(api, hipMalloc(&mut p, 64));
        hok!(api, hipFree(p));
        gok!(api, hipStreamEndCapture(s, &mut g));
        gok!(api, hipGraphDestroy(g));
    });
}

#[test]
fn a_capture_forks_and_joins_through_events() {
    isolated("a_capture_forks_and_joins_through_events", ADVERSARIAL, |_| {
        let api = hip();
        let (s, t) = (stream(&api), stream(&api));
        let mut b = bufs(&api);
        let (mut fork, mut join) = (null_mut(), null_mut());
        hok!(api, hipEventCreate(&mut fork));
        hok!(api, hipEventCreate(&mut join));
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hok!(api, hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s));
        hok!(api, hipEventRecord(fork, s));
        hexpect!(api, hipEventQuery(fork), HipError::CAPTURED_EVENT);
        // The capture was invalidated by the query: start again.
        let mut g = null_mut();
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_INVALIDATED);
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hok!(api, hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s));
        hok!(api, hipEventRecord(fork, s));
        hok!(api, hipStreamWaitEvent(t, fork, 0));
        let mut st = hipStreamCaptureStatusNone;
        gok!(api, hipStreamIsCapturing(t, &mut st));
        assert_eq!(st, hipStreamCaptureStatusActive, "the waiting stream joined the capture");
        hok!(api, hipMemsetAsync(b.dev, 0x5a, N / 2, t));
        // Ending before the join: the forked work is unjoined.
        gexpect!(api, hipStreamEndCapture(t, &mut g), HipError::STREAM_CAPTURE_UNMATCHED);
        hok!(api, hipEventRecord(join, t));
        hok!(api, hipStreamWaitEvent(s, join, 0));
        hok!(api, hipMemcpyAsync(b.dst.as_mut_ptr().cast(), b.dev, N, hipMemcpyDeviceToHost, s));
        gok!(api, hipStreamEndCapture(s, &mut g));
        gok!(api, hipStreamIsCapturing(t, &mut st));
        assert_eq!(st, hipStreamCaptureStatusNone, "ending the capture ends it on the joined stream");
        let x = exec(&api, g);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        assert_eq!(b.dst, expected(1));
        // Without the join: 904.
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hok!(api, hipMemcpyAsync(b.dev, b.src.as_ptr().cast(), N, hipMemcpyHostToDevice, s));
        hok!(api, hipEventRecord(fork, s));
        hok!(api, hipStreamWaitEvent(t, fork, 0));
        hok!(api, hipMemsetAsync(b.dev, 0x5a, N / 2, t));
        gexpect!(api, hipStreamEndCapture(s, &mut g), HipError::STREAM_CAPTURE_UNJOINED);
    });
}

#[test]
fn event_nodes_order_two_streams() {
    isolated("event_nodes_order_two_streams", ADVERSARIAL, |_| {
        let api = hip();
        let (s, t) = (stream(&api), stream(&api));
        let mut b = bufs(&api);
        let mut ev = null_mut();
        hok!(api, hipEventCreate(&mut ev));
        // Graph A fills with 4 then records; graph B waits then copies out.
        let (ga, gb) = (graph(&api), graph(&api));
        let (mut fill, mut rec, mut wait, mut copy) = (null_mut(), null_mut(), null_mut(), null_mut());
        let set = memset_params(b.dev, 4, N);
        gok!(api, hipGraphAddMemsetNode(&mut fill, ga, null(), 0, &set));
        gok!(api, hipGraphAddEventRecordNode(&mut rec, ga, &fill, 1, ev));
        gok!(api, hipGraphAddEventWaitNode(&mut wait, gb, null(), 0, ev));
        gok!(
            api,
            hipGraphAddMemcpyNode1D(
                &mut copy,
                gb,
                &wait,
                1,
                b.dst.as_mut_ptr().cast(),
                b.dev,
                N,
                hipMemcpyDeviceToHost
            )
        );
        let (xa, xb) = (exec(&api, ga), exec(&api, gb));
        gok!(api, hipGraphLaunch(xa, s));
        gok!(api, hipGraphLaunch(xb, t));
        hok!(api, hipStreamSynchronize(t));
        assert!(b.dst.iter().all(|&v| v == 4), "the wait node ordered the copy after the fill");
        let _ = &mut b;
    });
}

#[test]
fn allocation_and_free_nodes() {
    isolated("allocation_and_free_nodes", EAGER, |_| {
        let api = hip();
        let s = stream(&api);
        // Captured hipMallocFromPoolAsync and hipFreeAsync (hip-tests Unit_hipFreeAsync_capturehipFreeAsync).
        let mut pool = null_mut();
        hok!(api, hipDeviceGetDefaultMemPool(&mut pool, 0));
        let mut p = null_mut();
        gok!(api, hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
        hok!(api, hipMallocFromPoolAsync(&mut p, 4 * 9, pool, s));
        assert!(!p.is_null());
        hok!(api, hipFreeAsync(p, s));
        let mut g = null_mut();
        gok!(api, hipStreamEndCapture(s, &mut g));
        let x = exec(&api, g);
        gok!(api, hipGraphLaunch(x, s));
        hok!(api, hipStreamSynchronize(s));
        gok!(api, hipGraphExecDestroy(x));
        gok!(api, hipGraphDestroy(g));
        // Explicit nodes: the address is given at once and is device memory.
        let g = graph(&api);
        let mut params = hipMemAllocNodeParams {
            poolProps: hipMemPoolProps {
                allocType: hipMemAllocationTypePinned,
                location: hipMemLocation { type_: hipMemLocationTypeDevice, id: 0 },
                ..Default::default()
            },
            accessDescs: null(),
            accessDescCount: 0,
            bytesize: N,
            dptr: null_mut(),
        };
        let (mut a, mut set, mut f) = (null_mut(), null_mut(), null_mut());
        gok!(api, hipGraphAddMemAllocNode(&mut a, g, null(), 0, &mut params));
        assert!(!params.dptr.is_null());
        let fill = memset_params(params.dptr, 6, N);
        gok!(api, hipGraphAddMemsetNode(&mut set, g, &a, 1, &fill));
        let mut dst = vec![0u8; N];
        let mut copy = null_mut();
        gok!(
            api,
            hipGraphAddMemcpyNode1D(
                &mut copy,
                g,
                &set,
                1,
                dst.as_mut_ptr().cast(),
                params.dptr,
                N,
                hipMemcpyDeviceToHost
            )
        );
        gexpect!(api, hipGraphAddMemFreeNode(&mut f, g, &copy, 1, null_mut()), HipError::INVALID_VALUE);
        let mut plain = null_mut();
        hok!(api, hipMalloc(&mut plain, 64));
        gexpect!(api, hipGraphAddMemFreeNode(&mut f, g, &copy, 1, plain), HipError::INVALID_VALUE);
        // No free node yet: one launch only.
        let x = exec(&api, g);
        gok!(api, hipGraphLaunch(x, s));
        gexpect!(api, hipGraphLaunch(x, s), HipError::INVALID_VALUE);
        hok!(api, hipStreamSynchronize(s));
        assert!(dst.iter().all(|&v| v == 6));
        gok!(api, hipGraphAddMemFreeNode(&mut f, g, &copy, 1, params.dptr));
        gexpect!(api, hipGraphAddMemFreeNode(&mut f, g, &copy, 1, params.dptr), HipError::INVALID_VALUE);
        let mut again = null_mut();
        gexpect!(api, hipGraphInstantiate(&mut again, g, null_mut(), null_mut(), 0), HipError::NOT_SUPPORTED);
        params.bytesize = 0;
        gexpect!(api, hipGraphAddMemAllocNode(&mut a, g, null(), 0, &mut params), HipError::INVALID_VALUE);
        assert!(params.dptr.is_null());
        gok!(api, hipGraphExecDestroy(x));
        gok!(api, hipGraphDestroy(g));
        hok!(api, hipFree(plain));
    });
}
