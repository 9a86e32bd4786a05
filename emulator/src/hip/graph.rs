//! Graphs (clr 6.3 `hipamd/src/hip_graph.cpp`, `hip_graph_internal.cpp`):
//! hipGraphCreate, the node adds of the work vmmkit runs (copies, fills,
//! host functions, event records and waits, empty, allocation and free
//! nodes), instantiate, launch and destroy ([HIP-GRF-001](vmmkit_sys::hip::rules::GRF_001) … 007, 014, 015),
//! on the core's graphs. Kernel nodes stay refused (801, not emulated).
//!
//! Graph, node and exec values are tagged values (`graph_values.rs`), looked up,
//! never dereferenced: where clr dereferences a destroyed graph or exec,
//! vmmkit answers 1.
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_void};

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Hip;

use super::call::{Fail, emu, ensure, run};
use super::event;
use super::memory::{self, On, Shape, collect};
use super::stream::{refuse, resolve as resolve_stream, spt, work_failed};
use crate::ffi::{In, Out};
use crate::core::{AllocHold, CoreError, Emulator, GraphError, GraphId, GraphOp, NodeId, Work};
use crate::graph_values::{GraphDialect, destroy_exec, exec_of, graph_of, graph_value, instantiate_into, live_graph, node_adds, node_value};

pub(super) fn to_graph(id: GraphId) -> hipGraph_t {
    graph_value(id)
}

pub(super) fn to_node(id: NodeId) -> hipGraphNode_t {
    node_value(id)
}

/// A graph or capture error as HIP's code, under the rule it breaks.
pub(super) fn graph_fail(g: GraphError) -> Fail {
    let msg = g.to_string();
    match g {
        GraphError::UnknownGraph(_) | GraphError::UnknownExec(_) => Fail::plain(HipError::INVALID_VALUE, msg),
        GraphError::ForeignDependency(_) | GraphError::DuplicateDependency(_) => {
            refuse(&rules::GRF_003, HipError::INVALID_VALUE, msg)
        }
        GraphError::NotGraphMemory(_) | GraphError::FreedTwice(_) | GraphError::AllocStillLive => {
            refuse(&rules::GRF_014, HipError::INVALID_VALUE, msg)
        }
        GraphError::ReinstantiatedAlloc => refuse(&rules::GRF_014, HipError::NOT_SUPPORTED, msg),
        GraphError::AlreadyCapturing(_) | GraphError::NotCapturing(_) => {
            refuse(&rules::GRF_008, HipError::ILLEGAL_STATE, msg)
        }
        GraphError::Unmatched(_) => refuse(&rules::GRF_008, HipError::STREAM_CAPTURE_UNMATCHED, msg),
        GraphError::WrongThread => refuse(&rules::GRF_008, HipError::STREAM_CAPTURE_WRONG_THREAD, msg),
        GraphError::Invalidated => refuse(&rules::GRF_010, HipError::STREAM_CAPTURE_INVALIDATED, msg),
        GraphError::Unjoined => refuse(&rules::GRF_013, HipError::STREAM_CAPTURE_UNJOINED, msg),
        GraphError::NotCapturable(_) => Fail::plain(HipError::STREAM_CAPTURE_UNSUPPORTED, msg),
    }
}

/// The node adds' NULL checks are [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002); a node works on the
/// thread's current device.
impl GraphDialect for Hip {
    const NODE_ARGS: &'static Rule = &rules::GRF_002;

    fn emulator() -> Result<&'static Emulator, Fail> {
        emu()
    }

    fn add_device() -> Result<u32, Fail> {
        Ok(super::call::current_device())
    }

    fn graph_fail(g: GraphError) -> Fail {
        graph_fail(g)
    }

    /// The event of an event node (dead: [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007)).
    fn event(e: &Emulator, ev: *mut std::ffi::c_void) -> Result<Option<crate::core::EventId>, Fail> {
        event::resolve(e, ev)
    }
}

/// The checked work of a copy or fill as one node.
fn node_of(works: Vec<Work>) -> Option<GraphOp> {
    let ops: Vec<GraphOp> = works
        .into_iter()
        .filter_map(|w| match w {
            Work::Copy { dst, src, len } => Some(GraphOp::Copy { dst, src, len }),
            Work::CopyRows(c) => Some(GraphOp::CopyRows(c)),
            Work::Fill { dst, pattern, width, count } => {
                Some(GraphOp::Fill { dst, pitch: 0, pattern, width, count, rows: 1 })
            }
            Work::FillRows { dst, pattern, width, count, pitch, rows } => {
                Some(GraphOp::Fill { dst, pitch, pattern, width, count, rows })
            }
            _ => None,
        })
        .collect();
    let single_rows = ops.iter().all(|op| matches!(op, GraphOp::Fill { rows: 1, .. }));
    match ops.as_slice() {
        [] => Some(GraphOp::Empty),
        [one] => Some(one.clone()),
        [GraphOp::Fill { dst, pattern, width, count, .. }, GraphOp::Fill { dst: second, .. }, ..] if single_rows => {
            Some(GraphOp::Fill { dst: *dst, pitch: second - dst, pattern: *pattern, width: *width, count: *count, rows: ops.len() })
        }
        _ => None,
    }
}

/// `hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)`: [HIP-GRF-001](vmmkit_sys::hip::rules::GRF_001).
pub extern "C" fn hipGraphCreate(pGraph: Out<'_, hipGraph_t>, flags: u32) -> hipError_t {
    run("hipGraphCreate", || {
        ensure!(!pGraph.is_null() && flags == 0, rules::GRF_001, "pGraph is NULL or flags {flags:#x} is not 0");
        if pGraph.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let id = e.graph_create(super::call::current_device());
        pGraph.write(to_graph(id))?;
        Ok(())
    })
}

/// `hipError_t hipGraphDestroy(hipGraph_t graph)`: [HIP-GRF-001](vmmkit_sys::hip::rules::GRF_001) (NULL → 1, destroyed → 401).
pub extern "C" fn hipGraphDestroy(graph: hipGraph_t) -> hipError_t {
    run("hipGraphDestroy", || {
        ensure!(!graph.is_null(), rules::GRF_001, "graph is NULL");
        let e = emu()?;
        let id = graph_of(e, graph);
        ensure!(id.is_some(), rules::GRF_001 => HipError::ILLEGAL_STATE, "{graph:p} is not a live graph");
        let Some(id) = id else { return Ok(()) };
        e.graph_destroy(id).map_err(graph_fail)
    })
}

/// An allocation node's memory: `size` bytes on `device`, given back when
/// the last graph or exec holding the node is gone.
pub(super) fn alloc_op(e: &Emulator, device: u32, size: usize) -> Result<(usize, GraphOp), Fail> {
    let addr = memory::alloc_on(e, device, size)?;
    let hold = AllocHold::new(Box::new(move || {
        if let Some(e) = crate::core::running() {
            let _ = memory::free(e, addr);
        }
    }));
    Ok((addr, GraphOp::Alloc { addr, size, hold }))
}

node_adds! {
    Hip => hipError_t, node: hipGraphNode_t, graph: hipGraph_t, event: hipEvent_t;

    /// `hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *src, size_t count, hipMemcpyKind kind)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003), [HIP-GRF-004](vmmkit_sys::hip::rules::GRF_004), then hipMemcpy's checks.
    fn hipGraphAddMemcpyNode1D(add, dst: *mut c_void, src: *const c_void, count: usize, kind: hipMemcpyKind) {
        add.add(true, |_, _| {
            ensure!(count != 0, rules::GRF_004, "count is 0");
            let works = collect(|| memory::memcpy(dst, src, count, kind, On::Node))?;
            Ok(node_of(works))
        })
    }

    /// `hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, const hipMemsetParams *pMemsetParams)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003), [HIP-GRF-004](vmmkit_sys::hip::rules::GRF_004), then hipMemset's checks.
    fn hipGraphAddMemsetNode(add, pMemsetParams: In<'_, hipMemsetParams>) {
        add.add(!pMemsetParams.is_null(), |_, _| {
            let p = pMemsetParams.read()?;
            let elem = p.elementSize as usize;
            let row = p.width.saturating_mul(elem);
            let ok = matches!(elem, 1 | 2 | 4) && p.height != 0 && (p.height == 1 || p.pitch >= row);
            ensure!(ok, rules::GRF_004, "element size {elem}, height {}, pitch {} for rows of {row} bytes", p.height, p.pitch);
            if !ok {
                return Ok(None);
            }
            let value = u64::from(p.value) & ((1u64 << (8 * elem)) - 1);
            let shape = if p.height == 1 { Shape::line(row) } else { super::pitched::rows_2d(p.pitch, p.pitch, row, p.height) };
            let works = collect(|| memory::fill_rows(p.dst, value, elem as u8, shape, On::Node))?;
            Ok(node_of(works))
        })
    }

    /// `hipError_t hipGraphAddHostNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, const hipHostNodeParams *pNodeParams)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002) (NULL parameters or function → 1), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003).
    host hipGraphAddHostNode(hipHostNodeParams);

    /// `hipError_t hipGraphAddEventRecordNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, hipEvent_t event)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003).
    record hipGraphAddEventRecordNode;

    /// `hipError_t hipGraphAddEventWaitNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, hipEvent_t event)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003).
    wait hipGraphAddEventWaitNode;

    /// `hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-003](vmmkit_sys::hip::rules::GRF_003).
    empty hipGraphAddEmptyNode;

    /// `hipError_t hipGraphAddMemAllocNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, hipMemAllocNodeParams *pNodeParams)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002), [HIP-GRF-014](vmmkit_sys::hip::rules::GRF_014) (size 0, not pinned device memory of a device → 1); writes `dptr`.
    fn hipGraphAddMemAllocNode(add, pNodeParams: Out<'_, hipMemAllocNodeParams>) {
        add.add(!pNodeParams.is_null(), |e, _| {
            let mut p = pNodeParams.read()?;
            let props = p.poolProps;
            let devices = crate::core::emulator().map(|e| e.device_count()).unwrap_or(0);
            let ok = p.bytesize != 0
                && props.allocType == hipMemAllocationTypePinned
                && props.location.type_ == hipMemLocationTypeDevice
                && props.location.id >= 0
                && (props.location.id as u32) < devices;
            if !ok {
                p.dptr = std::ptr::null_mut();
                pNodeParams.write(p)?;
            }
            ensure!(ok, rules::GRF_014, "size {} or pool properties that are not pinned memory of a device", p.bytesize);
            if !ok {
                return Ok(None);
            }
            let (addr, op) = alloc_op(e, props.location.id as u32, p.bytesize)?;
            p.dptr = addr as *mut c_void;
            pNodeParams.write(p)?;
            Ok(Some(op))
        })
    }

    /// `hipError_t hipGraphAddMemFreeNode(hipGraphNode_t *pGraphNode, hipGraph_t graph, const hipGraphNode_t *pDependencies, size_t numDependencies, void *dev_ptr)`:
    /// [HIP-GRF-002](vmmkit_sys::hip::rules::GRF_002) (also dependencies given with a count of 0), [HIP-GRF-014](vmmkit_sys::hip::rules::GRF_014).
    fn hipGraphAddMemFreeNode(add, dev_ptr: *mut c_void) {
        let ok = !dev_ptr.is_null() && (add.deps.is_null() || add.n != 0);
        add.add(ok, |_, _| Ok(Some(GraphOp::Free { addr: dev_ptr as usize })))
    }
}

/// Writes up to `*count` of `all` to `out` (NULL after the last), or the
/// count when `out` is NULL (clr's copy-out); `out` holds `*count` values
/// when not NULL (the C contract).
fn copy_out(all: &[NodeId], out: Out<'_, hipGraphNode_t>, count: Out<'_, usize>) -> Result<(), crate::ffi::Null> {
    if out.is_null() {
        return count.write(all.len());
    }
    let room = count.read()?;
    let vals: Vec<hipGraphNode_t> = (0..room).map(|i| all.get(i).map_or(std::ptr::null_mut(), |n| to_node(*n))).collect();
    out.write_slice(&vals)?;
    if room > all.len() {
        count.write(all.len())?;
    }
    Ok(())
}

fn nodes_query(graph: hipGraph_t, out: Out<'_, hipGraphNode_t>, count: Out<'_, usize>, roots: bool) -> Result<(), Fail> {
    ensure!(!graph.is_null() && !count.is_null(), rules::GRF_015, "graph or the count is NULL");
    if graph.is_null() || count.is_null() {
        return Ok(());
    }
    let e = emu()?;
    let g = live_graph(e, graph)?;
    let all = if roots { e.graph_roots(g) } else { e.graph_nodes(g) }.map_err(graph_fail)?;
    copy_out(&all, out, count)?;
    Ok(())
}

/// `hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)`: [HIP-GRF-015](vmmkit_sys::hip::rules::GRF_015).
pub extern "C" fn hipGraphGetNodes(graph: hipGraph_t, nodes: Out<'_, hipGraphNode_t>, numNodes: Out<'_, usize>) -> hipError_t {
    run("hipGraphGetNodes", || nodes_query(graph, nodes, numNodes, false))
}

/// `hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *pRootNodes, size_t *pNumRootNodes)`: [HIP-GRF-015](vmmkit_sys::hip::rules::GRF_015).
pub extern "C" fn hipGraphGetRootNodes(
    graph: hipGraph_t,
    pRootNodes: Out<'_, hipGraphNode_t>,
    pNumRootNodes: Out<'_, usize>,
) -> hipError_t {
    run("hipGraphGetRootNodes", || nodes_query(graph, pRootNodes, pNumRootNodes, true))
}

fn instantiate(exec: Out<'_, hipGraphExec_t>, graph: hipGraph_t, flags: u64) -> Result<(), Fail> {
    let flags_ok = matches!(flags, 0 | hipGraphInstantiateFlagAutoFreeOnLaunch | hipGraphInstantiateFlagUseNodePriority);
    ensure!(!exec.is_null() && !graph.is_null() && flags_ok, rules::GRF_006, "pGraphExec or graph is NULL, or flags {flags:#x}");
    if exec.is_null() || graph.is_null() {
        return Ok(());
    }
    instantiate_into(exec, graph)
}

/// `hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph, hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize)`:
/// [HIP-GRF-006](vmmkit_sys::hip::rules::GRF_006), [HIP-GRF-014](vmmkit_sys::hip::rules::GRF_014) (a graph with memory nodes instantiated again → 801).
pub extern "C" fn hipGraphInstantiate(
    pGraphExec: Out<'_, hipGraphExec_t>,
    graph: hipGraph_t,
    _pErrorNode: *mut hipGraphNode_t,
    _pLogBuffer: *mut c_char,
    _bufferSize: usize,
) -> hipError_t {
    run("hipGraphInstantiate", || instantiate(pGraphExec, graph, 0))
}

/// `hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph, unsigned long long flags)`: [HIP-GRF-006](vmmkit_sys::hip::rules::GRF_006).
pub extern "C" fn hipGraphInstantiateWithFlags(pGraphExec: Out<'_, hipGraphExec_t>, graph: hipGraph_t, flags: u64) -> hipError_t {
    run("hipGraphInstantiateWithFlags", || instantiate(pGraphExec, graph, flags))
}

fn launch(exec: hipGraphExec_t, stream: hipStream_t) -> Result<(), Fail> {
    let e = emu()?;
    let x = exec_of(e, exec);
    ensure!(x.is_some(), rules::GRF_007, "{exec:p} is not a live instantiated graph");
    let Some(x) = x else { return Ok(()) };
    let sid = resolve_stream(e, stream, &rules::GRF_007, HipError::CONTEXT_IS_DESTROYED)?;
    e.graph_launch(x, sid).map_err(|er| match er {
        CoreError::Graph(g) => graph_fail(g),
        CoreError::UnknownEvent(_) => Fail::plain(HipError::INVALID_HANDLE, er.to_string()),
        other => work_failed(other),
    })
}

/// `hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)`: [HIP-GRF-007](vmmkit_sys::hip::rules::GRF_007), [HIP-GRF-005](vmmkit_sys::hip::rules::GRF_005).
pub extern "C" fn hipGraphLaunch(graphExec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    run("hipGraphLaunch", || launch(graphExec, stream))
}

/// `hipError_t hipGraphLaunch_spt(hipGraphExec_t graphExec, hipStream_t stream)`: hipGraphLaunch on the thread's default stream for NULL.
pub extern "C" fn hipGraphLaunch_spt(graphExec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    run("hipGraphLaunch_spt", || launch(graphExec, spt(stream)))
}

/// `hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)`: [HIP-GRF-006](vmmkit_sys::hip::rules::GRF_006) (NULL → 1); a launch
/// already enqueued still runs.
pub extern "C" fn hipGraphExecDestroy(graphExec: hipGraphExec_t) -> hipError_t {
    run("hipGraphExecDestroy", || {
        ensure!(!graphExec.is_null(), rules::GRF_006, "graphExec is NULL");
        if graphExec.is_null() {
            return Ok(());
        }
        destroy_exec(graphExec)
    })
}
