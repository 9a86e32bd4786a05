//! Physical allocation and free, beside creating and closing the file that
//! plays the memory.
//!
//! Floor: `open(root, O_TMPFILE)` + `ftruncate(size)` + `close`, in the
//! emulator's root: the object the emulator must make, since only a file
//! made in the root can later be linked there on export. `floor_memfd`
//! (`memfd_create` + `ftruncate` + `close`) is shown beside it as a
//! reference: cheaper, but a memfd cannot be given a name in the root
//! (`linkat` fails with `EXDEV`). The emulator makes no file per allocation
//! since memory not shared lives in the process's arena (`os/arena.rs`):
//! the allocate + free of memory never mapped nor copied to (this bench's)
//! makes no system call, where the floor makes three; memory that was
//! written gives its pages back at the free (one `fallocate`, its punch).

use super::{Entry, Env, timed};
use crate::error::Result;
use crate::floor;
use crate::plan::size_label;

/// The group.
pub const GROUP: &str = "alloc_free";

/// The entries: per size, each backend's allocate + free, and the floors.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    for &size in env.plan.alloc_sizes() {
        let l = size_label(size);
        for b in env.backends() {
            let d = b.dev(0);
            out.push(Entry::new(GROUP, b.name(), &l, move |n| timed(n, |_| Ok(d.alloc_physical(size)?.free()?))));
        }
        let dir = env.floor_dir();
        out.push(Entry::new(GROUP, "floor", &l, move |n| timed(n, |_| floor::tmpfile(dir, size).map(drop))));
        out.push(Entry::new(GROUP, "floor_memfd", &l, move |n| timed(n, |_| floor::memfd(size).map(drop))));
    }
    Ok(out)
}
