//! HIP-INIT: the per-thread last error.

use vmmkit_sys::hip::*;

use crate::hip::Ctx;
use crate::outcome::Failure;

/// [HIP-INIT-003](vmmkit_sys::hip::rules::INIT_003): a failure is the calling thread's last error, another
/// thread does not see it, and hipGetLastError resets it (profile 6.x: a
/// later success would too).
pub fn last_error_per_thread(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    cx.device(0)?;
    let _ = hip.hipGetLastError();
    let invalid = HipError::INVALID_VALUE;
    let failed = HipError(hip.hipGetDeviceCount(std::ptr::null_mut()));
    cx.ensure("hipGetDeviceCount(NULL)", failed == invalid, invalid, failed)?;
    let peek = HipError(hip.hipPeekAtLastError());
    cx.ensure("hipPeekAtLastError", peek == invalid, invalid, peek)?;
    let other = HipError(std::thread::scope(|s| s.spawn(|| hip.hipPeekAtLastError()).join()).unwrap_or(-1));
    cx.ensure("hipPeekAtLastError on another thread", other.is_success(), HipError::SUCCESS, other)?;
    let got = HipError(hip.hipGetLastError());
    cx.ensure("hipGetLastError", got == invalid, invalid, got)?;
    cx.expect_ok("hipGetLastError after a reset", hip.hipGetLastError())
}
