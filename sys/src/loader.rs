//! Finding and opening a vendor library with `libloading`.
//!
//! The search order is the same for every vendor: an explicit path, then the
//! vendor's environment (`ASCEND_HOME_PATH`, `ROCM_PATH`), then the standard
//! sonames (searched by the dynamic loader), then the vendor's default install
//! directory. Loaded libraries are never unloaded: vendor runtimes keep
//! threads and atexit handlers that do not survive `dlclose`, and CUDA's
//! documentation says never to unload the driver.

use std::fmt;
use std::path::{Path, PathBuf};

use libloading::Library;

/// Where one vendor's library is looked for.
#[derive(Debug, Clone, Copy)]
pub struct LibrarySpec {
    /// Vendor name for messages (`"ACL"`, `"HIP"`, `"CUDA"`).
    pub vendor: &'static str,
    /// Environment variable holding an explicit path to the library file.
    pub path_env: &'static str,
    /// Environment variable naming an install prefix, and the subdirectories of it to search.
    pub home_env: Option<(&'static str, &'static [&'static str])>,
    /// File names, in order of preference, searched by the dynamic loader and in the directories.
    pub names: &'static [&'static str],
    /// The vendor's default install directories.
    pub default_dirs: &'static [&'static str],
    /// File names that must never be loaded (e.g. CUDA's development stub).
    pub refused: &'static [&'static str],
}

/// A library that was opened, and where it came from.
#[derive(Debug)]
pub struct Opened {
    /// The library, leaked for the life of the process.
    pub library: &'static Library,
    /// The candidate that opened (a path, or a soname resolved by the dynamic loader).
    pub path: PathBuf,
}

/// One place that was tried, with why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The path or soname tried.
    pub candidate: String,
    /// The loader's message.
    pub error: String,
}

/// Why a vendor table could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// No candidate opened.
    #[error("{vendor}: no library could be opened; tried: {}", Tried(.tried))]
    NotFound {
        /// Vendor name.
        vendor: &'static str,
        /// Every candidate, in order, with the loader's message.
        tried: Vec<Attempt>,
    },
    /// A library opened but lacks required entry points.
    #[error("{vendor}: {} lacks {} required symbol(s): {}", .path.display(), .missing.len(), .missing.join(", "))]
    MissingSymbols {
        /// Vendor name.
        vendor: &'static str,
        /// The library that was opened.
        path: PathBuf,
        /// Every required symbol it lacks.
        missing: Vec<&'static str>,
    },
    /// An explicit path names a library that must not be used.
    #[error("{vendor}: refusing {}: {reason}", .path.display())]
    Refused {
        /// Vendor name.
        vendor: &'static str,
        /// The refused path.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
}

struct Tried<'a>(&'a [Attempt]);

impl fmt::Display for Tried<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{} ({})", a.candidate, a.error)?;
        }
        Ok(())
    }
}

impl LibrarySpec {
    /// The candidates in search order for an optional explicit path.
    pub fn candidates(&self, explicit: Option<&Path>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(p) = explicit {
            out.push(p.to_path_buf());
            return out;
        }
        if let Some(p) = std::env::var_os(self.path_env).filter(|v| !v.is_empty()) {
            out.push(PathBuf::from(p));
            return out;
        }
        if let Some((var, subdirs)) = self.home_env
            && let Some(home) = std::env::var_os(var).filter(|v| !v.is_empty())
        {
            let home = PathBuf::from(home);
            for sub in subdirs {
                for name in self.names {
                    out.push(home.join(sub).join(name));
                }
            }
        }
        for name in self.names {
            out.push(PathBuf::from(name));
        }
        for dir in self.default_dirs {
            for name in self.names {
                out.push(Path::new(dir).join(name));
            }
        }
        out
    }

    /// Opens the first candidate that loads.
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate tried, or
    /// [`LoadError::Refused`] for a refused file name.
    pub fn open(&self, explicit: Option<&Path>) -> Result<Opened, LoadError> {
        let mut tried = Vec::new();
        for cand in self.candidates(explicit) {
            if let Some(file) = cand.file_name().and_then(|f| f.to_str())
                && self.refused.contains(&file)
            {
                return Err(LoadError::Refused {
                    vendor: self.vendor,
                    path: cand,
                    reason: "this name is a development stub, not a driver",
                });
            }
            // A bare soname goes to the dynamic loader's search; a path with a
            // directory that does not exist is not worth a dlopen.
            if cand.components().count() > 1 && !cand.exists() {
                tried.push(Attempt { candidate: cand.display().to_string(), error: "no such file".into() });
                continue;
            }
            // SAFETY: loading a vendor library runs its initialisers; that is
            // the purpose of this function, and the library is never unloaded.
            match unsafe { Library::new(&cand) } {
                Ok(lib) => {
                    let library: &'static Library = Box::leak(Box::new(lib));
                    return Ok(Opened { library, path: cand });
                }
                Err(e) => tried.push(Attempt { candidate: cand.display().to_string(), error: e.to_string() }),
            }
        }
        Err(LoadError::NotFound { vendor: self.vendor, tried })
    }
}

/// A table loaded from a library, with the path it came from.
#[derive(Debug, Clone, Copy)]
pub struct Loaded<T> {
    /// The entry points.
    pub api: T,
    /// The file (or soname) that was opened.
    pub path: &'static Path,
}

/// Opens a library by `spec` and fills a table with `fill`.
pub(crate) fn load<T>(
    spec: &LibrarySpec,
    explicit: Option<&Path>,
    fill: impl FnOnce(&'static Library) -> Result<T, Vec<&'static str>>,
) -> Result<Loaded<T>, LoadError> {
    let opened = spec.open(explicit)?;
    match fill(opened.library) {
        Ok(api) => Ok(Loaded { api, path: Box::leak(opened.path.into_boxed_path()) }),
        Err(missing) => Err(LoadError::MissingSymbols { vendor: spec.vendor, path: opened.path, missing }),
    }
}
