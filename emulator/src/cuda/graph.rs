//! Graphs and stream capture (the driver API's Graph Management and
//! cuStream*Capture): cuGraphCreate, the memset, host, event and empty node
//! adds, cuGraphInstantiateWithFlags, cuGraphLaunch, the destroys, and
//! cuStreamBeginCapture / EndCapture / IsCapturing ([CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001) … 006), on
//! the core's graphs and captures (`core/graph.rs`), the same model HIP
//! uses. Copies reach a graph by capture (cuMemcpy*Async on a capturing
//! stream); kernel nodes are not emulated.
#![allow(non_snake_case)]


use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Cuda;

use super::call::{Fail, emu, ensure, run};
use super::context::current;
use super::event::event_of;
use super::pointer::{Use, check_device_range};
use super::stream::stream_of;
use crate::ffi::{In, Out};
use crate::core::{CaptureMode, CaptureStatus, CoreError, Emulator, GraphError, GraphId, GraphOp, exchange_capture_mode};
use crate::graph_values::{GraphDialect, destroy_exec, exec_of, graph_value, instantiate_into, live_graph, node_adds};

/// A graph or capture error as a CUresult, under the rule it breaks.
fn graph_fail(g: GraphError) -> Fail {
    let msg = g.to_string();
    let (rule, code) = match g {
        GraphError::ForeignDependency(_) | GraphError::DuplicateDependency(_) => (&rules::GRF_001, CuResult::INVALID_VALUE),
        GraphError::AlreadyCapturing(_) | GraphError::NotCapturing(_) => (&rules::GRF_004, CuResult::ILLEGAL_STATE),
        GraphError::WrongThread => (&rules::GRF_004, CuResult::STREAM_CAPTURE_WRONG_THREAD),
        GraphError::Invalidated => (&rules::GRF_006, CuResult::STREAM_CAPTURE_INVALIDATED),
        GraphError::Unmatched(_) => return Fail::plain(CuResult::STREAM_CAPTURE_UNMATCHED, msg),
        GraphError::Unjoined => return Fail::plain(CuResult::STREAM_CAPTURE_UNJOINED, msg),
        GraphError::NotCapturable(_) => return Fail::plain(CuResult::STREAM_CAPTURE_UNSUPPORTED, msg),
        _ => return Fail::plain(CuResult::INVALID_VALUE, msg),
    };
    if crate::mutation::enforced(rule) { Fail::rule_code(rule, code, msg) } else { Fail::plain(CuResult::SUCCESS, String::new()) }
}

/// The node adds' NULL checks are [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001); a node works on
/// the current context's device.
impl GraphDialect for Cuda {
    const NODE_ARGS: &'static Rule = &rules::GRF_001;

    fn emulator() -> Result<&'static Emulator, Fail> {
        emu()
    }

    fn add_device() -> Result<u32, Fail> {
        current()
    }

    fn graph_fail(g: GraphError) -> Fail {
        graph_fail(g)
    }

    fn event(e: &Emulator, ev: *mut std::ffi::c_void) -> Result<Option<crate::core::EventId>, Fail> {
        event_of(e, ev)
    }
}

/// `CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)`: [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001).
pub extern "C" fn cuGraphCreate(phGraph: Out<'_, CUgraph>, flags: u32) -> CUresult {
    run("cuGraphCreate", || {
        ensure!(!phGraph.is_null() && flags == 0, rules::GRF_001, "phGraph is NULL or flags {flags:#x} is not 0");
        if phGraph.is_null() {
            return Ok(());
        }
        let d = current()?;
        let g: GraphId = emu()?.graph_create(d);
        phGraph.write(graph_value(g))?;
        Ok(())
    })
}

/// `CUresult cuGraphDestroy(CUgraph hGraph)`: [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001) (NULL → 1); its execs stay usable.
pub extern "C" fn cuGraphDestroy(hGraph: CUgraph) -> CUresult {
    run("cuGraphDestroy", || {
        ensure!(!hGraph.is_null(), rules::GRF_001, "hGraph is NULL");
        let e = emu()?;
        let g = live_graph(e, hGraph)?;
        e.graph_destroy(g).map_err(graph_fail)
    })
}

node_adds! {
    Cuda => CUresult, node: CUgraphNode, graph: CUgraph, event: CUevent;

    /// `CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)`:
    /// [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001); an element size other than 1, 2 or 4, a height of 0, a
    /// pitch below the row, or rows outside device memory are 1.
    fn cuGraphAddMemsetNode(add, memsetParams: In<'_, CUDA_MEMSET_NODE_PARAMS>, _ctx: CUcontext) {
        add.add(!memsetParams.is_null(), |e, d| {
            let p = memsetParams.read()?;
            let elem = p.elementSize as usize;
            let row = p.width.saturating_mul(elem);
            let ok = matches!(elem, 1 | 2 | 4) && p.height != 0 && p.width != 0 && (p.height == 1 || p.pitch >= row);
            if !ok {
                let msg = format!("element size {elem}, width {}, height {}, pitch {}", p.width, p.height, p.pitch);
                return Err(Fail::plain(CuResult::INVALID_VALUE, msg));
            }
            let span = (p.height - 1).saturating_mul(p.pitch).saturating_add(row);
            check_device_range(e, p.dst as usize, span, d, Use::Write, "dst")?;
            let pattern = u64::from(p.value) & ((1u64 << (8 * elem)) - 1);
            let pitch = if p.height == 1 { row } else { p.pitch };
            Ok(Some(GraphOp::Fill { dst: p.dst as usize, pitch, pattern, width: elem as u8, count: p.width, rows: p.height }))
        })
    }

    /// `CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)`:
    /// [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001) (NULL parameters or function → 1).
    host cuGraphAddHostNode(CUDA_HOST_NODE_PARAMS);

    /// `CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event)`: [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001).
    record cuGraphAddEventRecordNode;

    /// `CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event)`: [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001).
    wait cuGraphAddEventWaitNode;

    /// `CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies)`: [CUDA-GRF-001](vmmkit_sys::cuda::rules::GRF_001).
    empty cuGraphAddEmptyNode;
}

/// `CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)`: [CUDA-GRF-003](vmmkit_sys::cuda::rules::GRF_003).
pub extern "C" fn cuGraphInstantiateWithFlags(phGraphExec: Out<'_, CUgraphExec>, hGraph: CUgraph, flags: u64) -> CUresult {
    run("cuGraphInstantiateWithFlags", || {
        ensure!(!phGraphExec.is_null() && !hGraph.is_null(), rules::GRF_003, "phGraphExec or hGraph is NULL");
        if phGraphExec.is_null() || hGraph.is_null() {
            return Ok(());
        }
        let _ = flags;
        current()?;
        instantiate_into(phGraphExec, hGraph)
    })
}

/// `CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)`: [CUDA-GRF-003](vmmkit_sys::cuda::rules::GRF_003), [CUDA-GRF-002](vmmkit_sys::cuda::rules::GRF_002).
pub extern "C" fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult {
    run("cuGraphLaunch", || {
        let d = current()?;
        let e = emu()?;
        let x = exec_of(e, hGraphExec);
        ensure!(x.is_some(), rules::GRF_003, "{hGraphExec:p} is not a live instantiated graph");
        let Some(x) = x else { return Ok(()) };
        let s = stream_of(e, hStream, d)?;
        e.graph_launch(x, s).map_err(|er| match er {
            CoreError::Graph(g) => graph_fail(g),
            other => Fail::plain(CuResult::INVALID_HANDLE, other.to_string()),
        })
    })
}

/// `CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)`: [CUDA-GRF-003](vmmkit_sys::cuda::rules::GRF_003) (NULL → 1).
pub extern "C" fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult {
    run("cuGraphExecDestroy", || {
        ensure!(!hGraphExec.is_null(), rules::GRF_003, "hGraphExec is NULL");
        destroy_exec(hGraphExec)
    })
}

fn mode_of(m: CUstreamCaptureMode) -> Option<CaptureMode> {
    match m {
        CU_STREAM_CAPTURE_MODE_GLOBAL => Some(CaptureMode::Global),
        CU_STREAM_CAPTURE_MODE_THREAD_LOCAL => Some(CaptureMode::ThreadLocal),
        CU_STREAM_CAPTURE_MODE_RELAXED => Some(CaptureMode::Relaxed),
        _ => None,
    }
}

/// `CUresult cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode)` (`_v2`): [CUDA-GRF-004](vmmkit_sys::cuda::rules::GRF_004).
pub extern "C" fn cuStreamBeginCapture(hStream: CUstream, mode: CUstreamCaptureMode) -> CUresult {
    run("cuStreamBeginCapture", || {
        let d = current()?;
        let e = emu()?;
        let s = stream_of(e, hStream, d)?;
        let m = mode_of(mode).filter(|_| (hStream as usize) > 1);
        ensure!(m.is_some(), rules::GRF_004, "the legacy stream, or mode {mode} that is not a CUstreamCaptureMode");
        let Some(m) = m else { return Ok(()) };
        e.capture_begin(s, d, m).map_err(graph_fail)
    })
}

/// `CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)`: [CUDA-GRF-004](vmmkit_sys::cuda::rules::GRF_004), [CUDA-GRF-006](vmmkit_sys::cuda::rules::GRF_006).
pub extern "C" fn cuStreamEndCapture(hStream: CUstream, phGraph: Out<'_, CUgraph>) -> CUresult {
    run("cuStreamEndCapture", || {
        ensure!(!phGraph.is_null(), rules::GRF_004, "phGraph is NULL");
        if phGraph.is_null() {
            return Ok(());
        }
        let d = current()?;
        let e = emu()?;
        let s = stream_of(e, hStream, d)?;
        match e.capture_end(s) {
            Ok(g) => {
                phGraph.write(graph_value(g))?;
                Ok(())
            }
            Err(er) => {
                if matches!(er, GraphError::Invalidated | GraphError::Unjoined) {
                    phGraph.write(std::ptr::null_mut())?;
                }
                Err(graph_fail(er))
            }
        }
    })
}

/// `CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)`: [CUDA-GRF-005](vmmkit_sys::cuda::rules::GRF_005).
pub extern "C" fn cuStreamIsCapturing(hStream: CUstream, captureStatus: Out<'_, CUstreamCaptureStatus>) -> CUresult {
    run("cuStreamIsCapturing", || {
        if captureStatus.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "captureStatus is NULL".into()));
        }
        let d = current()?;
        let e = emu()?;
        let s = stream_of(e, hStream, d)?;
        let st = match e.capture_status(s) {
            CaptureStatus::None => CU_STREAM_CAPTURE_STATUS_NONE,
            CaptureStatus::Active => CU_STREAM_CAPTURE_STATUS_ACTIVE,
            CaptureStatus::Invalidated => CU_STREAM_CAPTURE_STATUS_INVALIDATED,
        };
        captureStatus.write(st)?;
        Ok(())
    })
}

/// `CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)`: NULL or an unknown mode → 1.
pub extern "C" fn cuThreadExchangeStreamCaptureMode(mode: Out<'_, CUstreamCaptureMode>) -> CUresult {
    run("cuThreadExchangeStreamCaptureMode", || {
        let m = if mode.is_null() { None } else { mode_of(mode.read()?) };
        let Some(m) = m else {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "mode is NULL or not a CUstreamCaptureMode".into()));
        };
        let old = match exchange_capture_mode(m) {
            CaptureMode::Global => CU_STREAM_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => CU_STREAM_CAPTURE_MODE_RELAXED,
        };
        mode.write(old)?;
        Ok(())
    })
}
