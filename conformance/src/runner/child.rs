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

use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::rule::{Code, Need, Record, Rule};
use crate::vendors::BackendKind;
use crate::vendors::Env;

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

/// Runs the rule's check (its needs decided first, see [`crate::checked`])
/// and turns what happened into an outcome; a panic in the check is a
/// failure that quotes it.
pub fn execute(rule: &'static Rule, args: &Args) -> (Outcome, Option<String>) {
    let env = Env { backend: args.backend, library: args.library.clone() };
    let audit = args.backend == BackendKind::Emulator;
    // A mutation run (the `mutation` feature's VMMKIT_MUTATE) switches a
    // rule off to prove that its *check* notices; the audit would notice
    // on its own, so it checks only the codes there.
    let mutating = std::env::var_os("VMMKIT_MUTATE").is_some_and(|v| !v.is_empty());
    if audit {
        vmmkit_emulator::violations::start();
    }
    let ran = run_check(rule, &env);
    if audit { audit_codes(rule, ran, &vmmkit_emulator::violations::take(), !mutating) } else { ran }
}

/// The code-equality proof on the emulator: every failure the emulator
/// reported under a rule during the check returned a code that rule's
/// record lists. A code the record does not list fails the rule being
/// checked, naming both. A passing check of an error rule that one process
/// provokes must also have made the emulator report that rule (or the
/// specific rules its record says enforce it).
fn audit_codes(
    rule: &'static Rule,
    (outcome, detail): (Outcome, Option<String>),
    seen: &[(&'static Record, Code)],
    require_named: bool,
) -> (Outcome, Option<String>) {
    if let Some((r, code)) = seen.iter().find(|(r, code)| !r.expect.codes().is_empty() && !r.lists(*code)) {
        let got = format!("the emulator returned {code} for {}", r.id);
        return (Outcome::Fail { expected: format!("{}: {}", r.id, r.expect), got }, detail);
    }
    let one_process = !rule.needs(Need::Peers) && !rule.needs(Need::PidSteering);
    let names = |r: &Record| r.id == rule.id || rule.enforced_by.iter().any(|e| e.id == r.id);
    let reached = seen.iter().any(|(r, _)| names(r));
    if require_named && outcome == Outcome::Pass && rule.expect.has_error_code() && one_process && !reached {
        let named: Vec<String> = seen.iter().map(|(r, c)| format!("{} {}", r.id, c)).collect();
        let got = format!("the emulator reported no failure under {} (it named: {})", rule.id, named.join(", "));
        return (Outcome::Fail { expected: rule.expect.to_string(), got }, detail);
    }
    (outcome, detail)
}

fn run_check(rule: &'static Rule, env: &Env) -> (Outcome, Option<String>) {
    catch_unwind(AssertUnwindSafe(|| rule.check.run(rule.record, env))).unwrap_or_else(|panic| {
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
    use vmmkit_sys::acl::{AclError, rules};

    use super::*;
    use crate::catalog::Catalog;

    #[test]
    fn audit_fails_a_code_the_record_does_not_list_and_a_rule_never_named() {
        let map_003 = Catalog::Suite.find("ACL-MAP-003").unwrap();
        let pass = || (Outcome::Pass, None);
        // The listed code under the rule itself: the pass stands.
        let ok = [(&rules::MAP_003, Code::Acl(AclError::INVALID_PARAM))];
        assert_eq!(audit_codes(map_003, pass(), &ok, true).0, Outcome::Pass);
        // Another code under any rule fails, naming both.
        let wrong = [(&rules::MAP_003, Code::Acl(AclError::RT_PARAM_INVALID))];
        let (o, _) = audit_codes(map_003, pass(), &wrong, true);
        assert!(
            matches!(&o, Outcome::Fail { got, .. } if got.contains("107000") && got.contains("ACL-MAP-003")),
            "{o:?}"
        );
        // A pass with the rule never named by the emulator fails.
        let elsewhere = [(&rules::MAP_004, Code::Acl(AclError::RT_PARAM_INVALID))];
        assert!(audit_codes(map_003, pass(), &elsewhere, true).0.is_fail());
        // A combined rule is reached through the rules its record names.
        let ord_003 = Catalog::Suite.find("ACL-ORD-003").unwrap();
        assert_eq!(audit_codes(ord_003, pass(), &ok, true).0, Outcome::Pass);
    }

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
