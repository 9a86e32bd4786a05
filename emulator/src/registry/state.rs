//! The state file of a root: its settings, the capacity ledger, and one slot
//! per process using it.
//!
//! The ledger takes no lock, so no process can hold up another: a process
//! stopped at any instant (SIGSTOP, Ctrl-Z, a debugger's breakpoint) or killed
//! at any instant delays nobody's next call.
//!
//! - **What a process holds is in its own slot.** A charge adds to the slot
//!   first, then checks the sum of every slot and of the exported entries
//!   against the capacity, and takes itself back when the sum is over. Two
//!   processes charging at once both see each other, so the sum never goes
//!   over the capacity; near it, one may be refused and retries.
//! - **A slot is alive while its lock is held**: a one-byte open-file-
//!   description lock at the slot's offset in this file ([`range`]), taken by
//!   the process that claimed the slot. The kernel drops it when the last
//!   process that has the description exits — the claimant, or a child
//!   forked from it, which also holds the memory it inherited. Nothing is
//!   looked up by pid, so pid namespaces and recycled pids do not matter.
//!   Whoever takes the lock of a slot whose owner is gone clears it; a dead
//!   process's charges go with its slot, exactly.
//! - **Exported entries carry their charge in `entry_used`**, because they
//!   outlive their exporter. Every change of it is ordered so that a process
//!   dying half-way leaves at most an over-count, never an under-count, and
//!   is bracketed by the slot's `busy` word and the `entry_gen` counter, so
//!   that a recount from the linked entries (the truth) can tell whether it
//!   raced with one and must not store its sum.
//!
//! - **Damage heals.** Anyone of the user can write the file: a settings
//!   word out of range makes it invalid, and the next process to open the
//!   root sets it up afresh from the linked entries; every sum and
//!   subtraction saturates; each process rewrites its own slot from what it
//!   knows (its own record, not shared) at each change and at gc.
//!
//! The file lock is taken only to set a root up (first open, other
//! settings), and then with a bound.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use crate::config::MAX_DEVICES;
use crate::os::lock::{Exclusive, range};
use crate::os::proc::ProcessId;
use crate::os::shared::{SharedPod, SharedView};

const MAGIC: u64 = u64::from_le_bytes(*b"VMMKSTA2");
/// Process slots in one root: processes alive at once that use the emulator.
pub const MAX_SLOTS: usize = 4096;
/// Ledger rows: one per device, then host memory.
pub const ROWS: usize = MAX_DEVICES as usize + 1;
/// The row of host memory (every NUMA node).
pub const HOST_ROW: usize = MAX_DEVICES as usize;
/// How long opening a root waits for a process that is setting it up.
const SETUP_PATIENCE: Duration = Duration::from_secs(5);
/// Tries of a charge that lost a race near the capacity.
const CHARGE_TRIES: u32 = 64;

/// Layout of the state file (mapped shared by every process of the root).
#[repr(C)]
pub struct Layout {
    magic: AtomicU64,
    devices: AtomicU32,
    next_share_id: AtomicU32,
    device_memory: AtomicU64,
    host_memory: AtomicU64,
    /// Source of slot owner tokens (never 0).
    claims: AtomicU64,
    /// Bumped before and after every change of `entry_used`.
    entry_gen: AtomicU64,
    slots_used: AtomicU32,
    _pad: AtomicU32,
    /// Bytes charged to exported entries, per row.
    entry_used: [AtomicU64; ROWS],
    slots: [Slot; MAX_SLOTS],
}

/// One process's slot: who it is and what is charged to it per row.
#[repr(C)]
pub struct Slot {
    /// Claim token of the owner; 0 when free.
    owner: AtomicU64,
    pid: AtomicU32,
    /// Changes of `entry_used` this process has in flight.
    busy: AtomicU32,
    start: AtomicU64,
    charges: [AtomicU64; ROWS],
}

#[allow(unsafe_code)] // shared words in a mapping of the root
// SAFETY: `#[repr(C)]`, all fields atomics, all-zero is the empty state.
unsafe impl SharedPod for Layout {}

/// The state file, open and mapped.
pub struct State {
    file: File,
    view: SharedView<Layout>,
    /// This process's slot, claimed at its first change (a process that
    /// only imports and reads takes none). A forked child has the same one:
    /// it shares the description that holds the slot's lock.
    mine: OnceLock<Option<usize>>,
    /// What this process knows it wrote into its slot: the slot is
    /// rewritten from this at each change and at gc, so damage to the
    /// slot of a live process heals (the file is shared with anyone of the
    /// same user, and may be overwritten or set up afresh).
    own: Own,
}

/// This process's own record of its slot (not shared).
struct Own {
    token: AtomicU64,
    pid: AtomicU32,
    start: AtomicU64,
    charges: [AtomicU64; ROWS],
    busy: AtomicU32,
}

impl Default for Own {
    fn default() -> Self {
        Self {
            token: AtomicU64::new(0),
            pid: AtomicU32::new(0),
            start: AtomicU64::new(0),
            charges: std::array::from_fn(|_| AtomicU64::new(0)),
            busy: AtomicU32::new(0),
        }
    }
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").field("mine", &self.mine.get()).finish_non_exhaustive()
    }
}

/// What a ledger being set up holds in its slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slots {
    /// A file created empty and then sized: zeros, every slot free.
    Empty,
    /// An old file (damaged, or of another layout): whatever was written.
    Clear,
}

/// Settings a root was created with, when they differ from this process's.
#[derive(Debug, thiserror::Error)]
#[error(
    "the emulator root was set up for {root_devices} device(s) of {root_memory} bytes by processes still running; \
     this process asks for {devices} of {memory} (VMMKIT_DEVICES, VMMKIT_DEVICE_MEMORY)"
)]
pub struct Mismatch {
    root_devices: u32,
    root_memory: u64,
    devices: u32,
    memory: u64,
}

/// Per-device figures of a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// Capacity of each device.
    pub capacity: u64,
    /// Bytes in use per device.
    pub used: Vec<u64>,
    /// Capacity of host memory (physical allocations at a host location).
    pub host_capacity: u64,
    /// Host bytes in use.
    pub host_used: u64,
}

/// A charge that does not fit: what the row holds, and its capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Over {
    /// Bytes in use without the refused charge.
    pub used: u64,
    /// Capacity of the row.
    pub capacity: u64,
}

/// What the linked entries of a root say (the ground truth of `entry_used`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truth {
    /// Bytes of linked entries per row.
    pub entry_used: [u64; ROWS],
    /// The highest share id in use.
    pub max_share_id: u32,
}

impl Default for Truth {
    fn default() -> Self {
        Self { entry_used: [0; ROWS], max_share_id: 0 }
    }
}

/// An `entry_used` change in flight (see the module's notes).
pub struct EntryChange<'a> {
    state: &'a State,
    slot: usize,
}

impl Drop for EntryChange<'_> {
    fn drop(&mut self) {
        let l = &*self.state.view;
        l.entry_gen.fetch_add(1, SeqCst);
        let own = &self.state.own.busy;
        let _ = own.fetch_update(SeqCst, SeqCst, |b| Some(b.saturating_sub(1)));
        mirror(own, &l.slots[self.slot].busy);
    }
}

fn open_file(root: &Path, create: bool) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(root.join(super::root::STATE_FILE))
}

/// Copies this process's own count into its slot. Threads of the process
/// may do it at once: each stores again until what it stored is still
/// the count, so the last store is never a stale one.
fn mirror<A: Mirror>(own: &A, slot: &A) {
    let mut v = own.get();
    loop {
        slot.set(v);
        let now = own.get();
        if now == v {
            return;
        }
        v = now;
    }
}

/// The two counter widths [`mirror`] copies.
trait Mirror {
    type V: Copy + Eq;
    fn get(&self) -> Self::V;
    fn set(&self, v: Self::V);
}

impl Mirror for AtomicU64 {
    type V = u64;
    fn get(&self) -> u64 {
        self.load(SeqCst)
    }
    fn set(&self, v: u64) {
        self.store(v, SeqCst)
    }
}

impl Mirror for AtomicU32 {
    type V = u32;
    fn get(&self) -> u32 {
        self.load(SeqCst)
    }
    fn set(&self, v: u32) {
        self.store(v, SeqCst)
    }
}

/// Saturating subtraction on a shared counter (a damaged or reset file must
/// not make it wrap to 2^64).
fn sub(a: &AtomicU64, n: u64) {
    let _ = a.fetch_update(SeqCst, SeqCst, |v| Some(v.saturating_sub(n)));
}

impl State {
    /// Opens (creating if needed) the state file of `root` for `devices`
    /// devices of `memory` bytes and `host` bytes of host memory. The slot
    /// of this process is claimed at its first change. The first process sets the figures; a process
    /// asking for other device figures while any process of the root is
    /// alive is refused (host memory is the first process's). A file that is
    /// not a valid state (new, truncated, damaged) is set up afresh from
    /// `truth` (the linked entries).
    pub fn open(
        root: &Path,
        (devices, memory, host): (u32, u64, u64),
        truth: impl FnOnce() -> Truth,
    ) -> io::Result<Result<Self, Mismatch>> {
        let file = open_file(root, true)?;
        let guard_fd = file.try_clone()?;
        let _g = Exclusive::lock_within(&guard_fd, SETUP_PATIENCE)?.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "another process has been setting up the emulator root for more than {} s \
                     (stopped, or in a debugger?)",
                    SETUP_PATIENCE.as_secs()
                ),
            )
        })?;
        let len = std::mem::size_of::<Layout>() as u64;
        let had = file.metadata()?.len();
        if had > len {
            file.set_len(len)?;
        }
        // Every page is backed now: a sparse ledger on a full tmpfs would kill
        // the first process to touch a new page of it with SIGBUS; this way a
        // root without room is refused when it is opened (ENOSPC).
        match rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, len) {
            Ok(()) => {}
            Err(rustix::io::Errno::OPNOTSUPP) if had < len => file.set_len(len)?,
            Err(rustix::io::Errno::OPNOTSUPP) => {}
            Err(e) => return Err(e.into()),
        }
        let view = SharedView::<Layout>::map(&file, 0)?;
        let state = Self { file, view, mine: OnceLock::new(), own: Own::default() };
        let l = &*state.view;
        if !state.valid() {
            // A new file reads as zeros, the empty slots: its set-up writes
            // the header alone, and the slots' pages are touched only as
            // processes claim them (writing every slot faulted in all 545
            // pages of the ledger, some 2 ms, in every fresh root).
            let slots = if had == 0 { Slots::Empty } else { Slots::Clear };
            state.set_up(devices, memory, host, truth(), slots);
        } else if l.devices.load(SeqCst) != devices || l.device_memory.load(SeqCst) != memory {
            if state.processes().iter().any(|&(_, _, alive)| alive) {
                return Ok(Err(Mismatch {
                    root_devices: l.devices.load(SeqCst),
                    root_memory: l.device_memory.load(SeqCst),
                    devices,
                    memory,
                }));
            }
            // Everyone who used the old figures has exited: what they left
            // is collected, and the root takes this process's figures.
            state.collect_dead();
            l.devices.store(devices, SeqCst);
            l.device_memory.store(memory, SeqCst);
        }
        Ok(Ok(state))
    }

    /// Opens the state file of an existing root without changing it (for
    /// inspection: `vmmkit ls`, `vmmkit gc`).
    pub fn open_existing(root: &Path) -> io::Result<Self> {
        let file = open_file(root, false)?;
        if file.metadata()?.len() < std::mem::size_of::<Layout>() as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not a vmmkit state file (too short)"));
        }
        let view = SharedView::<Layout>::map(&file, 0)?;
        let state = Self { file, view, mine: OnceLock::new(), own: Own::default() };
        if !state.valid() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a vmmkit state file (bad magic or settings); the next program to use the root sets it up afresh",
            ));
        }
        Ok(state)
    }

    fn valid(&self) -> bool {
        let l = &*self.view;
        l.magic.load(SeqCst) == MAGIC
            && (1..=MAX_DEVICES).contains(&l.devices.load(SeqCst))
            && l.device_memory.load(SeqCst) != 0
            && l.host_memory.load(SeqCst) != 0
    }

    /// Sets up a fresh ledger (the file is ours and locked): no slot, the
    /// entries' charges and the next share id from what is linked.
    fn set_up(&self, devices: u32, memory: u64, host: u64, truth: Truth, slots: Slots) {
        let l = &*self.view;
        l.magic.store(0, SeqCst);
        l.slots_used.store(0, SeqCst);
        // An old file's slots below one a live process republishes would
        // count in every sum: they are cleared, all of them.
        if slots == Slots::Clear {
            for s in &l.slots {
                s.owner.store(0, SeqCst);
                s.pid.store(0, SeqCst);
                s.busy.store(0, SeqCst);
                s.start.store(0, SeqCst);
                s.charges.iter().for_each(|c| c.store(0, SeqCst));
            }
        }
        for (u, t) in l.entry_used.iter().zip(truth.entry_used) {
            u.store(t, SeqCst);
        }
        l.devices.store(devices, SeqCst);
        l.device_memory.store(memory, SeqCst);
        l.host_memory.store(host, SeqCst);
        l.next_share_id.store(truth.max_share_id.saturating_add(1).max(1), SeqCst);
        l.magic.store(MAGIC, SeqCst);
    }

    /// Number of devices of the root (at most [`MAX_DEVICES`], whatever the file says).
    pub fn devices(&self) -> u32 {
        self.view.devices.load(SeqCst).min(MAX_DEVICES)
    }

    /// Capacity of a row: device memory for a device of the root, host
    /// memory for [`HOST_ROW`], nothing for a device the root does not have.
    pub fn capacity(&self, row: usize) -> u64 {
        let l = &*self.view;
        match row {
            HOST_ROW => l.host_memory.load(SeqCst),
            r if r < self.devices() as usize => l.device_memory.load(SeqCst),
            _ => 0,
        }
    }

    fn slots_used(&self) -> usize {
        (self.view.slots_used.load(SeqCst) as usize).min(MAX_SLOTS)
    }

    fn lock_offset(i: usize) -> u64 {
        (std::mem::offset_of!(Layout, slots) + i * std::mem::size_of::<Slot>()) as u64
    }

    /// Whether slot `i`'s owner is alive: it is ours, or its lock is held.
    fn alive(&self, i: usize) -> bool {
        self.mine.get().copied().flatten() == Some(i) || range::held_elsewhere(&self.file, Self::lock_offset(i))
    }

    /// Clears slot `i`, whose lock this process holds and whose owner is
    /// gone. Returns the bytes given back.
    fn clear(&self, i: usize) -> u64 {
        let s = &self.view.slots[i];
        let freed = s.charges.iter().fold(0u64, |n, c| n.saturating_add(c.swap(0, SeqCst)));
        s.busy.store(0, SeqCst);
        s.pid.store(0, SeqCst);
        s.start.store(0, SeqCst);
        s.owner.store(0, SeqCst);
        freed
    }

    /// Takes slot `i` for this process if nobody holds it (clearing what a
    /// dead owner left).
    fn take(&self, i: usize, me: ProcessId) -> io::Result<bool> {
        if !range::try_lock(&self.file, Self::lock_offset(i))? {
            return Ok(false);
        }
        let l = &*self.view;
        self.clear(i);
        self.own.pid.store(me.pid, SeqCst);
        self.own.start.store(me.start, SeqCst);
        self.own.token.store(l.claims.fetch_add(1, SeqCst).wrapping_add(1).max(1), SeqCst);
        self.publish(i);
        Ok(true)
    }

    /// Writes this process's own record into slot `i` (its slot).
    fn publish(&self, i: usize) {
        let (l, own) = (&*self.view, &self.own);
        let s = &l.slots[i];
        for (c, o) in s.charges.iter().zip(&own.charges) {
            mirror(o, c);
        }
        mirror(&own.busy, &s.busy);
        s.pid.store(own.pid.load(SeqCst), SeqCst);
        s.start.store(own.start.load(SeqCst), SeqCst);
        s.owner.store(own.token.load(SeqCst), SeqCst);
        l.slots_used.fetch_max(i as u32 + 1, SeqCst);
    }

    /// Rewrites this process's slot from what it knows (after damage, or
    /// after another process set a damaged ledger up afresh).
    pub fn refresh(&self) {
        if let Some(Some(i)) = self.mine.get().copied() {
            self.publish(i);
        }
    }

    /// This process's slot, claimed on first use (once, whichever thread asks).
    pub fn claim(&self) -> io::Result<usize> {
        let slot = self.mine.get_or_init(|| self.find_slot(ProcessId::current()).ok().flatten());
        slot.ok_or_else(no_slot)
    }

    fn find_slot(&self, me: ProcessId) -> io::Result<Option<usize>> {
        for i in 0..self.slots_used() {
            if !self.alive(i) && self.take(i, me)? {
                return Ok(Some(i));
            }
        }
        let l = &*self.view;
        loop {
            let n = l.slots_used.load(SeqCst);
            if n as usize >= MAX_SLOTS {
                return Ok(None);
            }
            if l.slots_used.compare_exchange(n, n + 1, SeqCst, SeqCst).is_ok() && self.take(n as usize, me)? {
                return Ok(Some(n as usize));
            }
        }
    }

    /// A new share id, unique in this root (unless the file was damaged:
    /// exports retry on a collision).
    pub fn next_share_id(&self) -> u32 {
        let id = self.view.next_share_id.fetch_add(1, SeqCst);
        if id == 0 { self.view.next_share_id.fetch_add(1, SeqCst) } else { id }
    }

    fn slot_sum(&self, row: usize) -> u64 {
        let l = &*self.view;
        let slots = l.slots[..self.slots_used()].iter().filter(|s| s.owner.load(SeqCst) != 0);
        slots.fold(l.entry_used[row].load(SeqCst), |n, s| n.saturating_add(s.charges[row].load(SeqCst)))
    }

    /// Bytes in use in `row`: every slot's charge (alive or not yet
    /// collected) and the entries'.
    pub fn used(&self, row: usize) -> u64 {
        if row >= ROWS { 0 } else { self.slot_sum(row) }
    }

    /// Charges `bytes` of `row` to this process's slot, if they fit.
    pub fn charge(&self, row: usize, bytes: u64) -> io::Result<Result<(), Over>> {
        let slot = self.claim()?;
        let capacity = self.capacity(row);
        if row >= ROWS || bytes > capacity {
            return Ok(Err(Over { used: self.used(row), capacity }));
        }
        let (own, mine) = (&self.own.charges[row], &self.view.slots[slot].charges[row]);
        for _ in 0..CHARGE_TRIES {
            own.fetch_add(bytes, SeqCst);
            mirror(own, mine);
            super::pause_point("charge");
            let with = self.slot_sum(row);
            if with <= capacity {
                return Ok(Ok(()));
            }
            sub(own, bytes);
            mirror(own, mine);
            let without = self.slot_sum(row);
            if without.saturating_add(bytes) > capacity {
                return Ok(Err(Over { used: without, capacity }));
            }
            // It fits without the others' charges in flight: one of them was
            // refused too, or gave back; try again.
            std::thread::yield_now();
        }
        Ok(Err(Over { used: self.slot_sum(row), capacity }))
    }

    /// Gives back `bytes` of `row` charged to this process's slot.
    pub fn uncharge(&self, row: usize, bytes: u64) -> io::Result<()> {
        let slot = self.claim()?;
        if row < ROWS {
            sub(&self.own.charges[row], bytes);
            mirror(&self.own.charges[row], &self.view.slots[slot].charges[row]);
        }
        Ok(())
    }

    /// Starts a change of the entries' charges (see the module's notes).
    pub fn entry_change(&self) -> io::Result<EntryChange<'_>> {
        let slot = self.claim()?;
        let l = &*self.view;
        self.own.busy.fetch_add(1, SeqCst);
        mirror(&self.own.busy, &l.slots[slot].busy);
        l.entry_gen.fetch_add(1, SeqCst);
        Ok(EntryChange { state: self, slot })
    }

    /// Adds `bytes` to the entries of `row` (before the entry is linked).
    pub fn entry_add(&self, _change: &EntryChange<'_>, row: usize, bytes: u64) {
        if row < ROWS {
            self.view.entry_used[row].fetch_add(bytes, SeqCst);
        }
    }

    /// Takes `bytes` from the entries of `row` (after the entry is unlinked).
    pub fn entry_sub(&self, _change: &EntryChange<'_>, row: usize, bytes: u64) {
        if row < ROWS {
            sub(&self.view.entry_used[row], bytes);
        }
    }

    fn entry_changes_in_flight(&self) -> bool {
        let l = &*self.view;
        (0..self.slots_used()).any(|i| {
            let s = &l.slots[i];
            s.owner.load(SeqCst) != 0 && s.busy.load(SeqCst) != 0 && self.alive(i)
        })
    }

    /// Sets the entries' charges to `truth` (what is linked), unless a change
    /// of them was in flight meanwhile (then nothing is stored: `false`). A
    /// process that died half-way through a change left at most an
    /// over-count; this is what gives it back.
    pub fn recount(&self, truth: impl FnOnce() -> Truth) -> bool {
        let Some(generation) = self.recount_start() else { return false };
        let truth = truth();
        self.recount_from(Some(generation), 0, truth)
    }

    /// The entries' generation, when no change of them is in flight: where
    /// a pass that finds the truth itself begins ([`State::recount_from`]).
    pub fn recount_start(&self) -> Option<u64> {
        if self.entry_changes_in_flight() {
            return None;
        }
        Some(self.view.entry_gen.load(SeqCst))
    }

    /// [`State::recount`] with a truth found by a pass that began at
    /// `start` ([`State::recount_start`]) and made `own` entry changes of
    /// its own (each moves the generation by two): stored only when nobody
    /// else changed the entries meanwhile, and none is in flight.
    pub fn recount_from(&self, start: Option<u64>, own: u64, truth: Truth) -> bool {
        let l = &*self.view;
        let Some(start) = start else { return false };
        if self.entry_changes_in_flight() {
            return false;
        }
        let generation = l.entry_gen.load(SeqCst);
        if generation != start.wrapping_add(own.wrapping_mul(2)) {
            return false;
        }
        let before: Vec<u64> = l.entry_used.iter().map(|u| u.load(SeqCst)).collect();
        if self.entry_changes_in_flight() || l.entry_gen.load(SeqCst) != generation {
            return false;
        }
        for ((u, was), now) in l.entry_used.iter().zip(before).zip(truth.entry_used) {
            // A change that started after the check moved the counter: it
            // stays as that change left it, and the next recount settles it.
            let _ = u.compare_exchange(was, now, SeqCst, SeqCst);
        }
        let _ = l.next_share_id.fetch_max(truth.max_share_id.saturating_add(1), SeqCst);
        true
    }

    /// Clears the slots of processes that are gone: (slots, bytes given back).
    pub fn collect_dead(&self) -> (usize, u64) {
        let l = &*self.view;
        let mut out = (0, 0u64);
        for i in 0..self.slots_used() {
            if l.slots[i].owner.load(SeqCst) == 0 || self.alive(i) {
                continue;
            }
            // Taking its lock makes the slot ours to clear; a claimant that
            // got there first has cleared it already.
            let Ok(true) = range::try_lock(&self.file, Self::lock_offset(i)) else { continue };
            if l.slots[i].owner.load(SeqCst) != 0 {
                out.0 += 1;
                out.1 = out.1.saturating_add(self.clear(i));
            }
            range::unlock(&self.file, Self::lock_offset(i));
        }
        out
    }

    /// Capacity and use per device, and of host memory.
    pub fn usage(&self) -> Usage {
        let l = &*self.view;
        Usage {
            capacity: l.device_memory.load(SeqCst),
            used: (0..self.devices() as usize).map(|d| self.used(d)).collect(),
            host_capacity: l.host_memory.load(SeqCst),
            host_used: self.used(HOST_ROW),
        }
    }

    /// The pids of the occupied slots (whether their owners live or not):
    /// no system call.
    pub fn registered_pids(&self) -> std::collections::HashSet<u32> {
        let l = &*self.view;
        l.slots[..self.slots_used()]
            .iter()
            .filter(|s| s.owner.load(SeqCst) != 0)
            .map(|s| s.pid.load(SeqCst))
            .filter(|&p| p != 0)
            .collect()
    }

    /// The start times (clock ticks after boot) of the processes among
    /// `pids` that use this root and are alive, from their slots: each found
    /// alive by its slot's lock, one lock query, where a look in
    /// `/proc/<pid>/stat` is three calls. A slot stays alive while a child
    /// forked from its process lives; should the claimant have exited and its
    /// pid gone to a process that is not the root's, that process is refused
    /// where a look would have trusted it.
    pub fn live_starts(&self, pids: &[i32]) -> std::collections::HashMap<i32, u64> {
        let l = &*self.view;
        // A call may name millions of pids: each slot is looked up among them.
        let pids: std::collections::HashSet<i32> = pids.iter().copied().collect();
        (0..self.slots_used())
            .filter(|&i| l.slots[i].owner.load(SeqCst) != 0)
            .filter_map(|i| {
                let (pid, start) = (i32::try_from(l.slots[i].pid.load(SeqCst)).ok()?, l.slots[i].start.load(SeqCst));
                (pid != 0 && start != 0 && pids.contains(&pid) && self.alive(i)).then_some((pid, start))
            })
            .collect()
    }

    /// Occupied slots: (index, process, alive).
    pub fn processes(&self) -> Vec<(usize, ProcessId, bool)> {
        let l = &*self.view;
        (0..self.slots_used())
            .filter(|&i| l.slots[i].owner.load(SeqCst) != 0)
            .map(|i| {
                let s = &l.slots[i];
                (i, ProcessId { pid: s.pid.load(SeqCst), start: s.start.load(SeqCst) }, self.alive(i))
            })
            .collect()
    }

    /// Over-counts the entries of `row`, as a process dying half-way
    /// through an export leaves them (tests of the recount).
    #[cfg(test)]
    pub fn over_count_for_test(&self, row: usize, bytes: u64) {
        self.view.entry_used[row].fetch_add(bytes, SeqCst);
    }
}

impl Drop for State {
    /// A process that let go of everything it charged (`vmmkit gc`, which
    /// took a slot to remove entries) leaves its slot free, not for a
    /// later gc to count as a dead process. A forked child that drops its
    /// copy leaves the slot alone: the parent may still be using it.
    fn drop(&mut self) {
        let Some(Some(i)) = self.mine.get().copied() else { return };
        // A ledger cut short by someone else would fault (SIGBUS) here.
        if self.file.metadata().map_or(true, |m| m.len() < std::mem::size_of::<Layout>() as u64) {
            return;
        }
        let s = &self.view.slots[i];
        let idle = s.busy.load(SeqCst) == 0 && s.charges.iter().all(|c| c.load(SeqCst) == 0);
        if idle && s.pid.load(SeqCst) == std::process::id() {
            self.clear(i);
            range::unlock(&self.file, Self::lock_offset(i));
        }
    }
}

fn no_slot() -> io::Error {
    io::Error::other(format!("no free process slot in the emulator root ({MAX_SLOTS} processes at once)"))
}
