//! Reserving and releasing device addresses, beside reserving and
//! releasing host addresses.
//!
//! Floor: `mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)`
//! and `munmap`. (The emulator places reservations in its device window with
//! `MAP_FIXED_NOREPLACE` at an address of its choosing, which costs the
//! kernel the same.)

use super::{Entry, Env, timed};
use crate::error::Result;
use crate::floor::Range;
use crate::plan::size_label;

/// The group.
pub const GROUP: &str = "reserve_release";

/// The entries: per size, the backend's reserve + release, and the floor.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let v = env.vmm();
    let mut out = Vec::new();
    for &size in env.plan.reserve_sizes() {
        let l = size_label(size);
        out.push(Entry::new(GROUP, v.name(), &l, move |n| {
            timed(n, |_| {
                let va = v.reserve(size)?;
                v.release(va)
            })
        }));
        out.push(Entry::new(GROUP, "floor", &l, move |n| timed(n, |_| Range::reserve(size).map(drop))));
    }
    Ok(out)
}
