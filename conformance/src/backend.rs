//! Backends: where the vendor tables come from, and which rules a backend runs.
//!
//! This is the one place that obtains the emulator's table; checks see only
//! the table.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use vmmkit_sys::acl::AclApi;
use vmmkit_sys::cuda::CudaApi;
use vmmkit_sys::hip::HipApi;

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
            #[cfg(feature = "example-vendor")]
            Self::Emulator => &[Dialect::Acl, Dialect::Hip, Dialect::Cuda, Dialect::Example],
            #[cfg(not(feature = "example-vendor"))]
            Self::Emulator => &[Dialect::Acl, Dialect::Hip, Dialect::Cuda],
            Self::Ascend => &[Dialect::Acl],
            Self::Hip => &[Dialect::Hip],
            Self::Cuda => &[Dialect::Cuda],
            Self::Auto => &[],
        }
    }

    /// Whether this backend runs `rule`: a rule of one of its dialects (the
    /// self-test catalog's rules run everywhere). A vendor backend runs,
    /// counts and reports only its own vendor's rules.
    pub fn runs(self, rule: &Rule) -> bool {
        rule.dialect == Dialect::Selftest || self.dialects().contains(&rule.dialect)
    }

    /// Whether a rule id belongs to this backend's vendors, by its prefix
    /// (`HIP-` for `hip`): for ids that name no rule.
    pub fn owns_id(self, id: &str) -> bool {
        let prefix = id.split('-').next().unwrap_or_default();
        prefix == Dialect::Selftest.label() || self.dialects().iter().any(|d| d.label() == prefix)
    }

    /// The rules of `rules` this backend runs, in order.
    pub fn select(self, rules: Vec<&'static Rule>) -> Vec<&'static Rule> {
        rules.into_iter().filter(|r| self.runs(r)).collect()
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

/// The example vendor's table of `kind`: the emulator's (no real library exists).
///
/// # Errors
/// Why there is none (a backend other than the emulator).
#[cfg(feature = "example-vendor")]
pub fn example_table(kind: BackendKind, library: Option<&Path>) -> Result<vmmkit_sys::example::ExampleApi, String> {
    match kind {
        BackendKind::Emulator => Ok(vmmkit_emulator::example::api()),
        _ => vmmkit_sys::example::ExampleApi::load(library).map(|l| l.api).map_err(|e| e.to_string()),
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
    /// The vendor library: the file that loaded, else the one asked for.
    pub library: Option<PathBuf>,
    /// The version the library reports (`HIP 50223151 (5.2.23151)`), or
    /// vmmkit's for the emulator.
    pub version: Option<String>,
    /// The devices the rules run on (`device 0 of 2`, `2 emulated devices
    /// × 4 GiB per rule`), or why there is none.
    pub device: String,
    /// Why the backend cannot run any rule (library not loaded, no device):
    /// every rule it would run is not-supported with this.
    pub unavailable: Option<String>,
    /// What was chosen and from where, for the report.
    pub detail: String,
}

impl Backend {
    /// Resolves `kind` (`Auto` included) and loads what it needs. A real
    /// library is probed as `vmmkit doctor` probes it (version, device
    /// count); vmmkit's own drop-ins are not called, so resolving creates
    /// no emulator state.
    pub fn resolve(kind: BackendKind, library: Option<PathBuf>) -> Self {
        match kind {
            BackendKind::Emulator => Self::emulator(),
            BackendKind::Ascend | BackendKind::Hip | BackendKind::Cuda => Self::real(kind, library),
            BackendKind::Auto => {
                // A real library counts when it loads and has a device (one
                // of vmmkit's own drop-ins, named on purpose, always counts).
                let real = Self::real(BackendKind::Ascend, library);
                match &real.unavailable {
                    None => Self { detail: format!("auto: {}", real.detail), ..real },
                    Some(why) => {
                        let emulator = Self::emulator();
                        Self { detail: format!("auto: {} (no real ACL library: {why})", emulator.detail), ..emulator }
                    }
                }
            }
        }
    }

    /// The emulator: every dialect, a fresh root per rule.
    fn emulator() -> Self {
        let dialects: Vec<&str> = BackendKind::Emulator.dialects().iter().map(|d| d.label()).collect();
        let base = crate::runner::root::RunDir::base();
        Self {
            kind: BackendKind::Emulator,
            library: None,
            version: Some(format!("vmmkit {}", env!("CARGO_PKG_VERSION"))),
            device: format!(
                "{} emulated devices × {} GiB per rule (more where a rule needs them)",
                crate::runner::DEFAULT_DEVICES,
                crate::runner::DEFAULT_DEVICE_MEMORY >> 30
            ),
            unavailable: emulator_acl().err(),
            detail: format!(
                "emulator (dialects {}; a fresh root per rule under {})",
                dialects.join(", "),
                base.join("vmmkit-conformance-<pid>-<n>").display()
            ),
        }
    }

    /// A real vendor library, probed as the doctor probes it.
    fn real(kind: BackendKind, library: Option<PathBuf>) -> Self {
        let row = crate::doctor::probe(kind, library.as_deref());
        let device = match (row.usable, row.devices) {
            (true, Some(n)) => format!("device 0 of {n}"),
            _ => "none".into(),
        };
        let unavailable = (!row.usable).then(|| match &row.library {
            Some(_) => format!("no usable device: {}", row.detail),
            None => format!("library not loaded: {}", row.detail),
        });
        Self {
            kind,
            library: row.library.as_ref().map(PathBuf::from).or(library),
            version: row.shown_version.clone(),
            device,
            unavailable,
            detail: row.detail,
        }
    }

    /// Whether the backend was asked for by name and cannot run: the gate
    /// of `vmmkit conformance` ends the run (exit 2) on this unless
    /// `--allow-unavailable` is given.
    pub fn unavailable_as_requested(&self, requested: BackendKind) -> Option<&str> {
        (requested != BackendKind::Auto).then_some(self.unavailable.as_deref()).flatten()
    }

    /// The outcome of `rule` decided without running it, if there is one:
    /// a rule of a dialect this backend does not speak, or a backend that
    /// is unavailable.
    pub fn verdict(&self, rule: &Rule) -> Option<Outcome> {
        if !self.kind.runs(rule) {
            return Some(Outcome::NotSupported(format!(
                "{} rule; backend {} does not run it",
                rule.dialect.label(),
                self.kind.name(),
            )));
        }
        if rule.dialect == Dialect::Selftest {
            return None;
        }
        self.unavailable.as_ref().map(|r| Outcome::NotSupported(r.clone()))
    }
}
