//! What the three result layers ([`crate::acl`], [`crate::hip`],
//! [`crate::cuda`]) share: the out-parameter call and the fd export. Each
//! layer's `check` is [`Error::check`] with the vendor's message.

use std::ffi::c_void;
use std::os::fd::{FromRawFd, OwnedFd};

use crate::error::Error;

/// Calls `call` with an output slot that starts as `slot` (a C function's
/// out-parameter), and returns what the slot holds after it succeeded.
pub(crate) fn out<T>(slot: T, call: impl FnOnce(&mut T) -> Result<(), Error>) -> Result<T, Error> {
    let mut slot = slot;
    call(&mut slot)?;
    Ok(slot)
}

/// An export that writes a new POSIX fd into its `int` out-parameter
/// ([HIP-VMM-025](vmmkit_sys::hip::rules::VMM_025); CUDA's likewise), passed to `call` as the `void*` the C
/// function takes; the fd it wrote, owned by the caller.
///
/// # Safety
/// When `call` succeeds, it has written a new descriptor that nothing else owns.
pub(crate) unsafe fn exported_fd(call: impl FnOnce(*mut c_void) -> Result<(), Error>) -> Result<OwnedFd, Error> {
    let fd = out(-1i32, |fd| call(std::ptr::from_mut(fd).cast()))?;
    // SAFETY: the caller's contract: a new descriptor, ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
