//! Backends: where the vendor tables come from, and which rules a backend runs.
//!
//! This is the one place that obtains the emulator's table; checks see only
//! the table.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use vmmkit_sys::acl::{AclApi, AclError};
use vmmkit_sys::cuda::CudaApi;
use vmmkit_sys::hip::HipApi;

use crate::acl::Acl;

use crate::outcome::Outcome;
use crate::rule::{Dialect, Rule};

/// A backend as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum BackendKind {
    /// The in-process emulator (every dialect it has).
    Emulator,
    /// A real `libascendcl.so`.
    Ascend,
    /// A real `libamdhip64.so` (HIP rules).
    Hip,
    /// A real `libcuda.so.1` (CUDA rules).
    Cuda,
    /// A real library when one loads and has a device, else the emulator.
    Auto,
}

impl BackendKind {
    /// The name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Emulator => "emulator",
            Self::Ascend => "ascend",
            Self::Hip => "hip",
            Self::Cuda => "cuda",
            Self::Auto => "auto",
        }
    }

    /// The dialects whose rules this backend runs.
    pub fn dialects(self) -> &'static [Dialect] {
        match self {
            Self::Emulator => &[Dialect::Acl, Dialect::Hip, Dialect::Cuda],
            Self::Ascend => &[Dialect::Acl],
            Self::Hip => &[Dialect::Hip],
            Self::Cuda => &[Dialect::Cuda],
            Self::Auto => &[],
        }
    }
}

/// The emulator's ACL table.
///
/// # Errors
/// Why the emulator cannot provide one, as a not-supported reason.
pub fn emulator_acl() -> Result<AclApi, String> {
    Ok(vmmkit_emulator::acl::api())
}

/// The HIP table of `kind`: the emulator's, or a real `libamdhip64`'s.
///
/// # Errors
/// Why there is none (load error, or a backend that has no HIP table).
pub fn hip_table(kind: BackendKind, library: Option<&Path>) -> Result<HipApi, String> {
    match kind {
        BackendKind::Emulator => Ok(vmmkit_emulator::hip::api()),
        BackendKind::Hip => HipApi::load(library).map(|l| l.api).map_err(|e| e.to_string()),
        BackendKind::Ascend | BackendKind::Cuda | BackendKind::Auto => {
            Err(format!("backend {} has no HIP table", kind.name()))
        }
    }
}

/// The CUDA table of `kind`: the emulator's, or a real `libcuda.so.1`'s.
///
/// # Errors
/// Why there is none (load error, or a backend that has no CUDA table).
pub fn cuda_table(kind: BackendKind, library: Option<&Path>) -> Result<CudaApi, String> {
    match kind {
        BackendKind::Emulator => Ok(vmmkit_emulator::cuda::api()),
        BackendKind::Cuda => CudaApi::load(library).map(|l| l.api).map_err(|e| e.to_string()),
        BackendKind::Ascend | BackendKind::Hip | BackendKind::Auto => {
            Err(format!("backend {} has no CUDA table", kind.name()))
        }
    }
}

/// The ACL table of `kind`: the emulator's, or a real library's.
///
/// # Errors
/// Why there is none (load error, or a backend that has no ACL table).
pub fn acl_table(kind: BackendKind, library: Option<&Path>) -> Result<AclApi, String> {
    match kind {
        BackendKind::Emulator => emulator_acl(),
        BackendKind::Ascend => AclApi::load(library).map(|l| l.api).map_err(|e| e.to_string()),
        BackendKind::Hip | BackendKind::Cuda | BackendKind::Auto => {
            Err(format!("backend {} has no ACL table", kind.name()))
        }
    }
}

/// A backend chosen for a run, with what is known before any rule runs.
#[derive(Debug, Clone)]
pub struct Backend {
    /// The backend (never `Auto`).
    pub kind: BackendKind,
    /// The vendor library asked for.
    pub library: Option<PathBuf>,
    /// Why the backend cannot run any rule (library not loaded, emulator
    /// table absent): every rule it would run is not-supported with this.
    pub unavailable: Option<String>,
    /// What was chosen and from where, for the report.
    pub detail: String,
}

impl Backend {
    /// Resolves `kind` (`Auto` included) and loads what it needs.
    pub fn resolve(kind: BackendKind, library: Option<PathBuf>) -> Self {
        match kind {
            BackendKind::Emulator => {
                let unavailable = emulator_acl().err();
                let detail = "vmmkit emulator (in-process ACL, HIP and CUDA tables)".into();
                Self { kind, library, unavailable, detail }
            }
            BackendKind::Ascend => match AclApi::load(library.as_deref()) {
                Ok(l) => Self {
                    kind,
                    detail: format!("libascendcl from {}", l.path.display()),
                    library: Some(l.path.to_path_buf()),
                    unavailable: None,
                },
                Err(e) => {
                    Self { kind, library, unavailable: Some(e.to_string()), detail: "libascendcl not loaded".into() }
                }
            },
            // A real libamdhip64 with no device (hip.md §1.4: 100 or 101 from
            // the first device query) runs no rule: every one is not-supported.
            BackendKind::Hip => match HipApi::load(library.as_deref()) {
                Ok(l) => Self {
                    kind,
                    detail: format!("libamdhip64 from {}", l.path.display()),
                    library: Some(l.path.to_path_buf()),
                    unavailable: crate::hip::probe(&crate::hip::Hip::new(l.api)).err(),
                },
                Err(e) => {
                    Self { kind, library, unavailable: Some(e.to_string()), detail: "libamdhip64 not loaded".into() }
                }
            },
            // A real libcuda.so.1 whose cuInit(0) says "no device" (100) or
            // "stub" (34) runs no rule: every one is not-supported (cuda.md §1.1).
            BackendKind::Cuda => match CudaApi::load(library.as_deref()) {
                Ok(l) => Self {
                    kind,
                    detail: format!("libcuda from {}", l.path.display()),
                    library: Some(l.path.to_path_buf()),
                    unavailable: crate::cuda::probe(&crate::cuda::Cuda::new(l.api)).err(),
                },
                Err(e) => Self { kind, library, unavailable: Some(e.to_string()), detail: "libcuda not loaded".into() },
            },
            BackendKind::Auto => {
                // A real library counts when it loads and has a device (one
                // of vmmkit's own drop-ins, named on purpose, always counts).
                let fallback = |why: String| {
                    let mut b = Self::resolve(BackendKind::Emulator, None);
                    b.detail = format!("auto: emulator ({why})");
                    b
                };
                match AclApi::load(library.as_deref()) {
                    Ok(l) => {
                        let mut n = 0u32;
                        let r =
                            if l.is_vmmkit_shim { AclError::SUCCESS } else { Acl::new(l.api).get_device_count(&mut n) };
                        if l.is_vmmkit_shim || (r.is_success() && n > 0) {
                            Self {
                                kind: BackendKind::Ascend,
                                detail: format!("auto: libascendcl from {}", l.path.display()),
                                library: Some(l.path.to_path_buf()),
                                unavailable: None,
                            }
                        } else {
                            fallback(format!("{} has no device: aclrtGetDeviceCount gave {r}, {n}", l.path.display()))
                        }
                    }
                    Err(e) => fallback(format!("no real library: {e}")),
                }
            }
        }
    }

    /// The outcome of `rule` decided without running it, if there is one:
    /// a rule of a dialect this backend does not speak, or a backend that
    /// is unavailable.
    pub fn verdict(&self, rule: &Rule) -> Option<Outcome> {
        if rule.dialect == Dialect::Selftest {
            return None;
        }
        if !self.kind.dialects().contains(&rule.dialect) {
            let runs = self.kind.dialects().iter().map(|d| d.label()).collect::<Vec<_>>().join("/");
            return Some(Outcome::NotSupported(format!(
                "{} rule; backend {} runs {} rules",
                rule.dialect.label(),
                self.kind.name(),
                if runs.is_empty() { "no" } else { &runs }
            )));
        }
        self.unavailable.as_ref().map(|r| Outcome::NotSupported(r.clone()))
    }
}
