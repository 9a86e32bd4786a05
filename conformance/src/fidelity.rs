//! `vmmkit fidelity`: how faithful the emulator is to a real driver. The
//! same rules run on the emulator and on a real backend (each rule in its
//! own process, as `vmmkit conformance` runs them), and a side-by-side table
//! says, rule by rule, what each answered and whether they agree.
//!
//! Verdicts:
//! * `agree`: the same outcome (both pass, or both fail with the same answer);
//! * `differ`: anything else that both sides ran;
//! * `known`: a difference the real backend's baseline explains (same file
//!   format as `vmmkit conformance --baseline`: the entry must match the real
//!   backend's outcome);
//! * `no data`: the real backend did not run the rule (no library, no
//!   device, skipped), with its reason. A machine without the device gives
//!   only this; the command then ends with exit status 2 and the reason,
//!   unless `--allow-unavailable` is given (then it succeeds, as
//!   not-supported does).
//!
//! The run fails (exit 1) when some rule differs and no baseline entry
//! explains it. `--backend emulator` compares the emulator with itself,
//! which checks the command end to end on any machine.
#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;

use crate::backend::{Backend, BackendKind};
use crate::baseline::{Baseline, Observed};
use crate::catalog::Catalog;
use crate::outcome::{Outcome, RuleResult};
use crate::rule::Rule;
use crate::runner::{self, RunConfig};

/// The exit statuses of `vmmkit fidelity`, as its `--help` gives them.
pub const EXIT_STATUSES: &str = "\
Exit status:
  0  every rule agrees, or differs as the baseline says it does
  1  a rule differs and no baseline entry explains it
  2  the comparison could not be made: a bad option or baseline, a --filter
     that matches no rule, or a real backend whose library does not load or
     has no device (the reason is on stderr; --allow-unavailable reports
     every rule \"no data\" and exits 0)";

/// Options of `vmmkit fidelity`.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_STATUSES)]
pub struct Args {
    /// The real backend to hold the emulator against (`emulator` compares
    /// the emulator with itself). Its dialects choose the rules.
    #[arg(long, value_enum, default_value = "cuda")]
    pub backend: BackendKind,
    /// The vendor library to load for the real backend.
    #[arg(long)]
    pub library: Option<PathBuf>,
    /// A real backend whose library does not load or has no device is not
    /// an error: every row says "no data", with the reason, and the run
    /// exits 0.
    #[arg(long)]
    pub allow_unavailable: bool,
    /// Only rules whose id matches this glob (`CUDA-VMM-*`).
    #[arg(long)]
    pub filter: Option<String>,
    /// Known differences of the real backend (`RULE-ID fail|fail=CODE|skip "why"`,
    /// as for `vmmkit conformance`); `skip` entries are not run on it.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Rule processes at a time, per backend (default: the number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Write the table to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Seconds a rule may take.
    #[arg(long, default_value_t = runner::DEFAULT_TIMEOUT.as_secs(), hide = true)]
    pub timeout: u64,
}

/// Output format of `vmmkit fidelity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The side-by-side table, for people.
    Table,
    /// One JSON document.
    Json,
}

/// Why the command could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--backend auto` names no backend to compare.
    #[error("--backend auto: name the real backend to compare the emulator with (cuda, hip, ascend)")]
    Auto,
    /// `--filter` is not a glob or matches no rule, or the real backend is
    /// unavailable (as for `vmmkit conformance`).
    #[error(transparent)]
    Select(#[from] crate::command::Error),
    /// The baseline could not be read or parsed.
    #[error("--baseline {path}: {message}")]
    Baseline {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The run itself failed (run directory, current executable), or the
    /// output could not be written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How one rule compares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "why", rename_all = "kebab-case")]
pub enum Verdict {
    /// The same outcome on both sides.
    Agree,
    /// Different outcomes, not explained.
    Differ,
    /// Different outcomes, explained by the real backend's baseline.
    Known(String),
    /// The real backend did not run the rule: why.
    NoData(String),
}

impl Verdict {
    /// The word of the table.
    pub fn word(&self) -> &'static str {
        match self {
            Self::Agree => "agree",
            Self::Differ => "DIFFER",
            Self::Known(_) => "known",
            Self::NoData(_) => "no data",
        }
    }
}

/// One rule on both sides.
#[derive(Debug, Clone)]
pub struct Row {
    /// The rule.
    pub rule: &'static Rule,
    /// The emulator's result.
    pub emulator: RuleResult,
    /// The real backend's result.
    pub real: RuleResult,
    /// How they compare.
    pub verdict: Verdict,
}

/// A finished comparison.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The emulator's backend line.
    pub emulator: String,
    /// The real backend: its name and what was loaded (or why not).
    pub real: (String, String),
    /// One row per rule, in catalog order.
    pub rows: Vec<Row>,
}

/// Counts of a comparison.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rules compared or decided.
    pub total: usize,
    /// Same outcome.
    pub agree: usize,
    /// Different, unexplained.
    pub differ: usize,
    /// Different, explained by the baseline.
    pub known: usize,
    /// Not run on the real backend.
    pub no_data: usize,
}

impl Comparison {
    /// The counts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary { total: self.rows.len(), ..Summary::default() };
        for r in &self.rows {
            match r.verdict {
                Verdict::Agree => s.agree += 1,
                Verdict::Differ => s.differ += 1,
                Verdict::Known(_) => s.known += 1,
                Verdict::NoData(_) => s.no_data += 1,
            }
        }
        s
    }
}

/// How `emulator` and `real` compare for one rule, with the real backend's
/// baseline entry, if any.
pub fn verdict(emulator: &Outcome, real: &Outcome, known: Option<(&Observed, &str)>) -> Verdict {
    if let Outcome::NotSupported(why) | Outcome::Skipped(why) = real {
        return Verdict::NoData(why.clone());
    }
    let same = match (emulator, real) {
        (Outcome::Pass, Outcome::Pass) => true,
        (Outcome::Fail { got: a, .. }, Outcome::Fail { got: b, .. }) => a == b,
        _ => false,
    };
    if same {
        return Verdict::Agree;
    }
    match known {
        Some((observed, why)) => {
            let k = crate::baseline::Known { id: String::new(), observed: observed.clone(), why: why.into(), line: 0 };
            if k.matches(real) { Verdict::Known(why.into()) } else { Verdict::Differ }
        }
        None => Verdict::Differ,
    }
}

fn config(backend: Backend, jobs: Option<usize>, timeout: Duration) -> std::io::Result<RunConfig> {
    let mut cfg = RunConfig::new(std::env::current_exe()?, backend, Catalog::Suite);
    if let Some(j) = jobs {
        cfg.jobs = j.max(1);
    }
    cfg.timeout = timeout;
    Ok(cfg)
}

/// Runs the comparison: `rules` on the emulator and on `real`, with
/// `baseline` for the real side.
///
/// # Errors
/// When a run directory cannot be made.
pub fn compare(
    rules: &[&'static Rule],
    real: Backend,
    baseline: Option<&Baseline>,
    jobs: Option<usize>,
    timeout: Duration,
) -> std::io::Result<Comparison> {
    let emulator = Backend::resolve(BackendKind::Emulator, None);
    let emulator_line = emulator.detail.clone();
    let emu_results = runner::run(rules, &config(emulator, jobs, timeout)?)?;
    let real_line = (real.kind.name().to_string(), real_detail(&real));
    let mut real_cfg = config(real, jobs, timeout)?;
    real_cfg.skip = baseline.map(Baseline::skips).unwrap_or_default();
    let real_results = runner::run(rules, &real_cfg)?;
    let rows = rules
        .iter()
        .zip(emu_results.into_iter().zip(real_results))
        .map(|(&rule, (emulator, real))| {
            let entry = baseline.and_then(|b| b.entries.iter().find(|k| k.id == rule.id.as_str()));
            let verdict = verdict(&emulator.outcome, &real.outcome, entry.map(|k| (&k.observed, k.why.as_str())));
            Row { rule, emulator, real, verdict }
        })
        .collect();
    Ok(Comparison { emulator: emulator_line, real: real_line, rows })
}

/// What was loaded for the real side (library, version, devices), or why
/// it is not usable.
fn real_detail(b: &Backend) -> String {
    match &b.unavailable {
        Some(why) => format!("not usable: {why}"),
        None => format!("{}; rules run on {}", b.detail, b.device),
    }
}

/// The outcome as one short cell.
fn cell(o: &Outcome) -> String {
    match o {
        Outcome::Pass => "pass".into(),
        Outcome::Fail { got, .. } => format!("fail: {got}"),
        Outcome::NotSupported(_) => "not-supported".into(),
        Outcome::Skipped(_) => "skipped".into(),
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n - 1).collect::<String>()) }
}

/// The side-by-side table.
pub fn render_table(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "fidelity: emulator vs {}", c.real.0);
    let _ = writeln!(out, "  emulator: {}", c.emulator);
    let _ = writeln!(out, "  {}: {}", c.real.0, c.real.1);
    let _ = writeln!(out);
    let w = c.rows.iter().map(|r| r.rule.id.as_str().len()).max().unwrap_or(8).max(4);
    let _ = writeln!(out, "{:<w$}  {:<36}  {:<36}  VERDICT", "RULE", "EMULATOR", c.real.0.to_uppercase());
    for r in &c.rows {
        let _ = writeln!(
            out,
            "{:<w$}  {:<36}  {:<36}  {}",
            r.rule.id.as_str(),
            clip(&cell(&r.emulator.outcome), 36),
            clip(&cell(&r.real.outcome), 36),
            r.verdict.word()
        );
        match &r.verdict {
            Verdict::Differ => {
                let _ = writeln!(out, "{:w$}    emulator: {}", "", r.emulator.outcome);
                let _ = writeln!(out, "{:w$}    {}: {}", "", c.real.0, r.real.outcome);
            }
            Verdict::Known(why) => {
                let _ = writeln!(out, "{:w$}    baseline: {why}", "");
            }
            Verdict::Agree | Verdict::NoData(_) => {}
        }
    }
    let s = c.summary();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{} rules: {} agree, {} differ, {} known differences, {} without real data",
        s.total, s.agree, s.differ, s.known, s.no_data
    );
    // One line per distinct reason the real side gave no data.
    let mut reasons: Vec<&str> = Vec::new();
    for r in &c.rows {
        if let Verdict::NoData(why) = &r.verdict
            && !reasons.contains(&why.as_str())
        {
            reasons.push(why);
        }
    }
    for why in reasons {
        let _ = writeln!(out, "no data from {}: {why}", c.real.0);
    }
    out
}

#[derive(Serialize)]
struct JsonRow<'a> {
    id: &'a str,
    group: &'a str,
    equivalents: Vec<&'a str>,
    emulator: &'a Outcome,
    real: &'a Outcome,
    #[serde(flatten)]
    verdict: &'a Verdict,
}

/// The comparison as one JSON document.
pub fn render_json(c: &Comparison) -> String {
    let rows: Vec<JsonRow<'_>> = c
        .rows
        .iter()
        .map(|r| JsonRow {
            id: r.rule.id.as_str(),
            group: r.rule.group,
            equivalents: r.rule.equivalents.iter().map(|e| e.id.as_str()).collect(),
            emulator: &r.emulator.outcome,
            real: &r.real.outcome,
            verdict: &r.verdict,
        })
        .collect();
    let doc = serde_json::json!({
        "emulator": c.emulator,
        "real": { "name": c.real.0, "detail": c.real.1 },
        "rules": rows,
        "summary": c.summary(),
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// Runs `vmmkit fidelity`: exit 0 unless a rule differs unexplained (1).
///
/// # Errors
/// Bad options, an unreadable baseline, or output that cannot be written.
pub fn run(args: &Args) -> Result<ExitCode, Error> {
    if args.backend == BackendKind::Auto {
        return Err(Error::Auto);
    }
    if let Some(glob) = &args.filter {
        globset::Glob::new(glob).map_err(crate::command::Error::from)?;
    }
    let baseline = match &args.baseline {
        Some(path) => {
            let err = |message: String| Error::Baseline { path: path.clone(), message };
            let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
            Some(Baseline::parse(&text).map_err(|e| err(e.to_string()))?)
        }
        None => None,
    };
    let real = Backend::resolve(args.backend, args.library.clone());
    if let Some(why) = real.unavailable_as_requested(args.backend) {
        if !args.allow_unavailable {
            let e = crate::command::Error::Unavailable { backend: args.backend.name(), why: why.to_string() };
            return Err(e.into());
        }
        eprintln!("vmmkit: backend {} is unavailable (--allow-unavailable: no data): {why}", args.backend.name());
    }
    let rules = crate::command::select(Catalog::Suite, args.backend, args.filter.as_deref())?;
    let timeout = Duration::from_secs(args.timeout.max(1));
    let c = compare(&rules, real, baseline.as_ref(), args.jobs, timeout)?;
    let text = match args.format {
        Format::Table => render_table(&c),
        Format::Json => render_json(&c),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())?;
        }
    }
    Ok(if c.summary().differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(got: &str) -> Outcome {
        Outcome::Fail { expected: "1 CUDA_ERROR_INVALID_VALUE".into(), got: got.into() }
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(&Outcome::Pass, &Outcome::Pass, None), Verdict::Agree);
        assert_eq!(verdict(&fail("0 CUDA_SUCCESS"), &fail("0 CUDA_SUCCESS"), None), Verdict::Agree);
        assert_eq!(verdict(&Outcome::Pass, &fail("208 CUDA_ERROR_ALREADY_MAPPED"), None), Verdict::Differ);
        assert_eq!(verdict(&fail("a"), &fail("b"), None), Verdict::Differ);
        let no = Outcome::NotSupported("no device".into());
        assert_eq!(verdict(&Outcome::Pass, &no, None), Verdict::NoData("no device".into()));
        let known = Observed::Fail(Some("208".into()));
        let real = fail("208 CUDA_ERROR_ALREADY_MAPPED");
        assert_eq!(verdict(&Outcome::Pass, &real, Some((&known, "P3"))), Verdict::Known("P3".into()));
        assert_eq!(
            verdict(&Outcome::Pass, &fail("1 X"), Some((&known, "P3"))),
            Verdict::Differ,
            "the entry must match"
        );
        assert_eq!(verdict(&Outcome::Pass, &Outcome::Pass, Some((&known, "P3"))), Verdict::Agree);
    }
}
