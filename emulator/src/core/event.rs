//! Events: a [`Cell`] that streams record and that streams or the host wait
//! on, for every dialect. An event's waits and queries refer to its most
//! recent record at the time they are made, as on the devices.
//!
//! An interprocess event keeps its cell in a file of the root, so that
//! another process that opens it waits on the same words (`ipc_event.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::cell::Cell;
use super::ipc_event::Share;
use super::stream::{StreamId, Work};
use super::{CoreError, Emulator};
use crate::registry::CellKind;

/// An event of this process (never reused within a process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u64);

/// What an event was made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventFlags {
    /// It keeps the time of its records (elapsed time can be asked).
    pub timing: bool,
    /// Host waits block rather than spin (the emulator always blocks; kept for queries).
    pub blocking_sync: bool,
    /// It can be shared with other processes.
    pub interprocess: bool,
}

/// An event.
#[derive(Debug)]
pub struct Event {
    /// Its words.
    pub cell: Arc<Cell>,
    /// What it was made with.
    pub flags: EventFlags,
    /// The registry key it is shared under: for an interprocess event from
    /// its creation, for an opened one the key it was opened with.
    pub key: Option<u64>,
    /// This process's hold on its shared cell (interprocess events, notifies).
    pub(crate) share: Option<Share>,
}

/// The events of one process.
#[derive(Debug, Default)]
pub(super) struct Events {
    next: AtomicU64,
    pub(super) map: Mutex<HashMap<EventId, Arc<Event>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Events {
    pub(super) fn insert(&self, event: Event) -> EventId {
        let id = EventId(self.next.fetch_add(1, Ordering::Relaxed) + 1);
        lock(&self.map).insert(id, Arc::new(event));
        id
    }

    pub(super) fn get(&self, id: EventId) -> Result<Arc<Event>, CoreError> {
        lock(&self.map).get(&id).cloned().ok_or(CoreError::UnknownEvent(id.0))
    }
}

impl Emulator {
    /// A new event.
    ///
    /// # Errors
    /// An interprocess event whose shared words cannot be made ([`CoreError::Os`]).
    pub fn event_create(&self, flags: EventFlags) -> Result<EventId, CoreError> {
        if !flags.interprocess {
            return Ok(self.events.insert(Event { cell: Arc::new(Cell::local()), flags, key: None, share: None }));
        }
        let (cell, share) = self.shared_cell(CellKind::Event, flags)?;
        let key = Some(share.key);
        Ok(self.events.insert(Event { cell: Arc::new(cell), flags, key, share: Some(share) }))
    }

    /// Whether `id` is a live event of this process.
    pub fn event_exists(&self, id: EventId) -> bool {
        lock(&self.events.map).contains_key(&id)
    }

    /// Event `id`.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`].
    pub fn event(&self, id: EventId) -> Result<Arc<Event>, CoreError> {
        self.events.get(id)
    }

    /// Destroys event `id`; records already enqueued still complete. A
    /// shared one lets go of this process's hold (the last holder removes
    /// its file from the root).
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`]; a file-system failure letting go.
    pub fn event_destroy(&self, id: EventId) -> Result<(), CoreError> {
        let ev = lock(&self.events.map).remove(&id).ok_or(CoreError::UnknownEvent(id.0))?;
        match &ev.share {
            Some(share) => self.release_share(share),
            None => Ok(()),
        }
    }

    /// Records event `id` on `stream`: it completes when the work enqueued
    /// before it has run.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`], [`CoreError::UnknownStream`].
    pub fn event_record(&self, id: EventId, stream: StreamId) -> Result<(), CoreError> {
        let ev = self.events.get(id)?;
        if !self.stream_exists(stream) {
            return Err(CoreError::UnknownStream(stream.0));
        }
        if self.capture_record(stream, id)? {
            return Ok(());
        }
        let seq = ev.cell.next();
        // SAFETY: a record touches no memory.
        unsafe { self.enqueue(stream, Work::Record { cell: ev.cell.clone(), seq }) }
    }

    /// Whether the last record of event `id` has completed (an event never
    /// recorded has). Under `adversarial` the question lets held work run.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`]; [`CoreError::Abandoned`] for a shared
    /// event whose last record can never complete (the process that took it
    /// is dead), so that a query loop ends as a synchronize does.
    pub fn event_query(&self, id: EventId) -> Result<bool, CoreError> {
        let ev = self.events.get(id)?;
        let last = ev.cell.last();
        self.want(&ev.cell, last);
        self.acquired(&ev.cell, last);
        if ev.cell.is_reached(last) {
            return Ok(true);
        }
        if ev.cell.is_abandoned(last) {
            return Err(CoreError::Abandoned);
        }
        Ok(false)
    }

    /// Waits for the last record of event `id` to complete.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`], [`CoreError::Timeout`], [`CoreError::Abandoned`].
    pub fn event_synchronize(&self, id: EventId, timeout: Option<Duration>) -> Result<(), CoreError> {
        let ev = self.events.get(id)?;
        let last = ev.cell.last();
        self.wait_for(&ev.cell, last, timeout)?;
        self.acquired(&ev.cell, last);
        Ok(())
    }

    /// Makes the work enqueued on `stream` from now on wait for the last
    /// record of event `id` (nothing, if it was never recorded).
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`], [`CoreError::UnknownStream`].
    pub fn stream_wait_event(&self, stream: StreamId, id: EventId) -> Result<(), CoreError> {
        let ev = self.events.get(id)?;
        if !self.stream_exists(stream) {
            return Err(CoreError::UnknownStream(stream.0));
        }
        if self.capture_wait(stream, id)? {
            return Ok(());
        }
        let seq = ev.cell.last();
        if seq == 0 {
            return Ok(());
        }
        // SAFETY: a wait touches no memory.
        unsafe { self.enqueue(stream, Work::Wait { cell: ev.cell.clone(), seq }) }
    }

    /// Milliseconds between the completions of the last records of `start` and `end`.
    ///
    /// # Errors
    /// [`CoreError::UnknownEvent`]; [`CoreError::TimingDisabled`] when
    /// either was made without timing; [`CoreError::EventNotRecorded`];
    /// [`CoreError::NotReady`] when either record has not completed.
    pub fn event_elapsed(&self, start: EventId, end: EventId) -> Result<f32, CoreError> {
        let (a, b) = (self.events.get(start)?, self.events.get(end)?);
        for (id, ev) in [(start, &a), (end, &b)] {
            if !ev.flags.timing {
                return Err(CoreError::TimingDisabled(id.0));
            }
        }
        for (id, ev) in [(start, &a), (end, &b)] {
            if ev.cell.last() == 0 {
                return Err(CoreError::EventNotRecorded(id.0));
            }
        }
        for ev in [&a, &b] {
            let last = ev.cell.last();
            self.want(&ev.cell, last);
            if !ev.cell.is_reached(last) {
                return Err(CoreError::NotReady);
            }
        }
        let ns = b.cell.completed_at() as i128 - a.cell.completed_at() as i128;
        Ok(ns as f32 / 1e6)
    }
}
