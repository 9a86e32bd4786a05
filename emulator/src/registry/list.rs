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
    // Files under `dir` are on its file system (the root is a private
    // directory the emulator made): an fd's `ino:` line names the file
    // without a `stat` through the fd's link.
    let dir_dev = std::fs::metadata(&dir).ok().map(|m| m.dev());
    let mut out: HashMap<(u64, u64), BTreeSet<u32>> = HashMap::new();
    let mut info = Vec::with_capacity(512);
    for pid in all {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            if !std::fs::read_link(fd.path()).is_ok_and(|t| t.starts_with(&dir)) {
                continue;
            }
            let fdinfo = format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy());
            if read_small(&fdinfo, &mut info).is_err() {
                continue;
            }
            let text = String::from_utf8_lossy(&info);
            // "lock:\t1: FLOCK  ADVISORY  READ  1234 00:1a:5678 0 EOF"
            let owner = text.lines().find(|l| l.starts_with("lock:") && l.contains("FLOCK")).and_then(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let at = f.iter().position(|w| *w == "FLOCK")?;
                f.get(at + 3)?.parse::<u32>().ok()
            });
            let Some(owner) = owner else { continue };
            let ino = text.lines().find_map(|l| l.strip_prefix("ino:")).and_then(|v| v.trim().parse::<u64>().ok());
            let file = match (dir_dev, ino) {
                (Some(dev), Some(ino)) => Some((dev, ino)),
                // Kernels before 5.14 write no `ino:` line.
                _ => std::fs::metadata(fd.path()).ok().map(|m| (m.dev(), m.ino())),
            };
            if let Some(file) = file {
                out.entry(file).or_default().insert(owner);
            }
        }
    }
    out
}

/// Reads the small file `path` into `buf` (`open`, `read` until the end,
/// `close`: not `std::fs`'s `read_to_end`, which first asks for the file's
/// size and position, two calls that a `/proc` file answers with nothing).
fn read_small(path: &str, buf: &mut Vec<u8>) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    buf.clear();
    let mut chunk = [0u8; 1024];
    loop {
        match rustix::io::read(&fd, &mut chunk)? {
            0 => return Ok(()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The pids holding the file of `dirent` (on `dev`), from [`flock_holders`]'
/// map: its inode from the directory listing, no `stat` per entry.
fn holders_of(dev: u64, dirent: &std::fs::DirEntry, holders: &HashMap<(u64, u64), BTreeSet<u32>>) -> Vec<u32> {
    use std::os::unix::fs::DirEntryExt;
    holders.get(&(dev, dirent.ino())).map(|h| h.iter().copied().collect()).unwrap_or_default()
}

/// Whether each exporter or creator is alive, asked once per process: a
/// root of 100,000 entries from a few processes reads `/proc` a few times.
#[derive(Default)]
struct Alive(HashMap<ProcessId, bool>);

impl Alive {
    fn of(&mut self, p: ProcessId) -> bool {
        *self.0.entry(p).or_insert_with(|| p.is_alive())
    }
}

/// What `vmmkit ls` shows of a root's shared directory: its exported entries
/// and its shared cells, each ordered by key, from one look at the holders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// The exported entries.
    pub entries: Vec<EntryInfo>,
    /// The shared events and notifies.
    pub cells: Vec<CellInfo>,
}

impl Registry {
    /// Every exported entry of the root, ordered by key.
    pub fn entries(&self) -> Vec<EntryInfo> {
        self.listing().entries
    }

    /// Every exported entry and shared cell of the root: one listing of
    /// `shared/` and one look at every process's descriptors for the
    /// holders, then per entry its file's `open`, `fstat`, header
    /// (`fgetxattr`), trustlist (a `pread`, only when it lists pids) and
    /// `close`; whether an exporter is alive is asked once per process.
    /// Linear in the entries and the descriptors open on the machine.
    pub fn listing(&self) -> Listing {
        // The exporter's fd names the object by its first, unnamed path in the
        // root (`#INODE (deleted)`), so look under the whole root; the match is
        // by (device, inode).
        let holders = flock_holders(&self.root, None);
        let mut alive = Alive::default();
        let mut out = Listing::default();
        for dirent in std::fs::read_dir(&self.shared).into_iter().flatten().flatten() {
            let Some(key) = dirent.file_name().to_str().and_then(|n| u64::from_str_radix(n, 16).ok()) else { continue };
            let Ok(object) = Object::open(&dirent.path()) else { continue };
            let Ok(st) = rustix::fs::fstat(object.fd()) else { continue };
            let hold = || holders_of(st.st_dev, &dirent, &holders);
            if key & super::CELL_KEY_BIT != 0 {
                let Ok(Some(h)) = super::CellHeader::read(&object, key) else { continue };
                out.cells.push(CellInfo {
                    key,
                    kind: h.kind,
                    creator: h.creator,
                    creator_alive: alive.of(h.creator),
                    withdrawn: h.withdrawn,
                    holders: hold(),
                });
                continue;
            }
            let Ok(Some(h)) = Header::read_sized(&object, st.st_size as u64, None) else { continue };
            // A copy of an entry under another name is not an entry.
            if h.key != key || dirent.file_name().to_str() != Some(&format!("{key:016x}")) {
                continue;
            }
            let trustlist = match h.trust_len {
                0 => Vec::new(),
                _ => h.trustlist(&object).map(|l| l.into_iter().map(|g| g.pid).collect()).unwrap_or_default(),
            };
            out.entries.push(EntryInfo {
                key: h.key,
                size: h.data_len,
                place: h.place,
                exporter_alive: alive.of(h.exporter),
                exporter: h.exporter,
                trustlist_disabled: h.trust == Trust::AnyProcess,
                trustlist,
                holders: hold(),
            });
        }
        out.entries.sort_by_key(|e| e.key);
        out.cells.sort_by_key(|c| c.key);
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
        self.listing().cells
    }
}
