//! Every rule of the catalog on every backend: one trial per backend and
//! rule, named `emulator::ACL-MAP-003`, `cuda::CUDA-VMM-008`, …, each run
//! through the runner (its own process and root) as `vmmkit conformance`
//! runs it. `cargo test -p vmmkit-conformance --test rules -- emulator::HIP-`
//! runs the HIP rules on the emulator.
//!
//! A trial is
//! * ok when the rule passes;
//! * FAILED when the rule fails or is not supported and the backend's
//!   baseline (`conformance/baselines/<backend>.txt`) does not excuse it, or
//!   when the baseline's entry for it no longer applies (stale);
//! * ignored, with the reason, when the backend's library is absent or has
//!   no device (decided once, before any rule runs), when the baseline says
//!   `skip`, or when the baseline excuses what happened: a known difference
//!   is never reported as passed.
//!
//! `<backend>::baseline` checks that the file parses and that each entry
//! names a rule the backend runs.

mod binary;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use vmmkit_conformance::backend::{Backend, BackendKind};
use vmmkit_conformance::baseline::{Baseline, Known, Observed};
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::outcome::Outcome;
use vmmkit_conformance::rule::Rule;

/// Where pid steering writes; rules that need it are not-supported where it
/// cannot (not root of the pid namespace), on every backend.
const NS_LAST_PID: &str = "/proc/sys/kernel/ns_last_pid";

/// One backend as this run finds it.
struct Plan {
    kind: BackendKind,
    /// Why no rule can run on it here (library absent, no device).
    unavailable: Option<String>,
    /// `baselines/<backend>.txt`, parsed, or why not.
    baseline: Result<Baseline, String>,
    /// Why this machine cannot steer pids, if it cannot.
    no_steering: Option<String>,
}

impl Plan {
    fn file(&self) -> String {
        format!("conformance/baselines/{}.txt", self.kind.name())
    }

    fn entry(&self, id: &str) -> Option<&Known> {
        self.baseline.as_ref().ok()?.entries.iter().find(|k| k.id == id)
    }
}

fn baseline_of(kind: BackendKind) -> Result<Baseline, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("baselines").join(format!("{}.txt", kind.name()));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Baseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let no_steering = std::fs::OpenOptions::new()
        .write(true)
        .open(NS_LAST_PID)
        .err()
        .map(|e| format!("no write access to {NS_LAST_PID}: {e}"));
    let rules = Catalog::Suite.rules();
    let mut trials = Vec::new();
    // Every backend, in report order: the emulator, then the vendor list's.
    for &kind in BackendKind::ALL {
        let plan = Arc::new(Plan {
            kind,
            unavailable: Backend::resolve(kind, None).unavailable,
            baseline: baseline_of(kind),
            no_steering: no_steering.clone(),
        });
        let mine: Vec<&'static Rule> = kind.select(rules.clone());
        if let Some(why) = &plan.unavailable {
            eprintln!("rules: backend {}: its {} trials are ignored: {why}", kind.name(), mine.len());
        }
        let p = Arc::clone(&plan);
        trials.push(Trial::test(format!("{}::baseline", kind.name()), move || check_baseline(&p)));
        for rule in mine {
            let p = Arc::clone(&plan);
            let name = format!("{}::{}", kind.name(), rule.id);
            trials.push(Trial::ignorable_test(name, move || judge(&p, rule)));
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// The baseline parses, and each entry names a rule this backend runs.
fn check_baseline(plan: &Plan) -> Result<(), Failed> {
    let b = plan.baseline.as_ref().map_err(|e| Failed::from(e.as_str()))?;
    let stale: Vec<String> = b
        .entries
        .iter()
        .filter(|k| Catalog::Suite.find(&k.id).is_none_or(|r| !plan.kind.runs(r)))
        .map(|k| format!("{}:{}: {} names no rule that backend {} runs", plan.file(), k.line, k.id, plan.kind.name()))
        .collect();
    if stale.is_empty() { Ok(()) } else { Err(stale.join("\n").into()) }
}

/// Runs `rule` on the plan's backend and judges the outcome against its
/// baseline entry.
fn judge(plan: &Plan, rule: &'static Rule) -> Result<Completion, Failed> {
    let (kind, id) = (plan.kind.name(), rule.id.to_string());
    if let Some(why) = &plan.unavailable {
        return Ok(Completion::ignored_with(format!("backend {kind} unavailable: {why}")));
    }
    if let Err(e) = &plan.baseline {
        return Err(format!("the baseline does not parse: {e}").into());
    }
    let known = plan.entry(&id);
    let at = |k: &Known| format!("{}:{} `{}`", plan.file(), k.line, k.observed);
    if let Some(k) = known.filter(|k| k.observed == Observed::Skip) {
        return Ok(Completion::ignored_with(format!("not run, {}: {}", at(k), k.why)));
    }
    let r = binary::run_rule(rule, plan.kind, Catalog::Suite);
    let detail = r.detail.as_deref().map(|d| format!("\n{d}")).unwrap_or_default();
    match (&r.outcome, known) {
        (Outcome::Pass, None) => Ok(Completion::Completed),
        (Outcome::Pass, Some(k)) => Err(format!("{id} passes on {kind} now: remove the stale entry {}", at(k)).into()),
        (o, Some(k)) if k.matches(o) => Ok(Completion::ignored_with(format!("known, {}: {o}", at(k)))),
        (o, Some(k)) => Err(format!("{id} on {kind}: {o}; the entry {} no longer applies{detail}", at(k)).into()),
        (Outcome::NotSupported(reason), None) if reason.contains(NS_LAST_PID) && plan.no_steering.is_some() => {
            let why = plan.no_steering.as_deref().unwrap_or_default();
            Ok(Completion::ignored_with(format!("this machine cannot steer pids ({why}): {reason}")))
        }
        (o, None) => Err(format!("{id} on {kind}: {o}; not excused by {}{detail}", plan.file()).into()),
    }
}
