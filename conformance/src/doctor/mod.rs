//! `vmmkit doctor`: which backends are usable on this machine.
//!
//! One line per backend (emulator, ascend, hip, cuda): usable or not, the
//! library file that was loaded or why none was, the version it reports, and
//! the device count or the exact code of the call that failed. Real libraries
//! are reached only through the `vmmkit-sys` tables. Nothing here is a
//! failure of the command: a backend that is not there is a line saying so,
//! and the exit status is 0 unless the report cannot be written.
//!
//! The doctor only looks: it creates no directory and no file. An emulator
//! root that no program has used yet is reported as "not created yet", with
//! the path a program's first call would create; vmmkit's own drop-in
//! libraries are not called (any call that counts devices would start the
//! emulator), their devices are read from the emulator's settings.
//!
//! ```text
//! emulator  usable      root /dev/shm/vmmkit-1000 (not created yet: a program's first call creates it 0700), 8 devices × 64 GiB, host access on
//! hip       not usable  /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 loaded, HIP 50422803 (5.4.22803), hipGetDeviceCount → 100 hipErrorNoDevice
//! ```

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

pub use crate::probe::{Row, probe, report};

mod render;

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
