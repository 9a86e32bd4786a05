//! The root directory of one emulated machine.
//!
//! `VMMKIT_ROOT` (default `/dev/shm/vmmkit-<uid>`) is created 0700, its
//! `shared/` 0700 and `state` 0600, whatever the umask (a umask such as 277
//! would otherwise leave a root its owner cannot write to); objects in it are
//! 0600. This is cooperative isolation between processes of one user, not a
//! boundary between users; a root that another user could write to, or that
//! is a symlink, is refused, and so is a `shared/` that is a symlink, not a
//! directory, not ours, or open to group or others.
//!
//! A directory is a vmmkit root when it holds our `shared/`. In a directory
//! without one, a `state` that is not empty and does not start with our
//! magic is someone else's file: the directory is refused, naming the file,
//! rather than the file overwritten. A vmmkit root whose `state` is empty or
//! damaged stays usable (the ledger is recounted from the entries).

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// Directory of exported entries, inside the root.
pub const SHARED_DIR: &str = "shared";
/// The state file (capacity ledger, process slots), inside the root.
pub const STATE_FILE: &str = "state";
/// How every version of the state file starts ("VMMKSTA" and a version digit).
const STATE_MAGIC_PREFIX: &[u8] = b"VMMKSTA";

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
    /// Its owner may not read, write or search it.
    #[error(
        "{path}: mode {mode:o} does not let its owner read, write and enter it; an emulator root must be 0700 (chmod 700 it, or remove it)"
    )]
    OwnerAccess {
        /// The root.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The root's `shared/` is unfit.
    #[error(
        "{path}: {problem}; the shared/ directory of an emulator root must be a real directory of this user, mode 0700"
    )]
    Shared {
        /// The `shared/` directory.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A file named `state` that vmmkit did not write, in a directory that is not a vmmkit root.
    #[error(
        "{0}: a file that is not vmmkit's state is in the way, in a directory that is not an emulator root (no shared/); \
         vmmkit will not overwrite it: choose another VMMKIT_ROOT, or move the file"
    )]
    ForeignState(PathBuf),
    /// The root's `state` is not a regular file.
    #[error("{0}: is not a regular file; the state file of an emulator root must be one (remove it)")]
    StateNotFile(PathBuf),
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// Makes the directory `path` with mode 0700 exactly, whatever the umask,
/// and its missing parents the same way. Returns whether it was made.
///
/// The directory is made under a temporary name, given its mode, and then
/// renamed into place (without replacing anything): another process making
/// the same root never sees it with the umask's mode (0500 under umask 277).
fn make_private_dir(path: &Path) -> Result<bool, RootError> {
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
    static MADE: AtomicU32 = AtomicU32::new(0);
    let io = |source: io::Error| RootError::Io { path: path.to_path_buf(), source };
    match std::fs::symlink_metadata(path) {
        Ok(_) => return Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io(io::ErrorKind::NotFound.into()));
    };
    if !parent.as_os_str().is_empty() {
        make_private_dir(parent)?;
    }
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".vmmkit-new-{}-{}", std::process::id(), MADE.fetch_add(1, Relaxed)));
    let tmp = parent.join(tmp_name);
    rustix::fs::mkdir(&tmp, Mode::RWXU).map_err(|e| io(e.into()))?;
    let placed = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o700)).and_then(|()| {
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            &tmp,
            rustix::fs::CWD,
            path,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::EXIST) => Ok(false),
            // A file system without RENAME_NOREPLACE: make it in place.
            Err(rustix::io::Errno::INVAL) => match rustix::fs::mkdir(path, Mode::RWXU) {
                Ok(()) => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)).map(|()| false),
                Err(rustix::io::Errno::EXIST) => Ok(false),
                Err(e) => Err(e.into()),
            },
            Err(e) => Err(e.into()),
        }
    });
    if !matches!(placed, Ok(true)) {
        let _ = std::fs::remove_dir(&tmp);
    }
    placed.map_err(io)
}

/// Creates `root` (and its parents, 0700) if missing, and checks that it is
/// fit to hold shared state (see [`check`]); then makes its `shared/` (0700)
/// and an empty `state` (0600) where they are missing.
pub fn prepare(root: &Path) -> Result<(), RootError> {
    let bare: PathBuf = root.components().collect();
    make_private_dir(&bare)?;
    check(root)?;
    let shared = bare.join(SHARED_DIR);
    if !make_private_dir(&shared)? {
        check_shared(&shared)?;
    }
    create_state(&bare)
}

/// The POSIX default ACL [`exact_modes`] gives the root, as the kernel's
/// `system.posix_acl_default` attribute holds it (`posix_acl_xattr.h`:
/// version 2, then `{u16 tag, u16 perm, u32 id}` entries sorted by tag):
/// the owner rwx, the group nothing, others nothing.
const DEFAULT_ACL: [u8; 28] = [
    2, 0, 0, 0, // version
    0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff, // ACL_USER_OBJ rwx
    0x04, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, // ACL_GROUP_OBJ ---
    0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, // ACL_OTHER ---
];

/// Whether a file created in `root` gets exactly the mode its creator asks
/// for (0600 for objects), whatever the umask: true when `root` has the
/// default ACL [`DEFAULT_ACL`], which this gives it if it can.
///
/// Where the parent directory has a default ACL the kernel applies it
/// instead of the umask (`mode_strip_umask` / `posix_acl_create`), and this
/// one keeps every bit the root's files and directories are made with
/// (0600, 0700). A root on a file system without POSIX ACLs (or whose
/// attribute cannot be set) answers false, and objects are then given their
/// mode with an `fchmod` each, as before: saving that system call on every
/// allocation is all this is for.
pub fn exact_modes(root: &Path) -> bool {
    const NAME: &str = "system.posix_acl_default";
    let mut buf = [0u8; DEFAULT_ACL.len() + 1];
    if rustix::fs::getxattr(root, NAME, &mut buf[..]).is_ok_and(|n| buf[..n] == DEFAULT_ACL) {
        return true;
    }
    rustix::fs::setxattr(root, NAME, &DEFAULT_ACL, rustix::fs::XattrFlags::empty()).is_ok()
}

/// Creates an empty `state` (0600 whatever the umask) unless there is one.
fn create_state(root: &Path) -> Result<(), RootError> {
    let path = root.join(STATE_FILE);
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::RDWR | OFlags::CLOEXEC;
    match rustix::fs::open(&path, flags, Mode::RUSR | Mode::WUSR) {
        Ok(fd) => {
            rustix::fs::fchmod(&fd, Mode::RUSR | Mode::WUSR).map_err(|e| RootError::Io { path, source: e.into() })
        }
        Err(rustix::io::Errno::EXIST) => Ok(()),
        Err(e) => Err(RootError::Io { path, source: e.into() }),
    }
}

/// Checks, changing nothing, that the existing `root` is fit to hold shared
/// state: a real directory, ours, private, that its owner can use; its
/// `shared/`, if any, a real directory, ours, 0700; and its `state`, if any,
/// a regular file, which in a directory without `shared/` is empty or ours.
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
    if meta.mode() & 0o700 != 0o700 {
        return Err(RootError::OwnerAccess { path: root.into(), mode: meta.mode() & 0o7777 });
    }
    let shared = bare.join(SHARED_DIR);
    let is_root = match std::fs::symlink_metadata(&shared) {
        Ok(_) => {
            check_shared(&shared)?;
            true
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(source) => return Err(RootError::Io { path: shared, source }),
    };
    match check_state(&bare.join(STATE_FILE), is_root) {
        // vmmkit makes `shared/` before `state`, and a process setting the
        // root up gives `state` its length before its magic: a `state` read
        // after `shared/` was found missing may be another process's, made
        // in between. If `shared/` is there now, this is a root after all.
        Err(RootError::ForeignState(state)) => match std::fs::symlink_metadata(&shared) {
            Ok(_) => check_shared(&shared),
            Err(_) => Err(RootError::ForeignState(state)),
        },
        other => other,
    }
}

/// `shared/` must be a real directory, ours, that only we can use.
fn check_shared(shared: &Path) -> Result<(), RootError> {
    let bad = |problem: String| RootError::Shared { path: shared.to_path_buf(), problem };
    let meta = std::fs::symlink_metadata(shared).map_err(|source| RootError::Io { path: shared.into(), source })?;
    if meta.file_type().is_symlink() {
        return Err(bad("is a symlink".into()));
    }
    if !meta.is_dir() {
        return Err(bad("is not a directory".into()));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(bad(format!("owned by uid {}, not by this user (uid {me})", meta.uid())));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(bad(format!("mode {mode:o} lets group or others in")));
    }
    if mode & 0o700 != 0o700 {
        return Err(bad(format!("mode {mode:o} does not let its owner read, write and enter it")));
    }
    Ok(())
}

/// `state`, if present, must be a regular file; outside a vmmkit root (no
/// `shared/`) also empty or starting with our magic.
fn check_state(state: &Path, is_root: bool) -> Result<(), RootError> {
    let io = |source| RootError::Io { path: state.to_path_buf(), source };
    let meta = match std::fs::symlink_metadata(state) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    if !meta.file_type().is_file() {
        return Err(RootError::StateNotFile(state.into()));
    }
    if is_root || meta.len() == 0 {
        return Ok(());
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = rustix::fs::open(state, flags, Mode::empty()).map_err(|e| io(e.into()))?;
    let mut head = [0u8; STATE_MAGIC_PREFIX.len()];
    let n = rustix::io::pread(&fd, &mut head, 0).map_err(|e| io(e.into()))?;
    if head[..n] == *STATE_MAGIC_PREFIX {
        return Ok(());
    }
    Err(RootError::ForeignState(state.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// With the default ACL, a file's mode is what its creator asked for
    /// cut to the owner's bits, and the umask plays no part: 0666 asked
    /// gives 0600 (under the usual umask 022 it would be 0644). A file
    /// system without POSIX ACLs takes the other path, the one the registry
    /// then uses: an `fchmod` per object, with the same 0600 result.
    #[test]
    fn objects_are_private_with_or_without_the_default_acl() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        prepare(&root).unwrap();
        if !exact_modes(&root) {
            let o = crate::os::object::Object::create(&root, 4096, true).unwrap();
            let st = rustix::fs::fstat(o.fd()).unwrap();
            assert_eq!(st.st_mode & 0o7777, 0o600, "{} has no POSIX ACLs: an object with fchmod", root.display());
            return;
        }
        assert!(exact_modes(&root), "recognised the second time");
        let f = root.join("f");
        let flags = OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::CLOEXEC;
        drop(rustix::fs::open(&f, flags, Mode::from_raw_mode(0o666)).unwrap());
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o7777, 0o600);
        let d = root.join("d");
        rustix::fs::mkdir(&d, Mode::from_raw_mode(0o777)).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().permissions().mode() & 0o7777, 0o700);
        let o = crate::os::object::Object::create(&root, 4096, false).unwrap();
        let st = rustix::fs::fstat(o.fd()).unwrap();
        assert_eq!(st.st_mode & 0o7777, 0o600, "an object without fchmod");
    }

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

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    /// `shared/` that is a symlink, a file, open to others, not usable by
    /// its owner: refused by name, never followed.
    #[test]
    fn refuses_an_unfit_shared() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("root");
        prepare(&root).unwrap();
        let shared = root.join(SHARED_DIR);
        std::fs::remove_dir(&shared).unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &shared).unwrap();
        for f in [prepare, check] {
            let e = f(&root).unwrap_err();
            assert!(matches!(&e, RootError::Shared { path, .. } if *path == shared), "{e}");
            assert!(e.to_string().contains("is a symlink"), "{e}");
        }
        assert!(names(&elsewhere).is_empty(), "nothing made through the link");
        std::fs::remove_file(&shared).unwrap();
        std::fs::write(&shared, b"").unwrap();
        assert!(prepare(&root).unwrap_err().to_string().contains("is not a directory"));
        std::fs::remove_file(&shared).unwrap();
        std::fs::create_dir(&shared).unwrap();
        for (mode, says) in
            [(0o755, "lets group or others in"), (0o710, "lets group or others in"), (0o500, "does not let its owner")]
        {
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = prepare(&root).unwrap_err();
            assert!(matches!(e, RootError::Shared { .. }) && e.to_string().contains(says), "{mode:o}: {e}");
        }
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).unwrap();
        prepare(&root).unwrap();
    }

    /// A user's own `state` in a directory that is not a root is refused
    /// and left as it was; an empty one, ours, or any `state` of a root with
    /// `shared/` is accepted.
    #[test]
    fn a_users_own_state_is_not_overwritten() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("mine");
        std::fs::create_dir(&dir).unwrap();
        let state = dir.join(STATE_FILE);
        for content in [&b"my notes"[..], b"VMM", b"VMMKENT1", b"\0\0\0\0\0\0\0\0"] {
            std::fs::write(&state, content).unwrap();
            for f in [prepare, check] {
                let e = f(&dir).unwrap_err();
                assert!(matches!(&e, RootError::ForeignState(p) if *p == state), "{e}");
                assert!(e.to_string().contains("will not overwrite"), "{e}");
            }
            assert_eq!(std::fs::read(&state).unwrap(), content);
            assert_eq!(names(&dir), ["state"], "nothing made beside it");
        }
        std::fs::write(&state, b"").unwrap();
        prepare(&dir).unwrap();
        let other = t.path().join("ours-without-shared");
        prepare(&other).unwrap();
        std::fs::remove_dir(other.join(SHARED_DIR)).unwrap();
        std::fs::write(other.join(STATE_FILE), b"VMMKSTA1 and the rest").unwrap();
        prepare(&other).unwrap();
        // A root (it has our shared/) whose state is damaged stays usable.
        std::fs::write(other.join(STATE_FILE), b"garbage").unwrap();
        prepare(&other).unwrap();
        assert_eq!(std::fs::read(other.join(STATE_FILE)).unwrap(), b"garbage", "left for the ledger to recount");
        // Not a regular file: refused, root or not.
        std::fs::remove_file(other.join(STATE_FILE)).unwrap();
        std::os::unix::fs::symlink(&state, other.join(STATE_FILE)).unwrap();
        assert!(matches!(prepare(&other), Err(RootError::StateNotFile(_))));
        std::fs::remove_file(other.join(STATE_FILE)).unwrap();
        std::fs::create_dir(other.join(STATE_FILE)).unwrap();
        assert!(matches!(prepare(&other), Err(RootError::StateNotFile(_))));
    }

    /// A root its owner cannot write to (left by an old vmmkit under umask
    /// 277) is refused with a clear error; a fresh root, `shared/` and
    /// `state` get exact modes; no temporary name is left behind.
    #[test]
    fn modes_are_exact_and_an_unusable_root_is_named() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("a/root");
        prepare(&root).unwrap();
        for (p, want) in [(t.path().join("a"), 0o700), (root.clone(), 0o700), (root.join(SHARED_DIR), 0o700)] {
            assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, want, "{}", p.display());
        }
        assert_eq!(std::fs::metadata(root.join(STATE_FILE)).unwrap().mode() & 0o7777, 0o600);
        assert_eq!(names(t.path()), ["a"]);
        assert_eq!(names(&t.path().join("a")), ["root"]);
        assert_eq!(names(&root), ["shared", "state"]);
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o500)).unwrap();
        let e = prepare(&root).unwrap_err();
        assert!(matches!(e, RootError::OwnerAccess { mode: 0o500, .. }), "{e}");
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}
