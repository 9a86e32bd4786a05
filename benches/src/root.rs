//! A fresh emulator root for one bench process, removed when it ends.
//!
//! The emulator reads `VMMKIT_ROOT` once, at its first call, so a process
//! has one root: every bench target (a process of its own) makes one before
//! anything calls the backend, and its peers inherit it. The root lies on
//! `/dev/shm` (tmpfs) when there is one, as the emulator's default root does,
//! so that objects and floors are measured on the file system the emulator
//! is meant to run on; elsewhere it falls back to the temporary directory.
//! The floors' own files go in a `floor/` directory inside it.

use std::path::{Path, PathBuf};

use crate::error::{BenchError, Result};

/// Where roots are made when `/dev/shm` is a directory.
const SHM: &str = "/dev/shm";

/// A fresh root directory, removed with everything in it on drop.
#[derive(Debug)]
pub struct BenchRoot {
    dir: tempfile::TempDir,
    floor: PathBuf,
}

impl BenchRoot {
    /// Creates a fresh root (mode 0700) and its `floor/` directory, without
    /// touching the environment.
    ///
    /// # Errors
    /// The directory cannot be made.
    pub fn new() -> Result<Self> {
        let shm = Path::new(SHM);
        let mut b = tempfile::Builder::new();
        b.prefix("vmmkit-bench-");
        let dir = if shm.is_dir() { b.tempdir_in(shm) } else { b.tempdir() }
            .map_err(|e| BenchError::io("creating the bench root", e))?;
        let floor = dir.path().join("floor");
        std::fs::create_dir(&floor).map_err(|e| BenchError::io(format!("creating {}", floor.display()), e))?;
        Ok(Self { dir, floor })
    }

    /// Creates a fresh root and points `VMMKIT_ROOT` at it.
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
        unsafe { std::env::set_var("VMMKIT_ROOT", root.path()) };
        Ok(root)
    }

    /// The root directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
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
        let path = self.dir.path().to_path_buf();
        self.dir.close().map_err(|e| BenchError::io(format!("removing {}", path.display()), e))
    }
}
