//! Assertions on ACL return codes, for the tests that call the emulator's
//! `AclApi` table directly.

use vmmkit_sys::acl::{AclError, aclError};

/// `rc` must be success; `what` names the call.
pub fn ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}");
}

/// `rc` as an [`AclError`].
pub fn code(rc: aclError) -> AclError {
    AclError(rc)
}
