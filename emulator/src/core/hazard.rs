//! The unsynchronised-access report of streams, by happens-before.
//!
//! Every agent of a process — the host, and each stream — keeps a vector
//! clock, as ThreadSanitizer and compute-sanitizer's racecheck reason:
//!
//! - a stream ticks its own component at each work it runs, and joins the
//!   host's clock as it was when the work was enqueued (the host's program
//!   order: work enqueued after a host access is ordered after it);
//! - a record stores its stream's clock beside the record, keyed by the
//!   cell (an event's, a notify's); a wait, a notify's wait-and-reset and
//!   the host's synchronize or successful query of an event join it;
//! - a wait on another stream's progress (the legacy stream's implicit
//!   ordering) and the host's synchronize or successful query of a stream
//!   or a device join that stream's clock;
//! - a host function (a callback) runs as its stream: what it does is
//!   ordered by the stream.
//!
//! Each access (a copy's source and destination, a fill, a value write, a
//! host copy or fill) is kept with its agent and that agent's component at
//! the access. A later access by another agent whose clock has not reached
//! that component, where one of the two writes, is a [`Hazard`]: neither
//! is ordered before the other. The check is made when stream work runs,
//! and for the host at its access against work enqueued and not yet run, so
//! the report does not depend on which of the two ran first: under `async`
//! and `adversarial` alike, a race is reported and an ordered program never.
//!
//! Across processes: an access to memory with a registry entry (exported,
//! imported, IPC memory) is also written into that memory's shared access
//! history and checked against the other processes' accesses there
//! (`access_history.rs`). Components of other processes' agents live in a
//! clock beside this process's, keyed by pid: a record on a shared cell (an
//! IPC event, a notify) stores the components of the agents that touched
//! shared memory in the cell's file (`cell.rs` `RecordClock`), and a wait in
//! any process joins them. A host synchronize marks its process's accesses
//! in the histories as done; an access another process enqueues after that
//! is taken as ordered after them (the message that told it so is not seen).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use super::access_history::{Piece, Published, SharedAccess};
use super::cell::{Cell, Recorder, now_ns};
use super::stream::StreamId;

/// Who made an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// The host (a synchronous copy or fill).
    Host,
    /// A stream's work (or a host function it ran).
    Stream(StreamId),
}

impl Agent {
    fn index(self) -> usize {
        match self {
            Agent::Host => 0,
            Agent::Stream(s) => usize::try_from(s.0).unwrap_or(usize::MAX),
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Agent::Host => f.write_str("the host"),
            Agent::Stream(s) => write!(f, "stream {}", s.0),
        }
    }
}

/// One side of a [`Hazard`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Who.
    pub agent: Agent,
    /// The process (its pid).
    pub pid: u32,
    /// Whether it wrote (else it read).
    pub write: bool,
    /// The first address of the range.
    pub addr: usize,
    /// Bytes.
    pub len: usize,
    /// The entry point that enqueued the work (or made the host access);
    /// empty when the emulator was called directly.
    pub call: &'static str,
    /// What the work is (`copy`, `fill`, `write value`, `host copy`).
    pub what: &'static str,
}

impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.write { "writes" } else { "reads" };
        write!(f, "{} (process {}) {verb} {:#x} bytes at {:#x}", self.agent, self.pid, self.len, self.addr)?;
        write!(f, " [{}", self.what)?;
        if !self.call.is_empty() {
            let how = if self.agent == Agent::Host { "in" } else { "enqueued by" };
            write!(f, " {how} {}", self.call)?;
        }
        f.write_str("]")
    }
}

/// Two accesses to the same bytes, at least one a write, neither ordered
/// before the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The access made (or enqueued) first.
    pub first: Access,
    /// The access that found it.
    pub second: Access,
    /// The first byte both touch.
    pub addr: usize,
}

impl Hazard {
    /// `read-after-write`, `write-after-read` or `write-after-write`, in
    /// the order the two were found.
    pub fn kind(&self) -> &'static str {
        match (self.first.write, self.second.write) {
            (true, false) => "read-after-write",
            (false, true) => "write-after-read",
            _ => "write-after-write",
        }
    }

    /// What would order the two.
    pub fn remedy(&self) -> String {
        let (a, b) = (&self.first, &self.second);
        if a.pid != b.pid {
            return format!(
                "order them across the processes: record an interprocess event (or a notify) after the access of \
                 {} in process {} and make {} in process {} wait on it (a stream wait, or the host's synchronize \
                 of the event) before its own; or synchronise in process {} before telling process {} (or the \
                 other way round)",
                a.agent, a.pid, b.agent, b.pid, a.pid, b.pid
            );
        }
        match (self.first.agent, self.second.agent) {
            (Agent::Stream(a), Agent::Host) | (Agent::Host, Agent::Stream(a)) => format!(
                "synchronise stream {} (or an event recorded on it after its access) before the host's access, \
                 or enqueue the stream's access after it",
                a.0
            ),
            (Agent::Stream(a), Agent::Stream(b)) => format!(
                "record an event on stream {} after its access and make stream {} wait on it before its own \
                 (or the other way round)",
                a.0, b.0
            ),
            (Agent::Host, Agent::Host) => "nothing: the host is ordered with itself".into(),
        }
    }
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unsynchronised access ({}) at {:#x}: {}, and {}, with nothing ordering either before the other; {}",
            self.kind(),
            self.addr,
            self.first,
            self.second,
            self.remedy()
        )
    }
}

/// How many unsynchronised accesses a process prints.
const PRINTED: u64 = 16;
/// Accesses kept at most (the oldest go first).
const KEPT: usize = 4096;
/// Record clocks kept before those of dead cells are dropped.
const RECORDS: usize = 1024;
/// Accesses to shared memory kept to be marked done at the next synchronize.
const PUBLISHED: usize = 4096;

/// A vector clock: index 0 the host, index n stream n; and the components
/// of other processes' agents learnt through shared cells, as
/// `(pid, agent, counter)` sorted by pid and agent (empty unless this
/// process waited on another's record).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Clock {
    local: Vec<u32>,
    remote: Vec<(u32, u32, u32)>,
}

impl Clock {
    fn get(&self, i: usize) -> u32 {
        self.local.get(i).copied().unwrap_or(0)
    }

    fn tick(&mut self, i: usize) -> u32 {
        if self.local.len() <= i {
            self.local.resize(i + 1, 0);
        }
        self.local[i] += 1;
        self.local[i]
    }

    fn join(&mut self, o: &Clock) {
        if self.local.len() < o.local.len() {
            self.local.resize(o.local.len(), 0);
        }
        for (a, b) in self.local.iter_mut().zip(&o.local) {
            *a = (*a).max(*b);
        }
        for &(pid, agent, v) in &o.remote {
            self.raise_remote(pid, agent, v);
        }
    }

    /// The component of `agent` of process `pid`.
    fn remote_get(&self, pid: u32, agent: u32) -> u32 {
        self.remote.binary_search_by_key(&(pid, agent), |r| (r.0, r.1)).map_or(0, |i| self.remote[i].2)
    }

    fn raise_remote(&mut self, pid: u32, agent: u32, v: u32) {
        match self.remote.binary_search_by_key(&(pid, agent), |r| (r.0, r.1)) {
            Ok(i) => self.remote[i].2 = self.remote[i].2.max(v),
            Err(i) => self.remote.insert(i, (pid, agent, v)),
        }
    }

    /// As a shared cell carries it to other processes: this process's
    /// components under `me`, of the agents in `shared` only (those that
    /// accessed shared memory: no other process can race the others).
    fn triples(&self, me: u32, shared: &HashSet<u32>) -> Vec<(u32, u32, u32)> {
        let mut out: Vec<(u32, u32, u32)> = (self.local.iter().enumerate())
            .filter(|(i, v)| **v != 0 && u32::try_from(*i).is_ok_and(|i| shared.contains(&i)))
            .map(|(i, &v)| (me, u32::try_from(i).unwrap_or(u32::MAX), v))
            .collect();
        out.extend(self.remote.iter().copied());
        out
    }

    /// Read back from a shared cell by process `me`.
    fn from_triples(me: u32, triples: &[(u32, u32, u32)]) -> Self {
        let mut c = Clock::default();
        for &(pid, agent, v) in triples {
            if pid == me {
                let i = agent as usize;
                if c.local.len() <= i {
                    c.local.resize(i + 1, 0);
                }
                c.local[i] = c.local[i].max(v);
            } else {
                c.raise_remote(pid, agent, v);
            }
        }
        c
    }
}

/// The host's clock as a work was enqueued: the work is ordered after
/// everything the host did before.
pub(super) type Snapshot = Arc<Clock>;

/// A range a work of a stream reads or writes, as kept.
#[derive(Debug, Clone)]
struct Entry {
    /// The work (several ranges of one work share it).
    id: u64,
    agent: Agent,
    /// Its agent's component at the access.
    epoch: u32,
    start: usize,
    end: usize,
    write: bool,
    call: &'static str,
    what: &'static str,
}

impl Entry {
    fn access(&self, pid: u32) -> Access {
        Access {
            agent: self.agent,
            pid,
            write: self.write,
            addr: self.start,
            len: self.end - self.start,
            call: self.call,
            what: self.what,
        }
    }

    fn conflicts(&self, start: usize, end: usize, write: bool) -> bool {
        self.start < end && start < self.end && (self.write || write)
    }
}

/// The ranges a work reads and writes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Ranges {
    /// Read: start and length.
    pub(super) read: Option<(usize, usize)>,
    /// Written: start and length.
    pub(super) write: Option<(usize, usize)>,
    /// What the work is.
    pub(super) what: &'static str,
}

/// Work enqueued and not yet run that accesses memory.
#[derive(Debug)]
struct Pending {
    id: u64,
    stream: StreamId,
    seq: u32,
    ranges: Ranges,
    call: &'static str,
    /// When it was enqueued (`CLOCK_MONOTONIC` ns; 0 when this process
    /// mapped no shared memory then).
    at_ns: u64,
}

#[derive(Debug, Default)]
struct State {
    host: Snapshot,
    /// A snapshot of `host` was handed out since it last ticked: the host's
    /// next access ticks, so that the work enqueued is not ordered after it.
    handed_out: bool,
    streams: HashMap<StreamId, Clock>,
    /// The clock of the last record run on each cell, by the cell's address.
    records: HashMap<usize, (Weak<Cell>, Clock)>,
    /// Streams' progress cells, by address: a wait on one joins the stream.
    progress: HashMap<usize, StreamId>,
    history: Vec<Entry>,
    pending: Vec<Pending>,
    /// Pairs of works already reported (by the host's check at its access).
    reported: HashSet<(u64, u64)>,
    next_id: u64,
    /// Accesses to shared memory not yet known done by the host: marked in
    /// their history when a synchronize learns they are.
    published: VecDeque<Published>,
    /// The agents of this process that accessed shared memory: those whose
    /// components a shared cell carries to other processes.
    shared_agents: HashSet<u32>,
}

impl State {
    fn clock_of(&self, agent: Agent) -> Option<&Clock> {
        match agent {
            Agent::Host => Some(&self.host),
            Agent::Stream(s) => self.streams.get(&s),
        }
    }

    /// Checks an access of `start..end` by `agent` (clock `c`) against the
    /// history, keeps it, and drops what it makes redundant.
    fn access(&mut self, agent: Agent, c: &Clock, e: Entry, found: &mut Vec<(Entry, Entry)>) {
        for h in &self.history {
            if h.agent != agent
                && h.conflicts(e.start, e.end, e.write)
                && c.get(h.agent.index()) < h.epoch
                && !self.reported.contains(&(h.id, e.id))
            {
                found.push((h.clone(), e.clone()));
            }
        }
        // An earlier access ordered before this one, within its range, of a
        // kind it subsumes: whatever races the earlier races this one.
        self.history.retain(|h| {
            !(c.get(h.agent.index()) >= h.epoch && e.start <= h.start && h.end <= e.end && (e.write || !h.write))
        });
        if self.history.len() >= KEPT {
            self.history.remove(0);
        }
        self.history.push(e);
    }

    /// Drops the accesses every agent that may still access memory is ordered after.
    fn prune(&mut self) {
        let busy: Vec<&Clock> = {
            let mut ids: Vec<StreamId> = self.pending.iter().map(|p| p.stream).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.iter().filter_map(|s| self.streams.get(s)).collect()
        };
        let host = self.host.clone();
        let idle = self.pending.is_empty();
        self.history.retain(|h| {
            let i = h.agent.index();
            let covered = host.get(i) >= h.epoch && busy.iter().all(|c| c.get(i) >= h.epoch);
            !covered
        });
        if idle {
            self.reported.clear();
        }
        if !self.published.is_empty() {
            let now = now_ns();
            let host = &self.host;
            self.published.retain(|p| {
                let done = host.get(p.agent as usize) >= p.epoch;
                if done {
                    p.mark_synced(now);
                }
                !done
            });
        }
    }

    fn host_mut(&mut self) -> &mut Clock {
        Arc::make_mut(&mut self.host)
    }
}

/// How a work of a stream joins what ordered it, as it runs.
#[derive(Debug, Clone, Copy)]
pub(super) enum Join<'a> {
    /// Nothing beyond stream order.
    None,
    /// A record of this cell ran: store the stream's clock beside it.
    Record(&'a Arc<Cell>),
    /// A wait on this cell ended: join the clock of its last record (or of
    /// the stream whose progress it is).
    Acquire(&'a Cell),
}

/// The clocks and accesses of a process's streams, and the hazards found.
#[derive(Debug, Default)]
pub(super) struct Hazards {
    state: Mutex<State>,
    /// `pending.len() + history.len()`, read without the lock: a host copy
    /// with nothing to race pays one load.
    live: AtomicUsize,
    found: Mutex<Vec<Hazard>>,
    seen: AtomicU64,
    /// What a hazard does: 0 not read yet, [`REPORT`] or [`FAIL`].
    mode: AtomicU8,
    /// This process maps memory with a registry entry: accesses are looked
    /// up in the shared histories.
    sharing: AtomicBool,
    /// This process's pid and start stamp, as the shared histories sign accesses.
    me: OnceLock<(u32, u32)>,
    /// The clock handed to work while the check is off.
    nil: Snapshot,
}

/// `VMMKIT_HAZARDS`: `report` (the default) prints and keeps hazards;
/// `error` also makes the racing call (or work) fail; `off` keeps no clock
/// and no access (to measure what the check costs, or to do without it).
pub const HAZARDS_ENV: &str = "VMMKIT_HAZARDS";
const REPORT: u8 = 1;
const FAIL: u8 = 2;
const OFF: u8 = 3;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The races found by one check (empty: none).
pub(super) type Found = Vec<Hazard>;

impl Hazards {
    fn locked(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn settle(&self, st: &State) {
        self.live.store(st.history.len() + st.pending.len(), Ordering::Release);
    }

    /// A new stream whose progress is `cell`.
    pub(super) fn stream_created(&self, s: StreamId, progress: &Cell) {
        let mut st = self.locked();
        st.progress.insert(std::ptr::from_ref(progress) as usize, s);
        st.streams.insert(s, Clock::default());
    }

    /// The host's clock for a work being enqueued now, and the work's id
    /// (0: it accesses no memory), remembered as pending until it runs.
    /// Called from a host function, the enqueuing stream's clock stands in
    /// for the host's.
    /// The clocks of the streams `after` (the legacy stream's implicit
    /// ordering) are joined in too.
    pub(super) fn enqueued(
        &self,
        s: StreamId,
        seq: u32,
        ranges: Option<Ranges>,
        after: &[StreamId],
    ) -> (Snapshot, u64) {
        if self.is_off() {
            return (self.nil.clone(), 0);
        }
        let mut st = self.locked();
        let mut snap = match running_stream().and_then(|r| st.streams.get(&r)) {
            Some(c) => Arc::new(c.clone()),
            None => {
                st.handed_out = true;
                st.host.clone()
            }
        };
        for o in after {
            if let Some(c) = st.streams.get(o) {
                Arc::make_mut(&mut snap).join(c);
            }
        }
        let Some(ranges) = ranges else { return (snap, 0) };
        st.next_id += 1;
        let id = st.next_id;
        let at_ns = if self.sharing() { now_ns() } else { 0 };
        st.pending.push(Pending { id, stream: s, seq, ranges, call: super::thread::current_call(), at_ns });
        self.settle(&st);
        (snap, id)
    }

    /// Forgets pending work `id` (dropped unrun).
    pub(super) fn dropped(&self, id: u64) {
        if id == 0 {
            return;
        }
        let mut st = self.locked();
        st.pending.retain(|p| p.id != id);
        self.settle(&st);
    }

    /// Work `id` of stream `s` runs: the stream joins `snap` and ticks,
    /// then joins or stores what `join` says, and its accesses are checked:
    /// against this process's, and the `shared` pieces (read, or written)
    /// against the other processes' in their histories. Returns the races found.
    pub(super) fn run(&self, s: StreamId, snap: &Snapshot, id: u64, join: Join<'_>, shared: &[(Piece, bool)]) -> Found {
        if self.is_off() {
            return Vec::new();
        }
        let me = if shared.is_empty() && !join.is_shared() { 0 } else { self.me().0 };
        let mut st = self.locked();
        let mut c = st.streams.remove(&s).unwrap_or_default();
        c.join(snap);
        c.tick(Agent::Stream(s).index());
        match join {
            Join::None => {}
            Join::Record(cell) => {
                if st.records.len() >= RECORDS {
                    st.records.retain(|_, (w, _)| w.strong_count() > 0);
                }
                st.records.insert(Arc::as_ptr(cell) as usize, (Arc::downgrade(cell), c.clone()));
                if let Some(shared) = cell.record_clock() {
                    shared.store(me, &c.triples(me, &st.shared_agents));
                }
            }
            Join::Acquire(cell) => {
                if let Some(o) = acquired(&st, cell, me) {
                    c.join(&o);
                }
            }
        }
        let mut found = Vec::new();
        let mut cross = None;
        if id != 0
            && let Some(i) = st.pending.iter().position(|p| p.id == id)
        {
            let p = st.pending.swap_remove(i);
            let epoch = c.get(Agent::Stream(s).index());
            let agent = Agent::Stream(s);
            if !shared.is_empty() {
                let since = if p.at_ns == 0 { now_ns() } else { p.at_ns };
                cross = Some((c.clone(), epoch, p.call, p.ranges.what, since));
            }
            for (range, write) in [(p.ranges.read, false), (p.ranges.write, true)] {
                let Some((start, len)) = range.filter(|r| r.1 != 0) else { continue };
                let e = Entry {
                    id,
                    agent,
                    epoch,
                    start,
                    end: start.saturating_add(len),
                    write,
                    call: p.call,
                    what: p.ranges.what,
                };
                st.access(agent, &c, e, &mut found);
            }
        }
        st.streams.insert(s, c);
        self.settle(&st);
        drop(st);
        let mut out: Found = found.into_iter().map(|(a, b)| self.hazard(&a, &b)).collect();
        if let Some((c, epoch, call, what, since)) = cross {
            let side = Side { agent: Agent::Stream(s), epoch, call, what, since_ns: since, synced_ns: 0 };
            out.extend(self.cross(&c, &side, shared));
        }
        out
    }

    /// This process's pid and start stamp.
    fn me(&self) -> (u32, u32) {
        *self.me.get_or_init(|| {
            let r = Recorder::current();
            (r.pid, r.stamp.unwrap_or(0))
        })
    }

    /// Whether this process maps memory with a registry entry (and the check is on).
    pub(super) fn sharing(&self) -> bool {
        self.sharing.load(Ordering::Relaxed) && !self.is_off()
    }

    /// This process maps memory with a registry entry (from now on, for good).
    pub(super) fn set_sharing(&self) {
        self.sharing.store(true, Ordering::Relaxed);
    }

    /// Writes an access to shared memory into the pieces' histories, and
    /// returns the races with other processes' accesses found there: those
    /// neither ordered before it by the clock `c` (an interprocess event or
    /// a notify waited for), nor known done by their process before
    /// `side.since_ns` (a synchronize, then a message), nor made before it
    /// by a process now dead.
    fn cross(&self, c: &Clock, side: &Side, pieces: &[(Piece, bool)]) -> Found {
        let (me, stamp) = self.me();
        let agent = u32::try_from(side.agent.index()).unwrap_or(u32::MAX);
        let mut published = Vec::new();
        let mut found = Vec::new();
        let now = now_ns();
        for (piece, write) in pieces {
            let mine = SharedAccess {
                pid: me,
                stamp,
                agent,
                epoch: side.epoch,
                start: piece.start,
                end: piece.end,
                write: *write,
                what: side.what,
                call: side.call,
                synced_ns: side.synced_ns,
                at_ns: now,
            };
            if let Some(p) = piece.history.publish(&mine)
                && side.synced_ns == 0
            {
                published.push(p);
            }
            for o in piece.history.others(me, piece.start, piece.end, *write) {
                let done_before = o.synced_ns != 0 && o.synced_ns <= side.since_ns;
                if done_before || c.remote_get(o.pid, o.agent) >= o.epoch {
                    continue;
                }
                // A dead process's access made before this one was
                // enqueued is done: only a message could have ordered it.
                if o.at_ns <= side.since_ns && !(Recorder { pid: o.pid, stamp: Some(o.stamp) }).is_alive() {
                    continue;
                }
                let at = |off: u64| (piece.va as u64).wrapping_add(off.wrapping_sub(piece.start)) as usize;
                let theirs = Access {
                    agent: if o.agent == 0 { Agent::Host } else { Agent::Stream(StreamId(u64::from(o.agent))) },
                    pid: o.pid,
                    write: o.write,
                    addr: at(o.start),
                    len: (o.end - o.start) as usize,
                    call: o.call,
                    what: o.what,
                };
                let ours = Access {
                    agent: side.agent,
                    pid: me,
                    write: *write,
                    addr: piece.va,
                    len: (piece.end - piece.start) as usize,
                    call: side.call,
                    what: side.what,
                };
                let h = Hazard { first: theirs, second: ours, addr: at(o.start.max(piece.start)) };
                found.push(self.report(h));
            }
        }
        if !published.is_empty() || !pieces.is_empty() {
            let mut st = self.locked();
            st.shared_agents.insert(agent);
            st.published.extend(published);
            while st.published.len() > PUBLISHED {
                st.published.pop_front();
            }
        }
        found
    }

    /// The host (or a host function) learnt that `cell`'s last record ran.
    pub(super) fn host_acquire(&self, cell: &Cell) {
        if self.is_off() {
            return;
        }
        let me = if cell.is_shared() { self.me().0 } else { 0 };
        let mut st = self.locked();
        if let Some(o) = acquired(&st, cell, me) {
            join_caller(&mut st, &o);
            st.prune();
            self.settle(&st);
        }
    }

    /// The host (or a host function) learnt that stream `s` has run all its
    /// work enqueued so far.
    pub(super) fn host_join_streams(&self, streams: &[StreamId]) {
        if self.is_off() {
            return;
        }
        let mut st = self.locked();
        for s in streams {
            if let Some(o) = st.streams.get(s).cloned() {
                join_caller(&mut st, &o);
            }
        }
        st.prune();
        self.settle(&st);
    }

    /// A stream ended: its clock is dropped once nothing waits for it.
    pub(super) fn stream_gone(&self, s: StreamId, progress: &Cell) {
        let mut st = self.locked();
        st.progress.remove(&(std::ptr::from_ref(progress) as usize));
        if !st.pending.iter().any(|p| p.stream == s) {
            st.streams.remove(&s);
        }
    }

    /// A host access (a synchronous copy or fill) of `addr..addr+len`:
    /// checked against what streams ran and against their pending work
    /// that `unordered` says nothing can order after it, and, for the
    /// `shared` pieces of it, against other processes' accesses in their
    /// histories. Returns the races.
    pub(super) fn host_access(
        &self,
        addr: usize,
        len: usize,
        write: bool,
        unordered: impl Fn(StreamId, u32) -> bool,
        shared: &[Piece],
    ) -> Found {
        if len == 0 || (self.live.load(Ordering::Acquire) == 0 && shared.is_empty()) || self.is_off() {
            return Vec::new();
        }
        let end = addr.saturating_add(len);
        let call = super::thread::current_call();
        let mut st = self.locked();
        let agent = running_stream().map_or(Agent::Host, Agent::Stream);
        if agent == Agent::Host && st.handed_out {
            st.host_mut().tick(0);
            st.handed_out = false;
        }
        let Some(c) = st.clock_of(agent).cloned() else { return Vec::new() };
        st.next_id += 1;
        let id = st.next_id;
        let e = Entry {
            id,
            agent,
            epoch: c.get(agent.index()),
            start: addr,
            end,
            write,
            call,
            what: if write { "host write" } else { "host read" },
        };
        let mut found = Vec::new();
        // Pending work that nothing can order after this access races it
        // now, whichever runs first; its own check later skips the pair.
        // Whether it can be ordered is asked of its stream's queue, without
        // this lock (the queue's lock is taken before it when enqueueing).
        let candidates: Vec<(Entry, StreamId, u32)> = st
            .pending
            .iter()
            .filter(|p| Agent::Stream(p.stream) != agent)
            .flat_map(|p| {
                [(p.ranges.read, false), (p.ranges.write, true)].into_iter().filter_map(move |(r, w)| {
                    let (start, n) = r?;
                    let pe = Entry {
                        id: p.id,
                        agent: Agent::Stream(p.stream),
                        epoch: 0,
                        start,
                        end: start.saturating_add(n),
                        write: w,
                        call: p.call,
                        what: p.ranges.what,
                    };
                    pe.conflicts(addr, end, write).then_some((pe, p.stream, p.seq))
                })
            })
            .collect();
        if !candidates.is_empty() {
            drop(st);
            let racing: Vec<Entry> =
                candidates.into_iter().filter(|(_, s, seq)| unordered(*s, *seq)).map(|(pe, ..)| pe).collect();
            st = self.locked();
            for pe in racing {
                // Only if it has not run meanwhile (its run found this access, or will).
                if st.pending.iter().any(|p| p.id == pe.id) {
                    st.reported.insert((id, pe.id));
                    found.push((pe, e.clone()));
                }
            }
        }
        let epoch = e.epoch;
        st.access(agent, &c, e, &mut found);
        if st.pending.is_empty() && agent == Agent::Host {
            // Nothing enqueued before it can still run: no later work can race it.
            st.history.pop();
        }
        self.settle(&st);
        drop(st);
        let mut out: Found = found.into_iter().map(|(a, b)| self.hazard(&a, &b)).collect();
        if !shared.is_empty() {
            let now = now_ns();
            // The host's own access is done when made; a host function's
            // once its stream is known done.
            let synced_ns = if agent == Agent::Host { now } else { 0 };
            let what = if write { "host write" } else { "host read" };
            let side = Side { agent, epoch, call, what, since_ns: now, synced_ns };
            let pieces: Vec<(Piece, bool)> = shared.iter().map(|p| (p.clone(), write)).collect();
            out.extend(self.cross(&c, &side, &pieces));
        }
        out
    }

    /// Makes a [`Hazard`] of two entries, records it and prints it on
    /// stderr (the first [`PRINTED`] of a process; a loop that races prints
    /// one screen, not one line per turn).
    fn hazard(&self, first: &Entry, second: &Entry) -> Hazard {
        let pid = std::process::id();
        self.report(Hazard {
            first: first.access(pid),
            second: second.access(pid),
            addr: first.start.max(second.start),
        })
    }

    /// Records a [`Hazard`] and prints it (see [`Self::hazard`]).
    fn report(&self, h: Hazard) -> Hazard {
        tracing::warn!("{h}");
        let n = self.seen.fetch_add(1, Ordering::Relaxed);
        if n < PRINTED {
            eprintln!("vmmkit: {h}");
        } else if n == PRINTED {
            eprintln!("vmmkit: more unsynchronised accesses follow; not printed");
        }
        super::observe::hazard(&h);
        lock(&self.found).push(h.clone());
        h
    }

    /// What a hazard does ([`REPORT`], [`FAIL`]), or [`OFF`]: read from
    /// `VMMKIT_HAZARDS` at the first call.
    fn mode(&self) -> u8 {
        let mut m = self.mode.load(Ordering::Relaxed);
        if m == 0 {
            m = match std::env::var(HAZARDS_ENV).as_deref().map(str::trim) {
                Ok("error") => FAIL,
                Ok("off") => OFF,
                _ => REPORT,
            };
            self.mode.store(m, Ordering::Relaxed);
        }
        m
    }

    /// Whether the check is off (`VMMKIT_HAZARDS=off`).
    pub(super) fn is_off(&self) -> bool {
        self.mode() == OFF
    }

    /// Whether a hazard makes the racing call fail (`VMMKIT_HAZARDS=error`).
    pub(super) fn fails(&self) -> bool {
        self.mode() == FAIL
    }

    /// Sets whether a hazard makes the racing call fail (tests; programs use `VMMKIT_HAZARDS`).
    pub(super) fn set_fails(&self, fail: bool) {
        self.mode.store(if fail { FAIL } else { REPORT }, Ordering::Relaxed);
    }

    /// The hazards found so far (and forgets them).
    pub(super) fn take(&self) -> Vec<Hazard> {
        std::mem::take(&mut *lock(&self.found))
    }
}

/// One side of an access to shared memory, as [`Hazards::cross`] checks it.
struct Side {
    agent: Agent,
    /// Its agent's component at the access.
    epoch: u32,
    call: &'static str,
    what: &'static str,
    /// When it was enqueued (or made, by the host).
    since_ns: u64,
    /// When it is known done (the host's own access: now), else 0.
    synced_ns: u64,
}

impl Join<'_> {
    fn is_shared(&self) -> bool {
        match self {
            Join::None => false,
            Join::Record(c) => c.is_shared(),
            Join::Acquire(c) => c.is_shared(),
        }
    }
}

/// The clock a wait on `cell` acquires: its last record's (for a shared
/// cell, as the cell carries it, `me` being this process's pid), or the
/// stream's whose progress it is.
fn acquired(st: &State, cell: &Cell, me: u32) -> Option<Clock> {
    let key = std::ptr::from_ref(cell) as usize;
    if let Some(s) = st.progress.get(&key) {
        return st.streams.get(s).cloned();
    }
    if let Some(shared) = cell.record_clock() {
        let (writer, triples) = shared.load()?;
        // Recorded here: the whole clock, as kept beside the record.
        if writer == me
            && let Some((_, c)) = st.records.get(&key)
        {
            return Some(c.clone());
        }
        return Some(Clock::from_triples(me, &triples));
    }
    st.records.get(&key).filter(|(w, _)| w.strong_count() > 0).map(|(_, c)| c.clone())
}

/// Joins `o` into the caller's clock: the host's, or in a host function its stream's.
fn join_caller(st: &mut State, o: &Clock) {
    match running_stream() {
        Some(s) => {
            if let Some(c) = st.streams.get_mut(&s) {
                c.join(o);
            }
        }
        None => st.host_mut().join(o),
    }
}

thread_local! {
    /// The stream whose host function the calling thread runs.
    static RUNNING: std::cell::Cell<Option<StreamId>> = const { std::cell::Cell::new(None) };
}

fn running_stream() -> Option<StreamId> {
    RUNNING.with(std::cell::Cell::get)
}

/// Marks the calling thread as running a host function of `s` until dropped.
pub(crate) struct InStream(Option<StreamId>);

impl InStream {
    /// Enters `s`'s host function on the calling thread.
    pub(crate) fn enter(s: StreamId) -> Self {
        Self(RUNNING.with(|r| r.replace(Some(s))))
    }
}

impl Drop for InStream {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_into(start: usize, len: usize) -> Option<Ranges> {
        Some(Ranges { read: None, write: Some((start, len)), what: "copy" })
    }

    #[test]
    fn a_record_and_a_wait_order_two_streams_and_nothing_else_does() {
        let h = Hazards::default();
        let (s1, s2) = (StreamId(1), StreamId(2));
        let (c1, c2) = (Cell::local(), Cell::local());
        h.stream_created(s1, &c1);
        h.stream_created(s2, &c2);
        let ev = Arc::new(Cell::local());
        // s1 writes, records; s2 waits, writes: ordered.
        let (snap, a) = h.enqueued(s1, 1, copy_into(0x1000, 0x100), &[]);
        let (rsnap, _) = h.enqueued(s1, 2, None, &[]);
        let (wsnap, _) = h.enqueued(s2, 1, None, &[]);
        let (bsnap, b) = h.enqueued(s2, 2, copy_into(0x1000, 0x10), &[]);
        assert!(h.run(s1, &snap, a, Join::None, &[]).is_empty());
        assert!(h.run(s1, &rsnap, 0, Join::Record(&ev), &[]).is_empty());
        assert!(h.run(s2, &wsnap, 0, Join::Acquire(&ev), &[]).is_empty());
        assert!(h.run(s2, &bsnap, b, Join::None, &[]).is_empty());
        // Without the wait: a write-after-write, whichever runs first.
        let (snap, a) = h.enqueued(s2, 3, copy_into(0x2000, 0x10), &[]);
        let (bsnap, b) = h.enqueued(s1, 3, copy_into(0x2008, 0x10), &[]);
        assert!(h.run(s2, &snap, a, Join::None, &[]).is_empty());
        let found = h.run(s1, &bsnap, b, Join::None, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].first.agent, found[0].second.agent, found[0].addr),
            (Agent::Stream(s2), Agent::Stream(s1), 0x2008)
        );
        assert_eq!(found[0].kind(), "write-after-write");
        assert_eq!(h.take().len(), 1);
    }

    #[test]
    fn the_host_races_pending_work_only_until_it_synchronises() {
        let h = Hazards::default();
        let s = StreamId(1);
        let c = Cell::local();
        h.stream_created(s, &c);
        let (snap, a) = h.enqueued(s, 1, copy_into(0x1000, 0x100), &[]);
        assert_eq!(h.host_access(0x1000, 4, false, |_, _| true, &[]).len(), 1, "a read of a pending write");
        assert!(h.run(s, &snap, a, Join::None, &[]).is_empty(), "reported once, not again when it runs");
        h.host_join_streams(&[s]);
        assert!(h.host_access(0x1000, 4, false, |_, _| true, &[]).is_empty(), "after the synchronize");
        // Work enqueued after a host write is ordered after it.
        assert!(h.host_access(0x3000, 4, true, |_, _| true, &[]).is_empty());
        let (snap, a) = h.enqueued(s, 2, Some(Ranges { read: Some((0x3000, 4)), write: None, what: "copy" }), &[]);
        assert!(h.run(s, &snap, a, Join::None, &[]).is_empty());
        h.host_join_streams(&[s]);
        // A host write after the enqueue of a read it overwrites: write-after-read.
        let (snap, a) = h.enqueued(s, 3, Some(Ranges { read: Some((0x3000, 4)), write: None, what: "copy" }), &[]);
        let found = h.host_access(0x3000, 4, true, |_, _| false, &[]);
        assert!(found.is_empty(), "not yet: the work might be ordered after it");
        let found = h.run(s, &snap, a, Join::None, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind(), "read-after-write", "found when the read ran, after the host's write");
    }
}
