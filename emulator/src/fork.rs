//! Processes forked after the emulator started.
//!
//! A child made by `fork` without `exec` has a copy of its parent's memory,
//! so of the parent's emulator: its tables, and its identity in the registry
//! (pid and start time, computed once when the emulator started). Acting on
//! them would import under the parent's trustlist entry, free the parent's
//! objects and report them as the child's leaks. No vendor lets such a child
//! use the device either (docs/emulator.md, "Processes forked after
//! initialisation"): CUDA answers `CUDA_ERROR_NOT_INITIALIZED` to every call,
//! HIP and CANN call it undefined. So every entry point of a forked child
//! refuses, with its vendor's rule (`*-FORK-001`) and a message naming the
//! parent; a child that never calls the emulator is unaffected (its inherited
//! mappings stay readable, as fork gives them).
//!
//! Detection (in the core, [`crate::core::forked_from`]) costs an entry
//! point one relaxed load. This module says what such a call answers; each
//! dialect names its rule and the calls that read no state
//! ([`crate::dialect::Dialect::FORK_RULE`], [`crate::dialect::Dialect::STATELESS`]).

use vmmkit_sys::rule::Rule;

pub use crate::core::forked_from;

/// The rule a forked child's call of `name` breaks (`rule`, its vendor's),
/// with its message, or `None` when this process is no such child, `name`
/// is one of the vendor's `stateless` calls, or the rule is mutated away.
pub(crate) fn refusal(rule: &'static Rule, stateless: &[&str], name: &str) -> Option<(&'static Rule, String)> {
    let parent = forked_from()?;
    if stateless.contains(&name) || !crate::mutation::enforced(rule) {
        return None;
    }
    let source = rule.sources.first().map(ToString::to_string).unwrap_or_default();
    let msg = format!(
        "this process (pid {}) is a fork of pid {parent}, made after the emulator was initialised there; as on the \
         device, a forked child must not use its parent's state ({source}): exec a new program, or fork before the \
         first call",
        std::process::id()
    );
    Some((rule, msg))
}
