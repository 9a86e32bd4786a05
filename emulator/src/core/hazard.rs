//! The unsynchronised-access report of streams: writes queued and not yet
//! run are remembered by range, and a read or write of such a range by the
//! host or by another stream, with nothing ordering it after the write, is
//! a [`Hazard`]. Under `adversarial` every such race is lost, so every one
//! is reported (docs/streams.md).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::stream::StreamId;

/// An access to memory that a stream has yet to write, with nothing ordering
/// it after the write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// Who accessed: "the host" or a stream.
    pub by: String,
    /// The first address accessed that is pending.
    pub addr: usize,
    /// Bytes accessed.
    pub len: usize,
    /// The stream with the pending write.
    pub writer: StreamId,
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unsynchronised access: {} accessed {:#x} bytes at {:#x}, which stream {} has yet to write; \
             synchronise with the stream (or wait on an event recorded after the write) first",
            self.by, self.len, self.addr, self.writer.0
        )
    }
}

/// How many unsynchronised accesses a process prints.
const PRINTED: u64 = 16;

/// A write queued and not yet run.
#[derive(Debug)]
struct PendingWrite {
    stream: StreamId,
    seq: u32,
    start: usize,
    end: usize,
}

/// The pending writes of a process's streams and the hazards found.
#[derive(Debug, Default)]
pub(super) struct Hazards {
    pending: Mutex<Vec<PendingWrite>>,
    /// `pending.len()`, read without the lock: a copy with nothing pending
    /// pays one load.
    pending_count: AtomicUsize,
    found: Mutex<Vec<Hazard>>,
    seen: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hazards {
    /// Remembers that work `seq` of `stream` will write `len` bytes at `start`.
    pub(super) fn note_write(&self, stream: StreamId, seq: u32, start: usize, len: usize) {
        lock(&self.pending).push(PendingWrite { stream, seq, start, end: start.saturating_add(len) });
        self.pending_count.fetch_add(1, Ordering::AcqRel);
    }

    /// Forgets the write of work `seq` of `stream` (it ran, or was dropped).
    pub(super) fn forget_write(&self, stream: StreamId, seq: u32) {
        let mut p = lock(&self.pending);
        if let Some(i) = p.iter().position(|w| w.stream == stream && w.seq == seq) {
            p.swap_remove(i);
            self.pending_count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Reports an access of `addr..addr+len` by `by` (a stream, or the host
    /// for `None`) that another stream has a pending write to.
    pub(super) fn check(&self, addr: usize, len: usize, by: Option<StreamId>) {
        if self.pending_count.load(Ordering::Acquire) == 0 || len == 0 {
            return;
        }
        let end = addr.saturating_add(len);
        let hit = lock(&self.pending)
            .iter()
            .find(|p| Some(p.stream) != by && p.start < end && addr < p.end)
            .map(|p| (p.stream, p.start.max(addr)));
        if let Some((writer, at)) = hit {
            let by = by.map_or_else(|| "the host".to_owned(), |s| format!("stream {}", s.0));
            self.note(Hazard { by, addr: at, len, writer });
        }
    }

    /// Records `h` and prints it on stderr (the first [`PRINTED`] of a
    /// process; a loop that races prints one screen, not one line per turn).
    fn note(&self, h: Hazard) {
        tracing::warn!("{h}");
        let n = self.seen.fetch_add(1, Ordering::Relaxed);
        if n < PRINTED {
            eprintln!("vmmkit: {h}");
        } else if n == PRINTED {
            eprintln!("vmmkit: more unsynchronised accesses follow; not printed");
        }
        lock(&self.found).push(h);
    }

    /// The hazards found so far (and forgets them).
    pub(super) fn take(&self) -> Vec<Hazard> {
        std::mem::take(&mut *lock(&self.found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_another_writer_s_pending_overlap_is_a_hazard() {
        let h = Hazards::default();
        h.note_write(StreamId(1), 5, 0x1000, 0x100);
        h.check(0x1100, 0x10, None);
        h.check(0x1000, 0x10, Some(StreamId(1)));
        assert!(h.take().is_empty(), "past the end, or the writer itself");
        h.check(0x10f0, 0x20, Some(StreamId(2)));
        h.check(0x0f00, 0x101, None);
        let found = h.take();
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].by.as_str(), found[0].addr, found[0].writer), ("stream 2", 0x10f0, StreamId(1)));
        assert_eq!((found[1].by.as_str(), found[1].addr), ("the host", 0x1000));
        h.forget_write(StreamId(1), 5);
        h.check(0x1000, 0x10, None);
        assert!(h.take().is_empty(), "a write that ran is no hazard");
    }
}
