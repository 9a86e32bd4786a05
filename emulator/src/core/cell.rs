//! Progress words: what streams, events and notifies record and wait on.
//!
//! A [`Cell`] counts records in sequence: enqueueing a record takes the next
//! number ([`Cell::next`]), running it completes that number
//! ([`Cell::complete`]), and a waiter sleeps on the futex of `completed`
//! until its number is reached ([`Cell::wait`]). The words are atomics only,
//! valid for any bit pattern, so the same cell can live in this process
//! ([`Cell::local`]) or in a file shared with other processes
//! ([`Cell::shared`]): an event shared across processes is a cell both map.
//!
//! Numbers wrap at 2³²; a number is reached when the completed one is not
//! before it in wrapping order, so a cell may be recorded forever.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::thread::futex;

use crate::os::shared::{SharedPod, SharedView};

/// The words of a cell, as they lie in memory (64 bytes, one cache line).
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct Words {
    /// Low 32 bits: the number of the last record enqueued (0: never
    /// recorded). High 32 bits, for a shared cell: the pid of the process
    /// that took that number, set in the same compare-and-swap, so that
    /// concurrent recorders cannot mix up who owns which number.
    pub tail: AtomicU64,
    /// `CLOCK_MONOTONIC` nanoseconds at which `completed` last advanced.
    pub at_ns: AtomicU64,
    /// Low 32 bits: a record number; high 32 bits: the start stamp
    /// ([`crate::os::proc::holder_stamp`]) of the process that took it.
    /// Raised by each recorder right after its number, so that a recycled
    /// pid is not taken for the recorder.
    pub tail_stamp: AtomicU64,
    /// The number of the last record completed; waiters sleep on its futex.
    pub completed: AtomicU32,
    /// The highest number somebody waits for. The adversarial schedule holds
    /// a record back until this reaches it.
    pub wanted: AtomicU32,
    /// What the creator set (its meaning is the owner's: event flags).
    pub flags: AtomicU32,
    /// `spare[0..6]`: for the owner's use (a notify's consumed count).
    /// `spare[6]`: how many waiters are, or are about to be, asleep on
    /// `completed` (see [`Cell::complete`]).
    pub spare: [AtomicU32; 7],
}

// SAFETY: `#[repr(C)]`, every field an atomic integer, valid for any bit
// pattern including all zeros.
unsafe impl SharedPod for Words {}

const _: () = assert!(size_of::<Words>() == 64);

/// Components of a vector clock a shared cell carries with its last record.
pub const RECORD_CLOCK_ROOM: usize = 30;

/// The vector clock of a shared cell's last record (`core/hazard.rs`), as it
/// lies in the cell's file after the header: `(pid, agent, counter)`
/// triples. Written by each recorder before its record completes, read by
/// whoever waits on the record, in any process.
///
/// No lock: `version` is odd while a recorder writes, and a reader that saw
/// it change reads again. A recorder that finds it odd for more than a
/// millisecond (the writer died or stopped halfway) writes over it; a
/// reader gives up after a few tries and joins nothing.
#[repr(C)]
#[derive(Debug, Default)]
pub struct RecordClock {
    /// Even when stable; odd while written.
    pub version: AtomicU32,
    /// Triples in use (at most [`RECORD_CLOCK_ROOM`]).
    pub len: AtomicU32,
    /// The pid of the process that wrote them.
    pub writer: AtomicU32,
    /// `(pid, agent, counter)`: agent 0 is the host, n stream n.
    pub triples: [[AtomicU32; 3]; RECORD_CLOCK_ROOM],
}

/// A component of a vector clock as it travels between processes: pid,
/// agent (0: the host, n: stream n), counter.
pub type Triple = (u32, u32, u32);

/// The first 512 bytes of a shared cell's file (registry/cells.rs): the
/// words, the header the registry reads and writes with `pread`/`pwrite`
/// (never touched through this view), and the last record's clock.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct CellPage {
    /// The cell's words.
    pub words: Words,
    /// The registry's header (bytes 64..128): not used through the map.
    pub header: [AtomicU64; 8],
    /// The last record's vector clock (bytes 128..500).
    pub clock: RecordClock,
}

// SAFETY: `#[repr(C)]`, every field an atomic integer or a struct or array
// of them, valid for any bit pattern including all zeros.
unsafe impl SharedPod for CellPage {}

const _: () = assert!(size_of::<CellPage>() <= 512);

impl RecordClock {
    /// Stores `triples` (the first [`RECORD_CLOCK_ROOM`] of them), written by process `writer`.
    pub fn store(&self, writer: u32, triples: &[Triple]) {
        let deadline = Instant::now() + Duration::from_millis(1);
        let mut v = self.version.load(Ordering::Acquire);
        let mine = loop {
            let to = if v % 2 == 0 || Instant::now() >= deadline { v.wrapping_add(1) | 1 } else { v };
            if to != v {
                match self.version.compare_exchange_weak(v, to, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => break to,
                    Err(now) => v = now,
                }
            } else {
                std::hint::spin_loop();
                v = self.version.load(Ordering::Acquire);
            }
        };
        let n = triples.len().min(RECORD_CLOCK_ROOM);
        for (slot, t) in self.triples.iter().zip(&triples[..n]) {
            slot[0].store(t.0, Ordering::Relaxed);
            slot[1].store(t.1, Ordering::Relaxed);
            slot[2].store(t.2, Ordering::Relaxed);
        }
        self.len.store(n as u32, Ordering::Relaxed);
        self.writer.store(writer, Ordering::Relaxed);
        // Another writer that overtook this one moved the version on: leave it.
        let _ = self.version.compare_exchange(mine, mine.wrapping_add(1), Ordering::Release, Ordering::Relaxed);
    }

    /// The stored triples and the pid of their writer, or `None` when no
    /// stable copy was seen in a few tries.
    pub fn load(&self) -> Option<(u32, Vec<Triple>)> {
        for _ in 0..64 {
            let v = self.version.load(Ordering::Acquire);
            if v % 2 == 1 {
                std::thread::yield_now();
                continue;
            }
            let n = (self.len.load(Ordering::Relaxed) as usize).min(RECORD_CLOCK_ROOM);
            let out: Vec<Triple> = self.triples[..n]
                .iter()
                .map(|t| (t[0].load(Ordering::Relaxed), t[1].load(Ordering::Relaxed), t[2].load(Ordering::Relaxed)))
                .collect();
            let writer = self.writer.load(Ordering::Relaxed);
            std::sync::atomic::fence(Ordering::Acquire);
            if self.version.load(Ordering::Relaxed) == v {
                return Some((writer, out));
            }
        }
        None
    }
}

/// Where a cell's words live.
#[derive(Debug)]
enum Backing {
    Local(Box<Words>),
    Shared(SharedView<CellPage>),
}

/// Whether the one who would record a shared cell is still there (its
/// creator): asked only for a number nobody has taken yet.
pub type Alive = Box<dyn Fn() -> bool + Send + Sync>;

/// A process that takes record numbers of a shared cell: its pid and start
/// stamp ([`crate::os::proc::holder_stamp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorder {
    /// Its pid.
    pub pid: u32,
    /// Its start time folded to 32 bits; `None` when the cell no longer
    /// holds it (the pid alone then says).
    pub stamp: Option<u32>,
}

impl Recorder {
    /// The calling process.
    pub fn current() -> Self {
        let me = crate::os::proc::ProcessId::current();
        Self { pid: me.pid, stamp: Some(crate::os::proc::stamp_of(&me)) }
    }

    /// Whether it still runs (a process that cannot be looked up counts as
    /// running; see [`crate::os::proc::holds`]).
    pub fn is_alive(&self) -> bool {
        crate::os::proc::holds(self.pid, self.stamp)
    }
}

/// What a shared cell knows of itself beyond its words.
struct Sharing {
    /// This process, as it signs the numbers it takes.
    me: Recorder,
    /// Whether its creator lives (for numbers not taken yet).
    creator_alive: Alive,
}

/// A cell: its words, here or in shared memory.
pub struct Cell {
    words: Backing,
    /// For a shared cell: who this process is, and whether the creator lives.
    sharing: Option<Sharing>,
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell").field("words", self.words()).field("shared", &self.is_shared()).finish()
    }
}

/// Why a wait ended without its number being reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitError {
    /// The deadline passed.
    Timeout,
    /// The process that took the number waited for (or, for a number nobody
    /// took yet, the cell's creator) is gone: the record can never complete.
    Abandoned,
}

/// Whether `a` comes after `b` in wrapping order.
pub(crate) fn after(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) as i32 > 0
}

/// Whether `completed` is at or past `seq` in wrapping order.
fn reached(completed: u32, seq: u32) -> bool {
    !after(seq, completed)
}

/// Raises `word` to `v` unless it is already at or after `v` in wrapping
/// order (0, never set, is before every number).
pub(crate) fn raise(word: &AtomicU32, v: u32) {
    let mut cur = word.load(Ordering::Acquire);
    while after(v, cur) || (cur == 0 && v != 0) {
        match word.compare_exchange_weak(cur, v, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(now) => cur = now,
        }
    }
}

/// `CLOCK_MONOTONIC` now, in nanoseconds.
pub fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(t.tv_nsec as u64)
}

/// The index in `spare` of the sleeping waiters' count.
const SLEEPERS: usize = 6;

/// The low half of a tail word: a record number.
fn seq_of(word: u64) -> u32 {
    word as u32
}

/// The high half of a tail word: a pid or a stamp.
fn tag_of(word: u64) -> u32 {
    (word >> 32) as u32
}

fn tagged(seq: u32, tag: u32) -> u64 {
    u64::from(seq) | (u64::from(tag) << 32)
}

/// How often a waiter with an `alive` check looks at it.
const LIVENESS_PERIOD: Duration = Duration::from_millis(100);
/// When a waiter first looks at it: a wait for a process that was already
/// gone when it began ends within about a millisecond, not a whole period,
/// while a wait that ends sooner (a round trip with a live peer takes
/// microseconds) never looks at all.
const FIRST_LOOK: Duration = Duration::from_millis(1);

impl Cell {
    /// A cell of this process only, never recorded.
    pub fn local() -> Self {
        Self { words: Backing::Local(Box::default()), sharing: None }
    }

    /// A cell over words mapped from a file that other processes map too.
    /// A wait on it ends when the process that took the number waited for
    /// is dead; `creator_alive` says, for a number nobody has taken yet,
    /// whether the one expected to take it (the creator) still lives.
    pub fn shared(view: SharedView<CellPage>, creator_alive: Alive) -> Self {
        Self { words: Backing::Shared(view), sharing: Some(Sharing { me: Recorder::current(), creator_alive }) }
    }

    /// Its words.
    pub fn words(&self) -> &Words {
        match &self.words {
            Backing::Local(w) => w,
            Backing::Shared(v) => &v.words,
        }
    }

    /// For a shared cell, the clock its last record carries (`core/hazard.rs`).
    pub fn record_clock(&self) -> Option<&RecordClock> {
        match &self.words {
            Backing::Local(_) => None,
            Backing::Shared(v) => Some(&v.clock),
        }
    }

    /// Local cells wait on a process-private futex (cheaper); shared ones on
    /// the shared one, which other processes wake.
    fn futex_flags(&self) -> futex::Flags {
        match self.words {
            Backing::Local(_) => futex::Flags::PRIVATE,
            Backing::Shared(_) => futex::Flags::empty(),
        }
    }

    /// Whether this cell lives in shared memory.
    pub fn is_shared(&self) -> bool {
        matches!(self.words, Backing::Shared(_))
    }

    /// Takes the next record number (for a record being enqueued). A shared
    /// cell's number is signed with this process's pid in the same
    /// compare-and-swap, and its start stamp right after.
    pub fn next(&self) -> u32 {
        let w = self.words();
        let Some(sharing) = &self.sharing else {
            // The high half is unused here: a carry into it changes nothing.
            return seq_of(w.tail.fetch_add(1, Ordering::AcqRel)).wrapping_add(1);
        };
        let me = sharing.me;
        let mut cur = w.tail.load(Ordering::Acquire);
        let seq = loop {
            let seq = seq_of(cur).wrapping_add(1);
            match w.tail.compare_exchange_weak(cur, tagged(seq, me.pid), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break seq,
                Err(now) => cur = now,
            }
        };
        // Raise the stamp word to this number unless a later one is there.
        let stamp = me.stamp.unwrap_or(0);
        let mut cur = w.tail_stamp.load(Ordering::Acquire);
        while cur == 0 || !after(seq_of(cur), seq) {
            match w.tail_stamp.compare_exchange_weak(cur, tagged(seq, stamp), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
        seq
    }

    /// The number of the last record enqueued (0: never recorded).
    pub fn last(&self) -> u32 {
        seq_of(self.words().tail.load(Ordering::Acquire))
    }

    /// For a shared cell, the process that took the last number, and that
    /// number (`None`: a local cell, or never recorded).
    pub fn last_recorder(&self) -> Option<(u32, Recorder)> {
        self.sharing.as_ref()?;
        let w = self.words();
        let tail = w.tail.load(Ordering::Acquire);
        let seq = seq_of(tail);
        if seq == 0 && tag_of(tail) == 0 {
            return None;
        }
        let st = w.tail_stamp.load(Ordering::Acquire);
        let stamp = (seq_of(st) == seq).then_some(tag_of(st));
        Some((seq, Recorder { pid: tag_of(tail), stamp }))
    }

    /// Who must complete record `seq` for it to be reached: the process that
    /// took it when it is the last number; when later numbers were taken
    /// since, the one that took the last (its record completes `seq` too).
    /// `None` for a local cell and for a number nobody took yet.
    fn owner_of(&self, seq: u32) -> Option<Recorder> {
        let (last, who) = self.last_recorder()?;
        (!after(seq, last)).then_some(who)
    }

    /// Whether record `seq` of this shared cell can never complete: it is
    /// not reached and the process that must complete it is dead (for a
    /// number nobody took yet: the creator). Local cells: never.
    pub fn is_abandoned(&self, seq: u32) -> bool {
        let Some(sharing) = &self.sharing else { return false };
        if self.is_reached(seq) {
            return false;
        }
        let gone = match self.owner_of(seq) {
            Some(who) if who.pid == sharing.me.pid => false,
            Some(who) => !who.is_alive(),
            None => !(sharing.creator_alive)(),
        };
        // It may have completed while we looked.
        gone && !self.is_reached(seq)
    }

    /// Whether record `seq` has completed (0 always has).
    pub fn is_reached(&self, seq: u32) -> bool {
        seq == 0 || reached(self.words().completed.load(Ordering::Acquire), seq)
    }

    /// When the last completed record completed (`CLOCK_MONOTONIC` ns).
    pub fn completed_at(&self) -> u64 {
        self.words().at_ns.load(Ordering::Acquire)
    }

    /// Completes record `seq` (and every number before it) and wakes the waiters.
    pub fn complete(&self, seq: u32) {
        let w = self.words();
        w.at_ns.store(now_ns(), Ordering::Release);
        raise(&w.completed, seq);
        // Wake only when someone may sleep: a waiter counts itself before it
        // reads `completed` for the last time, and the completer reads the
        // count after its store (both sequentially consistent), so one of
        // the two sees the other. Saves the wake system call of every
        // record nobody waits for.
        std::sync::atomic::fence(Ordering::SeqCst);
        if w.spare[SLEEPERS].load(Ordering::SeqCst) != 0 {
            // A failed wake changes nothing a waiter relies on: it re-reads the word.
            let _ = futex::wake(&w.completed, self.futex_flags(), u32::MAX);
        }
    }

    /// Says that somebody waits for `seq` (the adversarial schedule then runs
    /// the work up to it).
    pub fn want(&self, seq: u32) {
        raise(&self.words().wanted, seq);
    }

    /// Whether somebody waits for `seq` or a later record.
    pub fn is_wanted(&self, seq: u32) -> bool {
        let w = self.words().wanted.load(Ordering::Acquire);
        w != 0 && reached(w, seq)
    }

    /// Sleeps until record `seq` completes or `deadline` passes; for a shared
    /// cell, also until the process that must complete it is found gone
    /// (asked after 1 ms, then every 100 ms, see [`Cell::is_abandoned`]). The owner of `seq`
    /// is taken when the wait starts, while `seq` is most likely still the
    /// last number, so that a later record by another process does not
    /// stand for it.
    ///
    /// # Errors
    /// [`WaitError::Timeout`], [`WaitError::Abandoned`].
    pub fn wait(&self, seq: u32, deadline: Option<Instant>) -> Result<(), WaitError> {
        self.wait_or(seq, deadline, &|| false)
    }

    /// [`Cell::wait`] that also ends, with [`WaitError::Abandoned`], once
    /// `stop` says so (asked after 1 ms, then every 100 ms: a stream's wait when the stream
    /// is aborted).
    ///
    /// # Errors
    /// As [`Cell::wait`].
    pub fn wait_or(&self, seq: u32, deadline: Option<Instant>, stop: &dyn Fn() -> bool) -> Result<(), WaitError> {
        let Some(sharing) = &self.sharing else { return self.wait_while(seq, deadline, &|| !stop()) };
        let exact = self.last_recorder().filter(|(last, _)| *last == seq).map(|(_, who)| who);
        self.wait_while(seq, deadline, &|| {
            !stop()
                && match exact {
                    Some(who) => who.pid == sharing.me.pid || who.is_alive() || self.is_reached(seq),
                    None => !self.is_abandoned(seq),
                }
        })
    }

    /// [`Cell::wait`], with `alive` as the recorder's liveness.
    ///
    /// # Errors
    /// As [`Cell::wait`].
    pub fn wait_while(&self, seq: u32, deadline: Option<Instant>, alive: &dyn Fn() -> bool) -> Result<(), WaitError> {
        let w = &self.words().completed;
        let mut next_look = Instant::now() + FIRST_LOOK;
        loop {
            let cur = w.load(Ordering::Acquire);
            if seq == 0 || reached(cur, seq) {
                return Ok(());
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Err(WaitError::Timeout);
            }
            if now >= next_look {
                if !alive() {
                    return Err(WaitError::Abandoned);
                }
                next_look = now + LIVENESS_PERIOD;
            }
            let until = deadline.map_or(next_look, |d| d.min(next_look));
            let left = until.saturating_duration_since(now);
            let ts = rustix::time::Timespec { tv_sec: left.as_secs() as i64, tv_nsec: i64::from(left.subsec_nanos()) };
            let sleepers = &self.words().spare[SLEEPERS];
            sleepers.fetch_add(1, Ordering::SeqCst);
            let cur = w.load(Ordering::SeqCst);
            if !reached(cur, seq) {
                // EAGAIN (the word moved), EINTR and ETIMEDOUT all mean: look again.
                let _ = futex::wait(w, self.futex_flags(), cur, Some(&ts));
            }
            sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn numbers_complete_in_wrapping_order() {
        let c = Cell::local();
        assert!(c.is_reached(0));
        let a = c.next();
        let b = c.next();
        assert!(!c.is_reached(a));
        c.complete(b);
        assert!(c.is_reached(a) && c.is_reached(b));
        c.complete(a);
        assert!(c.is_reached(b), "completing an earlier number does not go back");
        c.words().completed.store(u32::MAX, Ordering::Relaxed);
        assert!(c.is_reached(u32::MAX - 3) && !c.is_reached(2));
    }

    #[test]
    fn a_waiter_wakes_on_completion_and_times_out_otherwise() {
        let c = Arc::new(Cell::local());
        let seq = c.next();
        let t = {
            let c = c.clone();
            std::thread::spawn(move || c.wait(seq, Some(Instant::now() + Duration::from_secs(10))))
        };
        std::thread::sleep(Duration::from_millis(20));
        c.complete(seq);
        assert_eq!(t.join().unwrap(), Ok(()));
        let later = c.next();
        let err = c.wait(later, Some(Instant::now() + Duration::from_millis(30)));
        assert_eq!(err, Err(WaitError::Timeout));
        assert_eq!(c.wait_while(later, None, &|| false), Err(WaitError::Abandoned));
    }

    #[test]
    fn wanted_only_rises() {
        let c = Cell::local();
        assert!(!c.is_wanted(1));
        c.want(3);
        c.want(2);
        assert!(c.is_wanted(3) && c.is_wanted(1) && !c.is_wanted(4));
    }
}
