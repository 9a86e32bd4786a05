//! Baselines: the known differences of one backend, so that hardware CI
//! fails only on regressions (wgpu's expectations, Vulkan CTS's exclusion
//! lists).
//!
//! # Format
//!
//! One entry per line; `#` starts a comment; blank lines are ignored.
//!
//! ```text
//! # RULE-ID   OUTCOME      "WHY"
//! ACL-MAP-012 fail=0       "MapMem size != physical size: the real driver returns 0"
//! ACL-ACC-007 fail         "grants differ on this firmware"
//! ACL-IMP-018 skip         "hangs the driver"
//! ACL-GEN-010 not-supported=simulator "no backend of vmmkit is the chip simulator"
//! ```
//!
//! `OUTCOME` is what was observed:
//! * `fail`: the rule fails, whatever it got;
//! * `fail=TOKEN`: the rule fails and what it got contains `TOKEN` as a
//!   word: a code (`0`, `107000`) or a code name (`ACL_ERROR_RT_PARAM_INVALID`);
//! * `skip`: the rule is not run at all (reported skipped with the reason);
//! * `not-supported`, `not-supported=TOKEN`: the backend cannot run the
//!   rule, and (with a token) its reason holds `TOKEN` as a word.
//!
//! `WHY` is a double-quoted string (`\"` and `\\` escape). A failure an
//! entry matches is reported as known and does not fail the run. An entry
//! that no longer applies (its rule now passes, fails otherwise, or does not
//! exist) is listed as stale.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fmt;

use crate::outcome::{Outcome, RuleResult};
use crate::rule::Rule;

/// What a baseline entry says was observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// A failure, optionally whose `got` holds this word.
    Fail(Option<String>),
    /// Not run.
    Skip,
    /// Not supported, optionally whose reason holds this word.
    NotSupported(Option<String>),
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fail(None) => f.write_str("fail"),
            Self::Fail(Some(t)) => write!(f, "fail={t}"),
            Self::Skip => f.write_str("skip"),
            Self::NotSupported(None) => f.write_str("not-supported"),
            Self::NotSupported(Some(t)) => write!(f, "not-supported={t}"),
        }
    }
}

/// One line of a baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Rule id.
    pub id: String,
    /// Observed outcome.
    pub observed: Observed,
    /// Why it differs.
    pub why: String,
    /// Line number in the file.
    pub line: usize,
}

impl Known {
    /// Whether this entry excuses `outcome`.
    pub fn matches(&self, outcome: &Outcome) -> bool {
        let has_word =
            |text: &str, t: &str| text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == t);
        match (&self.observed, outcome) {
            (Observed::Fail(None), Outcome::Fail { .. }) | (Observed::NotSupported(None), Outcome::NotSupported(_)) => {
                true
            }
            (Observed::Fail(Some(t)), Outcome::Fail { got, .. }) => has_word(got, t),
            (Observed::NotSupported(Some(t)), Outcome::NotSupported(reason)) => has_word(reason, t),
            _ => false,
        }
    }
}

/// One rule's line of the report.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The rule.
    pub rule: &'static Rule,
    /// What happened.
    pub result: RuleResult,
    /// For a failure the baseline excuses: the baseline's reason.
    pub known: Option<String>,
}

impl Entry {
    /// A failure the baseline does not excuse.
    pub fn is_unexcused_failure(&self) -> bool {
        self.result.outcome.is_fail() && self.known.is_none()
    }
}

/// A baseline entry that no longer applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// Rule id.
    pub id: String,
    /// The entry's outcome, as written.
    pub outcome: String,
    /// The entry's reason.
    pub why: String,
    /// What happens now.
    pub now: String,
}

impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} \"{}\": {}", self.id, self.outcome, self.why, self.now)
    }
}

/// A baseline that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("baseline line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A parsed baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// The entries, in file order.
    pub entries: Vec<Known>,
}

impl Baseline {
    /// Parses the text of a baseline file.
    ///
    /// # Errors
    /// The first line that does not parse, and why.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let err = |message: String| ParseError { line, message };
            let (id, rest) =
                l.split_once(char::is_whitespace).ok_or_else(|| err("expected: ID OUTCOME \"WHY\"".into()))?;
            if !crate::rule::is_valid_id(id) {
                return Err(err(format!("{id:?} is not a rule id")));
            }
            let rest = rest.trim_start();
            let (outcome, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let observed = match outcome {
                "fail" => Observed::Fail(None),
                "skip" => Observed::Skip,
                "not-supported" => Observed::NotSupported(None),
                o => match (o.strip_prefix("fail="), o.strip_prefix("not-supported=")) {
                    (Some(t), _) if !t.is_empty() => Observed::Fail(Some(t.to_string())),
                    (_, Some(t)) if !t.is_empty() => Observed::NotSupported(Some(t.to_string())),
                    _ => {
                        return Err(err(format!(
                            "outcome {o:?} is not fail, fail=TOKEN, skip, not-supported or not-supported=TOKEN"
                        )));
                    }
                },
            };
            let why = quoted(rest.trim()).map_err(err)?;
            if entries.iter().any(|k: &Known| k.id == id) {
                return Err(err(format!("{id} is listed twice")));
            }
            entries.push(Known { id: id.to_string(), observed, why, line });
        }
        Ok(Self { entries })
    }

    /// The rules to skip, with why.
    pub fn skips(&self) -> HashMap<String, String> {
        self.entries.iter().filter(|k| k.observed == Observed::Skip).map(|k| (k.id.clone(), k.why.clone())).collect()
    }

    /// Marks the failures this baseline excuses, and returns the entries
    /// that no longer apply. `known_ids` are all ids of the catalog; entries
    /// for rules in it that were not run (filtered out, or of a vendor the
    /// backend does not run) are not judged. An entry whose id names no rule
    /// is stale only if `owns(id)`: the id is of a vendor this backend runs
    /// (so one baseline file can serve several backends).
    pub fn apply(&self, entries: &mut [Entry], known_ids: &[&str], owns: impl Fn(&str) -> bool) -> Vec<Stale> {
        let mut stale = Vec::new();
        for k in &self.entries {
            let stale_as =
                |now: String| Stale { id: k.id.clone(), outcome: k.observed.to_string(), why: k.why.clone(), now };
            let Some(e) = entries.iter_mut().find(|e| e.rule.id.as_str() == k.id) else {
                if !known_ids.contains(&k.id.as_str()) && owns(&k.id) {
                    stale.push(stale_as("no rule has this id".into()));
                }
                continue;
            };
            if k.observed == Observed::Skip {
                continue;
            }
            if k.matches(&e.result.outcome) {
                e.known = Some(k.why.clone());
            } else {
                stale.push(stale_as(format!("now {}", e.result.outcome)));
            }
        }
        stale
    }
}

/// The contents of a `"..."` string, with `\"` and `\\` unescaped.
fn quoted(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("the reason must be a double-quoted string, got {s:?}"))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => out.push(e),
                other => return Err(format!("unknown escape \\{}", other.map(String::from).unwrap_or_default())),
            },
            '"' => return Err("a \" inside the reason must be written \\\"".into()),
            c => out.push(c),
        }
    }
    if out.trim().is_empty() {
        return Err("the reason is empty; say why the difference is known".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_comments() {
        let b = Baseline::parse(
            "# known\n\nACL-MAP-012 fail=0 \"real driver returns 0\"\nACL-IMP-018  skip  \"hangs \\\"it\\\"\"\n",
        )
        .unwrap();
        assert_eq!(b.entries.len(), 2);
        assert_eq!(b.entries[0].observed, Observed::Fail(Some("0".into())));
        assert_eq!(b.entries[1].why, "hangs \"it\"");
        assert_eq!(b.skips().get("ACL-IMP-018").map(String::as_str), Some("hangs \"it\""));
    }

    #[test]
    fn rejects_bad_lines_with_their_number() {
        for (text, line) in [
            ("ACL-MAP-012 fail", 1),
            ("\nacl-map fail \"x\"", 2),
            ("ACL-MAP-012 passes \"x\"", 1),
            ("ACL-MAP-012 fail \"\"", 1),
            ("ACL-MAP-012 fail \"a\"\nACL-MAP-012 skip \"b\"", 2),
        ] {
            assert_eq!(Baseline::parse(text).unwrap_err().line, line, "{text}");
        }
    }

    #[test]
    fn token_matches_a_word_of_got() {
        let k =
            Known { id: "X-Y-001".into(), observed: Observed::Fail(Some("107000".into())), why: "w".into(), line: 1 };
        let fail = |got: &str| Outcome::Fail { expected: String::new(), got: got.into() };
        assert!(k.matches(&fail("107000 ACL_ERROR_RT_PARAM_INVALID")));
        assert!(!k.matches(&fail("1070001 X")));
        assert!(!k.matches(&Outcome::Pass));
    }

    #[test]
    fn not_supported_entries_match_a_word_of_the_reason() {
        let b =
            Baseline::parse("ACL-GEN-010 not-supported=simulator \"w\"\nACL-GEN-009 not-supported \"w\"\n").unwrap();
        let ns = |r: &str| Outcome::NotSupported(r.into());
        assert_eq!(b.entries[0].observed.to_string(), "not-supported=simulator");
        assert!(b.entries[0].matches(&ns("needs the chip simulator (C-model)")));
        assert!(!b.entries[0].matches(&ns("needs the simulators")));
        assert!(!b.entries[0].matches(&Outcome::Fail { expected: String::new(), got: "simulator".into() }));
        assert!(b.entries[1].matches(&ns("anything")) && !b.entries[1].matches(&Outcome::Pass));
        assert_eq!(Baseline::parse("ACL-GEN-010 not-supported= \"w\"").unwrap_err().line, 1);
    }
}
