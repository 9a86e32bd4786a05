//! Copies and fills that may touch device memory, through the emulator's
//! host views (so they work whatever the protection of the device mapping).

use crate::os::vm;

use super::space::mapping_at;
use super::{CoreError, Emulator, Tables};

/// What an address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Device memory mapped by this process.
    Device,
    /// Inside a reservation or the device window, but not mapped.
    Unmapped,
    /// Not in any reservation: host memory.
    Host,
}

fn side(t: &Tables, addr: usize) -> Side {
    if mapping_at(t, addr).is_some() {
        return Side::Device;
    }
    match t.reservations.range(..=addr).next_back() {
        Some((_, r)) if r.range.contains(addr, 1) => Side::Unmapped,
        _ if super::space::DEVICE_WINDOW.0.contains(&addr) => Side::Unmapped,
        _ => Side::Host,
    }
}

/// A host pointer for `addr` and how many bytes from it are contiguous.
fn resolve(t: &mut Tables, addr: usize, want: usize) -> Result<(*mut u8, usize), CoreError> {
    match mapping_at(t, addr) {
        Some((start, m)) => {
            let (len, handle) = (m.len, m.handle);
            let off = addr - start;
            let p = t.handles.get_mut(&handle).ok_or(CoreError::UnknownHandle(handle.0))?;
            let view = p.view()?;
            Ok((view.ptr(off), want.min(len - off)))
        }
        None => match side(t, addr) {
            Side::Unmapped => Err(CoreError::BadDeviceRange { addr, size: want }),
            _ => Ok((addr as *mut u8, want)),
        },
    }
}

/// Checks that `n` bytes from `addr` can be copied, as `resolve` will walk
/// them: mapped device memory (whose host views are made here) up to the
/// first host byte, after which the rest is the caller's host memory; a
/// reserved-but-unmapped or window address fails. Both ends are checked
/// before any byte moves, so a copy or fill that fails changes nothing.
fn check_range(t: &mut Tables, addr: usize, n: usize) -> Result<(), CoreError> {
    let bad = || CoreError::BadDeviceRange { addr, size: n };
    let end = addr.checked_add(n).ok_or_else(bad)?;
    let mut at = addr;
    while at < end {
        let Some((start, m)) = mapping_at(t, at) else {
            return match side(t, at) {
                Side::Unmapped => Err(bad()),
                _ => Ok(()),
            };
        };
        let (len, handle) = (m.len, m.handle);
        t.handles.get_mut(&handle).ok_or(CoreError::UnknownHandle(handle.0))?.view()?;
        at = start + len;
    }
    Ok(())
}

impl Emulator {
    /// What `addr` is: mapped device memory, reserved but unmapped, or host memory.
    pub fn side(&self, addr: usize) -> Side {
        side(&self.lock(), addr)
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
    /// (possibly across several mappings) or host memory.
    ///
    /// # Safety
    /// Host parts of both ranges must be valid for `n` bytes, as for `memmove`.
    pub unsafe fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        check_range(&mut t, dst, n)?;
        check_range(&mut t, src, n)?;
        let mut done = 0;
        while done < n {
            let (d, dl) = resolve(&mut t, dst + done, n - done)?;
            let (s, sl) = resolve(&mut t, src + done, n - done)?;
            let chunk = dl.min(sl);
            // SAFETY: device parts point into host views of at least `chunk`
            // bytes (bounded by their mapping); host parts are the caller's promise.
            unsafe { vm::copy(d, s, chunk) };
            done += chunk;
        }
        Ok(())
    }

    /// Fills `n` bytes at `dst` (device or host memory) with `value`.
    ///
    /// # Safety
    /// Host parts of the range must be valid for writes of `n` bytes.
    pub unsafe fn fill(&self, dst: usize, value: u8, n: usize) -> Result<(), CoreError> {
        let mut t = self.lock();
        check_range(&mut t, dst, n)?;
        let mut done = 0;
        while done < n {
            let (d, dl) = resolve(&mut t, dst + done, n - done)?;
            // SAFETY: as in `copy`.
            unsafe { vm::fill(d, value, dl) };
            done += dl;
        }
        Ok(())
    }
}
