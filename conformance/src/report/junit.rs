//! JUnit XML, as CI systems ingest it: `<testsuites>`, one `<testsuite>` per
//! group (its `<properties>` name the backend, library, version and
//! device), one `<testcase name="RULE-ID" classname="group">` per rule, with
//! `<failure message=...>` for a fail and `<skipped message=...>` for
//! not-supported, skipped and known (baseline-excused) failures.
#![forbid(unsafe_code)]

use std::fmt::Write;

use super::{Entry, Report};
use crate::outcome::Outcome;

/// Escapes `s` for XML text and attribute values. Characters XML 1.0 does
/// not allow at all (most C0 controls) become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn case(out: &mut String, e: &Entry) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        escape(e.rule.id.as_str()),
        escape(e.rule.group),
        seconds(e.result.duration)
    );
    let body = match (&e.result.outcome, &e.known) {
        (Outcome::Pass, _) => None,
        (Outcome::Fail { expected, got }, None) => {
            let msg = format!("expected {expected}, got {got}");
            let text = e.result.detail.clone().unwrap_or_default();
            Some(format!("<failure message=\"{}\" type=\"mismatch\">{}</failure>", escape(&msg), escape(&text)))
        }
        (Outcome::Fail { expected, got }, Some(why)) => {
            let msg = format!("known difference (baseline: {why}): expected {expected}, got {got}");
            Some(format!("<skipped message=\"{}\"/>", escape(&msg)))
        }
        (Outcome::NotSupported(r), _) => {
            Some(format!("<skipped message=\"{}\"/>", escape(&format!("not supported: {r}"))))
        }
        (Outcome::Skipped(r), _) => Some(format!("<skipped message=\"{}\"/>", escape(&format!("skipped: {r}")))),
    };
    match body {
        None => out.push_str("/>\n"),
        Some(b) => {
            let _ = writeln!(out, ">\n      {b}\n    </testcase>");
        }
    }
}

/// The `<properties>` of every testsuite: the backend, its library and
/// version, the device, as CI systems show them next to the results.
fn properties(report: &Report) -> String {
    let b = &report.backend;
    let mut out = String::from("    <properties>\n");
    let props = [
        ("backend", Some(b.name.as_str())),
        ("backend.detail", Some(b.detail.as_str())),
        ("library", b.library.as_deref()),
        ("version", b.version.as_deref()),
        ("device", Some(b.device.as_str())),
    ];
    for (name, value) in props {
        let _ = writeln!(out, "      <property name=\"{name}\" value=\"{}\"/>", escape(value.unwrap_or("none")));
    }
    out.push_str("    </properties>\n");
    out
}

/// Renders the XML document.
pub fn render(report: &Report) -> String {
    let s = report.summary();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"vmmkit conformance ({})\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">",
        escape(&report.backend.name),
        s.total,
        report.unexcused_failures(),
        s.total - s.passed - report.unexcused_failures(),
        seconds(report.duration)
    );
    for (group, entries) in report.groups() {
        let failures = entries.iter().filter(|e| e.is_unexcused_failure()).count();
        let passed = entries.iter().filter(|e| e.result.outcome == Outcome::Pass).count();
        let time: std::time::Duration = entries.iter().map(|e| e.result.duration).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{}\" time=\"{}\">",
            escape(group),
            entries.len(),
            entries.len() - passed - failures,
            seconds(time)
        );
        out.push_str(&properties(report));
        for e in entries {
            case(&mut out, e);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(escape("<a b=\"c\">&'\u{1}"), "&lt;a b=&quot;c&quot;&gt;&amp;&apos;\u{FFFD}");
    }
}
