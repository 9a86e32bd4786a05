//! The table for people: a section per group, a line per rule, the reason
//! or the expected-versus-got under each rule that did not pass, and the
//! summary last: the backend, its library and version, the device, and the
//! counts line.
#![forbid(unsafe_code)]

use std::fmt::Write;

use super::{Entry, Report};
use crate::outcome::Outcome;

/// Width the rule text is cut to.
const TEXT_WIDTH: usize = 78;

fn label(e: &Entry) -> &'static str {
    match (&e.result.outcome, &e.known) {
        (Outcome::Pass, _) => "PASS",
        (Outcome::Fail { .. }, None) => "FAIL",
        (Outcome::Fail { .. }, Some(_)) => "KNOWN",
        (Outcome::NotSupported(_), _) => "N/S",
        (Outcome::Skipped(_), _) => "SKIP",
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= TEXT_WIDTH {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(TEXT_WIDTH - 1).collect();
        s.push('…');
        s
    }
}

/// Renders the table.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let s = report.summary();
    let _ = writeln!(
        out,
        "vmmkit conformance: backend {} ({}), {} rules, {:.1} s",
        report.backend.name,
        report.backend.detail,
        s.total,
        report.duration.as_secs_f64()
    );
    for (group, entries) in report.groups() {
        let _ = writeln!(out, "\n{group}");
        for e in entries {
            let _ = writeln!(out, "  {:<5}  {:<14} {}", label(e), e.rule.id, cut(e.rule.text));
            let more = match &e.result.outcome {
                Outcome::Fail { expected, got } => Some(format!("expected {expected}, got {got}")),
                Outcome::NotSupported(r) | Outcome::Skipped(r) => Some(r.clone()),
                Outcome::Pass => None,
            };
            if let Some(m) = more {
                let _ = writeln!(out, "{:23}{m}", "");
            }
            if !matches!(e.result.outcome, Outcome::Pass)
                && let Some(d) = &e.result.detail
            {
                for line in d.lines().take(8) {
                    let _ = writeln!(out, "{:23}| {line}", "");
                }
            }
            if let Some(why) = &e.known {
                let _ = writeln!(out, "{:23}known (baseline): {why}", "");
            }
        }
    }
    if !report.stale.is_empty() {
        let _ = writeln!(out, "\nstale baseline entries (they no longer apply):");
        for st in &report.stale {
            let _ = writeln!(out, "  {}", st);
        }
    }
    out.push('\n');
    for line in report.backend.lines() {
        let _ = writeln!(out, "{line}");
    }
    if s.known > 0 {
        let _ = writeln!(out, "{} of the failures are known differences (baseline)", s.known);
    }
    let _ = writeln!(out, "{}", s.line());
    out
}
