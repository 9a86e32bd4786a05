//! Emulator roots for a run: one directory per run (on `/dev/shm` when it
//! exists, else the temp dir), one fresh `VMMKIT_ROOT` per rule inside it,
//! all 0700 and removed when dropped, so a run leaves nothing behind.
#![forbid(unsafe_code)]

use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The per-run directory.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    next: AtomicUsize,
}

impl RunDir {
    /// Creates `vmmkit-conformance-<pid>-<n>` under `/dev/shm` (or the temp dir).
    pub fn new() -> io::Result<Self> {
        Self::new_in(&Self::base())
    }

    /// Where run directories go: `/dev/shm` when it exists, else the temp dir.
    pub fn base() -> PathBuf {
        if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() }
    }

    /// Creates the run directory under `base`.
    pub fn new_in(base: &Path) -> io::Result<Self> {
        let pid = std::process::id();
        for n in 0..1000 {
            let path = base.join(format!("vmmkit-conformance-{pid}-{n}"));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(Self { path, next: AtomicUsize::new(0) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
            }
        }
        Err(io::Error::other(format!("{}: no free name for a run directory after 1000 tries", base.display())))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh, empty 0700 root for rule `id`.
    pub fn rule_root(&self, id: &str) -> io::Result<RuleRoot> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self.path.join(format!("{n:04}-{id}"));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(RuleRoot { path })
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// One rule's `VMMKIT_ROOT`, removed with everything in it when dropped.
#[derive(Debug)]
pub struct RuleRoot {
    path: PathBuf,
}

impl RuleRoot {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RuleRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn roots_are_private_and_removed() {
        let base = std::env::temp_dir();
        let run = RunDir::new_in(&base).unwrap();
        let run_path = run.path().to_path_buf();
        let root = run.rule_root("ACL-MAP-003").unwrap();
        let p = root.path().to_path_buf();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o700);
        std::fs::write(p.join("object"), b"x").unwrap();
        drop(root);
        assert!(!p.exists());
        drop(run);
        assert!(!run_path.exists());
    }
}
