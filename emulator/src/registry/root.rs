//! The root directory of one emulated machine.
//!
//! `VMMKIT_ROOT` (default `/dev/shm/vmmkit-<uid>`) is created 0700; objects in
//! it are 0600. This is cooperative isolation between processes of one user,
//! not a boundary between users; a root that another user could write to,
//! or that is a symlink, is refused.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Directory of exported entries, inside the root.
pub const SHARED_DIR: &str = "shared";
/// The state file (capacity ledger, process slots), inside the root.
pub const STATE_FILE: &str = "state";

/// Why a root cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    /// The path is a symlink.
    #[error("{0}: is a symlink; an emulator root must be a real directory")]
    Symlink(PathBuf),
    /// Not a directory.
    #[error("{0}: exists and is not a directory")]
    NotDirectory(PathBuf),
    /// Owned by someone else.
    #[error("{path}: owned by uid {owner}, not by this user (uid {me})")]
    Owner {
        /// The root.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The caller.
        me: u32,
    },
    /// Group- or world-writable.
    #[error(
        "{path}: mode {mode:o} lets other users write to it; an emulator root must not be group- or world-writable (vmmkit creates roots 0700)"
    )]
    Mode {
        /// The root.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// Creates `root` (and its parents, 0700) if missing, and checks that it is
/// fit to hold shared state: a real directory, ours, private.
pub fn prepare(root: &Path) -> Result<(), RootError> {
    let io = |source| RootError::Io { path: root.to_path_buf(), source };
    match std::fs::DirBuilder::new().recursive(true).mode(0o700).create(root) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(e)),
    }
    check(root)?;
    let shared = root.join(SHARED_DIR);
    match std::fs::DirBuilder::new().mode(0o700).create(&shared) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(RootError::Io { path: shared, source }),
    }
}

/// Checks, changing nothing, that the existing `root` is fit to hold shared
/// state: a real directory, ours, private.
pub fn check(root: &Path) -> Result<(), RootError> {
    let io = |source| RootError::Io { path: root.to_path_buf(), source };
    // `link/` and `link/.` name the directory a symlink points to, and
    // `lstat` follows the link for them: look at the path without its
    // trailing `/` and `.` components, which is the link itself.
    let bare: PathBuf = root.components().collect();
    let meta = std::fs::symlink_metadata(&bare).map_err(io)?;
    if meta.file_type().is_symlink() {
        return Err(RootError::Symlink(root.into()));
    }
    if !meta.is_dir() {
        return Err(RootError::NotDirectory(root.into()));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(RootError::Owner { path: root.into(), owner: meta.uid(), me });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(RootError::Mode { path: root.into(), mode: meta.mode() & 0o7777 });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_a_private_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("a/b/root");
        prepare(&root).unwrap();
        let m = std::fs::metadata(&root).unwrap();
        assert_eq!(m.mode() & 0o777, 0o700);
        assert!(root.join(SHARED_DIR).is_dir());
        prepare(&root).unwrap(); // again: fine
    }

    #[test]
    fn refuses_symlinks_and_open_modes() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        prepare(&real).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(prepare(&link), Err(RootError::Symlink(_))));
        // Spelled so that lstat follows the link: still the link.
        for spelled in ["link/", "link/.", "link/./", "./link//"] {
            let p = PathBuf::from(format!("{}/{spelled}", t.path().display()));
            assert!(matches!(prepare(&p), Err(RootError::Symlink(_))), "{}", p.display());
        }
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(prepare(&real), Err(RootError::Mode { mode: 0o777, .. })));
        let file = t.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(matches!(prepare(&file), Err(RootError::NotDirectory(_))));
    }
}
