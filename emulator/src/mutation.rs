//! The mutation switch: with the `mutation` feature, `VMMKIT_MUTATE=<RULE-ID>`
//! switches off the enforcement of that one rule, so the conformance suite can
//! prove that its check for the rule notices. A dialect asks [`enforced`]
//! before each argument check, and reports success instead of a core error
//! that its code table attributes to the mutated rule. Without the feature,
//! every rule is enforced and this costs nothing.

use vmmkit_sys::rule::Rule;

/// Whether `rule` is enforced.
#[cfg(feature = "mutation")]
pub fn enforced(rule: &Rule) -> bool {
    use std::sync::OnceLock;
    // Read once: the environment of a process does not change under it.
    static MUTATED: OnceLock<Option<String>> = OnceLock::new();
    MUTATED.get_or_init(|| std::env::var("VMMKIT_MUTATE").ok().filter(|s| !s.is_empty())).as_deref()
        != Some(rule.id.as_str())
}

/// Whether `rule` is enforced: always, in a build without `mutation`.
#[cfg(not(feature = "mutation"))]
#[inline(always)]
pub fn enforced(_rule: &Rule) -> bool {
    true
}
