//! How every ACL entry point runs: a body returning `Result<(), Fail>`,
//! panics caught at the edge, the thread's error message set on failure.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vmmkit_sys::acl::{AclError, aclError};

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator, thread};

/// A failed call: the code to return and why.
#[derive(Debug)]
pub(super) struct Fail {
    pub code: AclError,
    pub rule: Option<&'static str>,
    pub msg: String,
}

impl Fail {
    /// A rule broken by the caller.
    pub fn rule(code: AclError, rule: &'static str, msg: String) -> Self {
        Self { code, rule: Some(rule), msg }
    }

    /// A failure no catalog rule describes.
    pub fn plain(code: AclError, msg: String) -> Self {
        Self { code, rule: None, msg }
    }

    /// A core error in operation `op`. When `VMMKIT_MUTATE` names the rule it
    /// maps to, the call reports success instead (see `crate::mutation`).
    pub fn core(op: Op, e: CoreError) -> Self {
        let (code, rule) = code_for(op, &e);
        match rule {
            Some(r) if !crate::mutation::enforced(r) => {
                Self { code: AclError::SUCCESS, rule: None, msg: String::new() }
            }
            _ => Self { code, rule, msg: e.to_string() },
        }
    }
}

/// Checks a caller-side rule: fails with `$code` unless `$cond` holds (or the
/// rule is mutated away).
macro_rules! ensure {
    ($cond:expr, $rule:literal, $code:ident, $($msg:tt)+) => {
        if !($cond) && $crate::mutation::enforced($rule) {
            return Err($crate::acl::call::Fail::rule(vmmkit_sys::acl::AclError::$code, $rule, format!($($msg)+)));
        }
    };
}
pub(super) use ensure;

/// Runs the body of entry point `name`.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> aclError {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => 0,
        Ok(Err(f)) if f.code.is_success() => 0,
        Ok(Err(f)) => {
            let msg = match f.rule {
                Some(r) => format!("{r}: {name}: {} ({})", f.msg, f.code),
                None => format!("{name}: {} ({})", f.msg, f.code),
            };
            tracing::debug!(target: "vmmkit::acl", "{msg}");
            thread::set_message(&msg);
            f.code.0
        }
        Err(_) => {
            thread::set_message(&format!("{name}: internal error in the emulator (a panic); please report it"));
            AclError::RT_DRV_INTERNAL_ERROR.0
        }
    }
}

/// The emulator, or the reason it cannot start (as a failure of every call).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    crate::core::emulator().map_err(|e| Fail::plain(AclError::RT_NO_DEVICE, e.to_string()))
}

/// The calling thread's current device, or ACL-GEN-005's failure.
/// With the rule mutated away, calls proceed on device 0.
pub(super) fn current_device() -> Result<u32, Fail> {
    match thread::current_device() {
        Some(d) => Ok(d),
        None if !crate::mutation::enforced("ACL-GEN-005") => Ok(0),
        None => Err(Fail::rule(
            AclError::RT_CONTEXT_NULL,
            "ACL-GEN-005",
            "no current device: call aclrtSetDevice first".into(),
        )),
    }
}

/// Writes `v` through a caller's out-pointer (already checked non-null).
///
/// # Safety
/// `p` must be valid for writes of `T` (the C ABI contract of the call).
pub(super) unsafe fn put<T>(p: *mut T, v: T) {
    // SAFETY: the caller's contract; unaligned writes are tolerated.
    unsafe { p.write_unaligned(v) }
}

/// Reads a caller's in-pointer (already checked non-null).
///
/// # Safety
/// `p` must be valid for reads of `T`.
pub(super) unsafe fn get<T>(p: *const T) -> T {
    // SAFETY: the caller's contract; unaligned reads are tolerated.
    unsafe { p.read_unaligned() }
}
