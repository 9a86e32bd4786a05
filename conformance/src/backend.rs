//! Backends: which rules a backend runs, and the backend a run resolves to,
//! with what is known of it before any rule runs. The backends themselves
//! come from the one list of vendors ([`crate::vendors`]); checks obtain
//! their tables through [`Backed::api`](crate::vendors::Backed::api) and see
//! only the table.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::outcome::Outcome;
use crate::probe;
use crate::rule::{Dialect, Rule};
use crate::run_dir::RunDir;
pub use crate::vendors::BackendKind;

/// Emulated devices a rule gets unless it needs more.
pub const DEFAULT_DEVICES: u32 = 2;
/// Emulated device capacity unless a rule needs a small device.
pub const DEFAULT_DEVICE_MEMORY: u64 = 4 << 30;

impl BackendKind {
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
            BackendKind::Auto => {
                // Each vendor's library in the list's order; one counts when
                // it loads and has a device (one of vmmkit's own drop-ins,
                // named on purpose, always counts).
                let mut why = Vec::new();
                for &vendor in BackendKind::VENDORS {
                    let real = Self::real(vendor, library.clone());
                    match &real.unavailable {
                        None => return Self { detail: format!("auto: {}", real.detail), ..real },
                        Some(reason) => why.push(format!("{}: {reason}", vendor.name())),
                    }
                }
                let emulator = Self::emulator();
                let detail = format!("auto: {} (no real library with a device; {})", emulator.detail, why.join("; "));
                Self { detail, ..emulator }
            }
            _ => Self::real(kind, library),
        }
    }

    /// The emulator: every dialect, a fresh root per rule.
    fn emulator() -> Self {
        let dialects: Vec<&str> = BackendKind::Emulator.dialects().iter().map(|d| d.label()).collect();
        let base = RunDir::base();
        Self {
            kind: BackendKind::Emulator,
            library: None,
            version: Some(format!("vmmkit {}", env!("CARGO_PKG_VERSION"))),
            device: format!(
                "{} emulated devices × {} GiB per rule (more where a rule needs them)",
                DEFAULT_DEVICES,
                DEFAULT_DEVICE_MEMORY >> 30
            ),
            unavailable: None,
            detail: format!(
                "emulator (dialects {}; a fresh root per rule under {})",
                dialects.join(", "),
                base.join("vmmkit-conformance-<pid>-<n>").display()
            ),
        }
    }

    /// A real vendor library, probed as the doctor probes it.
    fn real(kind: BackendKind, library: Option<PathBuf>) -> Self {
        let row = probe::probe(kind, library.as_deref());
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
