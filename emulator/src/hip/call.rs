//! The HIP side of the call path of [`crate::dialect`]: its code type, what
//! a panic returns, its table of core errors, and the thread's last error
//! (hip.md §2.1, HIP-INIT-003), which every call sets.

use std::cell::Cell;

use vmmkit_sys::hip::{HipError, hipError_t, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Hip;

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator, thread};
use crate::dialect::{self, Dialect};
pub(super) use crate::dialect::{ensure, get, put};

/// A failed HIP call.
pub(super) type Fail = dialect::Fail<Hip>;

thread_local! {
    /// The calling thread's last error (HIP-INIT-003: per thread). HIP keeps
    /// it per thread, so this is a thread-local as the vendor's is.
    static LAST: Cell<i32> = const { Cell::new(0) };
}

/// The calling thread's last error, and (with `reset`) clears it.
pub(super) fn last_error(reset: bool) -> hipError_t {
    LAST.with(|l| if reset { l.replace(0) } else { l.get() })
}

impl Dialect for Hip {
    type Op = Op;
    const PANIC: HipError = HipError::UNKNOWN;

    fn code_for(op: Op, err: &CoreError) -> (HipError, Option<&'static Rule>) {
        code_for(op, err)
    }

    /// Profile 6.x (hip.md §2.1, the reference's default): every call
    /// stores its code, success included, so a failure followed by a
    /// success reads 0.
    fn returned(code: HipError) {
        LAST.with(|l| l.set(code.0));
    }
}

/// Runs the body of entry point `name`; its code becomes the thread's last error.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> hipError_t {
    dialect::run::<Hip>(name, body)
}

/// The emulator, or the reason it cannot start: HIP-INIT-001, a runtime that
/// cannot start answers 101 (hipGetDeviceCount answers 100 itself).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    crate::core::emulator().map_err(|e| Fail::rule(&rules::INIT_001, e.to_string()))
}

/// The calling thread's current device: device 0 until hipSetDevice.
pub(super) fn current_device() -> u32 {
    thread::current_device().unwrap_or(0)
}
