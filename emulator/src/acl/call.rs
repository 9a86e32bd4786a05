//! The ACL side of the call path of [`crate::dialect`]: its `Fail` and
//! `run`, and the two preconditions of every ACL call (a running emulator, a
//! current device). Its codes and core-error table are in `codes.rs`.

use vmmkit_sys::acl::{AclError, aclError, rules};
use vmmkit_sys::vendor::Acl;

use crate::core::{Emulator, thread};
use crate::dialect;
pub(super) use crate::dialect::ensure;

dialect::aliases!(Acl, aclError);

/// The emulator, or the reason it cannot start (as a failure of every call).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    let e = crate::core::emulator().map_err(|e| Fail::plain(AclError::RT_NO_DEVICE, e.to_string()))?;
    e.see_as(crate::visible::MaskVendor::Acl);
    Ok(e)
}

/// The calling thread's current device, or [ACL-GEN-005](vmmkit_sys::acl::rules::GEN_005)'s failure.
/// With the rule mutated away, calls proceed on device 0.
pub(super) fn current_device() -> Result<u32, Fail> {
    match thread::current_device() {
        Some(d) => Ok(d),
        None if !crate::mutation::enforced(&rules::GEN_005) => Ok(0),
        None => Err(Fail::rule(&rules::GEN_005, "no current device: call aclrtSetDevice first".into())),
    }
}

thread_local! {
    /// The last error code an ACL call of this thread returned (0: none
    /// since the last aclrtGetLastError), as the runtime keeps per thread.
    static LAST_ERROR: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

/// Keeps `code` as the thread's last error when it is one.
pub(super) fn note_code(code: AclError) {
    if code != AclError::SUCCESS {
        LAST_ERROR.with(|c| c.set(code.0));
    }
}

/// The thread's last error code; cleared when `clear`.
pub(super) fn take_last_error(clear: bool) -> aclError {
    LAST_ERROR.with(|c| if clear { c.replace(0) } else { c.get() })
}

/// A pointer an entry point checks for NULL: raw (an address it does not
/// dereference) or wrapped ([`crate::ffi`]).
pub(super) trait MaybeNull {
    /// Whether it is NULL.
    fn null(&self) -> bool;
}

impl<T: ?Sized> MaybeNull for *const T {
    fn null(&self) -> bool {
        self.is_null()
    }
}

impl<T: ?Sized> MaybeNull for *mut T {
    fn null(&self) -> bool {
        self.is_null()
    }
}

impl<T> MaybeNull for crate::ffi::Out<'_, T> {
    fn null(&self) -> bool {
        self.is_null()
    }
}

impl<T> MaybeNull for crate::ffi::In<'_, T> {
    fn null(&self) -> bool {
        self.is_null()
    }
}

impl MaybeNull for crate::ffi::CStrIn<'_> {
    fn null(&self) -> bool {
        self.is_null()
    }
}

/// 100000 naming `what` when `ptr` is NULL: the ACL front end's
/// `ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT`.
pub(super) fn non_null(ptr: impl MaybeNull, what: &str) -> Result<(), Fail> {
    if ptr.null() {
        return Err(Fail::plain(vmmkit_sys::acl::AclError::INVALID_PARAM, format!("{what} is NULL")));
    }
    Ok(())
}
