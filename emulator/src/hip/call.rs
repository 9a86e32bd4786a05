//! How every HIP entry point runs: a body returning `Result<(), Fail>`,
//! panics caught at the edge, the thread's message set on failure, and the
//! returned code stored as the thread's last error (hip.md §2.1,
//! HIP-INIT-003).

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use vmmkit_sys::hip::{HipError, hipError_t};

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator, thread};

thread_local! {
    /// The calling thread's last error (HIP-INIT-003: per thread). HIP keeps
    /// it per thread, so this is a thread-local as the vendor's is.
    static LAST: Cell<i32> = const { Cell::new(0) };
}

/// The calling thread's last error, and (with `reset`) clears it.
pub(super) fn last_error(reset: bool) -> hipError_t {
    LAST.with(|l| if reset { l.replace(0) } else { l.get() })
}

/// A failed call: the code to return and why.
#[derive(Debug)]
pub(super) struct Fail {
    pub code: HipError,
    pub rule: Option<&'static str>,
    pub msg: String,
}

impl Fail {
    /// A rule of hip.md §4 broken by the caller.
    pub fn rule(code: HipError, rule: &'static str, msg: String) -> Self {
        Self { code, rule: Some(rule), msg }
    }

    /// A failure of hip.md §2 that the catalog gives no id.
    pub fn plain(code: HipError, msg: String) -> Self {
        Self { code, rule: None, msg }
    }

    /// A core error in operation `op`. When `VMMKIT_MUTATE` names the rule it
    /// maps to, the call reports success instead (see `crate::mutation`).
    pub fn core(op: Op, e: CoreError) -> Self {
        let (code, rule) = code_for(op, &e);
        match rule {
            Some(r) if !crate::mutation::enforced(r) => {
                Self { code: HipError::SUCCESS, rule: None, msg: String::new() }
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
            return Err($crate::hip::call::Fail::rule(vmmkit_sys::hip::HipError::$code, $rule, format!($($msg)+)));
        }
    };
}
pub(super) use ensure;

/// Runs the body of entry point `name`; the code it returns becomes the
/// thread's last error. Profile 6.x (hip.md §2.1, the reference's default):
/// every call stores its code, success included, so a failure followed by a
/// success reads 0.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> hipError_t {
    let code = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => HipError::SUCCESS,
        Ok(Err(f)) if f.code.is_success() => HipError::SUCCESS,
        Ok(Err(f)) => {
            let msg = match f.rule {
                Some(r) => format!("{r}: {name}: {} ({})", f.msg, f.code),
                None => format!("{name}: {} ({})", f.msg, f.code),
            };
            tracing::debug!(target: "vmmkit::hip", "{msg}");
            thread::set_message(&msg);
            f.code
        }
        Err(_) => {
            thread::set_message(&format!("{name}: internal error in the emulator (a panic); please report it"));
            HipError::UNKNOWN
        }
    };
    LAST.with(|l| l.set(code.0));
    code.0
}

/// The emulator, or the reason it cannot start: HIP-INIT-001, a runtime that
/// cannot start answers 101 (hipGetDeviceCount answers 100 itself).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    crate::core::emulator().map_err(|e| Fail::rule(HipError::INVALID_DEVICE, "HIP-INIT-001", e.to_string()))
}

/// The calling thread's current device: device 0 until hipSetDevice.
pub(super) fn current_device() -> u32 {
    thread::current_device().unwrap_or(0)
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
