//! `Runtime`: one vendor table, initialised, with the errors that `Drop`s met.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use vmmkit_sys::LoadError;
use vmmkit_sys::acl::AclApi;
use vmmkit_sys::cuda::CudaApi;
use vmmkit_sys::hip::HipApi;

use crate::backend::{Backend, SelectError, Selection};
use crate::device::Device;
use crate::driver::{Api, InitGuard, Vendor, lock};
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
        /// What `aclInit`, `hipInit` or `cuInit` returned (boxed: it keeps
        /// every `Result<_, OpenError>` small).
        source: Box<Error>,
        /// The library's explanation (ACL's `aclGetRecentErrMsg`), if any.
        message: Option<String>,
    },
}

/// Most errors kept for [`Runtime::take_drop_errors`]; later ones are only logged.
const DROP_ERRORS_KEPT: usize = 1024;

/// What every owner of the crate shares: the table and its initialisation.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) api: Api,
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
/// ACL's `aclFinalize` runs after the last of them is gone.
///
/// `Send` and `Sync`: the table is plain function pointers into a library
/// whose runtime API is callable from any thread (the per-thread state, the
/// current context, is set by each call that needs it, see [`Device::bind`]).
#[derive(Debug, Clone)]
pub struct Runtime {
    pub(crate) shared: Arc<Shared>,
}

impl Runtime {
    /// Opens `backend`: takes the emulator's table (of the dialect the
    /// backend names) or loads the library, then initialises it (`aclInit`,
    /// `hipInit(0)`, `cuInit(0)`).
    ///
    /// # Errors
    /// The library cannot be loaded or initialised.
    pub fn new(backend: Backend) -> Result<Self, OpenError> {
        let (api, library) = match &backend {
            Backend::Emulator => (Api::Acl(Box::new(vmmkit_emulator::acl::api())), None),
            Backend::EmulatorHip => (Api::Hip(Box::new(vmmkit_emulator::hip::api())), None),
            Backend::EmulatorCuda => (Api::Cuda(Box::new(vmmkit_emulator::cuda::api())), None),
            Backend::Ascend(path) => {
                let l = AclApi::load(path.as_deref())?;
                (Api::Acl(Box::new(l.api)), Some(l.path.to_path_buf()))
            }
            Backend::Hip(path) => {
                let l = HipApi::load(path.as_deref())?;
                (Api::Hip(Box::new(l.api)), Some(l.path.to_path_buf()))
            }
            Backend::Cuda(path) => {
                let l = CudaApi::load(path.as_deref())?;
                (Api::Cuda(Box::new(l.api)), Some(l.path.to_path_buf()))
            }
        };
        let init = match api.init() {
            Ok(g) => g,
            Err(source) => {
                // The emulator's text repeats the call and the code; keep the reason.
                let Api::Acl(acl) = &api else {
                    return Err(OpenError::Init { backend, source: Box::new(source), message: None });
                };
                let message = crate::acl::get_recent_err_msg(acl).map(|m| {
                    let suffix = format!(" ({})", source.code);
                    let m = m.strip_prefix("aclInit: ").unwrap_or(&m);
                    m.strip_suffix(suffix.as_str()).unwrap_or(m).to_owned()
                });
                return Err(OpenError::Init { backend, source: Box::new(source), message });
            }
        };
        let shared = Shared { api, backend, library, drop_errors: Mutex::new(Vec::new()), _init: init };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// Opens the backend `VMMKIT_BACKEND` names, else a real library that
    /// loads and has a device ([`Backend::DRIVEN`]: Ascend, HIP, CUDA, in
    /// that order), else the emulator's ACL dialect. [`Runtime::select`] says why.
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

    /// The vendor whose C API the table speaks.
    pub fn vendor(&self) -> Vendor {
        self.shared.api.vendor()
    }

    /// The raw ACL table, for calls this crate does not wrap (see
    /// [`crate::acl`]); `None` on HIP and CUDA. ACL-only.
    pub fn acl_api(&self) -> Option<&AclApi> {
        match &self.shared.api {
            Api::Acl(a) => Some(a.as_ref()),
            _ => None,
        }
    }

    /// The raw HIP table (see [`crate::hip`]); `None` on ACL and CUDA. HIP-only.
    pub fn hip_api(&self) -> Option<&HipApi> {
        match &self.shared.api {
            Api::Hip(a) => Some(a.as_ref()),
            _ => None,
        }
    }

    /// The raw CUDA table (see [`crate::cuda`]); `None` on ACL and HIP. CUDA-only.
    pub fn cuda_api(&self) -> Option<&CudaApi> {
        match &self.shared.api {
            Api::Cuda(a) => Some(a.as_ref()),
            _ => None,
        }
    }

    /// Number of devices (`aclrtGetDeviceCount`, `hipGetDeviceCount`, `cuDeviceGetCount`).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn device_count(&self) -> Result<u32, Error> {
        self.shared.api.device_count()
    }

    /// Opens device `id` (ACL: `aclrtSetDevice`, reset when the last owner
    /// made from it is dropped; CUDA: its primary context, retained and
    /// released likewise; HIP: `hipSetDevice`).
    ///
    /// # Errors
    /// The vendor's code, e.g. 107001 for a device that does not exist.
    pub fn device(&self, id: u32) -> Result<Device, Error> {
        Device::open(self, id)
    }

    /// The host pid that other processes put in a trustlist for this one
    /// (ACL: `aclrtDeviceGetBareTgid`, which differs from `getpid()` in
    /// containers; HIP and CUDA, which have no trustlist: `getpid()`).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn host_pid(&self) -> Result<i32, Error> {
        self.shared.api.host_pid()
    }

    /// The chip name the library reports (`aclrtGetSocName`); `None` on HIP
    /// and CUDA. ACL-only.
    pub fn soc_name(&self) -> Option<String> {
        self.acl_api().and_then(crate::acl::get_soc_name)
    }

    /// The errors that releases in `Drop` met since the last call (at most
    /// 1024 are kept; all are logged with `tracing`).
    pub fn take_drop_errors(&self) -> Vec<Error> {
        std::mem::take(&mut *lock(&self.shared.drop_errors))
    }
}
