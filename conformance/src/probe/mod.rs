//! What is known of a backend before any rule runs: the vendor library
//! loaded, the version it reports, its devices, or why it cannot run
//! (`vmmkit doctor` prints these rows; `vmmkit conformance` resolves its
//! backend from them). Real libraries are reached only through the
//! `vmmkit-sys` tables, and only queried; the emulator is read, not started.

use std::path::Path;

use serde::Serialize;

use crate::vendors::{BackendKind, vendor_list};

mod emulator;
// Probes of the vendor libraries through their C tables.
#[allow(unsafe_code)]
mod vendor;

pub use vendor::Probe;

/// What the doctor found for one backend. The JSON keys are these field
/// names, and are stable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// `emulator`, `ascend`, `hip` or `cuda`.
    pub backend: &'static str,
    /// Whether the backend can run the suite here: it loaded and has at least one device.
    pub usable: bool,
    /// The library file (or soname) that was opened, if one was.
    pub library: Option<String>,
    /// The version the library reports (ACL `major.minor.patch`, HIP's and CUDA's integer).
    pub version: Option<String>,
    /// The version as `detail` shows it (`HIP 50422803 (5.4.22803)`); not in the JSON.
    #[serde(skip)]
    pub shown_version: Option<String>,
    /// The device count, when the count query succeeded.
    pub devices: Option<u32>,
    /// The vendor code of the call that made the backend unusable.
    pub error_code: Option<i64>,
    /// The vendor's name for `error_code`, if it is a known one.
    pub error_name: Option<String>,
    /// Everything above as one human-readable line, with the reason when not usable.
    pub detail: String,
}

/// Checks every backend, in the order they are printed: the emulator,
/// then each vendor's library ([`BackendKind::VENDORS`]).
pub fn report() -> Vec<Row> {
    BackendKind::ALL.iter().map(|&kind| probe(kind, None)).collect()
}

/// The row of `kind` from the vendor list.
macro_rules! probe_of {
    ($( $(#[$doc:meta])* $kind:ident = $name:literal: $vendor:ident, $emulator:path; )*) => {
        /// The doctor's row for `kind` with `library` (an explicit file, else
        /// the default search): what `vmmkit conformance` knows of a backend
        /// before it runs a rule.
        pub fn probe(kind: BackendKind, library: Option<&Path>) -> Row {
            match kind {
                BackendKind::Emulator | BackendKind::Auto => emulator::row(),
                $( BackendKind::$kind => <vmmkit_sys::vendor::$vendor as Probe>::row(library), )*
            }
        }
    };
}

vendor_list!(probe_of {});
