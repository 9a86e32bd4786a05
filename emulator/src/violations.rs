//! A record of the rules this process's entry points reported broken, with
//! the code each returned: how the conformance suite proves, rule by rule,
//! that the code the emulator returns for a broken rule is the one the
//! rule's record lists. Off unless [`start`] is called; then one relaxed
//! load per failing call.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use vmmkit_sys::rule::{Code, Rule};

/// Whether failures are being recorded. A process-wide switch, set by the
/// conformance runner in the process of one rule.
static ON: AtomicBool = AtomicBool::new(false);

/// What was recorded since [`start`]: (rule, code), in call order. Only the
/// conformance runner reads it.
static SEEN: Mutex<Vec<(&'static Rule, Code)>> = Mutex::new(Vec::new());

/// Starts recording (and forgets what was recorded before).
pub fn start() {
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).clear();
    ON.store(true, Ordering::Relaxed);
}

/// Notes that a call failed with `code`, naming `rule`.
pub(crate) fn record(rule: Option<&'static Rule>, code: Code) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    if let Some(r) = rule {
        SEEN.lock().unwrap_or_else(|p| p.into_inner()).push((r, code));
    }
}

/// What was recorded since [`start`].
pub fn take() -> Vec<(&'static Rule, Code)> {
    std::mem::take(&mut *SEEN.lock().unwrap_or_else(|p| p.into_inner()))
}
