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
//!
//! A rule that could never do what it says is refused where the list is
//! parsed: a FUNCTION that is not an entry point of a vendor table (the
//! error names the nearest one), a KEY on a function that takes no shareable
//! handle (only [`KEYED`] do), a code of 0 (an injected success skips the
//! call and leaves its out-pointers unset), and a code that does not fit the
//! function's return type (`aclError` and `hipError_t` are 32-bit signed,
//! `CUresult` unsigned; a function that returns a string takes no code).
//! A malformed list is an error naming the rule and what is wrong with it; from
//! the environment it makes the emulator unavailable, with that message, and
//! `vmmkit run --faults` refuses it before the program starts.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use vmmkit_sys::rule::Code;
use vmmkit_sys::vendor::VENDORS;

/// The entry points whose calls carry a shareable handle that `@KEY`
/// matches: those that import by key (they reach the core's import).
pub const KEYED: &[&str] =
    &["aclrtMemImportFromShareableHandle", "aclrtMemImportFromShareableHandleV2", "aclrtIpcMemImportByKey"];

/// Every entry point of every vendor table, with its return type as the
/// table writes it: the names `VMMKIT_FAULTS` accepts.
fn functions() -> impl Iterator<Item = (&'static str, &'static str)> {
    VENDORS.iter().flat_map(|v| v.functions.iter().copied())
}

/// Why `code` cannot be returned by a function returning `ret`, if it cannot.
fn unfit(code: i64, ret: &str) -> Option<String> {
    let Some(&(low, high)) = VENDORS.iter().find(|v| v.code_type == ret).map(|v| &v.code_range) else {
        return Some(format!("the function returns {ret}, not a code; use kill or abort"));
    };
    let range = low..=high;
    if code == 0 {
        return Some("code 0 would skip the call and report success, leaving its out-pointers unset".into());
    }
    (!range.contains(&code)).then(|| format!("code {code} does not fit {ret} ({}..={})", range.start(), range.end()))
}

/// The known function nearest to `name` (fewest single-character edits).
fn nearest(name: &str) -> &'static str {
    functions().map(|(f, _)| f).min_by_key(|f| edits(&name.to_ascii_lowercase(), &f.to_ascii_lowercase())).unwrap_or("")
}

/// Levenshtein distance of two ASCII names.
fn edits(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

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
            let Some((_, ret)) = functions().find(|(f, _)| *f == function) else {
                let near = nearest(function);
                return Err(err(&format!(
                    "FUNCTION {function} is not an entry point of the emulator; did you mean {near}?"
                )));
            };
            if key.is_some() && !KEYED.contains(&function) {
                return Err(err(&format!(
                    "{function} takes no shareable handle, so @KEY would never match; KEY applies to {}",
                    KEYED.join(", ")
                )));
            }
            if let Action::Code(code) = action
                && let Some(why) = unfit(code, ret)
            {
                return Err(err(&why));
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
#[inline]
pub(crate) fn on_call(function: &str) -> Option<Action> {
    if !ACTIVE.load(Ordering::Acquire) {
        return None;
    }
    on_call_listed(function)
}

/// [`on_call`] once `VMMKIT_FAULTS` listed faults: every call of an entry
/// point goes through here then, none before (the check above is inlined).
#[cold]
fn on_call_listed(function: &str) -> Option<Action> {
    let mut s = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let (spec, counts) = s.as_mut()?;
    let n = counts.entry(function.to_string()).or_default();
    *n += 1;
    let n = *n;
    spec.rules.iter().find(|r| r.key.is_none() && r.function == function && r.calls.matches(n)).map(|r| r.action)
}

/// The fault to inject for an import of `key` by `function`, if any (rules with a key).
#[inline]
pub(crate) fn on_key(function: &str, key: u64) -> Option<Action> {
    if !ACTIVE.load(Ordering::Acquire) {
        return None;
    }
    on_key_listed(function, key)
}

/// [`on_key`] once `VMMKIT_FAULTS` listed faults.
#[cold]
fn on_key_listed(function: &str, key: u64) -> Option<Action> {
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
             aclrtMemImportFromShareableHandle@0x100000002=507899; hipMalloc=hipErrorOutOfMemory; \
             aclrtIpcMemImportByKey@ff=abort",
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
            // Rules that could never do what they say.
            ("aclrtMapMem=0", "code 0"),
            ("aclrtMapMem=ACL_SUCCESS", "code 0"),
            ("hipMalloc#2=hipSuccess", "code 0"),
            ("aclrtMapMem=4294967298", "does not fit aclError"),
            ("hipMalloc=-2147483649", "does not fit hipError_t"),
            ("cuMemAlloc=-1", "does not fit CUresult"),
            ("cuMemAlloc=4294967296", "does not fit CUresult"),
            ("hipGetErrorName=1", "not a code"),
            ("aclrtMallocPhysicl=207001", "did you mean aclrtMallocPhysical?"),
            ("hipmalloc=2", "did you mean hipMalloc?"),
            ("cuMemAlloc_v2=2", "did you mean cuMemAlloc?"),
            ("aclrtMapMem@0x1=507899", "aclrtMapMem takes no shareable handle"),
            ("hipMalloc@1=kill", "takes no shareable handle"),
        ] {
            let e = Spec::parse(bad).unwrap_err();
            assert!(e.reason.contains(why), "{bad}: {e}");
            assert!(e.to_string().contains(bad.trim()), "{e}");
        }
        assert!(Spec::parse(" ; ").unwrap().is_empty());
        // What still parses: the widest codes each return type holds, kill on any function.
        for good in ["aclrtMapMem=-2147483648", "cuMemAlloc=4294967295", "hipGetErrorName=kill", "cuMemAlloc#1=2"] {
            assert!(Spec::parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn every_keyed_function_is_an_entry_point() {
        for k in KEYED {
            assert!(functions().any(|(f, _)| f == *k), "{k}");
        }
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "abc"), 3);
    }

    #[test]
    fn calls_are_counted_per_function() {
        let (f, g) = ("aclrtMapMem", "aclrtIpcMemImportByKey");
        install(Spec::parse(&format!("{f}#2=7; {f}#4-=9; {g}@10=3")).unwrap());
        let got: Vec<_> = (0..5).map(|_| on_call(f)).collect();
        assert_eq!(got, [None, Some(Action::Code(7)), None, Some(Action::Code(9)), Some(Action::Code(9))]);
        assert_eq!(on_call(g), None, "keyed rules are not matched by the call hook");
        assert_eq!(on_key(g, 0x10), Some(Action::Code(3)));
        assert_eq!(on_key(g, 0x11), None);
        clear();
        assert_eq!(on_call(f), None);
    }
}
