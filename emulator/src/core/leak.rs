//! What a process holds and has not released, with the entry point that
//! created each: the leak report's content (`crate::leaks`).

use std::fmt;

use super::Emulator;

/// What kind of object was left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A physical-memory handle made here and never freed.
    Physical,
    /// An exported handle never freed (its shareable handle stays valid).
    Export,
    /// An imported handle never freed.
    Import,
    /// A reservation never released.
    Reservation,
    /// A mapping never unmapped.
    Mapping,
    /// A plain device allocation (aclrtMalloc, hipMalloc) never freed.
    Allocation,
    /// Physical memory kept alive by a retain
    /// (`aclrtMemRetainAllocationHandle`) without its own free: each retain
    /// needs one (acl.md).
    Retain,
    /// Another process's allocation opened by address (`hipIpcOpenMemHandle`,
    /// `cuIpcOpenMemHandle`) and never closed.
    IpcOpen,
}

/// One object the process still holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// Its kind.
    pub kind: Kind,
    /// Address or handle, size, device.
    pub what: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The shareable key, for exported, imported or opened memory.
    pub key: Option<u64>,
    /// The entry point that created it (e.g. `aclrtMallocPhysical`).
    pub created_by: &'static str,
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = if self.created_by.is_empty() { "(not through an entry point)" } else { self.created_by };
        write!(f, "{:?} {} from {by}", self.kind, self.what)
    }
}

impl Emulator {
    /// What this process holds and has not released, with the entry point
    /// that created each. `None` if another thread holds the tables.
    pub fn leaks(&self) -> Option<Vec<Leak>> {
        let t = self.tables.try_lock().ok()?;
        let mut out = Vec::new();
        for (&va, r) in &t.reservations {
            let len = r.range.len() as u64;
            let (kind, key, what) = match t.opened.get(&va) {
                Some(o) => (Kind::IpcOpen, Some(o.key), format!("{va:#x}, {len:#x} bytes, {} open(s)", o.refs)),
                None if r.plain => (Kind::Allocation, None, format!("{va:#x}, {len:#x} bytes")),
                None => (Kind::Reservation, None, format!("{va:#x}, {len:#x} bytes")),
            };
            out.push(Leak { kind, what, bytes: len, key, created_by: r.created_by });
        }
        for (&va, m) in &t.maps {
            if t.reservations.get(&m.rsv).is_some_and(|r| r.plain) || t.opened.contains_key(&m.rsv) {
                continue; // part of a plain allocation or an IPC open, listed above
            }
            out.push(Leak {
                kind: Kind::Mapping,
                what: format!("{va:#x}, {:#x} bytes", m.len),
                bytes: m.len as u64,
                key: None,
                created_by: m.created_by,
            });
        }
        for (id, p) in &t.handles {
            if p.total_refs() == p.map_refs {
                continue; // only mappings hold it: listed with them
            }
            let kind = match (p.imported, p.entry.is_some()) {
                _ if p.retains > 0 => Kind::Retain,
                (true, _) => Kind::Import,
                (false, true) => Kind::Export,
                (false, false) => Kind::Physical,
            };
            let key = p.key().map(|k| format!(", shareable handle {k:#x}")).unwrap_or_default();
            let retains = match p.retains {
                0 => String::new(),
                n => format!(", retained {n} time(s)"),
            };
            let what = format!(
                "handle {:#x}, {:#x} bytes on {}{key}{retains}, {} reference(s) never freed",
                id.0,
                p.size,
                p.owner,
                p.total_refs() - p.map_refs
            );
            out.push(Leak { kind, what, bytes: p.size, key: p.key(), created_by: p.created_by });
        }
        Some(out)
    }
}
