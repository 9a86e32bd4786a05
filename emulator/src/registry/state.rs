//! The state file of a root: per-device capacity in use, and one slot per
//! live process with the bytes charged to it.
//!
//! Every change happens under an exclusive `flock` of the file (which the
//! kernel drops if the holder dies) and with the `dirty` word set: a process
//! that finds `dirty` set when it takes the lock knows that the previous holder
//! died mid-change, and recounts from the ground truth (live slots and linked
//! entries). Reads (`vmmkit ls`, capacity queries) need no lock.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::config::MAX_DEVICES;
use crate::os::lock::Exclusive;
use crate::os::proc::ProcessId;
use crate::os::shared::{SharedPod, SharedView};

const MAGIC: u64 = u64::from_le_bytes(*b"VMMKSTA1");
/// Process slots in one root: processes alive at once that use the emulator.
pub const MAX_SLOTS: usize = 4096;

/// Layout of the state file (mapped shared by every process of the root).
#[repr(C)]
pub struct Layout {
    magic: AtomicU64,
    devices: AtomicU32,
    dirty: AtomicU32,
    device_memory: AtomicU64,
    next_share_id: AtomicU32,
    slots_used: AtomicU32,
    used: [AtomicU64; MAX_DEVICES as usize],
    slots: [Slot; MAX_SLOTS],
}

/// One process's slot: who it is and what is charged to it per device.
#[repr(C)]
pub struct Slot {
    pid: AtomicU32,
    _pad: AtomicU32,
    start: AtomicU64,
    charges: [AtomicU64; MAX_DEVICES as usize],
}

// SAFETY: `#[repr(C)]`, all fields atomics, all-zero is the empty state.
unsafe impl SharedPod for Layout {}

/// The state file, open and mapped.
#[derive(Debug)]
pub struct State {
    file: File,
    view: SharedView<Layout>,
    /// Threads of this process take this before the file lock (flock is per
    /// open file description, so it does not exclude our own threads).
    local: Mutex<()>,
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layout").field("devices", &self.devices).finish_non_exhaustive()
    }
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

/// What a locked change may do.
pub struct Txn<'a> {
    layout: &'a Layout,
}

/// Per-device figures of a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// Capacity of each device.
    pub capacity: u64,
    /// Bytes in use per device.
    pub used: Vec<u64>,
}

impl State {
    /// Opens (creating if needed) the state file of `root` for `devices`
    /// devices of `memory` bytes. The first process sets the figures; a
    /// process asking for others while any slot is alive is refused.
    pub fn open(root: &Path, devices: u32, memory: u64) -> io::Result<Result<Self, Mismatch>> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(root.join(super::root::STATE_FILE))?;
        let guard_fd = file.try_clone()?;
        let _g = Exclusive::lock(&guard_fd)?;
        let len = std::mem::size_of::<Layout>() as u64;
        // Every page is backed now: a sparse ledger on a full tmpfs would kill
        // the first process to touch a new page of it with SIGBUS; this way a
        // root without room is refused when it is opened (ENOSPC).
        match rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, len) {
            Ok(()) => {}
            Err(rustix::io::Errno::OPNOTSUPP) if file.metadata()?.len() < len => file.set_len(len)?,
            Err(rustix::io::Errno::OPNOTSUPP) => {}
            Err(e) => return Err(e.into()),
        }
        let view = SharedView::<Layout>::map(&file, 0)?;
        let state = Self { file, view, local: Mutex::new(()) };
        let l = &*state.view;
        let fresh = l.magic.load(Relaxed) != MAGIC;
        let same = l.devices.load(Relaxed) == devices && l.device_memory.load(Relaxed) == memory;
        if !fresh && !same && state.live_slots().next().is_some() {
            return Ok(Err(Mismatch {
                root_devices: l.devices.load(Relaxed),
                root_memory: l.device_memory.load(Relaxed),
                devices,
                memory,
            }));
        }
        if fresh || !same {
            l.devices.store(devices, Relaxed);
            l.device_memory.store(memory, Relaxed);
            if fresh {
                l.next_share_id.store(1, Relaxed);
            }
            l.magic.store(MAGIC, Relaxed);
        }
        Ok(Ok(state))
    }

    /// Opens the state file of an existing root without changing its settings.
    pub fn open_existing(root: &Path) -> io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(root.join(super::root::STATE_FILE))?;
        if file.metadata()?.len() < std::mem::size_of::<Layout>() as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not a vmmkit state file (too short)"));
        }
        let view = SharedView::<Layout>::map(&file, 0)?;
        if view.magic.load(Relaxed) != MAGIC {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not a vmmkit state file (bad magic)"));
        }
        Ok(Self { file, view, local: Mutex::new(()) })
    }

    /// Runs `f` with the root locked. If the last holder died mid-change,
    /// `recount` first rebuilds the ledger (it gets the transaction too).
    pub fn locked<R>(&self, recount: impl FnOnce(&Txn<'_>), f: impl FnOnce(&Txn<'_>) -> R) -> io::Result<R> {
        let _local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        let _file = Exclusive::lock(&self.file)?;
        let txn = Txn { layout: &self.view };
        if self.view.dirty.swap(1, Relaxed) != 0 {
            recount(&txn);
        }
        let r = f(&txn);
        self.view.dirty.store(0, Relaxed);
        Ok(r)
    }

    /// Marks the ledger as left mid-change (tests of the recovery path).
    #[cfg(test)]
    pub fn mark_dirty_for_test(&self) {
        self.view.dirty.store(1, Relaxed);
    }

    /// A new share id, unique in this root.
    pub fn next_share_id(&self) -> u32 {
        self.view.next_share_id.fetch_add(1, Relaxed)
    }

    /// Capacity and use per device, read without the lock.
    pub fn usage(&self) -> Usage {
        let l = &*self.view;
        let n = l.devices.load(Relaxed) as usize;
        Usage { capacity: l.device_memory.load(Relaxed), used: l.used[..n].iter().map(|u| u.load(Relaxed)).collect() }
    }

    /// Occupied slots: (index, process, charges per device).
    pub fn live_slots(&self) -> impl Iterator<Item = (usize, ProcessId)> + '_ {
        let l = &*self.view;
        let n = (l.slots_used.load(Relaxed) as usize).min(MAX_SLOTS);
        l.slots[..n].iter().enumerate().filter_map(|(i, s)| {
            let pid = s.pid.load(Relaxed);
            (pid != 0).then(|| (i, ProcessId { pid, start: s.start.load(Relaxed) }))
        })
    }
}

impl Txn<'_> {
    /// Capacity of one device.
    pub fn capacity(&self) -> u64 {
        self.layout.device_memory.load(Relaxed)
    }

    /// Bytes in use on `device`.
    pub fn used(&self, device: u32) -> u64 {
        self.layout.used[device as usize].load(Relaxed)
    }

    /// Charges `bytes` on `device` to slot `slot`, if they fit.
    pub fn charge(&self, slot: usize, device: u32, bytes: u64) -> bool {
        let used = &self.layout.used[device as usize];
        let now = used.load(Relaxed);
        match now.checked_add(bytes) {
            Some(n) if n <= self.capacity() => {
                used.store(n, Relaxed);
                self.layout.slots[slot].charges[device as usize].fetch_add(bytes, Relaxed);
                true
            }
            _ => false,
        }
    }

    /// Gives back `bytes` on `device` charged to slot `slot`.
    pub fn uncharge(&self, slot: usize, device: u32, bytes: u64) {
        self.layout.used[device as usize].fetch_sub(bytes, Relaxed);
        self.layout.slots[slot].charges[device as usize].fetch_sub(bytes, Relaxed);
    }

    /// Moves `bytes` on `device` from slot `slot` to an exported entry, which
    /// carries the charge from now on (in `used` only).
    pub fn move_to_entry(&self, slot: usize, device: u32, bytes: u64) {
        self.layout.slots[slot].charges[device as usize].fetch_sub(bytes, Relaxed);
    }

    /// Gives back the charge of an entry that was just removed.
    pub fn drop_entry(&self, device: u32, bytes: u64) {
        self.layout.used[device as usize].fetch_sub(bytes, Relaxed);
    }

    /// Claims a slot for `me`, reusing the slot of a dead process (whose charges are given back).
    pub fn claim_slot(&self, me: ProcessId) -> Option<usize> {
        let l = self.layout;
        let n = l.slots_used.load(Relaxed) as usize;
        let free = (0..n).find(|&i| {
            let s = &l.slots[i];
            let pid = s.pid.load(Relaxed);
            pid == 0 || !(ProcessId { pid, start: s.start.load(Relaxed) }).is_alive()
        });
        let i = match free {
            Some(i) => {
                self.clear_slot(i);
                i
            }
            None if n < MAX_SLOTS => {
                l.slots_used.store(n as u32 + 1, Relaxed);
                n
            }
            None => return None,
        };
        let s = &l.slots[i];
        s.start.store(me.start, Relaxed);
        s.pid.store(me.pid, Relaxed);
        Some(i)
    }

    /// Frees slot `i`, giving back what was charged to it. Returns the bytes given back.
    pub fn clear_slot(&self, i: usize) -> u64 {
        let l = self.layout;
        let s = &l.slots[i];
        let mut freed = 0;
        for (d, c) in s.charges.iter().enumerate() {
            let bytes = c.swap(0, Relaxed);
            if bytes != 0 {
                l.used[d].fetch_sub(bytes, Relaxed);
                freed += bytes;
            }
        }
        s.pid.store(0, Relaxed);
        s.start.store(0, Relaxed);
        freed
    }

    /// Slots whose process has died: (index, process).
    pub fn dead_slots(&self) -> Vec<(usize, ProcessId)> {
        let l = self.layout;
        let n = (l.slots_used.load(Relaxed) as usize).min(MAX_SLOTS);
        (0..n)
            .filter_map(|i| {
                let s = &l.slots[i];
                let p = ProcessId { pid: s.pid.load(Relaxed), start: s.start.load(Relaxed) };
                (p.pid != 0 && !p.is_alive()).then_some((i, p))
            })
            .collect()
    }

    /// Rebuilds `used` from the slots and `entries` (device, bytes) of linked entries.
    pub fn rebuild(&self, entries: impl Iterator<Item = (u32, u64)>) {
        let l = self.layout;
        let mut used = [0u64; MAX_DEVICES as usize];
        let n = (l.slots_used.load(Relaxed) as usize).min(MAX_SLOTS);
        for s in &l.slots[..n] {
            if s.pid.load(Relaxed) != 0 {
                for (d, c) in s.charges.iter().enumerate() {
                    used[d] += c.load(Relaxed);
                }
            }
        }
        for (d, bytes) in entries {
            if let Some(u) = used.get_mut(d as usize) {
                *u += bytes;
            }
        }
        for (u, v) in l.used.iter().zip(used) {
            u.store(v, Relaxed);
        }
    }
}
