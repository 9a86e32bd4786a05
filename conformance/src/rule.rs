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

use crate::check::Check;

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

/// Binds each rule of a vendor's table to its check, in the table's order:
/// `bind! { ACL_RULES: Acl, vmmkit_sys::acl::rules; MAP_003 => mapping::nonzero_flags, }`
/// defines `ACL_RULES`, whose checks run against `Ctx<vendor::Acl>`. With
/// `plain` for the vendor, checks take no table (the self-test catalog).
#[macro_export]
macro_rules! bind {
    ($list:ident : plain, $rules:path; $($name:ident => $check:expr,)*) => {
        /// Every rule of the table, bound to its check.
        pub static $list: &[$crate::rule::Rule] = {
            use $rules as rules;
            &[$($crate::rule::Rule { record: &rules::$name, check: &$crate::check::Plain($check) },)*]
        };
    };
    ($list:ident : $vendor:ident, $rules:path; $($name:ident => $check:expr,)*) => {
        /// Every rule of the table, bound to its check.
        pub static $list: &[$crate::rule::Rule] = {
            use $rules as rules;
            &[$(
                $crate::rule::Rule {
                    record: &rules::$name,
                    check: &$crate::check::Checked::<::vmmkit_sys::vendor::$vendor>($check),
                },
            )*]
        };
    };
}
