//! The ACL side of the call path of [`crate::dialect`]: its code type, what
//! a panic returns, its table of core errors, and the two preconditions of
//! every ACL call (a running emulator, a current device).

use vmmkit_sys::acl::{AclError, aclError, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Acl;

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator, thread};
use crate::dialect::{self, Dialect};
pub(super) use crate::dialect::{ensure, get, put};

/// A failed ACL call.
pub(super) type Fail = dialect::Fail<Acl>;

impl Dialect for Acl {
    type Op = Op;
    const PANIC: AclError = AclError::RT_DRV_INTERNAL_ERROR;

    fn code_for(op: Op, err: &CoreError) -> (AclError, Option<&'static Rule>) {
        code_for(op, err)
    }
}

/// Runs the body of entry point `name`.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> aclError {
    dialect::run::<Acl>(name, body)
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
        None if !crate::mutation::enforced(&rules::GEN_005) => Ok(0),
        None => Err(Fail::rule(&rules::GEN_005, "no current device: call aclrtSetDevice first".into())),
    }
}
