//! Stream-ordered memory pools, written once for HIP (`hipMemPool*`) and
//! CUDA (`cuMemPool*`): creation, the default and current pool of each
//! device, allocation and free, attributes, access, trim, and sharing a pool
//! and its allocations with other processes.
//!
//! Streams are synchronous in the emulator, so a stream-ordered call has
//! finished when it returns and every freed block is safe to hand out again
//! at once (what clr's `FindMemory` does for a free on the same stream).
//!
//! - An allocation is a plain allocation of the core (its own reservation
//!   and physical memory), recorded in its pool as busy. A free moves it to
//!   the pool's free list, with the point its stream had reached when the
//!   free was made (a [`Mark`]); it stays reserved (counted in
//!   `ReservedMemCurrent`) until a later allocation of at most its size
//!   takes it again, until [`Emulator::pool_trim`] or
//!   [`Emulator::pool_release_freed`] (a dialect's synchronisation) gives it
//!   back once its stream has passed the free, or until the pool goes.
//!   A freed block that was ever exported is withdrawn (no new import finds
//!   it) and never handed out again, so export data cannot name a new
//!   allocation; importers that have it open keep the memory (the registry
//!   holds it for them) until they free it.
//! - A pool is exported as a small physical object of the core (one page on
//!   the pool's device), shared as a POSIX fd: its registry entry carries
//!   the pool's settings at the first export (clr `MemoryPool::Export`
//!   copies them once), and the registry's holders and crash clean-up apply
//!   as to any shared memory. An imported pool holds that object; it cannot
//!   allocate, and pointers imported into it map the exporter's allocation.
//! - A pool destroyed with allocations still in use goes when the last one
//!   is freed (both vendors keep it alive for its allocations).

use std::collections::{BTreeMap, HashMap};
use std::os::fd::OwnedFd;
use std::sync::MutexGuard;

use crate::registry::Place;

use super::{CoreError, Emulator, HandleId, Mark, Window};

/// A pool of this process (never reused within it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PoolId(pub u64);

/// `props[0]` of a pool's exported descriptor.
const KIND_DESCRIPTOR: u64 = u64::from_le_bytes(*b"vmmkPool");
/// Bytes of a pool's exported descriptor (one page).
const DESCRIPTOR_BYTES: u64 = 4096;
/// Devices whose access a descriptor carries (2 bits each in one word).
const DESCRIPTOR_DEVICES: u32 = 32;

/// What a pool is made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolProps {
    /// The device its memory lives on.
    pub device: u32,
    /// Whether it may be exported (a handle type other than none).
    pub exportable: bool,
    /// Most bytes it may reserve; 0 for no limit.
    pub max_size: u64,
}

/// What setting a high-water mark (ReservedMemHigh, UsedMemHigh) to 0 leaves it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HighReset {
    /// The current value (the CUDA dialect).
    ToCurrent,
    /// 0, until the next allocation raises it again: clr stores the 0
    /// (ROCm/clr@f9f995c hipamd/src/hip_mempool_impl.cpp:370
    /// `max_total_size_ = reset`, :382 `busy_heap_.SetMaxTotalSize(reset)`)
    /// and reads it back as stored (:416, :424).
    ToZero,
}

/// A pool attribute, in vendor-neutral terms (HIP and CUDA number them alike, 1–8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolAttr {
    /// Reuse across streams ordered by events (an int flag).
    ReuseFollowEventDependencies,
    /// Reuse of completed frees without ordering (an int flag).
    ReuseAllowOpportunistic,
    /// Reuse by inserting dependencies (an int flag).
    ReuseAllowInternalDependencies,
    /// Bytes kept reserved before memory goes back to the system.
    ReleaseThreshold,
    /// Bytes reserved now (read only).
    ReservedMemCurrent,
    /// Most bytes reserved since the last reset (reset to 0 only).
    ReservedMemHigh,
    /// Bytes in use now (read only).
    UsedMemCurrent,
    /// Most bytes in use since the last reset (reset to 0 only).
    UsedMemHigh,
}

impl PoolAttr {
    /// The attribute numbered `n` by both vendors (1–8).
    pub fn from_number(n: i64) -> Option<Self> {
        use PoolAttr::*;
        Some(match n {
            1 => ReuseFollowEventDependencies,
            2 => ReuseAllowOpportunistic,
            3 => ReuseAllowInternalDependencies,
            4 => ReleaseThreshold,
            5 => ReservedMemCurrent,
            6 => ReservedMemHigh,
            7 => UsedMemCurrent,
            8 => UsedMemHigh,
            _ => return None,
        })
    }

    /// Whether its value is an `int` (the reuse flags); the others are 64-bit.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Self::ReuseFollowEventDependencies | Self::ReuseAllowOpportunistic | Self::ReuseAllowInternalDependencies
        )
    }
}

/// What a free of a pool address did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freed {
    /// The block went back to its pool.
    Returned(PoolId),
    /// A pointer imported from another process was closed.
    Closed(PoolId),
}

/// A freed block a pool keeps reserved.
#[derive(Debug)]
struct FreeBlock {
    /// Bytes counted.
    bytes: u64,
    /// It may be handed out again (never exported).
    reusable: bool,
    /// The point its free's stream had reached when it was freed; `None`
    /// for a free that waited for the device (always safe to release).
    after: Option<Mark>,
}

impl FreeBlock {
    /// Whether the work queued before its free has run: it may go back to the system.
    fn releasable(&self) -> bool {
        self.after.as_ref().is_none_or(Mark::is_passed)
    }
}

#[derive(Debug)]
struct Pool {
    props: PoolProps,
    /// The three reuse flags, all on by default.
    reuse: [bool; 3],
    threshold: u64,
    /// Allocations in use: address → bytes counted.
    busy: BTreeMap<usize, u64>,
    /// Freed blocks kept reserved, by address.
    free: BTreeMap<usize, FreeBlock>,
    reserved_high: u64,
    used_high: u64,
    /// Access granted to other devices (the pool's own has read-write).
    access: BTreeMap<u32, u32>,
    /// This pool's exported descriptor.
    descriptor: Option<HandleId>,
    /// For an imported pool: the exporter's descriptor, held.
    imported: Option<HandleId>,
    /// Pointers imported into this pool: base → opens made through this
    /// pool. Another pool of this process importing the same pointer shares
    /// the mapping (clr retains the one memory object, device.cpp:1003-1011),
    /// so each pool lets go of its own opens only.
    imported_ptrs: BTreeMap<usize, u32>,
    /// Destroyed while allocations were in use: goes with the last.
    destroyed: bool,
}

impl Pool {
    fn new(props: PoolProps) -> Self {
        Self {
            props,
            reuse: [true; 3],
            threshold: 0,
            busy: BTreeMap::new(),
            free: BTreeMap::new(),
            reserved_high: 0,
            used_high: 0,
            access: BTreeMap::new(),
            descriptor: None,
            imported: None,
            imported_ptrs: BTreeMap::new(),
            destroyed: false,
        }
    }

    fn used(&self) -> u64 {
        self.busy.values().sum()
    }

    fn reserved(&self) -> u64 {
        self.used() + self.held()
    }

    /// Bytes of its freed blocks.
    fn held(&self) -> u64 {
        self.free.values().map(|b| b.bytes).sum()
    }

    /// Takes freed blocks out, smallest first (clr's free heap is ordered
    /// by size, then memory object), until at most `keep` freed bytes stay;
    /// blocks whose free its stream has not passed stay whatever `keep`
    /// says. Returns their addresses, to be released.
    fn take_freed(&mut self, keep: u64) -> Vec<usize> {
        let mut held = self.held();
        let mut order: Vec<(u64, usize)> = self.free.iter().map(|(&va, b)| (b.bytes, va)).collect();
        order.sort_unstable();
        let mut gone = Vec::new();
        for (bytes, va) in order {
            if held <= keep {
                break;
            }
            if self.free.get(&va).is_some_and(FreeBlock::releasable) {
                self.free.remove(&va);
                held -= bytes;
                gone.push(va);
            }
        }
        gone
    }

    fn note_highs(&mut self) {
        self.used_high = self.used_high.max(self.used());
        self.reserved_high = self.reserved_high.max(self.reserved());
    }
}

/// The pools of one process.
#[derive(Debug, Default)]
pub(super) struct Pools {
    next: u64,
    pools: HashMap<PoolId, Pool>,
    default: HashMap<u32, PoolId>,
    current: HashMap<u32, PoolId>,
}

impl Pools {
    fn live(&self, id: PoolId) -> Result<&Pool, CoreError> {
        self.pools.get(&id).filter(|p| !p.destroyed).ok_or(CoreError::UnknownPool(id.0))
    }

    fn live_mut(&mut self, id: PoolId) -> Result<&mut Pool, CoreError> {
        self.pools.get_mut(&id).filter(|p| !p.destroyed).ok_or(CoreError::UnknownPool(id.0))
    }

    fn insert(&mut self, pool: Pool) -> PoolId {
        self.next += 1;
        let id = PoolId(self.next);
        self.pools.insert(id, pool);
        id
    }

    fn default_of(&mut self, device: u32) -> PoolId {
        if let Some(&id) = self.default.get(&device) {
            return id;
        }
        let id = self.insert(Pool::new(PoolProps { device, exportable: false, max_size: 0 }));
        self.default.insert(device, id);
        id
    }

    /// The pool whose busy block starts at `va`.
    fn owner_of(&self, va: usize) -> Option<PoolId> {
        self.pools.iter().find(|(_, p)| p.busy.contains_key(&va)).map(|(&id, _)| id)
    }
}

/// A descriptor's props: `[kind, page, device | flags << 32, access bits]`.
fn descriptor_props(p: &Pool) -> [u64; 4] {
    let flags = p.reuse.iter().enumerate().fold(0u64, |f, (i, &on)| f | (u64::from(on) << i));
    let access = p
        .access
        .iter()
        .filter(|(d, _)| **d < DESCRIPTOR_DEVICES)
        .fold(0u64, |a, (&d, &fl)| a | (u64::from(fl & 3) << (2 * d)));
    [KIND_DESCRIPTOR, DESCRIPTOR_BYTES, u64::from(p.props.device) | (flags << 32), access]
}

impl Emulator {
    fn pools(&self) -> MutexGuard<'_, Pools> {
        // As the tables: a panic while held leaves the pools usable.
        self.pools.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Creates a pool.
    pub fn pool_create(&self, props: PoolProps) -> PoolId {
        self.pools().insert(Pool::new(props))
    }

    /// Whether `id` is a live pool of this process.
    pub fn pool_exists(&self, id: PoolId) -> bool {
        self.pools().live(id).is_ok()
    }

    /// A pool's properties, and whether it was imported.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_props(&self, id: PoolId) -> Result<(PoolProps, bool), CoreError> {
        self.pools().live(id).map(|p| (p.props, p.imported.is_some()))
    }

    /// Whether `id` is the default pool of its device.
    pub fn pool_is_default(&self, id: PoolId) -> bool {
        self.pools().default.values().any(|&d| d == id)
    }

    /// The default pool of `device`, made at the first ask.
    pub fn pool_default(&self, device: u32) -> PoolId {
        self.pools().default_of(device)
    }

    /// The current pool of `device`: its default until [`Emulator::pool_set_current`].
    pub fn pool_current(&self, device: u32) -> PoolId {
        let mut p = self.pools();
        match p.current.get(&device) {
            Some(&id) => id,
            None => p.default_of(device),
        }
    }

    /// Makes `id` the current pool of its device.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_set_current(&self, device: u32, id: PoolId) -> Result<(), CoreError> {
        let mut p = self.pools();
        p.live(id)?;
        p.current.insert(device, id);
        Ok(())
    }

    /// Destroys a pool: its free blocks go now, its allocations in use keep
    /// it until they are freed; a device whose current pool it was gets its
    /// default back; an exported descriptor stays with whoever holds it.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_destroy(&self, id: PoolId) -> Result<(), CoreError> {
        let (blocks, handles) = {
            let mut p = self.pools();
            let pool = p.live_mut(id)?;
            pool.destroyed = true;
            let blocks: Vec<usize> = std::mem::take(&mut pool.free).into_keys().collect();
            let ptrs: Vec<(usize, u32)> = std::mem::take(&mut pool.imported_ptrs).into_iter().collect();
            let handles: Vec<HandleId> = [pool.descriptor.take(), pool.imported.take()].into_iter().flatten().collect();
            let gone = pool.busy.is_empty();
            let device = pool.props.device;
            if gone {
                p.pools.remove(&id);
            }
            if p.current.get(&device) == Some(&id) {
                p.current.remove(&device);
            }
            drop(p);
            for (va, opens) in ptrs {
                for _ in 0..opens {
                    if !matches!(self.close_plain(va), Ok(n) if n > 0) {
                        break;
                    }
                }
            }
            (blocks, handles)
        };
        for va in blocks {
            self.release_block(va);
        }
        for h in handles {
            let _ = self.free(h);
        }
        Ok(())
    }

    /// Gives a block back to the system: withdrawn, then unmapped and freed.
    fn release_block(&self, va: usize) {
        if let Some((_, m)) = self.mapping(va) {
            let _ = self.withdraw(m.handle);
        }
        let _ = self.free_plain(va);
    }

    /// Allocates `size` bytes (counted) from pool `id`: a free block of at
    /// least that size when there is one, else `rounded` bytes of new plain
    /// memory with `props`, on the pool's device. Returns the address.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`]; [`CoreError::PoolImported`] for an
    /// imported pool; [`CoreError::PoolFull`] past its `max_size`; the errors
    /// of a plain allocation.
    pub fn pool_alloc(
        &self,
        id: PoolId,
        size: u64,
        rounded: u64,
        props: [u64; 4],
        window: &Window,
    ) -> Result<usize, CoreError> {
        let device = {
            let mut p = self.pools();
            let pool = p.live_mut(id)?;
            if pool.imported.is_some() {
                return Err(CoreError::PoolImported(id.0));
            }
            // The smallest reusable free block that is big enough (clr: `lower_bound` on size).
            let hit = pool.free.iter().filter(|(_, b)| b.reusable && b.bytes >= size).min_by_key(|(_, b)| b.bytes);
            if let Some((&va, &FreeBlock { bytes: n, .. })) = hit {
                pool.free.remove(&va);
                pool.busy.insert(va, n);
                pool.note_highs();
                return Ok(va);
            }
            if pool.props.max_size != 0 && pool.reserved_high.max(pool.reserved()) + size > pool.props.max_size {
                return Err(CoreError::PoolFull { pool: id.0, requested: size, max: pool.props.max_size });
            }
            pool.props.device
        };
        let va = self.alloc_plain(Place::Device(device), rounded, props[1].max(1), props, window)?;
        let mut p = self.pools();
        match p.pools.get_mut(&id) {
            Some(pool) => {
                pool.busy.insert(va, size);
                pool.note_highs();
                Ok(va)
            }
            None => {
                drop(p);
                let _ = self.free_plain(va);
                Err(CoreError::UnknownPool(id.0))
            }
        }
    }

    /// Whether `va` starts a block that a pool holds freed (not in use).
    pub fn pool_block_is_free(&self, va: usize) -> bool {
        self.pools().pools.values().any(|p| p.free.contains_key(&va))
    }

    /// The pool whose allocation in use starts at `va`.
    pub fn pool_of(&self, va: usize) -> Option<PoolId> {
        self.pools().owner_of(va)
    }

    /// Frees the pool allocation that starts at `va` (back to its pool), or
    /// closes a pointer imported into a pool. `None` when `va` is neither.
    /// The block may be released at once ([`Emulator::pool_free_after`] for
    /// a free ordered on a stream).
    pub fn pool_free(&self, va: usize) -> Option<Result<Freed, CoreError>> {
        self.pool_free_after(va, None)
    }

    /// [`Emulator::pool_free`] for a free made on a stream: the block is not
    /// given back to the system ([`Emulator::pool_trim`],
    /// [`Emulator::pool_release_freed`]) before the stream passes `after`.
    pub fn pool_free_after(&self, va: usize, after: Option<Mark>) -> Option<Result<Freed, CoreError>> {
        let mut p = self.pools();
        if let Some((&id, _)) = p.pools.iter().find(|(_, pool)| pool.imported_ptrs.contains_key(&va)) {
            drop(p);
            return Some(self.close_plain(va).map(|_| {
                // One open went: counted against the pool that made it.
                if let Some(pool) = self.pools().pools.get_mut(&id)
                    && let Some(n) = pool.imported_ptrs.get_mut(&va)
                {
                    *n -= 1;
                    if *n == 0 {
                        pool.imported_ptrs.remove(&va);
                    }
                }
                Freed::Closed(id)
            }));
        }
        let id = p.owner_of(va)?;
        let pool = p.pools.get_mut(&id)?;
        let n = pool.busy.remove(&va)?;
        let exported =
            self.mapping(va).and_then(|(_, m)| self.describe(m.handle).ok()).is_some_and(|i| i.key.is_some());
        let destroyed = pool.destroyed;
        if !destroyed {
            pool.free.insert(va, FreeBlock { bytes: n, reusable: !exported, after });
        }
        if destroyed && pool.busy.is_empty() {
            p.pools.remove(&id);
        }
        drop(p);
        if destroyed {
            self.release_block(va);
        } else if exported {
            // Export data of it must not find it again, here or in an importer.
            if let Some((_, m)) = self.mapping(va) {
                let _ = self.withdraw(m.handle);
            }
        }
        Some(Ok(Freed::Returned(id)))
    }

    /// Releases freed blocks of pool `id`, smallest first, until at most
    /// `keep` freed bytes stay reserved (clr `TrimTo`: the free heap down to
    /// `keep`); a block whose free its stream has not passed stays.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_trim(&self, id: PoolId, keep: u64) -> Result<(), CoreError> {
        let gone = self.pools().live_mut(id)?.take_freed(keep);
        for va in gone {
            self.release_block(va);
        }
        Ok(())
    }

    /// Releases, in every pool of `device` (of every device: `None`), the
    /// freed blocks whose free its stream has passed, smallest first, until
    /// the pool's freed bytes are at most its release threshold: what clr
    /// does at a synchronisation (`Device::ReleaseFreedMemory`).
    pub fn pool_release_freed(&self, device: Option<u32>) {
        let gone: Vec<usize> = {
            let mut p = self.pools();
            p.pools
                .values_mut()
                .filter(|pool| !pool.destroyed && device.is_none_or(|d| pool.props.device == d))
                .flat_map(|pool| {
                    let keep = pool.threshold;
                    pool.take_freed(keep)
                })
                .collect()
        };
        for va in gone {
            self.release_block(va);
        }
    }

    /// Reads attribute `attr` of pool `id` (flags as 0 or 1).
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_get(&self, id: PoolId, attr: PoolAttr) -> Result<u64, CoreError> {
        let p = self.pools();
        let pool = p.live(id)?;
        Ok(match attr {
            PoolAttr::ReuseFollowEventDependencies => u64::from(pool.reuse[0]),
            PoolAttr::ReuseAllowOpportunistic => u64::from(pool.reuse[1]),
            PoolAttr::ReuseAllowInternalDependencies => u64::from(pool.reuse[2]),
            PoolAttr::ReleaseThreshold => pool.threshold,
            PoolAttr::ReservedMemCurrent => pool.reserved(),
            PoolAttr::ReservedMemHigh => pool.reserved_high,
            PoolAttr::UsedMemCurrent => pool.used(),
            PoolAttr::UsedMemHigh => pool.used_high,
        })
    }

    /// Sets attribute `attr` of pool `id`: a flag (0 off), the threshold, or
    /// a high-water mark reset by setting 0, to what `reset` says (the
    /// dialect checks what is allowed).
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`]; [`CoreError::PoolAttrReadOnly`] for the
    /// current values and a nonzero reset.
    pub fn pool_set(&self, id: PoolId, attr: PoolAttr, value: u64, reset: HighReset) -> Result<(), CoreError> {
        let mut p = self.pools();
        let pool = p.live_mut(id)?;
        let to = |current: u64| if reset == HighReset::ToZero { 0 } else { current };
        match attr {
            PoolAttr::ReuseFollowEventDependencies => pool.reuse[0] = value != 0,
            PoolAttr::ReuseAllowOpportunistic => pool.reuse[1] = value != 0,
            PoolAttr::ReuseAllowInternalDependencies => pool.reuse[2] = value != 0,
            PoolAttr::ReleaseThreshold => pool.threshold = value,
            PoolAttr::ReservedMemHigh if value == 0 => pool.reserved_high = to(pool.reserved()),
            PoolAttr::UsedMemHigh if value == 0 => pool.used_high = to(pool.used()),
            _ => return Err(CoreError::PoolAttrReadOnly { attr: format!("{attr:?}"), value }),
        }
        Ok(())
    }

    /// Grants `flags` (0, 1 read, 3 read-write) on pool `id` to `device`;
    /// the pool's own device keeps read-write (clr `SetAccess`).
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_set_access(&self, id: PoolId, device: u32, flags: u32) -> Result<(), CoreError> {
        let mut p = self.pools();
        let pool = p.live_mut(id)?;
        if device != pool.props.device {
            pool.access.insert(device, flags);
        }
        Ok(())
    }

    /// The access `device` has to pool `id`: read-write (3) for the pool's
    /// own device, else what was granted, else none (0).
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`].
    pub fn pool_get_access(&self, id: PoolId, device: u32) -> Result<u32, CoreError> {
        let p = self.pools();
        let pool = p.live(id)?;
        let own = if device == pool.props.device { 3 } else { 0 };
        Ok(pool.access.get(&device).copied().unwrap_or(own))
    }

    /// A new POSIX fd for pool `id`, which the caller owns. The first export
    /// makes the pool's descriptor with its settings as they are then.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`]; [`CoreError::PoolNotExportable`] for a
    /// pool made without a handle type; the errors of sharing memory.
    pub fn pool_export(&self, id: PoolId) -> Result<OwnedFd, CoreError> {
        let (descriptor, device, props) = {
            let p = self.pools();
            let pool = p.live(id)?;
            if !pool.props.exportable {
                return Err(CoreError::PoolNotExportable(id.0));
            }
            (pool.descriptor, pool.props.device, descriptor_props(pool))
        };
        let h = match descriptor {
            Some(h) => h,
            None => {
                let h = self.create(Place::Device(device), DESCRIPTOR_BYTES, DESCRIPTOR_BYTES, props)?;
                match self.pools().live_mut(id) {
                    Ok(pool) => pool.descriptor = Some(h),
                    Err(e) => {
                        let _ = self.free(h);
                        return Err(e);
                    }
                }
                h
            }
        };
        self.share_fd(h)
    }

    /// Imports the pool shared as the file descriptor `fd` (a number the C
    /// caller passed, borrowed). Its device is the exporter's, unless
    /// `device` names one (clr puts an imported pool on device 0).
    ///
    /// # Errors
    /// [`CoreError::UnknownShareable`] for an fd that is not a pool's; the
    /// errors of [`Emulator::import_fd_value`].
    pub fn pool_import(&self, fd: i32, device: Option<u32>) -> Result<PoolId, CoreError> {
        let h = self.import_fd_value(fd, Place::Device(device.unwrap_or(0)), None)?;
        let info = match self.describe(h) {
            Ok(i) if i.props[0] == KIND_DESCRIPTOR => i,
            Ok(_) => {
                let _ = self.free(h);
                return Err(CoreError::UnknownShareable(0));
            }
            Err(e) => return Err(e),
        };
        let [_, _, word, bits] = info.props;
        let exporter = (word & 0xffff_ffff) as u32;
        let mut pool = Pool::new(PoolProps { device: device.unwrap_or(exporter), exportable: true, max_size: 0 });
        for (i, on) in pool.reuse.iter_mut().enumerate() {
            *on = (word >> (32 + i)) & 1 == 1;
        }
        for d in 0..DESCRIPTOR_DEVICES {
            let fl = ((bits >> (2 * d)) & 3) as u32;
            if fl != 0 {
                pool.access.insert(d, fl);
            }
        }
        pool.imported = Some(h);
        Ok(self.pools().insert(pool))
    }

    /// Maps the allocation shared as `key` by the process `exporter` (the
    /// pid the export data names, checked against the registry's record:
    /// [`Emulator::open_plain`]) into imported pool `id`, on the pool's
    /// device: the whole allocation, once per key (a repeated import counts
    /// one more open). Returns its base here. With `own_maps_again`, the
    /// exporter's own pointer is mapped a second time ([`Emulator::open_own`]);
    /// without, it is refused as [`Emulator::open_plain`] refuses it.
    ///
    /// # Errors
    /// [`CoreError::UnknownPool`]; [`CoreError::UnknownShareable`] for a key
    /// that names no live entry (freed by its exporter); the errors of
    /// [`Emulator::open_plain`].
    pub fn pool_import_pointer(
        &self,
        id: PoolId,
        key: u64,
        exporter: i32,
        window: &Window,
        own_maps_again: bool,
    ) -> Result<usize, CoreError> {
        let device = Place::Device(self.pools().live(id)?.props.device);
        // With `own_maps_again`, the exporting process's own pointer (its
        // pool imported from its own export) is mapped a second time.
        let me = self.registry().me();
        let own = i32::try_from(me.pid) == Ok(exporter) && self.live_header(key).is_some_and(|h| h.exporter == me);
        let (va, _) = if own && own_maps_again {
            self.open_own(key, device, window)?
        } else {
            self.open_plain(key, exporter, device, window)?
        };
        match self.pools().live_mut(id) {
            Ok(pool) => {
                *pool.imported_ptrs.entry(va).or_insert(0) += 1;
                Ok(va)
            }
            Err(e) => {
                let _ = self.close_plain(va);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::core::DEVICE_WINDOW;

    fn emulator(dir: &std::path::Path) -> Emulator {
        Emulator::new(Config::new(dir)).expect("emulator")
    }

    const PAGE: u64 = 4096;

    #[test]
    fn free_keeps_reserved_until_trim_and_reuses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = emulator(dir.path());
        let id = e.pool_create(PoolProps { device: 0, exportable: false, max_size: 0 });
        let props = [1, PAGE, 2 * PAGE, 0];
        let a = e.pool_alloc(id, 2 * PAGE, 2 * PAGE, props, &DEVICE_WINDOW).expect("alloc");
        assert_eq!(e.pool_get(id, PoolAttr::UsedMemCurrent), Ok(2 * PAGE));
        assert_eq!(e.pool_free(a), Some(Ok(Freed::Returned(id))));
        assert_eq!(e.pool_get(id, PoolAttr::UsedMemCurrent), Ok(0));
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemCurrent), Ok(2 * PAGE));
        // A smaller allocation takes the freed block.
        let b = e.pool_alloc(id, PAGE, PAGE, props, &DEVICE_WINDOW).expect("alloc");
        assert_eq!(a, b);
        assert_eq!(e.pool_free(b), Some(Ok(Freed::Returned(id))));
        e.pool_trim(id, 0).expect("trim");
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemCurrent), Ok(0));
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemHigh), Ok(2 * PAGE));
        assert!(e.pool_set(id, PoolAttr::UsedMemHigh, 5, HighReset::ToCurrent).is_err());
        e.pool_set(id, PoolAttr::ReservedMemHigh, 0, HighReset::ToCurrent).expect("reset");
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemHigh), Ok(0));
        assert_eq!(e.pool_free(a), None, "a trimmed block is no pool's");
        e.pool_destroy(id).expect("destroy");
        assert!(!e.pool_exists(id));
    }

    /// Resetting a high-water mark with memory still reserved and in use:
    /// to the current values (CUDA), or to 0 until the next allocation (clr).
    #[test]
    fn high_reset_to_current_or_to_zero() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = emulator(dir.path());
        let id = e.pool_create(PoolProps { device: 0, exportable: false, max_size: 0 });
        let props = [1, PAGE, PAGE, 0];
        let a = e.pool_alloc(id, PAGE, PAGE, props, &DEVICE_WINDOW).expect("alloc");
        let b = e.pool_alloc(id, PAGE, PAGE, props, &DEVICE_WINDOW).expect("alloc");
        assert_eq!(e.pool_free(a), Some(Ok(Freed::Returned(id))));
        for attr in [PoolAttr::ReservedMemHigh, PoolAttr::UsedMemHigh] {
            e.pool_set(id, attr, 0, HighReset::ToCurrent).expect("reset");
        }
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemHigh), Ok(2 * PAGE));
        assert_eq!(e.pool_get(id, PoolAttr::UsedMemHigh), Ok(PAGE));
        for attr in [PoolAttr::ReservedMemHigh, PoolAttr::UsedMemHigh] {
            e.pool_set(id, attr, 0, HighReset::ToZero).expect("reset");
            assert_eq!(e.pool_get(id, attr), Ok(0), "{attr:?}");
        }
        // The next allocation raises both again, from what is then reserved and used.
        let c = e.pool_alloc(id, PAGE, PAGE, props, &DEVICE_WINDOW).expect("alloc");
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemHigh), Ok(2 * PAGE));
        assert_eq!(e.pool_get(id, PoolAttr::UsedMemHigh), Ok(2 * PAGE));
        for va in [b, c] {
            assert_eq!(e.pool_free(va), Some(Ok(Freed::Returned(id))));
        }
        e.pool_destroy(id).expect("destroy");
    }

    /// A synchronisation gives freed blocks back down to the release
    /// threshold, smallest first, and neither it nor a trim takes a block
    /// whose free its stream has not passed.
    #[test]
    fn release_freed_waits_for_the_free_and_keeps_the_threshold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = emulator(dir.path());
        let id = e.pool_create(PoolProps { device: 0, exportable: false, max_size: 0 });
        let other = e.pool_create(PoolProps { device: 1, exportable: false, max_size: 0 });
        let props = [1, PAGE, PAGE, 0];
        let alloc = |pool, n| e.pool_alloc(pool, n, n, props, &DEVICE_WINDOW).expect("alloc");
        let (small, big, elsewhere) = (alloc(id, PAGE), alloc(id, 2 * PAGE), alloc(other, PAGE));
        let progress = std::sync::Arc::new(crate::core::cell::Cell::local());
        let seq = progress.next();
        let pending = Mark::on(progress.clone(), seq);
        assert_eq!(e.pool_free_after(big, Some(pending)), Some(Ok(Freed::Returned(id))));
        assert_eq!(e.pool_free(small), Some(Ok(Freed::Returned(id))));
        assert_eq!(e.pool_free(elsewhere), Some(Ok(Freed::Returned(other))));
        // Device 0's synchronisation: the small block goes, the pending one stays, device 1's is not touched.
        e.pool_release_freed(Some(0));
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemCurrent), Ok(2 * PAGE));
        assert!(!e.is_plain(small) && e.is_plain(big));
        assert_eq!(e.pool_get(other, PoolAttr::ReservedMemCurrent), Ok(PAGE));
        e.pool_trim(id, 0).expect("trim");
        assert!(e.is_plain(big), "a trim leaves a block whose free is pending");
        progress.complete(seq);
        // A threshold at what is held keeps it; below, it goes.
        e.pool_set(id, PoolAttr::ReleaseThreshold, 2 * PAGE, HighReset::ToZero).expect("threshold");
        e.pool_release_freed(None);
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemCurrent), Ok(2 * PAGE));
        e.pool_set(id, PoolAttr::ReleaseThreshold, PAGE, HighReset::ToZero).expect("threshold");
        e.pool_release_freed(None);
        assert_eq!(e.pool_get(id, PoolAttr::ReservedMemCurrent), Ok(0));
        assert_eq!(e.pool_get(other, PoolAttr::ReservedMemCurrent), Ok(0));
        assert!(!e.is_plain(big) && !e.is_plain(elsewhere));
        e.pool_destroy(id).expect("destroy");
        e.pool_destroy(other).expect("destroy");
    }

    #[test]
    fn destroy_waits_for_allocations_in_use() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = emulator(dir.path());
        let id = e.pool_create(PoolProps { device: 1, exportable: false, max_size: 0 });
        let a = e.pool_alloc(id, PAGE, PAGE, [1, PAGE, PAGE, 0], &DEVICE_WINDOW).expect("alloc");
        e.pool_set_current(1, id).expect("current");
        e.pool_destroy(id).expect("destroy");
        assert_eq!(e.pool_current(1), e.pool_default(1), "the default is current again");
        assert!(e.is_plain(a), "the allocation outlives its pool's destruction");
        assert_eq!(e.pool_free(a), Some(Ok(Freed::Returned(id))));
        assert!(!e.is_plain(a), "the last free releases it");
    }

    #[test]
    fn max_size_and_descriptor_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = emulator(dir.path());
        let id = e.pool_create(PoolProps { device: 2, exportable: true, max_size: PAGE });
        assert!(matches!(
            e.pool_alloc(id, 2 * PAGE, 2 * PAGE, [1, PAGE, 0, 0], &DEVICE_WINDOW),
            Err(CoreError::PoolFull { .. })
        ));
        e.pool_set_access(id, 5, 1).expect("access");
        e.pool_set(id, PoolAttr::ReuseAllowOpportunistic, 0, HighReset::ToCurrent).expect("flag");
        let fd = e.pool_export(id).expect("export");
        let imported = e.pool_import(std::os::fd::AsRawFd::as_raw_fd(&fd), None).expect("import");
        assert_eq!(e.pool_props(imported).map(|(p, i)| (p.device, i)), Ok((2, true)));
        assert_eq!(e.pool_get_access(imported, 5), Ok(1));
        assert_eq!(e.pool_get(imported, PoolAttr::ReuseAllowOpportunistic), Ok(0));
        assert!(matches!(
            e.pool_alloc(imported, PAGE, PAGE, [1, PAGE, 0, 0], &DEVICE_WINDOW),
            Err(CoreError::PoolImported(_))
        ));
        drop(fd);
        e.pool_destroy(imported).expect("destroy imported");
        e.pool_destroy(id).expect("destroy");
    }
}
