//! Choosing a backend: `VMMKIT_BACKEND`, else the first real library that
//! loads and has a device, else the emulator (see [`crate::Backend`]).
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use vmmkit_sys::LoadError;

use crate::backend::{Backend, SelectError};
use crate::error::Error;
use crate::runtime::{OpenError, Runtime};

/// What was found when a real backend was tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The backend tried.
    pub backend: Backend,
    /// The library that loaded and its device count, or why it is not usable.
    pub outcome: Result<Found, ProbeError>,
}

/// Why a backend is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The library could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The library loaded but could not be opened as a runtime.
    #[error(transparent)]
    Open(OpenError),
    /// A call that counts devices failed.
    #[error("{}: {error}", .library.display())]
    Call {
        /// The library.
        library: PathBuf,
        /// The failure (e.g. `hipErrorNoDevice`).
        error: Error,
    },
}

impl ProbeError {
    /// A short form: `not found` when no library was there (or only
    /// vmmkit's own drop-in, which the default search passes over), else the
    /// whole error.
    pub fn summary(&self) -> String {
        match self {
            Self::Load(LoadError::NotFound { tried, .. })
            | Self::Open(OpenError::Load(LoadError::NotFound { tried, .. })) => {
                match tried.iter().find(|a| a.error == vmmkit_sys::SHIM_SKIPPED) {
                    Some(a) => format!("not found (passed over vmmkit's drop-in {})", a.candidate),
                    None => "not found".into(),
                }
            }
            e => e.to_string(),
        }
    }
}

/// A real library that loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The file (or soname) that opened.
    pub library: PathBuf,
    /// Devices it reports.
    pub devices: u32,
}

/// The chosen backend, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The backend to use.
    pub backend: Backend,
    /// Why it was chosen, in words.
    pub reason: String,
    /// The real backends tried, in order (empty when `VMMKIT_BACKEND` forced one).
    pub probes: Vec<Probe>,
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.backend, self.reason)
    }
}

impl Backend {
    /// `VMMKIT_BACKEND` if set, else a real library that loads and has a
    /// device, else the emulator.
    ///
    /// # Errors
    /// `VMMKIT_BACKEND` names no backend.
    pub fn auto() -> Result<Self, SelectError> {
        Self::select().map(|s| s.backend)
    }

    /// As [`Backend::auto`], with the reason and what was tried.
    ///
    /// # Errors
    /// `VMMKIT_BACKEND` names no backend.
    pub fn select() -> Result<Selection, SelectError> {
        Self::select_with(std::env::var_os(Self::ENV), &Self::REAL, Self::probe)
    }

    /// Selection with the value of `VMMKIT_BACKEND` given, trying `real` in
    /// order with `probe`.
    ///
    /// # Errors
    /// `var` names no backend.
    pub fn select_with(
        var: Option<OsString>,
        real: &[Self],
        probe: impl Fn(&Self) -> Probe,
    ) -> Result<Selection, SelectError> {
        let value = var.map(|v| v.to_string_lossy().trim().to_owned()).unwrap_or_default();
        if !value.is_empty() && value != "auto" {
            let backend = Self::from_name(&value).ok_or(SelectError { var: Self::ENV, value: value.clone() })?;
            return Ok(Selection { backend, reason: format!("forced by {}={value}", Self::ENV), probes: Vec::new() });
        }
        let mut probes = Vec::new();
        for b in real {
            let b = b.clone();
            let p = probe(&b);
            if let Ok(found) = &p.outcome
                && found.devices > 0
            {
                let reason = format!("{} loads with {} device(s)", found.library.display(), found.devices);
                probes.push(p);
                return Ok(Selection { backend: b, reason, probes });
            }
            probes.push(p);
        }
        let why: Vec<String> = probes
            .iter()
            .map(|p| match &p.outcome {
                Ok(f) => format!("{}: {} has no device", p.backend.name(), f.library.display()),
                Err(e) => format!("{}: {}", p.backend.name(), e.summary()),
            })
            .collect();
        Ok(Selection {
            backend: Self::EMULATED[0].clone(),
            reason: format!("no real library with a device; {}", why.join("; ")),
            probes,
        })
    }

    /// Opens this backend and counts its devices.
    pub fn probe(&self) -> Probe {
        let outcome = Runtime::new(self.clone()).map_err(ProbeError::Open).and_then(|rt| {
            let library = rt.library().map_or_else(|| PathBuf::from("(in-process emulator)"), Path::to_path_buf);
            match rt.device_count() {
                Ok(devices) => Ok(Found { library, devices }),
                Err(error) => Err(ProbeError::Call { library, error }),
            }
        });
        Probe { backend: self.clone(), outcome }
    }
}

impl Runtime {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Vendor;

    fn found(b: &Backend, devices: u32) -> Probe {
        Probe { backend: b.clone(), outcome: Ok(Found { library: format!("/lib/{}.so", b.name()).into(), devices }) }
    }

    fn missing(b: &Backend) -> Probe {
        let e = LoadError::NotFound { vendor: "TEST", tried: vec![] };
        Probe { backend: b.clone(), outcome: Err(e.into()) }
    }

    #[test]
    fn forced_by_the_variable() {
        for (v, b) in [
            ("emulator", Backend::Emulator),
            ("emulator-acl", Backend::Emulator),
            ("emulator-hip", Backend::EmulatorHip),
            ("emulator-cuda", Backend::EmulatorCuda),
            ("ascend", Backend::Ascend(None)),
            ("hip", Backend::Hip(None)),
            ("cuda", Backend::Cuda(None)),
        ] {
            let s = Backend::select_with(Some(v.into()), &Backend::REAL, |_| panic!("a forced backend is not probed"))
                .unwrap();
            assert_eq!(s.backend, b);
            assert_eq!(s.reason, format!("forced by VMMKIT_BACKEND={v}"));
        }
    }

    #[test]
    fn an_invalid_value_is_an_error_that_says_what_is_valid() {
        let e = Backend::select_with(Some("npu".into()), &Backend::REAL, missing).unwrap_err();
        assert_eq!(e.value, "npu");
        assert_eq!(
            e.to_string(),
            "VMMKIT_BACKEND=\"npu\": not a backend; expected one of emulator (= emulator-acl), emulator-hip, \
             emulator-cuda, ascend, hip, cuda, or auto (the default)"
        );
        // The message lists every name of the vendor list.
        for b in Backend::EMULATED.into_iter().chain(Backend::REAL) {
            let listed = e.to_string().split([' ', ',', '(', ')']).any(|w| w == b.name());
            assert!(listed, "{} is not listed", b.name());
        }
    }

    #[test]
    fn names_and_vendors_round_trip() {
        for b in Backend::EMULATED.into_iter().chain(Backend::REAL) {
            assert_eq!(Backend::from_name(b.name()), Some(b.clone()));
            assert_eq!(b.is_emulator(), b.library().is_none() && Backend::EMULATED.contains(&b));
            if b.is_emulator() {
                assert_eq!(Backend::emulator(b.vendor()), b);
            }
        }
        for &v in Vendor::ALL {
            assert_eq!(Backend::emulator(v).vendor(), v);
            assert_eq!(Backend::real(v, None).vendor(), v);
            assert!(Backend::REAL.contains(&Backend::real(v, None)));
        }
        assert_eq!(Backend::Hip(None).vendor(), Vendor::Hip);
        assert_eq!(Backend::EmulatorCuda.vendor(), Vendor::Cuda);
    }

    #[test]
    fn a_real_library_needs_a_device() {
        // Ascend loads without a device, HIP has one: HIP wins.
        let s = Backend::select_with(None, &Backend::REAL, |b| match b {
            Backend::Ascend(_) => found(b, 0),
            Backend::Hip(_) => found(b, 2),
            _ => missing(b),
        })
        .unwrap();
        assert_eq!(s.backend, Backend::Hip(None));
        assert_eq!(s.probes.len(), 2);
        assert_eq!(s.reason, "/lib/hip.so loads with 2 device(s)");
    }

    #[test]
    fn only_the_candidates_are_tried() {
        let s =
            Backend::select_with(None, &Backend::DRIVEN[..1], |b| found(b, if b.name() == "ascend" { 0 } else { 4 }))
                .unwrap();
        assert_eq!(s.backend, Backend::Emulator);
        assert_eq!(s.probes.len(), 1);
        // Every real library drives the safe API: a CUDA device is chosen.
        let s = Backend::select_with(None, &Backend::DRIVEN, |b| found(b, u32::from(b.name() == "cuda"))).unwrap();
        assert_eq!(s.backend, Backend::Cuda(None));
        assert_eq!(s.probes.len(), 3);
    }

    #[test]
    fn the_emulator_when_nothing_real_has_a_device() {
        for var in [None, Some("auto".into()), Some("".into())] {
            let s =
                Backend::select_with(
                    var,
                    &Backend::REAL,
                    |b| if b.name() == "cuda" { found(b, 0) } else { missing(b) },
                )
                .unwrap();
            assert_eq!(s.backend, Backend::Emulator);
            assert_eq!(s.probes.len(), 3);
            assert_eq!(
                s.reason,
                "no real library with a device; ascend: not found; hip: not found; cuda: /lib/cuda.so has no device"
            );
        }
    }
}
