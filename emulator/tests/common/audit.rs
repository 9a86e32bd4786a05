//! Invariants of a root and of a process, checked from outside the calls
//! under test: the registry's own view (`gc`, `usage`, `entries`), who holds
//! each entry (the `flock` owners in `/proc/<pid>/fdinfo`), the files in
//! the root, and what a process has mapped or open.
//!
//! The registry is opened with `Registry::open_existing`, so one test
//! process can audit many roots without being a participant in any (it
//! takes no slot and holds no entry).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use vmmkit_emulator::registry::{EntryInfo, GcReport, Registry, flock_holders};

/// The device window every dialect places reservations in.
pub const WINDOW: std::ops::Range<usize> = 0x1000_0000_0000..0x1800_0000_0000;

/// The registry of `root`, as it is.
pub fn registry(root: &Path) -> Registry {
    Registry::open_existing(root).unwrap_or_else(|e| panic!("open {}: {e}", root.display()))
}

/// Runs `gc` on `root`.
pub fn gc(root: &Path) -> GcReport {
    registry(root).gc().expect("gc")
}

/// Bytes in use per device.
pub fn used(root: &Path) -> Vec<u64> {
    registry(root).usage().used
}

/// Exported entries of `root`, with their metadata (`Registry::entries`).
/// Its holders come from `/proc/locks`, whose cost grows with the square of
/// the number of locks on the whole machine; the audits below use
/// [`entry_keys`] and [`flock_holders`] instead.
pub fn entries(root: &Path) -> Vec<EntryInfo> {
    registry(root).entries()
}

/// Keys of the entries linked in `root` (the names in `shared/`), sorted.
pub fn entry_keys(root: &Path) -> Vec<u64> {
    let mut keys: Vec<u64> = std::fs::read_dir(root.join("shared"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| u64::from_str_radix(e.file_name().to_str()?, 16).ok())
        .collect();
    keys.sort_unstable();
    keys
}

/// Every path under `root`, relative, sorted (directories included).
pub fn listing(root: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(base).expect("under base").display().to_string());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Asserts that `root` holds only `state`, `shared/` and the entries `keys`.
pub fn assert_files(root: &Path, keys: &[u64], what: &str) {
    let mut want = vec!["shared".to_string(), "state".to_string()];
    want.extend(keys.iter().map(|k| format!("shared/{k:016x}")));
    want.sort();
    assert_eq!(listing(root), want, "{what}: files in the root");
}

/// Asserts the whole root is back to empty: no entry, no hold, no capacity
/// in use, only `state` and an empty `shared/`.
pub fn assert_clean(root: &Path, what: &str) {
    assert_eq!(entry_keys(root), Vec::<u64>::new(), "{what}: registry entries");
    assert!(used(root).iter().all(|&u| u == 0), "{what}: device usage {:?}", used(root));
    assert_files(root, &[], what);
}

/// Keys of the entries of `root` and their holders, from every process's
/// `/proc/<pid>/fdinfo` (see [`flock_holders`]).
pub fn holders(root: &Path) -> Vec<(u64, Vec<u32>)> {
    holders_with(root, flock_holders(root, None))
}

/// As [`holders`], looking only at the processes `pids` (cheap; for checks
/// that know every process of the root).
pub fn holders_among(root: &Path, pids: &[u32]) -> Vec<(u64, Vec<u32>)> {
    holders_with(root, flock_holders(root, Some(pids)))
}

fn holders_with(root: &Path, by_inode: HashMap<(u64, u64), BTreeSet<u32>>) -> Vec<(u64, Vec<u32>)> {
    use std::os::unix::fs::MetadataExt;
    let mut out: Vec<(u64, Vec<u32>)> = entry_keys(root)
        .into_iter()
        .map(|key| {
            let m = std::fs::symlink_metadata(root.join("shared").join(format!("{key:016x}")));
            let held = m.ok().and_then(|m| by_inode.get(&(m.dev(), m.ino()))).cloned().unwrap_or_default();
            (key, held.into_iter().collect())
        })
        .collect();
    out.sort();
    out
}

/// What a process has: (emulator census (handles, reservations, mappings),
/// mappings in the device window, fds open on files in `root` other than `state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessCensus {
    /// The emulator's own count: handles, reservations, mappings.
    pub census: (usize, usize, usize),
    /// Lines of `/proc/self/maps` in the device window.
    pub window_maps: usize,
    /// Open fds on objects of the root (entries or unnamed objects).
    pub root_fds: usize,
}

/// Lines of `/proc/self/maps` that start in the device window, but for the
/// page the emulator keeps there for the life of the process
/// (`vmmkit_emulator::core::WINDOW_ANCHOR`).
pub fn window_maps() -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|l| l.split('-').next().and_then(|a| usize::from_str_radix(a, 16).ok()))
        .filter(|a| WINDOW.contains(a) && *a != vmmkit_emulator::core::WINDOW_ANCHOR)
        .count()
}

/// Lines of `/proc/self/maps` in all.
pub fn all_maps() -> usize {
    std::fs::read_to_string("/proc/self/maps").unwrap_or_default().lines().count()
}

/// Open fds of this process on files of `root`, except its `state` file
/// and its `shared/` directory (both open for the life of the registry).
pub fn root_fds(root: &Path) -> usize {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let (state, shared) = (root.join("state"), root.join("shared"));
    // The arena (one file for all the memory not shared) is the emulator's
    // for its life, not a leak.
    let arena = vmmkit_emulator::core::running().and_then(|e| e.arena_file());
    let is_arena = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).is_ok_and(|m| Some((m.dev(), m.ino())) == arena)
    };
    std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|t| t.starts_with(&root) && t != state && t != shared))
        .filter(|e| !is_arena(&e.path()))
        .count()
}

/// This process's census in `root`.
pub fn process_census(root: &Path) -> ProcessCensus {
    let census = vmmkit_emulator::core::emulator().map(|e| e.census()).unwrap_or((0, 0, 0));
    ProcessCensus { census, window_maps: window_maps(), root_fds: root_fds(root) }
}

/// Pids holding any entry of `root`.
pub fn all_holders(root: &Path) -> BTreeSet<u32> {
    holders(root).into_iter().flat_map(|(_, h)| h).collect()
}

/// The key of the entry of `root` that the fd `fd` (an exported POSIX-fd
/// shareable handle) opens: the entry file with the same inode.
pub fn key_of_fd(root: &Path, fd: std::os::fd::BorrowedFd<'_>) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let st = rustix::fs::fstat(fd).ok()?;
    entry_keys(root).into_iter().find(|k| {
        std::fs::metadata(root.join("shared").join(format!("{k:016x}")))
            .is_ok_and(|m| m.ino() == st.st_ino && m.dev() == st.st_dev)
    })
}
