//! Reservations and mappings of device virtual addresses.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::os::vm::Reservation;
use crate::registry::{Place, Registry};

use super::physical::unref;
use super::{CoreError, Emulator, HandleId, Tables};

/// A window of the address space where reservations are placed.
#[derive(Debug, Clone)]
pub struct Window(pub Range<usize>);

/// Where every device address lies: [16 TiB, 24 TiB), ACL's window (acl.md
/// §2.6, [ACL-RSV-008](vmmkit_sys::acl::rules::RSV_008)), used by every dialect. Host heaps and libraries are
/// never placed there by the kernel (it maps from the top of the 128 TiB
/// user space down), so an address in it is a device address, mapped or not.
pub const DEVICE_WINDOW: Window = Window(0x1000_0000_0000..0x1800_0000_0000);

/// A page the emulator reserves in each process, once, before the first
/// reservation: the last page of the window's first 512 GiB (the span of one
/// top-level page-table entry on x86-64 and arm64 with 4 KiB pages).
///
/// Mapping over a whole reservation and putting reserved pages back
/// (`mmap(MAP_FIXED)` twice, each map + unmap cycle) lets the kernel free
/// the page tables between the mapping's neighbours. A reservation alone in
/// its 512 GiB region, as the window's are (host mappings lie near 128 TiB),
/// has no neighbour there, so every cycle frees and rebuilds the upper
/// page-table levels and flushes the TLB: measured 2.7–3.4 µs per cycle
/// of a 2 MiB map at 16 TiB, against 1.0–1.2 µs with a page reserved
/// elsewhere in the same 512 GiB region, not adjacent (an adjacent one
/// costs more, by merging with the reserved pages put back). The anchor
/// gives every reservation in the first 512 GiB of the window such a
/// neighbour; it is never mapped or released, and a reservation asked for
/// over it is refused as any range already in use is.
pub const WINDOW_ANCHOR: usize = DEVICE_WINDOW.0.start + (512 << 30) - 4096;

/// Reserves [`WINDOW_ANCHOR`] once per process (what is already there, or
/// a failure, leaves it as it is: the anchor is only a speed-up).
fn anchor_window() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = Reservation::forever(WINDOW_ANCHOR);
    });
}

/// A reservation of this process.
#[derive(Debug)]
pub(super) struct Rsv {
    pub(super) range: Reservation,
    /// The device whose memory it holds, fixed by the first map ([ACL-MAP-010](vmmkit_sys::acl::rules::MAP_010)).
    pub(super) bound: Option<Place>,
    /// Made for a plain allocation (aclrtMalloc, hipMalloc): not releasable as a reservation.
    pub(super) plain: bool,
    /// The entry point that made it.
    pub(super) created_by: &'static str,
}

/// A mapping of physical memory into a reservation.
#[derive(Debug, Clone)]
pub struct Mapping {
    /// Bytes mapped.
    pub len: usize,
    /// The handle mapped.
    pub handle: HandleId,
    /// Start of the reservation it lies in.
    pub rsv: usize,
    /// Access granted: (location, flags, size of the grant).
    pub access: Vec<(Place, u32, usize)>,
    /// The entry point that made it.
    pub created_by: &'static str,
}

/// How the size of a mapping must compare with its physical memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapSize {
    /// Exactly the physical size (ACL).
    Exact,
    /// Up to the physical size: a partial map (CUDA, HIP).
    UpTo,
}

/// Which reservations a release may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Releasable {
    /// Only those the program reserved (not a plain allocation's range).
    Reserved,
    /// Any, plain allocations' ranges too (a free, a reset).
    Any,
}

/// A reservation's extent and binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservationInfo {
    /// First address.
    pub base: usize,
    /// Bytes.
    pub len: usize,
    /// Bound device.
    pub bound: Option<Place>,
}

/// The mapping that contains `va`, with its start.
pub(super) fn mapping_at(t: &Tables, va: usize) -> Option<(usize, &Mapping)> {
    let (&start, m) = t.maps.range(..=va).next_back()?;
    (va < start + m.len).then_some((start, m))
}

/// The reservation that contains `va`, with its start.
fn reservation_at(rsvs: &BTreeMap<usize, Rsv>, va: usize) -> Option<(usize, &Rsv)> {
    let (&start, r) = rsvs.range(..=va).next_back()?;
    r.range.contains(va, 1).then_some((start, r))
}

/// Alignment of a reservation of `len` bytes: the largest power of two not
/// above `len`, between `min` and 1 GiB, so that any granule that divides
/// the size can be mapped at its start.
pub fn natural_align(len: usize, min: usize) -> usize {
    let p = if len.is_power_of_two() { len } else { (len.next_power_of_two()) >> 1 };
    p.clamp(min, 1 << 30)
}

pub(super) fn unmap(t: &mut Tables, reg: &Registry, va: usize) -> Result<(), CoreError> {
    let Some(m) = t.maps.get(&va) else { return Err(CoreError::NotMapped(va)) };
    let (len, handle, rsv) = (m.len, m.handle, m.rsv);
    if let Some(r) = t.reservations.get(&rsv) {
        r.range.unmap(va, len)?;
    }
    t.maps.remove(&va);
    if let Some(p) = t.handles.get_mut(&handle) {
        p.map_refs = p.map_refs.saturating_sub(1);
    }
    unref(t, reg, handle);
    Ok(())
}

pub(super) fn release(t: &mut Tables, reg: &Registry, base: usize, which: Releasable) -> Result<(), CoreError> {
    match t.reservations.get(&base) {
        Some(r) if which == Releasable::Any || !r.plain => {}
        _ => return Err(CoreError::NotReservationStart(base)),
    }
    let end = base + t.reservations[&base].range.len();
    let inside: Vec<usize> = t.maps.range(base..end).map(|(&va, _)| va).collect();
    for va in inside {
        unmap(t, reg, va)?;
    }
    t.reservations.remove(&base);
    // The window below `base` may have room again.
    t.window_floor = t.window_floor.min(base);
    Ok(())
}

impl Emulator {
    /// Reserves `len` bytes aligned to `align`, in `window`, at `hint` when given.
    pub fn reserve(&self, len: usize, align: usize, hint: Option<usize>, window: &Window) -> Result<usize, CoreError> {
        anchor_window();
        let mut t = self.lock();
        let range = match hint {
            Some(addr) => Reservation::at(addr, len).map_err(|e| match e.raw_os_error() {
                Some(libc::EEXIST) => CoreError::AlreadyMapped { addr, size: len, existing: addr },
                _ if e.kind() == std::io::ErrorKind::AddrInUse => {
                    CoreError::AlreadyMapped { addr, size: len, existing: addr }
                }
                _ => CoreError::from(e),
            })?,
            None => place_in_window(&t.reservations, t.window_floor, len, align, &window.0)?,
        };
        let base = range.base();
        t.reservations
            .insert(base, Rsv { range, bound: None, plain: false, created_by: super::thread::current_call() });
        // Past the reservations that now follow on from the floor without a gap.
        let mut floor = t.window_floor.max(DEVICE_WINDOW.0.start);
        while let Some((b, r)) = reservation_at(&t.reservations, floor) {
            floor = b + r.range.len();
        }
        t.window_floor = floor;
        Ok(base)
    }

    /// Releases the reservation starting at `base`, unmapping what is still mapped in it.
    pub fn release(&self, base: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        release(&mut t, &self.registry, base, Releasable::Reserved)
    }

    /// Reserves `len` bytes aligned to `align` in `window`: at `hint` when it
    /// is nonzero, aligned and inside the window and the range there is free,
    /// elsewhere otherwise (`hipMemAddressReserve`, `cuMemAddressReserve`:
    /// the address is only a hint).
    ///
    /// # Errors
    /// Those of [`Emulator::reserve`] anywhere in the window.
    pub fn reserve_near(&self, len: usize, align: usize, hint: usize, window: &Window) -> Result<usize, CoreError> {
        let usable = hint != 0
            && hint % align == 0
            && hint >= window.0.start
            && hint.checked_add(len).is_some_and(|end| end <= window.0.end);
        match usable.then(|| self.reserve(len, align, Some(hint), window)) {
            Some(Ok(base)) => Ok(base),
            _ => self.reserve(len, align, None, window),
        }
    }

    /// Maps all of `handle` into a new reservation of its own in `window`,
    /// aligned to its size (at least `granule`), and hands the caller's
    /// reference over to the mapping. Returns the address (IPC opens and
    /// imports that the program does not place).
    ///
    /// # Errors
    /// Those of describing the handle, reserving and mapping; the reference
    /// is dropped in every case.
    pub fn map_anywhere(&self, handle: HandleId, granule: usize, window: &Window) -> Result<usize, CoreError> {
        let mapped = self.describe(handle).and_then(|info| {
            let len = info.size as usize;
            self.reserve(len, natural_align(len, granule.max(info.granule as usize)), None, window).and_then(|va| {
                self.map(va, len, handle, MapSize::Exact).map(|()| va).inspect_err(|_| drop(self.release(va)))
            })
        });
        let _ = self.free(handle); // the mapping holds it from now on
        mapped
    }

    /// Maps `size` bytes of `handle` at `va` (inside a reservation), as
    /// large as [`MapSize`] says.
    pub fn map(&self, va: usize, size: usize, handle: HandleId, fit: MapSize) -> Result<(), CoreError> {
        self.map_in(va, size, handle, fit, true)
    }

    /// As [`Emulator::map`] ([`MapSize::UpTo`]), into a reservation that holds
    /// memory of any device side by side (CUDA: a reservation is not tied to
    /// a device; cuda-samples `vectorAddMMAP` stripes one range over several
    /// GPUs). The reservation is not bound to the handle's device.
    pub fn map_unbound(&self, va: usize, size: usize, handle: HandleId) -> Result<(), CoreError> {
        self.map_in(va, size, handle, MapSize::UpTo, false)
    }

    fn map_in(&self, va: usize, size: usize, handle: HandleId, fit: MapSize, bind: bool) -> Result<(), CoreError> {
        let mut t = self.lock();
        let t = &mut *t;
        let Some(p) = t.handles.get(&handle) else { return Err(CoreError::UnknownHandle(handle.0)) };
        let (granule, phys_size, owner) = (p.granule as usize, p.size as usize, p.owner);
        let Some((rsv_base, rsv)) = reservation_at(&t.reservations, va) else {
            return Err(CoreError::NotReserved(va));
        };
        let rsv_end = rsv_base + rsv.range.len();
        if va % granule != 0 {
            return Err(CoreError::Misaligned { what: "address", value: va as u64, align: granule as u64 });
        }
        if size % granule != 0 {
            return Err(CoreError::Misaligned { what: "size", value: size as u64, align: granule as u64 });
        }
        if va.checked_add(size).is_none_or(|e| e > rsv_end) {
            return Err(CoreError::PastReservationEnd { addr: va, size, end: rsv_end });
        }
        let end = va.saturating_add(size).min(rsv_end);
        let overlap = match t.maps.range(..end).next_back() {
            Some((&s, m)) if s + m.len > va => Some(s),
            _ => None,
        };
        if let Some(existing) = overlap {
            return Err(CoreError::AlreadyMapped { addr: va, size, existing });
        }
        if size > phys_size || (fit == MapSize::Exact && size != phys_size) {
            return Err(CoreError::SizeMismatch { size: size as u64, physical: phys_size as u64 });
        }
        if let Some(bound) = rsv.bound.filter(|_| bind)
            && bound != owner
        {
            return Err(CoreError::WrongDevice { bound, handle: owner });
        }
        let len = size.min(phys_size).min(rsv_end - va);
        let p = t.handles.get(&handle).expect("checked above");
        let (object, offset) = p.backing.file();
        rsv.range.map(va, len, object, offset, self.config.host_access)?;
        if bind {
            t.reservations.get_mut(&rsv_base).expect("found above").bound.get_or_insert(owner);
        }
        t.maps.insert(
            va,
            Mapping { len, handle, rsv: rsv_base, access: Vec::new(), created_by: super::thread::current_call() },
        );
        let p = t.handles.get_mut(&handle).expect("checked above");
        p.refs += 1;
        p.map_refs += 1;
        if p.key().is_some() {
            self.set_sharing();
        }
        Ok(())
    }

    /// Adds a reference to the handle mapped at `va`, and returns it.
    pub fn retain(&self, va: usize) -> Result<HandleId, CoreError> {
        let mut t = self.lock();
        let id = match mapping_at(&t, va) {
            Some((_, m)) => m.handle,
            None => return Err(CoreError::NotMapped(va)),
        };
        let p = t.handles.get_mut(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        p.refs += 1;
        p.retains += 1;
        Ok(id)
    }

    /// Unmaps the mapping that starts at `va`.
    pub fn unmap(&self, va: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        if !t.maps.contains_key(&va) {
            return Err(CoreError::NotMapped(va));
        }
        let start = match mapping_at(&t, va) {
            Some((s, _)) => s,
            None => return Err(CoreError::NotMapped(va)),
        };
        unmap(&mut t, &self.registry, start)
    }

    /// Grants `flags` to `loc` over `va..va+size`, which must be covered by mappings.
    pub fn set_access(&self, va: usize, size: usize, loc: Place, flags: u32) -> Result<(), CoreError> {
        let mut t = self.lock();
        let starts = covering_maps(&t, va, size);
        let Some(starts) = starts.filter(|s| !s.is_empty()) else {
            return Err(CoreError::NotMapped(va));
        };
        for s in &starts {
            let m = &t.maps[s];
            let conflict = m.access.iter().any(|&(l, f, sz)| l == loc && (f != flags || sz != size));
            if conflict {
                return Err(CoreError::AccessConflict(loc));
            }
        }
        for s in starts {
            let m = t.maps.get_mut(&s).expect("listed above");
            if !m.access.iter().any(|&(l, _, _)| l == loc) {
                m.access.push((loc, flags, size));
            }
        }
        Ok(())
    }

    /// The access flags `loc` has on the mapping at `va`: `owner_flags` for
    /// the device that owns the memory, the granted flags, or 0.
    pub fn get_access(&self, va: usize, loc: Place, owner_flags: u32) -> Result<u32, CoreError> {
        let t = self.lock();
        let (_, m) = mapping_at(&t, va).ok_or(CoreError::NotMapped(va))?;
        if let Some(&(_, f, _)) = m.access.iter().find(|&&(l, _, _)| l == loc) {
            return Ok(f);
        }
        let owner = t.handles.get(&m.handle).map(|p| p.owner);
        Ok(if owner == Some(loc) { owner_flags } else { 0 })
    }

    /// Base and size of the mapping that contains `va`.
    pub fn address_range(&self, va: usize) -> Result<(usize, usize), CoreError> {
        let t = self.lock();
        mapping_at(&t, va).map(|(s, m)| (s, m.len)).ok_or(CoreError::NotMapped(va))
    }

    /// The mapping that contains `va` (start, mapping), if any.
    pub fn mapping(&self, va: usize) -> Option<(usize, Mapping)> {
        let t = self.lock();
        mapping_at(&t, va).map(|(s, m)| (s, m.clone()))
    }

    /// The reservation that contains `va`, if any.
    pub fn reservation(&self, va: usize) -> Option<ReservationInfo> {
        let t = self.lock();
        reservation_at(&t.reservations, va).map(|(base, r)| ReservationInfo {
            base,
            len: r.range.len(),
            bound: r.bound,
        })
    }

    /// Whether `va` starts a reservation.
    pub fn is_reservation_start(&self, va: usize) -> bool {
        self.lock().reservations.contains_key(&va)
    }

    /// Allocates plain device memory: a physical handle mapped into a
    /// reservation of its own, held by the mapping only. Returns the address.
    pub fn alloc_plain(
        &self,
        place: Place,
        size: u64,
        granule: u64,
        props: [u64; 4],
        window: &Window,
    ) -> Result<usize, CoreError> {
        let len = size as usize;
        // The address first: the memory's range in the arena follows it,
        // so that neighbouring allocations make one mapping (`backing.rs`).
        let va = self.reserve(len, natural_align(len, granule as usize), None, window)?;
        let h = match self.create_for(place, size, granule, props, Some(va)) {
            Ok(h) => h,
            Err(e) => {
                let _ = self.release(va);
                return Err(e);
            }
        };
        if let Err(e) = self.map(va, len, h, MapSize::Exact) {
            let _ = self.release(va);
            let _ = self.free(h);
            return Err(e);
        }
        let mut t = self.lock();
        if let Some(r) = t.reservations.get_mut(&va) {
            r.plain = true;
        }
        unref(&mut t, &self.registry, h);
        Ok(va)
    }

    /// Whether `va` is the start of a plain allocation.
    pub fn is_plain(&self, va: usize) -> bool {
        self.lock().reservations.get(&va).is_some_and(|r| r.plain)
    }

    /// The plain allocation containing `va`: its start and size.
    pub fn plain_at(&self, va: usize) -> Option<(usize, usize)> {
        let t = self.lock();
        reservation_at(&t.reservations, va).filter(|(_, r)| r.plain).map(|(b, r)| (b, r.range.len()))
    }

    /// Frees the plain allocation that starts at `va`.
    pub fn free_plain(&self, va: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        match t.reservations.get(&va) {
            Some(r) if r.plain => release(&mut t, &self.registry, va, Releasable::Any),
            _ => Err(CoreError::NotReservationStart(va)),
        }
    }
}

/// Starts of the mappings that together cover `va..va+size` without gaps, or
/// `None` if some byte of it is not mapped.
fn covering_maps(t: &Tables, va: usize, size: usize) -> Option<Vec<usize>> {
    let end = va.checked_add(size)?;
    let mut at = va;
    let mut out = Vec::new();
    while at < end {
        let (s, m) = mapping_at(t, at)?;
        out.push(s);
        at = s + m.len;
    }
    Some(out)
}

/// Finds room for `len` bytes aligned to `align` in `window`, first fit, and
/// reserves it. The device window below `floor` is known to be reserved
/// whole (`Tables::window_floor`): the search starts there, so that a
/// process holding n allocations finds room without walking all of them
/// (100,000 `hipMalloc` allocations took minutes walking from the start).
fn place_in_window(
    rsvs: &BTreeMap<usize, Rsv>,
    floor: usize,
    len: usize,
    align: usize,
    window: &Range<usize>,
) -> Result<Reservation, CoreError> {
    let exhausted =
        || CoreError::HostExhausted(format!("no free range of {len:#x} bytes in the device address window"));
    if len > window.end - window.start {
        return Err(exhausted());
    }
    let from = if (DEVICE_WINDOW.0.start..floor).contains(&window.start) { floor } else { window.start };
    let mut at = from.next_multiple_of(align);
    // The reservation that holds `from`, if one does, then those after it.
    let first = rsvs.range(..from).next_back().map(|(&b, r)| (b, b + r.range.len()));
    let mut taken = first.into_iter().chain(rsvs.range(from..).map(|(&b, r)| (b, b + r.range.len()))).peekable();
    // Skip the reservations that end before the candidate.
    loop {
        while let Some(&(b, e)) = taken.peek() {
            if e <= at {
                taken.next();
            } else if b < at + len {
                at = e.next_multiple_of(align);
                taken.next();
            } else {
                break;
            }
        }
        let end = at.checked_add(len).ok_or_else(exhausted)?;
        if end > window.end {
            return Err(exhausted());
        }
        match Reservation::at(at, len) {
            Ok(r) => return Ok(r),
            // Something else of this process sits there: step over it.
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) || e.kind() == std::io::ErrorKind::AddrInUse => {
                at = (at + align).next_multiple_of(align)
            }
            // Anything else (ENOMEM: vm.max_map_count reached) fails the same
            // way at every address: stepping through the window would only take seconds.
            Err(e) => return Err(e.into()),
        }
    }
}
