//! What running a rule gives: an [`Outcome`], and the [`Failure`] a check
//! returns on the way there.
#![forbid(unsafe_code)]

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use vmmkit_sys::rule::{Expect, Rule as Record};

/// The result kinds (Vulkan CTS's `qpTestResult`, reduced). A crashed or
/// hung process is a `Fail` whose `got` says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Outcome {
    /// The backend answered as the rule says.
    Pass,
    /// It did not. Codes are written with their names
    /// (`107017 ACL_ERROR_RT_INVALID_HANDLE`).
    Fail {
        /// What the rule expects.
        expected: String,
        /// What happened.
        got: String,
    },
    /// The backend cannot run the rule here (no library, no device, an API
    /// or a feature absent). Not a failure.
    NotSupported(String),
    /// Not run, on purpose (a baseline `skip` entry).
    Skipped(String),
}

impl Outcome {
    /// `pass`, `fail`, `not-supported` or `skipped`: the word used by the
    /// reports and the baseline.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail { .. } => "fail",
            Self::NotSupported(_) => "not-supported",
            Self::Skipped(_) => "skipped",
        }
    }

    /// Whether this is a `Fail`.
    pub fn is_fail(&self) -> bool {
        matches!(self, Self::Fail { .. })
    }

    /// The reason of a not-supported or skipped outcome.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::NotSupported(r) | Self::Skipped(r) => Some(r),
            Self::Pass | Self::Fail { .. } => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Pass => f.write_str("pass"),
            Self::Fail { expected, got } => write!(f, "fail: expected {expected}, got {got}"),
            Self::NotSupported(r) => write!(f, "not-supported: {r}"),
            Self::Skipped(r) => write!(f, "skipped: {r}"),
        }
    }
}

/// Why a check did not pass. Checks return it with `?`; the child process
/// turns it into an [`Outcome`] with [`Failure::into_outcome`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The call that provokes the rule (or the state check after it)
    /// answered otherwise.
    Mismatch {
        /// The call, with the arguments that matter (`aclrtMapMem(flags 2)`).
        step: String,
        /// What the rule expects.
        expected: String,
        /// What the backend answered.
        got: String,
    },
    /// A call that only prepares the rule failed: "setup: aclrtMallocPhysical
    /// returned 207001 ACL_ERROR_RT_MEMORY_ALLOCATION".
    Setup(String),
    /// A peer process died, timed out or broke the protocol; the text says
    /// which ("peer killed by signal 9", "no reply from peer in 5 s").
    Peer(String),
    /// Found while running: the backend cannot exercise the rule.
    NotSupported(String),
}

impl Failure {
    /// A `Setup` failure for `call` returning `code`.
    pub fn setup(call: &str, code: impl fmt::Display) -> Self {
        Self::Setup(format!("setup: {call} returned {code}"))
    }

    /// The outcome this failure means for `rule`, and the step it names.
    pub fn into_outcome(self, rule: &Record) -> (Outcome, Option<String>) {
        let expected = || expected_text(rule.expect);
        match self {
            Self::Mismatch { step, expected, got } => (Outcome::Fail { expected, got }, Some(step)),
            Self::Setup(msg) | Self::Peer(msg) => (Outcome::Fail { expected: expected(), got: msg }, None),
            Self::NotSupported(reason) => (Outcome::NotSupported(reason), None),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mismatch { step, expected, got } => write!(f, "{step}: expected {expected}, got {got}"),
            Self::Setup(m) | Self::Peer(m) => f.write_str(m),
            Self::NotSupported(r) => write!(f, "not supported: {r}"),
        }
    }
}

/// The expected outcome of a rule, as the reports print it.
pub fn expected_text(expect: Expect) -> String {
    expect.to_string()
}

/// One rule's result, as the runner collects it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleResult {
    /// The outcome.
    pub outcome: Outcome,
    /// The step that failed, an observation, or the tail of a crashed
    /// process's stderr.
    pub detail: Option<String>,
    /// Wall time of the rule's process, spawn included.
    pub duration: Duration,
}

impl RuleResult {
    /// A result decided without running anything.
    pub fn decided(outcome: Outcome) -> Self {
        Self { outcome, detail: None, duration: Duration::ZERO }
    }
}
