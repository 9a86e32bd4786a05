//! The C values of graphs, graph nodes and instantiated graphs, shared by
//! the dialects (`hipGraph_t` and `CUgraph` are both opaque pointers):
//! tagged [`HandleTag`] values, looked up, never dereferenced.

use std::ffi::c_void;

use vmmkit_sys::rule::Rule;

use crate::core::{Emulator, EventId, ExecId, GraphError, GraphId, GraphOp, HandleId, HandleTag, NodeId};
use crate::dialect::{Dialect, Fail};
use crate::ffi::{In, Out};

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

/// What a dialect gives the graph calls written once below: the rule its
/// node adds' NULL arguments break, how it reaches the emulator and the
/// device a node works on, and its codes for graph errors. A vendor's
/// differences (rules, codes, the order of its checks) stay its own; the
/// sequence of a node add, an instantiate or an exec destroy is here.
pub(crate) trait GraphDialect: Dialect + Sized {
    /// The rule a NULL node pointer, graph, dependency list or parameter
    /// of a node add breaks.
    const NODE_ARGS: &'static Rule;

    /// The emulator, as the dialect's entry points reach it.
    fn emulator() -> Result<&'static Emulator, Fail<Self>>;

    /// The device a node add works on, found before the graph is looked up
    /// (CUDA: the current context's, which it needs).
    fn add_device() -> Result<u32, Fail<Self>>;

    /// A graph or capture error as the dialect's failure, under its rule.
    fn graph_fail(g: GraphError) -> Fail<Self>;

    /// The live event `ev` names (none: the call succeeds without a node,
    /// as after a mutated-away check), or the dialect's failure.
    fn event(e: &Emulator, ev: *mut c_void) -> Result<Option<EventId>, Fail<Self>>;
}

/// The live graph `v` names, or the dialect's invalid-argument code.
pub(crate) fn live_graph<V: Dialect>(e: &Emulator, v: *mut c_void) -> Result<GraphId, Fail<V>> {
    graph_of(e, v).ok_or_else(|| Fail::plain(V::NULL, format!("{v:p} is not a live graph")))
}

/// The live exec `v` names, or the dialect's invalid-argument code.
pub(crate) fn live_exec<V: Dialect>(e: &Emulator, v: *mut c_void) -> Result<ExecId, Fail<V>> {
    exec_of(e, v).ok_or_else(|| Fail::plain(V::NULL, format!("{v:p} is not a live instantiated graph")))
}

/// The four arguments every node add of both APIs starts with: the node
/// it writes, the graph, the dependency list and its length. The entry
/// points [`node_adds!`] makes hand them to their bodies as one value.
pub(crate) struct NodeAdd<'a> {
    /// Where the new node's value goes.
    pub node: Out<'a, *mut c_void>,
    /// The graph added to.
    pub graph: *mut c_void,
    /// The nodes the new one depends on (`n` values, or NULL for none).
    pub deps: In<'a, *mut c_void>,
    /// How many values `deps` holds.
    pub n: usize,
}

impl NodeAdd<'_> {
    /// A node add of any dialect: the NULL checks under
    /// [`GraphDialect::NODE_ARGS`] (with the add's own `args_ok`), the
    /// device, the graph, then the node `make` builds (none: the add
    /// succeeds without a node, as after a mutated-away check), written to
    /// the node pointer.
    pub(crate) fn add<V: GraphDialect>(
        self,
        args_ok: bool,
        make: impl FnOnce(&'static Emulator, u32) -> Result<Option<GraphOp>, Fail<V>>,
    ) -> Result<(), Fail<V>> {
        let Self { node, graph, deps, n } = self;
        let bad = node.is_null() || graph.is_null() || (n > 0 && deps.is_null());
        if (bad || !args_ok) && crate::mutation::enforced(V::NODE_ARGS) {
            let msg = "a NULL node pointer, graph, dependency list or parameter";
            return Err(Fail::rule(V::NODE_ARGS, msg.to_owned()));
        }
        if bad {
            return Ok(());
        }
        let d = V::add_device()?;
        let e = V::emulator()?;
        let g = live_graph(e, graph)?;
        let deps = deps_of(deps, n);
        let Some(op) = make(e, d)? else { return Ok(()) };
        let id = e.graph_add(g, op, &deps).map_err(V::graph_fail)?;
        node.write(node_value(id))?;
        Ok(())
    }

    /// An event record or wait node: the event [`GraphDialect::event`]
    /// finds (NULL: the add's NULL rule), as the node `op` makes of it.
    pub(crate) fn event<V: GraphDialect>(self, ev: *mut c_void, op: fn(EventId) -> GraphOp) -> Result<(), Fail<V>> {
        self.add(!ev.is_null(), |e, _| Ok(V::event(e, ev)?.map(op)))
    }

    /// A host node: the program's function `fn_` called with `user` (no
    /// parameters or no function: the add's NULL rule).
    pub(crate) fn host<V: GraphDialect>(
        self,
        params: Option<(Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void)>,
    ) -> Result<(), Fail<V>> {
        let host = params.and_then(|(f, user)| Some((f?, user as usize)));
        self.add(host.is_some(), |_, _| {
            let Some((f, user)) = host else { return Ok(None) };
            // SAFETY: the program's function and argument, called as a host node promises.
            Ok(Some(GraphOp::Host(std::sync::Arc::new(move || unsafe { f(user as *mut c_void) }))))
        })
    }
}

/// The node adds of dialect `$V` (its code `$R`, its node, graph and
/// event types): every node add of both APIs starts with the same four
/// arguments (the node it writes, the graph, the dependency list and its
/// length), which its body sees as one [`NodeAdd`]. The adds that are the
/// same in both APIs are named by their kind alone:
///
/// - `host NAME(PARAMS);`: a host node from a record with `fn_` and `userData`;
/// - `record NAME;`, `wait NAME;`: an event record or wait node;
/// - `empty NAME;`: an empty node;
///
/// and a dialect's own is written as its own arguments and body, under a
/// name for the [`NodeAdd`]: `fn hipGraphAddMemFreeNode(add, dev_ptr: *mut c_void) { … }`.
/// Each entry's attributes (its docs) come first; each is the dialect's
/// entry point of that name, with the vendor's C signature (sys's function
/// lists).
macro_rules! node_adds {
    ($V:ty => $R:ty, node: $Node:ty, graph: $Graph:ty, event: $Event:ty; $($entries:tt)*) => {
        $crate::graph_values::node_adds!(@each [$V, $R, $Node, $Graph, $Event] $($entries)*);
    };
    (@each $cx:tt) => {};
    (@each $cx:tt $(#[$m:meta])* host $name:ident($P:ty); $($rest:tt)*) => {
        $crate::graph_values::node_adds!(@one $cx $(#[$m])* $name(add, params: $crate::ffi::In<'_, $P>) {
            add.host(params.read_if_given().map(|p| (p.fn_, p.userData)))
        });
        $crate::graph_values::node_adds!(@each $cx $($rest)*);
    };
    (@each [$V:ty, $R:ty, $Node:ty, $Graph:ty, $Event:ty] $(#[$m:meta])* record $name:ident; $($rest:tt)*) => {
        $crate::graph_values::node_adds!(@one [$V, $R, $Node, $Graph, $Event] $(#[$m])* $name(add, event: $Event) {
            add.event(event, $crate::core::GraphOp::Record)
        });
        $crate::graph_values::node_adds!(@each [$V, $R, $Node, $Graph, $Event] $($rest)*);
    };
    (@each [$V:ty, $R:ty, $Node:ty, $Graph:ty, $Event:ty] $(#[$m:meta])* wait $name:ident; $($rest:tt)*) => {
        $crate::graph_values::node_adds!(@one [$V, $R, $Node, $Graph, $Event] $(#[$m])* $name(add, event: $Event) {
            add.event(event, $crate::core::GraphOp::Wait)
        });
        $crate::graph_values::node_adds!(@each [$V, $R, $Node, $Graph, $Event] $($rest)*);
    };
    (@each $cx:tt $(#[$m:meta])* empty $name:ident; $($rest:tt)*) => {
        $crate::graph_values::node_adds!(@one $cx $(#[$m])* $name(add) {
            add.add(true, |_, _| Ok(Some($crate::core::GraphOp::Empty)))
        });
        $crate::graph_values::node_adds!(@each $cx $($rest)*);
    };
    (@each $cx:tt $(#[$m:meta])* fn $name:ident($add:ident $(, $a:ident: $t:ty)* $(,)?) $body:block $($rest:tt)*) => {
        $crate::graph_values::node_adds!(@one $cx $(#[$m])* $name($add $(, $a: $t)*) $body);
        $crate::graph_values::node_adds!(@each $cx $($rest)*);
    };
    (@one [$V:ty, $R:ty, $Node:ty, $Graph:ty, $Event:ty] $(#[$m:meta])* $name:ident($add:ident $(, $a:ident: $t:ty)*) $body:block) => {
        $(#[$m])*
        pub extern "C" fn $name(
            node: $crate::ffi::Out<'_, $Node>,
            graph: $Graph,
            deps: $crate::ffi::In<'_, $Node>,
            n: usize,
            $($a: $t),*
        ) -> $R {
            $crate::dialect::run::<$V>(stringify!($name), || {
                let $add = $crate::graph_values::NodeAdd { node, graph, deps, n };
                $body
            })
        }
    };
}
pub(crate) use node_adds;

/// Instantiates live graph `graph` into `out` (both checked non-NULL).
pub(crate) fn instantiate_into<V: GraphDialect>(out: Out<'_, *mut c_void>, graph: *mut c_void) -> Result<(), Fail<V>> {
    let e = V::emulator()?;
    let g = live_graph(e, graph)?;
    let x = e.graph_instantiate(g).map_err(V::graph_fail)?;
    out.write(exec_value(x))?;
    Ok(())
}

/// Destroys live exec `exec`; a launch already enqueued still runs.
pub(crate) fn destroy_exec<V: GraphDialect>(exec: *mut c_void) -> Result<(), Fail<V>> {
    let e = V::emulator()?;
    let x = live_exec(e, exec)?;
    e.exec_destroy(x).map_err(V::graph_fail)
}
