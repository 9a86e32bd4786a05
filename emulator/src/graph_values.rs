//! The C values of graphs, graph nodes and instantiated graphs, shared by
//! the dialects (`hipGraph_t` and `CUgraph` are both opaque pointers):
//! tagged [`HandleTag`] values, looked up, never dereferenced.

use std::ffi::c_void;

use crate::core::{Emulator, ExecId, GraphId, HandleId, HandleTag, NodeId};

const GRAPH: HandleTag = HandleTag::new(0x6867);
const NODE: HandleTag = HandleTag::new(0x686e);
const EXEC: HandleTag = HandleTag::new(0x6878);

/// The C value of graph `id`.
pub(crate) fn graph_value(id: GraphId) -> *mut c_void {
    GRAPH.value(HandleId(id.0)) as *mut c_void
}

/// The C value of node `id`.
pub(crate) fn node_value(id: NodeId) -> *mut c_void {
    NODE.value(HandleId(id.0)) as *mut c_void
}

/// The C value of exec `id`.
pub(crate) fn exec_value(id: ExecId) -> *mut c_void {
    EXEC.value(HandleId(id.0)) as *mut c_void
}

/// The live graph `v` names.
pub(crate) fn graph_of(e: &Emulator, v: *mut c_void) -> Option<GraphId> {
    GRAPH.id(v as usize).map(|h| GraphId(h.0)).filter(|&id| e.graph_exists(id))
}

/// The live exec `v` names.
pub(crate) fn exec_of(e: &Emulator, v: *mut c_void) -> Option<ExecId> {
    EXEC.id(v as usize).map(|h| ExecId(h.0)).filter(|&id| e.exec_exists(id))
}

/// The nodes a dependency list names; a value that is no node names none
/// of any graph's (the core refuses it as a foreign dependency).
/// `deps` holds `n` values when not NULL (NULL names none).
pub(crate) fn deps_of(deps: crate::ffi::In<'_, *mut c_void>, n: usize) -> Vec<NodeId> {
    let values = deps.to_vec(n).unwrap_or_default();
    values.iter().map(|v| NODE.id(*v as usize).map_or(NodeId(u64::MAX), |h| NodeId(h.0))).collect()
}
