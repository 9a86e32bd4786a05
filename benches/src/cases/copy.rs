//! Copies between host and device memory and between device memory,
//! beside `copy_from_slice` between two host buffers of the same size.
//!
//! Device buffers are allocated, mapped and written (so every page is
//! there) the first time an entry runs, and freed when it is dropped, one
//! size at a time; host buffers are written at allocation for the same
//! reason. Criterion reports each as bytes per second.

use std::time::Duration;

use super::{Case, Entry, Env, timed};
use crate::backend::Bk;
use crate::error::Result;
use crate::plan::{MIB, size_label};
use vmmkit_runtime::{Access, Location, Mapping, PhysicalMemory, Reservation};

/// Host to device.
pub const H2D: &str = "copy_h2d";
/// Device to host.
pub const D2H: &str = "copy_d2h";
/// Device to device.
pub const D2D: &str = "copy_d2d";

/// The entries: per direction and size, each backend's copy and the floor.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    for group in [H2D, D2H, D2D] {
        for &size in env.plan.copy_sizes() {
            let l = size_label(size);
            let slow = size >= 64 * MIB;
            for b in env.backends() {
                let case = CopyCase { b, group, size, dev: Vec::new(), host: Vec::new() };
                out.push(Entry::with_case(group, b.name(), &l, case).bytes(size).slow(slow));
            }
            let mut bufs: Option<(Vec<u8>, Vec<u8>)> = None;
            out.push(
                Entry::new(group, "floor", &l, move |n| {
                    let (src, dst) = bufs.get_or_insert_with(|| (vec![0x5a; size], vec![0xa5; size]));
                    timed(n, |_| {
                        dst.copy_from_slice(src);
                        std::hint::black_box(&mut *dst);
                        Ok(())
                    })
                })
                .bytes(size)
                .slow(slow),
            );
        }
    }
    Ok(out)
}

/// Device memory mapped for a copy (the mapping is taken out first, to unmap it).
struct DevBuf {
    mem: PhysicalMemory,
    va: Reservation,
    m: Option<Mapping>,
}

impl DevBuf {
    fn m(&self) -> &Mapping {
        self.m.as_ref().expect("mapped until dropped")
    }
}

/// A backend's copy in one direction, with its buffers.
struct CopyCase<'a> {
    b: &'a Bk,
    group: &'static str,
    size: usize,
    dev: Vec<DevBuf>,
    host: Vec<u8>,
}

impl CopyCase<'_> {
    /// Device memory for at least `size` bytes (allocations are whole granules).
    fn device_buffer(&mut self, fill: u8) -> Result<()> {
        let d = self.b.dev(0);
        let len = self.size.next_multiple_of(self.b.granularity()?);
        let mem = d.alloc_physical(len)?;
        let va = d.reserve(len)?;
        let m = va.map(0, &mem)?;
        m.set_access(Location::Device(0), Access::ReadWrite)?;
        self.dev.push(DevBuf { mem, va, m: Some(m) });
        // Touch every page, so that the measurement does not include first faults.
        let src = vec![fill; len];
        Ok(self.dev.last().expect("pushed").m().write(0, &src)?)
    }

    fn set_up(&mut self) -> Result<()> {
        self.device_buffer(0x5a)?;
        match self.group {
            D2D => self.device_buffer(0xa5),
            _ => {
                self.host = vec![0xa5; self.size];
                Ok(())
            }
        }
    }
}

impl Case for CopyCase<'_> {
    fn run(&mut self, iters: u64) -> Result<Duration> {
        if self.dev.is_empty() {
            self.set_up()?;
        }
        let size = self.size;
        match (self.group, self.dev.as_slice()) {
            (D2D, [a, b]) => timed(iters, |_| Ok(a.m().copy_to(0, b.m(), 0, size)?)),
            (D2H, [a]) => timed(iters, |_| Ok(a.m().read(0, &mut self.host[..size])?)),
            (_, [a]) => timed(iters, |_| Ok(a.m().write(0, &self.host[..size])?)),
            _ => unreachable!("set_up makes one buffer, two for device to device"),
        }
    }
}

impl Drop for CopyCase<'_> {
    fn drop(&mut self) {
        for DevBuf { mem, va, mut m } in self.dev.drain(..) {
            let r = m.take().map_or(Ok(()), Mapping::unmap).and_then(|()| va.free()).and_then(|()| mem.free());
            if let Err(e) = r {
                eprintln!("copy bench clean-up: {e}");
            }
        }
    }
}
