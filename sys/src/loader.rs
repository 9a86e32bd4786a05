//! Finding and opening a vendor library with `libloading`.
//!
//! The search order is the same for every vendor: an explicit path, then the
//! vendor's environment (`ASCEND_HOME_PATH`, `ROCM_PATH`), then the standard
//! sonames (searched by the dynamic loader), then the vendor's default install
//! directory. Loaded libraries are never unloaded: vendor runtimes keep
//! threads and atexit handlers that do not survive `dlclose`, and CUDA's
//! documentation says never to unload the driver.
//!
//! vmmkit's own drop-in libraries (the emulator's `libascendcl.so`,
//! `libamdhip64.so`) export [`SHIM_MARKER`]. The default search skips them,
//! so that a machine without the vendor's library reports "not found" instead
//! of silently testing the emulator through its shim; a path given explicitly
//! (argument or `*_LIBRARY` variable) loads them like any other.

use std::fmt;
use std::path::{Path, PathBuf};

use libloading::Library;

/// The symbol that marks one of vmmkit's own drop-in libraries: a C function
/// `const char *vmmkit_shim_info(void)`. Only its presence is tested.
pub const SHIM_MARKER: &str = "vmmkit_shim_info";

/// Why the default search passed over a library that exports [`SHIM_MARKER`].
pub const SHIM_SKIPPED: &str = "vmmkit's own drop-in library; pass its path explicitly to test it";

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
    /// Whether it is one of vmmkit's own drop-in libraries (it exports [`SHIM_MARKER`]),
    /// which only an explicit path loads.
    pub is_vmmkit_shim: bool,
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
    /// The library file the user chose: `explicit`, else the path in
    /// [`LibrarySpec::path_env`] if it is set and not empty. `None` means the
    /// default search.
    pub fn chosen(&self, explicit: Option<&Path>) -> Option<PathBuf> {
        explicit
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(self.path_env).filter(|v| !v.is_empty()).map(PathBuf::from))
    }

    /// The candidates in search order for an optional explicit path.
    pub fn candidates(&self, explicit: Option<&Path>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(p) = self.chosen(explicit) {
            out.push(p);
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

    /// Opens the first candidate that loads. In the default search (no
    /// [`LibrarySpec::chosen`] file) a library exporting [`SHIM_MARKER`] is
    /// passed over and listed in `tried` with [`SHIM_SKIPPED`].
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate tried, or
    /// [`LoadError::Refused`] for a refused file name.
    pub fn open(&self, explicit: Option<&Path>) -> Result<Opened, LoadError> {
        let default_search = self.chosen(explicit).is_none();
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
                    let is_vmmkit_shim = exports_shim_marker(&lib);
                    // Whether skipped or used, the library stays loaded: a shim
                    // is a Rust library whose thread-local destructors would
                    // outlive a `dlclose`.
                    let library: &'static Library = Box::leak(Box::new(lib));
                    if skips_shim(default_search, is_vmmkit_shim) {
                        tried.push(Attempt { candidate: cand.display().to_string(), error: SHIM_SKIPPED.into() });
                        continue;
                    }
                    return Ok(Opened { library, path: cand, is_vmmkit_shim });
                }
                Err(e) => {
                    let candidate = cand.display().to_string();
                    // dlerror's text starts with the name tried, which `candidate` already gives.
                    let text = e.to_string();
                    let error = text.strip_prefix(&format!("{candidate}: ")).map_or(text.clone(), str::to_owned);
                    tried.push(Attempt { candidate, error });
                }
            }
        }
        Err(LoadError::NotFound { vendor: self.vendor, tried })
    }
}

/// Whether `lib` exports [`SHIM_MARKER`].
fn exports_shim_marker(lib: &Library) -> bool {
    // SAFETY: the symbol is looked up, never called or read, so the type
    // given to `get` does not matter.
    unsafe { lib.get::<*const std::ffi::c_void>(SHIM_MARKER.as_bytes()) }.is_ok()
}

/// The search passes over vmmkit's own library only when the user did not choose a file.
fn skips_shim(default_search: bool, is_vmmkit_shim: bool) -> bool {
    default_search && is_vmmkit_shim
}

/// A table loaded from a library, with the path it came from.
#[derive(Debug, Clone, Copy)]
pub struct Loaded<T> {
    /// The entry points.
    pub api: T,
    /// The file (or soname) that was opened.
    pub path: &'static Path,
    /// Whether it is one of vmmkit's own drop-in libraries, loaded because its path was given.
    pub is_vmmkit_shim: bool,
}

/// Opens a library by `spec` and fills a table with `fill`.
pub(crate) fn load<T>(
    spec: &LibrarySpec,
    explicit: Option<&Path>,
    fill: impl FnOnce(&'static Library) -> Result<T, Vec<&'static str>>,
) -> Result<Loaded<T>, LoadError> {
    let opened = spec.open(explicit)?;
    match fill(opened.library) {
        Ok(api) => {
            Ok(Loaded { api, path: Box::leak(opened.path.into_boxed_path()), is_vmmkit_shim: opened.is_vmmkit_shim })
        }
        Err(missing) => Err(LoadError::MissingSymbols { vendor: spec.vendor, path: opened.path, missing }),
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// A scratch directory of this test process, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("vmmkit-sys-loader-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("create a scratch directory");
            Self(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Builds `dir/name` as a shared library with `cc`, exporting the shim
    /// marker or not.
    fn build_library(dir: &Path, name: &str, marker: bool) -> PathBuf {
        let src = dir.join(format!("{name}.c"));
        let body = if marker {
            format!("const char *{SHIM_MARKER}(void) {{ return \"vmmkit test shim\"; }}\n")
        } else {
            "int vmmkit_test_not_a_shim(void) { return 0; }\n".to_owned()
        };
        std::fs::write(&src, body).expect("write the C source");
        let out = dir.join(name);
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg(&src)
            .status()
            .expect("run cc (a C compiler is needed to link Rust itself)");
        assert!(status.success(), "cc failed: {status}");
        out
    }

    fn leak_str(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    /// A spec that searches only `dirs` for `name`, with an environment
    /// variable that nothing sets.
    fn spec(name: &'static str, dirs: Vec<&'static str>) -> LibrarySpec {
        LibrarySpec {
            vendor: "TEST",
            path_env: "VMMKIT_TEST_NEVER_SET_LIBRARY",
            home_env: None,
            names: Box::leak(vec![name].into_boxed_slice()),
            default_dirs: Box::leak(dirs.into_boxed_slice()),
            refused: &[],
        }
    }

    #[test]
    fn default_search_skips_a_vmmkit_shim_but_an_explicit_path_loads_it() {
        // The name must not be found by the dynamic loader's own search, so
        // that only the default directories are in play.
        const NAME: &str = "libvmmkit-loader-test-vendor.so";
        let shim_dir = Scratch::new("shim");
        let real_dir = Scratch::new("real");
        let shim = build_library(&shim_dir.0, NAME, true);
        let real = build_library(&real_dir.0, NAME, false);

        // Only the shim: not found, and `tried` says why.
        let only_shim = spec(NAME, vec![leak_str(shim_dir.0.display().to_string())]);
        match only_shim.open(None) {
            Err(LoadError::NotFound { tried, .. }) => {
                let at = tried.iter().find(|a| a.candidate == shim.display().to_string()).expect("shim tried");
                assert_eq!(at.error, SHIM_SKIPPED);
            }
            Err(e) => panic!("expected NotFound, got {e}"),
            Ok(o) => panic!("the default search loaded the shim at {}", o.path.display()),
        }

        // The shim first, the vendor's library next: the search goes on to it.
        let both =
            spec(NAME, vec![leak_str(shim_dir.0.display().to_string()), leak_str(real_dir.0.display().to_string())]);
        let opened = both.open(None).expect("the non-shim library opens");
        assert_eq!(opened.path, real);
        assert!(!opened.is_vmmkit_shim);

        // Given explicitly, the shim loads and says what it is.
        let opened = only_shim.open(Some(&shim)).expect("an explicit shim opens");
        assert_eq!(opened.path, shim);
        assert!(opened.is_vmmkit_shim);
    }

    #[test]
    fn only_the_default_search_skips_shims() {
        assert!(skips_shim(true, true));
        assert!(!skips_shim(false, true));
        assert!(!skips_shim(true, false));
        assert!(!skips_shim(false, false));
    }
}
