//! A fresh emulator root for one bench process, removed when it ends.
//!
//! The emulator reads `VMMKIT_ROOT` once, at its first call, so a process
//! has one root: every bench target (a process of its own) makes one before
//! anything calls the backend, and its peers inherit it. The root lies on
//! `/dev/shm` (tmpfs) when there is one, as the emulator's default root does,
//! so that objects and floors are measured on the file system the emulator
//! is meant to run on; elsewhere it falls back to the temporary directory.
//! It is a [`vmmkit_testkit::TestRoot`]; the floors' own files go in a
//! `floor/` directory beside the root, in its scratch directory.

use std::path::{Path, PathBuf};

use vmmkit_testkit::TestRoot;

use crate::error::{BenchError, Result};

/// A fresh root directory, removed with everything in it on drop.
#[derive(Debug)]
pub struct BenchRoot {
    root: TestRoot,
    floor: PathBuf,
}

impl BenchRoot {
    /// Creates a fresh root (the emulator makes the directory, mode 0700, at
    /// its first call) and the `floor/` directory beside it, without
    /// touching the environment.
    ///
    /// # Errors
    /// The directory cannot be made.
    pub fn new() -> Result<Self> {
        let root = TestRoot::on_shm("vmmkit-bench-").map_err(|e| BenchError::io("creating the bench root", e))?;
        let floor = root.scratch().join("floor");
        std::fs::create_dir(&floor).map_err(|e| BenchError::io(format!("creating {}", floor.display()), e))?;
        Ok(Self { root, floor })
    }

    /// Creates a fresh root and points `VMMKIT_ROOT` at it.
    ///
    /// The backend runs in the bench process itself and reads the root from
    /// this process's environment: until the emulator takes its
    /// configuration another way (`vmmkit_emulator::install(Config)`), this
    /// is the one `set_var` left. Peers get the root through theirs.
    ///
    /// # Safety
    /// Changes the environment: call it before this process starts any
    /// thread (other than ones that never read the environment), and before
    /// the first backend call, which reads `VMMKIT_ROOT` once.
    ///
    /// # Errors
    /// The directory cannot be made.
    pub unsafe fn install() -> Result<Self> {
        let root = Self::new()?;
        // SAFETY: the caller's contract: no other thread reads the environment now.
        unsafe { std::env::set_var(vmmkit_testkit::root::ROOT_ENV, root.path()) };
        Ok(root)
    }

    /// The root directory.
    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// The directory of the floors' files (same file system as the root).
    pub fn floor_dir(&self) -> &Path {
        &self.floor
    }

    /// Removes the root now, reporting a failure.
    ///
    /// # Errors
    /// The directory could not be removed.
    pub fn remove(self) -> Result<()> {
        let path = self.root.scratch().to_path_buf();
        self.root.close().map_err(|e| BenchError::io(format!("removing {}", path.display()), e))
    }
}
