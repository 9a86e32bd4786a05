//! Export of a fresh allocation, beside giving a fresh file a name.
//!
//! Floor: `linkat("/proc/self/fd/N", root/…, AT_SYMLINK_FOLLOW)` of an
//! `O_TMPFILE` file. Export must make the memory findable by another
//! process from a 64-bit key alone; on a file system that is a name, and
//! linking the unnamed object (rather than creating it named) is what
//! keeps half-made objects invisible, so one `linkat` is the least any
//! implementation pays. Everything else the emulator does on export is its
//! own choice, counted against it: sizing the file for the metadata tail
//! (`ftruncate`), writing the header (`pwrite`), the exporter's hold
//! (`flock`), and the capacity ledger's lock (`flock` twice).
//!
//! An allocation can be exported once (ACL-EXP-008), so each iteration
//! exports a new one: the allocation before and the free after are not
//! measured (nor are the floor's `open`, `unlink` and `close`).

use super::{Entry, Env, timed_each};
use crate::error::Result;
use crate::floor;
use crate::plan::size_label;
use vmmkit_runtime::Sharing;

/// The group.
pub const GROUP: &str = "export";

/// The entries: the backend's export (trustlist on, the default flag) of a
/// granule-sized allocation, and the floor.
///
/// # Errors
/// The granularity query failed.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let v = env.vmm();
    let g = v.granularity()?;
    let l = size_label(g);
    let dir = env.floor_dir();
    Ok(vec![
        Entry::new(GROUP, v.name(), &l, move |n| {
            timed_each(n, |_| v.alloc(0, g), |m| v.export(m, Sharing::Trustlist), |m, _key| v.free(m))
        }),
        Entry::new(GROUP, "floor", &l, move |n| {
            timed_each(
                n,
                |i| Ok((floor::tmpfile(dir, g)?, dir.join(format!("export-{i}")))),
                |(fd, path)| floor::link(fd, path),
                |(fd, path), ()| {
                    drop(fd);
                    floor::unlink(&path)
                },
            )
        }),
    ])
}
