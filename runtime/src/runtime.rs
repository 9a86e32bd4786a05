//! `Runtime`: one vendor table, initialised, with the errors that `Drop`s met.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use vmmkit_sys::LoadError;
use vmmkit_sys::acl::{AclApi, AclError};

use crate::backend::{Backend, SelectError, Selection};
use crate::device::Device;
use crate::error::Error;

/// Why a [`Runtime`] could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// `VMMKIT_BACKEND` names no backend.
    #[error(transparent)]
    Select(#[from] SelectError),
    /// The vendor library could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The library refused to initialise.
    #[error("{backend}: {source}{}", .message.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
    Init {
        /// The backend.
        backend: Backend,
        /// What `aclInit` returned.
        source: Error,
        /// The library's explanation (`aclGetRecentErrMsg`), if any.
        message: Option<String>,
    },
    /// A table this crate's safe API cannot drive yet.
    #[error("{backend}: the safe API is driven by ACL tables only for now; HIP and CUDA plug in with their own issues")]
    NotDriven {
        /// The backend.
        backend: Backend,
    },
}

/// Most errors kept for [`Runtime::take_drop_errors`]; later ones are only logged.
const DROP_ERRORS_KEPT: usize = 1024;

/// What every owner of the crate shares: the table and its initialisation.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) api: AclApi,
    backend: Backend,
    library: Option<PathBuf>,
    drop_errors: Mutex<Vec<Error>>,
    _init: InitGuard,
}

impl Shared {
    /// Keeps an error that a `Drop` met (it cannot return it), and logs it.
    pub(crate) fn record(&self, e: Error) {
        tracing::warn!(target: "vmmkit::runtime", "release in Drop failed: {e}");
        let mut v = lock(&self.drop_errors);
        if v.len() < DROP_ERRORS_KEPT {
            v.push(e);
        }
    }
}

/// A vendor library (or the emulator), initialised for this process.
///
/// Cloning is cheap and shares the library. Everything made from a runtime
/// (devices, memory, reservations, mappings) keeps it alive, so
/// `aclFinalize` runs after the last of them is gone.
///
/// `Send` and `Sync`: the table is plain function pointers into a library
/// whose runtime API is callable from any thread (the per-thread state, the
/// current context, is set by each call that needs it, see [`Device::bind`]).
#[derive(Debug, Clone)]
pub struct Runtime {
    pub(crate) shared: Arc<Shared>,
}

impl Runtime {
    /// Opens `backend`: takes the emulator's table or loads the library,
    /// then initialises it (`aclInit`).
    ///
    /// # Errors
    /// The library cannot be loaded or initialised, or it is a HIP or CUDA
    /// library (which the safe API does not drive yet).
    pub fn new(backend: Backend) -> Result<Self, OpenError> {
        let (api, library) = match &backend {
            Backend::Emulator => (vmmkit_emulator::acl::api(), None),
            Backend::Ascend(path) => {
                let l = AclApi::load(path.as_deref())?;
                (l.api, Some(l.path.to_path_buf()))
            }
            Backend::Hip(_) | Backend::Cuda(_) => return Err(OpenError::NotDriven { backend }),
        };
        let init = match InitGuard::new(api) {
            Ok(g) => g,
            Err(source) => {
                // The emulator's text repeats the call and the code; keep the reason.
                let message = crate::acl::get_recent_err_msg(&api).map(|m| {
                    let suffix = format!(" ({})", source.code);
                    let m = m.strip_prefix("aclInit: ").unwrap_or(&m);
                    m.strip_suffix(suffix.as_str()).unwrap_or(m).to_owned()
                });
                return Err(OpenError::Init { backend, source, message });
            }
        };
        let shared = Shared { api, backend, library, drop_errors: Mutex::new(Vec::new()), _init: init };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// Opens the backend `VMMKIT_BACKEND` names, else a real library that
    /// loads, has a device and that this crate drives ([`Backend::DRIVEN`]:
    /// ACL for now), else the emulator. [`Runtime::select`] says why.
    ///
    /// # Errors
    /// As [`Backend::auto`] and [`Runtime::new`].
    pub fn auto() -> Result<Self, OpenError> {
        Self::new(Self::select()?.backend)
    }

    /// The selection [`Runtime::auto`] makes, with its reason.
    ///
    /// # Errors
    /// `VMMKIT_BACKEND` names no backend.
    pub fn select() -> Result<Selection, SelectError> {
        Backend::select_with(std::env::var_os(Backend::ENV), &Backend::DRIVEN, Backend::probe)
    }

    /// The backend.
    pub fn backend(&self) -> &Backend {
        &self.shared.backend
    }

    /// The library file that was loaded (`None` for the in-process emulator).
    pub fn library(&self) -> Option<&Path> {
        self.shared.library.as_deref()
    }

    /// The raw table, for calls this crate does not wrap (see [`crate::acl`]).
    pub fn api(&self) -> &AclApi {
        &self.shared.api
    }

    /// Number of devices (`aclrtGetDeviceCount`).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn device_count(&self) -> Result<u32, Error> {
        crate::acl::get_device_count(self.api())
    }

    /// Opens device `id` (`aclrtSetDevice`); it is reset when the last owner
    /// made from it is dropped.
    ///
    /// # Errors
    /// The vendor's code, e.g. 107001 for a device that does not exist.
    pub fn device(&self, id: u32) -> Result<Device, Error> {
        Device::open(self, id)
    }

    /// The host pid that other processes put in a trustlist for this one
    /// (`aclrtDeviceGetBareTgid`; it differs from `getpid()` in containers).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn host_pid(&self) -> Result<i32, Error> {
        crate::acl::device_get_bare_tgid(self.api())
    }

    /// The chip name the library reports (`aclrtGetSocName`).
    pub fn soc_name(&self) -> Option<String> {
        crate::acl::get_soc_name(self.api())
    }

    /// The errors that releases in `Drop` met since the last call (at most
    /// 1024 are kept; all are logged with `tracing`).
    pub fn take_drop_errors(&self) -> Vec<Error> {
        std::mem::take(&mut *lock(&self.shared.drop_errors))
    }
}

/// One initialisation of one ACL library.
#[derive(Debug)]
struct Init {
    /// The address of the library's `aclInit`: tells libraries apart.
    key: usize,
    /// Live runtimes over it.
    users: usize,
    /// Whether our `aclInit` succeeded (else someone else initialised it, and
    /// someone else finalises it).
    ours: bool,
}

/// The ACL libraries that runtimes of this process have initialised.
///
/// Why a global: `aclInit` and `aclFinalize` act on the whole process
/// (ACL-GEN-001: a second `aclInit` fails; ACL-GEN-002: `aclFinalize` tears
/// down everything), so two runtimes over one library must share one
/// initialisation and finalise once, after the last of them. Only
/// [`InitGuard::new`] and its `Drop` take this lock.
static INITS: Mutex<Vec<Init>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A runtime's share of its library's initialisation.
#[derive(Debug)]
struct InitGuard {
    api: AclApi,
    key: usize,
}

impl InitGuard {
    fn new(api: AclApi) -> Result<Self, Error> {
        let key = api.aclInit as usize;
        let mut inits = lock(&INITS);
        if let Some(i) = inits.iter_mut().find(|i| i.key == key) {
            i.users += 1;
            return Ok(Self { api, key });
        }
        let ours = match crate::acl::init(&api, None) {
            Ok(()) => true,
            // Initialised by the program itself: it finalises too.
            Err(e) if e.code == AclError::REPEAT_INITIALIZE => false,
            Err(e) => return Err(e),
        };
        inits.push(Init { key, users: 1, ours });
        Ok(Self { api, key })
    }
}

impl Drop for InitGuard {
    fn drop(&mut self) {
        let mut inits = lock(&INITS);
        let Some(at) = inits.iter().position(|i| i.key == self.key) else { return };
        inits[at].users -= 1;
        if inits[at].users > 0 {
            return;
        }
        let last = inits.swap_remove(at);
        if last.ours
            && let Err(e) = crate::acl::finalize(&self.api)
        {
            tracing::warn!(target: "vmmkit::runtime", "{e}");
        }
    }
}
