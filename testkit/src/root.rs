//! `TestRoot`: a fresh emulator root for one test (or bench process), in a
//! temporary directory removed on drop.
//!
//! The root reaches the processes that use it through their environment
//! ([`TestRoot::apply`] on their `Command`), never through this process's:
//! `set_var` is unsound once threads run, and libtest runs tests on threads.
//! [`TestRoot::leftovers`] lists the exported objects still in the root; a
//! root made [`TestRoot::checked`] fails the test on drop if any is left.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that names the emulator's root.
pub const ROOT_ENV: &str = "VMMKIT_ROOT";
/// Where roots go with [`TestRoot::on_shm`] when it is a directory.
pub const SHM: &str = "/dev/shm";

/// A temporary directory holding an emulator root.
#[derive(Debug)]
pub struct TestRoot {
    dir: Option<tempfile::TempDir>,
    root: PathBuf,
    checked: bool,
}

impl TestRoot {
    /// A fresh root in the temporary directory (`$TMPDIR`), its directory
    /// named `<prefix>XXXXXX`. The root itself, `root/` inside it, is left for
    /// the emulator to create (with its own mode).
    pub fn new(prefix: &str) -> std::io::Result<Self> {
        Self::made(tempfile::Builder::new().prefix(prefix).tempdir()?)
    }

    /// As [`TestRoot::new`], on `/dev/shm` (tmpfs, where the emulator's
    /// default root is) when it is a directory, else in the temporary directory.
    pub fn on_shm(prefix: &str) -> std::io::Result<Self> {
        let shm = Path::new(SHM);
        let mut b = tempfile::Builder::new();
        b.prefix(prefix);
        Self::made(if shm.is_dir() { b.tempdir_in(shm)? } else { b.tempdir()? })
    }

    fn made(dir: tempfile::TempDir) -> std::io::Result<Self> {
        let root = dir.path().join("root");
        Ok(Self { dir: Some(dir), root, checked: false })
    }

    /// Makes the drop fail the test (panic, unless it is panicking already)
    /// when an exported object is left in the root.
    pub fn checked(mut self) -> Self {
        self.checked = true;
        self
    }

    /// The emulator root.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The temporary directory around the root, for the test's other files
    /// (same file system); removed with it.
    pub fn scratch(&self) -> &Path {
        self.root.parent().unwrap_or(&self.root)
    }

    /// Points `cmd` at this root (`VMMKIT_ROOT`).
    pub fn apply<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.env(ROOT_ENV, &self.root)
    }

    /// The exported objects left in the root (the names in its `shared/`), sorted.
    pub fn leftovers(&self) -> Vec<String> {
        let mut left: Vec<String> = std::fs::read_dir(self.root.join("shared"))
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        left.sort();
        left
    }

    /// `Err` naming the exported objects left in the root, if any.
    pub fn check_clean(&self) -> Result<(), String> {
        let left = self.leftovers();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("objects left in {}: {left:?}", self.root.join("shared").display()))
        }
    }

    /// Removes the root now, reporting a failure to remove it (a drop
    /// ignores that).
    pub fn close(mut self) -> std::io::Result<()> {
        self.check_on_drop();
        self.dir.take().map_or(Ok(()), tempfile::TempDir::close)
    }

    fn check_on_drop(&mut self) {
        if self.checked && !std::thread::panicking() {
            self.checked = false;
            if let Err(e) = self.check_clean() {
                panic!("{e}");
            }
        }
    }
}

impl Drop for TestRoot {
    fn drop(&mut self) {
        // A test fixture: failing the test is this check's purpose.
        self.check_on_drop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_seen_and_the_root_goes() {
        let root = TestRoot::new("vmmkit-testkit-").unwrap();
        let scratch = root.scratch().to_path_buf();
        assert_eq!(root.leftovers(), Vec::<String>::new());
        std::fs::create_dir_all(root.path().join("shared")).unwrap();
        std::fs::write(root.path().join("shared/00000000000000ab"), b"").unwrap();
        assert_eq!(root.leftovers(), vec!["00000000000000ab".to_string()]);
        assert!(root.check_clean().unwrap_err().contains("00000000000000ab"));
        let out = root.apply(&mut Command::new("sh")).args(["-c", "printf %s \"$VMMKIT_ROOT\""]).output().unwrap();
        assert_eq!(Path::new(std::str::from_utf8(&out.stdout).unwrap()), root.path());
        drop(root);
        assert!(!scratch.exists());
    }

    #[test]
    #[should_panic(expected = "objects left in")]
    fn a_checked_root_fails_on_leftovers() {
        let root = TestRoot::new("vmmkit-testkit-").unwrap().checked();
        std::fs::create_dir_all(root.path().join("shared")).unwrap();
        std::fs::write(root.path().join("shared/1"), b"").unwrap();
    }
}
