//! What a root holds, for `vmmkit ls`: devices, processes, exported entries
//! with their exporters, trustlists and holders.
//!
//! Holders are the processes with a `flock` on an entry's file; the kernel
//! lists them in `/proc/locks` (`N: FLOCK ADVISORY READ|WRITE PID MAJ:MIN:INODE 0 EOF`).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;

use super::Registry;
use super::entry::{FLAG_NO_TRUSTLIST, Header, Place};
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
    /// Pids of processes holding it (the exporter and importers), from `/proc/locks`.
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

/// Holders of each (device, inode), from `/proc/locks`.
fn lock_holders() -> HashMap<(u32, u32, u64), Vec<u32>> {
    let mut out: HashMap<(u32, u32, u64), Vec<u32>> = HashMap::new();
    let Ok(text) = std::fs::read_to_string("/proc/locks") else { return out };
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // "1: FLOCK  ADVISORY  READ  1234 00:1a:5678 0 EOF"; blocked waiters have "->" after the number.
        let Some(i) = f.iter().position(|w| *w == "FLOCK") else { continue };
        if f.get(1) == Some(&"->") {
            continue;
        }
        let (Some(pid), Some(id)) = (f.get(i + 3), f.get(i + 4)) else { continue };
        let parts: Vec<&str> = id.split(':').collect();
        let (Ok(pid), [maj, min, ino]) = (pid.parse::<u32>(), parts.as_slice()) else { continue };
        let (Ok(maj), Ok(min), Ok(ino)) =
            (u32::from_str_radix(maj, 16), u32::from_str_radix(min, 16), ino.parse::<u64>())
        else {
            continue;
        };
        out.entry((maj, min, ino)).or_default().push(pid);
    }
    out
}

impl Registry {
    /// Every exported entry of the root, ordered by key.
    pub fn entries(&self) -> Vec<EntryInfo> {
        let holders = lock_holders();
        let mut out = Vec::new();
        for dirent in std::fs::read_dir(&self.shared).into_iter().flatten().flatten() {
            let Ok(object) = Object::open(&dirent.path()) else { continue };
            let Ok(Some(h)) = Header::read(&object, None) else { continue };
            let trustlist = h.trustlist(&object).map(|l| l.into_iter().map(|(p, _)| p).collect()).unwrap_or_default();
            let mut hold = dirent
                .metadata()
                .ok()
                .and_then(|m| {
                    let dev = m.dev();
                    let key = (rustix::fs::major(dev), rustix::fs::minor(dev), m.ino());
                    holders.get(&key).cloned()
                })
                .unwrap_or_default();
            hold.sort_unstable();
            hold.dedup();
            out.push(EntryInfo {
                key: h.key,
                size: h.data_len,
                place: h.place,
                exporter_alive: h.exporter.is_alive(),
                exporter: h.exporter,
                trustlist_disabled: h.flags & FLAG_NO_TRUSTLIST != 0,
                trustlist,
                holders: hold,
            });
        }
        out.sort_by_key(|e| e.key);
        out
    }

    /// Every process with a slot in the root.
    pub fn processes(&self) -> Vec<ProcessInfo> {
        self.state.live_slots().map(|(_, p)| ProcessInfo { process: p, alive: p.is_alive() }).collect()
    }
}
