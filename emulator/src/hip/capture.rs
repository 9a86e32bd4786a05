//! Stream capture (clr 6.3 `hipamd/src/hip_graph.cpp:851-1079`,
//! `1787-1885`): hipStreamBeginCapture and EndCapture ([HIP-GRF-008](vmmkit_sys::hip::rules::GRF_008)), the
//! status queries ([HIP-GRF-009](vmmkit_sys::hip::rules::GRF_009)) and hipThreadExchangeStreamCaptureMode, on
//! the core's captures. The work a capturing stream is given becomes nodes
//! in the core (`core/graph.rs`); the calls a capture forbids are checked
//! where they are made (streams, copies, allocations, events).
#![allow(non_snake_case, non_upper_case_globals)]

use std::cell::RefCell;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, emu, ensure, run};
use super::graph::{graph_fail, to_graph, to_node};
use super::stream::{live, spt};
use crate::ffi::Out;
use crate::core::{CaptureMode, CaptureStatus, exchange_capture_mode};

thread_local! {
    /// The dependencies hipStreamGetCaptureInfo_v2 last returned (valid until the thread's next call, as clr's).
    static DEPS: RefCell<Vec<hipGraphNode_t>> = const { RefCell::new(Vec::new()) };
}

fn mode_of(m: hipStreamCaptureMode) -> Option<CaptureMode> {
    match m {
        hipStreamCaptureModeGlobal => Some(CaptureMode::Global),
        hipStreamCaptureModeThreadLocal => Some(CaptureMode::ThreadLocal),
        hipStreamCaptureModeRelaxed => Some(CaptureMode::Relaxed),
        _ => None,
    }
}

fn mode_value(m: CaptureMode) -> hipStreamCaptureMode {
    match m {
        CaptureMode::Global => hipStreamCaptureModeGlobal,
        CaptureMode::ThreadLocal => hipStreamCaptureModeThreadLocal,
        CaptureMode::Relaxed => hipStreamCaptureModeRelaxed,
    }
}

fn status_value(s: CaptureStatus) -> hipStreamCaptureStatus {
    match s {
        CaptureStatus::None => hipStreamCaptureStatusNone,
        CaptureStatus::Active => hipStreamCaptureStatusActive,
        CaptureStatus::Invalidated => hipStreamCaptureStatusInvalidated,
    }
}

/// What the queries write besides the status.
#[derive(Clone, Copy)]
struct InfoOut<'a> {
    id: Out<'a, u64>,
    graph: Out<'a, hipGraph_t>,
    deps: Out<'a, *const hipGraphNode_t>,
    count: Out<'a, usize>,
}

impl InfoOut<'_> {
    const NONE: Self = Self { id: Out::NULL, graph: Out::NULL, deps: Out::NULL, count: Out::NULL };
}

/// clr's checks of the queries: NULL status → 1, a dead stream → 709; the
/// legacy stream never captures; an active capture's id, graph and
/// dependencies are written where asked.
fn query(stream: hipStream_t, status: Out<'_, hipStreamCaptureStatus>, out: InfoOut<'_>) -> Result<(), Fail> {
    if status.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "the capture status pointer is NULL".into()));
    }
    let e = emu()?;
    let Some(id) = live(e, stream)? else { return Ok(()) };
    let (st, cid, graph, leaves) =
        if (stream as usize) <= 1 { (CaptureStatus::None, 0, None, Vec::new()) } else { e.capture_info(id) };
    status.write(status_value(st))?;
    if st == CaptureStatus::Active {
        out.id.write_if_given(cid);
        if let Some(g) = graph {
            out.graph.write_if_given(to_graph(g));
        }
        if !out.deps.is_null() || !out.count.is_null() {
            let nodes: Vec<hipGraphNode_t> = leaves.into_iter().map(to_node).collect();
            let n = nodes.len();
            let p = DEPS.with(|d| {
                *d.borrow_mut() = nodes;
                d.borrow().as_ptr()
            });
            out.deps.write_if_given(p);
            out.count.write_if_given(n);
        }
    }
    Ok(())
}

/// `hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)`: [HIP-GRF-009](vmmkit_sys::hip::rules::GRF_009).
pub extern "C" fn hipStreamIsCapturing(stream: hipStream_t, pCaptureStatus: Out<'_, hipStreamCaptureStatus>) -> hipError_t {
    run("hipStreamIsCapturing", || query(stream, pCaptureStatus, InfoOut::NONE))
}

/// `hipError_t hipStreamIsCapturing_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)`.
pub extern "C" fn hipStreamIsCapturing_spt(stream: hipStream_t, pCaptureStatus: Out<'_, hipStreamCaptureStatus>) -> hipError_t {
    run("hipStreamIsCapturing_spt", || query(spt(stream), pCaptureStatus, InfoOut::NONE))
}

/// `hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus, unsigned long long *pId)`:
/// `pId` is written only while capturing.
pub extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    pCaptureStatus: Out<'_, hipStreamCaptureStatus>,
    pId: Out<'_, u64>,
) -> hipError_t {
    run("hipStreamGetCaptureInfo", || query(stream, pCaptureStatus, InfoOut { id: pId, ..InfoOut::NONE }))
}

/// `hipError_t hipStreamGetCaptureInfo_spt(…)`.
pub extern "C" fn hipStreamGetCaptureInfo_spt(
    stream: hipStream_t,
    pCaptureStatus: Out<'_, hipStreamCaptureStatus>,
    pId: Out<'_, u64>,
) -> hipError_t {
    run("hipStreamGetCaptureInfo_spt", || query(spt(stream), pCaptureStatus, InfoOut { id: pId, ..InfoOut::NONE }))
}

/// `hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus *captureStatus_out, unsigned long long *id_out, hipGraph_t *graph_out, const hipGraphNode_t **dependencies_out, size_t *numDependencies_out)`:
/// the other outputs are written only while capturing.
pub extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: hipStream_t,
    captureStatus_out: Out<'_, hipStreamCaptureStatus>,
    id_out: Out<'_, u64>,
    graph_out: Out<'_, hipGraph_t>,
    dependencies_out: Out<'_, *const hipGraphNode_t>,
    numDependencies_out: Out<'_, usize>,
) -> hipError_t {
    let out = InfoOut { id: id_out, graph: graph_out, deps: dependencies_out, count: numDependencies_out };
    run("hipStreamGetCaptureInfo_v2", || query(stream, captureStatus_out, out))
}

/// `hipError_t hipStreamGetCaptureInfo_v2_spt(…)`.
pub extern "C" fn hipStreamGetCaptureInfo_v2_spt(
    stream: hipStream_t,
    captureStatus_out: Out<'_, hipStreamCaptureStatus>,
    id_out: Out<'_, u64>,
    graph_out: Out<'_, hipGraph_t>,
    dependencies_out: Out<'_, *const hipGraphNode_t>,
    numDependencies_out: Out<'_, usize>,
) -> hipError_t {
    let out = InfoOut { id: id_out, graph: graph_out, deps: dependencies_out, count: numDependencies_out };
    run("hipStreamGetCaptureInfo_v2_spt", || query(spt(stream), captureStatus_out, out))
}

/// `hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)`:
/// NULL or a mode outside Global … Relaxed → 1; swaps it with the thread's.
pub extern "C" fn hipThreadExchangeStreamCaptureMode(mode: Out<'_, hipStreamCaptureMode>) -> hipError_t {
    run("hipThreadExchangeStreamCaptureMode", || {
        let m = if mode.is_null() { None } else { mode_of(mode.read()?) };
        let Some(m) = m else {
            return Err(Fail::plain(HipError::INVALID_VALUE, "mode is NULL or not a hipStreamCaptureMode".into()));
        };
        emu()?;
        let old = exchange_capture_mode(m);
        mode.write(mode_value(old))?;
        Ok(())
    })
}

/// hipStreamBeginCapture's checks in clr's order: a dead stream → 709, the
/// legacy stream → 900, a bad mode → 1, already capturing → 401.
fn begin(stream: hipStream_t, mode: hipStreamCaptureMode) -> Result<(), Fail> {
    let e = emu()?;
    let Some(id) = live(e, stream)? else { return Ok(()) };
    ensure!(
        (stream as usize) > 1,
        rules::GRF_008 => HipError::STREAM_CAPTURE_UNSUPPORTED,
        "a capture cannot begin on the legacy stream"
    );
    let m = mode_of(mode);
    ensure!(m.is_some(), rules::GRF_008 => HipError::INVALID_VALUE, "mode {mode} is not a hipStreamCaptureMode");
    let (Some(m), true) = (m, (stream as usize) > 1) else { return Ok(()) };
    let (device, _) = e.stream_info(id).map_err(super::stream::work_failed)?;
    e.capture_begin(id, device, m).map_err(graph_fail)
}

/// `hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)`: [HIP-GRF-008](vmmkit_sys::hip::rules::GRF_008).
pub extern "C" fn hipStreamBeginCapture(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t {
    run("hipStreamBeginCapture", || begin(stream, mode))
}

/// `hipError_t hipStreamBeginCapture_spt(hipStream_t stream, hipStreamCaptureMode mode)`: NULL is the thread's default stream.
pub extern "C" fn hipStreamBeginCapture_spt(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t {
    run("hipStreamBeginCapture_spt", || begin(spt(stream), mode))
}

/// hipStreamEndCapture's checks in clr's order: NULL graph pointer → 1, the
/// legacy stream → 401, a dead stream → 709, then the core's (not capturing
/// 401, a joined stream 903, another thread 908, invalidated 901 with a
/// NULL graph, unjoined work 904).
fn end(stream: hipStream_t, graph: Out<'_, hipGraph_t>) -> Result<(), Fail> {
    ensure!(!graph.is_null(), rules::GRF_008 => HipError::INVALID_VALUE, "pGraph is NULL");
    ensure!((stream as usize) > 1, rules::GRF_008 => HipError::ILLEGAL_STATE, "the legacy stream never captures");
    if graph.is_null() || (stream as usize) <= 1 {
        return Ok(());
    }
    let e = emu()?;
    let Some(id) = live(e, stream)? else { return Ok(()) };
    match e.capture_end(id) {
        Ok(g) => {
            graph.write(to_graph(g))?;
            Ok(())
        }
        Err(er) => {
            if matches!(er, crate::core::GraphError::Invalidated | crate::core::GraphError::Unjoined) {
                graph.write(std::ptr::null_mut())?;
            }
            Err(graph_fail(er))
        }
    }
}

/// `hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)`: [HIP-GRF-008](vmmkit_sys::hip::rules::GRF_008), [HIP-GRF-010](vmmkit_sys::hip::rules::GRF_010), [HIP-GRF-013](vmmkit_sys::hip::rules::GRF_013).
pub extern "C" fn hipStreamEndCapture(stream: hipStream_t, pGraph: Out<'_, hipGraph_t>) -> hipError_t {
    run("hipStreamEndCapture", || end(stream, pGraph))
}

/// `hipError_t hipStreamEndCapture_spt(hipStream_t stream, hipGraph_t *pGraph)`: NULL is the thread's default stream.
pub extern "C" fn hipStreamEndCapture_spt(stream: hipStream_t, pGraph: Out<'_, hipGraph_t>) -> hipError_t {
    run("hipStreamEndCapture_spt", || end(spt(stream), pGraph))
}
