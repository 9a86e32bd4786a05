//! The mutation switch: with the `mutation` feature, `VMMKIT_MUTATE=<RULE-ID>`
//! switches off the enforcement of that one rule, so the conformance suite can
//! prove that its check for the rule notices. A dialect asks [`enforced`]
//! before each argument check, and reports success instead of a core error
//! that its code table attributes to the mutated rule. Without the feature,
//! every rule is enforced and this costs nothing.

use vmmkit_sys::rule::Rule;

/// The rule `VMMKIT_MUTATE` names, read once: the environment of a process
/// does not change under it.
#[cfg(feature = "mutation")]
fn mutated() -> Option<&'static str> {
    use std::sync::OnceLock;
    static MUTATED: OnceLock<Option<String>> = OnceLock::new();
    MUTATED.get_or_init(|| std::env::var("VMMKIT_MUTATE").ok().filter(|s| !s.is_empty())).as_deref()
}

/// Whether `rule` is enforced.
#[cfg(feature = "mutation")]
pub fn enforced(rule: &Rule) -> bool {
    mutated() != Some(rule.id.as_str())
}

/// Whether some rule's enforcement is switched off in this process. A NULL
/// pointer that gets past the checks then answers the dialect's panic code,
/// not its invalid-argument code ([`crate::ffi::Null`]): with the rule's own
/// check off, the safety net must not answer the rule's code for it, or the
/// mutation would go unnoticed.
#[cfg(feature = "mutation")]
pub fn any_mutated() -> bool {
    mutated().is_some()
}

/// Whether `rule` is enforced: always, in a build without `mutation`.
#[cfg(not(feature = "mutation"))]
#[inline(always)]
pub fn enforced(_rule: &Rule) -> bool {
    true
}

/// Whether some rule's enforcement is switched off: never, in a build
/// without `mutation`.
#[cfg(not(feature = "mutation"))]
#[inline(always)]
pub fn any_mutated() -> bool {
    false
}
