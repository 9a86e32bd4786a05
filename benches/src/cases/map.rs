//! Map + grant access + unmap of physical memory in a reservation that
//! stays, beside the same on a file and a host range.
//!
//! Floor: `mmap(MAP_SHARED | MAP_FIXED)` of the file into the range +
//! `mprotect(PROT_READ | PROT_WRITE)` + `mmap(PROT_NONE, MAP_FIXED)` back
//! over it (an unmap that keeps the range reserved). Nothing is touched, so
//! the size matters only to page-table set-up and tear-down, which depends
//! on alignment: the floor's range is aligned as the emulator aligns its
//! reservations (a 1 GiB map that straddles a 1 GiB boundary costs twice as
//! much to tear down).

use std::os::fd::OwnedFd;
use std::time::Duration;

use super::{Case, Entry, Env, timed};
use crate::backend::Bk;
use crate::error::Result;
use crate::floor::{self, Range};
use crate::plan::size_label;
use vmmkit_runtime::{Access, Location, PhysicalMemory, Reservation};

/// The group.
pub const GROUP: &str = "map_access_unmap";

/// The entries: per size, each backend's map + set-access + unmap, and the floor.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    for &size in env.plan.map_sizes() {
        let l = size_label(size);
        for b in env.backends() {
            out.push(Entry::with_case(GROUP, b.name(), &l, MapCase { b, size, held: None }));
        }
        let dir = env.floor_dir();
        let mut held: Option<(OwnedFd, Range)> = None;
        out.push(Entry::new(GROUP, "floor", &l, move |n| {
            if held.is_none() {
                let align = vmmkit_emulator::core::natural_align(size, 2 << 20);
                held = Some((floor::tmpfile(dir, size)?, Range::reserve_aligned(size, align)?));
            }
            let (fd, range) = held.as_ref().expect("set above");
            timed(n, |_| {
                range.map_fixed(fd, size)?;
                range.protect_rw(size)?;
                range.remap_none(size)
            })
        }));
    }
    Ok(out)
}

/// The backend's side: memory and a reservation made once, mapped and
/// unmapped each iteration.
struct MapCase<'a> {
    b: &'a Bk,
    size: usize,
    held: Option<(PhysicalMemory, Reservation)>,
}

impl Case for MapCase<'_> {
    fn run(&mut self, iters: u64) -> Result<Duration> {
        if self.held.is_none() {
            let d = self.b.dev(0);
            self.held = Some((d.alloc_physical(self.size)?, d.reserve(self.size)?));
        }
        let (mem, va) = self.held.as_ref().expect("set above");
        timed(iters, |_| {
            let m = va.map(0, mem)?;
            m.set_access(Location::Device(0), Access::ReadWrite)?;
            Ok(m.unmap()?)
        })
    }
}

impl Drop for MapCase<'_> {
    fn drop(&mut self) {
        if let Some((mem, va)) = self.held.take() {
            let r = va.free().and_then(|()| mem.free());
            if let Err(e) = r {
                eprintln!("map bench clean-up: {e}");
            }
        }
    }
}
