//! The `vmmkit` binary under test, and running rules through it.
#![allow(dead_code)] // each test crate uses part of it

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use vmmkit_conformance::backend::{Backend, BackendKind};
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::outcome::RuleResult;
use vmmkit_conformance::rule::Rule;
use vmmkit_conformance::runner::{self, RunConfig};

/// The binary cargo built for these tests.
pub fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vmmkit"))
}

/// How long one run of the binary may take before it is killed: a whole
/// suite of a debug build on a loaded machine takes a few minutes at most.
pub const DEADLINE: Duration = Duration::from_secs(600);

/// Runs `cmd` (the binary) to its end, within [`DEADLINE`].
pub fn output(cmd: &mut Command) -> Output {
    vmmkit_testkit::process::output(cmd, DEADLINE).unwrap_or_else(|e| panic!("vmmkit: {e}"))
}

/// `vmmkit conformance <args>`, run to completion.
pub fn conformance(args: &[&str]) -> Output {
    output(Command::new(exe()).arg("conformance").args(args).env_remove("VMMKIT_BACKEND"))
}

/// `vmmkit conformance <args>` with `vars` set, run to completion.
pub fn conformance_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe());
    cmd.arg("conformance").args(args).env_remove("VMMKIT_BACKEND");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    output(&mut cmd)
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs one rule through the runner (its own process and root), as
/// `vmmkit conformance` would.
pub fn run_rule(rule: &'static Rule, backend: BackendKind, catalog: Catalog) -> RuleResult {
    let mut cfg = RunConfig::new(exe(), Backend::resolve(backend, None), catalog);
    cfg.jobs = 1;
    cfg.progress = false;
    // Tests run debug builds, several at a time: the emulator is far slower
    // than in the release run the 20 s default is meant for.
    cfg.timeout = Duration::from_secs(120);
    runner::run(&[rule], &cfg).expect("run directory").remove(0)
}
