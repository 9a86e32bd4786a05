//! Export of a fresh allocation, beside giving a fresh file a name.
//!
//! Floor: `linkat("/proc/self/fd/N", root/…, AT_SYMLINK_FOLLOW)` of an
//! `O_TMPFILE` file. Export must make the memory findable by another
//! process from a 64-bit key alone; on a file system that is a name, and
//! linking the unnamed object (rather than creating it named) is what
//! keeps half-made objects invisible, so one `linkat` is the least any
//! implementation pays. Everything else the emulator does on export is its
//! own choice, counted against it: giving the memory a file of its own
//! (it lived in the process's arena: `open(O_TMPFILE)` and `ftruncate`,
//! the floor's allocation's calls, deferred to here; memory that was
//! mapped or copied to would also make one `lseek(SEEK_DATA)` for its
//! written pages and punch the arena's range with `fallocate`, but this
//! bench's allocation is fresh), writing the header (`fsetxattr`), and the
//! exporter's hold (`flock`).
//!
//! An allocation can be exported once ([ACL-EXP-008](vmmkit_sys::acl::rules::EXP_008)), so each iteration
//! exports a new one: the allocation before and the free after are not
//! measured (nor are the floor's `open`, `unlink` and `close`). On HIP and
//! CUDA the export also returns a POSIX fd (its `close` is not measured).

use super::{Entry, Env, timed_each};
use crate::error::Result;
use crate::floor;
use crate::plan::size_label;

/// The group.
pub const GROUP: &str = "export";
/// The size exported: 2 MiB, a granule of every backend.
const SIZE: usize = 2 << 20;

/// The entries: each backend's export of a 2 MiB allocation (ACL: a key,
/// trustlist on, the default flag; HIP and CUDA: a POSIX fd), and the floor.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let g = SIZE;
    let l = size_label(g);
    let dir = env.floor_dir();
    let mut out: Vec<Entry<'_>> = env
        .backends()
        .iter()
        .map(|b| {
            let (d, sharing) = (b.dev(0), b.sharing());
            Entry::new(GROUP, b.name(), &l, move |n| {
                timed_each(
                    n,
                    |_| Ok(d.alloc_physical(g)?),
                    |m| Ok(m.export(sharing)?),
                    |m, e| {
                        drop(e);
                        Ok(m.free()?)
                    },
                )
            })
        })
        .collect();
    out.push(Entry::new(GROUP, "floor", &l, move |n| {
        timed_each(
            n,
            |i| Ok((floor::tmpfile(dir, g)?, dir.join(format!("export-{i}")))),
            |(fd, path)| floor::link(fd, path),
            |(fd, path), ()| {
                drop(fd);
                floor::unlink(&path)
            },
        )
    }));
    Ok(out)
}
