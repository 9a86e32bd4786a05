//! Collection of what dead processes left in a root, and the recount of
//! the entries' charges from what is linked.

use std::io;
use std::path::Path;

use super::Registry;
use super::entry::{Header, Place};
use super::state::{HOST_ROW, ROWS, Truth};
use crate::os::lock;
use crate::os::object::Object;

/// What a collection freed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Process slots of dead processes that were freed.
    pub processes: usize,
    /// Exported entries that nobody held any more, removed.
    pub entries: usize,
    /// Shared events and notifies that nobody held any more, removed.
    pub cells: usize,
    /// Bytes given back (both kinds; device and host).
    pub bytes: u64,
    /// Bytes the entries' ledger was off by, set right by the recount.
    pub recounted: u64,
}

/// The ledger row of memory at `place`.
pub(super) fn row(place: Place) -> usize {
    match place {
        // A device the ledger cannot have (damage) names no row.
        Place::Device(d) if d < crate::config::MAX_DEVICES => d as usize,
        Place::Device(_) => ROWS,
        Place::Host(_) => HOST_ROW,
    }
}

/// What the linked entries of a shared directory hold: bytes per row, and
/// the highest share id (bits 0–31 of the key).
pub(super) fn truth(shared: &Path) -> Truth {
    let mut t = Truth::default();
    for e in std::fs::read_dir(shared).into_iter().flatten().flatten() {
        let Ok(o) = Object::open(&e.path()) else { continue };
        let Ok(Some(h)) = Header::read_named(&o, &e.file_name()) else { continue };
        t.add(&h);
    }
    t
}

impl Truth {
    /// Counts the linked entry `h`.
    fn add(&mut self, h: &Header) {
        if let Some(u) = self.entry_used.get_mut(row(h.place)) {
            *u = u.saturating_add(h.data_len);
        }
        self.max_share_id = self.max_share_id.max(h.key as u32);
    }
}

/// One pass over `shared/`: each file opened and tried with an exclusive
/// lock; one nobody holds is removed, one held is counted for the recount
/// (its `fstat` and header), so that the recount needs no second pass
/// unless another process changed the entries meanwhile. Per entry:
/// `open`, `flock`, then `fstat` + `fgetxattr` (held) or the removal, and
/// `close`: linear in the entries.
pub(super) fn collect(reg: &Registry) -> io::Result<GcReport> {
    let mut report = GcReport::default();
    reg.state.refresh();
    (report.processes, report.bytes) = reg.state.collect_dead();
    let start = reg.state.recount_start();
    let mut held = Truth::default();
    let mut own = 0u64;
    for dirent in std::fs::read_dir(&reg.shared)? {
        let dirent = dirent?;
        let path = dirent.path();
        let Ok(object) = Object::open(&path) else { continue };
        let cell = path.file_name().and_then(|n| n.to_str()).and_then(|n| u64::from_str_radix(n, 16).ok());
        let is_cell = cell.is_some_and(|k| k & super::CELL_KEY_BIT != 0);
        // Nobody holds it if we can lock it exclusively.
        if !lock::try_exclusive(&object)? {
            if !is_cell && let Ok(Some(h)) = Header::read_named(&object, &dirent.file_name()) {
                held.add(&h);
            }
            continue;
        }
        if is_cell {
            // A shared cell's file charges nothing: removed whatever it says.
            if object.is_linked()? && std::fs::remove_file(&path).is_ok() {
                report.cells += 1;
            }
            continue;
        }
        own += 1;
        if let Some(bytes) = remove_unheld(reg, &object, &path)? {
            report.entries += 1;
            report.bytes = report.bytes.saturating_add(bytes);
        }
    }
    // Sums of a damaged ledger may be anything: they saturate.
    let total = || (0..ROWS).fold(0u64, |n, r| n.saturating_add(reg.state.used(r)));
    let before = total();
    if reg.state.recount_from(start, own, held) || reg.state.recount(|| truth(&reg.shared)) {
        report.recounted = before.abs_diff(total());
    }
    Ok(report)
}

/// Removes the entry at `path`, whose `object` this process has locked
/// exclusively (so no process holds it), and gives its capacity back.
/// Returns the bytes given back, or `None` when another process removed it
/// first. An object that is not a well-formed entry under its own key is
/// removed too (it charges nothing).
pub(super) fn remove_unheld(reg: &Registry, object: &Object, path: &Path) -> io::Result<Option<u64>> {
    // A copy of an entry under another name charges nothing.
    let header = Header::read_named(object, path.file_name().unwrap_or_default())?;
    let change = reg.state.entry_change()?;
    if !object.is_linked()? {
        return Ok(None);
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    Ok(Some(match header {
        Some(h) => {
            reg.state.entry_sub(&change, row(h.place), h.data_len);
            h.data_len
        }
        None => 0,
    }))
}
