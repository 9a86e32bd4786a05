//! How every CUDA entry point runs: a body returning `Result<(), Fail>`,
//! panics caught at the edge, the thread's message set on failure. The
//! driver API has no "last error" of its own (that is the runtime's), so
//! nothing else is kept.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vmmkit_sys::cuda::{CUresult, CuResult};

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator, thread};

/// A failed call: the code to return and why.
#[derive(Debug)]
pub(super) struct Fail {
    pub code: CuResult,
    pub rule: Option<&'static str>,
    pub msg: String,
}

impl Fail {
    /// A rule of cuda.md §3 broken by the caller.
    pub fn rule(code: CuResult, rule: &'static str, msg: String) -> Self {
        Self { code, rule: Some(rule), msg }
    }

    /// A failure that the catalog gives no id (cuda.md §1–§2, or an emulator choice).
    pub fn plain(code: CuResult, msg: String) -> Self {
        Self { code, rule: None, msg }
    }

    /// A core error in operation `op`. When `VMMKIT_MUTATE` names the rule it
    /// maps to, the call reports success instead (see `crate::mutation`).
    pub fn core(op: Op, e: CoreError) -> Self {
        let (code, rule) = code_for(op, &e);
        match rule {
            Some(r) if !crate::mutation::enforced(r) => {
                Self { code: CuResult::SUCCESS, rule: None, msg: String::new() }
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
            return Err($crate::cuda::call::Fail::rule(vmmkit_sys::cuda::CuResult::$code, $rule, format!($($msg)+)));
        }
    };
}
pub(super) use ensure;

/// Runs the body of entry point `name`.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> CUresult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CuResult::SUCCESS.0,
        Ok(Err(f)) if f.code.is_success() => CuResult::SUCCESS.0,
        Ok(Err(f)) => {
            let msg = match f.rule {
                Some(r) => format!("{r}: {name}: {} ({})", f.msg, f.code),
                None => format!("{name}: {} ({})", f.msg, f.code),
            };
            tracing::debug!(target: "vmmkit::cuda", "{msg}");
            thread::set_message(&msg);
            f.code.0
        }
        Err(_) => {
            thread::set_message(&format!("{name}: internal error in the emulator (a panic); please report it"));
            CuResult::UNKNOWN.0
        }
    }
}

/// The emulator. Every caller has passed [`super::context::initialised`]
/// (cuInit succeeded, so the emulator started) or is cuInit itself, which
/// maps the failure on its own.
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    crate::core::emulator().map_err(|e| Fail::plain(CuResult::NOT_INITIALIZED, e.to_string()))
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
