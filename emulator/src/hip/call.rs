//! The HIP side of the call path of [`crate::dialect`]: its `Fail` and `run`,
//! and the thread's last error
//! (hip.md §2.1, [HIP-INIT-003](vmmkit_sys::hip::rules::INIT_003)), which every call sets.

use std::cell::Cell;

use vmmkit_sys::hip::{HipError, hipError_t, rules};
use vmmkit_sys::vendor::Hip;

use crate::core::{Emulator, thread};
use crate::dialect;

/// `ensure!(cond, rule, "msg {}", x)`: [`crate::dialect::ensure`] with the
/// rule's main code under the process's version profile (`profile.rs`);
/// `ensure!(cond, rule => code, …)` names the code itself.
macro_rules! ensure {
    ($cond:expr, $rule:path => $code:expr, $($msg:tt)+) => {
        $crate::dialect::ensure!($cond, $rule => $code, $($msg)+)
    };
    ($cond:expr, $rule:path, $($msg:tt)+) => {
        $crate::dialect::ensure!($cond, $rule => $crate::hip::profile::main_code(&$rule), $($msg)+)
    };
}
pub(super) use ensure;

thread_local! {
    /// The calling thread's last error ([HIP-INIT-003](vmmkit_sys::hip::rules::INIT_003): per thread). HIP keeps
    /// it per thread, so this is a thread-local as the vendor's is.
    static LAST: Cell<i32> = const { Cell::new(0) };
}

/// The calling thread's last error, and (with `reset`) clears it.
pub(super) fn last_error(reset: bool) -> hipError_t {
    LAST.with(|l| if reset { l.replace(0) } else { l.get() })
}

/// Stores `code` as the thread's last error (every call does, see `codes.rs`).
pub(super) fn set_last_error(code: HipError) {
    LAST.with(|l| l.set(code.0));
}

dialect::aliases!(Hip, hipError_t);

/// The emulator, or the reason it cannot start: [HIP-INIT-001](vmmkit_sys::hip::rules::INIT_001), a runtime that
/// cannot start answers 101 (hipGetDeviceCount answers 100 itself).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    let e = crate::core::emulator().map_err(|e| Fail::rule(&rules::INIT_001, e.to_string()))?;
    no_device_left(e)?;
    Ok(e)
}

/// [HIP-INIT-009](vmmkit_sys::hip::rules::INIT_009): the devices of this process are those ROCr's and clr's
/// variables leave it; when they leave none, every call is 100, as clr's
/// `HIP_INIT_API` answers with no device.
pub(super) fn no_device_left(e: &Emulator) -> Result<(), Fail> {
    let seen = e.see_as(crate::visible::MaskVendor::Hip);
    ensure!(seen.count() > 0, rules::INIT_009, "no device is visible: {}", seen.describe());
    Ok(())
}

/// The calling thread's current device: device 0 until hipSetDevice.
pub(super) fn current_device() -> u32 {
    thread::current_device().unwrap_or(0)
}
