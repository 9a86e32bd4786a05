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

    /// Creates a fresh root and installs this process's emulator on it
    /// (`vmmkit_emulator::install`: the environment's other settings, this
    /// root). Peers get the root through their own environment.
    ///
    /// # Errors
    /// The directory cannot be made, or the emulator of this process is
    /// already running (install the root before the first backend call).
    pub fn install() -> Result<Self> {
        let root = Self::new()?;
        let config = vmmkit_emulator::Config::from_env()
            .map_err(|e| BenchError::Check(format!("emulator settings: {e}")))?
            .with_root(root.path());
        vmmkit_emulator::install(config).map_err(|e| BenchError::Check(format!("installing the emulator: {e}")))?;
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
