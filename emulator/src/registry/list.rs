//! What a root holds, for `vmmkit ls`: devices, processes, exported entries
//! with their exporters, trustlists and holders.
//!
//! Holders are the processes with a `flock` on an entry's file, read from
//! `/proc/<pid>/fdinfo` (see [`flock_holders`]).

use std::collections::{BTreeSet, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::Registry;
use super::entry::{Header, Place, Trust};
use crate::os::object::Object;
use crate::os::proc::ProcessId;

/// One exported entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// Its key (shareable handle).
    pub key: u64,
    /// Bytes of memory.
    pub size: u64,
    /// Where it lives.
    pub place: Place,
    /// The exporting process, and whether it is still running.
    pub exporter: ProcessId,
    /// Whether the exporter is alive.
    pub exporter_alive: bool,
    /// Whether any process may import (trustlist off).
    pub trustlist_disabled: bool,
    /// Listed pids.
    pub trustlist: Vec<i32>,
    /// Pids of processes holding it (the exporter and importers).
    pub holders: Vec<u32>,
}

/// A process that has a slot in the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    /// Who.
    pub process: ProcessId,
    /// Whether it is running.
    pub alive: bool,
}

/// Which processes hold a `flock` on files under `dir`: (device, inode) →
/// owner pids, from the `lock:` lines of `/proc/<pid>/fdinfo/<fd>`, looking
/// at the processes `pids` or, with `None`, at every process. (Not
/// `/proc/locks`: it is read one page per `read(2)`, resumed by position, so
/// while other processes take and drop locks, lines are skipped or repeated;
/// a listing of 3,000 stable locks on a busy machine showed between 1,638 and
/// 4,713 of them.) An open file description shared by two processes counts
/// once, for the pid that took the lock.
pub fn flock_holders(dir: &Path, pids: Option<&[u32]>) -> HashMap<(u64, u64), BTreeSet<u32>> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let all: Vec<u32> = match pids {
        Some(p) => p.to_vec(),
        None => std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
            .collect(),
    };
    let mut out: HashMap<(u64, u64), BTreeSet<u32>> = HashMap::new();
    for pid in all {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            if !std::fs::read_link(fd.path()).is_ok_and(|t| t.starts_with(&dir)) {
                continue;
            }
            let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy()));
            // "lock:\t1: FLOCK  ADVISORY  READ  1234 00:1a:5678 0 EOF"
            let owner = info.ok().and_then(|i| {
                i.lines().find(|l| l.starts_with("lock:") && l.contains("FLOCK")).and_then(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    let at = f.iter().position(|w| *w == "FLOCK")?;
                    f.get(at + 3)?.parse::<u32>().ok()
                })
            });
            if let (Some(owner), Ok(m)) = (owner, std::fs::metadata(fd.path())) {
                out.entry((m.dev(), m.ino())).or_default().insert(owner);
            }
        }
    }
    out
}

/// The pids holding the file of `dirent`, from [`flock_holders`]' map.
fn holders_of(dirent: &std::fs::DirEntry, holders: &HashMap<(u64, u64), BTreeSet<u32>>) -> Vec<u32> {
    dirent
        .metadata()
        .ok()
        .and_then(|m| holders.get(&(m.dev(), m.ino())))
        .map(|h| h.iter().copied().collect())
        .unwrap_or_default()
}

impl Registry {
    /// Every exported entry of the root, ordered by key.
    pub fn entries(&self) -> Vec<EntryInfo> {
        // The exporter's fd names the object by its first, unnamed path in the
        // root (`#INODE (deleted)`), so look under the whole root; the match is
        // by (device, inode).
        let holders = flock_holders(&self.root, None);
        let mut out = Vec::new();
        for dirent in std::fs::read_dir(&self.shared).into_iter().flatten().flatten() {
            let Ok(object) = Object::open(&dirent.path()) else { continue };
            let Ok(Some(h)) = Header::read_named(&object, &dirent.file_name()) else { continue };
            let trustlist = h.trustlist(&object).map(|l| l.into_iter().map(|g| g.pid).collect()).unwrap_or_default();
            let hold = holders_of(&dirent, &holders);
            out.push(EntryInfo {
                key: h.key,
                size: h.data_len,
                place: h.place,
                exporter_alive: h.exporter.is_alive(),
                exporter: h.exporter,
                trustlist_disabled: h.trust == Trust::AnyProcess,
                trustlist,
                holders: hold,
            });
        }
        out.sort_by_key(|e| e.key);
        out
    }

    /// The processes of the root, other than this one, that hold the entry
    /// `key` (an import of it open): each live process's `/proc/<pid>/fd`
    /// is read, so this is for error paths, not for every call.
    pub fn other_holders(&self, key: u64) -> BTreeSet<u32> {
        let me = self.me().pid;
        let pids: Vec<u32> = self
            .state
            .processes()
            .into_iter()
            .filter(|&(_, p, alive)| alive && p.pid != me)
            .map(|(_, p, _)| p.pid)
            .collect();
        let Ok(m) = std::fs::metadata(self.entry_path(key)) else { return BTreeSet::new() };
        flock_holders(&self.root, Some(&pids)).remove(&(m.dev(), m.ino())).unwrap_or_default()
    }

    /// Every process with a slot in the root.
    pub fn processes(&self) -> Vec<ProcessInfo> {
        self.state.processes().into_iter().map(|(_, process, alive)| ProcessInfo { process, alive }).collect()
    }
}

/// One shared event or notify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellInfo {
    /// Its key.
    pub key: u64,
    /// Event or notify.
    pub kind: super::CellKind,
    /// The process that made it.
    pub creator: ProcessId,
    /// Whether that process is alive.
    pub creator_alive: bool,
    /// The creator let go of it (its openers keep it).
    pub withdrawn: bool,
    /// Pids of processes holding it (the creator and openers).
    pub holders: Vec<u32>,
}

impl Registry {
    /// Every shared event and notify of the root, ordered by key.
    pub fn cells(&self) -> Vec<CellInfo> {
        let holders = flock_holders(&self.root, None);
        let mut out = Vec::new();
        for dirent in std::fs::read_dir(&self.shared).into_iter().flatten().flatten() {
            let Some(key) = dirent.file_name().to_str().and_then(|n| u64::from_str_radix(n, 16).ok()) else { continue };
            if key & super::CELL_KEY_BIT == 0 {
                continue;
            }
            let Ok(object) = Object::open(&dirent.path()) else { continue };
            let Ok(Some(h)) = super::CellHeader::read(&object, key) else { continue };
            let hold = holders_of(&dirent, &holders);
            out.push(CellInfo {
                key,
                kind: h.kind,
                creator: h.creator,
                creator_alive: h.creator.is_alive(),
                withdrawn: h.withdrawn,
                holders: hold,
            });
        }
        out.sort_by_key(|c| c.key);
        out
    }
}
