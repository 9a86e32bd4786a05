//! The accesses to shared memory, where every process that maps it sees
//! them: a ring of the last [`SLOTS`] accesses in the metadata tail of the
//! memory's own file (registry/entry.rs, after the trustlist), mapped once
//! by each process at its first checked access of that memory.
//!
//! Each access a stream's work or the host makes to memory with a registry
//! entry (exported, imported, IPC memory) is written into the ring with its
//! process (pid and start stamp), agent (0: the host, n: stream n), that
//! agent's counter, the byte range in the memory, and the entry point that
//! made it; then the ring is read for the other processes' accesses of the
//! same bytes. Writing before reading (with a full fence between) means that
//! of two racing accesses, at least the second to be written sees the
//! first, whichever process runs first.
//!
//! No lock: each slot has a version, odd while written. A writer takes the
//! next slot with one `fetch_add` and moves its version from even to odd
//! with a compare-and-swap; a slot found odd (a writer halfway, or one that
//! died or stopped there) is passed over, for at most 8 slots. A reader
//! skips odd slots and slots whose version moved while it read. So a dead
//! or stopped process never blocks anyone, and costs at most the slots it
//! left half written. An access of a process that is dead, made before the
//! access that finds it was enqueued, is not reported: it is done, and only
//! a message the emulator cannot see could have ordered it (liveness is
//! looked at only then, so the steady state makes no system call). One made
//! after is reported: the two were in flight together.
//!
//! `synced_ns`: the time the access's own process learnt it done (its host
//! synchronised the stream, the device or an event after it); the host's
//! own accesses are done when made. An access of another process that was
//! enqueued after that time is taken as ordered after it: the emulator
//! cannot see a message over a socket, but a message sent after a
//! synchronize is the only way the other process can have learnt of it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::sync::{Arc, Mutex};

use crate::os::object::Object;
use crate::os::shared::{SharedPod, SharedView};
use crate::registry::Header;

/// Accesses the ring keeps.
pub const SLOTS: usize = 511;
/// Bytes of an entry point's name kept (longer names are cut).
const NAME_WORDS: usize = 8;
/// Slots a writer passes over (being written, or left half written) before it gives up.
const TRIES: usize = 8;

/// One access, as it lies in the ring (128 bytes).
#[repr(C, align(64))]
#[derive(Debug, Default)]
struct Slot {
    /// Even when stable (0: never written); odd while written.
    version: AtomicU32,
    pid: AtomicU32,
    stamp: AtomicU32,
    agent: AtomicU32,
    epoch: AtomicU32,
    /// Bit 0: a write; bits 8..16: what ([`WHATS`]).
    flags: AtomicU32,
    start: AtomicU64,
    end: AtomicU64,
    synced_ns: AtomicU64,
    at_ns: AtomicU64,
    call: [AtomicU64; NAME_WORDS],
}

/// Processes the ring names before it stops naming them.
const WRITERS: usize = 13;

/// The ring.
#[repr(C, align(64))]
#[derive(Debug)]
struct Ring {
    /// The number of slots ever taken (the next is this modulo [`SLOTS`]).
    next: AtomicU64,
    /// The pids of the processes that wrote into the ring (0: free), each
    /// named before its first access is written: a process that finds only
    /// itself here has nobody to race and reads no slot.
    writers: [AtomicU32; WRITERS],
    /// Nonzero once more processes wrote than `writers` holds: every
    /// access then reads the slots.
    crowded: AtomicU32,
    slots: [Slot; SLOTS],
}

// SAFETY: `#[repr(C)]`, every field an atomic integer or an array or struct
// of them, valid for any bit pattern including all zeros.
unsafe impl SharedPod for Ring {}

const _: () = assert!(size_of::<Slot>() == 128);
const _: () = assert!(std::mem::offset_of!(Ring, slots) == 64);
const _: () = assert!(size_of::<Ring>() as u64 <= crate::registry::HISTORY_LEN);

/// What an access did, by its code in the ring.
const WHATS: [&str; 5] = ["copy", "fill", "write value", "host read", "host write"];

/// One access of the ring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SharedAccess {
    pub(super) pid: u32,
    pub(super) stamp: u32,
    /// 0: the host; n: stream n of that process.
    pub(super) agent: u32,
    pub(super) epoch: u32,
    /// Bytes in the memory (offsets from its start).
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) write: bool,
    pub(super) what: &'static str,
    pub(super) call: &'static str,
    /// When its process learnt it done (0: not yet).
    pub(super) synced_ns: u64,
    /// When it was made (written into the ring, right before the bytes move).
    pub(super) at_ns: u64,
}

/// Where an access lies in the ring, to mark it done later.
#[derive(Debug, Clone)]
pub(super) struct Published {
    pub(super) history: Arc<History>,
    slot: usize,
    version: u32,
    pub(super) agent: u32,
    pub(super) epoch: u32,
}

/// The access history of one shared memory, mapped.
#[derive(Debug)]
pub struct History {
    ring: SharedView<Ring>,
    /// This process is named in the ring's `writers` (or the ring is crowded).
    named: std::sync::atomic::AtomicBool,
}

impl History {
    /// Maps the history of the entry whose memory is `data_len` bytes.
    pub(super) fn map(object: &Object, data_len: u64) -> std::io::Result<Self> {
        Ok(Self { ring: SharedView::map(object.fd(), Header::history_offset(data_len))?, named: Default::default() })
    }

    /// Names process `me` among the ring's writers, once.
    fn name(&self, me: u32) {
        if self.named.load(Ordering::Relaxed) {
            return;
        }
        let known = self.ring.writers.iter().any(|w| match w.load(Ordering::Acquire) {
            0 => match w.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => true,
                Err(now) => now == me,
            },
            pid => pid == me,
        });
        if !known {
            self.ring.crowded.store(1, Ordering::Release);
        }
        // Before the first access is written (see `others`).
        fence(Ordering::SeqCst);
        self.named.store(true, Ordering::Relaxed);
    }

    /// Whether a process other than `me` ever wrote into the ring.
    fn shared_with_others(&self, me: u32) -> bool {
        self.ring.crowded.load(Ordering::Acquire) != 0
            || self.ring.writers.iter().any(|w| {
                let pid = w.load(Ordering::Acquire);
                pid != 0 && pid != me
            })
    }

    /// Writes `a` into the next slot; `None` when the slots it tried were
    /// all being written.
    pub(super) fn publish(self: &Arc<Self>, a: &SharedAccess) -> Option<Published> {
        self.name(a.pid);
        for _ in 0..TRIES {
            let i = (self.ring.next.fetch_add(1, Ordering::Relaxed) % SLOTS as u64) as usize;
            let s = &self.ring.slots[i];
            let v = s.version.load(Ordering::Acquire);
            if v % 2 == 1
                || s.version.compare_exchange(v, v.wrapping_add(1), Ordering::AcqRel, Ordering::Relaxed).is_err()
            {
                continue;
            }
            s.pid.store(a.pid, Ordering::Relaxed);
            s.stamp.store(a.stamp, Ordering::Relaxed);
            s.agent.store(a.agent, Ordering::Relaxed);
            s.epoch.store(a.epoch, Ordering::Relaxed);
            let what = WHATS.iter().position(|w| *w == a.what).unwrap_or(0) as u32;
            s.flags.store(u32::from(a.write) | (what << 8), Ordering::Relaxed);
            s.start.store(a.start, Ordering::Relaxed);
            s.end.store(a.end, Ordering::Relaxed);
            s.synced_ns.store(a.synced_ns, Ordering::Relaxed);
            s.at_ns.store(a.at_ns, Ordering::Relaxed);
            let mut name = [0u8; NAME_WORDS * 8];
            let n = a.call.len().min(name.len());
            name[..n].copy_from_slice(&a.call.as_bytes()[..n]);
            for (w, chunk) in s.call.iter().zip(name.chunks_exact(8)) {
                w.store(u64::from_le_bytes(chunk.try_into().expect("8 bytes")), Ordering::Relaxed);
            }
            let version = v.wrapping_add(2);
            s.version.store(version, Ordering::Release);
            return Some(Published { history: Arc::clone(self), slot: i, version, agent: a.agent, epoch: a.epoch });
        }
        None
    }

    /// The accesses of processes other than `me` that touch `start..end`
    /// where one of the two writes.
    pub(super) fn others(&self, me: u32, start: u64, end: u64, write: bool) -> Vec<SharedAccess> {
        // The caller's own access is written: what is read now was written
        // before it, or sees it. A process names itself before it writes
        // its first access, so one not named yet will see this access.
        fence(Ordering::SeqCst);
        let mut out = Vec::new();
        if !self.shared_with_others(me) {
            return out;
        }
        for s in &self.ring.slots {
            let v = s.version.load(Ordering::Acquire);
            if v == 0 || v % 2 == 1 {
                continue;
            }
            let pid = s.pid.load(Ordering::Relaxed);
            let (a_start, a_end) = (s.start.load(Ordering::Relaxed), s.end.load(Ordering::Relaxed));
            let flags = s.flags.load(Ordering::Relaxed);
            let a_write = flags & 1 != 0;
            if pid == me || !(a_start < end && start < a_end && (a_write || write)) {
                continue;
            }
            let a = SharedAccess {
                pid,
                stamp: s.stamp.load(Ordering::Relaxed),
                agent: s.agent.load(Ordering::Relaxed),
                epoch: s.epoch.load(Ordering::Relaxed),
                start: a_start,
                end: a_end,
                write: a_write,
                what: WHATS.get(((flags >> 8) & 0xff) as usize).copied().unwrap_or("access"),
                call: "",
                synced_ns: s.synced_ns.load(Ordering::Relaxed),
                at_ns: s.at_ns.load(Ordering::Relaxed),
            };
            let mut name = [0u8; NAME_WORDS * 8];
            for (w, chunk) in s.call.iter().zip(name.chunks_exact_mut(8)) {
                chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
            }
            fence(Ordering::Acquire);
            if s.version.load(Ordering::Relaxed) != v {
                continue;
            }
            let n = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            out.push(SharedAccess { call: intern(&String::from_utf8_lossy(&name[..n])), ..a });
        }
        out
    }
}

impl Published {
    /// Marks the access done as of `ns`, if its slot still holds it.
    pub(super) fn mark_synced(&self, ns: u64) {
        let s = &self.history.ring.slots[self.slot];
        let v = self.version;
        if s.version.compare_exchange(v, v.wrapping_add(1), Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            s.synced_ns.store(ns, Ordering::Relaxed);
            s.version.store(v.wrapping_add(2), Ordering::Release);
        }
    }
}

/// Entry point names read from other processes, kept for the life of the
/// process (a few hundred at most: the vendors' entry points).
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(n) = names.get(name) {
        return n;
    }
    if names.len() >= 1024 {
        return "an entry point";
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(n);
    n
}

/// A piece of an access that lies in shared memory.
#[derive(Debug, Clone)]
pub(super) struct Piece {
    pub(super) history: Arc<History>,
    /// Bytes in the memory.
    pub(super) start: u64,
    pub(super) end: u64,
    /// The address of `start` in this process.
    pub(super) va: usize,
}

impl super::Emulator {
    /// The pieces of `addr..addr+len` that lie in memory with a registry
    /// entry, each with its history (mapped at the first access). Empty
    /// until this process maps such memory.
    pub(super) fn shared_pieces(&self, addr: usize, len: usize) -> Vec<Piece> {
        if len == 0 || !self.sharing() {
            return Vec::new();
        }
        let mut t = self.lock();
        let t = &mut *t;
        let mut out = Vec::new();
        let end = addr.saturating_add(len);
        let mut at = addr;
        while at < end {
            let Some((start, m)) = super::space::mapping_at(t, at) else { break };
            let (mlen, handle) = (m.len, m.handle);
            let upto = end.min(start + mlen);
            if let Some(p) = t.handles.get_mut(&handle)
                && let Some(history) = p.history()
            {
                out.push(Piece { history, start: (at - start) as u64, end: (upto - start) as u64, va: at });
            }
            at = upto;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(dir: &std::path::Path) -> Arc<History> {
        let object = Object::create(dir, Header::entry_len(4096), true).expect("object");
        Arc::new(History::map(&object, 4096).expect("map"))
    }

    /// The history of one memory as two processes map it.
    fn two_views(dir: &std::path::Path) -> (Arc<History>, Arc<History>) {
        let object = Object::create(dir, Header::entry_len(4096), true).expect("object");
        let view = || Arc::new(History::map(&object, 4096).expect("map"));
        (view(), view())
    }

    fn access(pid: u32, start: u64, write: bool) -> SharedAccess {
        SharedAccess {
            pid,
            stamp: 1,
            agent: 2,
            epoch: 3,
            start,
            end: start + 16,
            write,
            what: "copy",
            call: "cuMemcpyDtoDAsync",
            synced_ns: 0,
            at_ns: 5,
        }
    }

    /// Another process's conflicting access is seen, with its entry point;
    /// one's own, reads against reads and other bytes are not.
    #[test]
    fn other_processes_see_conflicting_accesses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let h = history(dir.path());
        let p = h.publish(&access(10, 0, true)).expect("published");
        h.publish(&access(11, 100, false)).expect("published");
        assert!(h.others(10, 0, 8, false).is_empty(), "its own");
        assert_eq!(h.others(11, 8, 9, false), vec![access(10, 0, true)], "a read of a write");
        assert!(h.others(12, 100, 101, false).is_empty(), "a read of a read");
        assert_eq!(h.others(12, 100, 101, true).len(), 1, "a write of a read");
        assert!(h.others(12, 16, 100, true).is_empty(), "other bytes");
        p.mark_synced(77);
        assert_eq!(h.others(11, 0, 1, true)[0].synced_ns, 77);
    }

    /// A slot left half written (its writer died or stopped there) is
    /// passed over by writers and readers alike: nobody waits for it.
    #[test]
    fn a_slot_left_half_written_blocks_nobody() {
        let dir = tempfile::tempdir().expect("tempdir");
        let h = history(dir.path());
        h.ring.slots[0].version.store(1, Ordering::Release);
        h.ring.slots[0].pid.store(10, Ordering::Release);
        let p = h.publish(&access(10, 0, true)).expect("published past it");
        assert_eq!(p.slot, 1);
        assert_eq!(h.others(11, 0, 16, true).len(), 1, "only the whole one");
        for s in &h.ring.slots {
            s.version.store(1, Ordering::Release);
        }
        assert!(h.publish(&access(10, 0, true)).is_none(), "gives up after a few slots");
    }

    /// A process alone in the ring reads no slot; once another names
    /// itself (before its first access) it reads them; past 13 processes
    /// every access reads them.
    #[test]
    fn a_process_alone_in_the_ring_reads_no_slot() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = two_views(dir.path());
        a.publish(&access(10, 0, true)).expect("published");
        assert!(!a.shared_with_others(10));
        assert!(b.shared_with_others(11), "another process reads it");
        b.publish(&access(11, 0, true)).expect("published");
        assert!(a.shared_with_others(10));
        assert_eq!(a.others(10, 0, 16, true).len(), 1);
        let dir = tempfile::tempdir().expect("tempdir");
        let object = Object::create(dir.path(), Header::entry_len(4096), true).expect("object");
        let view = || Arc::new(History::map(&object, 4096).expect("map"));
        for pid in 100..(100 + WRITERS as u32) {
            view().publish(&access(pid, 0, false)).expect("published");
        }
        let h = view();
        assert_eq!(h.ring.crowded.load(Ordering::Acquire), 0, "13 are named");
        h.publish(&access(7, 0, false)).expect("published");
        assert_ne!(h.ring.crowded.load(Ordering::Acquire), 0, "the 14th is not");
        assert!(h.shared_with_others(100));
    }

    /// The ring keeps the last SLOTS accesses: memory is bounded, the oldest go.
    #[test]
    fn the_ring_keeps_the_last_accesses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let h = history(dir.path());
        for i in 0..(SLOTS as u64 + 10) {
            h.publish(&access(10, i * 16, true)).expect("published");
        }
        let seen = h.others(11, 0, u64::MAX, true);
        assert_eq!(seen.len(), SLOTS);
        assert!(seen.iter().all(|a| a.start >= 10 * 16), "the first ten were overwritten");
    }
}
