//! `vmmkit`: the conformance suite, the doctor, and the emulator's operator tools.

#![deny(unsafe_code)]

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
    /// List what an emulator root holds: devices, processes, exported handles with their holders.
    Ls(vmmkit_conformance::ops::Args),
    /// Collect what dead processes left in an emulator root, and say what was freed.
    Gc(vmmkit_conformance::ops::Args),
    /// Run a program, and every process it starts, on a private emulated machine; report what each left unreleased.
    Run(vmmkit_conformance::machine::Args),
    /// Run the conformance suite against a backend, rule by rule.
    Conformance(vmmkit_conformance::command::Args),
    /// Run the suite on the emulator and on a real backend, and compare them rule by rule.
    Fidelity(vmmkit_conformance::fidelity::Args),
    /// Run one rule's check in this process (used by `conformance`).
    #[command(name = "__rule", hide = true)]
    Rule(vmmkit_conformance::runner::child::Args),
    /// Serve as a peer process of a multi-process check (used by `__rule`).
    #[command(name = "__peer", hide = true)]
    Peer(vmmkit_conformance::acl::serve::Args),
    /// Serve as the CUDA peer process of a multi-process CUDA check (used by `__rule`).
    #[command(name = "__cuda_peer", hide = true)]
    CudaPeer(vmmkit_conformance::cuda::peer::Args),
    /// Serve as the HIP peer process of a multi-process HIP check (used by `__rule`).
    #[command(name = "__hip_peer", hide = true)]
    HipPeer(vmmkit_conformance::hip::peer::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Doctor(args) => vmmkit_conformance::doctor::run(&args),
        Command::Ls(args) => vmmkit_conformance::ops::ls(&args),
        Command::Gc(args) => vmmkit_conformance::ops::gc(&args),
        Command::Run(args) => vmmkit_conformance::machine::run(&args),
        Command::Conformance(args) => vmmkit_conformance::command::run(&args).map_err(Into::into),
        Command::Fidelity(args) => vmmkit_conformance::fidelity::run(&args).map_err(Into::into),
        Command::Rule(args) => Ok(vmmkit_conformance::runner::child::run(&args)),
        Command::Peer(args) => Ok(vmmkit_conformance::acl::serve::run(&args)),
        Command::CudaPeer(args) => Ok(vmmkit_conformance::cuda::peer::run(&args)),
        Command::HipPeer(args) => Ok(vmmkit_conformance::hip::peer::run(&args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vmmkit: {e:#}");
            ExitCode::from(2)
        }
    }
}
