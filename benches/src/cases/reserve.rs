//! Reserving and releasing device addresses, beside reserving and
//! releasing host addresses.
//!
//! Floor: `mmap(addr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
//! MAP_NORESERVE | MAP_FIXED_NOREPLACE)` and `munmap`, at an address aligned
//! as the emulator aligns a reservation of that size (its device window
//! starts at 16 TiB; the floor's range lies just past it, at 24 TiB): the
//! system calls the emulator makes. (A range where the kernel chooses costs
//! more for 1 GiB: unaligned, it spans more page-table pages.) As the
//! emulator keeps a page reserved at the end of its window's first 512 GiB
//! (`vmmkit_emulator::core::WINDOW_ANCHOR`), the floor keeps one at the end of
//! its own 512 GiB, made once and not measured: without a neighbour in the
//! same 512 GiB, each release frees the upper page-table levels, and a
//! reserve + release costs about twice as much.

use super::{Entry, Env, timed};
use crate::error::Result;
use crate::floor::Range;
use crate::plan::size_label;

/// The group.
pub const GROUP: &str = "reserve_release";

/// Where the floor reserves: 24 TiB, past the emulator's device window,
/// aligned for every size up to 1 GiB.
const FLOOR_AT: usize = 0x1800_0000_0000;
/// The floor's neighbour: the last page of the 512 GiB from [`FLOOR_AT`].
const FLOOR_ANCHOR: usize = FLOOR_AT + (512 << 30) - 4096;

/// The entries: per size, each backend's reserve + release, and the floor.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    for &size in env.plan.reserve_sizes() {
        let l = size_label(size);
        for b in env.backends() {
            let d = b.dev(0);
            out.push(Entry::new(GROUP, b.name(), &l, move |n| timed(n, |_| Ok(d.reserve(size)?.free()?))));
        }
        let mut anchor: Option<Range> = None;
        out.push(Entry::new(GROUP, "floor", &l, move |n| {
            if anchor.is_none() {
                anchor = Some(Range::reserve_at(FLOOR_ANCHOR, 4096)?);
            }
            timed(n, |_| Range::reserve_at(FLOOR_AT, size).map(drop))
        }));
    }
    Ok(out)
}
