//! Copies and fills that may touch device memory: through the device
//! mappings themselves where the host may access device memory (the
//! default: they are read-write), else through the emulator's host views
//! (so they work whatever the protection of the device mapping).
//!
//! Host memory is not probed on the ordinary path: a host address is trusted
//! to be the caller's buffer, as the vendors' runtimes trust it, except where
//! its class says no process can have memory there ([`Side::Nowhere`]), and
//! where a dialect asks [`Emulator::is_host_mapped`] because the copy kind
//! named the address as device memory. Which side a copy kind
//! names is checked by the dialects against [`Emulator::side`] and
//! [`Emulator::is_device_range`]; the core refuses what it must never
//! dereference whatever the dialect checked.

use std::fmt;
use std::sync::OnceLock;

use crate::os::vm;

use super::space::mapping_at;
use super::{CoreError, Emulator, RowCopy, Tables, Work};

/// What an address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Device memory mapped by this process.
    Device,
    /// Inside a reservation or the device window, but not mapped.
    Unmapped,
    /// Not in any reservation: host memory (the caller's word for it).
    Host,
    /// An address taken for no memory: the low 64 KiB (or below
    /// `vm.mmap_min_addr`, where higher), the null page and its neighbours,
    /// or past the user address space.
    Nowhere,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Device => "device memory",
            Side::Unmapped => "a device address with nothing mapped",
            Side::Host => "host memory",
            Side::Nowhere => "an address taken for no memory",
        })
    }
}

/// The end of the user address space on every Linux this runs on: 56 bits
/// (x86-64 with 5-level paging; aarch64 stops at 52).
const USER_END: usize = 1 << 56;

/// The lowest address taken for host memory: 64 KiB, or `vm.mmap_min_addr`
/// (read once) where that is higher. The kernel refuses maps below
/// `vm.mmap_min_addr`; distributions set it to 64 KiB, and where it is lower
/// only a program that maps the low pages on purpose (a DOS emulator) has
/// memory there, so a stray small integer is never taken for a buffer.
fn user_start() -> usize {
    const LOW: usize = 64 << 10;
    static MIN: OnceLock<usize> = OnceLock::new();
    *MIN.get_or_init(|| {
        let sysctl = std::fs::read_to_string("/proc/sys/vm/mmap_min_addr").ok().and_then(|s| s.trim().parse().ok());
        sysctl.unwrap_or(LOW).max(LOW)
    })
}

fn side(t: &Tables, addr: usize) -> Side {
    if mapping_at(t, addr).is_some() {
        return Side::Device;
    }
    match t.reservations.range(..=addr).next_back() {
        Some((_, r)) if r.range.contains(addr, 1) => Side::Unmapped,
        _ if super::space::DEVICE_WINDOW.0.contains(&addr) => Side::Unmapped,
        _ if addr < user_start() || addr >= USER_END => Side::Nowhere,
        _ => Side::Host,
    }
}

/// Whether `at..end`, which starts at a host address, stays host memory to
/// its end: no reservation or device window inside, within the user space.
fn host_to_end(t: &Tables, at: usize, end: usize) -> bool {
    let window = &super::space::DEVICE_WINDOW.0;
    end <= USER_END && t.reservations.range(at..end).next().is_none() && (end <= window.start || at >= window.end)
}

/// How copies reach mapped device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Through the device mapping itself: the host may access device
    /// memory (`Config::host_access`), so every mapping is read-write
    /// (access grants are bookkeeping, never `mprotect`), and it stays
    /// mapped while the copy holds the table lock. No view to map.
    Mapping,
    /// Through the emulator's host view of the handle's object (made at the
    /// first copy): the device mappings are `PROT_NONE`.
    View,
}

/// A host pointer for `addr` and how many bytes from it are contiguous.
/// Copies `n` checked bytes from `src` to `dst` as `reach` reaches them,
/// piece by piece where a side crosses from one mapping to the next.
///
/// # Safety
/// Both ranges were checked with `check_range` under `t`; host parts must
/// be valid, as for `memmove`.
unsafe fn copy_resolved(t: &mut Tables, reach: Reach, dst: usize, src: usize, n: usize) -> Result<(), CoreError> {
    let mut done = 0;
    while done < n {
        let (d, dl) = resolve(t, reach, dst + done, n - done)?;
        let (s, sl) = resolve(t, reach, src + done, n - done)?;
        let chunk = dl.min(sl);
        // SAFETY: device parts point into read-write device mappings or
        // host views of at least `chunk` bytes (bounded by their mapping),
        // which stay while `t` is held; host parts are the caller's promise.
        unsafe { vm::copy(d, s, chunk) };
        done += chunk;
    }
    Ok(())
}

fn resolve(t: &mut Tables, reach: Reach, addr: usize, want: usize) -> Result<(*mut u8, usize), CoreError> {
    match mapping_at(t, addr) {
        Some((start, m)) => {
            let (len, handle) = (m.len, m.handle);
            let off = addr - start;
            if reach == Reach::Mapping {
                return Ok((addr as *mut u8, want.min(len - off)));
            }
            let p = t.handles.get_mut(&handle).ok_or(CoreError::UnknownHandle(handle.0))?;
            let view = p.view()?;
            Ok((view.wrapping_add(off), want.min(len - off)))
        }
        None => match side(t, addr) {
            Side::Host => Ok((addr as *mut u8, want)),
            Side::Nowhere => Err(CoreError::NotAddressable { addr, size: want }),
            _ => Err(CoreError::BadDeviceRange { addr, size: want }),
        },
    }
}

/// Checks that `n` bytes from `addr` can be copied, as `resolve` will walk
/// them: mapped device memory (whose host views are made here) up to the
/// first host byte, after which the rest is the caller's host memory, which
/// must not run into a reservation, the device window or past the user
/// address space; a reserved-but-unmapped or window address fails, and so
/// does one no process can map. Both ends are checked before any byte
/// moves, so a copy or fill that fails changes nothing.
fn check_range(t: &mut Tables, reach: Reach, addr: usize, n: usize) -> Result<(), CoreError> {
    let bad = || CoreError::BadDeviceRange { addr, size: n };
    let end = addr.checked_add(n).ok_or_else(bad)?;
    let mut at = addr;
    while at < end {
        let Some((start, m)) = mapping_at(t, at) else {
            return match side(t, at) {
                Side::Host if host_to_end(t, at, end) => Ok(()),
                Side::Nowhere => Err(CoreError::NotAddressable { addr, size: n }),
                Side::Host if end > USER_END => Err(CoreError::NotAddressable { addr, size: n }),
                _ => Err(bad()),
            };
        };
        let (len, handle) = (m.len, m.handle);
        if reach == Reach::View {
            t.handles.get_mut(&handle).ok_or(CoreError::UnknownHandle(handle.0))?.view()?;
        }
        at = start + len;
    }
    Ok(())
}

impl Emulator {
    /// What `addr` is: mapped device memory, reserved but unmapped, host
    /// memory, or an address no process can map.
    pub fn side(&self, addr: usize) -> Side {
        side(&self.lock(), addr)
    }

    /// Whether `addr..addr+n`, host memory by its address, is mapped at all in
    /// this process ([`vm::is_mapped`]). For the dialects whose copy kind
    /// names a host address as device memory: the vendor's driver takes it
    /// for host memory and faults where nothing is mapped, so the emulator
    /// looks before it dereferences (one `msync`, on that path only).
    pub fn is_host_mapped(&self, addr: usize, n: usize) -> bool {
        vm::is_mapped(addr, n)
    }

    /// Whether `addr..addr+n` is wholly mapped device memory.
    pub fn is_device_range(&self, addr: usize, n: usize) -> bool {
        let t = self.lock();
        let mut at = addr;
        let Some(end) = addr.checked_add(n) else { return false };
        while at < end {
            match mapping_at(&t, at) {
                Some((s, m)) => at = s + m.len,
                None => return false,
            }
        }
        true
    }

    /// Copies `n` bytes from `src` to `dst`; either may be device memory
    /// (possibly across several mappings) or host memory. A host copy that
    /// races a stream's access (nothing orders either before the other) is
    /// reported as unsynchronised (and fails under `VMMKIT_HAZARDS=error`).
    ///
    /// # Safety
    /// Host parts of both ranges must be valid for `n` bytes, as for `memmove`.
    pub unsafe fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), CoreError> {
        self.check_host_access(src, n, false)?;
        self.check_host_access(dst, n, true)?;
        // SAFETY: the caller's promise.
        unsafe { self.copy_raw(dst, src, n) }
    }

    /// Checks that `addr..addr+n` can be copied to or from, as a copy does
    /// first: for work a dialect enqueues on a stream, refused at the call.
    ///
    /// # Errors
    /// As [`Emulator::copy`]'s range checks.
    pub fn check_copy_range(&self, addr: usize, n: usize) -> Result<(), CoreError> {
        check_range(&mut self.lock(), self.reach(), addr, n)
    }

    /// How this emulator's copies reach device memory.
    fn reach(&self) -> Reach {
        if self.config.host_access { Reach::Mapping } else { Reach::View }
    }

    /// [`Emulator::copy`] without looking at pending stream writes (a stream's own work).
    ///
    /// # Safety
    /// As [`Emulator::copy`].
    pub(crate) unsafe fn copy_raw(&self, dst: usize, src: usize, n: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        let reach = self.copy_reach(&t, dst, src);
        check_range(&mut t, reach, dst, n)?;
        check_range(&mut t, reach, src, n)?;
        // SAFETY: the ranges are checked; host parts are the caller's promise.
        unsafe { copy_resolved(&mut t, reach, dst, src, n) }
    }

    /// How a copy from `src` to `dst` reaches them: device to device goes
    /// through the views, as before: two mappings of one handle are two
    /// addresses of the same pages, and only the handle's one view lets
    /// `ptr::copy` see that they overlap.
    fn copy_reach(&self, t: &Tables, dst: usize, src: usize) -> Reach {
        match self.reach() {
            Reach::Mapping if mapping_at(t, dst).is_some() && mapping_at(t, src).is_some() => Reach::View,
            r => r,
        }
    }

    /// Copies the rows of `c`, as [`Emulator::copy`] copies each: a host
    /// copy that races a stream's access to either side's span (from its
    /// first row's start to its last row's end) is reported.
    ///
    /// # Safety
    /// Host parts of the rows must be valid, as for `memmove`.
    pub unsafe fn copy_rows(&self, c: RowCopy) -> Result<(), CoreError> {
        let (src_span, dst_span) = c.spans();
        self.check_host_access(c.src, src_span, false)?;
        self.check_host_access(c.dst, dst_span, true)?;
        // SAFETY: the caller's promise.
        unsafe { self.copy_rows_raw(c) }
    }

    /// [`Emulator::copy_rows`] without looking at pending stream accesses:
    /// every row of both sides is checked before any byte moves, then all
    /// are copied under one hold of the tables, each row as
    /// [`Emulator::copy_raw`] copies it (device to device through the
    /// views, across mappings piece by piece).
    ///
    /// # Safety
    /// As [`Emulator::copy_rows`].
    pub(crate) unsafe fn copy_rows_raw(&self, c: RowCopy) -> Result<(), CoreError> {
        let RowCopy { dst, src, len, dst_pitch, src_pitch, rows } = c;
        if len == 0 || rows == 0 {
            return Ok(());
        }
        let at = |base: usize, pitch: usize, r: usize| {
            r.checked_mul(pitch)
                .and_then(|o| base.checked_add(o))
                .ok_or(CoreError::BadDeviceRange { addr: base, size: Work::rows_span(len, pitch, rows) })
        };
        let row = |r: usize| Ok::<_, CoreError>((at(dst, dst_pitch, r)?, at(src, src_pitch, r)?));
        let mut t = self.lock();
        for r in 0..rows {
            let (d, s) = row(r)?;
            let reach = self.copy_reach(&t, d, s);
            check_range(&mut t, reach, d, len)?;
            check_range(&mut t, reach, s, len)?;
        }
        for r in 0..rows {
            let (d, s) = row(r)?;
            let reach = self.copy_reach(&t, d, s);
            // SAFETY: every row was checked above; host parts are the caller's promise.
            unsafe { copy_resolved(&mut t, reach, d, s, len)? };
        }
        Ok(())
    }

    /// Fills `n` bytes at `dst` (device or host memory) with `value`.
    ///
    /// # Safety
    /// Host parts of the range must be valid for writes of `n` bytes.
    pub unsafe fn fill(&self, dst: usize, value: u8, n: usize) -> Result<(), CoreError> {
        self.check_host_access(dst, n, true)?;
        // SAFETY: the caller's promise.
        unsafe { self.fill_raw(dst, value, n) }
    }

    /// Fills `rows` rows, `pitch` bytes apart from `dst`, each of `count`
    /// elements of `width` bytes (1 to 8) with the low `width` bytes of
    /// `pattern` (little-endian), without looking at pending stream writes:
    /// every row is checked before any byte is written, then all are filled
    /// under one hold of the tables (one pass over the memory, each piece
    /// of a row written from a pattern buffer of at most 64 KiB).
    ///
    /// # Safety
    /// Host parts of the rows must be valid for writes.
    pub(crate) unsafe fn fill_rows_raw(
        &self,
        dst: usize,
        pattern: u64,
        width: u8,
        count: usize,
        pitch: usize,
        rows: usize,
    ) -> Result<(), CoreError> {
        let width = usize::from(width).clamp(1, 8);
        let bad = || CoreError::BadDeviceRange { addr: dst, size: count.saturating_mul(width) };
        let len = count.checked_mul(width).ok_or_else(bad)?;
        if len == 0 || rows == 0 {
            return Ok(());
        }
        let row_at = |r: usize| r.checked_mul(pitch).and_then(|o| dst.checked_add(o)).ok_or_else(bad);
        let (mut t, reach) = (self.lock(), self.reach());
        for r in 0..rows {
            check_range(&mut t, reach, row_at(r)?, len)?;
        }
        let unit = &pattern.to_le_bytes()[..width];
        // Whole elements, plus one to start a piece at any byte of an element.
        let per_chunk = ((64 << 10) / width).min(count);
        let chunk: Vec<u8> = if width == 1 { Vec::new() } else { unit.repeat(per_chunk + 1) };
        let step = per_chunk * width;
        for r in 0..rows {
            let row = row_at(r)?;
            let mut done = 0;
            while done < len {
                let (d, dl) = resolve(&mut t, reach, row + done, len - done)?;
                if width == 1 {
                    // SAFETY: as in `copy`.
                    unsafe { vm::fill(d, unit[0], dl) };
                } else {
                    let phase = done % width;
                    let mut at = 0;
                    while at < dl {
                        let n = (dl - at).min(step);
                        // SAFETY: `chunk[phase..]` holds `step` ≥ `n` bytes; `d + at`
                        // is inside the piece `resolve` gave (as in `copy`). Each
                        // copy but the last is whole elements, so the phase holds.
                        unsafe { vm::copy(d.wrapping_add(at), chunk.as_ptr().wrapping_add(phase), n) };
                        at += n;
                    }
                }
                done += dl;
            }
        }
        Ok(())
    }

    /// [`Emulator::fill`] without looking at pending stream writes.
    ///
    /// # Safety
    /// As [`Emulator::fill`].
    pub(crate) unsafe fn fill_raw(&self, dst: usize, value: u8, n: usize) -> Result<(), CoreError> {
        let (mut t, reach) = (self.lock(), self.reach());
        check_range(&mut t, reach, dst, n)?;
        let mut done = 0;
        while done < n {
            let (d, dl) = resolve(&mut t, reach, dst + done, n - done)?;
            // SAFETY: as in `copy`.
            unsafe { vm::fill(d, value, dl) };
            done += dl;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::space::{DEVICE_WINDOW, MapSize};
    use super::super::{Emulator, HandleId, RowCopy};
    use crate::config::Config;
    use crate::registry::Place;

    const G: usize = 2 << 20;

    /// An emulator and one handle of 2 MiB mapped twice, side by side: the
    /// address of the first mapping (the second follows it).
    fn mapped_twice(dir: &std::path::Path, host_access: bool) -> (Emulator, HandleId, usize) {
        let e = Emulator::new(Config::new(dir).with_devices(1).with_host_access(host_access)).expect("emulator");
        let h = e.create(Place::Device(0), G as u64, G as u64, [0; 4]).expect("create");
        let va = e.reserve(2 * G, G, None, &DEVICE_WINDOW).expect("reserve");
        e.map(va, G, h, MapSize::Exact).expect("map");
        e.map(va + G, G, h, MapSize::Exact).expect("map again");
        (e, h, va)
    }

    fn has_view(e: &Emulator, h: HandleId) -> bool {
        e.lock().handles[&h].view.is_some()
    }

    /// Host to device and back: through the mapping where the host may
    /// access device memory, through the arena's view where not.
    #[test]
    fn host_copies_reach_device_memory_through_the_mapping_when_they_can() {
        for host_access in [true, false] {
            let dir = tempfile::tempdir().expect("tempdir");
            let (e, h, va) = mapped_twice(dir.path(), host_access);
            let data: Vec<u8> = (0..G).map(|i| (i % 251) as u8).collect();
            let mut back = vec![0u8; G];
            // SAFETY: both host buffers are G bytes long.
            unsafe {
                e.copy(va, data.as_ptr() as usize, G).expect("host to device");
                e.copy(back.as_mut_ptr() as usize, va + G, G).expect("device (the other mapping) to host");
            }
            assert!(back == data, "host access {host_access}: the data came back");
            // Without host access the mappings are PROT_NONE: the bytes went
            // through the arena's view, and the handle made none of its own.
            assert!(!has_view(&e, h), "host access {host_access}: arena memory has no view of its own");
        }
    }

    /// A fill of rows writes each row's elements from its start, leaves the
    /// bytes between rows, and keeps the pattern's phase where a row runs
    /// from one mapping into the next.
    #[test]
    fn fill_rows_keep_the_pattern_across_mappings_and_skip_the_gaps() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, _h, va) = mapped_twice(dir.path(), true);
        let pattern = 0x4433_2211u64;
        let unit = [0x11u8, 0x22, 0x33, 0x44];
        let mut back = vec![0u8; 96];
        // SAFETY: the host buffer is 96 bytes; the rows are device memory.
        unsafe {
            e.fill_rows_raw(va, pattern, 4, 3, 32, 3).expect("rows");
            e.copy(back.as_mut_ptr() as usize, va, 96).expect("read");
        }
        for (i, b) in back.iter().enumerate() {
            let want = if i % 32 < 12 { unit[i % 4] } else { 0 };
            assert_eq!(*b, want, "byte {i}");
        }
        // A row from 6 bytes before the second mapping's start into it: its
        // bytes there are the handle's first (the two mappings alias).
        let mut head = [0u8; 14];
        // SAFETY: as above.
        unsafe {
            e.fill_rows_raw(va + G - 6, pattern, 4, 5, 0, 1).expect("across");
            e.copy(head.as_mut_ptr() as usize, va, 14).expect("read");
        }
        for (k, b) in head.iter().enumerate() {
            assert_eq!(*b, unit[(6 + k) % 4], "byte {k} past the boundary");
        }
    }

    /// A copy of rows moves each row's bytes from its pitch on one side to
    /// its pitch on the other, leaves the bytes between rows, and is right
    /// where a row runs from one mapping into the next (host to device,
    /// device to device between the two mappings, device to host), with and
    /// without host access; a row that leaves the mappings fails the copy
    /// before any byte moves.
    #[test]
    fn copy_rows_cross_mappings_and_skip_the_gaps() {
        // Rows of 10 bytes.
        let row_copy = |dst, src, dst_pitch, src_pitch, rows| RowCopy { dst, src, len: 10, dst_pitch, src_pitch, rows };
        for host_access in [true, false] {
            let dir = tempfile::tempdir().expect("tempdir");
            let (e, _h, va) = mapped_twice(dir.path(), host_access);
            // 4 host rows of 10 bytes, packed 12 apart, to device rows 32
            // apart whose second row crosses into the second mapping.
            let src: Vec<u8> = (1..=48).collect();
            let dst = va + G - 40;
            let zero = [0u8; 128];
            let mut back = vec![0u8; 128];
            // SAFETY: the host buffers hold the rows asked for; the rest is device memory.
            unsafe {
                e.copy(dst, zero.as_ptr() as usize, 128).expect("clear");
                e.copy_rows(row_copy(dst, src.as_ptr() as usize, 32, 12, 4)).expect("host rows to device");
                e.copy(back.as_mut_ptr() as usize, dst, 128).expect("read");
            }
            for (i, b) in back.iter().enumerate() {
                let want = if i % 32 < 10 { src[i / 32 * 12 + i % 32] } else { 0 };
                assert_eq!(*b, want, "host access {host_access}: byte {i}");
            }
            // The second mapping aliases the first: its bytes past the
            // boundary are the handle's first.
            let mut head = [0u8; 10];
            // SAFETY: as above.
            unsafe { e.copy(head.as_mut_ptr() as usize, va, 10).expect("read the alias") };
            assert_eq!(head[..2], src[20..22], "host access {host_access}: the row crossing the boundary");
            // Device rows (across the boundary) to other device rows, then to host rows.
            let mut out = vec![0u8; 4 * 16];
            // SAFETY: `out` holds 4 rows of pitch 16; the rest is device memory.
            unsafe {
                e.copy_rows(row_copy(va + 4096, dst, 64, 32, 4)).expect("device rows to device rows");
                e.copy_rows(row_copy(out.as_mut_ptr() as usize, va + 4096, 16, 64, 4)).expect("device rows to host");
            }
            for (i, b) in out.iter().enumerate() {
                let want = if i % 16 < 10 { src[i / 16 * 12 + i % 16] } else { 0 };
                assert_eq!(*b, want, "host access {host_access}: device rows, byte {i}");
            }
            // A last row past the reservation: nothing is written.
            let before = out.clone();
            // SAFETY: as above.
            let bad = unsafe { e.copy_rows(row_copy(out.as_mut_ptr() as usize, va + 2 * G - 64, 16, 48, 3)) };
            assert!(bad.is_err(), "host access {host_access}: a row past the mappings");
            assert_eq!(out, before, "host access {host_access}: a failed copy of rows wrote nothing");
        }
    }

    /// Device to device between two mappings of one handle is `memmove` on
    /// the memory, though the addresses do not overlap.
    #[test]
    fn device_copies_between_aliases_of_one_handle_move_as_memmove() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, _h, va) = mapped_twice(dir.path(), true);
        let data: Vec<u8> = (0..G).map(|i| (i % 251) as u8).collect();
        let n = 64 << 10;
        let mut back = vec![0u8; n + 1];
        // SAFETY: the host buffers are at least as long as each copy.
        unsafe {
            e.copy(va, data.as_ptr() as usize, G).expect("host to device");
            // Bytes 0..n of the memory to 1..n+1, through the other mapping.
            e.copy(va + G + 1, va, n).expect("device to device");
            e.copy(back.as_mut_ptr() as usize, va, n + 1).expect("device to host");
        }
        assert_eq!(back[0], data[0]);
        assert!(back[1..] == data[..n], "as if copied through a buffer");
    }
}
