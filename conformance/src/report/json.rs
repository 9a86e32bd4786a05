//! The JSON report. Keys are stable and always present (null when they do
//! not apply):
//!
//! ```text
//! { "backend": { "name", "detail", "library", "version", "device",
//!                "dialects" }, "catalog", "duration_ms",
//!   "rules": [ { "id", "group", "text", "apis", "confidence", "sources",
//!                "note", "outcome", "expected", "got", "reason", "detail",
//!                "known", "duration_ms" } ],
//!   "stale": [ { "id", "outcome", "why", "now" } ],
//!   "summary": { "total", "passed", "failed", "known", "not_supported",
//!                "skipped", "stale" } }
//! ```
//!
//! `outcome` is `pass`, `fail`, `not-supported` or `skipped`; `expected` is
//! the catalog's expectation, or what the failing step expected.
#![forbid(unsafe_code)]

use serde::Serialize;

use super::{Report, Summary};
use crate::outcome::Outcome;

#[derive(Serialize)]
struct Doc<'a> {
    backend: Backend<'a>,
    catalog: &'a str,
    duration_ms: u128,
    rules: Vec<RuleLine<'a>>,
    stale: Vec<StaleLine<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Backend<'a> {
    name: &'a str,
    detail: &'a str,
    library: Option<&'a str>,
    version: Option<&'a str>,
    device: &'a str,
    dialects: &'a [String],
}

#[derive(Serialize)]
struct RuleLine<'a> {
    id: &'a str,
    group: &'a str,
    text: &'a str,
    apis: &'a [&'a str],
    confidence: String,
    sources: Vec<String>,
    note: Option<&'a str>,
    outcome: &'a str,
    expected: String,
    got: Option<&'a str>,
    reason: Option<&'a str>,
    detail: Option<&'a str>,
    known: Option<&'a str>,
    duration_ms: u128,
}

#[derive(Serialize)]
struct StaleLine<'a> {
    id: &'a str,
    outcome: &'a str,
    why: &'a str,
    now: &'a str,
}

/// Renders the JSON document (pretty, ending with a newline).
pub fn render(report: &Report) -> String {
    let rules = report
        .entries
        .iter()
        .map(|e| {
            let o = &e.result.outcome;
            let (expected, got) = match o {
                Outcome::Fail { expected, got } => (expected.clone(), Some(got.as_str())),
                _ => (e.rule.expect.to_string(), None),
            };
            RuleLine {
                id: e.rule.id.as_str(),
                group: e.rule.group,
                text: e.rule.text,
                apis: e.rule.apis,
                confidence: e.rule.confidence_tags(),
                sources: e.rule.sources.iter().map(ToString::to_string).collect(),
                note: e.rule.note,
                outcome: o.kind(),
                expected,
                got,
                reason: o.reason(),
                detail: e.result.detail.as_deref(),
                known: e.known.as_deref(),
                duration_ms: e.result.duration.as_millis(),
            }
        })
        .collect();
    let stale =
        report.stale.iter().map(|s| StaleLine { id: &s.id, outcome: &s.outcome, why: &s.why, now: &s.now }).collect();
    let doc = Doc {
        backend: Backend {
            name: &report.backend.name,
            detail: &report.backend.detail,
            library: report.backend.library.as_deref(),
            version: report.backend.version.as_deref(),
            device: &report.backend.device,
            dialects: &report.backend.dialects,
        },
        catalog: &report.catalog,
        duration_ms: report.duration.as_millis(),
        rules,
        stale,
        summary: report.summary(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
