//! The runtime's error: the C call that failed, the vendor's code, and the
//! rule the emulator names (hardware names none).
#![forbid(unsafe_code)]

use std::fmt;

use vmmkit_sys::vendor::VendorCode;

/// A vendor return code, whichever vendor's table the call went to: the
/// one type of `vmmkit-sys`, shared with the conformance suite.
///
/// ```
/// use vmmkit_runtime::Code;
/// use vmmkit_sys::acl::AclError;
/// let c = Code::Acl(AclError::RT_INVALID_HANDLE);
/// assert_eq!(c, AclError::RT_INVALID_HANDLE);
/// assert_eq!(c.to_string(), "107017 ACL_ERROR_RT_INVALID_HANDLE");
/// ```
pub use vmmkit_sys::rule::Code;

/// A vendor call that failed.
///
/// Shown as `aclrtMapMem: 100000 ACL_ERROR_INVALID_PARAM ([ACL-MAP-003](vmmkit_sys::acl::rules::MAP_003): flags
/// must be 0, got 2)`. The part in parentheses comes from the library's
/// last-error message when that message names a rule, as the emulator's do;
/// a real driver's messages name none, and then there is no such part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    /// The C function, e.g. `aclrtMapMem`.
    pub call: &'static str,
    /// What it returned.
    pub code: Code,
    /// The rule it reported, with its explanation: `ACL-MAP-003: flags must be 0, got 2`.
    pub rule: Option<String>,
    /// Set when the runtime did not call the library because this backend
    /// has no such operation (e.g. a trustlist on HIP): why, in words. The
    /// `code` is then the vendor's not-supported code and `call` the
    /// runtime's method.
    pub unsupported: Option<&'static str>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.call, self.code)?;
        if let Some(r) = &self.rule {
            write!(f, " ({r})")?;
        }
        if let Some(why) = self.unsupported {
            write!(f, " (not supported: {why})")?;
        }
        Ok(())
    }
}

impl Error {
    /// An error of `call` with `code`, taking the rule from `message` (the
    /// library's last-error text) when it names one for this call.
    pub fn new(call: &'static str, code: impl Into<Code>, message: Option<&str>) -> Self {
        let code = code.into();
        let rule = message.and_then(|m| rule_of(call, code, m));
        Self { call, code, rule, unsupported: None }
    }

    /// `Ok(())` when `code` is the vendor's success, else the error of
    /// `call`, with the rule that `message` (the library's last-error text,
    /// read only on failure) names: the one check of every result layer.
    pub(crate) fn check<C: VendorCode>(
        call: &'static str,
        code: C,
        message: impl FnOnce() -> Option<String>,
    ) -> Result<(), Self> {
        if code.is_ok() {
            return Ok(());
        }
        Err(Self::new(call, code, message().as_deref()))
    }

    /// An operation this backend does not have: `call` is the runtime's
    /// method, `code` the vendor's not-supported code, `why` the reason.
    pub(crate) fn unsupported(call: &'static str, code: impl Into<Code>, why: &'static str) -> Self {
        Self { call, code: code.into(), rule: None, unsupported: Some(why) }
    }

    /// Whether the backend has no such operation (no library call was made).
    pub fn is_unsupported(&self) -> bool {
        self.unsupported.is_some()
    }

    /// The rule id alone, e.g. [`ACL-MAP-003`](vmmkit_sys::acl::rules::MAP_003).
    pub fn rule_id(&self) -> Option<&str> {
        self.rule.as_deref().and_then(|r| r.split(':').next())
    }
}

/// Whether `s` looks like a rule id of the catalog: at least three
/// dash-separated upper-case parts, the last one digits ([`ACL-MAP-003`](vmmkit_sys::acl::rules::MAP_003)).
fn is_rule_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() >= 3
        && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        && parts[0].bytes().all(|b| b.is_ascii_uppercase())
        && parts[parts.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

/// The rule and its explanation out of an emulator message of the form
/// `ACL-MAP-003: aclrtMapMem: flags must be 0, got 2 (100000 ACL_ERROR_INVALID_PARAM)`.
///
/// A message that does not start with a rule id, or that is about another
/// call (a stale message of an earlier failure), gives none.
fn rule_of(call: &str, code: Code, message: &str) -> Option<String> {
    let (id, rest) = message.split_once(": ")?;
    if !is_rule_id(id) {
        return None;
    }
    let text = rest.strip_prefix(call)?.strip_prefix(": ")?;
    let suffix = format!(" ({code})");
    let text = text.strip_suffix(suffix.as_str()).unwrap_or(text);
    Some(format!("{id}: {text}"))
}

#[cfg(test)]
mod tests {
    use vmmkit_sys::acl::AclError;

    use super::*;

    #[test]
    fn display_with_and_without_a_rule() {
        let msg = "ACL-MAP-003: aclrtMapMem: flags must be 0, got 2 (100000 ACL_ERROR_INVALID_PARAM)";
        let e = Error::new("aclrtMapMem", AclError::INVALID_PARAM, Some(msg));
        assert_eq!(e.to_string(), "aclrtMapMem: 100000 ACL_ERROR_INVALID_PARAM (ACL-MAP-003: flags must be 0, got 2)");
        assert_eq!(e.rule_id(), Some("ACL-MAP-003"));
        assert_eq!(e.code, AclError::INVALID_PARAM);

        // A driver's message names no rule.
        let e = Error::new("aclrtMapMem", AclError::INVALID_PARAM, Some("EE1001: invalid argument"));
        assert_eq!(e.to_string(), "aclrtMapMem: 100000 ACL_ERROR_INVALID_PARAM");
        assert_eq!(e.rule_id(), None);
    }

    #[test]
    fn a_message_about_another_call_is_not_this_calls_rule() {
        let stale = "ACL-FP-004: aclrtFreePhysical: 0x1 is not a live handle (107000 ACL_ERROR_RT_PARAM_INVALID)";
        let e = Error::new("aclrtMapMem", AclError::RT_PARAM_INVALID, Some(stale));
        assert_eq!(e.rule, None);
    }

    #[test]
    fn an_unsupported_call_says_so() {
        let e = Error::unsupported("Exported::set_pids", vmmkit_sys::hip::HipError::NOT_SUPPORTED, "no trustlist");
        assert!(e.is_unsupported());
        assert_eq!(e.rule_id(), None);
        assert_eq!(e.to_string(), "Exported::set_pids: 801 hipErrorNotSupported (not supported: no trustlist)");
        assert!(!Error::new("hipMemMap", vmmkit_sys::hip::HipError::NOT_SUPPORTED, None).is_unsupported());
    }

    #[test]
    fn rule_ids() {
        for ok in ["ACL-MAP-003", "ACL-MP-001", "HIP-VMM-012", "ACL-GEN-005"] {
            assert!(is_rule_id(ok), "{ok}");
        }
        for bad in ["ACL", "ACL-MAP", "acl-map-003", "ACL-MAP-00x", "-MAP-003", "EE1001", "1-A-003"] {
            assert!(!is_rule_id(bad), "{bad}");
        }
    }
}
