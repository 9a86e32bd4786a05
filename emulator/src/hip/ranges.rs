//! What the memory functions keep for the process: host ranges
//! registered by hipHostRegister, managed allocations (hipMallocManaged, in
//! host memory) with their advice, the flags each allocation was made with
//! and the allocations with SYNC_MEMOPS set. Part of the HIP `State`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use vmmkit_sys::hip::{hipInvalidDeviceId, hipMemRangeCoherencyModeFineGrain};

/// The advice given for a page run of a managed allocation (hipMemAdvise,
/// hipMemPrefetchAsync).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Advice {
    pub read_mostly: bool,
    /// A device, `hipCpuDeviceId`, or `hipInvalidDeviceId` when unset.
    pub preferred: i32,
    pub accessed_by: Vec<i32>,
    /// Where the last prefetch went, `hipInvalidDeviceId` before any.
    pub last_prefetch: i32,
    pub coherency: i32,
}

impl Default for Advice {
    fn default() -> Self {
        Self {
            read_mostly: false,
            preferred: hipInvalidDeviceId,
            accessed_by: Vec::new(),
            last_prefetch: hipInvalidDeviceId,
            coherency: hipMemRangeCoherencyModeFineGrain,
        }
    }
}

/// The page size advice and range queries round to (ROCr aligns both to 4 KiB).
pub(super) const ADVICE_PAGE: usize = 4096;

/// The advice of a managed allocation, by page runs: each key is the offset
/// of a run's first page, the run going on to the next key. Advice and
/// prefetches apply to the pages they touch, as ROCr and KFD split an SVM
/// range ([HIP-MEM-009](vmmkit_sys::hip::rules::MEM_009)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PagedAdvice(BTreeMap<usize, Advice>);

impl Default for PagedAdvice {
    fn default() -> Self {
        Self(BTreeMap::from([(0, Advice::default())]))
    }
}

impl PagedAdvice {
    /// Splits the run holding `off` so that a run starts there.
    fn split(&mut self, off: usize) {
        if !self.0.contains_key(&off)
            && let Some((_, a)) = self.0.range(..off).next_back()
        {
            let a = a.clone();
            self.0.insert(off, a);
        }
    }

    /// The page-aligned bounds of `off..off+len`, rounded outwards.
    fn pages(off: usize, len: usize) -> (usize, usize) {
        (off - off % ADVICE_PAGE, (off + len).div_ceil(ADVICE_PAGE) * ADVICE_PAGE)
    }

    /// Applies `f` to the pages `off..off+len` touches.
    pub fn apply(&mut self, off: usize, len: usize, f: impl Fn(&mut Advice)) {
        let (start, end) = Self::pages(off, len);
        self.split(start);
        self.split(end);
        self.0.range_mut(start..end).for_each(|(_, a)| f(a));
    }

    /// The advice of every run the pages of `off..off+len` touch.
    pub fn runs(&self, off: usize, len: usize) -> Vec<&Advice> {
        let (start, end) = Self::pages(off, len);
        let first = self.0.range(..=start).next_back().map(|(&k, _)| k).unwrap_or(0);
        self.0.range(first..end).map(|(_, a)| a).collect()
    }
}

/// A host range HIP knows besides hipHostMalloc buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HostRange {
    pub len: usize,
    /// The hipHostRegister or hipMallocManaged flags.
    pub flags: u32,
    /// The device current when it was made.
    pub device: u32,
    /// `Some` for managed memory.
    pub managed: Option<PagedAdvice>,
}

/// A HIP array (`array.rs`): hipMalloc memory of `rows × slices` rows of
/// `pitch` bytes, packed, and what it was made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ArrayRec {
    /// Its memory (a hipMalloc allocation of the process).
    pub mem: usize,
    /// Bytes per element.
    pub elem: usize,
    /// The descriptor it was made with (Height 0: one row; Depth 0: one slice).
    pub desc: vmmkit_sys::hip::HIP_ARRAY3D_DESCRIPTOR,
}

impl ArrayRec {
    /// Bytes per row.
    pub fn pitch(&self) -> usize {
        self.desc.Width * self.elem
    }

    /// Rows per slice.
    pub fn rows(&self) -> usize {
        self.desc.Height.max(1)
    }
}

/// The memory state of one process.
#[derive(Debug, Default)]
pub(super) struct MemState {
    ranges: Mutex<BTreeMap<usize, HostRange>>,
    /// HIP arrays by handle, and the next handle's number.
    arrays: Mutex<(HashMap<usize, ArrayRec>, usize)>,
    flags: Mutex<HashMap<usize, u32>>,
    sync_memops: Mutex<HashSet<usize>>,
    /// Buffer ids ([HIP-MEM-004](vmmkit_sys::hip::rules::MEM_004)).
    buffer_ids: Mutex<BufferIds>,
}

/// Buffer ids by allocation start: the allocation's identity and its id;
/// and the last id given.
type BufferIds = (BTreeMap<usize, (u64, u32)>, u32);

/// The top bits of every array handle: a non-canonical x86-64 address, so no
/// handle is ever memory.
const ARRAY_TAG: usize = 0xa77a_0000_0000_0000;

/// Whether a range of `ranges` overlaps `base..base+len`.
fn overlap(ranges: &BTreeMap<usize, HostRange>, base: usize, len: usize) -> bool {
    let end = base.saturating_add(len);
    ranges.range(..end).next_back().is_some_and(|(&b, r)| b + r.len > base)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while it was held (caught at the FFI edge) left the value as
    // it was at that point; it stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl MemState {
    /// The registered or managed range holding `p`: its start and what it is.
    pub fn range_at(&self, p: usize) -> Option<(usize, HostRange)> {
        let r = lock(&self.ranges);
        let (&base, range) = r.range(..=p).next_back()?;
        (p < base + range.len).then(|| (base, range.clone()))
    }

    /// Whether `base..base+len` overlaps a registered or managed range.
    pub fn overlaps(&self, base: usize, len: usize) -> bool {
        overlap(&lock(&self.ranges), base, len)
    }

    /// Records a registered or managed range.
    pub fn insert(&self, base: usize, range: HostRange) {
        lock(&self.ranges).insert(base, range);
    }

    /// Records a range unless it overlaps one already recorded (checked and
    /// recorded under one lock, so two threads cannot both register it).
    pub fn insert_new(&self, base: usize, range: HostRange) -> bool {
        let mut r = lock(&self.ranges);
        if overlap(&r, base, range.len) {
            return false;
        }
        r.insert(base, range);
        true
    }

    /// Forgets the range that starts at `base`; returns it.
    pub fn remove(&self, base: usize) -> Option<HostRange> {
        self.forget(base);
        lock(&self.ranges).remove(&base)
    }

    /// Changes the advice of the pages that `off..off+len` of the managed
    /// allocation starting at `base` touches.
    pub fn advise(&self, base: usize, off: usize, len: usize, f: impl Fn(&mut Advice)) {
        if let Some(a) = lock(&self.ranges).get_mut(&base).and_then(|r| r.managed.as_mut()) {
            a.apply(off, len, f);
        }
    }

    /// Records the flags an allocation starting at `base` was made with.
    pub fn note_flags(&self, base: usize, flags: u32) {
        lock(&self.flags).insert(base, flags);
    }

    /// The flags of the allocation starting at `base` (0 when none were noted).
    pub fn flags(&self, base: usize) -> u32 {
        lock(&self.flags).get(&base).copied().unwrap_or(0)
    }

    /// Sets or clears SYNC_MEMOPS of the allocation starting at `base`.
    pub fn set_sync_memops(&self, base: usize, on: bool) {
        let mut s = lock(&self.sync_memops);
        if on {
            s.insert(base);
        } else {
            s.remove(&base);
        }
    }

    /// Whether SYNC_MEMOPS is set for the allocation starting at `base`.
    pub fn sync_memops(&self, base: usize) -> bool {
        lock(&self.sync_memops).contains(&base)
    }

    /// Records an array; returns its handle: a tagged number, never an
    /// address (arrays are opaque; vmmkit looks handles up).
    pub fn add_array(&self, rec: ArrayRec) -> usize {
        let mut a = lock(&self.arrays);
        a.1 += 1;
        let handle = ARRAY_TAG | (a.1 << 4);
        a.0.insert(handle, rec);
        handle
    }

    /// The array of `handle`.
    pub fn array(&self, handle: usize) -> Option<ArrayRec> {
        lock(&self.arrays).0.get(&handle).copied()
    }

    /// Forgets the array of `handle`; returns it.
    pub fn remove_array(&self, handle: usize) -> Option<ArrayRec> {
        lock(&self.arrays).0.remove(&handle)
    }

    /// Forgets the flags, SYNC_MEMOPS and arrays of allocations that are
    /// gone without a free (hipDeviceReset releases the device's memory):
    /// keeps those whose start `live` says is still memory HIP knows.
    pub fn retain_live(&self, live: impl Fn(usize) -> bool) {
        lock(&self.flags).retain(|&base, _| live(base));
        lock(&self.sync_memops).retain(|&base| live(base));
        lock(&self.buffer_ids).0.retain(|&base, _| live(base));
        lock(&self.arrays).0.retain(|_, a| live(a.mem));
    }

    /// Forgets the flags and SYNC_MEMOPS of a freed allocation.
    pub fn forget(&self, base: usize) {
        lock(&self.flags).remove(&base);
        lock(&self.sync_memops).remove(&base);
        lock(&self.buffer_ids).0.remove(&base);
    }

    /// The buffer id of the allocation that starts at `base` and is known
    /// by `identity` (what tells it from an earlier allocation at the same
    /// address: its generation, its handle): the one it was given, or the
    /// next of a process-wide count, as clr's `numAllocs` ([HIP-MEM-004](vmmkit_sys::hip::rules::MEM_004)). An
    /// id is never given twice: a freed allocation's goes with it. After
    /// 2^32 − 1 ids the count stays at its last (clr's wraps).
    pub fn buffer_id(&self, base: usize, identity: u64) -> u32 {
        let mut g = lock(&self.buffer_ids);
        let (ids, last) = &mut *g;
        match ids.get(&base) {
            Some(&(known, id)) if known == identity => id,
            _ => {
                *last = last.saturating_add(1);
                ids.insert(base, (identity, *last));
                *last
            }
        }
    }
}
