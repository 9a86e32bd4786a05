//! Fault injection for users' own error-path tests.
//!
//! `VMMKIT_FAULTS` (read when the emulator starts) or [`set`] holds a list of
//! rules separated by `;`:
//!
//! ```text
//! FUNCTION[#CALLS][@KEY]=ACTION
//!
//! CALLS   N      the Nth call (1-based) of FUNCTION in this process
//!         N-     the Nth and every later call
//!         N-M    calls N to M
//!         (none) every call
//! KEY     a shareable handle (hex, 0x optional): only imports of that handle
//!         (the import functions of each dialect)
//! ACTION  a vendor code, as a number (207001) or a name (ACL_ERROR_RT_MEMORY_ALLOCATION,
//!         hipErrorOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY); or `kill` (SIGKILL this
//!         process at that call) or `abort`
//! ```
//!
//! Examples: `aclrtMallocPhysical#3=207001` (the third physical allocation
//! fails as out of memory); `aclrtMemImportFromShareableHandle@0x100000002=507899`
//! (every import of that handle is refused); `aclrtMapMem#2=kill`.
//! A malformed list is an error naming the rule and what is wrong with it; from
//! the environment it makes the emulator unavailable, with that message.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use vmmkit_sys::rule::Code;

/// What an injected fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Return this code.
    Code(i64),
    /// SIGKILL the process at this call.
    Kill,
    /// Abort the process at this call.
    Abort,
}

/// Which calls of a function a rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Calls {
    Every,
    Range(u64, u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    function: String,
    calls: Calls,
    key: Option<u64>,
    action: Action,
}

/// A parsed fault list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spec {
    rules: Vec<Rule>,
}

/// A fault list that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fault rule {rule:?}: {reason} (syntax: FUNCTION[#N|#N-|#N-M][@KEY]=CODE|kill|abort, rules separated by ';')")]
pub struct SpecError {
    /// The rule.
    pub rule: String,
    /// What is wrong.
    pub reason: String,
}

impl Spec {
    /// Parses a fault list.
    ///
    /// # Errors
    /// A [`SpecError`] naming the first bad rule.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let mut rules = Vec::new();
        for raw in text.split(';').map(str::trim).filter(|r| !r.is_empty()) {
            let err = |reason: &str| SpecError { rule: raw.into(), reason: reason.into() };
            let (lhs, action) = raw.split_once('=').ok_or_else(|| err("missing '=ACTION'"))?;
            let action = parse_action(action.trim())
                .ok_or_else(|| err("ACTION must be a code number, a code name, kill or abort"))?;
            let (lhs, key) = match lhs.split_once('@') {
                Some((l, k)) => {
                    let k = k.trim();
                    let hex = k.strip_prefix("0x").or_else(|| k.strip_prefix("0X")).unwrap_or(k);
                    (
                        l,
                        Some(
                            u64::from_str_radix(hex, 16)
                                .map_err(|_| err("KEY must be a hexadecimal shareable handle"))?,
                        ),
                    )
                }
                None => (lhs, None),
            };
            let (function, calls) = match lhs.split_once('#') {
                Some((f, c)) => {
                    (f, parse_calls(c.trim()).ok_or_else(|| err("CALLS must be N, N- or N-M with 1 <= N <= M"))?)
                }
                None => (lhs, Calls::Every),
            };
            let function = function.trim();
            if function.is_empty() || !function.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(err("FUNCTION must be a C function name such as aclrtMallocPhysical"));
            }
            rules.push(Rule { function: function.into(), calls, key, action });
        }
        Ok(Self { rules })
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

fn parse_calls(c: &str) -> Option<Calls> {
    let n = |s: &str| s.parse::<u64>().ok().filter(|&n| n >= 1);
    match c.split_once('-') {
        None => n(c).map(|a| Calls::Range(a, a)),
        Some((a, "")) => n(a).map(|a| Calls::Range(a, u64::MAX)),
        Some((a, b)) => match (n(a), n(b)) {
            (Some(a), Some(b)) if a <= b => Some(Calls::Range(a, b)),
            _ => None,
        },
    }
}

fn parse_action(a: &str) -> Option<Action> {
    match a {
        "kill" => return Some(Action::Kill),
        "abort" => return Some(Action::Abort),
        _ => {}
    }
    if let Ok(n) = a.parse::<i64>() {
        return Some(Action::Code(n));
    }
    Code::from_name(a).map(|c| Action::Code(c.raw()))
}

/// The active list and per-function call counts of this process. A global
/// because injected faults are per process, like the vendors' own state.
static STATE: Mutex<Option<(Spec, HashMap<String, u64>)>> = Mutex::new(None);
/// Fast path: no list is active, so calls take no lock.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Makes `spec` the active fault list of this process (replacing any) and
/// resets the call counts.
///
/// # Errors
/// A [`SpecError`] for a malformed list; the active list is then unchanged.
pub fn set(spec: &str) -> Result<(), SpecError> {
    let parsed = Spec::parse(spec)?;
    install(parsed);
    Ok(())
}

/// Removes the active fault list.
pub fn clear() {
    install(Spec::default());
}

pub(crate) fn install(spec: Spec) {
    let mut s = STATE.lock().unwrap_or_else(|p| p.into_inner());
    ACTIVE.store(!spec.is_empty(), Ordering::Release);
    *s = Some((spec, HashMap::new()));
}

/// Counts a call of `function` and returns the fault to inject, if any
/// (rules without a key). Called once per entry-point call.
pub(crate) fn on_call(function: &str) -> Option<Action> {
    if !ACTIVE.load(Ordering::Acquire) {
        return None;
    }
    let mut s = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let (spec, counts) = s.as_mut()?;
    let n = counts.entry(function.to_string()).or_default();
    *n += 1;
    let n = *n;
    spec.rules.iter().find(|r| r.key.is_none() && r.function == function && r.calls.matches(n)).map(|r| r.action)
}

/// The fault to inject for an import of `key` by `function`, if any (rules with a key).
pub(crate) fn on_key(function: &str, key: u64) -> Option<Action> {
    if !ACTIVE.load(Ordering::Acquire) {
        return None;
    }
    let s = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let (spec, counts) = s.as_ref()?;
    let n = counts.get(function).copied().unwrap_or(0);
    spec.rules.iter().find(|r| r.key == Some(key) && r.function == function && r.calls.matches(n)).map(|r| r.action)
}

impl Calls {
    fn matches(self, n: u64) -> bool {
        match self {
            Calls::Every => true,
            Calls::Range(a, b) => (a..=b).contains(&n),
        }
    }
}

/// Carries out a kill or abort action; returns the code of a code action.
pub(crate) fn act(action: Action) -> i64 {
    match action {
        Action::Code(c) => c,
        Action::Kill => {
            let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
            // SIGKILL cannot be caught; should it somehow return, abort.
            std::process::abort()
        }
        Action::Abort => std::process::abort(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let s = Spec::parse(
            "aclrtMallocPhysical#3=207001; aclrtMapMem#2-=kill;aclrtFree#2-4=ACL_ERROR_INVALID_PARAM;\
             aclrtMemImportFromShareableHandle@0x100000002=507899; hipMalloc=hipErrorOutOfMemory; x@ff=abort",
        )
        .unwrap();
        assert_eq!(s.rules.len(), 6);
        assert_eq!(s.rules[0].calls, Calls::Range(3, 3));
        assert_eq!(
            s.rules[1],
            Rule { function: "aclrtMapMem".into(), calls: Calls::Range(2, u64::MAX), key: None, action: Action::Kill }
        );
        assert_eq!(s.rules[2].action, Action::Code(100_000));
        assert_eq!(s.rules[3].key, Some(0x1_0000_0002));
        assert_eq!(s.rules[4].action, Action::Code(2));
        assert_eq!(s.rules[5].action, Action::Abort);
    }

    #[test]
    fn malformed_rules_say_what_is_wrong() {
        for (bad, why) in [
            ("aclrtMapMem", "missing '=ACTION'"),
            ("aclrtMapMem=lots", "ACTION"),
            ("aclrtMapMem#0=1", "CALLS"),
            ("aclrtMapMem#3-2=1", "CALLS"),
            ("aclrtMapMem#x=1", "CALLS"),
            ("aclrt MapMem=1", "FUNCTION"),
            ("=1", "FUNCTION"),
            ("aclrtMemImportFromShareableHandle@zz=1", "KEY"),
        ] {
            let e = Spec::parse(bad).unwrap_err();
            assert!(e.reason.contains(why), "{bad}: {e}");
            assert!(e.to_string().contains(bad.trim()), "{e}");
        }
        assert!(Spec::parse(" ; ").unwrap().is_empty());
    }

    #[test]
    fn calls_are_counted_per_function() {
        install(Spec::parse("f#2=7; f#4-=9; g@10=3").unwrap());
        let got: Vec<_> = (0..5).map(|_| on_call("f")).collect();
        assert_eq!(got, [None, Some(Action::Code(7)), None, Some(Action::Code(9)), Some(Action::Code(9))]);
        assert_eq!(on_call("g"), None, "keyed rules are not matched by the call hook");
        assert_eq!(on_key("g", 0x10), Some(Action::Code(3)));
        assert_eq!(on_key("g", 0x11), None);
        clear();
        assert_eq!(on_call("f"), None);
    }
}
