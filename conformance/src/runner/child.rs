//! The rule's own process: `vmmkit __rule <ID>` runs one check in a fresh
//! process (ACL state is per process: `aclInit` once, the current device
//! per thread, and a crash must not take the run down) and prints its
//! outcome as one JSON line, prefixed with [`RESULT_PREFIX`], on stdout.
#![forbid(unsafe_code)]

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

use crate::backend::BackendKind;
use crate::catalog::Catalog;
use crate::check::Env;
use crate::outcome::Outcome;
use crate::rule::Rule;

/// Marks the result line among whatever else a check prints.
pub const RESULT_PREFIX: &str = "vmmkit-rule-result ";

/// Options of the hidden `vmmkit __rule` command.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule id.
    pub id: String,
    /// The backend.
    #[arg(long, value_enum)]
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    #[arg(long)]
    pub library: Option<PathBuf>,
    /// The catalog the id belongs to.
    #[arg(long, value_enum, default_value = "suite")]
    pub catalog: Catalog,
}

/// The result line: flat, so that every field is plain JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildReport {
    /// `pass`, `fail`, `not-supported` or `skipped`.
    pub kind: String,
    /// For a fail.
    pub expected: Option<String>,
    /// For a fail.
    pub got: Option<String>,
    /// For not-supported and skipped.
    pub reason: Option<String>,
    /// The failing step or an observation.
    pub detail: Option<String>,
}

impl ChildReport {
    /// The line for `outcome`.
    pub fn new(outcome: &Outcome, detail: Option<String>) -> Self {
        let (expected, got) = match outcome {
            Outcome::Fail { expected, got } => (Some(expected.clone()), Some(got.clone())),
            _ => (None, None),
        };
        Self { kind: outcome.kind().into(), expected, got, reason: outcome.reason().map(Into::into), detail }
    }

    /// The outcome the line carries, or `None` for a malformed line.
    pub fn outcome(&self) -> Option<Outcome> {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        Some(match self.kind.as_str() {
            "pass" => Outcome::Pass,
            "fail" => Outcome::Fail { expected: text(&self.expected), got: text(&self.got) },
            "not-supported" => Outcome::NotSupported(text(&self.reason)),
            "skipped" => Outcome::Skipped(text(&self.reason)),
            _ => return None,
        })
    }

    /// Finds the last result line in a child's stdout.
    pub fn parse(stdout: &str) -> Option<Self> {
        stdout.lines().rev().find_map(|l| l.strip_prefix(RESULT_PREFIX)).and_then(|j| serde_json::from_str(j).ok())
    }
}

/// Runs `vmmkit __rule`.
pub fn run(args: &Args) -> ExitCode {
    // Die with the runner, so that a runner killed mid-run leaves no check behind.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let Some(rule) = args.catalog.find(&args.id) else {
        eprintln!("vmmkit __rule: no rule {} in the {} catalog", args.id, args.catalog.name());
        return ExitCode::from(2);
    };
    let (outcome, detail) = execute(rule, args);
    let line = serde_json::to_string(&ChildReport::new(&outcome, detail)).unwrap_or_default();
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{RESULT_PREFIX}{line}").and_then(|()| out.flush()).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Runs the rule's check (its needs decided first, see [`crate::check`])
/// and turns what happened into an outcome; a panic in the check is a
/// failure that quotes it.
pub fn execute(rule: &'static Rule, args: &Args) -> (Outcome, Option<String>) {
    let env = Env { backend: args.backend, library: args.library.clone() };
    catch_unwind(AssertUnwindSafe(|| rule.check.run(rule.record, &env))).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-text panic".into());
        (Outcome::Fail { expected: rule.expect.to_string(), got: format!("the check panicked: {msg}") }, None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_round_trips_through_noise() {
        for o in [
            Outcome::Pass,
            Outcome::Fail { expected: "0 ACL_SUCCESS".into(), got: "killed by signal 11".into() },
            Outcome::NotSupported("no device".into()),
            Outcome::Skipped("baseline".into()),
        ] {
            let line = serde_json::to_string(&ChildReport::new(&o, Some("step".into()))).unwrap();
            let stdout = format!("noise\n{RESULT_PREFIX}{line}\nmore noise\n");
            let back = ChildReport::parse(&stdout).unwrap();
            assert_eq!(back.outcome(), Some(o));
            assert_eq!(back.detail.as_deref(), Some("step"));
        }
        assert_eq!(ChildReport::parse("nothing here"), None);
    }
}
