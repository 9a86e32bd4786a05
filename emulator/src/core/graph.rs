//! Graphs and stream capture, for every dialect: a graph is a set of nodes
//! (copies, fills, host functions, event records and waits, allocations and
//! frees) with the nodes each waits for; an instantiated graph (an *exec*)
//! is a copy of its nodes in one dependency order, and a launch enqueues
//! them in that order on a stream of the core, so they run in stream order
//! with the stream's other work, whatever the schedule. Dialects name and
//! check; kernel nodes do not exist here (no device code runs).
//!
//! Capture: while a stream captures, the work enqueued on it
//! ([`Emulator::enqueue`]) becomes nodes of the capture's graph instead of
//! running, each after the nodes captured before it on that stream. An event
//! recorded in a capture remembers those nodes; a stream that waits for it
//! joins the capture (a fork), and the origin stream that waits for an event
//! recorded on the joined stream joins it back. The rules that make a call
//! illegal during a capture (a synchronize of the capturing stream, a
//! synchronous copy, an allocation in the global mode) are the dialects'
//! checks through [`Emulator::capture_ongoing`] and its siblings; the
//! capture they break is invalidated, as the vendors do.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use super::event::EventId;
use super::stream::{RowCopy, StreamId, Work};
use super::{CoreError, Emulator};

/// A graph of this process (never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GraphId(pub u64);

/// A node of a graph (never reused, unique across graphs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u64);

/// An instantiated graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExecId(pub u64);

/// Memory a graph's allocation node holds; the dialect's release runs when
/// the last graph or exec that holds it is gone.
pub struct AllocHold {
    release: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl AllocHold {
    /// Memory that `release` gives back.
    pub fn new(release: Box<dyn FnOnce() + Send + Sync>) -> Arc<Self> {
        Arc::new(Self { release: Some(release) })
    }
}

impl std::fmt::Debug for AllocHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AllocHold")
    }
}

impl Drop for AllocHold {
    fn drop(&mut self) {
        if let Some(r) = self.release.take() {
            r();
        }
    }
}

/// What a node does when its graph runs.
#[derive(Clone)]
pub enum Op {
    /// Nothing (orders other nodes).
    Empty,
    /// Copy `len` bytes from `src` to `dst`.
    Copy {
        /// Destination.
        dst: usize,
        /// Source.
        src: usize,
        /// Bytes.
        len: usize,
    },
    /// Copy rows (a captured 2-D or 3-D copy).
    CopyRows(RowCopy),
    /// Fill `rows` rows, `pitch` bytes apart, of `count` elements of
    /// `width` bytes at `dst` with the low bytes of `pattern`.
    Fill {
        /// Destination.
        dst: usize,
        /// Bytes between rows.
        pitch: usize,
        /// The value, little-endian.
        pattern: u64,
        /// Bytes per element.
        width: u8,
        /// Elements per row.
        count: usize,
        /// Rows.
        rows: usize,
    },
    /// Write the low `width` bytes of `value` at `addr` (a captured value write).
    WriteValue {
        /// Where.
        addr: usize,
        /// What.
        value: u64,
        /// 4 or 8.
        width: u8,
    },
    /// A host function, run each time the graph runs.
    Host(Arc<dyn Fn() + Send + Sync>),
    /// Record an event.
    Record(EventId),
    /// Wait for an event's most recent record when the node is enqueued.
    Wait(EventId),
    /// Device memory that is the graph's from the node on.
    Alloc {
        /// Its address.
        addr: usize,
        /// Its size.
        size: usize,
        /// The memory.
        hold: Arc<AllocHold>,
    },
    /// The end of the use of memory of an allocation node.
    Free {
        /// The address of the allocation.
        addr: usize,
    },
}

/// What kind of node, as the vendors' node types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    /// [`Op::Empty`].
    Empty,
    /// [`Op::Copy`], [`Op::CopyRows`].
    Copy,
    /// [`Op::Fill`], [`Op::WriteValue`].
    Fill,
    /// [`Op::Host`].
    Host,
    /// [`Op::Record`].
    Record,
    /// [`Op::Wait`].
    Wait,
    /// [`Op::Alloc`].
    Alloc,
    /// [`Op::Free`].
    Free,
}

impl Op {
    /// Its node type.
    pub fn node_type(&self) -> NodeType {
        match self {
            Op::Empty => NodeType::Empty,
            Op::Copy { .. } | Op::CopyRows { .. } => NodeType::Copy,
            Op::Fill { .. } | Op::WriteValue { .. } => NodeType::Fill,
            Op::Host(_) => NodeType::Host,
            Op::Record(_) => NodeType::Record,
            Op::Wait(_) => NodeType::Wait,
            Op::Alloc { .. } => NodeType::Alloc,
            Op::Free { .. } => NodeType::Free,
        }
    }
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Op::Copy { dst, src, len } => write!(f, "copy {len:#x} bytes {src:#x} -> {dst:#x}"),
            Op::CopyRows(RowCopy { dst, src, len, rows, .. }) => {
                write!(f, "copy {rows} x {len:#x} bytes {src:#x} -> {dst:#x}")
            }
            Op::Fill { dst, rows, count, width, .. } => write!(f, "fill {rows} x {count} x {width} bytes at {dst:#x}"),
            Op::Alloc { addr, size, .. } => write!(f, "alloc {size:#x} bytes at {addr:#x}"),
            Op::Free { addr } => write!(f, "free {addr:#x}"),
            Op::Record(e) => write!(f, "record event {}", e.0),
            Op::Wait(e) => write!(f, "wait for event {}", e.0),
            other => write!(f, "{:?}", other.node_type()),
        }
    }
}

/// How a capture restricts the calls other threads, or the capturing
/// thread, may make while it lasts (`hipStreamCaptureMode`, `CUstreamCaptureMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptureMode {
    /// Unsafe calls of any thread break it.
    #[default]
    Global,
    /// Unsafe calls of the thread that began it break it.
    ThreadLocal,
    /// No call breaks it for being unsafe.
    Relaxed,
}

/// A stream's capture status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureStatus {
    /// Not capturing.
    None,
    /// Capturing.
    Active,
    /// Capturing, but a call broke the capture: it can only be ended.
    Invalidated,
}

/// What a graph or capture call can get wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// Not a live graph of this process.
    #[error("{0:#x} is not a live graph")]
    UnknownGraph(u64),
    /// Not a live exec of this process.
    #[error("{0:#x} is not a live instantiated graph")]
    UnknownExec(u64),
    /// A dependency that is no node of the graph.
    #[error("dependency {0:#x} is not a node of this graph")]
    ForeignDependency(u64),
    /// The same node twice in the dependencies.
    #[error("node {0:#x} is named twice in the dependencies")]
    DuplicateDependency(u64),
    /// An address that no allocation node made.
    #[error("{0:#x} is not memory of a graph allocation node")]
    NotGraphMemory(usize),
    /// A second free node for an allocation.
    #[error("{0:#x} already has a free node")]
    FreedTwice(usize),
    /// A graph with allocation or free nodes instantiated a second time.
    #[error("the graph has allocation or free nodes and was instantiated before")]
    ReinstantiatedAlloc,
    /// A launch while the exec's allocations of the last launch are not freed.
    #[error("the graph's allocation nodes have no free node; it cannot run again before they are freed")]
    AllocStillLive,
    /// The stream is already capturing.
    #[error("stream {0} is already capturing")]
    AlreadyCapturing(u64),
    /// The stream is not capturing.
    #[error("stream {0} is not capturing")]
    NotCapturing(u64),
    /// A capture ended on a stream that joined it, not the one that began it.
    #[error("the capture of stream {0} began on another stream")]
    Unmatched(u64),
    /// A capture not begun in relaxed mode ended by another thread.
    #[error("the capture was begun by another thread, not in relaxed mode")]
    WrongThread,
    /// A capture that a call broke.
    #[error("the capture was invalidated by a call that is not permitted while capturing")]
    Invalidated,
    /// A joined stream's work is not joined back into the origin stream.
    #[error("a stream that joined the capture has work the origin stream does not wait for")]
    Unjoined,
    /// Work that cannot be part of a graph (not a copy, fill, host
    /// function, event record or wait).
    #[error("{0} cannot be captured")]
    NotCapturable(String),
}

struct Node {
    op: Op,
    deps: Vec<NodeId>,
}

struct Graph {
    device: u32,
    nodes: BTreeMap<NodeId, Node>,
    /// Instantiated at least once.
    instantiated: bool,
}

struct Exec {
    ops: Vec<Op>,
    /// Launched at least once.
    launched: bool,
    /// It has allocation nodes whose memory no node of it frees.
    keeps_memory: bool,
}

/// One stream's part in a capture.
struct Capturing {
    /// The capture's id (shared by the streams that joined it).
    id: u64,
    graph: GraphId,
    mode: CaptureMode,
    /// The thread that began it.
    thread: ThreadId,
    /// The stream that began it.
    origin: StreamId,
    invalidated: bool,
    /// The nodes the next captured work waits for.
    leaves: Vec<NodeId>,
}

#[derive(Default)]
struct Table {
    graphs: HashMap<GraphId, Graph>,
    execs: HashMap<ExecId, Exec>,
    capturing: HashMap<StreamId, Capturing>,
    /// Events recorded in a capture: the capture and the nodes before the record.
    recorded: HashMap<EventId, (u64, Vec<NodeId>)>,
    /// Nodes made by capture, per capture (the unjoined check looks at these only).
    captured: HashMap<u64, HashSet<NodeId>>,
    /// Allocation-node addresses that have a free node.
    freed: HashSet<usize>,
}

/// The graphs, execs and captures of one process.
#[derive(Default)]
pub(super) struct Graphs {
    next: AtomicU64,
    table: Mutex<Table>,
}

impl std::fmt::Debug for Graphs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graphs").finish_non_exhaustive()
    }
}

impl Graphs {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }
}

thread_local! {
    /// The calling thread's capture mode (`hipThreadExchangeStreamCaptureMode`,
    /// `cuThreadExchangeStreamCaptureMode`).
    static MODE: std::cell::Cell<CaptureMode> = const { std::cell::Cell::new(CaptureMode::Global) };
}

/// Swaps the calling thread's capture mode with `mode`; returns the old one.
pub fn exchange_capture_mode(mode: CaptureMode) -> CaptureMode {
    MODE.with(|m| m.replace(mode))
}

fn add_node(t: &mut Table, id: NodeId, graph: GraphId, op: Op, deps: &[NodeId]) -> Result<(), GraphError> {
    let g = t.graphs.get_mut(&graph).ok_or(GraphError::UnknownGraph(graph.0))?;
    let mut seen = HashSet::new();
    for d in deps {
        if !g.nodes.contains_key(d) {
            return Err(GraphError::ForeignDependency(d.0));
        }
        if !seen.insert(*d) {
            return Err(GraphError::DuplicateDependency(d.0));
        }
    }
    g.nodes.insert(id, Node { op, deps: deps.to_vec() });
    Ok(())
}

/// The nodes of `g` in a dependency order (the lowest id first among those ready).
fn topo(g: &Graph) -> Vec<NodeId> {
    let mut waiting: BTreeMap<NodeId, usize> = g.nodes.iter().map(|(id, n)| (*id, n.deps.len())).collect();
    let mut dependents: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for (id, n) in &g.nodes {
        for d in &n.deps {
            dependents.entry(*d).or_default().push(*id);
        }
    }
    let mut ready: std::collections::BTreeSet<NodeId> =
        waiting.iter().filter(|(_, n)| **n == 0).map(|(id, _)| *id).collect();
    let mut order = Vec::with_capacity(g.nodes.len());
    while let Some(id) = ready.pop_first() {
        order.push(id);
        for d in dependents.get(&id).into_iter().flatten() {
            if let Some(n) = waiting.get_mut(d) {
                *n -= 1;
                if *n == 0 {
                    ready.insert(*d);
                }
            }
        }
    }
    waiting.clear();
    order
}

impl Emulator {
    /// A new, empty graph of `device`.
    pub fn graph_create(&self, device: u32) -> GraphId {
        let id = GraphId(self.graphs.next());
        self.graphs.lock().graphs.insert(id, Graph { device, nodes: BTreeMap::new(), instantiated: false });
        id
    }

    /// Whether `g` is a live graph.
    pub fn graph_exists(&self, g: GraphId) -> bool {
        self.graphs.lock().graphs.contains_key(&g)
    }

    /// The device a graph was made for.
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`].
    pub fn graph_device(&self, g: GraphId) -> Result<u32, GraphError> {
        self.graphs.lock().graphs.get(&g).map(|g| g.device).ok_or(GraphError::UnknownGraph(g.0))
    }

    /// Adds a node doing `op` to `graph`, after `deps` (nodes of that graph, each once).
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`], [`GraphError::ForeignDependency`],
    /// [`GraphError::DuplicateDependency`], and for a free node
    /// [`GraphError::NotGraphMemory`] or [`GraphError::FreedTwice`].
    pub fn graph_add(&self, graph: GraphId, op: Op, deps: &[NodeId]) -> Result<NodeId, GraphError> {
        let mut t = self.graphs.lock();
        if let Op::Free { addr } = op {
            let known = t
                .graphs
                .values()
                .flat_map(|g| g.nodes.values())
                .any(|n| matches!(n.op, Op::Alloc { addr: a, .. } if a == addr));
            if !known {
                return Err(GraphError::NotGraphMemory(addr));
            }
            if t.freed.contains(&addr) {
                return Err(GraphError::FreedTwice(addr));
            }
        }
        let free = if let Op::Free { addr } = op { Some(addr) } else { None };
        let id = NodeId(self.graphs.next());
        add_node(&mut t, id, graph, op, deps)?;
        if let Some(a) = free {
            t.freed.insert(a);
        }
        Ok(id)
    }

    /// The nodes of `graph` in a dependency order.
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`].
    pub fn graph_nodes(&self, graph: GraphId) -> Result<Vec<NodeId>, GraphError> {
        let t = self.graphs.lock();
        t.graphs.get(&graph).map(topo).ok_or(GraphError::UnknownGraph(graph.0))
    }

    /// The nodes of `graph` that wait for no other, in the order they were added.
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`].
    pub fn graph_roots(&self, graph: GraphId) -> Result<Vec<NodeId>, GraphError> {
        let t = self.graphs.lock();
        let g = t.graphs.get(&graph).ok_or(GraphError::UnknownGraph(graph.0))?;
        Ok(g.nodes.iter().filter(|(_, n)| n.deps.is_empty()).map(|(id, _)| *id).collect())
    }

    /// The type of `node` of any live graph.
    pub fn graph_node_type(&self, node: NodeId) -> Option<NodeType> {
        let t = self.graphs.lock();
        t.graphs.values().find_map(|g| g.nodes.get(&node)).map(|n| n.op.node_type())
    }

    /// Destroys `graph`; its execs stay usable (each has its own copy).
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`].
    pub fn graph_destroy(&self, graph: GraphId) -> Result<(), GraphError> {
        let g = {
            let mut t = self.graphs.lock();
            let g = t.graphs.remove(&graph).ok_or(GraphError::UnknownGraph(graph.0))?;
            for n in g.nodes.values() {
                if let Op::Alloc { addr, .. } = n.op {
                    t.freed.remove(&addr);
                }
            }
            g
        };
        // Memory of its allocation nodes is released outside the lock.
        drop(g);
        Ok(())
    }

    /// Instantiates `graph`: a copy of its nodes in a dependency order.
    ///
    /// # Errors
    /// [`GraphError::UnknownGraph`]; [`GraphError::ReinstantiatedAlloc`].
    pub fn graph_instantiate(&self, graph: GraphId) -> Result<ExecId, GraphError> {
        let mut t = self.graphs.lock();
        let g = t.graphs.get_mut(&graph).ok_or(GraphError::UnknownGraph(graph.0))?;
        let has_mem = g.nodes.values().any(|n| matches!(n.op, Op::Alloc { .. } | Op::Free { .. }));
        if g.instantiated && has_mem {
            return Err(GraphError::ReinstantiatedAlloc);
        }
        g.instantiated = true;
        let order = topo(g);
        let ops: Vec<Op> = order.iter().filter_map(|id| g.nodes.get(id)).map(|n| n.op.clone()).collect();
        let freed: HashSet<usize> =
            ops.iter().filter_map(|o| if let Op::Free { addr } = o { Some(*addr) } else { None }).collect();
        let keeps_memory = ops.iter().any(|o| matches!(o, Op::Alloc { addr, .. } if !freed.contains(addr)));
        let id = ExecId(self.graphs.next());
        t.execs.insert(id, Exec { ops, launched: false, keeps_memory });
        Ok(id)
    }

    /// Whether `exec` is a live exec.
    pub fn exec_exists(&self, exec: ExecId) -> bool {
        self.graphs.lock().execs.contains_key(&exec)
    }

    /// Destroys `exec`; a launch already enqueued still runs.
    ///
    /// # Errors
    /// [`GraphError::UnknownExec`].
    pub fn exec_destroy(&self, exec: ExecId) -> Result<(), GraphError> {
        let x = self.graphs.lock().execs.remove(&exec).ok_or(GraphError::UnknownExec(exec.0))?;
        drop(x);
        Ok(())
    }

    /// Enqueues the nodes of `exec` on `stream` in their dependency order.
    /// A launch is not captured: it runs on the stream even while it captures.
    ///
    /// # Errors
    /// [`GraphError::UnknownExec`], [`GraphError::AllocStillLive`] (as a
    /// [`CoreError::Graph`]); [`CoreError::UnknownStream`],
    /// [`CoreError::UnknownEvent`] for a record or wait node of a destroyed event.
    pub fn graph_launch(&self, exec: ExecId, stream: StreamId) -> Result<(), CoreError> {
        if !self.stream_exists(stream) {
            return Err(CoreError::UnknownStream(stream.0));
        }
        let ops = {
            let mut t = self.graphs.lock();
            let x = t.execs.get_mut(&exec).ok_or(CoreError::Graph(GraphError::UnknownExec(exec.0)))?;
            if x.launched && x.keeps_memory {
                return Err(CoreError::Graph(GraphError::AllocStillLive));
            }
            x.launched = true;
            x.ops.clone()
        };
        for op in ops {
            let work = match op {
                Op::Empty | Op::Alloc { .. } | Op::Free { .. } => continue,
                Op::Copy { dst, src, len } => Work::Copy { dst, src, len },
                Op::CopyRows(c) => Work::CopyRows(c),
                Op::Fill { dst, pattern, width, count, rows: 1, .. } => Work::Fill { dst, pattern, width, count },
                Op::Fill { dst, pitch, pattern, width, count, rows } => {
                    Work::FillRows { dst, pattern, width, count, pitch, rows }
                }
                Op::WriteValue { addr, value, width } => Work::WriteValue { addr, value, width },
                Op::Host(f) => Work::Call(f),
                Op::Record(ev) => {
                    let ev = self.event(ev)?;
                    Work::Record { cell: ev.cell.clone(), seq: ev.cell.next() }
                }
                Op::Wait(ev) => {
                    let ev = self.event(ev)?;
                    let seq = ev.cell.last();
                    if seq == 0 {
                        continue;
                    }
                    Work::Wait { cell: ev.cell.clone(), seq }
                }
            };
            // SAFETY: the node's memory, as its maker promised for the graph's runs.
            unsafe { self.enqueue_uncaptured(stream, work)? };
        }
        Ok(())
    }

    // ---- capture ------------------------------------------------------------

    /// Begins capturing `stream` into a new graph of `device`, in `mode`, by the calling thread.
    ///
    /// # Errors
    /// [`GraphError::AlreadyCapturing`].
    pub fn capture_begin(&self, stream: StreamId, device: u32, mode: CaptureMode) -> Result<(), GraphError> {
        let graph = GraphId(self.graphs.next());
        let id = self.graphs.next();
        let mut t = self.graphs.lock();
        if t.capturing.contains_key(&stream) {
            return Err(GraphError::AlreadyCapturing(stream.0));
        }
        t.graphs.insert(graph, Graph { device, nodes: BTreeMap::new(), instantiated: false });
        t.captured.insert(id, HashSet::new());
        let thread = std::thread::current().id();
        t.capturing.insert(
            stream,
            Capturing { id, graph, mode, thread, origin: stream, invalidated: false, leaves: Vec::new() },
        );
        Ok(())
    }

    /// Ends the capture `stream` began; returns its graph.
    ///
    /// # Errors
    /// [`GraphError::NotCapturing`], [`GraphError::Unmatched`],
    /// [`GraphError::WrongThread`] (the capture goes on); then, the capture
    /// ended, [`GraphError::Invalidated`] or [`GraphError::Unjoined`] (its graph destroyed).
    pub fn capture_end(&self, stream: StreamId) -> Result<GraphId, GraphError> {
        let mut t = self.graphs.lock();
        let c = t.capturing.get(&stream).ok_or(GraphError::NotCapturing(stream.0))?;
        if c.origin != stream {
            return Err(GraphError::Unmatched(stream.0));
        }
        if c.mode != CaptureMode::Relaxed && c.thread != std::thread::current().id() {
            return Err(GraphError::WrongThread);
        }
        let (id, graph, invalidated, leaves) = (c.id, c.graph, c.invalidated, c.leaves.clone());
        t.capturing.retain(|_, c| c.id != id);
        t.recorded.retain(|_, (cid, _)| *cid != id);
        let captured = t.captured.remove(&id).unwrap_or_default();
        let outcome = if invalidated {
            Err(GraphError::Invalidated)
        } else {
            let g = t.graphs.get(&graph).ok_or(GraphError::UnknownGraph(graph.0))?;
            let mut waited: HashSet<NodeId> = HashSet::new();
            for n in g.nodes.values() {
                waited.extend(n.deps.iter().copied());
            }
            let unjoined = captured.iter().any(|n| !waited.contains(n) && !leaves.contains(n));
            if unjoined { Err(GraphError::Unjoined) } else { Ok(graph) }
        };
        if outcome.is_err() {
            let g = t.graphs.remove(&graph);
            drop(t);
            drop(g);
        }
        outcome
    }

    /// The capture status of `stream`, its capture's id and graph.
    pub fn capture_info(&self, stream: StreamId) -> (CaptureStatus, u64, Option<GraphId>, Vec<NodeId>) {
        let t = self.graphs.lock();
        match t.capturing.get(&stream) {
            None => (CaptureStatus::None, 0, None, Vec::new()),
            Some(c) if c.invalidated => (CaptureStatus::Invalidated, c.id, Some(c.graph), c.leaves.clone()),
            Some(c) => (CaptureStatus::Active, c.id, Some(c.graph), c.leaves.clone()),
        }
    }

    /// The capture status of `stream`.
    pub fn capture_status(&self, stream: StreamId) -> CaptureStatus {
        self.capture_info(stream).0
    }

    /// Whether any stream of this process captures.
    pub fn capturing_any(&self) -> bool {
        !self.graphs.lock().capturing.is_empty()
    }

    /// A stream destroyed while capturing leaves its capture (an origin's capture ends).
    pub(crate) fn capture_forget(&self, stream: StreamId) {
        let mut t = self.graphs.lock();
        if let Some(c) = t.capturing.remove(&stream)
            && c.origin == stream
        {
            t.capturing.retain(|_, o| o.id != c.id);
            t.captured.remove(&c.id);
            let g = t.graphs.remove(&c.graph);
            drop(t);
            drop(g);
        }
    }

    /// A call that is not permitted while `stream` captures (a synchronize,
    /// a query): when `stream` captures, its capture is invalidated and the
    /// answer is yes; when it does not, a thread not in relaxed mode also
    /// breaks the global-mode captures of every thread and its own
    /// captures in the other modes (clr `Stream::StreamCaptureOngoing`).
    pub fn capture_ongoing(&self, stream: StreamId) -> bool {
        let mut t = self.graphs.lock();
        if let Some(c) = t.capturing.get(&stream) {
            let id = c.id;
            invalidate(&mut t, |c| c.id == id);
            return true;
        }
        if MODE.with(|m| m.get()) == CaptureMode::Relaxed {
            return false;
        }
        if invalidate(&mut t, |c| c.mode == CaptureMode::Global) {
            return true;
        }
        let me = std::thread::current().id();
        invalidate(&mut t, |c| c.mode != CaptureMode::Relaxed && c.thread == me)
    }

    /// A call that is unsafe while capturing (an allocation, a free): as
    /// the calling thread's mode says, the captures it would break are
    /// invalidated and the answer is yes (clr `CHECK_STREAM_CAPTURE_SUPPORTED`).
    pub fn capture_forbids_unsafe(&self) -> bool {
        let mode = MODE.with(|m| m.get());
        let me = std::thread::current().id();
        let mut t = self.graphs.lock();
        match mode {
            CaptureMode::Relaxed => false,
            CaptureMode::ThreadLocal => invalidate(&mut t, |c| own_unsafe(c, me)),
            CaptureMode::Global => {
                invalidate(&mut t, |c| own_unsafe(c, me)) || invalidate(&mut t, |c| c.mode == CaptureMode::Global)
            }
        }
    }

    /// Whether a call that is unsafe while capturing (a synchronous copy or
    /// fill) is refused by a capture, as the calling thread's mode says (the
    /// same captures [`Emulator::capture_forbids_unsafe`] would break), but
    /// without breaking any: CANN refuses the call and the capture goes on
    /// (`Context::IsCaptureModeSupport`).
    pub fn capture_refuses_unsafe(&self) -> bool {
        let mode = MODE.with(|m| m.get());
        let me = std::thread::current().id();
        let t = self.graphs.lock();
        t.capturing.values().any(|c| match mode {
            CaptureMode::Relaxed => false,
            CaptureMode::ThreadLocal => own_unsafe(c, me),
            CaptureMode::Global => own_unsafe(c, me) || c.mode == CaptureMode::Global,
        })
    }

    /// Whether `event`'s last record was made in a capture that is still
    /// going on; nothing is invalidated (CANN's `Event::IsCapturing`).
    pub fn capture_has_event(&self, event: EventId) -> bool {
        let t = self.graphs.lock();
        t.recorded.get(&event).is_some_and(|(id, _)| t.capturing.values().any(|c| c.id == *id))
    }

    /// Whether a capture still going on is building `graph`.
    pub fn capture_builds(&self, graph: GraphId) -> bool {
        self.graphs.lock().capturing.values().any(|c| c.graph == graph)
    }

    /// A call not permitted while any stream captures (a synchronous copy,
    /// a device synchronize): every capture is invalidated and the answer
    /// is yes (clr `CHECK_STREAM_CAPTURING`, `CHECK_SUPPORTED_DURING_CAPTURE`).
    pub fn capture_forbids_any(&self) -> bool {
        let mut t = self.graphs.lock();
        invalidate(&mut t, |_| true)
    }

    /// Whether `event`'s last record was made in a capture that is still
    /// active; that capture is invalidated (a host wait or query on it).
    pub fn capture_holds_event(&self, event: EventId) -> bool {
        let mut t = self.graphs.lock();
        let Some((id, _)) = t.recorded.get(&event).cloned() else { return false };
        invalidate(&mut t, |c| c.id == id)
    }

    /// Captures `work` enqueued on `stream` if it captures: `Ok(None)` then;
    /// `Ok(Some(work))` to run it. An invalidated capture refuses work.
    pub(super) fn capture_work(&self, stream: StreamId, work: Work) -> Result<Option<Work>, CoreError> {
        let mut t = self.graphs.lock();
        let Some(c) = t.capturing.get(&stream) else { return Ok(Some(work)) };
        if c.invalidated {
            return Err(CoreError::Graph(GraphError::Invalidated));
        }
        let (id, graph, leaves) = (c.id, c.graph, c.leaves.clone());
        let op = match work {
            Work::Copy { dst, src, len } => Op::Copy { dst, src, len },
            Work::CopyRows(c) => Op::CopyRows(c),
            Work::Fill { dst, pattern, width, count } => Op::Fill { dst, pitch: 0, pattern, width, count, rows: 1 },
            Work::FillRows { dst, pattern, width, count, pitch, rows } => {
                Op::Fill { dst, pitch, pattern, width, count, rows }
            }
            Work::WriteValue { addr, value, width } => Op::WriteValue { addr, value, width },
            Work::Call(f) => Op::Host(f),
            other => {
                let what = format!("{other:?}");
                invalidate(&mut t, |c| c.id == id);
                return Err(CoreError::Graph(GraphError::NotCapturable(what)));
            }
        };
        let node = NodeId(self.graphs.next());
        add_node(&mut t, node, graph, op, &leaves).map_err(CoreError::Graph)?;
        t.captured.entry(id).or_default().insert(node);
        if let Some(c) = t.capturing.get_mut(&stream) {
            c.leaves = vec![node];
        }
        Ok(None)
    }

    /// Adds a node doing `op` to the capture of `stream`, after its last
    /// captured nodes (allocation and free nodes, which the dialects make).
    ///
    /// # Errors
    /// [`GraphError::NotCapturing`], [`GraphError::Invalidated`], what [`Emulator::graph_add`] says.
    pub fn capture_add(&self, stream: StreamId, op: Op) -> Result<NodeId, GraphError> {
        let (id, graph, leaves) = {
            let t = self.graphs.lock();
            let c = t.capturing.get(&stream).ok_or(GraphError::NotCapturing(stream.0))?;
            if c.invalidated {
                return Err(GraphError::Invalidated);
            }
            (c.id, c.graph, c.leaves.clone())
        };
        let node = self.graph_add(graph, op, &leaves)?;
        let mut t = self.graphs.lock();
        t.captured.entry(id).or_default().insert(node);
        if let Some(c) = t.capturing.get_mut(&stream) {
            c.leaves = vec![node];
        }
        Ok(node)
    }

    /// An event record on a capturing stream: the event remembers the
    /// capture's last nodes; nothing runs. `Ok(false)`: not capturing.
    pub(super) fn capture_record(&self, stream: StreamId, event: EventId) -> Result<bool, CoreError> {
        let mut t = self.graphs.lock();
        let Some(c) = t.capturing.get(&stream) else { return Ok(false) };
        if c.invalidated {
            return Err(CoreError::Graph(GraphError::Invalidated));
        }
        let entry = (c.id, c.leaves.clone());
        t.recorded.insert(event, entry);
        Ok(true)
    }

    /// A stream's wait for an event recorded in a capture: the stream joins
    /// that capture (if it does not capture) and its next captured work
    /// waits for the nodes before the record. `Ok(false)`: the event was
    /// not recorded in a capture, and a capturing stream's wait becomes a
    /// wait node.
    pub(super) fn capture_wait(&self, stream: StreamId, event: EventId) -> Result<bool, CoreError> {
        let mut t = self.graphs.lock();
        let Some((id, nodes)) = t.recorded.get(&event).cloned() else {
            let Some(c) = t.capturing.get(&stream) else { return Ok(false) };
            if c.invalidated {
                return Err(CoreError::Graph(GraphError::Invalidated));
            }
            drop(t);
            self.capture_add(stream, Op::Wait(event)).map_err(CoreError::Graph)?;
            return Ok(true);
        };
        let Some(origin) = t.capturing.values().find(|c| c.id == id) else { return Ok(false) };
        let (graph, mode, thread, origin_stream, invalidated) =
            (origin.graph, origin.mode, origin.thread, origin.origin, origin.invalidated);
        match t.capturing.get_mut(&stream) {
            Some(c) if c.id == id => {
                for n in nodes {
                    if !c.leaves.contains(&n) {
                        c.leaves.push(n);
                    }
                }
            }
            Some(_) => {
                // A merge of two captures: neither vendor's programs need it here.
                invalidate(&mut t, |c| c.id == id);
                return Err(CoreError::Graph(GraphError::Invalidated));
            }
            None => {
                t.capturing.insert(
                    stream,
                    Capturing { id, graph, mode, thread, origin: origin_stream, invalidated, leaves: nodes },
                );
            }
        }
        Ok(true)
    }
}

/// Whether `c` is a capture of thread `me` that its unsafe calls break
/// (begun by it, not in relaxed mode).
fn own_unsafe(c: &Capturing, me: ThreadId) -> bool {
    c.mode != CaptureMode::Relaxed && c.thread == me
}

/// Invalidates the captures `which` picks; whether there was any.
fn invalidate(t: &mut Table, which: impl Fn(&Capturing) -> bool) -> bool {
    let mut any = false;
    for c in t.capturing.values_mut().filter(|c| which(c)) {
        c.invalidated = true;
        any = true;
    }
    any
}
