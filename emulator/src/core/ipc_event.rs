//! Events and notifies shared across processes, for every dialect.
//!
//! Their [`Cell`] lives in a one-page file of the root (`registry/cells.rs`),
//! linked under a key in `shared/` when it is made: the creator and every
//! process that opens the key map the same words, so a record completed in
//! one process wakes a waiter in another (a futex on shared memory).
//!
//! - Holders and clean-up are those of exported memory: each holder keeps a
//!   shared `flock`; destroying the event (or dying) lets go; the last
//!   holder removes the file; `gc` collects one that only dead processes held.
//! - Every record number is signed with the pid of the process that took
//!   it (in the same compare-and-swap) and its start stamp
//!   (`core/cell.rs`). A waiter, in any process, the creator's included,
//!   stops waiting when the process that took the number it waits for is
//!   found dead ([`CoreError::Abandoned`]): that record can never complete.
//!   For a number nobody took yet (a notify not set yet), the creator's
//!   death ends the wait. Nothing hangs.
//! - A notify (ACL) is a shared cell that records set and a wait-and-reset
//!   clears: the cell's `spare[0]` counts the records consumed.
//! - The core opens a key in any process, the creating one included; the
//!   dialects refuse what their vendor refuses ([`Emulator::shared_cell_info`]
//!   tells whether the caller made it).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::cell::{Cell, CellPage};
use super::event::{Event, EventFlags, EventId};
use super::stream::{StreamId, Work};
use super::{CoreError, Emulator};
use crate::os::proc::ProcessId;
use crate::os::shared::SharedView;
use crate::registry::{CellKind, HeldCell, LookupError};

/// This process's hold on a shared cell.
#[derive(Debug)]
pub(crate) struct Share {
    /// The key.
    pub(crate) key: u64,
    /// Event or notify.
    pub(crate) kind: CellKind,
    /// Whether this process made it.
    pub(crate) created_here: bool,
    /// The hold (taken back on destroy).
    held: Mutex<Option<HeldCell>>,
}

/// What a key names, for the dialects' checks before they open it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedCellInfo {
    /// Event or notify.
    pub kind: CellKind,
    /// The process that made it.
    pub creator: ProcessId,
    /// Whether that is the calling process.
    pub created_here: bool,
    /// The flags it was made with.
    pub flags: EventFlags,
}

const TIMING: u32 = 1;
const BLOCKING_SYNC: u32 = 2;
const INTERPROCESS: u32 = 4;

fn flag_bits(f: EventFlags) -> u32 {
    (if f.timing { TIMING } else { 0 })
        | (if f.blocking_sync { BLOCKING_SYNC } else { 0 })
        | (if f.interprocess { INTERPROCESS } else { 0 })
}

fn flags_of(bits: u32) -> EventFlags {
    EventFlags {
        timing: bits & TIMING != 0,
        blocking_sync: bits & BLOCKING_SYNC != 0,
        interprocess: bits & INTERPROCESS != 0,
    }
}

fn lookup_error(e: LookupError) -> CoreError {
    match e {
        LookupError::Unknown(k) | LookupError::Releasing(k) => CoreError::UnknownSharedCell(k),
        LookupError::Io { source, .. } => source.into(),
    }
}

/// The index in `spare` of a notify's consumed count.
const CONSUMED: usize = 0;

impl Emulator {
    /// The words and hold of a new shared cell of `kind`, made by this process.
    pub(super) fn shared_cell(&self, kind: CellKind, flags: EventFlags) -> Result<(Cell, Share), CoreError> {
        let held = self.registry.cell_create(kind, flag_bits(flags))?;
        let view = SharedView::<CellPage>::map(&held.object, 0)?;
        view.words.flags.store(flag_bits(flags), Ordering::Release);
        let share = Share { key: held.header.key, kind, created_here: true, held: Mutex::new(Some(held)) };
        // Its numbers not taken yet are the creator's, this process's: alive.
        Ok((Cell::shared(view, Box::new(|| true)), share))
    }

    /// Opens the shared cell `key` of `kind` in this process.
    fn open_cell(&self, key: u64, kind: CellKind) -> Result<EventId, CoreError> {
        let held = self.registry.cell_open(key).map_err(lookup_error)?;
        let view = match self.admit_cell(&held, kind) {
            Ok(view) => view,
            Err(e) => {
                // A refused open lets go of its hold as any holder does.
                let _ = self.registry.cell_drop(held);
                return Err(e);
            }
        };
        let creator = held.header.creator;
        let created_here = creator == self.registry.me();
        let flags = flags_of(held.header.flags);
        let cell = Cell::shared(view, Box::new(move || created_here || creator.is_alive()));
        let share = Share { key, kind, created_here, held: Mutex::new(Some(held)) };
        Ok(self.events.insert(Event { cell: Arc::new(cell), flags, key: Some(key), share: Some(share) }))
    }

    /// Whether this process may open `held` as a cell of `kind`: its words, mapped, if so.
    fn admit_cell(&self, held: &HeldCell, kind: CellKind) -> Result<SharedView<CellPage>, CoreError> {
        let key = held.header.key;
        if held.header.kind != kind {
            return Err(CoreError::UnknownSharedCell(key));
        }
        if kind == CellKind::Notify && !held.header.admits(&held.object, self.registry.me())? {
            return Err(CoreError::NotTrusted { key, pid: self.registry.me().pid, stale: false });
        }
        Ok(SharedView::<CellPage>::map(&held.object, 0)?)
    }

    /// Lets go of this process's hold on a shared cell (on destroy).
    pub(super) fn release_share(&self, share: &Share) -> Result<(), CoreError> {
        let held = share.held.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(held) = held {
            self.registry.cell_release(held)?;
        }
        Ok(())
    }

    fn share_of(&self, id: EventId, kind: CellKind) -> Result<Arc<Event>, CoreError> {
        let ev = self.events.get(id)?;
        match &ev.share {
            Some(s) if s.kind == kind => Ok(ev),
            _ => Err(CoreError::NotInterprocess(id.0)),
        }
    }

    /// The registry key of interprocess event `id` (the same each time).
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`]; [`CoreError::NotInterprocess`] for an
    /// event made without `interprocess` (or a notify).
    pub fn event_export(&self, id: EventId) -> Result<u64, CoreError> {
        Ok(self.share_of(id, CellKind::Event)?.share.as_ref().map_or(0, |s| s.key))
    }

    /// Opens the interprocess event exported as `key` (by another process,
    /// or by this one: the dialects decide, see [`Self::shared_cell_info`]).
    /// Waits on it end with [`CoreError::Abandoned`] once the process whose
    /// record they wait for is dead.
    ///
    /// # Errors
    /// [`CoreError::UnknownSharedCell`] for a key that names no live event.
    pub fn event_open(&self, key: u64) -> Result<EventId, CoreError> {
        self.open_cell(key, CellKind::Event)
    }

    /// What the key names, read without taking a hold.
    ///
    /// # Errors
    /// [`CoreError::UnknownSharedCell`].
    pub fn shared_cell_info(&self, key: u64) -> Result<SharedCellInfo, CoreError> {
        let h = self.registry.cell_peek(key).map_err(lookup_error)?;
        Ok(SharedCellInfo {
            kind: h.kind,
            creator: h.creator,
            created_here: h.creator == self.registry.me(),
            flags: flags_of(h.flags),
        })
    }

    /// Whether event `id` is shared (made interprocess, or opened), and
    /// whether this process made it.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`].
    pub fn shared_origin(&self, id: EventId) -> Result<Option<bool>, CoreError> {
        Ok(self.events.get(id)?.share.as_ref().map(|s| s.created_here))
    }

    /// A new notify: a shared cell that records set and a wait-and-reset clears.
    ///
    /// # Errors
    /// [`CoreError::Os`] and the like when its file cannot be made.
    pub fn notify_create(&self) -> Result<EventId, CoreError> {
        let flags = EventFlags { interprocess: true, ..EventFlags::default() };
        let (cell, share) = self.shared_cell(CellKind::Notify, flags)?;
        Ok(self.events.insert(Event { cell: Arc::new(cell), flags, key: None, share: Some(share) }))
    }

    /// Whether `id` is a live notify of this process (made or opened here).
    pub fn notify_exists(&self, id: EventId) -> bool {
        self.share_of(id, CellKind::Notify).is_ok()
    }

    /// The key of notify `id`; with `any_process`, any process may open it
    /// (the trustlist is off), else only those [`Self::notify_trust`] lists.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`], [`CoreError::NotInterprocess`] (not a
    /// notify), [`CoreError::NotExporter`] (opened, not made, here).
    pub fn notify_export(&self, id: EventId, any_process: bool) -> Result<u64, CoreError> {
        let ev = self.share_of(id, CellKind::Notify)?;
        let share = ev.share.as_ref().ok_or(CoreError::NotInterprocess(id.0))?;
        if !share.created_here {
            return Err(CoreError::NotExporter(share.key));
        }
        let mut held = share.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = held.as_mut() {
            self.registry.cell_set_any_process(h, any_process)?;
        }
        Ok(share.key)
    }

    /// Adds `pids` to the trustlist of notify `id`, made here.
    ///
    /// # Errors
    /// As [`Self::notify_export`]; [`CoreError::NoPids`];
    /// [`CoreError::TrustlistFull`].
    pub fn notify_trust(&self, id: EventId, pids: &[i32]) -> Result<(), CoreError> {
        let ev = self.share_of(id, CellKind::Notify)?;
        let share = ev.share.as_ref().ok_or(CoreError::NotInterprocess(id.0))?;
        if !share.created_here {
            return Err(CoreError::NotExporter(share.key));
        }
        if pids.iter().all(|&p| p == 0) {
            return Err(CoreError::NoPids);
        }
        let mut held = share.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = held.as_mut()
            && !self.registry.cell_trust(h, pids)?
        {
            return Err(CoreError::TrustlistFull(share.key));
        }
        Ok(())
    }

    /// Opens the notify exported as `key`: this process must be on its
    /// trustlist, or the trustlist off, or this the creating process.
    ///
    /// # Errors
    /// [`CoreError::UnknownSharedCell`], [`CoreError::NotTrusted`].
    pub fn notify_open(&self, key: u64) -> Result<EventId, CoreError> {
        self.open_cell(key, CellKind::Notify)
    }

    /// Enqueues on `stream` a record of notify `id` (sets it).
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`], [`CoreError::NotInterprocess`] (not a notify), [`CoreError::UnknownStream`].
    pub fn notify_record(&self, id: EventId, stream: StreamId) -> Result<(), CoreError> {
        self.share_of(id, CellKind::Notify)?;
        self.event_record(id, stream)
    }

    /// Enqueues on `stream` a wait until notify `id` is set (a record
    /// completed since the last reset), then a reset. A wait longer than
    /// `timeout` fails the stream with [`CoreError::Timeout`].
    ///
    /// # Errors
    /// As [`Self::notify_record`].
    pub fn notify_wait_reset(&self, id: EventId, stream: StreamId, timeout: Option<Duration>) -> Result<(), CoreError> {
        let ev = self.share_of(id, CellKind::Notify)?;
        if !self.stream_exists(stream) {
            return Err(CoreError::UnknownStream(stream.0));
        }
        // SAFETY: a wait touches no memory.
        unsafe { self.enqueue(stream, Work::WaitReset { cell: ev.cell.clone(), timeout }) }
    }

    /// Enqueues on `stream` a reset of notify `id`: the records completed
    /// when it runs are consumed, so a later wait needs a later record.
    ///
    /// # Errors
    /// As [`Self::notify_record`].
    pub fn notify_reset(&self, id: EventId, stream: StreamId) -> Result<(), CoreError> {
        let ev = self.share_of(id, CellKind::Notify)?;
        if !self.stream_exists(stream) {
            return Err(CoreError::UnknownStream(stream.0));
        }
        let cell = ev.cell.clone();
        // SAFETY: a reset touches no memory.
        unsafe { self.enqueue(stream, Work::Host(Box::new(move || reset_cell(&cell)))) }
    }

    /// Runs a wait-and-reset of `cell` (a stream's worker, or eager inline).
    /// Ends early (as abandoned) once `stop` says so (the stream is aborted).
    pub(super) fn run_wait_reset(
        &self,
        cell: &Cell,
        timeout: Option<Duration>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), CoreError> {
        let target = cell.words().spare[CONSUMED].load(Ordering::Acquire).wrapping_add(1);
        self.wait_cell_or(cell, target, timeout.map(|t| std::time::Instant::now() + t), stop)?;
        reset_cell(cell);
        Ok(())
    }

    /// Whether a wait-and-reset of `cell` would end at once.
    pub(super) fn wait_reset_ready(cell: &Cell) -> bool {
        let target = cell.words().spare[CONSUMED].load(Ordering::Acquire).wrapping_add(1);
        cell.is_reached(target)
    }
}

/// Consumes the records of notify `cell` completed by now: a notify is set or not.
fn reset_cell(cell: &Cell) {
    let done = cell.words().completed.load(Ordering::Acquire);
    super::cell::raise(&cell.words().spare[CONSUMED], done);
}

impl Emulator {
    /// Whether shared notify or event `id` may be opened by any process (its
    /// trustlist is off), as its creator last set it.
    pub fn notify_is_open_to_all(&self, id: EventId) -> bool {
        self.events.get(id).ok().and_then(|ev| {
            let share = ev.share.as_ref()?;
            let held = share.held.lock().unwrap_or_else(|p| p.into_inner());
            held.as_ref().map(|h| h.header.any_process)
        }) == Some(true)
    }
}
