//! `vmmkit doctor`: which backends are usable on this machine.
//!
//! One line per backend (emulator, ascend, hip, cuda): usable or not, the
//! library file that was loaded or why none was, the version it reports, and
//! the device count or the exact code of the call that failed. Real libraries
//! are reached only through the `vmmkit-sys` tables. Nothing here is a
//! failure of the command: a backend that is not there is a line saying so,
//! and the exit status is 0 unless the report cannot be written.
//!
//! ```text
//! emulator  usable      root /dev/shm/vmmkit-1000 (not created yet), 8 devices × 64 GiB, host access on
//! hip       not usable  /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 loaded, HIP 50422803 (5.4.22803), hipGetDeviceCount → 100 hipErrorNoDevice
//! ```

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

mod emulator;
mod render;
mod vendor;

/// Options of `vmmkit doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How to print the report: one line per backend, or a JSON array of objects.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Output format of `vmmkit doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per backend, for people.
    Table,
    /// A JSON array of objects with the keys of [`Row`], for scripts.
    Json,
}

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
    /// The device count, when the count query succeeded.
    pub devices: Option<u32>,
    /// The vendor code of the call that made the backend unusable.
    pub error_code: Option<i64>,
    /// The vendor's name for `error_code`, if it is a known one.
    pub error_name: Option<String>,
    /// Everything above as one human-readable line, with the reason when not usable.
    pub detail: String,
}

/// Checks every backend, in the order they are printed.
pub fn report() -> Vec<Row> {
    vec![emulator::row(), vendor::ascend(), vendor::hip(), vendor::cuda()]
}

/// Runs `vmmkit doctor`.
///
/// # Errors
/// Only when the report cannot be written.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let rows = report();
    let text = match args.format {
        Format::Table => render::table(&rows),
        Format::Json => render::json(&rows).context("encoding the report as JSON")?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("writing the report")?;
    Ok(ExitCode::SUCCESS)
}
