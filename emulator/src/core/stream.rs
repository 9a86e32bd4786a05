//! Streams: ordered queues of work (copies, fills, event records and waits,
//! value writes and waits, host functions) run apart from the caller, for
//! every dialect. Dialects name and check; this is where work is ordered.
//!
//! - Within a stream, work runs in the order it was enqueued, on the
//!   stream's own worker thread. Across streams nothing is ordered except by
//!   waits on cells (events, other streams' progress).
//! - Each stream counts its work in a [`Cell`]: enqueueing takes the next
//!   number, running completes it, so synchronising is a futex wait on the
//!   number of the last work enqueued.
//! - A legacy default stream ([`Kind::Legacy`], CUDA's and HIP's NULL
//!   stream) waits for the blocking streams of its device before each work,
//!   and they wait for it.
//! - [`Schedule`] says when work runs: at once (`eager`), as soon as it can
//!   (`async`), or as late as the ordering rules allow (`adversarial`).
//!   Under `adversarial` a worker holds its work until somebody needs it
//!   done: a synchronize or query of the stream, of the device or of an
//!   event recorded after it, or a wait of another stream, or of another
//!   process, on such an event (a cell's `wanted` word); a device
//!   synchronize drains its streams one by one in an order drawn from the
//!   seed.
//! - Each stream and the host keep a vector clock that records, waits,
//!   synchronizes and the legacy stream's ordering advance; two accesses to
//!   the same memory, one a write, neither ordered before the other, are
//!   reported as an unsynchronised access ([`Hazard`], `hazard.rs`).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::access_history::Piece;
use super::cell::{Cell, WaitError, after};
use super::hazard::{Hazard, Hazards, InStream, Join, Ranges, Snapshot};
use super::{CoreError, Emulator};
use crate::config::Schedule;

/// A stream of this process (never reused within a process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub u64);

/// How a stream is ordered with the others of its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The legacy default stream: each work waits for all work enqueued
    /// before it on the device's blocking streams.
    Legacy,
    /// An ordinary stream: each work waits for the legacy stream's work
    /// enqueued before it.
    Blocking,
    /// Ordered with no other stream (`cudaStreamNonBlocking`, `hipStreamNonBlocking`).
    NonBlocking,
}

/// How value waits (a stream waiting for a word to compare true) compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueCmp {
    /// `*addr >= value` (as unsigned, wrapping: the difference is non-negative).
    Geq,
    /// `*addr >= value` as plain unsigned numbers (HIP's `hipStreamWaitValueGte`).
    Gte,
    /// `*addr == value`.
    Eq,
    /// `*addr & value != 0`.
    And,
    /// `!(*addr | value) != 0`, within the value's width.
    Nor,
}

/// The rows of a 2-D or 3-D copy: `rows` rows of `len` bytes, `src_pitch`
/// apart from `src` to `dst_pitch` apart from `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCopy {
    /// The first destination row.
    pub dst: usize,
    /// The first source row.
    pub src: usize,
    /// Bytes per row.
    pub len: usize,
    /// Bytes from a destination row to the next.
    pub dst_pitch: usize,
    /// Bytes from a source row to the next.
    pub src_pitch: usize,
    /// Rows.
    pub rows: usize,
}

impl RowCopy {
    /// Each side's span, from its first row's start to its last row's end:
    /// (source, destination).
    pub fn spans(&self) -> (usize, usize) {
        (Work::rows_span(self.len, self.src_pitch, self.rows), Work::rows_span(self.len, self.dst_pitch, self.rows))
    }
}

/// A piece of work.
pub enum Work {
    /// Copy `len` bytes from `src` to `dst` (device or host memory).
    Copy {
        /// Destination.
        dst: usize,
        /// Source.
        src: usize,
        /// Bytes.
        len: usize,
    },
    /// Fill `count` elements of `width` bytes (1, 2, 4 or 8) at `dst` with
    /// the low `width` bytes of `pattern`.
    Fill {
        /// Destination.
        dst: usize,
        /// The value, little-endian.
        pattern: u64,
        /// Bytes per element.
        width: u8,
        /// Elements.
        count: usize,
    },
    /// [`Work::Fill`] of `rows` rows, `pitch` bytes apart from `dst`, each
    /// of `count` elements: a 2-D or 3-D fill queued as one command, as the
    /// vendors queue one fill command per call.
    FillRows {
        /// The first row.
        dst: usize,
        /// The value, little-endian.
        pattern: u64,
        /// Bytes per element.
        width: u8,
        /// Elements per row.
        count: usize,
        /// Bytes from a row to the next.
        pitch: usize,
        /// Rows.
        rows: usize,
    },
    /// [`Work::Copy`] of rows: a 2-D or 3-D copy queued as one command, as
    /// the vendors queue one copy command per call.
    CopyRows(RowCopy),
    /// Complete record `seq` of `cell` (an event record, a notify record).
    Record {
        /// The cell.
        cell: Arc<Cell>,
        /// Its number.
        seq: u32,
    },
    /// Wait until record `seq` of `cell` completes.
    Wait {
        /// The cell.
        cell: Arc<Cell>,
        /// Its number.
        seq: u32,
    },
    /// Write the low `width` (4 or 8) bytes of `value` at `addr`.
    WriteValue {
        /// Where.
        addr: usize,
        /// What.
        value: u64,
        /// 4 or 8.
        width: u8,
    },
    /// Wait until the `width`-byte value at `addr`, and-ed with `mask`,
    /// compares true with `value` (HIP also masks `value` for `Nor`).
    WaitValue {
        /// Where.
        addr: usize,
        /// Compared with.
        value: u64,
        /// Applied to what is read (all ones: no mask).
        mask: u64,
        /// 4 or 8.
        width: u8,
        /// How.
        cmp: ValueCmp,
    },
    /// Run a host function (stream-ordered frees, notify resets).
    Host(Box<dyn FnOnce() + Send>),
    /// Run a host function that can run again (the programs' callbacks
    /// and host functions: a capture makes it a graph's host node).
    Call(Arc<dyn Fn() + Send + Sync>),
    /// Wait until `cell` (a notify's) is set, a record completed since the
    /// last reset, then reset it; fail the stream after `timeout`.
    WaitReset {
        /// The cell.
        cell: Arc<Cell>,
        /// How long the wait may last.
        timeout: Option<Duration>,
    },
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Work::Copy { dst, src, len } => write!(f, "copy {len:#x} bytes {src:#x} -> {dst:#x}"),
            Work::Fill { dst, pattern, width, count } => {
                write!(f, "fill {count} x {width} bytes at {dst:#x} with {pattern:#x}")
            }
            Work::CopyRows(RowCopy { dst, src, len, dst_pitch, src_pitch, rows }) => write!(
                f,
                "copy {rows} rows of {len:#x} bytes {src:#x} ({src_pitch:#x} apart) -> {dst:#x} ({dst_pitch:#x} apart)"
            ),
            Work::FillRows { dst, pattern, width, count, pitch, rows } => {
                write!(f, "fill {rows} rows {pitch:#x} apart of {count} x {width} bytes at {dst:#x} with {pattern:#x}")
            }
            Work::Record { seq, .. } => write!(f, "record {seq}"),
            Work::Wait { seq, .. } => write!(f, "wait for {seq}"),
            Work::WriteValue { addr, value, .. } => write!(f, "write {value:#x} at {addr:#x}"),
            Work::WaitValue { addr, value, cmp, .. } => write!(f, "wait until {addr:#x} {cmp:?} {value:#x}"),
            Work::Host(_) | Work::Call(_) => f.write_str("host function"),
            Work::WaitReset { .. } => f.write_str("wait for a notify and reset it"),
        }
    }
}

impl Work {
    /// Bytes from the start of the first of `rows` rows of `len` bytes,
    /// `pitch` apart, to the end of the last (saturating).
    pub fn rows_span(len: usize, pitch: usize, rows: usize) -> usize {
        if rows == 0 || len == 0 {
            return 0;
        }
        (rows - 1).saturating_mul(pitch).saturating_add(len)
    }

    /// The device or host ranges it reads and writes, if any.
    fn ranges(&self) -> Option<Ranges> {
        let (read, write, what) = match *self {
            Work::Copy { dst, src, len } => (Some((src, len)), (dst, len), "copy"),
            Work::Fill { dst, width, count, .. } => (None, (dst, usize::from(width).saturating_mul(count)), "fill"),
            // The span from the first row's start to the last's end (the
            // bytes between rows count as written: the check may then report
            // a race there that is none, never miss one).
            Work::FillRows { dst, width, count, pitch, rows, .. } => {
                (None, (dst, Work::rows_span(usize::from(width).saturating_mul(count), pitch, rows)), "fill")
            }
            // Each side's span, as for a fill of rows.
            Work::CopyRows(c) => {
                let (src_span, dst_span) = c.spans();
                (Some((c.src, src_span)), (c.dst, dst_span), "copy")
            }
            Work::WriteValue { addr, width, .. } => (None, (addr, usize::from(width)), "write value"),
            _ => return None,
        };
        Some(Ranges { read, write: Some(write), what })
    }
}

/// A point in a stream's work: everything enqueued on it up to a moment
/// ([`Emulator::stream_mark`]). It is passed once that work has all run
/// (or been dropped: an abort, a forced destroy).
#[derive(Clone)]
pub struct Mark {
    progress: Arc<Cell>,
    seq: u32,
}

impl Mark {
    /// Whether the work enqueued before the mark has all run.
    pub fn is_passed(&self) -> bool {
        self.progress.is_reached(self.seq)
    }

    /// A mark on `cell`'s record `seq` (the core's tests).
    #[cfg(test)]
    pub(super) fn on(progress: Arc<Cell>, seq: u32) -> Self {
        Self { progress, seq }
    }
}

impl std::fmt::Debug for Mark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "mark {} ({})", self.seq, if self.is_passed() { "passed" } else { "pending" })
    }
}

/// How [`Emulator::stream_destroy`] ends a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Waits for its work, then destroys it.
    Drain,
    /// Destroys it at once; its work still runs to the end.
    Detach,
    /// Destroys it at once; work not yet started is dropped.
    Discard,
}

struct Item {
    seq: u32,
    work: Work,
    /// The host's clock when it was enqueued.
    snap: Snapshot,
    /// Its accesses' id in the hazard check (0: none).
    access: u64,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    /// The first failure of its work, reported by the next synchronize.
    error: Option<CoreError>,
    /// Under `adversarial`: work up to this number may run.
    demanded: u32,
    /// A worker (thread or inline caller) is running its work.
    running: bool,
    /// A worker thread exists.
    worker: bool,
    /// Destroyed: the worker ends once the queue is empty.
    closing: bool,
}

struct Stream {
    id: StreamId,
    device: u32,
    kind: Kind,
    schedule: Schedule,
    progress: Arc<Cell>,
    q: Mutex<Queue>,
    bell: Condvar,
    /// Aborts and forced destroys so far: a wait the worker is running ends
    /// when this moves (the vendors stop the task that is running).
    stops: std::sync::atomic::AtomicU32,
}

impl Stream {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.q.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn adversarial(&self) -> bool {
        matches!(self.schedule, Schedule::Adversarial { .. })
    }

    /// Lets its work up to `seq` run (under `adversarial`; elsewhere it runs
    /// anyway, and waking the worker would only cost a system call).
    fn demand(&self, seq: u32) {
        if !self.adversarial() {
            return;
        }
        let mut q = self.lock();
        if after(seq, q.demanded) {
            q.demanded = seq;
        }
        drop(q);
        self.bell.notify_all();
    }

    /// The number up to which its held work must run now.
    fn must_run_upto(&self, q: &Queue) -> u32 {
        let mut upto = q.demanded;
        let wanted = self.progress.words().wanted.load(std::sync::atomic::Ordering::Acquire);
        if after(wanted, upto) {
            upto = wanted;
        }
        for it in &q.items {
            if let Work::Record { cell, seq } = &it.work
                && cell.is_wanted(*seq)
                && after(it.seq, upto)
            {
                upto = it.seq;
            }
        }
        upto
    }

    /// Whether the front work may run now.
    fn front_ready(&self, q: &Queue) -> bool {
        match q.items.front() {
            None => false,
            // An inline run (eager) is in progress: what follows waits for it.
            Some(_) if q.running => false,
            Some(_) if !self.adversarial() || q.closing => true,
            Some(front) => !after(front.seq, self.must_run_upto(q)),
        }
    }

    /// Whether it holds a record somebody else (another process) may ask for.
    fn holds_shared_record(&self, q: &Queue) -> bool {
        q.items.iter().any(|it| matches!(&it.work, Work::Record { cell, .. } if cell.is_shared()))
    }
}

/// The streams of one process.
#[derive(Default)]
pub(super) struct Streams {
    schedule: Mutex<Option<Schedule>>,
    next: AtomicU64,
    map: Mutex<HashMap<StreamId, Arc<Stream>>>,
    legacy: Mutex<HashMap<u32, StreamId>>,
    /// The clocks of the streams and the host, their accesses, and the
    /// accesses that raced.
    hazards: Hazards,
    /// Device synchronizes so far (draws the adversarial order).
    drains: AtomicU64,
    /// Some stream of this process holds its work (`adversarial`): only
    /// then do waits wake the workers to look at what is wanted.
    holding: std::sync::atomic::AtomicBool,
    /// Streams destroyed with [`Ending::Detach`] whose work may still run:
    /// a device synchronize waits for them too.
    detached: Mutex<Vec<Arc<Stream>>>,
}

impl std::fmt::Debug for Streams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streams").field("live", &lock(&self.map).len()).finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The waits for the work enqueued so far on `streams` that has not run.
fn implicit_waits(streams: &[Arc<Stream>]) -> Vec<(Arc<Cell>, u32)> {
    streams
        .iter()
        .filter_map(|o| {
            let last = o.progress.last();
            (!o.progress.is_reached(last)).then(|| (o.progress.clone(), last))
        })
        .collect()
}

/// splitmix64: the adversarial order's draws.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Streams {
    fn schedule(&self) -> Schedule {
        *lock(&self.schedule).get_or_insert_with(|| Schedule::from_env().unwrap_or_default())
    }

    fn get(&self, id: StreamId) -> Result<Arc<Stream>, CoreError> {
        lock(&self.map).get(&id).cloned().ok_or(CoreError::UnknownStream(id.0))
    }

    /// Wakes every worker, so that each looks at what is wanted of it
    /// (only workers under `adversarial` hold work until it is wanted).
    fn poke_all(&self) {
        if !self.holding.load(Ordering::Acquire) {
            return;
        }
        let held: Vec<Arc<Stream>> = lock(&self.map).values().filter(|s| s.adversarial()).cloned().collect();
        for s in held {
            // Through the queue's lock: a worker between its look at what is
            // wanted and its sleep holds it, so the wake cannot fall between.
            drop(s.lock());
            s.bell.notify_all();
        }
    }
}

thread_local! {
    /// The calling thread's default streams, one per device.
    static PER_THREAD: RefCell<PerThread> = RefCell::default();
}

/// A thread's default streams, detached when the thread ends (their work still runs).
#[derive(Default)]
struct PerThread(HashMap<u32, StreamId>);

impl Drop for PerThread {
    fn drop(&mut self) {
        if let Some(e) = crate::core::running() {
            for id in self.0.values() {
                let _ = e.stream_destroy(*id, Ending::Detach);
            }
        }
    }
}

impl Emulator {
    /// Sets the schedule of streams made from now on (tests; programs use `VMMKIT_STREAMS`).
    pub fn set_schedule(&self, schedule: Schedule) {
        *lock(&self.streams.schedule) = Some(schedule);
    }

    /// The schedule new streams get.
    pub fn schedule(&self) -> Schedule {
        self.streams.schedule()
    }

    /// A new stream on `device`.
    pub fn stream_create(&self, device: u32, kind: Kind) -> StreamId {
        let id = StreamId(self.streams.next.fetch_add(1, Ordering::Relaxed) + 1);
        let schedule = self.streams.schedule();
        if matches!(schedule, Schedule::Adversarial { .. }) {
            self.streams.holding.store(true, Ordering::Release);
        }
        let s = Arc::new(Stream {
            id,
            device,
            kind,
            schedule,
            progress: Arc::new(Cell::local()),
            q: Mutex::default(),
            bell: Condvar::new(),
            stops: std::sync::atomic::AtomicU32::new(0),
        });
        self.streams.hazards.stream_created(id, &s.progress);
        lock(&self.streams.map).insert(id, s);
        id
    }

    /// The legacy default stream of `device`, made at first use.
    pub fn legacy_stream(&self, device: u32) -> StreamId {
        let mut l = lock(&self.streams.legacy);
        if let Some(&id) = l.get(&device) {
            return id;
        }
        let id = self.stream_create(device, Kind::Legacy);
        l.insert(device, id);
        id
    }

    /// The calling thread's default stream of `device` (CUDA's
    /// `CU_STREAM_PER_THREAD`, HIP's `hipStreamPerThread`): a blocking stream
    /// made at its first use, detached when the thread ends.
    pub fn per_thread_stream(&self, device: u32) -> StreamId {
        PER_THREAD.with(|p| {
            let mut p = p.borrow_mut();
            match p.0.get(&device) {
                Some(&id) if self.stream_exists(id) => id,
                _ => {
                    let id = self.stream_create(device, Kind::Blocking);
                    p.0.insert(device, id);
                    id
                }
            }
        })
    }

    /// Whether `id` is a live stream of this process.
    pub fn stream_exists(&self, id: StreamId) -> bool {
        lock(&self.streams.map).contains_key(&id)
    }

    /// The device and kind of stream `id`.
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`].
    pub fn stream_info(&self, id: StreamId) -> Result<(u32, Kind), CoreError> {
        self.streams.get(id).map(|s| (s.device, s.kind))
    }

    /// Enqueues `work` on stream `id`, after what orders it with the
    /// device's other streams (see [`Kind`]).
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`].
    ///
    /// # Safety
    /// Host memory that `work` reads or writes must stay valid until it has
    /// run (as the vendors require of async copies).
    pub unsafe fn enqueue(&self, id: StreamId, work: Work) -> Result<(), CoreError> {
        self.streams.get(id)?;
        let Some(work) = self.capture_work(id, work)? else { return Ok(()) };
        // SAFETY: the caller's promise.
        unsafe { self.enqueue_uncaptured(id, work) }
    }

    /// [`Emulator::enqueue`] on a stream whether it captures or not (a graph's launch).
    ///
    /// # Safety
    /// As [`Emulator::enqueue`].
    pub(super) unsafe fn enqueue_uncaptured(&self, id: StreamId, work: Work) -> Result<(), CoreError> {
        let s = self.streams.get(id)?;
        let ordered = self.implicitly_ordered(&s);
        for (cell, seq) in implicit_waits(&ordered) {
            self.push(&s, Work::Wait { cell, seq }, &[]);
        }
        // Those whose work has all run are waited for by no work: the
        // hazard check learns the order from their ids.
        let ids: Vec<StreamId> = ordered.iter().map(|o| o.id).collect();
        self.push(&s, work, &ids);
        Ok(())
    }

    /// The streams a work on `s` is ordered after: the legacy stream waits
    /// for the blocking streams of its device, and they for it.
    fn implicitly_ordered(&self, s: &Stream) -> Vec<Arc<Stream>> {
        match s.kind {
            Kind::NonBlocking => Vec::new(),
            Kind::Legacy => lock(&self.streams.map)
                .values()
                .filter(|o| o.device == s.device && o.kind == Kind::Blocking)
                .cloned()
                .collect(),
            Kind::Blocking => {
                let legacy = lock(&self.streams.legacy).get(&s.device).copied();
                legacy.and_then(|l| self.streams.get(l).ok()).into_iter().collect()
            }
        }
    }

    fn push(&self, s: &Arc<Stream>, work: Work, ordered_after: &[StreamId]) {
        let mut q = s.lock();
        let seq = s.progress.next();
        crate::core::thread::set_last_task(seq);
        // Workers reach the emulator through the process's global; one that
        // is not installed (a test's own) runs all work inline.
        let global = crate::core::running().is_some_and(|e| std::ptr::eq(e, self));
        let inline = !global || (s.schedule == Schedule::Eager && self.runnable_now(&work));
        let (snap, access) = self.streams.hazards.enqueued(s.id, seq, work.ranges(), ordered_after);
        if inline && !q.running && q.items.is_empty() {
            q.running = true;
            let stops = s.stops.load(Ordering::Acquire);
            drop(q);
            let r = self.run_work(s, Item { seq, work, snap, access }, stops);
            let mut q = s.lock();
            if let Err(e) = r {
                q.error.get_or_insert(e);
            }
            s.progress.complete(seq);
            q.running = false;
            if !q.items.is_empty() && !q.worker {
                self.start_worker(s, &mut q);
            }
            drop(q);
            s.bell.notify_all();
            return;
        }
        q.items.push_back(Item { seq, work, snap, access });
        if !q.worker {
            self.start_worker(s, &mut q);
        }
        drop(q);
        s.bell.notify_all();
    }

    /// Whether `work` can run without waiting (eager runs such work inline).
    fn runnable_now(&self, work: &Work) -> bool {
        match work {
            Work::Wait { cell, seq } => cell.is_reached(*seq),
            Work::WaitReset { cell, .. } => Emulator::wait_reset_ready(cell),
            Work::WaitValue { .. } => false,
            // A host function may wait for what its caller does next
            // (a callback that waits on the host): never on the caller's thread.
            Work::Host(_) | Work::Call(_) => false,
            _ => true,
        }
    }

    fn start_worker(&self, s: &Arc<Stream>, q: &mut Queue) {
        q.worker = true;
        let s = s.clone();
        let spawned = std::thread::Builder::new().name(format!("vmmkit-stream-{}", s.id.0)).spawn({
            let s = s.clone();
            move || {
                if let Some(e) = crate::core::running() {
                    e.work_loop(&s);
                }
            }
        });
        if let Err(err) = spawned {
            // No thread, so nothing queued could ever run, and a synchronize
            // would wait for it forever. As a device that cannot run a
            // stream's tasks fails them: drop what is queued (its records
            // complete, so that nobody waits for them), and the next
            // synchronize reports why, at once. The next enqueue tries again.
            // An inline run in progress (eager) retries when it ends.
            q.worker = false;
            q.error.get_or_insert(CoreError::Os(format!("cannot start the worker of stream {}: {err}", s.id.0)));
            if !q.running {
                let dropped: Vec<Item> = q.items.drain(..).collect();
                self.drop_work(dropped);
                s.progress.complete(s.progress.last());
            }
        }
    }

    /// Lets go of work of `s` that will never run (an abort, a forced
    /// destroy, a worker that cannot start): its pending writes are
    /// forgotten, and its records complete, so that waiters on those events
    /// (streams, the host, other processes) do not wait for good. CANN does
    /// the same when it reclaims the tasks of an aborted or force-destroyed
    /// stream: the record task's completion marks the event recorded, and
    /// under abort clears its record status (docs/streams.md).
    fn drop_work(&self, items: Vec<Item>) {
        for it in items {
            self.streams.hazards.dropped(it.access);
            if let Work::Record { cell, seq } = &it.work {
                cell.complete(*seq);
            }
        }
    }

    /// A stream's worker: runs its work in order while there is some it may run.
    fn work_loop(&self, s: &Arc<Stream>) {
        let mut q = s.lock();
        loop {
            if !s.front_ready(&q) {
                if q.items.is_empty() && q.closing {
                    break;
                }
                // Under adversarial, another process may ask for a shared
                // record without a way to ring this bell: look every ms.
                q = if s.adversarial() && s.holds_shared_record(&q) {
                    s.bell.wait_timeout(q, Duration::from_millis(1)).map_or_else(|p| p.into_inner().0, |r| r.0)
                } else {
                    s.bell.wait(q).unwrap_or_else(|p| p.into_inner())
                };
                continue;
            }
            let Some(item) = q.items.pop_front() else { continue };
            q.running = true;
            // Taken with the queue held, as an abort counts its stop: one
            // that comes after this work left the queue stops its wait.
            let stops = s.stops.load(Ordering::Acquire);
            drop(q);
            let seq = item.seq;
            let r = self.run_work(s, item, stops);
            q = s.lock();
            if let Err(e) = r {
                q.error.get_or_insert(e);
            }
            q.running = false;
            s.progress.complete(seq);
        }
        q.worker = false;
    }

    /// Runs one work on stream `s`'s behalf: its clock advances and its
    /// accesses are checked first (a record stores the clock before it
    /// completes), a wait joins what it waited for after. `stops` is the
    /// stream's count of aborts when the work left its queue: a wait ends
    /// once it changes.
    fn run_work(&self, s: &Stream, item: Item, stops: u32) -> Result<(), CoreError> {
        let Item { work, snap, access, .. } = item;
        let hz = &self.streams.hazards;
        let join = match &work {
            Work::Record { cell, .. } => Join::Record(cell),
            _ => Join::None,
        };
        let shared = if access != 0 && hz.sharing() { self.shared_ranges(work.ranges()) } else { Vec::new() };
        let found = hz.run(s.id, &snap, access, join, &shared);
        if !found.is_empty() && self.streams.hazards.fails() {
            // The racing work fails instead of running; the stream's next
            // synchronize reports it.
            return Err(CoreError::Unsynchronised(Box::new(found[0].clone())));
        }
        let stopped = || s.stops.load(Ordering::Acquire) != stops;
        let unless_stopped = |r: Result<(), CoreError>| if r.is_err() && stopped() { Ok(()) } else { r };
        match work {
            Work::Copy { dst, src, len } => {
                // SAFETY: the enqueuer promised the host parts stay valid until now.
                unsafe { self.copy_raw(dst, src, len) }
            }
            Work::CopyRows(c) => {
                // SAFETY: as for copies.
                unsafe { self.copy_rows_raw(c) }
            }
            Work::Fill { dst, pattern, width, count } => {
                // SAFETY: as for copies.
                unsafe { self.fill_pattern(dst, pattern, width, count) }
            }
            Work::FillRows { dst, pattern, width, count, pitch, rows } => {
                // SAFETY: as for copies.
                unsafe { self.fill_rows_raw(dst, pattern, width, count, pitch, rows) }
            }
            Work::Record { cell, seq } => {
                cell.complete(seq);
                Ok(())
            }
            Work::Wait { cell, seq } => {
                unless_stopped(self.wait_cell_or(&cell, seq, None, &stopped))?;
                if cell.is_reached(seq) {
                    hz.run(s.id, &snap, 0, Join::Acquire(&cell), &[]);
                }
                Ok(())
            }
            Work::WriteValue { addr, value, width } => {
                let bytes = value.to_le_bytes();
                // SAFETY: `bytes` lives across the copy; `addr` as for copies.
                unsafe { self.copy_raw(addr, bytes.as_ptr() as usize, usize::from(width).min(8)) }
            }
            Work::WaitValue { addr, value, mask, width, cmp } => {
                unless_stopped(self.wait_value(addr, value, mask, width, cmp, &stopped))
            }
            Work::Host(f) => {
                let _in = InStream::enter(s.id);
                f();
                Ok(())
            }
            Work::Call(f) => {
                let _in = InStream::enter(s.id);
                f();
                Ok(())
            }
            Work::WaitReset { cell, timeout } => {
                unless_stopped(self.run_wait_reset(&cell, timeout, &stopped))?;
                hz.run(s.id, &snap, 0, Join::Acquire(&cell), &[]);
                Ok(())
            }
        }
    }

    /// Waits (without bound, or until `deadline`) for record `seq` of `cell`,
    /// first saying it is wanted, so that held work runs.
    fn wait_cell(&self, cell: &Cell, seq: u32, deadline: Option<Instant>) -> Result<(), CoreError> {
        self.wait_cell_or(cell, seq, deadline, &|| false)
    }

    /// [`Self::wait_cell`], also ended (as abandoned) once `stop` says so.
    pub(super) fn wait_cell_or(
        &self,
        cell: &Cell,
        seq: u32,
        deadline: Option<Instant>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), CoreError> {
        if cell.is_reached(seq) {
            return Ok(());
        }
        cell.want(seq);
        self.streams.poke_all();
        cell.wait_or(seq, deadline, stop).map_err(|e| match e {
            WaitError::Timeout => CoreError::Timeout,
            WaitError::Abandoned => CoreError::Abandoned,
        })
    }

    fn wait_value(
        &self,
        addr: usize,
        value: u64,
        mask: u64,
        width: u8,
        cmp: ValueCmp,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), CoreError> {
        let bits = if width == 4 { u64::from(u32::MAX) } else { u64::MAX };
        let mut pause = Duration::from_micros(1);
        let mut released = false;
        loop {
            let mut buf = [0u8; 8];
            // SAFETY: `buf` is 8 bytes, more than `width` (≤ 8) asks.
            unsafe { self.copy_raw(buf.as_mut_ptr() as usize, addr, usize::from(width).min(8))? };
            let got = if width == 4 {
                u64::from(u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]))
            } else {
                u64::from_le_bytes(buf)
            };
            let got = got & mask;
            let ok = match cmp {
                ValueCmp::Geq => (got.wrapping_sub(value) as i64) >= 0,
                ValueCmp::Gte => got >= value,
                ValueCmp::Eq => got == value,
                ValueCmp::And => got & value != 0,
                ValueCmp::Nor => !(got | (value & mask)) & bits != 0,
            };
            if ok {
                return Ok(());
            }
            if stop() {
                return Err(CoreError::Abandoned);
            }
            if !released {
                // The write it waits for may be any held work of this process
                // (a value write on another stream): under `adversarial`, let
                // all of it run, as a device makes progress on every stream.
                released = true;
                let all: Vec<Arc<Stream>> = lock(&self.streams.map).values().cloned().collect();
                for s in all {
                    s.demand(s.progress.last());
                }
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }

    /// Fills `count` elements of `width` bytes at `dst` with `pattern`.
    ///
    /// # Safety
    /// As [`Emulator::fill`].
    pub(crate) unsafe fn fill_pattern(
        &self,
        dst: usize,
        pattern: u64,
        width: u8,
        count: usize,
    ) -> Result<(), CoreError> {
        // SAFETY: the caller's promise.
        unsafe { self.fill_rows_raw(dst, pattern, width, count, 0, 1) }
    }

    /// Waits until all work enqueued on `id` so far has run, or `timeout`
    /// passes; then reports (and clears) the first failure of its work.
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`], [`CoreError::Timeout`], or the failure of a work.
    pub fn stream_synchronize(&self, id: StreamId, timeout: Option<Duration>) -> Result<(), CoreError> {
        let s = self.streams.get(id)?;
        let last = s.progress.last();
        s.demand(last);
        self.wait_cell(&s.progress, last, timeout.map(|t| Instant::now() + t))?;
        self.streams.hazards.host_join_streams(&[s.id]);
        s.lock().error.take().map_or(Ok(()), Err)
    }

    /// A mark after the work enqueued on `id` so far (what a marker command
    /// enqueued now would wait for, without enqueueing one).
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`].
    pub fn stream_mark(&self, id: StreamId) -> Result<Mark, CoreError> {
        let s = self.streams.get(id)?;
        let seq = s.progress.last();
        Ok(Mark { progress: s.progress.clone(), seq })
    }

    /// Whether all work enqueued on `id` has run. Under `adversarial` the
    /// question lets the held work run (so that polling ends).
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`].
    pub fn stream_query(&self, id: StreamId) -> Result<bool, CoreError> {
        let s = self.streams.get(id)?;
        let last = s.progress.last();
        s.demand(last);
        let done = s.progress.is_reached(last);
        if done {
            self.streams.hazards.host_join_streams(&[s.id]);
        }
        Ok(done)
    }

    /// Whether the legacy stream of `device` and the blocking streams its
    /// work waits for have run all their work: a query of the legacy stream
    /// that, like its next command, waits for them (HIP's hipStreamQuery(NULL)).
    ///
    /// # Errors
    /// [`CoreError`] when the legacy stream cannot be found.
    pub fn legacy_query(&self, device: u32) -> Result<bool, CoreError> {
        let legacy = self.streams.get(self.legacy_stream(device))?;
        let mut ordered = self.implicitly_ordered(&legacy);
        ordered.push(legacy);
        ordered.iter().for_each(|o| o.demand(o.progress.last()));
        let done = ordered.iter().all(|o| o.progress.is_reached(o.progress.last()));
        if done {
            self.streams.hazards.host_join_streams(&ordered.iter().map(|o| o.id).collect::<Vec<_>>());
        }
        Ok(done)
    }

    /// Waits for all work of the streams of `device` (every device: `None`),
    /// under `adversarial` one stream after another in a seeded order.
    ///
    /// # Errors
    /// The first failure of a stream's work, or [`CoreError::Timeout`].
    pub fn device_synchronize(&self, device: Option<u32>, timeout: Option<Duration>) -> Result<(), CoreError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut all: Vec<Arc<Stream>> =
            lock(&self.streams.map).values().filter(|s| device.is_none_or(|d| s.device == d)).cloned().collect();
        {
            let mut detached = lock(&self.streams.detached);
            detached.retain(|s| !s.progress.is_reached(s.progress.last()));
            all.extend(detached.iter().filter(|s| device.is_none_or(|d| s.device == d)).cloned());
        }
        all.sort_by_key(|s| s.id);
        if let Schedule::Adversarial { seed } = self.streams.schedule() {
            let round = self.streams.drains.fetch_add(1, Ordering::Relaxed);
            all.sort_by_key(|s| mix(seed ^ mix(round) ^ s.id.0));
        }
        let mut first = None;
        for s in &all {
            let last = s.progress.last();
            s.demand(last);
            if !s.adversarial() {
                continue;
            }
            self.wait_cell(&s.progress, last, deadline)?;
        }
        for s in &all {
            self.wait_cell(&s.progress, s.progress.last(), deadline)?;
            if let Some(e) = s.lock().error.take() {
                first.get_or_insert(e);
            }
        }
        self.streams.hazards.host_join_streams(&all.iter().map(|s| s.id).collect::<Vec<_>>());
        first.map_or(Ok(()), Err)
    }

    /// Drops the work of stream `id` that has not started (the one running
    /// runs to its end); the stream stays usable, its progress complete up
    /// to its last work. ACL's aclrtStreamAbort.
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`].
    pub fn stream_abort(&self, id: StreamId) -> Result<(), CoreError> {
        let s = self.streams.get(id)?;
        let mut q = s.lock();
        s.stops.fetch_add(1, Ordering::AcqRel);
        let dropped: Vec<Item> = q.items.drain(..).collect();
        self.drop_work(dropped);
        s.progress.complete(s.progress.last());
        drop(q);
        s.bell.notify_all();
        Ok(())
    }

    /// Ends stream `id` as `how` says.
    ///
    /// # Errors
    /// [`CoreError::UnknownStream`]; with [`Ending::Drain`], what
    /// [`Emulator::stream_synchronize`] reports (the stream is destroyed anyway).
    pub fn stream_destroy(&self, id: StreamId, how: Ending) -> Result<(), CoreError> {
        let s = self.streams.get(id)?;
        self.capture_forget(id);
        let drained = if how == Ending::Drain { self.stream_synchronize(id, None) } else { Ok(()) };
        lock(&self.streams.map).remove(&id);
        lock(&self.streams.legacy).retain(|_, l| *l != id);
        let mut q = s.lock();
        if how == Ending::Discard {
            s.stops.fetch_add(1, Ordering::AcqRel);
            let dropped: Vec<Item> = q.items.drain(..).collect();
            self.drop_work(dropped);
            s.progress.complete(s.progress.last());
        }
        q.closing = true;
        q.demanded = s.progress.last();
        drop(q);
        s.bell.notify_all();
        if how == Ending::Detach && !s.progress.is_reached(s.progress.last()) {
            lock(&self.streams.detached).push(s);
        } else {
            self.streams.hazards.stream_gone(id, &s.progress);
        }
        drained
    }

    /// Waits for what a work enqueued now on the legacy stream of `device`
    /// would wait for, and for the legacy stream's own work, without
    /// enqueueing anything: the ordering of a synchronous call made on the
    /// legacy stream (HIP's and CUDA's blocking copies), and the
    /// synchronize of the legacy stream, which waits for the blocking
    /// streams too. Reports (and clears) the legacy stream's first failure.
    ///
    /// # Errors
    /// [`CoreError::Timeout`], [`CoreError::Abandoned`], or the failure of a work.
    pub fn legacy_fence(&self, device: u32, timeout: Option<Duration>) -> Result<(), CoreError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let legacy = self.streams.get(self.legacy_stream(device))?;
        let mut ordered = self.implicitly_ordered(&legacy);
        ordered.push(legacy.clone());
        legacy.demand(legacy.progress.last());
        for (cell, seq) in implicit_waits(&ordered) {
            self.wait_cell(&cell, seq, deadline)?;
        }
        self.streams.hazards.host_join_streams(&ordered.iter().map(|o| o.id).collect::<Vec<_>>());
        legacy.lock().error.take().map_or(Ok(()), Err)
    }

    /// Makes an unsynchronised access fail the racing call (`true`), or
    /// only be reported (tests; programs use `VMMKIT_HAZARDS`).
    pub fn set_hazards_fail(&self, fail: bool) {
        self.streams.hazards.set_fails(fail);
    }

    /// The unsynchronised accesses found so far (and forgets them).
    pub fn take_hazards(&self) -> Vec<Hazard> {
        self.streams.hazards.take()
    }

    /// Checks a host access (a read, or a write) of `addr..addr+len`
    /// against the streams' accesses that nothing orders it with; under
    /// `VMMKIT_HAZARDS=error` such an access fails instead of being made.
    ///
    /// # Errors
    /// [`CoreError::Unsynchronised`] under `VMMKIT_HAZARDS=error`.
    pub(crate) fn check_host_access(&self, addr: usize, len: usize, write: bool) -> Result<(), CoreError> {
        if self.streams.hazards.is_off() {
            return Ok(());
        }
        let shared = self.shared_pieces(addr, len);
        let found = self.streams.hazards.host_access(addr, len, write, |id, seq| self.runs_unordered(id, seq), &shared);
        match found.into_iter().next() {
            Some(h) if self.streams.hazards.fails() => Err(CoreError::Unsynchronised(Box::new(h))),
            _ => Ok(()),
        }
    }

    /// The pieces of a work's ranges that lie in shared memory, each with
    /// whether the work writes it.
    fn shared_ranges(&self, ranges: Option<Ranges>) -> Vec<(Piece, bool)> {
        let Some(r) = ranges else { return Vec::new() };
        let mut out = Vec::new();
        for (range, write) in [(r.read, false), (r.write, true)] {
            if let Some((start, len)) = range {
                out.extend(self.shared_pieces(start, len).into_iter().map(|p| (p, write)));
            }
        }
        out
    }

    /// This process maps memory with a registry entry: its accesses are
    /// checked against other processes' from now on.
    pub(super) fn set_sharing(&self) {
        self.streams.hazards.set_sharing();
    }

    /// Whether this process maps memory with a registry entry.
    pub(super) fn sharing(&self) -> bool {
        self.streams.hazards.sharing()
    }

    /// Whether work `seq` of stream `id`, not yet run, could run now with
    /// nothing more happening: nothing before it waits for what has not
    /// happened yet. Nothing done from now on can then be ordered before it.
    fn runs_unordered(&self, id: StreamId, seq: u32) -> bool {
        let Ok(s) = self.streams.get(id) else { return false };
        let q = s.lock();
        q.items.iter().take_while(|it| after(seq, it.seq) || it.seq == seq).all(|it| match &it.work {
            Work::Wait { cell, seq } => cell.is_reached(*seq),
            Work::WaitReset { cell, .. } => Emulator::wait_reset_ready(cell),
            Work::WaitValue { .. } => false,
            _ => true,
        })
    }

    /// Waits for record `seq` of `cell` (an event's, a notify's) from the host.
    ///
    /// # Errors
    /// [`CoreError::Timeout`], [`CoreError::Abandoned`].
    pub fn wait_for(&self, cell: &Cell, seq: u32, timeout: Option<Duration>) -> Result<(), CoreError> {
        self.wait_cell(cell, seq, timeout.map(|t| Instant::now() + t))
    }

    /// The host learnt, by a query, that record `seq` of `cell` ran.
    pub(crate) fn acquired(&self, cell: &Cell, seq: u32) {
        if cell.is_reached(seq) {
            self.streams.hazards.host_acquire(cell);
        }
    }

    /// Says that record `seq` of `cell` is wanted (a query), so that held work
    /// runs: this process's, under `adversarial`, or another's (a shared cell).
    pub fn want(&self, cell: &Cell, seq: u32) {
        let holding = self.streams.holding.load(Ordering::Acquire);
        if !cell.is_reached(seq) && (holding || cell.is_shared()) {
            cell.want(seq);
            self.streams.poke_all();
        }
    }
}
