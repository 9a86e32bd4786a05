//! `vmmkit conformance`: runs the catalog against a backend and reports.
#![forbid(unsafe_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::backend::{Backend, BackendKind};
use crate::baseline::{Baseline, ParseError};
use crate::catalog::{self, Catalog};
use crate::report::{self, BackendInfo, Entry, Format, Report};
use crate::rule::Rule;
use crate::runner::{self, RunConfig};

/// The exit statuses of `vmmkit conformance`, as its `--help` gives them.
pub const EXIT_STATUSES: &str = "\
Exit status:
  0  every rule that ran passed, or failed as the baseline says it does
  1  a rule failed that the baseline does not excuse
  2  the run could not be made: a bad option or baseline, a --filter that
     matches no rule, or a backend named with --backend or VMMKIT_BACKEND
     whose library does not load or has no device (the reason is on
     stderr; --allow-unavailable reports its rules not-supported and exits 0)

A vendor backend (ascend, hip, cuda) runs and reports only its own vendor's
rules; the emulator runs every vendor's. `auto` tries each vendor's real
library in that order, falls back to the emulator when none loads with a
device, and is never an error.";

/// Options of `vmmkit conformance`.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_STATUSES)]
pub struct Args {
    /// The backend: the emulator, a real vendor library, or `auto` (the
    /// first vendor library that loads with a device, else the emulator). Default:
    /// `$VMMKIT_BACKEND`, else `auto`.
    #[arg(long, value_enum)]
    pub backend: Option<BackendKind>,
    /// The vendor library to load, for a real backend.
    #[arg(long)]
    pub library: Option<PathBuf>,
    /// A backend named with `--backend` (or `VMMKIT_BACKEND`) whose library
    /// does not load or has no device is not an error: its rules are
    /// reported not-supported, with the reason, and the run exits 0.
    #[arg(long)]
    pub allow_unavailable: bool,
    /// Only rules whose id matches this glob (`ACL-MAP-*`).
    #[arg(long)]
    pub filter: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Known differences of this backend, one per line:
    /// `RULE-ID fail|fail=CODE|skip "why"` (see the baseline module docs).
    /// Failures it lists do not fail the run; entries that no longer apply
    /// are reported as stale.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Rule processes at a time (default: the number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Write the report to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The catalog (`selftest` tests the runner and the reports).
    #[arg(long, value_enum, default_value = "suite", hide = true)]
    pub catalog: Catalog,
    /// Seconds a rule may take.
    #[arg(long, default_value_t = runner::DEFAULT_TIMEOUT.as_secs(), hide = true)]
    pub timeout: u64,
}

/// Why the command could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--filter` is not a glob.
    #[error("--filter: {0}")]
    Filter(#[from] globset::Error),
    /// The baseline could not be read.
    #[error("--baseline {path}: {source}")]
    BaselineRead {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The baseline does not parse.
    #[error("--baseline {path}: {source}")]
    BaselineParse {
        /// The file.
        path: PathBuf,
        /// The error.
        source: ParseError,
    },
    /// `--filter` matches no rule this backend runs.
    #[error("no rule matches --filter '{filter}'{scope}; known id prefixes: {prefixes}")]
    NoMatch {
        /// The glob.
        filter: String,
        /// ` of backend hip (it runs only HIP rules)`, or nothing.
        scope: String,
        /// The `VENDOR-GROUP` prefixes of the rules it could have matched.
        prefixes: String,
    },
    /// The backend asked for cannot run: its library does not load or it
    /// has no device.
    #[error(
        "backend {backend} is unavailable: {why}\n(nothing was run; pass --allow-unavailable to report its rules \
         not-supported and exit 0)"
    )]
    Unavailable {
        /// The backend.
        backend: &'static str,
        /// Why: the library path tried and the loader's error, or the
        /// device query's answer.
        why: String,
    },
    /// `VMMKIT_BACKEND` names no backend.
    #[error("VMMKIT_BACKEND={0:?}: must be emulator, ascend, hip, cuda or auto")]
    BackendEnv(String),
    /// The run itself failed (run directory, current executable).
    #[error("{0}")]
    Run(#[from] std::io::Error),
    /// The report could not be written.
    #[error("--output {path}: {source}")]
    Output {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn backend_kind(arg: Option<BackendKind>) -> Result<BackendKind, Error> {
    if let Some(k) = arg {
        return Ok(k);
    }
    match std::env::var("VMMKIT_BACKEND") {
        Ok(v) if !v.trim().is_empty() => {
            <BackendKind as clap::ValueEnum>::from_str(v.trim(), true).map_err(|_| Error::BackendEnv(v))
        }
        _ => Ok(BackendKind::Auto),
    }
}

/// Runs `rules` of `catalog` on `backend` with `cfg`, applies `baseline`,
/// and builds the report.
///
/// # Errors
/// When the run directory cannot be made.
pub fn run_report(rules: &[&'static Rule], cfg: &RunConfig, baseline: Option<&Baseline>) -> std::io::Result<Report> {
    let start = Instant::now();
    let results = runner::run(rules, cfg)?;
    let mut entries: Vec<Entry> =
        rules.iter().zip(results).map(|(&rule, result)| Entry { rule, result, known: None }).collect();
    let all_ids: Vec<&str> = cfg.catalog.rules().iter().map(|r| r.id.as_str()).collect();
    let kind = cfg.backend.kind;
    let stale = baseline.map(|b| b.apply(&mut entries, &all_ids, |id| kind.owns_id(id))).unwrap_or_default();
    Ok(Report {
        backend: BackendInfo::of(&cfg.backend),
        catalog: cfg.catalog.name().into(),
        entries,
        stale,
        duration: start.elapsed(),
    })
}

/// The rules of `catalog` that `kind` runs, matching `filter`.
///
/// # Errors
/// A glob that does not parse, or one that matches none of those rules.
pub fn select(catalog: Catalog, kind: BackendKind, filter: Option<&str>) -> Result<Vec<&'static Rule>, Error> {
    let mine = kind.select(catalog.rules());
    let rules = catalog::filter(mine.clone(), filter)?;
    match filter {
        Some(glob) if rules.is_empty() => {
            let scope = if kind.is_vendor() {
                let labels: Vec<&str> = kind.dialects().iter().map(|d| d.label()).collect();
                format!(" of backend {} (it runs only {} rules)", kind.name(), labels.join("/"))
            } else {
                String::new()
            };
            Err(Error::NoMatch { filter: glob.into(), scope, prefixes: catalog::prefixes(&mine).join(", ") })
        }
        _ => Ok(rules),
    }
}

/// Runs `vmmkit conformance`: exit 0 unless a rule fails that the baseline
/// does not excuse (1); errors are exit 2 (see [`EXIT_STATUSES`]).
///
/// # Errors
/// Bad options, an unreadable baseline, a filter that matches no rule, a
/// backend asked for by name that is unavailable (unless
/// `--allow-unavailable`), or a report that cannot be written.
pub fn run(args: &Args) -> Result<ExitCode, Error> {
    // A glob that does not parse is an error before any library is loaded.
    if let Some(glob) = &args.filter {
        globset::Glob::new(glob)?;
    }
    let baseline = match &args.baseline {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|source| Error::BaselineRead { path: path.clone(), source })?;
            Some(Baseline::parse(&text).map_err(|source| Error::BaselineParse { path: path.clone(), source })?)
        }
        None => None,
    };
    let requested = backend_kind(args.backend)?;
    let backend = Backend::resolve(requested, args.library.clone());
    if let Some(why) = backend.unavailable_as_requested(requested) {
        if !args.allow_unavailable {
            return Err(Error::Unavailable { backend: requested.name(), why: why.to_string() });
        }
        eprintln!(
            "vmmkit: backend {} is unavailable (--allow-unavailable: its rules are reported not-supported): {why}",
            requested.name()
        );
    }
    let rules = select(args.catalog, backend.kind, args.filter.as_deref())?;
    let mut cfg = RunConfig::new(std::env::current_exe()?, backend, args.catalog);
    if let Some(j) = args.jobs {
        cfg.jobs = j.max(1);
    }
    cfg.timeout = Duration::from_secs(args.timeout.max(1));
    cfg.skip = baseline.as_ref().map(Baseline::skips).unwrap_or_default();
    let report = run_report(&rules, &cfg, baseline.as_ref())?;
    let text = report::render(&report, args.format);
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Output { path: path.clone(), source })?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())?;
        }
    }
    Ok(if report.unexcused_failures() == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
