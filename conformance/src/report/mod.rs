//! What a run produced, and its three renderings: a table for people, JSON
//! and JUnit XML for CI. All show the same ids and outcomes.
#![forbid(unsafe_code)]

pub mod json;
pub mod junit;
pub mod table;

use std::time::Duration;

pub use crate::baseline::{Entry, Stale};
use crate::outcome::Outcome;

/// Output format of `vmmkit conformance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Grouped by API, with a summary line.
    Table,
    /// One JSON document.
    Json,
    /// JUnit XML (one testsuite per group).
    Junit,
}

/// The backend of a run, for the report header and summary.
#[derive(Debug, Clone)]
pub struct BackendInfo {
    /// `emulator`, `ascend`, ...
    pub name: String,
    /// What was loaded, from where.
    pub detail: String,
    /// The library path, for a real backend.
    pub library: Option<String>,
    /// The version the library reports, or vmmkit's for the emulator.
    pub version: Option<String>,
    /// The devices the rules ran on, or `none`.
    pub device: String,
    /// The dialects whose rules it runs (`ACL`, `HIP`, `CUDA`).
    pub dialects: Vec<String>,
}

impl BackendInfo {
    /// What the report says of `b`.
    pub fn of(b: &crate::backend::Backend) -> Self {
        Self {
            name: b.kind.name().into(),
            detail: b.detail.clone(),
            library: b.library.as_ref().map(|p| p.display().to_string()),
            version: b.version.clone(),
            device: b.device.clone(),
            dialects: b.kind.dialects().iter().map(|d| d.label().to_string()).collect(),
        }
    }

    /// The summary's lines: `backend hip (HIP rules)`, `library … (version …)`,
    /// `device …`.
    pub fn lines(&self) -> [String; 3] {
        let library = match (&self.library, &self.version) {
            (Some(l), Some(v)) => format!("library {l} ({v})"),
            (Some(l), None) => format!("library {l} (version unknown)"),
            (None, Some(v)) => format!("no library ({v})"),
            (None, None) => "no library".into(),
        };
        [format!("backend {}: {}", self.name, self.detail), library, format!("device: {}", self.device)]
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The backend.
    pub backend: BackendInfo,
    /// The catalog (`suite` or `selftest`).
    pub catalog: String,
    /// One entry per rule run, in catalog order.
    pub entries: Vec<Entry>,
    /// Baseline entries that no longer apply.
    pub stale: Vec<Stale>,
    /// Wall time of the whole run.
    pub duration: Duration,
}

/// Counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Rules run or decided.
    pub total: usize,
    /// Passed.
    pub passed: usize,
    /// Failed, known ones included.
    pub failed: usize,
    /// Failures the baseline excuses.
    pub known: usize,
    /// Not supported here.
    pub not_supported: usize,
    /// Skipped.
    pub skipped: usize,
    /// Baseline entries that no longer apply.
    pub stale: usize,
}

impl Report {
    /// The counts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary { total: self.entries.len(), stale: self.stale.len(), ..Summary::default() };
        for e in &self.entries {
            match e.result.outcome {
                Outcome::Pass => s.passed += 1,
                Outcome::Fail { .. } => {
                    s.failed += 1;
                    if e.known.is_some() {
                        s.known += 1;
                    }
                }
                Outcome::NotSupported(_) => s.not_supported += 1,
                Outcome::Skipped(_) => s.skipped += 1,
            }
        }
        s
    }

    /// Failures the baseline does not excuse: the run fails when there is one.
    pub fn unexcused_failures(&self) -> usize {
        self.entries.iter().filter(|e| e.is_unexcused_failure()).count()
    }

    /// The entries grouped by rule group, groups in order of first appearance.
    pub fn groups(&self) -> Vec<(&'static str, Vec<&Entry>)> {
        let mut groups: Vec<(&'static str, Vec<&Entry>)> = Vec::new();
        for e in &self.entries {
            match groups.iter_mut().find(|(g, _)| *g == e.rule.group) {
                Some((_, v)) => v.push(e),
                None => groups.push((e.rule.group, vec![e])),
            }
        }
        groups
    }
}

impl Summary {
    /// `N passed, N failed, N not-supported, N skipped`.
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} not-supported, {} skipped",
            self.passed, self.failed, self.not_supported, self.skipped
        )
    }
}

/// Renders `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Table => table::render(report),
        Format::Json => json::render(report),
        Format::Junit => junit::render(report),
    }
}
