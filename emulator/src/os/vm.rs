//! Virtual address space: `PROT_NONE` reservations, fixed shared maps of
//! objects into them, and the emulator's private host views of objects.
//!
//! Every mapping made here is unmapped only here: a reservation's range is
//! owned by [`Reservation`], whose `Drop` is the one `munmap` of the range, and
//! maps inside it replace pages with `MAP_FIXED`, never unmap them.

use std::ffi::c_void;
use std::io;
use std::ptr::NonNull;

use rustix::mm::{MapFlags, MsyncFlags, ProtFlags, mmap, mmap_anonymous, msync, munmap};

use super::object::Object;

/// A range of reserved (`PROT_NONE`) address space. Dropping it unmaps the whole range.
#[derive(Debug)]
pub struct Reservation {
    base: NonNull<c_void>,
    len: usize,
}

// SAFETY: a reservation is an address range, not memory that Rust reads; it
// may be released from any thread.
unsafe impl Send for Reservation {}
// SAFETY: as above; `&Reservation` only gives out addresses.
unsafe impl Sync for Reservation {}

impl Reservation {
    /// Reserves one page at `addr` for the rest of the process's life (the
    /// range is never unmapped): a neighbour that keeps the kernel's upper
    /// page-table levels for its region (see [`crate::core::DEVICE_WINDOW`]'s
    /// anchor). Fails with `EEXIST` when the page is mapped already.
    pub fn forever(addr: usize) -> io::Result<()> {
        let page = rustix::param::page_size();
        let r = Self::at(addr, page)?;
        std::mem::forget(r);
        Ok(())
    }

    /// Reserves `len` bytes at exactly `addr`, failing with `EEXIST` if any of
    /// the range is already mapped (`MAP_FIXED_NOREPLACE`).
    pub fn at(addr: usize, len: usize) -> io::Result<Self> {
        // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping, so
        // no memory that anything else uses is affected.
        let p = unsafe {
            mmap_anonymous(
                addr as *mut c_void,
                len,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE | MapFlags::FIXED_NOREPLACE,
            )
        }?;
        if p as usize != addr {
            // Kernels before 4.17 treat the flag as a hint; give the range back.
            // SAFETY: `p..p+len` is the mapping just made, owned by nothing else.
            let _ = unsafe { munmap(p, len) };
            return Err(io::ErrorKind::AddrInUse.into());
        }
        Ok(Self { base: NonNull::new(p).ok_or(io::ErrorKind::AddrNotAvailable)?, len })
    }

    /// First address.
    pub fn base(&self) -> usize {
        self.base.as_ptr() as usize
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether `addr..addr+len` lies inside this reservation.
    pub fn contains(&self, addr: usize, len: usize) -> bool {
        addr >= self.base() && addr.checked_add(len).is_some_and(|end| end <= self.base() + self.len)
    }

    /// Maps `len` bytes of `object` from byte `offset` (a multiple of the
    /// page size) at `addr`, shared, in place of reserved pages or of what
    /// the emulator mapped there before.
    ///
    /// The caller has checked that `addr..addr+len` lies inside this
    /// reservation; [`Reservation::contains`] is asserted.
    pub fn map(&self, addr: usize, len: usize, object: &Object, offset: u64, writable_by_host: bool) -> io::Result<()> {
        assert!(self.contains(addr, len), "map outside its reservation");
        let prot = if writable_by_host { ProtFlags::READ | ProtFlags::WRITE } else { ProtFlags::empty() };
        // SAFETY: the range lies inside this reservation (asserted), which only
        // this emulator maps into; MAP_FIXED replaces reserved or emulator-mapped pages only.
        unsafe { mmap(addr as *mut c_void, len, prot, MapFlags::SHARED | MapFlags::FIXED, object, offset) }?;
        Ok(())
    }

    /// Puts reserved (`PROT_NONE`) pages back over `addr..addr+len`.
    pub fn unmap(&self, addr: usize, len: usize) -> io::Result<()> {
        assert!(self.contains(addr, len), "unmap outside its reservation");
        // SAFETY: as in `map`; the range becomes inaccessible but stays reserved.
        unsafe {
            mmap_anonymous(
                addr as *mut c_void,
                len,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE | MapFlags::FIXED,
            )
        }?;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: `base..base+len` came from our mmap in `at`/`anywhere`; maps
        // inside it were laid over it with MAP_FIXED, so nothing else unmaps this range.
        let r = unsafe { munmap(self.base.as_ptr(), self.len) };
        debug_assert!(r.is_ok(), "munmap of a reservation: {r:?}");
    }
}

/// The emulator's own read-write view of a whole object, for copies.
///
/// It hands out raw pointers only: another process may write the same pages
/// at any time, so no `&[u8]` is ever made over them (as memmap2's `MmapRaw`).
#[derive(Debug)]
pub struct HostView {
    map: memmap2::MmapRaw,
}

impl HostView {
    /// Maps the first `len` bytes of `object` read-write, shared.
    pub fn new(object: &Object, len: usize) -> io::Result<Self> {
        let map = memmap2::MmapOptions::new().len(len).map_raw(&object.fd())?;
        Ok(Self { map })
    }

    /// Pointer to byte `offset`; the caller keeps `offset + n <= len`.
    pub fn ptr(&self, offset: usize) -> *mut u8 {
        assert!(offset <= self.map.len());
        self.map.as_mut_ptr().wrapping_add(offset)
    }
}

/// Copies `n` bytes from `src` to `dst`; the ranges may overlap.
///
/// # Safety
/// Both ranges must be valid for `n` bytes (mapped, and writable for `dst`).
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: guaranteed by the caller.
    unsafe { std::ptr::copy(src, dst, n) }
}

/// Fills `n` bytes at `dst` with `value`.
///
/// # Safety
/// `dst..dst+n` must be valid for writes.
pub unsafe fn fill(dst: *mut u8, value: u8, n: usize) {
    // SAFETY: guaranteed by the caller.
    unsafe { std::ptr::write_bytes(dst, value, n) }
}

/// Whether every page of `addr..addr + len` is mapped in this process, by
/// anyone (heap, stack, files). `msync(MS_ASYNC)` reads and writes nothing,
/// and fails with `ENOMEM` where a page of the range is unmapped: one system
/// call, and no fault for an address that is not there. Protections are not
/// checked.
pub fn is_mapped(addr: usize, len: usize) -> bool {
    let page = rustix::param::page_size();
    let start = addr & !(page - 1);
    let Some(end) = addr.checked_add(len.max(1)) else { return false };
    // SAFETY: MS_ASYNC on any range is harmless: the kernel only looks the
    // range up (and schedules write-back of shared file pages, a no-op since 2.6.19).
    unsafe { msync(start as *mut c_void, end - start, MsyncFlags::ASYNC) }.is_ok()
}
