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
        for (addr, len) in [(dst, n), (src, n)] {
            if addr.checked_add(len).is_none() {
                return Err(CoreError::BadDeviceRange { addr, size: len });
            }
        }
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
        if dst.checked_add(n).is_none() {
            return Err(CoreError::BadDeviceRange { addr: dst, size: n });
        }
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
