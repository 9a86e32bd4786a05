//! `Runtime`: one vendor table, initialised, with the errors that `Drop`s met.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use vmmkit_sys::LoadError;
use vmmkit_sys::acl::AclApi;
use vmmkit_sys::cuda::CudaApi;
use vmmkit_sys::hip::HipApi;

use crate::backend::{Backend, SelectError};
use crate::driver::{AsAny, Driver, InitGuard, Vendor, lock};
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
    pub(crate) api: Box<dyn Driver>,
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

    /// The vendor's own table, if it is a `T`.
    fn table<T: Any>(&self) -> Option<&T> {
        <dyn Driver as AsAny>::as_any(self.api.as_ref()).downcast_ref()
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
/// current context, is set by each call that needs it, see [`crate::Device::bind`]).
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
        let (api, library) = backend.vendor().table(backend.is_emulator(), backend.library())?;
        let init = api.init().map_err(|source| {
            let message = api.init_message(&source);
            OpenError::Init { backend: backend.clone(), source: Box::new(source), message }
        })?;
        let shared = Shared { api, backend, library, drop_errors: Mutex::new(Vec::new()), _init: init };
        Ok(Self { shared: Arc::new(shared) })
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
        self.shared.table()
    }

    /// The raw HIP table (see [`crate::hip`]); `None` on ACL and CUDA. HIP-only.
    pub fn hip_api(&self) -> Option<&HipApi> {
        self.shared.table()
    }

    /// The raw CUDA table (see [`crate::cuda`]); `None` on ACL and HIP. CUDA-only.
    pub fn cuda_api(&self) -> Option<&CudaApi> {
        self.shared.table()
    }

    /// Number of devices (`aclrtGetDeviceCount`, `hipGetDeviceCount`, `cuDeviceGetCount`).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn device_count(&self) -> Result<u32, Error> {
        self.shared.api.device_count()
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
