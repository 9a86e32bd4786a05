//! A rule of the suite: a vendor's rule record (`vmmkit_sys::rule::Rule`,
//! written once in the vendor's rule table) bound to the check that
//! provokes it (STYLE.md §6).
//!
//! The record says what the reference states (id, text, sources,
//! confidence), what the backend must answer (`expect`) and what the
//! machine must offer first (`requires`); the binding adds the check. A
//! [`Rule`] dereferences to its record, so `rule.id`, `rule.expect` and the
//! other fields read as before.
#![forbid(unsafe_code)]

use std::fmt;
use std::ops::Deref;

pub use vmmkit_sys::rule::Rule as Record;
pub use vmmkit_sys::rule::{Code, Confidence, Dialect, Expect, Need, RuleId, Source, is_valid_id};

use crate::outcome::Outcome;
use crate::vendors::Env;

/// A check, whatever it runs against (see [`crate::checked`]).
pub trait Check: Sync {
    /// Runs the check of `rule` on `env`: the outcome, and the failing step
    /// or the observations made.
    fn run(&self, rule: &'static Record, env: &Env) -> (Outcome, Option<String>);
}

/// One rule of a catalog: its record and its check.
#[derive(Clone, Copy)]
pub struct Rule {
    /// What the rule is, from its vendor's table.
    pub record: &'static Record,
    /// What provokes it.
    pub check: &'static dyn Check,
}

impl Deref for Rule {
    type Target = Record;

    fn deref(&self) -> &Record {
        self.record
    }
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule").field("id", &self.record.id).finish_non_exhaustive()
    }
}
