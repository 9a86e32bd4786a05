//! `vmmkit`: the conformance suite, the doctor, and the emulator's operator tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "vmmkit", version, about = "Emulate, check and benchmark accelerator memory sharing")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Say which backends are usable here: libraries, versions, devices, emulator settings.
    Doctor(vmmkit_conformance::doctor::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Doctor(args) => vmmkit_conformance::doctor::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vmmkit: {e:#}");
            ExitCode::from(2)
        }
    }
}
