//! Collection of what dead processes left in a root.

use std::io;
use std::path::Path;

use super::Registry;
use super::entry::{Header, Place};
use crate::os::lock;
use crate::os::object::Object;

/// What a collection freed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Process slots of dead processes that were freed.
    pub processes: usize,
    /// Exported entries that nobody held any more, removed.
    pub entries: usize,
    /// Device bytes given back (both kinds).
    pub bytes: u64,
}

/// Linked entries of a shared directory: (device, bytes) of each device entry.
pub(super) fn linked_entries(shared: &Path) -> impl Iterator<Item = (u32, u64)> {
    std::fs::read_dir(shared).into_iter().flatten().flatten().filter_map(|e| {
        let o = Object::open(&e.path()).ok()?;
        match Header::read(&o, None).ok()?? {
            Header { place: Place::Device(d), data_len, .. } => Some((d, data_len)),
            _ => None,
        }
    })
}

pub(super) fn collect(reg: &Registry) -> io::Result<GcReport> {
    let mut report = GcReport::default();
    reg.locked(|t| {
        for (i, _) in t.dead_slots() {
            report.bytes += t.clear_slot(i);
            report.processes += 1;
        }
    })?;
    for dirent in std::fs::read_dir(&reg.shared)? {
        let path = dirent?.path();
        let Ok(object) = Object::open(&path) else { continue };
        // Nobody holds it if we can lock it exclusively.
        if !lock::try_exclusive(&object)? {
            continue;
        }
        if let Some(bytes) = remove_unheld(reg, &object, &path)? {
            report.entries += 1;
            report.bytes += bytes;
        }
    }
    Ok(report)
}

/// Removes the entry at `path`, whose `object` this process has locked
/// exclusively (so no process holds it), and gives its capacity back.
/// Returns the device bytes given back, or `None` when another process
/// removed it first.
pub(super) fn remove_unheld(reg: &Registry, object: &Object, path: &Path) -> io::Result<Option<u64>> {
    let header = Header::read(object, None)?;
    reg.locked(|t| -> io::Result<Option<u64>> {
        if !object.is_linked()? {
            return Ok(None);
        }
        std::fs::remove_file(path)?;
        match &header {
            Some(Header { place: Place::Device(d), data_len, .. }) => {
                t.drop_entry(*d, *data_len);
                Ok(Some(*data_len))
            }
            _ => Ok(Some(0)),
        }
    })?
}
